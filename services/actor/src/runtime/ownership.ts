// Fleet membership and shard ownership through NATS KV, compare-and-set only
// (docs/adr/0071-fleet-ownership-and-fencing.md).
//
// - Each member keeps `m.<name>` alive in bucket `members` (CAS renew every retryPeriodMs / 4) and answers probes on
//   `fleet.probe.<name>`; it subscribes before it announces itself.
// - Desired owners come from rendezvous hashing with a load cap over the alive members; moves between live members
//   wait until membership has been stable for stableAfterMs.
// - A shard moves only by handshake: the owner drains it and writes `released`, then the desired owner claims it.
//   A shard of a dead member is claimed directly. The KV revision of `s.<shard>` at claim time is the epoch.
// - A member is dead when it is marked dead by CAS on the revision an observer saw: after leaseDurationMs without a
//   renewal on the observer's own clock (paused while disconnected), or at once when a probe gets "no responders"
//   (its NATS connection is gone, so it cannot append to intent logs and cannot write).
// - Self-fencing: a member acts on a shard only while its last successful renew was sent less than renewDeadlineMs
//   ago; when that lapses, it drops every shard and aborts in-flight work.
import { randomUUID } from "node:crypto";
import type { KV, KvEntry } from "@nats-io/kv";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { errors as natsErrors } from "@nats-io/transport-node";
import { ALL_SHARDS, DecodeError, assertNever, codecs, memberKeys, probeSubjects, shardKeys } from "#protocol";
import type { Codec, DecodeFailure, MemberRecord, ShardRecord } from "#protocol";
import { failingRenewRetryMs, renewAnswerBoundMs, renewIntervalMs } from "../../../common/src/lease-timing.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { VERSION } from "../../../common/src/version.ts";
import { DesiredAssignmentCache } from "../domain/assignment.ts";
import { LivenessObserver } from "../domain/liveness.ts";
import { decideLostRenew } from "../domain/own-record.ts";
import type { OwnRecordReading } from "../domain/own-record.ts";

const TIMED_OUT = Symbol("timed out");

/** `call`, or TIMED_OUT once `boundMs` has passed without an answer (the call itself goes on). */
function within<T>(call: Promise<T>, boundMs: number): Promise<T | typeof TIMED_OUT> {
  return Promise.race([call, new Promise<typeof TIMED_OUT>((resolve) => setTimeout(() => resolve(TIMED_OUT), boundMs).unref())]);
}

