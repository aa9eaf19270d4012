// Runs the active/standby protocol of domain/lease.ts against the `leases` KV bucket: the holder renews by
// compare-and-set four times per retry period and stops acting once it has failed to renew for the renew deadline; a standby
// polls the key and takes over an unchanged lease after a full lease duration on its own monotonic clock. The writes and
// the expiry rule are common/src/kv-lease.ts, shared with the actors' member records.
import { setTimeout as sleep } from "node:timers/promises";
import type { KV, KvEntry } from "@nats-io/kv";
import { assertNever } from "#protocol";
import type { DecodeFailure } from "#protocol";
import { KvLease } from "../../../common/src/kv-lease.ts";
import { failingRenewRetryMs, renewAnswerBoundMs, renewIntervalMs } from "../../../common/src/lease-timing.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { decideStandby, decodeLease, encodeLease } from "../domain/lease.ts";
import type { LeaseObservation, StandbyMemory } from "../domain/lease.ts";
import { decideLostLeaseRenew, leaseDecodeFailure, retakeRevision } from "../domain/lease-elector-holder.ts";
import type { HeldLeaseReading } from "../domain/lease-elector-holder.ts";
import type { WatcherMetrics } from "../metrics.ts";
import { isWrongLastSequence } from "../../../common/src/stream-publish.ts";

