// Fleet membership and shard ownership through NATS KV, compare-and-set only
// (docs/adr/0071-fleet-ownership-and-fencing.md, docs/adr/0094-ownership-as-a-pure-plan.md). ShardOwnership wires
// the units and applies the plan:
//
// - probe-responder.ts answers `fleet.probe.<name>`; it subscribes before the member announces itself.
// - member-lease.ts keeps `m.<name>` alive in bucket `members` (compare-and-set renew every retryPeriodMs / 4).
// - fleet-watch.ts ingests both buckets; peer-prober.ts marks peers dead, at once when a probe gets "no responders"
//   (its NATS connection is gone) or after leaseDurationMs without a renewal on this member's clock.
// - domain/ownership-plan.ts decides which shards to claim and release; this file writes them by compare-and-set and
//   plans again on every change and at the plan's recheck time. The revision of `s.<shard>` at claim is the epoch.
// - Self-fencing: a member acts on a shard only while its last successful renew was sent less than renewDeadlineMs
//   ago; when that lapses, it drops every shard and aborts in-flight work.
import { codecs, shardKeys } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";
import { renewIntervalMs } from "../../../common/src/lease-timing.ts";
import { recordGiveUp } from "../domain/give-up-backoff.ts";
import type { GiveUp, GiveUpTimings } from "../domain/give-up-backoff.ts";
import { LivenessObserver } from "../domain/liveness.ts";
import { planOwnership } from "../domain/ownership-plan.ts";
import type { Claim, MembershipClock, OwnershipView } from "../domain/ownership-plan.ts";
import { FleetWatch } from "./fleet-watch.ts";
import type { ShardView } from "./fleet-watch.ts";
import { MemberLease } from "./member-lease.ts";
import { DEFAULT_FLEET_TIMINGS } from "./ownership-options.ts";
import type { FleetTimings, OwnershipOptions } from "./ownership-options.ts";
import { PeerProber } from "./peer-prober.ts";
import { ProbeResponder } from "./probe-responder.ts";

export { DEFAULT_FLEET_TIMINGS, LEASE_PROFILES } from "./ownership-options.ts";
export type { DeathReason, FleetTimings, LeaseProfile, OwnershipListener, OwnershipOptions } from "./ownership-options.ts";

/** Timers may fire a moment before the monotonic clock reaches the deadline they were set for. */
const RECHECK_MARGIN_MS = 10;

export class ShardOwnership {
  private readonly owned = new Map<number, number>();
  /** Releases in progress: a second request for the same shard (stop() while reconcile releases) joins the first. */
  private readonly releasing = new Map<number, Promise<void>>();
  /** Shards claimed by the batch in flight, not yet passed to listener.gained. */
  private readonly claimedNotAnnounced = new Set<number>();
  /**
   * Shards given up (the intent log fenced it, or the shard could not be served): while the record still names us at
   * or below the epoch given up, the next claim writes it again for a newer epoch instead of taking the fenced one
   * back; repeated give-ups back off (domain/give-up-backoff.ts).
   */
  private readonly givenUp = new Map<number, GiveUp>();
  /** When each held shard was claimed, for the give-up backoff's reset. */
  private readonly heldSinceMs = new Map<number, number>();
  private readonly liveness = new LivenessObserver();
  private readonly options: OwnershipOptions;
  private readonly timings: FleetTimings;
  private readonly giveUpTimings: GiveUpTimings;
  private readonly now: () => number;
  private readonly watch: FleetWatch;
  private readonly lease: MemberLease;
  private readonly prober: PeerProber;
  private readonly responder: ProbeResponder;
  private membership: MembershipClock | undefined;
  private leaving = false;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  private recheckTimer: NodeJS.Timeout | undefined;
  private reconciling = false;
  private reconcileAgain = false;