export interface LeaseProfile {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export const LEASE_PROFILES = {
  /** kube-controller-manager's defaults. */
  default: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  fast: { leaseDurationMs: 8_000, renewDeadlineMs: 5_000, retryPeriodMs: 1_000 },
} as const satisfies Record<string, LeaseProfile>;

/** How a peer was found dead: its connection vanished (probe) or it stopped renewing (lease). */
export type DeathReason = "no-responders" | "lease-expired";

export interface OwnershipListener {
  /** Shards this member now owns, with their epochs. */
  gained(shards: ReadonlyMap<number, number>): void;
  /** Shards this member must stop acting on at once. */
  lost(shards: readonly number[]): void;
  /** Before a graceful release: stop intake and wait for in-flight turns of the shard's sets. */
  drain(shard: number): Promise<void>;
}

export interface FleetTimings {
  /** Membership must be unchanged this long before shards move between live members. */
  readonly stableAfterMs: number;
  readonly probeIntervalMs: number;
  readonly probeTimeoutMs: number;
  /** After this member reconnects to NATS, probe failures prove nothing for this long (peers reconnect too). */
  readonly probeGraceAfterReconnectMs: number;
  /**
   * A peer is declared dead by probe only when "no responders" still holds this long after the first one. A peer
   * whose NATS node went away has no subscription until it reconnects to another node (tens of milliseconds);
   * a dead process never gets one back.
   */
  readonly noRespondersConfirmMs: number;
  /** Any live member may claim a dead member's shard that its desired owner has not claimed after this long. */
  readonly orphanClaimAfterMs: number;
  /** At most this many shards are being drained and released by this member at once. */
  readonly maxConcurrentReleases: number;
}

export const DEFAULT_FLEET_TIMINGS: FleetTimings = {
  stableAfterMs: 3_000,
  probeIntervalMs: 150,
  probeTimeoutMs: 1_000,
  probeGraceAfterReconnectMs: 3_000,
  noRespondersConfirmMs: 300,
  orphanClaimAfterMs: 5_000,
  maxConcurrentReleases: 32,
};

export interface OwnershipOptions {
  readonly connection: NatsConnection;
  readonly members: KV;
  readonly shards: KV;
  readonly name: string;
  readonly profile: LeaseProfile;
  readonly timings?: Partial<FleetTimings>;
  readonly logger: Logger;
  readonly listener: OwnershipListener;
  /** Monotonic clock in ms. */
  readonly now?: () => number;
  /** Observes handoffs (for metrics): a shard claimed here, and how long it had no acting owner. */
  /** This member declared a peer dead (for metrics and tests). */
  readonly onDeath?: (event: { member: string; why: DeathReason }) => void;
  readonly onHandoff?: (event: { shard: number; kind: "graceful" | "failover" | "initial"; gapMs: number | undefined }) => void;
  /**
   * A record of `bucket` that does not decode, once per revision the watch shows: counted by the caller as a dropped
   * message. It is treated as absent; ADR 0088 says who writes over it.
   */
  readonly onUndecodable?: (bucket: "members" | "shards", reason: DecodeFailure) => void;
}

/** The record an entry holds: none for a delete, a purge or bytes that do not decode (then with the reason). */
function read<T>(entry: KvEntry | null | undefined, codec: Codec<T>): { record: T | undefined; failure?: DecodeFailure } {
  if (!entry || entry.operation !== "PUT") return { record: undefined };
  try {
    return { record: codec.decode(entry.value) };
  } catch (error) {
    return { record: undefined, failure: error instanceof DecodeError ? error.reason : "invalid" };
  }
}

function decode<T>(entry: KvEntry | null | undefined, codec: Codec<T>): T | undefined {
  return read(entry, codec).record;
}

/** Same owner, incarnation and state: the record was only rewritten, nobody else took the shard. */
function sameHolder(a: ShardRecord | undefined, b: ShardRecord | undefined): boolean {
  return a?.owner === b?.owner && a?.incarnation === b?.incarnation && a?.state === b?.state;
}

interface MemberView {
  record: MemberRecord | undefined;
  revision: number;
  writtenAtMs: number;
}

interface ShardView {
  record: ShardRecord | undefined;
  revision: number;
  /** Wall time of the KV write, for handoff gap measurements. */
  writtenAtMs: number;
  /** Monotonic time this member first saw the shard without a live owner. */
  orphanSinceMs: number | undefined;
}

export class ShardOwnership {
  private currentIncarnation = randomUUID();
  private readonly owned = new Map<number, number>();
  /** Releases in progress: a second request for the same shard (stop() while reconcile releases) joins the first. */
  private readonly releasing = new Map<number, Promise<void>>();
  /** Shards claimed by the batch in flight, not yet passed to listener.gained. */
  private readonly claimedNotAnnounced = new Set<number>();
  /**
   * Shards given up at this epoch (the intent log fenced it, or the shard could not be served): while the record
   * still names us, the next claim writes it again for a newer epoch instead of taking the fenced one back.
   */
  private readonly givenUpAt = new Map<number, number>();
  private readonly memberViews = new Map<string, MemberView>();
  private readonly shardViews = new Map<number, ShardView>();
  private readonly liveness = new LivenessObserver();
  private readonly options: OwnershipOptions;
  private readonly timings: FleetTimings;
  private readonly now: () => number;
  private readonly startedAtMs = Date.now();
  private memberRevision = 0;
  private lastRenewSentMs = 0;
  private leaving = false;
  private stopped = false;
  private aliveSetKey = "";
  private aliveSinceMs = 0;
  private reconnectedAtMs = 0;
  private renewsFailing = false;
  private timers: NodeJS.Timeout[] = [];
  private probeSubscription: Subscription | undefined;
  private watchStops: (() => void)[] = [];
  private reconciling = false;
  private reconcileAgain = false;
  private readonly desiredAssignment = new DesiredAssignmentCache();

  constructor(options: OwnershipOptions) {
    this.options = options;
    this.timings = { ...DEFAULT_FLEET_TIMINGS, ...options.timings };
    this.now = options.now ?? (() => performance.now());
  }

  // --- queries -------------------------------------------------------------------------------------------------

  /** New for every join; a member declared dead re-joins under a new incarnation, never the old one. */
  get incarnation(): string {
    return this.currentIncarnation;
  }

  epochOf(shard: number): number | undefined {
    return this.owned.get(shard);
  }

