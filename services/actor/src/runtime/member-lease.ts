// This member's record `m.<name>` in bucket `members` as a lease (docs/adr/0071-fleet-ownership-and-fencing.md): join
// under a new incarnation, renew by compare-and-set over common/src/kv-lease.ts, decide what a lost renew means
// (domain/own-record.ts: retry, adopt a revision whose answer was lost, or re-join as a new incarnation), and the
// last write of a graceful leave. Self-fencing reads leaseFresh(): the expiry rule of kv-lease.ts.
import { randomUUID } from "node:crypto";
import type { KV } from "@nats-io/kv";
import { assertNever, codecs, memberKeys } from "#protocol";
import type { MemberRecord } from "#protocol";
import { KvLease } from "../../../common/src/kv-lease.ts";
import { failingRenewRetryMs, renewAnswerBoundMs } from "../../../common/src/lease-timing.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { VERSION } from "../../../common/src/version.ts";
import type { LivenessObserver } from "../domain/liveness.ts";
import { decideLostRenew } from "../domain/own-record.ts";
import type { OwnRecordReading } from "../domain/own-record.ts";
import { readRecord } from "./fleet-watch.ts";
import type { LeaseProfile } from "./ownership-options.ts";

export interface MemberLeaseOptions {
  readonly members: KV;
  readonly name: string;
  readonly profile: LeaseProfile;
  readonly now: () => number;
  readonly logger: Logger;
  /** Peers' lease clocks: paused while our own renewals fail (theirs fail too), restarted when ours succeed again. */
  readonly liveness: LivenessObserver;
  readonly isLeaving: () => boolean;
  readonly isStopped: () => boolean;
  /** A renew landed within its bound: plan again. */
  readonly renewed: () => void;
  /** Our record no longer names us alive: drop every shard before re-joining under a new incarnation. */
  readonly rejoining: () => void;
}

export class MemberLease {
  private currentIncarnation = randomUUID();
  private readonly options: MemberLeaseOptions;
  private readonly lease: KvLease;
  private readonly key: string;
  private readonly startedAtMs = Date.now();
  private renewsFailing = false;
  private renewing: Promise<void> | undefined;

  constructor(options: MemberLeaseOptions) {
    this.options = options;
    this.key = memberKeys.build(options.name);
    this.lease = new KvLease({
      kv: options.members,
      key: this.key,
      renewDeadlineMs: options.profile.renewDeadlineMs,
      now: options.now,
      onRenewed: (sinceLastRenewMs) => this.renewedAgain(sinceLastRenewMs),
    });
  }

  /** New for every join; a member declared dead re-joins under a new incarnation, never the old one. */
  get incarnation(): string {
    return this.currentIncarnation;
  }

  /** The revision of our last write of the record. */
  get revision(): number {
    return this.lease.revision;
  }

  /** True while the lease is fresh enough to act (self-fencing). */
  fresh(): boolean {
    return this.lease.fresh();
  }

  /** How long ago the last successful renew was sent. */
  sinceRenewMs(): number {
    return this.options.now() - (this.lease.lastRenewSentMs ?? 0);
  }

  private record(state: MemberRecord["state"]): Uint8Array {
    return codecs.memberRecord.encode({
      type: "member",
      name: this.options.name,
      incarnation: this.incarnation,
      state,
      leaseDurationMs: this.options.profile.leaseDurationMs,
      renewDeadlineMs: this.options.profile.renewDeadlineMs,
      retryPeriodMs: this.options.profile.retryPeriodMs,
      version: VERSION,
      startedAtMs: this.startedAtMs,
    });
  }

  /** Writes a live record of this incarnation over whatever the key holds. */
  async join(): Promise<void> {
    const existing = await this.options.members.get(this.key);
    const value = this.record("alive");
    await (existing ? this.lease.acquire(value, existing.revision) : this.lease.create(value));
    this.options.logger.info({ incarnation: this.incarnation }, "joined the fleet");
  }

  /** Waits for a renew in flight, if any. */
  async settled(): Promise<void> {
    await this.renewing?.catch(() => undefined);
  }

  /**
   * One renew (joined by a second caller while in flight). Bounded by the retry period (a bucket without a leader
   * leaves the request unanswered for the client's whole timeout), and while renewals fail by an eighth of it, with
   * the next try an eighth later: an election of the members bucket (4-9 s after a NATS node crash) must cost no
   * more of the renew deadline than it lasts (ADR 0084).
   */
  renew(): Promise<void> {
    if (this.options.isStopped()) return Promise.resolve();
    this.renewing ??= (async () => {
      let renewed: boolean;
      try {
        renewed = await this.renewOnce();
      } finally {
        this.renewing = undefined;
      }
      if (!renewed && !this.options.isStopped()) {
        setTimeout(() => void this.renew(), failingRenewRetryMs(this.options.profile.retryPeriodMs)).unref();
      }
    })();
    return this.renewing;
  }

