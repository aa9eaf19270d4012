// The fleet's claim/release decision (docs/adr/0071-fleet-ownership-and-fencing.md,
// docs/adr/0094-ownership-as-a-pure-plan.md): from what one member sees of the `members` and `shards` buckets, which
// shards it claims, which it releases, and when to decide again if nothing changes meanwhile. Pure: plain data in,
// plain data out; runtime/ownership.ts writes the claims and releases by compare-and-set and runs it again.
//
// - Desired owners come from rendezvous hashing with a load cap over the alive members (domain/assignment.ts);
//   moves between live members wait until membership has been stable for stableAfterMs.
// - A shard moves only by handshake: the owner releases it, then the desired owner claims it. A shard of a dead
//   member is claimed directly; one whose owner is unknown ("suspect") only after orphanClaimAfterMs.
// - A shard given up (its feed could not be opened, or the intent log fenced it) is claimed again no earlier than
//   its give-up's retryAtMs (domain/give-up-backoff.ts).
import { ALL_SHARDS } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";
import { DesiredAssignmentCache } from "./assignment.ts";
import type { GiveUp } from "./give-up-backoff.ts";

/** What this member knows of a peer (or of itself) from the `members` bucket and its own observation clock. */
export interface MemberFacts {
  /** Undefined: deleted, purged or undecodable (counted as absent, docs/adr/0088-garbage-is-absent-and-repaired.md). */
  readonly record: Pick<MemberRecord, "incarnation" | "state" | "retryPeriodMs"> | undefined;
  /** When (this member's monotonic clock) it first saw the record's current revision; undefined: not observed. */
  readonly revisionSeenAtMs: number | undefined;
}

export interface ShardFacts {
  readonly record: Pick<ShardRecord, "owner" | "incarnation" | "state"> | undefined;
  /** KV revision of the record: the epoch of a claim, the compare-and-set target of the next write. */
  readonly revision: number;
  /** When this member first saw the shard without a live owner (the orphan clock); restarted by every new holder. */
  readonly orphanSinceMs: number | undefined;
}

/** The alive member list this member last planned with, and since when it has been that list. */
export interface MembershipClock {
  readonly key: string;
  readonly sinceMs: number;
}

export interface OwnershipView {
  readonly self: { readonly name: string; readonly incarnation: string; readonly leaving: boolean };
  readonly members: ReadonlyMap<string, MemberFacts>;
  /** Only shards whose key has been seen; a missing shard has never been written. */
  readonly shards: ReadonlyMap<number, ShardFacts>;
  /** Shards this member holds, with their epochs. */
  readonly held: ReadonlyMap<number, number>;
  /** Held shards being drained and released right now. */
  readonly releasing: ReadonlySet<number>;
  readonly givenUp: ReadonlyMap<number, GiveUp>;
  readonly membership: MembershipClock | undefined;
}

export interface PlanTimings {
  readonly stableAfterMs: number;
  readonly orphanClaimAfterMs: number;
  readonly maxConcurrentReleases: number;
}

/** How a claim is written: "keep" is a record of ours that nobody took (no write), the others a compare-and-set. */
export type ClaimWrite =
  | { readonly kind: "keep"; readonly epoch: number }
  | { readonly kind: "update"; readonly revision: number }
  | { readonly kind: "create" };

export type HandoffKind = "initial" | "graceful" | "failover";

export interface Claim {
  readonly shard: number;
  readonly write: ClaimWrite;
  readonly handoff: HandoffKind;
}

export interface OwnershipPlan {
  readonly claims: readonly Claim[];
  /** Held shards to drain and release, within the budget of maxConcurrentReleases. */
  readonly releases: readonly number[];
  /** Decide again at this time (after nowMs) even if nothing changes: a clock in the decision runs out then. */
  readonly recheckAtMs: number;
  readonly membership: MembershipClock;
  /** Orphan clocks started (a time) or cleared (undefined) by this plan. */
  readonly orphanClocks: ReadonlyMap<number, number | undefined>;
}

type OwnerStatus = "alive" | "dead" | "suspect";

/** Memoised (ADR 0085): the member list changes rarely, the plan runs several times a second. */
const assignments = new DesiredAssignmentCache();

/** The decision's inputs that every shard shares. */
interface Round {
  readonly view: OwnershipView;
  readonly nowMs: number;
  readonly timings: PlanTimings;
  readonly stable: boolean;
  readonly desired: ReadonlyMap<number, string>;
  readonly responsive: ReadonlySet<string>;
  /** Candidate recheck times; the earliest one after nowMs wins. */
  readonly deadlines: number[];
}

export function planOwnership(view: OwnershipView, nowMs: number, timings: PlanTimings): OwnershipPlan {
  const { self } = view;
  const alive = aliveMembers(view.members);
  if (!self.leaving && !alive.includes(self.name)) alive.push(self.name);
  const key = alive.join(",");
  const membership = view.membership?.key === key ? view.membership : { key, sinceMs: nowMs };
  const stable = nowMs - membership.sinceMs >= timings.stableAfterMs;
  const deadlines: number[] = stable ? [] : [membership.sinceMs + timings.stableAfterMs];
  const desired = assignments.of(alive.filter((member) => !(self.leaving && member === self.name)));
  const responsive = new Set(alive.filter((member) => isResponsive(view, member, nowMs, deadlines)));
  const round: Round = { view, nowMs, timings, stable, desired, responsive, deadlines };

  const claims: Claim[] = [];
  const wanted: number[] = [];
  const orphanClocks = new Map<number, number | undefined>();
  for (const shard of ALL_SHARDS) {
    if (view.held.has(shard)) {
      if (!view.releasing.has(shard) && shouldRelease(round, shard)) wanted.push(shard);
      continue;
    }
    const claim = claimOf(round, shard, orphanClocks);
    if (claim) claims.push(claim);
  }
  const budget = Math.max(0, timings.maxConcurrentReleases - view.releasing.size);
  const future = deadlines.filter((atMs) => atMs > nowMs);
  // Nothing runs out: decide again after a stable period anyway (every KV change triggers a plan too).
  const recheckAtMs = future.length > 0 ? Math.min(...future) : nowMs + Math.max(1, timings.stableAfterMs);
  return { claims, releases: wanted.slice(0, budget), recheckAtMs, membership, orphanClocks };
}