  ownedShards(): ReadonlyMap<number, number> {
    return this.owned;
  }

  /** True while the lease is fresh enough to act (self-fencing). */
  leaseFresh(): boolean {
    return this.lastRenewSentMs > 0 && this.now() - this.lastRenewSentMs < this.options.profile.renewDeadlineMs;
  }

  canAct(shard: number, epoch: number): boolean {
    return !this.stopped && !this.releasing.has(shard) && this.owned.get(shard) === epoch && this.leaseFresh();
  }

  /**
   * Stop serving a shard held at `epoch`: the intent log showed a record this epoch may not append over (a newer
   * owner, or another incarnation at the same epoch), or the shard's feed could not be opened. The shard is dropped
   * (listener.lost) and claimed again by the next reconcile if it is still ours to hold, at a newer epoch: every
   * claim is a new revision of the bucket, above every epoch any record in the log can carry, so the takeover fences
   * whatever fenced us, and a newer owner makes the claim's compare-and-set fail. Without the re-claim the shard
   * stayed owned by us in the bucket and served by nobody (issue 16's stalled S11 run).
   *
   * An `epoch` we no longer hold is a stale turn's (it started before a loss or a re-join): the shard held now is
   * not touched. Returns whether the shard was dropped.
   */
  giveUp(shard: number, epoch: number): boolean {
    if (this.owned.get(shard) !== epoch || this.releasing.has(shard)) return false;
    this.owned.delete(shard);
    this.givenUpAt.set(shard, epoch);
    if (!this.claimedNotAnnounced.delete(shard)) this.options.listener.lost([shard]);
    this.scheduleReconcile();
    return true;
  }

  /** Alive members as this member sees them. */
  aliveMembers(): string[] {
    const alive: string[] = [];
    for (const [name, view] of this.memberViews) if (view.record?.state === "alive") alive.push(name);
    return alive.sort();
  }

  // --- lifecycle -----------------------------------------------------------------------------------------------

