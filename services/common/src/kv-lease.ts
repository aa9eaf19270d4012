// One compare-and-set lease on one key of a NATS KV bucket, held by revision: the actor's member record
// (services/actor/src/runtime/member-lease.ts) and the watcher's election (services/watcher/src/adapters/lease-elector.ts).
// Every write names the revision the holder last wrote; a write by anyone else moves the revision, so the holder's next
// compare-and-set fails and it finds out. What the holder writes and what it does on a lost write are the caller's.
//
// The expiry rule (client-go's, ADR 0084): the holder may act while its last successful renew was *sent* less than
// renewDeadlineMs ago on its own monotonic clock. An answer that comes after the caller stopped waiting for it still
// counts, from when it was sent (the write landed no earlier); answers that come out of order never move it back.
import type { KV, KvEntry } from "@nats-io/kv";

/** What one renew came to within its bound. */
export type RenewOutcome =
  | { readonly kind: "renewed"; readonly revision: number }
  /** No answer within the bound: the bucket may have no leader, or the connection is down. It may still land. */
  | { readonly kind: "unanswered" }
  /** The write failed: most often a lost compare-and-set (someone else wrote the key). */
  | { readonly kind: "refused"; readonly error: unknown };

export interface KvLeaseOptions {
  readonly kv: KV;
  readonly key: string;
  readonly renewDeadlineMs: number;
  /** Monotonic clock in ms. */
  readonly now: () => number;
  /** A renew moved the lease forward (maybe after its bound); `sinceLastRenewMs` since the one before it. */
  readonly onRenewed?: (sinceLastRenewMs: number) => void;
}

const TIMED_OUT = Symbol("timed out");

/** `call`, or TIMED_OUT once `boundMs` has passed without an answer (the call itself goes on). */
async function within<T>(call: Promise<T>, boundMs: number): Promise<T | typeof TIMED_OUT> {
  if (!Number.isFinite(boundMs)) return call;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, boundMs));
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The expiry rule, for a holder whose last successful renew was sent at `lastRenewSentMs` (undefined: none yet). */
export function leaseFresh(lastRenewSentMs: number | undefined, nowMs: number, renewDeadlineMs: number): boolean {
  return lastRenewSentMs !== undefined && nowMs - lastRenewSentMs < renewDeadlineMs;
}

export class KvLease {
  private readonly options: KvLeaseOptions;
  private heldRevision = 0;
  private lastSentMs: number | undefined;
  /** Bumped by every acquisition and by forget(): answers to renews of an earlier term are ignored. */
  private term = 0;

  constructor(options: KvLeaseOptions) {
    this.options = options;
  }

  get key(): string {
    return this.options.key;
  }

  /** The revision the next write names. */
  get revision(): number {
    return this.heldRevision;
  }

  /** When the last successful renew (or the acquisition) was sent; undefined before the first. */
  get lastRenewSentMs(): number | undefined {
    return this.lastSentMs;
  }

  fresh(): boolean {
    return leaseFresh(this.lastSentMs, this.options.now(), this.options.renewDeadlineMs);
  }

  /** Time left before the renew deadline passes (0 once it has, or before the first acquisition). */
  remainingMs(): number {
    if (this.lastSentMs === undefined) return 0;
    return Math.max(0, this.options.renewDeadlineMs - (this.options.now() - this.lastSentMs));
  }

  /** Takes a key that has never been written (fails if it exists). Returns the new revision. */
  create(value: Uint8Array): Promise<number> {
    return this.acquireBy(() => this.options.kv.create(this.options.key, value));
  }

  /** Takes the key over the revision the caller observed (fails if it moved). Returns the new revision. */
  acquire(value: Uint8Array, observedRevision: number): Promise<number> {
    return this.acquireBy(() => this.options.kv.update(this.options.key, value, observedRevision));
  }

  private async acquireBy(write: () => Promise<number>): Promise<number> {
    const sentMs = this.options.now();
    const revision = await write();
    this.term++;
    this.heldRevision = revision;
    this.lastSentMs = sentMs;
    return revision;
  }

  /** One compare-and-set of `value` over the held revision, waited for at most `boundMs`. */
  async renew(value: Uint8Array, boundMs: number): Promise<RenewOutcome> {
    const term = this.term;
    const sentMs = this.options.now();
    const answer = this.options.kv.update(this.options.key, value, this.heldRevision).then((revision) => {
      this.renewed(term, sentMs, revision);
      return revision;
    });
    answer.catch(() => undefined);
    try {
      const revision = await within(answer, boundMs);
      return revision === TIMED_OUT ? { kind: "unanswered" } : { kind: "renewed", revision };
    } catch (error) {
      return { kind: "refused", error };
    }
  }

  private renewed(term: number, sentMs: number, revision: number): void {
    if (term !== this.term) return;
    if (revision > this.heldRevision) this.heldRevision = revision;
    if (this.lastSentMs !== undefined && sentMs <= this.lastSentMs) return;
    const sinceLastRenewMs = this.lastSentMs === undefined ? 0 : Math.round(sentMs - this.lastSentMs);
    this.lastSentMs = sentMs;
    this.options.onRenewed?.(sinceLastRenewMs);
  }

  /** The last write of a holder (a released or dead record) over the held revision; the lease is no longer held. */
  async release(value: Uint8Array): Promise<number> {
    const revision = await this.options.kv.update(this.options.key, value, this.heldRevision);
    this.heldRevision = revision;
    this.forget();
    return revision;
  }

  /** An earlier write of ours landed without its answer: later writes go over its revision. */
  adopt(revision: number): void {
    this.heldRevision = revision;
  }

  /** Stop counting renews: answers still in flight move nothing; the lease is not fresh until acquired again. */
  forget(): void {
    this.term++;
    this.lastSentMs = undefined;
  }

  /** The key as it is now; "unanswered" when the read fails or takes longer than `boundMs`. */
  async read(boundMs: number): Promise<KvEntry | null | "unanswered"> {
    try {
      const entry = await within(this.options.kv.get(this.options.key), boundMs);
      return entry === TIMED_OUT ? "unanswered" : entry;
    } catch {
      return "unanswered";
    }
  }
}
