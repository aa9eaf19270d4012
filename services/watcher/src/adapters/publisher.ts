// Drains the ledger into K8S_OBJS: one JetStream publish per dirty subject (at most one in flight per subject,
// `concurrency` in total), each with Nats-Msg-Id, Nats-Expected-Last-Subject-Sequence, K8s-UID, K8s-RV, Op and the
// W3C trace context of the watch event that caused it. A conflict re-reads the subject and lets the ledger decide
// again; any other failure pauses the whole pump with backoff (NATS is down for everyone, not for one subject).
// Also purges old tombstones, by subject and only up to the tombstone's own sequence.
//
// Live copies (ADR 0084): every new want of a subject is stamped with the next publication version (header Sts-Pub)
// and sent as a core NATS message on the object's live subject (live.<shard>.…) unless the stream acknowledged the
// same want within `liveCopyDelayMs` (ADR 0085): owners subscribe to their shards' live subjects, so they keep seeing
// changes while K8S_OBJS has no leader (a crashed NATS node costs it a 4-9 s Raft election, and publishes to it then
// time out), while a healthy stream, which acks in milliseconds, carries each change once instead of twice. While
// the pump is paused after a failure, and for live-only tombstones, copies go out at once. The stream publish of the
// same want carries the same version and bytes, so an owner that already has the live copy skips it without
// decoding; each retried attempt sends the live copy again for owners that missed it.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Context, Tracer } from "@opentelemetry/api";
import type { JetStreamManager } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";
import type { MsgHdrs } from "@nats-io/transport-node";
import { HEADERS, OBJECT_KINDS, codecs, formatPublicationVersion, injectTraceContext, liveObjectSubjects, objectSubjects } from "#protocol";
import type { KubeObject, ObjectEnvelope, PublicationClock, PublicationVersion, Shard } from "#protocol";
import { backoffDelayMs } from "../../../common/src/backoff.ts";
import type { BackoffPolicy } from "../../../common/src/backoff.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { StreamPublishError, isWrongLastSequence } from "../../../common/src/stream-publish.ts";
import type { StreamPublish } from "../../../common/src/stream-publish.ts";
import { messagingAttributes } from "../../../common/src/messaging-trace.ts";
import { sameContent } from "../domain/ledger.ts";
import type { ChangedWant, MessageContent, PublishCommand } from "../domain/ledger.ts";
import { parseObjectKey } from "../domain/objects.ts";
import type { ObjectKey } from "../domain/objects.ts";
import type { MirrorState } from "../domain/state.ts";
import type { WatcherMetrics } from "../metrics.ts";
import { readLastOnSubject } from "./stream-index.ts";

/** The OpenTelemetry context of the latest watch event per object, so the publish span continues its trace. */
export class EventContexts {
  private readonly contexts = new Map<ObjectKey, { readonly rv: string; readonly context: Context }>();

  set(key: ObjectKey, rv: string, context: Context): void {
    this.contexts.set(key, { rv, context });
  }

  /** The context of the event that produced exactly this version, if any. */
  get(key: ObjectKey, rv: string): Context | undefined {
    const entry = this.contexts.get(key);
    return entry?.rv === rv ? entry.context : undefined;
  }

  delete(key: ObjectKey): void {
    this.contexts.delete(key);
  }

  get size(): number {
    return this.contexts.size;
  }
}

/** Where the live copies go: core NATS publish, fire and forget (NatsConnection satisfies it). */
export interface LiveObjects {
  publish(subject: string, payload: Uint8Array, options: { headers: MsgHdrs }): void;
}

/** The live copy sent for a subject's current want: its stream publish reuses the version and the bytes. */
interface LiveCopy extends MessageContent {
  readonly version: PublicationVersion;
  readonly payload: Uint8Array;
  /** Stream publishes of it so far: the first goes right after the announcement, later ones resend the live copy. */
  attempts: number;
}

/** Live copies kept beyond the subjects still owed a publish before the stale ones are pruned. */
const LIVE_COPIES_SLACK = 10_000;

/** A subject's want or a command: the object and the content of its message. */
interface WantIdentity extends MessageContent {
  readonly key: PublishCommand["key"];
  readonly shard: Shard;
}

export interface PublisherOptions {
  readonly stream: string;
  readonly concurrency: number;
  readonly backoff: BackoffPolicy;
  readonly tombstoneTtlMs: number;
  /** Purges at most this many subjects per round. */
  readonly purgeBatch?: number;
  /**
   * A new want's live copy waits this long for the stream to ack the same want, and is not sent if it does (ADR
   * 0085); 0 sends every copy at once.
   */
  readonly liveCopyDelayMs?: number;
}