  constructor(options: OwnershipOptions) {
    this.options = options;
    this.timings = { ...DEFAULT_FLEET_TIMINGS, ...options.timings };
    this.giveUpTimings = { backoff: this.timings.giveUpBackoff, resetAfterMs: this.timings.giveUpResetAfterMs };
    const now = (this.now = options.now ?? (() => performance.now()));
    const { connection, members, name, logger, profile } = options;
    this.lease = new MemberLease({
      members,
      name,
      profile,
      now,
      logger,
      liveness: this.liveness,
      isLeaving: () => this.leaving,
      isStopped: () => this.stopped,
      renewed: () => this.scheduleReconcile(),
      rejoining: () => this.loseAll(),
    });
    this.watch = new FleetWatch({
      members,
      shards: options.shards,
      name,
      liveness: this.liveness,
      now,
      logger,
      ...(options.onUndecodable ? { onUndecodable: options.onUndecodable } : {}),
      events: {
        ownRecord: (revision, record) => this.ownRecordSeen(revision, record),
        shardRecord: (shard, revision, record) => this.shardRecordSeen(shard, revision, record),
        changed: () => this.scheduleReconcile(),
      },
    });
    this.prober = new PeerProber({
      connection,
      members,
      name,
      incarnation: () => this.incarnation,
      memberViews: this.watch.memberViews,
      liveness: this.liveness,
      leaseDurationMs: profile.leaseDurationMs,
      timings: this.timings,
      now,
      logger,
      mayProbe: () => !this.leaving && this.lease.fresh(),
      ...(options.onDeath ? { onDeath: options.onDeath } : {}),
    });
    this.responder = new ProbeResponder({ connection, name, incarnation: () => this.incarnation, leaving: () => this.leaving });
  }

  // --- queries -------------------------------------------------------------------------------------------------

  /** New for every join; a member declared dead re-joins under a new incarnation, never the old one. */
  get incarnation(): string {
    return this.lease.incarnation;
  }

  epochOf(shard: number): number | undefined {
    return this.owned.get(shard);
  }

  ownedShards(): ReadonlyMap<number, number> {
    return this.owned;
  }

  /** True while the lease is fresh enough to act (self-fencing). */
  leaseFresh(): boolean {
    return this.lease.fresh();
  }

  canAct(shard: number, epoch: number): boolean {
    return !this.stopped && !this.releasing.has(shard) && this.owned.get(shard) === epoch && this.leaseFresh();
  }

  /**
   * Stop serving a shard held at `epoch`: the intent log showed a record this epoch may not append over (a newer
   * owner, or another incarnation at the same epoch), or the shard's feed could not be opened. The shard is dropped
   * (listener.lost) and claimed again if it is still ours to hold, at a newer epoch: a new revision of the bucket,
   * above every epoch any record in the log can carry, so the takeover fences whatever fenced us, and a newer owner
   * makes the claim's compare-and-set fail. The first give-up is claimed again at once; repeated ones soon after
   * their claims back off, so a feed that keeps failing is no tight loop of KV writes (ADR 0094).
   *
   * An `epoch` we no longer hold is a stale turn's (it started before a loss or a re-join): the shard held now is
   * not touched. Returns whether the shard was dropped.
   */
  giveUp(shard: number, epoch: number): boolean {
    if (this.owned.get(shard) !== epoch || this.releasing.has(shard)) return false;
    this.owned.delete(shard);
    const event = { epoch, nowMs: this.now(), heldSinceMs: this.heldSinceMs.get(shard) };
    this.givenUp.set(shard, recordGiveUp(this.givenUp.get(shard), event, this.giveUpTimings, Math.random));
    if (!this.claimedNotAnnounced.delete(shard)) this.options.listener.lost([shard]);
    this.scheduleReconcile();
    return true;
  }

  /** Alive members as this member sees them. */
  aliveMembers(): string[] {
    return this.watch.aliveMembers();
  }

  // --- lifecycle -----------------------------------------------------------------------------------------------

  async start(): Promise<void> {
    // Answer probes before anyone can see us, or a peer's first probe would declare us dead.
    await this.responder.start();
    await this.lease.join();
    await this.watch.start();
    this.watchConnection();
    // Four times per retry period: the renew deadline has to outlast the time since the last renew plus the longest
    // election of the members bucket plus the first retry after it (9 s + 0.5 s on nats-server 2.9, against the
    // default profile's 10 s; ADR 0084).
    this.every(renewIntervalMs(this.options.profile.retryPeriodMs), () => this.lease.renew());
    this.every(this.timings.probeIntervalMs, () => this.prober.probePeers());
    this.every(Math.min(250, this.options.profile.retryPeriodMs), () => this.checkLease());
    await this.reconcile();
  }

  private every(periodMs: number, task: () => Promise<void> | void): void {
    let running = false;
    const timer = setInterval(() => {
      if (running || this.stopped) return;
      running = true;
      void Promise.resolve()
        .then(task)
        .catch((error: unknown) => this.options.logger.warn({ err: error }, "ownership task failed"))
        .finally(() => (running = false));
    }, periodMs);
    timer.unref();
    this.timers.push(timer);
  }