export interface LeaseElectorOptions {
  readonly key: string;
  readonly holder: string;
  readonly incarnation: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface LeaseCallbacks {
  /** `revision`: the lease record's revision at acquisition, larger than any earlier holder's (publication epoch). */
  onStartedLeading(revision: number): void;
  onStoppedLeading(reason: "lost" | "renew-deadline" | "released"): void;
}


/** A KV call did not answer before the renew deadline. */
export class LeaseTimeoutError extends Error {
  override readonly name = "LeaseTimeoutError";
}

export class LeaseElector {
  private readonly kv: KV;
  private readonly lease: KvLease;
  private readonly options: LeaseElectorOptions;
  private readonly callbacks: LeaseCallbacks;
  private readonly logger: Logger;
  private readonly metrics: WatcherMetrics;
  private readonly now: () => number;
  private readonly wallNow: () => number;
  private readonly random: () => number;
  private readonly stopController = new AbortController();
  private leading = false;
  private renewsFailing = false;
  private memory: StandbyMemory | undefined;
  private observed = false;
  /** Stepped down to take back a key that held no lease record; cleared by the next lease record seen. */
  private retaking = false;
  /** Counted once per undecodable revision, not once per poll. */
  private undecodableRevision = 0;
  private readonly onUndecodable: ((reason: DecodeFailure) => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(init: {
    kv: KV;
    options: LeaseElectorOptions;
    callbacks: LeaseCallbacks;
    logger: Logger;
    metrics: WatcherMetrics;
    /**
     * Called once per revision of the key that holds no lease record: a standby treats it as held by an unknown holder,
     * the holder takes the key back at once (ADR 0088).
     */
    onUndecodable?: (reason: DecodeFailure) => void;
    now?: () => number;
    wallNow?: () => number;
    random?: () => number;
  }) {
    this.onUndecodable = init.onUndecodable;
    this.kv = init.kv;
    this.options = init.options;
    this.callbacks = init.callbacks;
    this.logger = init.logger.child({ component: "lease", key: init.options.key });
    this.metrics = init.metrics;
    this.now = init.now ?? (() => performance.now());
    this.wallNow = init.wallNow ?? Date.now;
    this.random = init.random ?? Math.random;
    this.lease = new KvLease({ kv: init.kv, key: init.options.key, renewDeadlineMs: init.options.renewDeadlineMs, now: this.now });
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** True once the lease has been read (or won) at least once: the watcher knows whether it is active. */
  get decided(): boolean {
    return this.observed;
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops the loop; the holder then releases the lease so a standby takes over at once. */
  async stop(options: { release: boolean }): Promise<void> {
    this.stopController.abort();
    await this.running;
    if (!this.leading) return;
    this.stepDown("released");
    if (!options.release) return;
    // A renew in flight when stop() came may land after its answer was given up on: then the record is still ours at
    // a later revision, and the release is tried again against it.
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.lease.release(this.record(""));
        this.metrics.leaseTransitions.inc({ transition: "released" });
        this.logger.info("lease released");
        return;
      } catch (error) {
        if (attempt === 0 && isWrongLastSequence(error) && (await this.adoptOwnRevision())) continue;
        this.logger.warn({ err: error }, "could not release the lease; a standby takes over when it expires");
        return;
      }
    }
  }

  private record(holder: string): Uint8Array {
    return encodeLease({
      holder,
      incarnation: this.options.incarnation,
      leaseDurationMs: this.options.leaseDurationMs,
      renewedAtMs: this.wallNow(),
    });
  }

  private async loop(): Promise<void> {
    const signal = this.stopController.signal;
    let failedRounds = 0;
    while (!signal.aborted) {
      let renewFailed = false;
      let roundFailed = false;
      try {
        if (this.leading) renewFailed = !(await this.renew());
        else await this.tryAcquire();
      } catch (error) {
        roundFailed = true;
        renewFailed = this.leading;
        // Once per run of failures: while leading they repeat every 250 ms until the bucket answers again.
        if (failedRounds === 0) this.logger.warn({ err: error, leading: this.leading }, "lease round failed");
        else this.logger.debug({ err: error, leading: this.leading, failedRounds }, "lease round failed again");
      }
      if (roundFailed) failedRounds++;
      else if (failedRounds > 0) {
        this.logger.info({ failedRounds }, "lease rounds succeed again");
        failedRounds = 0;
      }
      // A failed renew is tried again soon, and the holder renews four times per retry period: the renew deadline has
      // to outlast the time since the last renew plus an election of the leases bucket (4-9 s after a NATS node crash
      // on nats-server 2.9, against the default 10 s deadline) plus the first retry after it (ADR 0084).
      this.renewsFailing = renewFailed;
      // A watcher retaking a key that holds no lease record (ADR 0088) tries again as soon as a failed renew would.
      const delayMs = renewFailed || this.retaking
        ? failingRenewRetryMs(this.options.retryPeriodMs)
        : this.leading
          ? renewIntervalMs(this.options.retryPeriodMs)
          : this.options.retryPeriodMs * (1 + 0.2 * this.random());
      try {
        await sleep(delayMs, undefined, { signal });
      } catch {
        return;
      }
    }
  }

  /** True when the lease was renewed. */
  private async renew(): Promise<boolean> {
    // An answer that comes after its bound still renews: the write landed no earlier than it was sent. The bound is a
    // retry period, and an eighth of one while renewals fail (the bucket may have no leader for seconds: requests go
    // unanswered until the client's timeout), so that the first try after the bucket's election goes out soon after
    // it; never past the renew deadline.
    const boundMs = Math.min(renewAnswerBoundMs(this.options.retryPeriodMs, this.renewsFailing), this.lease.remainingMs());
    const outcome = await this.lease.renew(this.record(this.options.holder), boundMs);
    switch (outcome.kind) {
      case "renewed":
        return true;
      case "refused":
        if (!isWrongLastSequence(outcome.error)) return this.renewFailed(outcome.error);
        await this.afterLostRenew();
        return false;
      case "unanswered":
        return this.renewFailed(new LeaseTimeoutError(`no answer within ${Math.round(boundMs)} ms`));
      default:
        return assertNever(outcome, "lease renew outcome");
    }
  }

  /** A renew that failed other than by a lost compare-and-set: step down once the deadline passed, else fail the round. */
  private renewFailed(error: unknown): false {
    if (this.lease.fresh()) throw error;
    this.logger.warn({ err: error }, "could not renew the lease before the deadline; stepping down");
    this.stepDown("renew-deadline");
    return false;
  }

  /** The lease key as it is now, for a holder whose compare-and-set failed. */
  private async readHeldKey(): Promise<HeldLeaseReading> {
    const entry = await this.lease.read(this.lease.remainingMs());
    if (entry === "unanswered" || entry === null) return { kind: "unanswered" };
    if (entry.operation !== "PUT") return { kind: "absent", revision: entry.revision };
    const record = decodeLease(entry.value);
    if (record) return { kind: "record", revision: entry.revision, record };
    this.noteUndecodable(entry);
    return { kind: "undecodable", revision: entry.revision };
  }

  /**
   * After a lost compare-and-set: when the record is still ours (this incarnation), an earlier renew landed and its
   * answer was lost (a NATS node crash can do that). Take its revision and stay active instead of stepping down.
   */
  private async adoptOwnRevision(): Promise<boolean> {
    const decision = decideLostLeaseRenew(await this.readHeldKey(), this.options);
    if (decision.action !== "adopt") return false;
    this.adopt(decision.revision);
    return true;
  }

  private adopt(revision: number): void {
    this.logger.warn({ revision, had: this.lease.revision }, "an earlier lease renew landed without its answer; continuing from its revision");
    this.lease.adopt(revision);
  }

  /** The renew lost its compare-and-set: adopt our own later write, take back a key with no lease in it, or step down. */
  private async afterLostRenew(): Promise<void> {
    const decision = decideLostLeaseRenew(await this.readHeldKey(), this.options);
    switch (decision.action) {
      case "adopt":
        this.adopt(decision.revision);
        return;
      case "retake":
        // Someone else wrote the key, so we may not have been the holder all along: stop acting at our epoch first,
        // and lead again only under the revision of our own compare-and-set over what is there (ADR 0088).
        this.logger.warn({ revision: decision.revision, why: decision.why }, "the lease key holds no lease record; stepping down and taking it back");
        this.stepDown("lost");
        this.retaking = true;
        await this.retake(decision.revision);
        return;
      case "lost":
        this.logger.warn("lease taken over by another watcher");
        this.stepDown("lost");
        return;
      default:
        return assertNever(decision, "lost lease renew decision");
    }
  }

  private async retake(revision: number): Promise<void> {
    try {
      this.becomeLeader(await this.lease.acquire(this.record(this.options.holder), revision), "repaired");
    } catch (error) {
      // More garbage, or a standby, came first: the next round reads the key again (and retakes it if it holds no lease).
      if (!isWrongLastSequence(error)) throw error;
    }
  }

  /** Counts a revision of the key that holds no lease record, once however often it is read. */
  private noteUndecodable(entry: KvEntry): void {
    if (this.undecodableRevision === entry.revision) return;
    this.undecodableRevision = entry.revision;
    this.onUndecodable?.(leaseDecodeFailure(entry.value) ?? "invalid");
  }

  private async tryAcquire(): Promise<void> {
    const entry = await this.kv.get(this.options.key);
    const record = entry?.operation === "PUT" ? decodeLease(entry.value) : undefined;
    if (entry?.operation === "PUT" && record === undefined) this.noteUndecodable(entry);
    const observation: LeaseObservation | undefined = entry
      ? { revision: entry.revision, deleted: entry.operation !== "PUT", record }
      : undefined;
    const retake = retakeRevision(observation, this.retaking);
    if (record !== undefined) this.retaking = false;
    if (retake !== undefined) {
      this.observed = true;
      await this.retake(retake);
      return;
    }
    const decision = decideStandby(observation, this.memory, this.now(), this.options);
    this.observed = true;
    try {
      switch (decision.action) {
        case "wait":
          if (this.memory?.revision !== decision.memory.revision) {
            this.logger.debug({ holder: observation?.record?.holder, revision: decision.memory.revision }, "standing by");
          }
          this.memory = decision.memory;
          return;
        case "create":
          this.becomeLeader(await this.lease.create(this.record(this.options.holder)), "created");
          return;
        case "acquire":
          this.becomeLeader(await this.lease.acquire(this.record(this.options.holder), decision.revision), decision.why);
          return;
        default:
          return assertNever(decision, "lease decision");
      }
    } catch (error) {
      // Another standby won the race for the same revision: keep standing by.
      // nats.js's kv.create answers an existing key with JetStream's wrong-last-sequence code.
      if (!isWrongLastSequence(error)) throw error;
      this.memory = undefined;
    }
  }

  private becomeLeader(revision: number, why: string): void {
    this.retaking = false;
    this.memory = undefined;
    this.leading = true;
    this.metrics.leader.set(1);
    this.metrics.leaseTransitions.inc({ transition: "acquired" });
    this.logger.info({ why, revision }, "lease acquired: this watcher is active");
    this.callbacks.onStartedLeading(revision);
  }

  private stepDown(reason: "lost" | "renew-deadline" | "released"): void {
    if (!this.leading) return;
    this.leading = false;
    this.metrics.leader.set(0);
    if (reason !== "released") this.metrics.leaseTransitions.inc({ transition: "lost" });
    this.callbacks.onStoppedLeading(reason);
  }
}

