// Per owned shard: an ordered consumer over K8S_OBJS with filter `k8s.<shard>.>` that first replays the last value
// of every object of the shard (deliver_policy last_per_subject), then follows live changes. Each envelope updates
// the object store and pokes the actors of the sets it concerns. A shard is "synced" once the replay reached the
// shard's last message as it was when the consumer started.
//
// The feed re-opens itself when its consumer falls silent (no heartbeat for REOPEN_AFTER_MISSED_HEARTBEATS
// intervals): an ordered consumer is an R1 in-memory consumer, so it dies with the NATS node that hosted it, and
// nats.js only recreates it after the server answers "consumer not found" — which a cluster that lost the node
// never does (the info request times out, forever). A chaos test saw a shard's feed stay dead for good after one
// node of a 3-node cluster was killed. The new consumer resumes after the last sequence handled, so nothing is
// missed and nothing replayed.
//
// nats.js's own heartbeat monitor is not enough: on a disconnect it stops the monitor, and on the reconnect it
// restarts it only once a consumer info request succeeds. When the node that hosted the consumer is gone (a
// 3-node cluster lost it), that request times out forever, so no "heartbeats missed" is ever reported and the feed
// stays dead without a word (the node-loss chaos test saw two sets never converge). Each feed therefore keeps its
// own watchdog on the last message or heartbeat it received.
//
// nats-server 2.9 places a new R1 consumer on any peer of the stream, including one that is down: about one
// consumer create in three then gets no answer at all while a node of a 3-node cluster is missing (measured: 6 to
// 9 of 20 creates timed out, for as long as the node stayed away). The feeds therefore make their JetStream
// requests with a shorter timeout (feedJetStream) and retry a timed-out create at once.
//
// Besides its consumer, each feed subscribes to the shard's live subject (live.<shard>.>), where the watcher sends
// every object change as core NATS the moment it has it. What each message, from either path, does to the cache is
// object-messages.ts.
import { setTimeout as sleep } from "node:timers/promises";
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import type { ConsumerMessages, JetStreamClient, JetStreamManager, OrderedConsumerOptions } from "@nats-io/jetstream";
import { errors } from "@nats-io/transport-node";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { STREAMS, liveObjectSubjects, objectSubjects } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import { PULL_EXPIRES_MS } from "../../../common/src/pull.ts";
import { Semaphore } from "../../../common/src/semaphore.ts";
import type { ObjectStore } from "../domain/object-store.ts";
import { ObjectMessages } from "./object-messages.ts";
import type { IntakeListener } from "./object-messages.ts";
import type { ObjectRereads } from "./rereads.ts";

export { TOMBSTONE_VERSION_KEEP_MS } from "./object-messages.ts";
export type { IntakeListener, ObjectSource } from "./object-messages.ts";

/** The core NATS side of the live copies (NatsConnection satisfies it). */
export type LiveSource = Pick<NatsConnection, "subscribe">;

/** Missed heartbeats (of PULL_EXPIRES_MS / 2 each) after which a feed drops its consumer and opens a new one. */
const REOPEN_AFTER_MISSED_HEARTBEATS = 2;
const REOPEN_RETRY_MS = 500;
/**
 * JetStream API timeout of the feeds' requests (consumer create, info, delete): a create answers in tens of
 * milliseconds, or never when the server placed the consumer on a node that is down (see the top of this file).
 */
export const FEED_API_TIMEOUT_MS = 2_000;
/** The server heartbeats an idle pull every PULL_EXPIRES_MS / 2 (nats.js's default idle_heartbeat). */
const HEARTBEAT_MS = PULL_EXPIRES_MS / 2;
/** Silence after which the watchdog re-opens a feed: one heartbeat later than nats.js's own report would. */
const SILENT_AFTER_MS = (REOPEN_AFTER_MISSED_HEARTBEATS + 1) * HEARTBEAT_MS;
/**
 * Shard feeds opened at once. A replica that takes over most of the 256 shards (its peers died) would otherwise
 * send two JetStream API requests per shard in one burst; on a busy machine they time out together, and its lease
 * renewals queue behind them until it self-fences (seen in the chaos soak).
 */
const OPEN_CONCURRENCY = 16;
/** Last-message lookups (one direct get each) at once: they decide which shards' consumers are created first. */
const LOOKUP_CONCURRENCY = 64;