  private watchConnection(): void {
    void (async () => {
      for await (const status of this.options.connection.status()) {
        if (status.type === "disconnect") this.liveness.disconnect();
        if (status.type === "reconnect") {
          const nowMs = this.now();
          this.prober.reconnected(nowMs);
          this.liveness.reconnect(nowMs);
          void this.lease.renew();
        }
      }
    })();
  }

  /** Graceful leave: announce `leaving`, release every shard (drained first), then mark the record dead. */
  async stop(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.stopped) return;
    this.leaving = true;
    // After a renew in flight (it may have written "alive"), one that says "leaving".
    await this.lease.settled();
    await this.lease.renew().catch(() => undefined);
    const deadline = this.now() + (options.timeoutMs ?? 10_000);
    const shards = [...this.owned.keys()];
    await Promise.race([
      Promise.all(shards.map((shard) => this.release(shard))),
      new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - this.now())).unref()),
    ]);
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.recheckTimer);
    this.watch.stop();
    this.responder.stop();
    this.loseAll();
    await this.lease.markSelfDead();
  }

  // --- what the watch shows --------------------------------------------------------------------------------------

  /**
   * Our own key now holds something we did not write (declared dead, deleted, garbage): the renew that finds out and
   * re-joins goes out now rather than at the next renew interval.
   */
  private ownRecordSeen(revision: number, record: MemberRecord | undefined): void {
    if (revision > this.lease.revision && !(record?.incarnation === this.incarnation && record.state !== "dead")) void this.lease.renew();
  }

  /** Someone else now holds a shard we think we own: we were fenced (marked dead, or a race we lost). */
  private shardRecordSeen(shard: number, revision: number, record: ShardRecord | undefined): void {
    const ours = this.owned.get(shard);
    if (ours === undefined || revision <= ours || (record?.owner === this.options.name && record.incarnation === this.incarnation)) return;
    this.options.logger.warn({ shard, ours, theirs: revision, owner: record?.owner }, "shard taken over; dropping it");
    this.owned.delete(shard);
    // A claim of the batch still in flight was never announced, so there is nothing to take back.
    if (!this.claimedNotAnnounced.delete(shard)) this.options.listener.lost([shard]);
  }

  private checkLease(): void {
    if (this.owned.size > 0 && !this.leaseFresh()) {
      this.options.logger.error(
        { sinceRenewMs: Math.round(this.lease.sinceRenewMs()), renewDeadlineMs: this.options.profile.renewDeadlineMs },
        "lease renew deadline passed; self-fencing (dropping all shards)",
      );
      this.loseAll();
    }
  }

  private loseAll(): void {
    if (this.owned.size === 0) return;
    const lost = [...this.owned.keys()].filter((shard) => !this.claimedNotAnnounced.has(shard));
    this.owned.clear();
    this.releasing.clear();
    this.claimedNotAnnounced.clear();
    if (lost.length > 0) this.options.listener.lost(lost);
  }

  // --- applying the plan -----------------------------------------------------------------------------------------

  private scheduleReconcile(): void {
    if (this.reconciling) {
      this.reconcileAgain = true;
      return;
    }
    void this.reconcile();
  }

  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    this.reconciling = true;
    try {
      do {
        this.reconcileAgain = false;
        await this.reconcileOnce();
      } while (this.reconcileAgain && !this.stopped);
    } finally {
      this.reconciling = false;
    }
  }

  private view(nowMs: number): OwnershipView {
    return {
      self: { name: this.options.name, incarnation: this.incarnation, leaving: this.leaving },
      members: this.watch.memberFacts(nowMs),
      shards: this.watch.shardFacts(),
      held: this.owned,
      releasing: new Set(this.releasing.keys()),
      givenUp: this.givenUp,
      membership: this.membership,
    };
  }

  private async reconcileOnce(): Promise<void> {
    if (!this.leaseFresh()) return;
    const nowMs = this.now();
    const plan = planOwnership(this.view(nowMs), nowMs, this.timings);
    this.membership = plan.membership;
    for (const [shard, sinceMs] of plan.orphanClocks) {
      const view = this.watch.shardViews.get(shard);
      if (view) view.orphanSinceMs = sinceMs;
    }
    clearTimeout(this.recheckTimer);
    this.recheckTimer = setTimeout(() => this.scheduleReconcile(), plan.recheckAtMs - nowMs + RECHECK_MARGIN_MS).unref();
    // The views as the plan saw them: a claim's compare-and-set names the revision planned with.
    if (plan.claims.length > 0) await this.claim(plan.claims.map((claim) => ({ claim, view: this.watch.shardViews.get(claim.shard) })));
    for (const shard of plan.releases) void this.release(shard);
  }

  private async claim(claims: readonly { claim: Claim; view: ShardView | undefined }[]): Promise<void> {
    const gained = new Map<number, number>();
    const incarnation = this.incarnation;
    await Promise.all(claims.map(async ({ claim, view }) => {
      // A rejection is a lost compare-and-set race; the watch shows the winner and the next plan decides again.
      const epoch = await this.writeClaim(claim, incarnation).catch(() => undefined);
      if (epoch === undefined || !this.recordClaim(claim.shard, epoch, incarnation)) return;
      gained.set(claim.shard, epoch);
      this.options.onHandoff?.({ shard: claim.shard, kind: claim.handoff, gapMs: this.watch.handoffGapMs(claim.handoff, view, Date.now()) });
    }));
    // A takeover seen by the watch during the batch already removed the shard again.
    for (const [shard, epoch] of gained) {
      this.claimedNotAnnounced.delete(shard);
      if (this.owned.get(shard) !== epoch) gained.delete(shard);
    }
    if (gained.size === 0) return;
    this.options.logger.info({ claimed: gained.size, owned: this.owned.size }, "claimed shards");
    this.options.listener.gained(gained);
  }

  /** The claim's write; resolves to its epoch. */
  private async writeClaim(claim: Claim, incarnation: string): Promise<number> {
    const { write, shard } = claim;
    if (write.kind === "keep") return write.epoch;
    const key = shardKeys.build(shard);
    const value = codecs.shardRecord.encode({ type: "shard", shard, owner: this.options.name, incarnation, state: "owned" });
    return write.kind === "update" ? this.options.shards.update(key, value, write.revision) : this.options.shards.create(key, value);
  }

  /** Records a written claim as held, unless it is stale already; returns whether it was recorded. */
  private recordClaim(shard: number, epoch: number, incarnation: string): boolean {
    // Fenced, stopped or re-joined meanwhile: the record stays in the bucket and the next plan decides.
    if (this.stopped || !this.leaseFresh() || this.incarnation !== incarnation) return false;
    // The watch may already have shown a newer record (a takeover while this batch was in flight): then the claim
    // is already lost, and recording it now would leave us believing in an epoch nobody holds.
    const current = this.watch.shardViews.get(shard);
    const ours = current?.record?.state === "owned" && current.record.owner === this.options.name && current.record.incarnation === incarnation;
    if (current && current.revision > epoch && !ours) {
      this.options.logger.warn({ shard, epoch, theirs: current.revision, owner: current.record?.owner }, "claim overtaken before it was recorded");
      return false;
    }
    this.owned.set(shard, epoch);
    this.heldSinceMs.set(shard, this.now());
    this.claimedNotAnnounced.add(shard);
    return true;
  }

  private release(shard: number): Promise<void> {
    const inProgress = this.releasing.get(shard);
    if (inProgress) return inProgress;
    const epoch = this.owned.get(shard);
    if (epoch === undefined) return Promise.resolve();
    // Deferred, so that the entry is in the map before releaseOnce can reach its `finally`.
    const releasing = Promise.resolve().then(() => this.releaseOnce(shard, epoch));
    this.releasing.set(shard, releasing);
    return releasing;
  }

  private async releaseOnce(shard: number, epoch: number): Promise<void> {
    try {
      await this.options.listener.drain(shard);
      this.options.listener.lost([shard]);
      const record: ShardRecord = { type: "shard", shard, owner: this.options.name, incarnation: this.incarnation, state: "released" };
      const revision = await this.options.shards.update(shardKeys.build(shard), codecs.shardRecord.encode(record), epoch);
      // Record our own write now: until the watch delivers it, the old view ("owned by us") must not look claimable.
      this.watch.recordOwnWrite(shard, record, revision);
    } catch (error) {
      this.options.logger.warn({ shard, err: error }, "release failed");
    } finally {
      if (this.owned.get(shard) === epoch) this.owned.delete(shard);
      this.releasing.delete(shard);
      this.scheduleReconcile();
    }
  }
}
