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
// every object change as core NATS the moment it has it, whatever its JetStream publish is doing. When K8S_OBJS has no leader (the node that led
// it crashed: a 4-9 s Raft election on nats-server 2.9) the live copies keep the cache current, so turns go on. Both
// copies carry the watcher's publication version (header Sts-Pub); PublicationOrder keeps the later one per subject
// and lets the second copy of a message skip decoding (ADR 0084).
//
// A message that cannot be read (undecodable, invalid, or about another object than its subject names) is counted
// and changes nothing. When it came from the stream it is the subject's last value, what the next owner's replay
// will find: the store marks the subject unreadable (an object it does not hold stays unknown, and the sets it may
// concern wait), and the watcher is asked to publish the subject again (ObjectRereads). The next readable message
// of the subject makes it known again (ADR 0088). A live copy is not stored: dropping it loses nothing the stream's
// copy does not bring.
import { setTimeout as sleep } from "node:timers/promises";
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import type { ConsumerMessages, JetStreamClient, JetStreamManager, OrderedConsumerOptions } from "@nats-io/jetstream";
import { errors } from "@nats-io/transport-node";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import {
  DecodeError,
  HEADERS,
  OBJECT_KINDS,
  STREAMS,
  SubjectError,
  codecs,
  kindToken,
  liveObjectSubjects,
  nameToToken,
  objectSubjects,
  parsePublicationVersion,
} from "#protocol";
import type { HeaderCarrier, ObjectEnvelope, PublicationVersion } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import { PULL_EXPIRES_MS } from "../../../common/src/pull.ts";
import { Semaphore } from "../../../common/src/semaphore.ts";
import type { ObjectStore, SetKey, SubjectRef } from "../domain/object-store.ts";
import { PublicationOrder } from "../domain/publication-order.ts";
import type { ObjectRereads } from "./rereads.ts";

/** Which path an object message came by. */
export type ObjectSource = "stream" | "live";

export interface IntakeListener {
  changed(key: SetKey, reason: string, headers: HeaderCarrier | undefined): void;
  synced(shard: number): void;
  dropped(reason: string, source: ObjectSource): void;
  /** A message applied, or skipped because the same or a newer copy of its subject was already applied. */
  received?(source: ObjectSource, outcome: "applied" | "stale"): void;
}

/** The core NATS side of the live copies (NatsConnection satisfies it). */
export type LiveSource = Pick<NatsConnection, "subscribe">;

/** How long a tombstone's version is remembered after it was applied (see PublicationOrder.sweep). */
export const TOMBSTONE_VERSION_KEEP_MS = 120_000;
const SWEEP_INTERVAL_MS = 30_000;

/** The subject the watcher publishes an envelope on in `shard` (objectSubjects.build without its checks). */
function subjectOfEnvelope(shard: number, envelope: ObjectEnvelope): string {
  return `k8s.${shard}.${kindToken(envelope.kind)}.${envelope.namespace}.${nameToToken(envelope.name)}`;
}

/** An envelope about another object than the subject it came on names. */
class SubjectMismatchError extends Error {
  override readonly name = "SubjectMismatchError";
  constructor(subject: string, envelope: ObjectEnvelope) {
    super(`${subject} carries ${envelope.kind} ${envelope.namespace}/${envelope.name}`);
  }
}