/** A live copy waiting for its stream ack (see liveCopyDelayMs). */
interface HeldLiveCopy {
  readonly copy: LiveCopy;
  readonly want: ChangedWant;
  readonly dueAtMs: number;
}

export class Publisher {
  private readonly stream: StreamPublish;
  private readonly jsm: JetStreamManager;
  private readonly state: MirrorState;
  private readonly metrics: WatcherMetrics;
  private readonly logger: Logger;
  private readonly tracer: Tracer;
  private readonly contexts: EventContexts;
  private readonly options: PublisherOptions;
  private readonly wallNow: () => number;
  private readonly random: () => number;
  private readonly live: LiveObjects | undefined;
  private clock: PublicationClock | undefined;
  private readonly liveCopies = new Map<string, LiveCopy>();
  /** Live copies not sent yet, by object subject, oldest first (Map order: a subject's newer want re-inserts it). */
  private readonly heldLive = new Map<string, HeldLiveCopy>();
  private heldLiveTimer: NodeJS.Timeout | undefined;
  private inflight = 0;
  private failures = 0;
  private pausedUntil: NodeJS.Timeout | undefined;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private purging = false;

  constructor(init: {
    /** JetStream publishes to the objects stream (each with its own ack; see StreamPublisher). */
    stream: StreamPublish;
    jsm: JetStreamManager;
    state: MirrorState;
    metrics: WatcherMetrics;
    logger: Logger;
    tracer: Tracer;
    contexts: EventContexts;
    options: PublisherOptions;
    wallNow?: () => number;
    random?: () => number;
    /** Where live copies of every new want go (ADR 0084); none without it: the stream alone. */
    live?: LiveObjects;
  }) {
    this.live = init.live;
    this.stream = init.stream;
    this.jsm = init.jsm;
    this.state = init.state;
    this.metrics = init.metrics;
    this.logger = init.logger.child({ component: "publisher" });
    this.tracer = init.tracer;
    this.contexts = init.contexts;
    this.options = init.options;
    this.wallNow = init.wallNow ?? Date.now;
    this.random = init.random ?? Math.random;
  }

  get inFlight(): number {
    return this.inflight;
  }

  /**
   * The versions of the current activation (a clock whose epoch is the lease revision it won), or undefined on
   * standby. Publishes without a clock carry no version and send no live copy.
   */
  setPublicationClock(clock: PublicationClock | undefined): void {
    this.clock = clock;
    this.liveCopies.clear();
    this.heldLive.clear();
  }

  /** Starts as many publishes as the ledger has ready, up to the concurrency limit. Cheap; call after any change. */
  kick(): void {
    const ledger = this.state.ledger;
    this.announce();
    while (!this.closed && this.pausedUntil === undefined && this.inflight < this.options.concurrency) {
      const command = ledger.next();
      if (!command) break;
      this.inflight++;
      void this.send(command);
    }
    this.metrics.pendingPublishes.set(ledger.pending);
    this.notifyIdle();
  }

  /**
   * Resolves once nothing is in flight and nothing is owed (or the ledger is inactive), or after `timeoutMs`.
   * Returns true when idle.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.isIdle()) return true;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const result = await Promise.race([idle, timeout]);
    clearTimeout(timer);
    return result;
  }

  /** Stops starting publishes; in-flight ones finish. */
  close(): void {
    this.closed = true;
    clearTimeout(this.pausedUntil);
    this.pausedUntil = undefined;
    clearTimeout(this.heldLiveTimer);
    this.heldLiveTimer = undefined;
    this.heldLive.clear();
  }

  /** One purge round: tombstones older than the TTL, each purged by subject up to its own sequence. */
  async purgeTombstones(): Promise<number> {
    if (this.purging || this.closed) return 0;
    this.purging = true;
    let purged = 0;
    try {
      const ledger = this.state.ledger;
      const candidates = ledger.purgeCandidates(this.wallNow(), this.options.tombstoneTtlMs, this.options.purgeBatch ?? 1000);
      for (const { subject, seq } of candidates) {
        if (this.closed) break;
        const response = await this.jsm.streams.purge(this.options.stream, { filter: subject, seq: seq + 1 });
        ledger.purged(subject, seq);
        purged += response.purged;
      }
      if (purged > 0) {
        this.metrics.tombstonesPurged.inc(purged);
        this.logger.debug({ purged }, "purged old tombstones");
      }
    } finally {
      this.purging = false;
    }
    return purged;
  }

  private isIdle(): boolean {
    const ledger = this.state.ledger;
    return this.inflight === 0 && (this.closed || !ledger.isActive || !ledger.isSynced || ledger.pending === 0);
  }