/** Alive members, sorted: those whose record says "alive". */
export function aliveMembers(members: ReadonlyMap<string, { readonly record: Pick<MemberRecord, "state"> | undefined }>): string[] {
  const alive: string[] = [];
  for (const [name, facts] of members) if (facts.record?.state === "alive") alive.push(name);
  return alive.sort();
}

/**
 * Alive and renewing: its record changed within two of its retry periods on this member's clock. A member that
 * stopped renewing is not dead until its lease runs out, but it will not claim anything meanwhile either.
 */
function isResponsive(view: OwnershipView, member: string, nowMs: number, deadlines: number[]): boolean {
  if (member === view.self.name) return true;
  const facts = view.members.get(member);
  const record = facts?.record;
  if (record?.state !== "alive" || facts?.revisionSeenAtMs === undefined) return false;
  const quietAtMs = facts.revisionSeenAtMs + 2 * record.retryPeriodMs;
  if (nowMs >= quietAtMs) return false;
  deadlines.push(quietAtMs);
  return true;
}

/** A held shard goes when leaving, or once stable to a desired owner that is renewing (one gone quiet would not claim). */
function shouldRelease(round: Round, shard: number): boolean {
  const { view } = round;
  if (view.self.leaving) return true;
  const want = round.desired.get(shard);
  return round.stable && want !== undefined && want !== view.self.name && round.responsive.has(want);
}

function isOwnClaim(view: OwnershipView, record: ShardFacts["record"]): boolean {
  return record?.state === "owned" && record.owner === view.self.name && record.incarnation === view.self.incarnation;
}

/**
 * "dead": the owner's record says so (or it is an earlier incarnation of this member): claim now.
 * "suspect": its member record is missing or names another incarnation. The two KV watches are not ordered
 * with each other, so this may only be a record we have not seen yet: claim only after orphanClaimAfterMs.
 */
function ownerStatus(view: OwnershipView, record: NonNullable<ShardFacts["record"]>): OwnerStatus {
  if (record.owner === view.self.name) return record.incarnation === view.self.incarnation ? "alive" : "dead";
  const owner = view.members.get(record.owner)?.record;
  if (!owner || owner.incarnation !== record.incarnation) return "suspect";
  return owner.state === "dead" ? "dead" : "alive";
}

/** The claim of a shard this member does not hold, or undefined; starts or clears the shard's orphan clock. */
function claimOf(round: Round, shard: number, orphanClocks: Map<number, number | undefined>): Claim | undefined {
  const { view, nowMs, timings } = round;
  if (view.self.leaving) return undefined;
  const facts = view.shards.get(shard);
  const record = facts?.record;
  // A record of ours that says "released" is free like any other: we gave it away on purpose.
  const mine = isOwnClaim(view, record);
  const status: OwnerStatus = record && record.state === "owned" && !mine ? ownerStatus(view, record) : "dead";
  if (status === "alive") {
    if (facts?.orphanSinceMs !== undefined) orphanClocks.set(shard, undefined);
    return undefined;
  }
  let orphanSinceMs = facts?.orphanSinceMs;
  if (facts && orphanSinceMs === undefined) {
    orphanSinceMs = nowMs;
    orphanClocks.set(shard, nowMs);
  }
  const orphanLong = orphanSinceMs !== undefined && nowMs - orphanSinceMs >= timings.orphanClaimAfterMs;
  if (status === "suspect" && !orphanLong) {
    if (orphanSinceMs !== undefined) round.deadlines.push(orphanSinceMs + timings.orphanClaimAfterMs);
    return undefined;
  }
  // A desired owner that has gone quiet will not claim soon; anyone may, and gives it back once it renews again.
  const want = round.desired.get(shard);
  const desiredOwnerResponsive = want !== undefined && round.responsive.has(want);
  if (!(mine || want === view.self.name || orphanLong || !desiredOwnerResponsive)) return undefined;
  const givenUp = view.givenUp.get(shard);
  if (givenUp !== undefined && nowMs < givenUp.retryAtMs) {
    round.deadlines.push(givenUp.retryAtMs);
    return undefined;
  }
  return { shard, write: writeOf(view, facts, givenUp), handoff: !record ? "initial" : record.state === "released" ? "graceful" : "failover" };
}

function writeOf(view: OwnershipView, facts: ShardFacts | undefined, givenUp: GiveUp | undefined): ClaimWrite {
  // Still ours (after a lease lapse that nobody exploited), and not at an epoch we gave up: no write needed.
  if (facts && isOwnClaim(view, facts.record) && facts.revision > (givenUp?.epoch ?? 0)) return { kind: "keep", epoch: facts.revision };
  // A record of ours that says "released" is taken back by a write like anyone's claim: someone may have claimed it
  // after the revision we saw, and only the compare-and-set can tell.
  return facts ? { kind: "update", revision: facts.revision } : { kind: "create" };
}