  async start(): Promise<void> {
    // Answer probes before anyone can see us, or a peer's first probe would declare us dead.
    this.probeSubscription = this.options.connection.subscribe(probeSubjects.build(this.options.name), {
      callback: (_error, message) => {
        message.respond(
          codecs.probeAck.encode({
            type: "probe.ack",
            member: this.options.name,
            incarnation: this.incarnation,
            state: this.leaving ? "leaving" : "alive",
          }),
        );
      },
    });
    await this.options.connection.flush();
    await this.join();
    await this.startWatches();
    this.watchConnection();
    // Four times per retry period: the renew deadline has to outlast the time since the last renew plus the longest
    // election of the members bucket plus the first retry after it (9 s + 0.5 s on nats-server 2.9, against the
    // default profile's 10 s; ADR 0084).
    this.every(renewIntervalMs(this.options.profile.retryPeriodMs), () => this.renew());
    this.every(this.timings.probeIntervalMs, () => this.probePeers());
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

  private memberRecord(state: MemberRecord["state"]): Uint8Array {
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

  private async join(): Promise<void> {
    const key = memberKeys.build(this.options.name);
    const sentMs = this.now();
    const existing = await this.options.members.get(key);
    this.memberRevision = existing
      ? await this.options.members.update(key, this.memberRecord("alive"), existing.revision)
      : await this.options.members.create(key, this.memberRecord("alive"));
    this.lastRenewSentMs = sentMs;
    this.options.logger.info({ incarnation: this.incarnation }, "joined the fleet");
  }

  private async startWatches(): Promise<void> {
    const memberWatch = await this.options.members.watch({ key: "m.*" });
    const shardWatch = await this.options.shards.watch({ key: "s.*" });
    this.watchStops.push(() => memberWatch.stop(), () => shardWatch.stop());
    let membersLoaded = (await this.options.members.status()).values === 0;
    let shardsLoaded = (await this.options.shards.status()).values === 0;
    const loaded = new Promise<void>((resolve) => {
      const check = () => membersLoaded && shardsLoaded && resolve();
      check();
      void (async () => {
        for await (const entry of memberWatch) {
          this.onMemberEntry(entry);
          if (entry.delta === 0) membersLoaded = true;
          check();
        }
      })();
      void (async () => {
        for await (const entry of shardWatch) {
          this.onShardEntry(entry);
          if (entry.delta === 0) shardsLoaded = true;
          check();
        }
      })();
    });
    await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }

  private onMemberEntry(entry: KvEntry): void {
    let name: string;
    try {
      name = memberKeys.parse(entry.key);
    } catch {
      return;
    }
    const { record, failure } = read(entry, codecs.memberRecord);
    if (failure) this.undecodable("members", entry, failure);
    this.memberViews.set(name, { record, revision: entry.revision, writtenAtMs: entry.created.getTime() });
    if (name !== this.options.name) {
      // Undecodable counts as absent: not alive, and its shards are claimed only after orphanClaimAfterMs (ADR 0088).
      if (record && record.state !== "dead") this.liveness.observe(name, entry.revision, this.now());
      else this.liveness.forget(name);
    } else if (entry.revision > this.memberRevision && !(record?.incarnation === this.incarnation && record.state !== "dead")) {
      // Our own key now holds something we did not write (declared dead, deleted, garbage): the renew that finds out
      // and re-joins goes out now rather than at the next renew interval.
      void this.renew();
    }
    this.scheduleReconcile();
  }

  private onShardEntry(entry: KvEntry): void {
    let shard: number;
    try {
      shard = shardKeys.parse(entry.key);
    } catch {
      return;
    }
    // Undecodable counts as no owner at the entry's revision: the owner drops the shard below, the desired owner claims
    // it by compare-and-set on that revision (ADR 0088).
    const { record, failure } = read(entry, codecs.shardRecord);
    if (failure) this.undecodable("shards", entry, failure);
    const previous = this.shardViews.get(shard);
    if (previous && previous.revision > entry.revision) return;
    this.shardViews.set(shard, {
      record,
      revision: entry.revision,
      writtenAtMs: entry.created.getTime(),
      // The orphan clock belongs to one holder: a claim by someone else restarts it, or a shard orphaned long ago
      // would look claimable the moment a new owner takes it (before its member record is seen).
      orphanSinceMs: sameHolder(previous?.record, record) ? previous?.orphanSinceMs : undefined,
    });
    // Someone else now holds a shard we think we own: we were fenced (marked dead, or a race we lost).
    const ours = this.owned.get(shard);
    if (ours !== undefined && entry.revision > ours && !(record?.owner === this.options.name && record.incarnation === this.incarnation)) {
      this.options.logger.warn({ shard, ours, theirs: entry.revision, owner: record?.owner }, "shard taken over; dropping it");
      this.owned.delete(shard);
      // A claim of the batch still in flight was never announced, so there is nothing to take back.
      if (!this.claimedNotAnnounced.delete(shard)) this.options.listener.lost([shard]);
    }
    this.scheduleReconcile();
  }

  /** Buckets whose undecodable records were logged at warn already: the rest go to debug (garbage on every key). */
  private readonly undecodableLogged = new Set<string>();

  private undecodable(bucket: "members" | "shards", entry: KvEntry, reason: DecodeFailure): void {
    this.options.onUndecodable?.(bucket, reason);
    const detail = { bucket, key: entry.key, revision: entry.revision, reason };
    if (this.undecodableLogged.has(bucket)) {
      this.options.logger.debug(detail, "undecodable record treated as absent");
      return;
    }
    this.undecodableLogged.add(bucket);
    this.options.logger.warn(detail, "undecodable record treated as absent (further ones of this bucket are logged at debug)");
  }

  private watchConnection(): void {
    void (async () => {
      for await (const status of this.options.connection.status()) {
        if (status.type === "disconnect") this.liveness.disconnect();
        if (status.type === "reconnect") {
          this.reconnectedAtMs = this.now();
          this.liveness.reconnect(this.reconnectedAtMs);
          void this.renew();
        }
      }
    })();
  }

  // --- periodic work -------------------------------------------------------------------------------------------

  private renewing: Promise<void> | undefined;

  /**
   * One renew: compare-and-set of our member record. Bounded by the retry period (a bucket without a leader leaves the
   * request unanswered for the client's whole timeout), and while renewals fail by an eighth of it, with the next try
   * an eighth later: an election of the members bucket (4-9 s after a NATS node crash) must cost no more of the renew
   * deadline than it lasts (ADR 0084).
   */
  private renew(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.renewing ??= (async () => {
      let renewed: boolean;
      try {
        renewed = await this.renewOnce();
      } finally {
        this.renewing = undefined;
      }
      if (!renewed && !this.stopped) setTimeout(() => void this.renew(), failingRenewRetryMs(this.options.profile.retryPeriodMs)).unref();
    })();
    return this.renewing;
  }

  /** True when the record was renewed. */
  private async renewOnce(): Promise<boolean> {
    const key = memberKeys.build(this.options.name);
    const sentMs = this.now();
    const { retryPeriodMs } = this.options.profile;
    // An answer that comes after the bound still renews: the write landed no earlier than it was sent.
    const answer = this.options.members.update(key, this.memberRecord(this.leaving ? "leaving" : "alive"), this.memberRevision).then((revision) => {
      this.renewed(sentMs, revision);
    });
    answer.catch(() => undefined);
    try {
      if ((await within(answer, renewAnswerBoundMs(retryPeriodMs, this.renewsFailing))) === TIMED_OUT) {
        // No answer at all: the bucket has no leader or the connection is down. Reading the record would wait as long.
        this.renewFailed(new Error(`members bucket did not answer the renew within the bound (retry period ${retryPeriodMs} ms)`));
        return false;
      }
    } catch (error) {
      // A renew in flight when stop() wrote `dead` loses the compare-and-set; a stopped member never re-joins.
      if (this.stopped) return true;
      // Bounded: the next renew must not wait behind this read.
      const decision = decideLostRenew(await this.readOwnRecord(key, retryPeriodMs), {
        incarnation: this.incarnation,
        revision: this.memberRevision,
      });
      switch (decision.action) {
        case "rejoin":
          // Declared dead, our name taken, or a record no peer can read: the peers do not count us any more and may
          // claim our shards. Never "un-die": drop everything, re-join as a new incarnation over whatever is there.
          this.options.logger.error({ err: error, why: decision.why }, "our member record no longer names us alive; dropping all shards and re-joining as a new incarnation");
          this.loseAll();
          this.currentIncarnation = randomUUID();
          await this.join().catch((joinError: unknown) => this.options.logger.error({ err: joinError }, "re-join failed"));
          return true;
        case "adopt":
          // Our record, still ours and alive, at a later revision: an earlier renew landed but its answer was lost (or
          // came after the bound). Without this, every later compare-and-set would fail until a peer declared us dead.
          this.memberRevision = decision.revision;
          break;
        case "retry":
          break;
        default:
          return assertNever(decision, "lost renew decision");
      }
      this.renewFailed(error);
      return false;
    }
    this.scheduleReconcile();
    return true;
  }

  /** Our own key as it is now; "unanswered" when the read fails or does not answer within `boundMs`. */
  private async readOwnRecord(key: string, boundMs: number): Promise<OwnRecordReading> {
    let entry: KvEntry | null | typeof TIMED_OUT;
    try {
      entry = await within(this.options.members.get(key), boundMs);
    } catch {
      return { kind: "unanswered" };
    }
    if (entry === TIMED_OUT) return { kind: "unanswered" };
    if (entry === null || entry.operation !== "PUT") return { kind: "absent" };
    // Not counted here: the watch counts every revision once.
    const record = decode(entry, codecs.memberRecord);
    return record ? { kind: "record", revision: entry.revision, record } : { kind: "undecodable", revision: entry.revision };
  }

  /** A renew answered: the lease counts from when it was sent (answers after their bound may come out of order). */
  private renewed(sentMs: number, revision: number): void {
    if (this.stopped) return;
    if (revision > this.memberRevision) this.memberRevision = revision;
    if (sentMs <= this.lastRenewSentMs) return;
    const sinceLastRenewMs = Math.round(sentMs - this.lastRenewSentMs);
    this.lastRenewSentMs = sentMs;
    if (this.renewsFailing) {
      this.options.logger.info({ sinceLastRenewMs }, "lease renewed again");
      // Peers could not renew either while we could not: their lease clocks start again from now.
      this.renewsFailing = false;
      this.liveness.reconnect(this.now());
    }
  }

  private renewFailed(error: unknown): void {
    // Logged once per run of failures (they repeat every eighth of a retry period while the bucket has no leader).
    if (this.renewsFailing) this.options.logger.debug({ err: error }, "lease renew failed again");
    else this.options.logger.warn({ err: error }, "lease renew failed; retrying every eighth of a retry period");
    // While our own renewals fail (members bucket without a leader, say), the peers' fail too: their silence
    // proves nothing, so their lease clocks pause as they do while we are disconnected.
    this.renewsFailing = true;
    this.liveness.disconnect();
  }

  private checkLease(): void {
    if (this.owned.size > 0 && !this.leaseFresh()) {
      this.options.logger.error(
        { sinceRenewMs: Math.round(this.now() - this.lastRenewSentMs), renewDeadlineMs: this.options.profile.renewDeadlineMs },
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

  /** Probes awaiting an answer, per peer (bounded: a paused peer holds each one until it times out). */
  private readonly probesInFlight = new Map<string, number>();
  /** Peers whose last probe got "no responders": when the first of the current run of them came back. */
  private readonly noRespondersSinceMs = new Map<string, number>();

  /**
   * Probes every peer. A probe in flight does not hold back the next one: a peer killed after a probe reached it
   * never answers that probe (it times out after probeTimeoutMs), while the next one gets "no responders" at once.
   */
  private async probePeers(): Promise<void> {
    if (this.leaving || !this.leaseFresh()) return;
    const graceOver = this.now() - this.reconnectedAtMs >= this.timings.probeGraceAfterReconnectMs;
    const maxInFlight = Math.ceil(this.timings.probeTimeoutMs / this.timings.probeIntervalMs) + 1;
    for (const [name, view] of this.memberViews) {
      if (name === this.options.name || !view.record || view.record.state === "dead") continue;
      const inFlight = this.probesInFlight.get(name) ?? 0;
      if (inFlight >= maxInFlight) continue;
      this.probesInFlight.set(name, inFlight + 1);
      const revision = view.revision;
      const sentMs = this.now();
      // An answer or a timeout clears a run of "no responders" only if the probe was sent after the run began:
      // an older probe says nothing about the peer since then.
      const clearIfNewer = () => {
        const sinceMs = this.noRespondersSinceMs.get(name);
        if (sinceMs !== undefined && sentMs >= sinceMs) this.noRespondersSinceMs.delete(name);
      };
      void this.options.connection
        .request(
          probeSubjects.build(name),
          codecs.probe.encode({ type: "probe", from: this.options.name, incarnation: this.incarnation, sentAtMs: Date.now() }),
          { timeout: this.timings.probeTimeoutMs },
        )
        .then(clearIfNewer, async (error: unknown) => {
          // Only "no responders" is proof: the member's connection (and with it its subscription) is gone.
          // A timeout may be a paused or slow peer; the lease path decides those.
          const noResponders =
            error instanceof natsErrors.NoRespondersError || (error instanceof natsErrors.RequestError && error.isNoResponders());
          if (!graceOver) {
            this.noRespondersSinceMs.delete(name);
            return;
          }
          if (!noResponders) {
            clearIfNewer();
            return;
          }
          const sinceMs = this.noRespondersSinceMs.get(name);
          if (sinceMs === undefined) {
            this.noRespondersSinceMs.set(name, sentMs);
            // Ask again once the confirmation window is over instead of waiting for the next probe round.
            setTimeout(() => void this.probePeers(), this.timings.noRespondersConfirmMs).unref();
            return;
          }
          if (sentMs - sinceMs < this.timings.noRespondersConfirmMs) return;
          this.noRespondersSinceMs.delete(name);
          await this.markDead(name, revision, "no-responders");
        })
        .finally(() => {
          const left = (this.probesInFlight.get(name) ?? 1) - 1;
          if (left > 0) this.probesInFlight.set(name, left);
          else this.probesInFlight.delete(name);
        });
    }
    const expired = this.liveness.expired(this.now(), this.options.profile.leaseDurationMs);
    for (const { member, revision } of expired) await this.markDead(member, revision, "lease-expired");
  }

  private async markDead(member: string, observedRevision: number, why: DeathReason): Promise<void> {
    const view = this.memberViews.get(member);
    if (!view?.record || view.record.state === "dead" || view.revision !== observedRevision) return;
    const dead: MemberRecord = { ...view.record, state: "dead" };
    try {
      await this.options.members.update(memberKeys.build(member), codecs.memberRecord.encode(dead), observedRevision);
      this.options.logger.warn({ member, why }, "declared member dead");
      this.liveness.forget(member);
      this.options.onDeath?.({ member, why });
    } catch {
      // It renewed in the meantime (alive after all) or another peer marked it first.
    }
  }

  // --- ownership decisions -------------------------------------------------------------------------------------

  private scheduleReconcile(): void {
    if (this.reconciling) {
      this.reconcileAgain = true;
      return;
    }
    void this.reconcile();
  }

  /**
   * Alive and renewing: its record changed within two of its retry periods on this member's clock. A member that
   * stopped renewing is not dead until its lease runs out, but it will not claim anything meanwhile either.
   */
  private responsive(member: string, now: number): boolean {
    if (member === this.options.name) return true;
    const record = this.memberViews.get(member)?.record;
    const silentMs = this.liveness.silentForMs(member, now);
    return record?.state === "alive" && silentMs !== undefined && silentMs < 2 * record.retryPeriodMs;
  }

  /**
   * "dead": the owner's record says so (or it is an earlier incarnation of this member): claim now.
   * "suspect": its member record is missing or names another incarnation. The two KV watches are not ordered
   * with each other, so this may only be a record we have not seen yet: claim only after orphanClaimAfterMs.
   */
  private ownerStatus(record: ShardRecord): "alive" | "dead" | "suspect" {
    if (record.owner === this.options.name) return record.incarnation === this.incarnation ? "alive" : "dead";
    const owner = this.memberViews.get(record.owner)?.record;
    if (!owner || owner.incarnation !== record.incarnation) return "suspect";
    return owner.state === "dead" ? "dead" : "alive";
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

  private async reconcileOnce(): Promise<void> {
    if (!this.leaseFresh()) return;
    const now = this.now();
    const alive = this.aliveMembers();
    if (!this.leaving && !alive.includes(this.options.name)) alive.push(this.options.name);
    const aliveKey = alive.join(",");
    if (aliveKey !== this.aliveSetKey) {
      this.aliveSetKey = aliveKey;
      this.aliveSinceMs = now;
      setTimeout(() => this.scheduleReconcile(), this.timings.stableAfterMs + 10).unref();
    }
    const stable = now - this.aliveSinceMs >= this.timings.stableAfterMs;
    const desired = this.desiredAssignment.of(alive.filter((m) => !(this.leaving && m === this.options.name)));

    const responsive = new Set(alive.filter((member) => this.responsive(member, now)));
    const claims: { shard: number; view: ShardView | undefined }[] = [];
    const releases: number[] = [];
    for (const shard of ALL_SHARDS) {
      const view = this.shardViews.get(shard);
      const want = desired.get(shard);
      if (this.owned.has(shard)) {
        if (this.releasing.has(shard)) continue;
        // Never to a member that has gone quiet (paused right after joining, say): it would not claim.
        if (this.leaving || (stable && want !== undefined && want !== this.options.name && responsive.has(want))) releases.push(shard);
        continue;
      }
      if (this.leaving) continue;
      const record = view?.record;
      // A record of ours that says "released" is free like any other: we gave it away on purpose.
      const mine = this.isOwnClaim(record);
      const status = record && record.state === "owned" && !mine ? this.ownerStatus(record) : "dead";
      if (status === "alive") {
        if (view) view.orphanSinceMs = undefined;
        continue;
      }
      if (view && view.orphanSinceMs === undefined) view.orphanSinceMs = now;
      const orphanLong = view?.orphanSinceMs !== undefined && now - view.orphanSinceMs >= this.timings.orphanClaimAfterMs;
      if (status === "suspect" && !orphanLong) continue;
      // A desired owner that has gone quiet will not claim soon; anyone may, and gives it back once it renews again.
      const desiredOwnerResponsive = want !== undefined && responsive.has(want);
      if (mine || want === this.options.name || orphanLong || !desiredOwnerResponsive) claims.push({ shard, view });
    }

    if (claims.length > 0) await this.claim(claims);
    const budget = this.timings.maxConcurrentReleases - this.releasing.size;
    for (const shard of releases.slice(0, Math.max(0, budget))) void this.release(shard);
  }

  private async claim(claims: readonly { shard: number; view: ShardView | undefined }[]): Promise<void> {
    const gained = new Map<number, number>();
    const incarnation = this.incarnation;
    await Promise.all(
      claims.map(async ({ shard, view }) => {
        const key = shardKeys.build(shard);
        const record = view?.record;
        try {
          let epoch: number;
          if (view && this.isOwnClaim(record) && view.revision > (this.givenUpAt.get(shard) ?? 0)) {
            epoch = view.revision; // still ours (e.g. after a lease lapse that nobody exploited)
          } else {
            // A record of ours that says "released" is taken back by a write like anyone's claim: someone may
            // have claimed it after the revision we saw, and only the compare-and-set can tell.
            const value = codecs.shardRecord.encode({
              type: "shard",
              shard,
              owner: this.options.name,
              incarnation,
              state: "owned",
            });
            epoch = view ? await this.options.shards.update(key, value, view.revision) : await this.options.shards.create(key, value);
          }
          // The watch may already have shown a newer record (a takeover while this batch was in flight): then
          // the claim is already lost, and recording it now would leave us believing in an epoch nobody holds.
          // Fenced, stopped or re-joined meanwhile: the record stays in the bucket and the next reconcile decides.
          if (this.stopped || !this.leaseFresh() || this.incarnation !== incarnation) return;
          const current = this.shardViews.get(shard);
          if (current && current.revision > epoch && !this.isOwnClaim(current.record)) {
            this.options.logger.warn({ shard, epoch, theirs: current.revision, owner: current.record?.owner }, "claim overtaken before it was recorded");
            return;
          }
          gained.set(shard, epoch);
          this.owned.set(shard, epoch);
          this.givenUpAt.delete(shard);
          this.claimedNotAnnounced.add(shard);
          const kind = !record ? "initial" : record.state === "released" ? "graceful" : "failover";
          // Graceful: since the release. Failover: since the previous owner was declared dead (if we saw that).
          const previousOwner = record ? this.memberViews.get(record.owner) : undefined;
          const since =
            kind === "graceful" ? view?.writtenAtMs : previousOwner?.record?.state === "dead" ? previousOwner.writtenAtMs : undefined;
          this.options.onHandoff?.({ shard, kind, gapMs: since === undefined ? undefined : Math.max(0, Date.now() - since) });
        } catch {
          // Lost a compare-and-set race; the watch shows the winner and the next reconcile decides again.
        }
      }),
    );
    // A takeover seen by the watch during the batch already removed the shard again.
    for (const [shard, epoch] of gained) {
      this.claimedNotAnnounced.delete(shard);
      if (this.owned.get(shard) !== epoch) gained.delete(shard);
    }
    if (gained.size === 0) return;
    this.options.logger.info({ claimed: gained.size, owned: this.owned.size }, "claimed shards");
    this.options.listener.gained(gained);
  }

  private isOwnClaim(record: ShardRecord | undefined): boolean {
    return record?.state === "owned" && record.owner === this.options.name && record.incarnation === this.incarnation;
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
      const record: ShardRecord = {
        type: "shard",
        shard,
        owner: this.options.name,
        incarnation: this.incarnation,
        state: "released",
      };
      const revision = await this.options.shards.update(shardKeys.build(shard), codecs.shardRecord.encode(record), epoch);
      // Record our own write now: until the watch delivers it, the old view ("owned by us") must not look claimable.
      const view = this.shardViews.get(shard);
      if (!view || view.revision < revision) {
        this.shardViews.set(shard, { record, revision, writtenAtMs: Date.now(), orphanSinceMs: undefined });
      }
    } catch (error) {
      this.options.logger.warn({ shard, err: error }, "release failed");
    } finally {
      if (this.owned.get(shard) === epoch) this.owned.delete(shard);
      this.releasing.delete(shard);
      this.scheduleReconcile();
    }
  }

  /** Graceful leave: announce `leaving`, release every shard (drained first), then mark the record dead. */
  async stop(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.stopped) return;
    this.leaving = true;
    // After a renew in flight (it may have written "alive"), one that says "leaving".
    await this.renewing?.catch(() => undefined);
    await this.renew().catch(() => undefined);
    const deadline = this.now() + (options.timeoutMs ?? 10_000);
    const shards = [...this.owned.keys()];
    await Promise.race([
      Promise.all(shards.map((shard) => this.release(shard))),
      new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - this.now())).unref()),
    ]);
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const stop of this.watchStops) stop();
    this.probeSubscription?.unsubscribe();
    this.loseAll();
    await this.markSelfDead();
  }

  /**
   * The last write of a graceful leave. A periodic renew may still be in flight and move the record's revision
   * under us, so a lost compare-and-set is retried against the current revision while the record is still ours.
   */
  private async markSelfDead(): Promise<void> {
    const key = memberKeys.build(this.options.name);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        this.memberRevision = await this.options.members.update(key, this.memberRecord("dead"), this.memberRevision);
        return;
      } catch {
        const entry = await this.options.members.get(key).catch(() => null);
        const current = decode(entry, codecs.memberRecord);
        if (entry === null || current === undefined || current.incarnation !== this.incarnation || current.state === "dead") return;
        this.memberRevision = entry.revision;
      }
    }
  }
}
