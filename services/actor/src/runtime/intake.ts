// Per owned shard: an ordered consumer over K8S_OBJS with filter `k8s.<shard>.>` that first replays the last value
// of every object of the shard (deliver_policy last_per_subject), then follows live changes. Each envelope updates
// the object store and pokes the actors of the sets it concerns. A shard is "synced" once the replay reached the
// shard's last message as it was when the consumer started.
import { DeliverPolicy } from "@nats-io/jetstream";
import type { ConsumerMessages, JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { DecodeError, STREAMS, codecs, objectSubjects } from "#protocol";
import type { HeaderCarrier } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import type { ObjectStore, SetKey } from "../domain/object-store.ts";

export interface IntakeListener {
  changed(key: SetKey, reason: string, headers: HeaderCarrier | undefined): void;
  synced(shard: number): void;
  dropped(reason: string): void;
}

interface ShardFeed {
  messages: ConsumerMessages | undefined;
  synced: boolean;
  stopped: boolean;
}

export class ShardIntake {
  private readonly feeds = new Map<number, ShardFeed>();
  private readonly loggedReasons = new Set<string>();
  private readonly js: JetStreamClient;
  private readonly jsm: JetStreamManager;
  private readonly store: ObjectStore;
  private readonly listener: IntakeListener;
  private readonly logger: Logger;

  constructor(deps: { js: JetStreamClient; jsm: JetStreamManager; store: ObjectStore; listener: IntakeListener; logger: Logger }) {
    this.js = deps.js;
    this.jsm = deps.jsm;
    this.store = deps.store;
    this.listener = deps.listener;
    this.logger = deps.logger;
  }

  isSynced(shard: number): boolean {
    return this.feeds.get(shard)?.synced ?? false;
  }

  syncedCount(): number {
    let count = 0;
    for (const feed of this.feeds.values()) if (feed.synced) count++;
    return count;
  }

  async open(shard: number): Promise<void> {
    if (this.feeds.has(shard)) return;
    const feed: ShardFeed = { messages: undefined, synced: false, stopped: false };
    this.feeds.set(shard, feed);
    const filter = objectSubjects.shardFilter(shard);
    const last = await this.jsm.streams.getMessage(STREAMS.objects, { last_by_subj: filter }).catch(() => null);
    const targetSeq = last?.seq ?? 0;
    const markSynced = () => {
      if (feed.synced || feed.stopped) return;
      feed.synced = true;
      this.listener.synced(shard);
    };
    if (targetSeq === 0) markSynced();
    const consumer = await this.js.consumers.get(STREAMS.objects, {
      filter_subjects: filter,
      deliver_policy: DeliverPolicy.LastPerSubject,
    });
    if (feed.stopped) return;
    const messages = await consumer.consume();
    feed.messages = messages;
    void (async () => {
      try {
        for await (const message of messages) {
          if (feed.stopped) break;
          this.handle(shard, message.subject, message.data, message.headers);
          if (message.seq >= targetSeq || message.info.pending === 0) markSynced();
        }
      } catch (error) {
        if (!feed.stopped) this.logger.error({ shard, err: error }, "shard feed failed");
      }
    })();
  }

  private handle(shard: number, subject: string, data: Uint8Array, headers: HeaderCarrier | undefined): void {
    let envelope;
    try {
      envelope = codecs.objectEnvelope.decode(data);
    } catch (error) {
      const reason = error instanceof DecodeError ? error.reason : "error";
      this.listener.dropped(reason);
      if (!this.loggedReasons.has(reason)) {
        this.loggedReasons.add(reason);
        this.logger.warn({ subject, reason, err: error }, "dropping undecodable object message (logged once per reason)");
      }
      return;
    }
    const { affected } = this.store.apply(shard, envelope);
    for (const key of affected) this.listener.changed(key, envelope.kind, headers);
  }

  /** Stops the shard's feed; the caller drops its objects from the store. */
  async close(shard: number): Promise<void> {
    const feed = this.feeds.get(shard);
    if (!feed) return;
    feed.stopped = true;
    this.feeds.delete(shard);
    await feed.messages?.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.feeds.keys()].map((shard) => this.close(shard)));
  }
}
