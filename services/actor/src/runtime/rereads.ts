// Asks the watcher to repair object subjects whose last K8S_OBJS message this member could not read (ADR 0088):
// one request-reply on `svc.reread.<shard>.<kind>.<ns>.<name>` per subject, repeated every `retryMs` until a
// readable message of the subject arrives (the intake calls resolved()) or the watcher answers that the subject holds
// nothing (`absent`: the caller marks it known). Deduplicated per subject; at most `ratePerSecond` requests leave a
// member per second, the rest wait their turn in arrival order, so garbage on every subject of a shard costs the
// watcher a bounded rate of reads. The same request, sent once (refresh), asks for the newest version of an object
// whose copy turned out stale when a write from it conflicted (ADR 0090).
import { errors as natsErrors } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { codecs, kindToken, rereadSubjects } from "#protocol";
import type { ObjectRereadOutcome } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import type { SubjectRef } from "../domain/object-store.ts";

export interface RereadOptions {
  /** A subject still unreadable this long after its last request is asked about again. Defaults to 2000 ms. */
  readonly retryMs?: number;
  /** Requests sent per second at most (and the burst after a quiet time). Defaults to 200. */
  readonly ratePerSecond?: number;
  /** How long a request waits for the watcher's answer. Defaults to 2000 ms. */
  readonly timeoutMs?: number;
}

const DEFAULTS: Required<RereadOptions> = { retryMs: 2_000, ratePerSecond: 200, timeoutMs: 2_000 };

/** How each request ended, for the metric: the watcher's answer or why there was none. */
export type RereadResult = ObjectRereadOutcome | "timeout" | "no-responders" | "error";

export interface RereadDeps {
  readonly nats: Pick<NatsConnection, "request">;
  readonly member: string;
  readonly logger: Logger;
  /** The watcher answered that the subject holds nothing: the object is known to be absent. */
  readonly absent: (ref: SubjectRef) => void;
  readonly result?: (result: RereadResult) => void;
  readonly options?: RereadOptions;
  readonly now?: () => number;
}

interface Pending {
  readonly ref: SubjectRef;
  seq: number;
  reason: string;
  /** When it may be sent (again). */
  dueAtMs: number;
  inFlight: boolean;
  /** A refresh after a conflicting write: asked once, not until a readable message arrives. */
  once?: boolean;
}

const TICK_MS = 100;

function subjectOf(ref: SubjectRef): string {
  return rereadSubjects.build({ shard: ref.shard, kind: kindToken(ref.kind), namespace: ref.namespace, name: ref.name });
}

export class ObjectRereads {
  private readonly deps: RereadDeps;
  private readonly options: Required<RereadOptions>;
  private readonly now: () => number;
  /** By re-read subject, in the order they were first asked for. */
  private readonly pending = new Map<string, Pending>();
  private tokens: number;
  private refilledAtMs: number;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(deps: RereadDeps) {
    this.deps = deps;
    this.options = { ...DEFAULTS, ...deps.options };
    this.now = deps.now ?? (() => performance.now());
    this.tokens = this.options.ratePerSecond;
    this.refilledAtMs = this.now();
  }

  /** Subjects waiting for a repair. */
  get size(): number {
    return this.pending.size;
  }

  /** The subject's last message (stream sequence `seq`) could not be read; asks at once if the budget allows. */
  request(ref: SubjectRef, seq: number, reason: string): void {
    if (this.closed) return;
    const subject = subjectOf(ref);
    const known = this.pending.get(subject);
    if (known) {
      // Another unreadable message on a subject already asked about: the next retry carries it.
      known.seq = Math.max(known.seq, seq);
      known.reason = reason;
      known.once = false;
      return;
    }
    this.pending.set(subject, { ref, seq, reason, dueAtMs: this.now(), inFlight: false });
    this.pump();
  }

  /**
   * A write from this member's copy of the object conflicted on its resourceVersion, and the stream may hold no newer
   * version: the watcher does not publish quiet changes (ADR 0090). Asks once for the newest version; an unreadable
   * message of the subject before the answer makes it a repeated request again.
   */
  refresh(ref: SubjectRef, reason: string): void {
    if (this.closed) return;
    const subject = subjectOf(ref);
    if (this.pending.has(subject)) return;
    this.pending.set(subject, { ref, seq: 0, reason, dueAtMs: this.now(), inFlight: false, once: true });
    this.pump();
  }

  /** A readable message of the subject was applied: nothing more to ask. */
  resolved(ref: SubjectRef): void {
    if (this.pending.size > 0) this.pending.delete(subjectOf(ref));
  }

  /** The shard moved away: its new owner asks for itself. */
  dropShard(shard: number): void {
    for (const [subject, entry] of this.pending) if (entry.ref.shard === shard) this.pending.delete(subject);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  private refill(nowMs: number): void {
    this.tokens = Math.min(this.options.ratePerSecond, this.tokens + ((nowMs - this.refilledAtMs) * this.options.ratePerSecond) / 1000);
    this.refilledAtMs = nowMs;
  }

  /** Sends what is due within the budget; keeps a timer while anything is pending. */
  private pump(): void {
    if (this.closed) return;
    const nowMs = this.now();
    this.refill(nowMs);
    for (const [subject, entry] of this.pending) {
      if (this.tokens < 1) break;
      if (entry.inFlight || entry.dueAtMs > nowMs) continue;
      this.tokens -= 1;
      void this.send(subject, entry);
    }
    if (this.pending.size > 0 && this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, TICK_MS);
      this.timer.unref();
    }
  }

  private async send(subject: string, entry: Pending): Promise<void> {
    entry.inFlight = true;
    const { ref } = entry;
    const sentSeq = entry.seq;
    let result: RereadResult;
    try {
      const body = codecs.objectReread.encode({
        type: "object.reread",
        shard: ref.shard,
        kind: ref.kind,
        namespace: ref.namespace,
        name: ref.name,
        seq: entry.seq,
        reason: entry.reason.slice(0, 64),
        requestedBy: this.deps.member,
      });
      const reply = await this.deps.nats.request(subject, body, { timeout: this.options.timeoutMs });
      result = codecs.objectRereadResult.decode(reply.data).outcome;
    } catch (error) {
      result = failureOf(error);
      if (result === "error") this.deps.logger.debug({ err: error, subject }, "re-read request failed; asking again later");
    }
    entry.inFlight = false;
    entry.dueAtMs = this.now() + this.options.retryMs;
    this.deps.result?.(result);
    // Resolved or dropped while the request was out: nothing more to do. Another unreadable message since the
    // request left is not covered by its answer: asked about at the next retry.
    if (this.pending.get(subject) !== entry) return;
    if (entry.once) {
      // A refresh: the answer (or its absence) ends it; the turn that conflicted retries either way.
      this.pending.delete(subject);
      return;
    }
    if (result === "absent" && entry.seq === sentSeq) {
      this.pending.delete(subject);
      this.deps.absent(ref);
    }
  }
}

function failureOf(error: unknown): RereadResult {
  if (error instanceof natsErrors.NoRespondersError || (error instanceof natsErrors.RequestError && error.isNoResponders())) return "no-responders";
  if (error instanceof natsErrors.TimeoutError) return "timeout";
  return "error";
}