  /** True when the record was renewed (or the member re-joined). */
  private async renewOnce(): Promise<boolean> {
    const { retryPeriodMs } = this.options.profile;
    const state = this.options.isLeaving() ? "leaving" : "alive";
    const outcome = await this.lease.renew(this.record(state), renewAnswerBoundMs(retryPeriodMs, this.renewsFailing));
    switch (outcome.kind) {
      case "renewed":
        this.options.renewed();
        return true;
      case "unanswered":
        // No answer at all: the bucket has no leader or the connection is down. Reading the record would wait as long.
        this.renewFailed(new Error(`members bucket did not answer the renew within the bound (retry period ${retryPeriodMs} ms)`));
        return false;
      case "refused":
        return this.afterRefusedRenew(outcome.error);
      default:
        return assertNever(outcome, "renew outcome");
    }
  }

  private async afterRefusedRenew(error: unknown): Promise<boolean> {
    // A renew in flight when stop() wrote `dead` loses the compare-and-set; a stopped member never re-joins.
    if (this.options.isStopped()) return true;
    // Bounded: the next renew must not wait behind this read.
    const reading = await this.readOwnRecord(this.options.profile.retryPeriodMs);
    const decision = decideLostRenew(reading, { incarnation: this.incarnation, revision: this.lease.revision });
    switch (decision.action) {
      case "rejoin":
        // Declared dead, our name taken, or a record no peer can read: the peers do not count us any more and may
        // claim our shards. Never "un-die": drop everything, re-join as a new incarnation over whatever is there.
        this.options.logger.error({ err: error, why: decision.why }, "our member record no longer names us alive; dropping all shards and re-joining as a new incarnation");
        this.options.rejoining();
        this.lease.forget();
        this.currentIncarnation = randomUUID();
        await this.join().catch((joinError: unknown) => this.options.logger.error({ err: joinError }, "re-join failed"));
        return true;
      case "adopt":
        // Our record, still ours and alive, at a later revision: an earlier renew landed but its answer was lost (or
        // came after the bound). Without this, every later compare-and-set would fail until a peer declared us dead.
        this.lease.adopt(decision.revision);
        break;
      case "retry":
        break;
      default:
        return assertNever(decision, "lost renew decision");
    }
    this.renewFailed(error);
    return false;
  }

  /** Our own key as it is now; "unanswered" when the read fails or does not answer within `boundMs`. */
  private async readOwnRecord(boundMs: number): Promise<OwnRecordReading> {
    const entry = await this.lease.read(boundMs);
    if (entry === "unanswered") return { kind: "unanswered" };
    if (entry === null || entry.operation !== "PUT") return { kind: "absent" };
    // Not counted here: the watch counts every revision once.
    const { record } = readRecord(entry, codecs.memberRecord);
    return record ? { kind: "record", revision: entry.revision, record } : { kind: "undecodable", revision: entry.revision };
  }

  /** A renew moved the lease forward, maybe after its bound. */
  private renewedAgain(sinceLastRenewMs: number): void {
    if (this.options.isStopped() || !this.renewsFailing) return;
    this.options.logger.info({ sinceLastRenewMs }, "lease renewed again");
    // Peers could not renew either while we could not: their lease clocks start again from now.
    this.renewsFailing = false;
    this.options.liveness.reconnect(this.options.now());
  }

  private renewFailed(error: unknown): void {
    // Logged once per run of failures (they repeat every eighth of a retry period while the bucket has no leader).
    if (this.renewsFailing) this.options.logger.debug({ err: error }, "lease renew failed again");
    else this.options.logger.warn({ err: error }, "lease renew failed; retrying every eighth of a retry period");
    // While our own renewals fail (members bucket without a leader, say), the peers' fail too: their silence
    // proves nothing, so their lease clocks pause as they do while we are disconnected.
    this.renewsFailing = true;
    this.options.liveness.disconnect();
  }

  /**
   * The last write of a graceful leave. A periodic renew may still be in flight and move the record's revision
   * under us, so a lost compare-and-set is retried against the current revision while the record is still ours.
   */
  async markSelfDead(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.lease.release(this.record("dead"));
        return;
      } catch {
        const entry = await this.options.members.get(this.key).catch(() => null);
        const current = readRecord(entry, codecs.memberRecord).record;
        if (entry === null || current === undefined || current.incarnation !== this.incarnation || current.state === "dead") return;
        this.lease.adopt(entry.revision);
      }
    }
  }
}