  private notifyIdle(): void {
    if (!this.isIdle() || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  private pause(): void {
    // Publishes in flight together fail together (up to `concurrency` of them when a stream leader goes away):
    // that is one failed round, not one per publish. Counting each would push the delay towards the maximum
    // within a single outage (a chaos test saw a 15 s publishing stall after a 0.25 s stream leader change).
    if (this.pausedUntil !== undefined) return;
    // The stream is failing: owners get every change live from now on, the held ones included.
    this.sendHeldLive(Number.POSITIVE_INFINITY);
    const delayMs = backoffDelayMs(this.options.backoff, this.failures++, this.random);
    clearTimeout(this.pausedUntil);
    this.pausedUntil = setTimeout(() => {
      this.pausedUntil = undefined;
      this.kick();
    }, delayMs);
  }

  /**
   * Gives every want that appeared or changed a live copy: sent at once while the pump is paused (and for live-only
   * tombstones), otherwise held for liveCopyDelayMs in case the stream acks it first (see the top of this file).
   */
  private announce(): void {
    const changed = this.state.ledger.takeChanged();
    const clock = this.clock;
    if (clock === undefined || this.live === undefined) return;
    const delayMs = this.options.liveCopyDelayMs ?? 0;
    const nowMs = performance.now();
    for (const want of changed) {
      const envelope = this.envelope(want);
      if (!envelope) continue;
      const copy: LiveCopy = { uid: want.uid, rv: want.rv, op: want.op, version: clock.next(), payload: codecs.objectEnvelope.encode(envelope), attempts: 0 };
      // A live-only tombstone has no stream publish to share its version with.
      if (want.liveOnly !== true) this.liveCopies.set(want.subject, copy);
      // A newer want replaces the subject's held copy (and re-inserts it at the end: Map order is due order).
      this.heldLive.delete(want.subject);
      if (delayMs > 0 && want.liveOnly !== true && this.pausedUntil === undefined) {
        this.heldLive.set(want.subject, { copy, want, dueAtMs: nowMs + delayMs });
        continue;
      }
      this.announceLive(want, copy);
    }
    this.scheduleHeldLive();
    // A subject that became clean without a publish of its last want (rare: its content went back to what the stream
    // holds) would keep its copy; prune those once there are many.
    if (this.liveCopies.size > this.state.ledger.pending + LIVE_COPIES_SLACK) {
      for (const subject of this.liveCopies.keys()) if (!this.state.ledger.isDirty(subject)) this.liveCopies.delete(subject);
    }
  }

  /** Sends one want's live copy in its own PRODUCER span. */
  private announceLive(want: ChangedWant, copy: LiveCopy): void {
    const live = liveObjectSubjects.fromObjectSubject(want.subject);
    const parent = this.contexts.get(want.key, want.rv) ?? ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      `send ${liveObjectSubjects.template}`,
      { kind: SpanKind.PRODUCER, attributes: messagingAttributes("send", { template: liveObjectSubjects.template, subject: live, shard: want.shard }) },
      parent,
    );
    this.sendLive(want.subject, copy.payload, this.headersFor(want, copy.version, trace.setSpan(parent, span)));
    span.end();
  }

  /** Sends the held live copies due by `untilMs` (all of them with Infinity). */
  private sendHeldLive(untilMs: number): void {
    for (const [subject, held] of this.heldLive) {
      if (held.dueAtMs > untilMs) break;
      this.heldLive.delete(subject);
      this.announceLive(held.want, held.copy);
    }
  }

  private scheduleHeldLive(): void {
    if (this.heldLiveTimer !== undefined || this.closed) return;
    const first = this.heldLive.values().next();
    if (first.done === true) return;
    this.heldLiveTimer = setTimeout(() => {
      this.heldLiveTimer = undefined;
      this.sendHeldLive(performance.now());
      this.scheduleHeldLive();
    }, Math.max(0, first.value.dueAtMs - performance.now()));
  }

  /** Forgets the subject's held live copy if it is `copy`; true when it was. */
  private dropHeldLive(subject: string, copy: LiveCopy | undefined): boolean {
    if (copy === undefined || this.heldLive.get(subject)?.copy !== copy) return false;
    this.heldLive.delete(subject);
    return true;
  }

  private headersFor(want: WantIdentity, version: PublicationVersion | undefined, context: Context): MsgHdrs {
    const h = headers();
    h.set(HEADERS.uid, want.uid);
    h.set(HEADERS.resourceVersion, want.rv);
    h.set(HEADERS.op, want.op);
    if (version !== undefined) h.set(HEADERS.publication, formatPublicationVersion(version));
    injectTraceContext(context, h);
    return h;
  }

  private envelope(command: WantIdentity): ObjectEnvelope | undefined {
    const { kind, namespace, name } = parseObjectKey(command.key);
    const identity = { kind: OBJECT_KINDS[kind], namespace, name, uid: command.uid, resourceVersion: command.rv };
    if (command.op === "DEL") return { type: "object.delete", ...identity };
    const object = this.state.getByKey(command.key);
    if (!object || object.uid !== command.uid || object.resourceVersion !== command.rv) return undefined;
    // parseWatchedObject guaranteed apiVersion, kind and metadata.name/namespace/uid/resourceVersion.
    const statusManagers = object.statusManagers.length > 0 ? { statusManagers: [...object.statusManagers] } : {};
    return { type: "object.put", ...identity, object: object.body as KubeObject, ...statusManagers };
  }

  private async send(command: PublishCommand): Promise<void> {
    const ledger = this.state.ledger;
    const { kind, namespace, name } = parseObjectKey(command.key);
    const parent = this.contexts.get(command.key, command.rv) ?? ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      `send ${objectSubjects.template}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          ...messagingAttributes("send", {
            template: objectSubjects.template,
            subject: command.subject,
            shard: command.shard,
            messageId: command.msgId,
          }),
          "k8s.namespace.name": namespace,
          "stsfleet.object.kind": OBJECT_KINDS[kind],
          "stsfleet.object.name": name,
          "stsfleet.object.op": command.op,
        },
      },
      parent,
    );
    try {
      const envelope = this.envelope(command);
      if (!envelope) {
        // The mirror moved on since the command was taken; the ledger already wants the newer version.
        ledger.failed(command);
        return;
      }
      // The live copy of this very want, if one was announced: same version and bytes, so owners skip the stream's.
      const announced = this.liveCopies.get(command.subject);
      const copy = sameContent(announced, command) ? announced : undefined;
      const payload = copy?.payload ?? codecs.objectEnvelope.encode(envelope);
      const version = copy?.version ?? this.clock?.next();
      const h = this.headersFor(command, version, trace.setSpan(parent, span));
      // Sent again for a retry (an owner may have missed it while reconnecting), not right after its announcement.
      if (version !== undefined && (copy === undefined || copy.attempts > 0)) {
        this.dropHeldLive(command.subject, copy);
        this.sendLive(command.subject, payload, h);
      }
      if (copy !== undefined) copy.attempts++;
      const ack = await this.stream.publish(command.subject, payload, {
        msgId: command.msgId,
        expectedLastSubjectSequence: command.expectedSeq,
        headers: h,
      });
      const result = ledger.acked(command, { seq: ack.seq, duplicate: ack.duplicate, atMs: this.wallNow() });
      this.failures = 0;
      // The stream took this want: its held live copy, if any, is not needed.
      if (this.dropHeldLive(command.subject, copy)) this.metrics.liveSkipped.inc();
      if (copy !== undefined && this.liveCopies.get(command.subject) === copy) this.liveCopies.delete(command.subject);
      if (result === "stored" && !ack.duplicate) {
        if (command.op === "PUT") this.metrics.publishedObjects.inc({ kind });
        else this.metrics.publishedTombstones.inc({ kind });
      }
      if (!ledger.hasWork(command.key)) this.contexts.delete(command.key);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      await this.handleFailure(command, error);
    } finally {
      span.end();
      this.inflight--;
      this.kick();
    }
  }

  /** A live copy; before a stream publish with the same headers, which adds its own (message id, expected sequence). */
  private sendLive(subject: string, payload: Uint8Array, h: MsgHdrs): void {
    if (this.live === undefined) return;
    try {
      this.live.publish(liveObjectSubjects.fromObjectSubject(subject), payload, { headers: h });
      this.metrics.liveSent.inc();
    } catch (error) {
      // The stream publish decides; a live copy is best effort.
      this.metrics.liveErrors.inc();
      this.logger.debug({ err: error, subject }, "live copy not sent");
    }
  }

  private async handleFailure(command: PublishCommand, error: unknown): Promise<void> {
    const ledger = this.state.ledger;
    if (isWrongLastSequence(error)) {
      this.metrics.publishConflicts.inc();
      try {
        ledger.conflicted(command, await readLastOnSubject(this.jsm, this.options.stream, command.subject));
        return;
      } catch (readError) {
        error = readError;
      }
    }
    ledger.failed(command);
    const timeout =
      error instanceof StreamPublishError ? error.failure === "timeout" : error instanceof Error && /timeout/i.test(`${error.name} ${error.message}`);
    this.metrics.publishErrors.inc({ reason: timeout ? "timeout" : "error" });
    if (this.failures === 0) this.logger.warn({ err: error, subject: command.subject }, "publish failed; backing off");
    this.pause();
  }
}
