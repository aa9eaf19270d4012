// Drains the ledger into K8S_OBJS: one JetStream publish per dirty subject (at most one in flight per subject,
// `concurrency` in total), each with Nats-Msg-Id, Nats-Expected-Last-Subject-Sequence, K8s-UID, K8s-RV, Op and the
// W3C trace context of the watch event that caused it. A conflict re-reads the subject and lets the ledger decide
// again; any other failure pauses the whole pump with backoff (NATS is down for everyone, not for one subject).
// Every new want also gets a live copy (live-copies.ts, ADR 0084 and 0085), and old tombstones are purged
// (tombstone-purger.ts).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import type { JetStreamManager } from "@nats-io/jetstream";
import { OBJECT_KINDS, codecs, objectSubjects } from "#protocol";
import type { PublicationClock } from "#protocol";
import { backoffDelayMs } from "../../../common/src/backoff.ts";
import type { BackoffPolicy } from "../../../common/src/backoff.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { isWrongLastSequence } from "../../../common/src/stream-publish.ts";
import { natsFailureKind } from "../../../common/src/errors/nats.ts";
import type { StreamPublish } from "../../../common/src/stream-publish.ts";
import { messagingAttributes } from "../../../common/src/messaging-trace.ts";
import type { PublishCommand } from "../domain/subject-messages.ts";
import { parseObjectKey } from "../domain/objects.ts";
import type { MirrorState } from "../domain/state.ts";
import type { WatcherMetrics } from "../metrics.ts";
import type { EventContexts } from "./event-contexts.ts";
import { LiveCopies } from "./live-copies.ts";
import type { LiveObjects } from "./live-copies.ts";
import { objectEnvelope, objectHeaders } from "./object-messages.ts";
import { readLastOnSubject } from "./stream-index.ts";
import { TombstonePurger } from "./tombstone-purger.ts";

// Imported from here by the publisher's tests and benchmark.
export { EventContexts } from "./event-contexts.ts";
export type { LiveObjects } from "./live-copies.ts";

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
  /** Undefined without a live destination: the stream alone. */
  private readonly liveCopies: LiveCopies | undefined;
  private readonly purger: TombstonePurger;
  private clock: PublicationClock | undefined;
  private inflight = 0;
  private failures = 0;
  private pausedUntil: NodeJS.Timeout | undefined;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

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
    const { state, metrics, tracer, contexts, logger } = this;
    this.liveCopies =
      init.live === undefined ? undefined : new LiveCopies({ live: init.live, state, metrics, logger, tracer, contexts, delayMs: this.options.liveCopyDelayMs ?? 0 });
    this.purger = new TombstonePurger({
      jsm: this.jsm,
      stream: this.options.stream,
      ledger: state.ledger,
      metrics,
      logger,
      tombstoneTtlMs: this.options.tombstoneTtlMs,
      batch: this.options.purgeBatch ?? 1000,
      wallNow: this.wallNow,
      closed: () => this.closed,
    });
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
    this.liveCopies?.reset();
  }

  /** Starts as many publishes as the ledger has ready, up to the concurrency limit. Cheap; call after any change. */
  kick(): void {
    const ledger = this.state.ledger;
    // Every want that appeared or changed gets a live copy, whether or not its subject is in flight.
    const changed = ledger.takeChanged();
    if (this.clock !== undefined) this.liveCopies?.announce(changed, this.clock, this.pausedUntil !== undefined);
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
    this.liveCopies?.close();
  }

  /** One purge round: tombstones older than the TTL, each purged by subject up to its own sequence. */
  purgeTombstones(): Promise<number> {
    return this.purger.purge();
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
    this.liveCopies?.sendAllHeld();
    const delayMs = backoffDelayMs(this.options.backoff, this.failures++, this.random);
    clearTimeout(this.pausedUntil);
    this.pausedUntil = setTimeout(() => {
      this.pausedUntil = undefined;
      this.kick();
    }, delayMs);
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
      const envelope = objectEnvelope(this.state, command);
      if (!envelope) {
        // The mirror moved on since the command was taken; the ledger already wants the newer version.
        ledger.failed(command);
        return;
      }
      // The live copy of this very want, if one was announced: same version and bytes, so owners skip the stream's.
      const copy = this.liveCopies?.copyOf(command);
      const payload = copy?.payload ?? codecs.objectEnvelope.encode(envelope);
      const version = copy?.version ?? this.clock?.next();
      const h = objectHeaders(command, version, trace.setSpan(parent, span));
      this.liveCopies?.beforePublish(command.subject, copy, version, payload, h);
      const ack = await this.stream.publish(command.subject, payload, {
        msgId: command.msgId,
        expectedLastSubjectSequence: command.expectedSeq,
        headers: h,
      });
      const result = ledger.acked(command, { seq: ack.seq, duplicate: ack.duplicate, atMs: this.wallNow() });
      this.failures = 0;
      this.liveCopies?.acked(command.subject, copy);
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
    this.metrics.publishErrors.inc({ reason: natsFailureKind(error) === "timeout" ? "timeout" : "error" });
    if (this.failures === 0) this.logger.warn({ err: error, subject: command.subject }, "publish failed; backing off");
    this.pause();
  }
}