interface ShardFeed {
  messages: ConsumerMessages | undefined;
  synced: boolean;
  stopped: boolean;
  /** Stream sequence of the last message handled: a re-opened consumer starts after it. */
  lastSeq: number;
  /** The replay target: the shard is synced once a message at or past it was handled. */
  targetSeq: number;
  /** performance.now() of the last message or heartbeat of the current consumer. */
  lastSignMs: number;
  watchdog: ReturnType<typeof setInterval> | undefined;
  /** The shard's live subscription, open for as long as the feed. */
  live: Subscription | undefined;
}

/** The JetStream client the feeds should be given: FEED_API_TIMEOUT_MS instead of the 5 s default. */
export function feedJetStream(connection: NatsConnection): JetStreamClient {
  return jetstream(connection, { timeout: FEED_API_TIMEOUT_MS });
}

/** A timed-out request already waited; a create that landed on a lost node is retried at once. */
function retryDelayMs(error: unknown): number {
  return error instanceof errors.TimeoutError ? 0 : REOPEN_RETRY_MS;
}

export class ShardIntake {
  private readonly feeds = new Map<number, ShardFeed>();
  private readonly opening = new Semaphore(OPEN_CONCURRENCY);
  private readonly looking = new Semaphore(LOOKUP_CONCURRENCY);
  private readonly js: JetStreamClient;
  private readonly jsm: JetStreamManager;
  private readonly listener: IntakeListener;
  private readonly logger: Logger;
  private readonly liveSource: LiveSource | undefined;
  private readonly objects: ObjectMessages;

  constructor(deps: {
    js: JetStreamClient;
    jsm: JetStreamManager;
    store: ObjectStore;
    listener: IntakeListener;
    logger: Logger;
    /** Subscribes each feed to its shard's live copies; without it the feeds read the stream only. */
    live?: LiveSource;
    /** Asks the watcher to repair subjects whose last message could not be read; without it they stay unknown. */
    rereads?: Pick<ObjectRereads, "request" | "resolved">;
  }) {
    this.js = deps.js;
    this.jsm = deps.jsm;
    this.listener = deps.listener;
    this.logger = deps.logger;
    this.liveSource = deps.live;
    this.objects = new ObjectMessages({ store: deps.store, listener: deps.listener, logger: deps.logger, rereads: deps.rereads });
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
    const feed: ShardFeed = { messages: undefined, synced: false, stopped: false, lastSeq: 0, targetSeq: 0, lastSignMs: 0, watchdog: undefined, live: undefined };
    this.feeds.set(shard, feed);
    // Before the replay starts, so no change falls between the two: whichever copy is later wins.
    feed.live = this.subscribeLive(shard, feed);
    // Retried until it works or the shard is closed: the shard stays owned, so giving up would leave it unserved.
    while (!feed.stopped) {
      try {
        // null: the shard has no message yet. An error (timeout) must not count as "nothing to replay".
        const last = await this.looking.run(() => this.jsm.streams.getMessage(STREAMS.objects, { last_by_subj: objectSubjects.shardFilter(shard) }));
        feed.targetSeq = last?.seq ?? 0;
        if (feed.targetSeq === 0) this.markSynced(shard, feed);
        // Shards holding objects first: their sets wait for a turn (after a failover, the first write of the new
        // owner waits for them); an empty shard's consumer only has to follow objects created from now on.
        await this.opening.run(() => this.consume(shard, feed), { urgent: feed.targetSeq > 0 });
        return;
      } catch (error) {
        this.logger.warn({ shard, err: error }, "opening the shard feed failed; retrying");
        await sleep(retryDelayMs(error));
      }
    }
  }

  private subscribeLive(shard: number, feed: ShardFeed): Subscription | undefined {
    if (this.liveSource === undefined) return undefined;
    return this.liveSource.subscribe(liveObjectSubjects.shardFilter(shard), {
      callback: (error, message) => {
        if (error !== null || feed.stopped) return;
        this.objects.handle(shard, message.subject, message.data, message.headers, "live", 0);
      },
    });
  }

  private markSynced(shard: number, feed: ShardFeed): void {
    if (feed.synced || feed.stopped) return;
    feed.synced = true;
    this.listener.synced(shard);
  }