function publicationVersionOf(headers: HeaderCarrier | undefined): PublicationVersion | undefined {
  return headers?.has(HEADERS.publication) ? parsePublicationVersion(headers.get(HEADERS.publication)) : undefined;
}

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
  private readonly loggedReasons = new Set<string>();
  private readonly opening = new Semaphore(OPEN_CONCURRENCY);
  private readonly looking = new Semaphore(LOOKUP_CONCURRENCY);
  private readonly js: JetStreamClient;
  private readonly jsm: JetStreamManager;
  private readonly store: ObjectStore;
  private readonly listener: IntakeListener;
  private readonly logger: Logger;
  private readonly liveSource: LiveSource | undefined;
  private readonly rereads: Pick<ObjectRereads, "request" | "resolved"> | undefined;
  private readonly order = new PublicationOrder();
  private readonly sweeper: ReturnType<typeof setInterval>;

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
    this.store = deps.store;
    this.listener = deps.listener;
    this.logger = deps.logger;
    this.liveSource = deps.live;
    this.rereads = deps.rereads;
    this.sweeper = setInterval(() => this.order.sweep(performance.now(), TOMBSTONE_VERSION_KEEP_MS), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
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
        this.handle(shard, message.subject, message.data, message.headers, "live", 0);
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
          this.handle(shard, message.subject, message.data, message.headers, "stream", message.seq);
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

  private drop(subject: string, reason: string, error: unknown, source: ObjectSource): void {
    this.listener.dropped(reason, source);
    if (this.loggedReasons.has(reason)) return;
    this.loggedReasons.add(reason);
    this.logger.warn({ subject, reason, err: error }, "dropping an object message (logged once per reason)");
  }

  /**
   * A stream message of `shard` that cannot be read is the subject's last value: mark the subject unreadable and ask
   * for it again. A subject that does not parse names no object the watcher publishes: nothing to repair.
   */
  private unreadable(shard: number, subject: string, seq: number, reason: string): void {
    let address;
    try {
      address = objectSubjects.parse(subject);
    } catch (error) {
      if (error instanceof SubjectError) return;
      throw error;
    }
    if (address.shard !== shard) return;
    const ref: SubjectRef = { shard, kind: OBJECT_KINDS[address.kind], namespace: address.namespace, name: address.name };
    this.store.markUnreadable(ref);
    this.rereads?.request(ref, seq, reason);
  }

  private handle(
    shard: number,
    subject: string,
    data: Uint8Array,
    headers: HeaderCarrier | undefined,
    source: ObjectSource,
    seq: number,
  ): void {
    let objectSubject = subject;
    if (source === "live") {
      try {
        objectSubject = liveObjectSubjects.toObjectSubject(subject);
      } catch (error) {
        if (!(error instanceof SubjectError)) throw error;
        return this.drop(subject, "subject", error, source);
      }
    }
    const version = publicationVersionOf(headers);
    // A live copy without a version could not be ordered against the stream's copies.
    if (source === "live" && version === undefined) return this.drop(subject, "unversioned", undefined, source);
    if (this.order.isStale(shard, objectSubject, version)) {
      this.listener.received?.(source, "stale");
      // The stream's copy of a publication whose live copy came first, on a subject marked unreadable by garbage
      // in between: the subject's last value is readable again (if it decodes: garbage may carry any header).
      if (source === "stream" && this.store.hasUnreadable) this.staleAfterUnreadable(shard, objectSubject, data, headers, seq);
      return;
    }
    let envelope;
    try {
      envelope = this.read(shard, objectSubject, data);
    } catch (error) {
      const reason = error instanceof DecodeError ? error.reason : error instanceof SubjectMismatchError ? "mismatch" : "error";
      if (source === "stream") this.unreadable(shard, objectSubject, seq, reason);
      return this.drop(subject, reason, error, source);
    }
    const { affected } = this.store.apply(shard, envelope);
    this.order.applied(shard, objectSubject, version, envelope.type === "object.delete" ? "delete" : "put", performance.now());
    this.listener.received?.(source, "applied");
    for (const key of affected) this.listener.changed(key, envelope.kind, headers);
    if (this.store.hasUnreadable) this.readable(shard, envelope, headers, affected);
  }

  /** Decodes an object message and checks that it is about the object its subject names. */
  private read(shard: number, objectSubject: string, data: Uint8Array): ObjectEnvelope {
    const envelope = codecs.objectEnvelope.decode(data);
    if (subjectOfEnvelope(shard, envelope) !== objectSubject) throw new SubjectMismatchError(objectSubject, envelope);
    return envelope;
  }

  /** A readable message of the subject was applied (or is older than one applied): known again. */
  private readable(shard: number, envelope: ObjectEnvelope, headers: HeaderCarrier | undefined, affected: readonly SetKey[]): void {
    const ref: SubjectRef = { shard, kind: envelope.kind, namespace: envelope.namespace, name: envelope.name };
    const readable = this.store.markReadable(ref);
    if (!readable.wasUnreadable) return;
    this.rereads?.resolved(ref);
    for (const key of readable.unblocked) if (!affected.includes(key)) this.listener.changed(key, "readable", headers);
  }

  private staleAfterUnreadable(shard: number, objectSubject: string, data: Uint8Array, headers: HeaderCarrier | undefined, seq: number): void {
    let address;
    try {
      address = objectSubjects.parse(objectSubject);
    } catch (error) {
      if (error instanceof SubjectError) return;
      throw error;
    }
    if (!this.store.isUnreadable({ shard, kind: OBJECT_KINDS[address.kind], namespace: address.namespace, name: address.name })) return;
    let envelope;
    try {
      envelope = this.read(shard, objectSubject, data);
    } catch (error) {
      const reason = error instanceof DecodeError ? error.reason : error instanceof SubjectMismatchError ? "mismatch" : "error";
      this.unreadable(shard, objectSubject, seq, reason);
      return this.drop(objectSubject, reason, error, "stream");
    }
    this.readable(shard, envelope, headers, []);
  }

  /** Stops the shard's feed; the caller drops its objects from the store. */
  async close(shard: number): Promise<void> {
    const feed = this.feeds.get(shard);
    if (!feed) return;
    feed.stopped = true;
    clearInterval(feed.watchdog);
    this.feeds.delete(shard);
    this.order.dropShard(shard);
    try {
      feed.live?.unsubscribe();
    } catch {
      // The connection is closed already: so is the subscription.
    }
    await feed.messages?.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.feeds.keys()].map((shard) => this.close(shard)));
  }
}