  private async consume(shard: number, feed: ShardFeed): Promise<void> {
    const options: Partial<OrderedConsumerOptions> = {
      filter_subjects: objectSubjects.shardFilter(shard),
      ...(feed.lastSeq > 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: feed.lastSeq + 1 }
        : { deliver_policy: DeliverPolicy.LastPerSubject }),
    };
    const consumer = await this.js.consumers.get(STREAMS.objects, options);
    if (feed.stopped) return;
    const messages = await consumer.consume({ expires: PULL_EXPIRES_MS });
    if (feed.stopped) {
      await messages.close().catch(() => undefined);
      return;
    }
    feed.messages = messages;
    feed.lastSignMs = performance.now();
    this.watch(shard, feed, messages);
    void (async () => {
      for await (const status of messages.status()) {
        if (status.type === "heartbeat") feed.lastSignMs = performance.now();
        if (status.type === "heartbeats_missed" && status.count >= REOPEN_AFTER_MISSED_HEARTBEATS) {
          void this.reopen(shard, feed, messages, `${status.count} heartbeats missed`);
          break;
        }
      }
    })().catch(() => undefined);
    void (async () => {
      try {
        for await (const message of messages) {
          if (feed.stopped || feed.messages !== messages) break;
          feed.lastSignMs = performance.now();
          feed.lastSeq = message.seq;
          this.objects.handle(shard, message.subject, message.data, message.headers, "stream", message.seq);
          if (message.seq >= feed.targetSeq || message.info.pending === 0) this.markSynced(shard, feed);
        }
      } catch (error) {
        if (!feed.stopped && feed.messages === messages) this.logger.error({ shard, err: error }, "shard feed failed");
      }
    })();
  }

  /**
   * Re-opens the feed when `messages` brought neither a message nor a heartbeat for SILENT_AFTER_MS. A tick that
   * comes late (this process was paused or starved of CPU) only re-arms: the heartbeats of that time may still be
   * unread in the socket, and timers run before I/O in Node's loop. The check itself waits for setImmediate, after
   * one round of I/O.
   */
  private watch(shard: number, feed: ShardFeed, messages: ConsumerMessages): void {
    clearInterval(feed.watchdog);
    let lastTickMs = performance.now();
    feed.watchdog = setInterval(() => {
      const tickMs = performance.now();
      const lateMs = tickMs - lastTickMs - HEARTBEAT_MS;
      lastTickMs = tickMs;
      if (lateMs > HEARTBEAT_MS / 2) return;
      setImmediate(() => {
        if (feed.stopped || feed.messages !== messages) return;
        const silentMs = performance.now() - feed.lastSignMs;
        if (silentMs >= SILENT_AFTER_MS) void this.reopen(shard, feed, messages, `no message or heartbeat for ${Math.round(silentMs)} ms`);
      });
    }, HEARTBEAT_MS);
    feed.watchdog.unref();
  }

  /** Replaces a silent consumer with a new one that starts after the last message handled. */
  private async reopen(shard: number, feed: ShardFeed, silent: ConsumerMessages, reason: string): Promise<void> {
    if (feed.stopped || feed.messages !== silent) return;
    feed.messages = undefined;
    clearInterval(feed.watchdog);
    await silent.close().catch(() => undefined);
    this.logger.warn({ shard, reason, afterSeq: feed.lastSeq }, "shard feed silent; opening a new consumer");
    while (!feed.stopped) {
      try {
        await this.consume(shard, feed);
        return;
      } catch (error) {
        this.logger.warn({ shard, err: error }, "re-opening the shard feed failed; retrying");
        await sleep(retryDelayMs(error));
      }
    }
  }

  /** Stops the shard's feed; the caller drops its objects from the store. */
  async close(shard: number): Promise<void> {
    const feed = this.feeds.get(shard);
    if (!feed) return;
    feed.stopped = true;
    clearInterval(feed.watchdog);
    this.feeds.delete(shard);
    this.objects.dropShard(shard);
    try {
      feed.live?.unsubscribe();
    } catch {
      // The connection is closed already: so is the subscription.
    }
    await feed.messages?.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    this.objects.close();
    await Promise.all([...this.feeds.keys()].map((shard) => this.close(shard)));
  }
}
