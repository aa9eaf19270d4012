// planOwnership: a scenario table (members, shard records, now -> claims and releases), properties of every plan,
// and a fleet of members planning over one simulated bucket that ends with each shard held by its desired owner.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { ALL_SHARDS } from "#protocol";
import { desiredAssignment } from "./assignment.ts";
import type { GiveUp } from "./give-up-backoff.ts";
import { planOwnership } from "./ownership-plan.ts";
import type { Claim, MemberFacts, MembershipClock, OwnershipView, PlanTimings, ShardFacts } from "./ownership-plan.ts";

const TIMINGS: PlanTimings = { stableAfterMs: 3_000, orphanClaimAfterMs: 5_000, maxConcurrentReleases: 32 };
const NOW = 100_000;
const RETRY_MS = 200;

function alive(name: string, seenAtMs = NOW - 10): [string, MemberFacts] {
  return [name, { record: { incarnation: `${name}-1`, state: "alive", retryPeriodMs: RETRY_MS }, revisionSeenAtMs: seenAtMs }];
}
function dead(name: string): [string, MemberFacts] {
  return [name, { record: { incarnation: `${name}-1`, state: "dead", retryPeriodMs: RETRY_MS }, revisionSeenAtMs: undefined }];
}
function owned(owner: string, revision: number, incarnation = `${owner}-1`): ShardFacts {
  return { record: { owner, incarnation, state: "owned" }, revision, orphanSinceMs: undefined };
}
function released(owner: string, revision: number): ShardFacts {
  return { record: { owner, incarnation: `${owner}-1`, state: "released" }, revision, orphanSinceMs: undefined };
}

interface ViewInput {
  members?: [string, MemberFacts][];
  shards?: [number, ShardFacts][];
  held?: [number, number][];
  releasing?: number[];
  givenUp?: [number, GiveUp][];
  leaving?: boolean;
  /** Membership unchanged since this time; default: long stable. */
  stableSinceMs?: number;
}

/** Member "a"'s view; the membership clock is keyed by the alive list it would compute itself. */
function view(input: ViewInput): OwnershipView {
  const members = new Map(input.members ?? [alive("a")]);
  const key = [...members].filter(([, facts]) => facts.record?.state === "alive").map(([name]) => name).sort();
  if (!input.leaving && !key.includes("a")) key.push("a");
  const membership: MembershipClock = { key: key.join(","), sinceMs: input.stableSinceMs ?? 0 };
  return {
    self: { name: "a", incarnation: "a-1", leaving: input.leaving ?? false },
    members,
    shards: new Map(input.shards ?? []),
    held: new Map(input.held ?? []),
    releasing: new Set(input.releasing ?? []),
    givenUp: new Map(input.givenUp ?? []),
    membership,
  };
}

const AB = desiredAssignment(["a", "b"]);
const ownedByA = ALL_SHARDS.filter((shard) => AB.get(shard) === "a");
const ownedByB = ALL_SHARDS.filter((shard) => AB.get(shard) === "b");
const mineS = ownedByA[0] ?? 0;
const theirsS = ownedByB[0] ?? 1;

interface Row {
  name: string;
  view: ViewInput;
  nowMs?: number;
  /** Claims of these shards, exactly. */
  claims?: Record<number, Claim["write"]["kind"] | "none">;
  releases?: number[];
  /** Total number of claims, when the row checks it. */
  claimCount?: number;
  recheckAtMs?: number;
}

const ROWS: Row[] = [
  { name: "alone with an empty bucket: claims every shard by create", view: {}, claims: { 0: "create", 255: "create" }, claimCount: 256 },
  {
    name: "a live peer's shard is never claimed, even one desired here",
    view: { members: [alive("a"), alive("b")], shards: [[mineS, owned("b", 7)]] },
    claims: { [mineS]: "none" },
  },
  {
    name: "a dead member's shard is claimed at once over its revision",
    view: { members: [alive("a"), dead("b")], shards: [[theirsS, owned("b", 7)]] },
    claims: { [theirsS]: "update" },
  },
  {
    name: "a shard of an unknown member waits for the orphan rule, and the plan comes back when it runs out",
    view: { members: [alive("a")], shards: [[3, owned("ghost", 9)]] },
    claims: { 3: "none" },
    recheckAtMs: NOW + TIMINGS.orphanClaimAfterMs,
  },
  {
    name: "a shard of an unknown member orphaned long enough is claimed",
    view: { members: [alive("a")], shards: [[3, { ...owned("ghost", 9), orphanSinceMs: NOW - TIMINGS.orphanClaimAfterMs }]] },
    claims: { 3: "update" },
  },
  {
    name: "a released shard is claimed by its desired owner only",
    view: { members: [alive("a"), alive("b")], shards: [[mineS, released("b", 4)], [theirsS, released("b", 5)]] },
    claims: { [mineS]: "update", [theirsS]: "none" },
  },
  {
    name: "a shard desired by a peer gone quiet is claimed by anyone",
    view: { members: [alive("a"), alive("b", NOW - 3 * RETRY_MS)], shards: [[theirsS, released("b", 5)]] },
    claims: { [theirsS]: "update" },
  },
  {
    name: "a held shard goes to its desired, renewing owner once membership is stable",
    view: { members: [alive("a"), alive("b")], held: [[theirsS, 3], [mineS, 4]] },
    releases: [theirsS],
  },
  {
    name: "nothing moves between live members before membership is stable",
    view: { members: [alive("a"), alive("b", NOW)], held: [[theirsS, 3]], stableSinceMs: NOW - 2_900 },
    releases: [],
    recheckAtMs: NOW + 100,
  },
  {
    name: "nothing is released to a member that has gone quiet",
    view: { members: [alive("a"), alive("b", NOW - 3 * RETRY_MS)], held: [[theirsS, 3]] },
    releases: [],
  },
  {
    name: "a leaving member releases what it holds (not what it is releasing already) and claims nothing",
    view: { leaving: true, held: [[1, 3], [2, 4]], releasing: [2] },
    releases: [1],
    claimCount: 0,
  },
  {
    name: "a record of ours that nobody took is kept at its revision without a write",
    view: { shards: [[8, owned("a", 12)]] },
    claims: { 8: "keep" },
  },
  {
    name: "a record of ours at an epoch given up is written again",
    view: { shards: [[8, owned("a", 12)]], givenUp: [[8, { epoch: 12, count: 1, retryAtMs: NOW }]] },
    claims: { 8: "update" },
  },
  {
    name: "a shard given up repeatedly waits for its retry time, and the plan comes back then",
    view: { shards: [[8, owned("a", 12)]], givenUp: [[8, { epoch: 12, count: 3, retryAtMs: NOW + 700 }]] },
    claims: { 8: "none" },
    recheckAtMs: NOW + 700,
  },
  {
    name: "a shard of an earlier incarnation of this member is taken over as a dead member's",
    view: { shards: [[9, owned("a", 20, "a-0")]] },
    claims: { 9: "update" },
  },
];

describe("planOwnership: scenarios", () => {
  for (const row of ROWS) {
    it(row.name, () => {
      const plan = planOwnership(view(row.view), row.nowMs ?? NOW, TIMINGS);
      const byShard = new Map(plan.claims.map((claim) => [claim.shard, claim.write.kind]));
      for (const [shard, kind] of Object.entries(row.claims ?? {})) {
        assert.equal(byShard.get(Number(shard)) ?? "none", kind, `shard ${shard}`);
      }
      if (row.releases) assert.deepEqual([...plan.releases].sort((x, y) => x - y), row.releases);
      if (row.claimCount !== undefined) assert.equal(plan.claims.length, row.claimCount);
      if (row.recheckAtMs !== undefined) assert.equal(plan.recheckAtMs, row.recheckAtMs);
      assertInvariants(view(row.view), row.nowMs ?? NOW, plan);
    });
  }
});

/** What must hold of any plan, whatever the view. */
function assertInvariants(input: OwnershipView, nowMs: number, plan: ReturnType<typeof planOwnership>): void {
  assert.ok(plan.recheckAtMs > nowMs, "recheckAtMs is in the future");
  const claimed = new Set(plan.claims.map((claim) => claim.shard));
  assert.equal(claimed.size, plan.claims.length, "each shard claimed once");
  for (const shard of claimed) {
    assert.ok(!input.held.has(shard), `claims only what it does not hold (${shard})`);
    const record = input.shards.get(shard)?.record;
    const owner = record && record.owner !== input.self.name ? input.members.get(record.owner)?.record : undefined;
    const liveOther = record?.state === "owned" && owner?.state === "alive" && owner.incarnation === record.incarnation;
    assert.ok(!liveOther, `never claims a live member's shard (${shard})`);
    const givenUp = input.givenUp.get(shard);
    assert.ok(givenUp === undefined || givenUp.retryAtMs <= nowMs, `waits out a give-up's retry time (${shard})`);
  }
  for (const shard of plan.releases) assert.ok(input.held.has(shard) && !input.releasing.has(shard), `releases only what it holds (${shard})`);
  assert.ok(plan.releases.length <= Math.max(0, TIMINGS.maxConcurrentReleases - input.releasing.size), "within the release budget");
  if (input.self.leaving) assert.equal(plan.claims.length, 0, "a leaving member claims nothing");
}

const NAMES = ["a", "b", "c", "d"] as const;
const memberFacts: fc.Arbitrary<MemberFacts> = fc.record({
  record: fc.option(
    fc.record({ incarnation: fc.constantFrom("1", "2"), state: fc.constantFrom("alive", "leaving", "dead"), retryPeriodMs: fc.constant(RETRY_MS) }),
    { nil: undefined },
  ),
  revisionSeenAtMs: fc.option(fc.integer({ min: NOW - 2_000, max: NOW }), { nil: undefined }),
});
const shardFacts: fc.Arbitrary<ShardFacts> = fc.record({
  record: fc.option(fc.record({ owner: fc.constantFrom(...NAMES, "ghost"), incarnation: fc.constantFrom("1", "2"), state: fc.constantFrom("owned", "released") }), {
    nil: undefined,
  }),
  revision: fc.integer({ min: 1, max: 1_000 }),
  orphanSinceMs: fc.option(fc.integer({ min: NOW - 10_000, max: NOW }), { nil: undefined }),
});
const shardNumber = fc.integer({ min: 0, max: 255 });
const anyView: fc.Arbitrary<OwnershipView> = fc
  .record({
    members: fc.dictionary(fc.constantFrom(...NAMES), memberFacts),
    shards: fc.array(fc.tuple(shardNumber, shardFacts), { maxLength: 40 }),
    held: fc.array(fc.tuple(shardNumber, fc.integer({ min: 1, max: 1_000 })), { maxLength: 40 }),
    releasing: fc.array(shardNumber, { maxLength: 40 }),
    givenUp: fc.array(fc.tuple(shardNumber, fc.record({ epoch: fc.nat(1_000), count: fc.integer({ min: 1, max: 5 }), retryAtMs: fc.integer({ min: NOW - 1_000, max: NOW + 1_000 }) })), {
      maxLength: 10,
    }),
    leaving: fc.boolean(),
    sinceMs: fc.integer({ min: NOW - 5_000, max: NOW }),
  })
  .map((input) => {
    const held = new Map(input.held);
    return {
      self: { name: "a", incarnation: "1", leaving: input.leaving },
      members: new Map(Object.entries(input.members)),
      shards: new Map(input.shards),
      held,
      releasing: new Set(input.releasing.filter((shard) => held.has(shard))),
      givenUp: new Map(input.givenUp),
      membership: { key: "a", sinceMs: input.sinceMs },
    };
  });

describe("planOwnership: properties", () => {
  it("every plan keeps the invariants", () => {
    fc.assert(fc.property(anyView, (input) => assertInvariants(input, NOW, planOwnership(input, NOW, TIMINGS))), { numRuns: 300 });
  });

  it("members planning over one bucket end with every shard held once, by its desired live owner", () => {
    const start = fc.array(fc.tuple(shardNumber, fc.constantFrom("a", "b", "c", "d", "x"), fc.constantFrom<"owned" | "released">("owned", "released")), {
      maxLength: 60,
    });
    fc.assert(fc.property(fc.integer({ min: 1, max: 4 }), start, (size, records) => simulateFleet(NAMES.slice(0, size), records)), { numRuns: 15 });
  });
});

interface SimMember {
  readonly name: string;
  readonly held: Map<number, number>;
  readonly orphanSinceMs: Map<number, number>;
  membership: MembershipClock | undefined;
}

/**
 * Live members `names` and a dead member `x` over one bucket, each member planning in turn every 100 ms and applying
 * its plan by compare-and-set (drains take no time). At every step no shard has two holders; at the end each shard
 * is held by its desired owner among the live members, at the revision of its record.
 */
function simulateFleet(names: readonly string[], initial: readonly [number, string, "owned" | "released"][]): void {
  let revision = 0;
  const bucket = new Map<number, { record: NonNullable<ShardFacts["record"]>; revision: number }>();
  for (const [shard, owner, state] of initial) bucket.set(shard, { record: { owner, incarnation: `${owner}-1`, state }, revision: ++revision });
  const members: SimMember[] = names.map((name) => ({ name, held: new Map(), orphanSinceMs: new Map(), membership: undefined }));
  for (const m of members) for (const [shard, entry] of bucket) if (entry.record.owner === m.name && entry.record.state === "owned") m.held.set(shard, entry.revision);
  const timings: PlanTimings = { stableAfterMs: 300, orphanClaimAfterMs: 1_000, maxConcurrentReleases: 32 };
  for (let nowMs = 0; nowMs <= 6_000; nowMs += 100) {
    const memberFactsNow = new Map<string, MemberFacts>([
      ...names.map((name): [string, MemberFacts] => [name, { record: { incarnation: `${name}-1`, state: "alive", retryPeriodMs: RETRY_MS }, revisionSeenAtMs: nowMs }]),
      ["x", { record: { incarnation: "x-1", state: "dead", retryPeriodMs: RETRY_MS }, revisionSeenAtMs: undefined }],
    ]);
    for (const m of members) {
      const shards = new Map<number, ShardFacts>();
      for (const [shard, entry] of bucket) shards.set(shard, { ...entry, orphanSinceMs: m.orphanSinceMs.get(shard) });
      const input: OwnershipView = {
        self: { name: m.name, incarnation: `${m.name}-1`, leaving: false },
        members: memberFactsNow,
        shards,
        held: m.held,
        releasing: new Set(),
        givenUp: new Map(),
        membership: m.membership,
      };
      const plan = planOwnership(input, nowMs, timings);
      assertInvariants(input, nowMs, plan);
      m.membership = plan.membership;
      for (const [shard, since] of plan.orphanClocks) {
        if (since === undefined) m.orphanSinceMs.delete(shard);
        else m.orphanSinceMs.set(shard, since);
      }
      for (const claim of plan.claims) {
        const current = bucket.get(claim.shard);
        const record = { owner: m.name, incarnation: `${m.name}-1`, state: "owned" as const };
        if (claim.write.kind === "keep") m.held.set(claim.shard, claim.write.epoch);
        else if (claim.write.kind === "create" ? current === undefined : current?.revision === claim.write.revision) {
          bucket.set(claim.shard, { record, revision: ++revision });
          m.held.set(claim.shard, revision);
          m.orphanSinceMs.delete(claim.shard);
        }
      }
      for (const shard of plan.releases) {
        const epoch = m.held.get(shard);
        m.held.delete(shard);
        if (bucket.get(shard)?.revision === epoch) bucket.set(shard, { record: { owner: m.name, incarnation: `${m.name}-1`, state: "released" }, revision: ++revision });
      }
      const holders = new Map<number, number>();
      for (const other of members) for (const shard of other.held.keys()) holders.set(shard, (holders.get(shard) ?? 0) + 1);
      assert.ok([...holders.values()].every((n) => n === 1), `no shard has two holders at ${nowMs} ms`);
    }
  }
  const desired = desiredAssignment(names);
  for (const shard of ALL_SHARDS) {
    const holders = members.filter((m) => m.held.has(shard));
    assert.deepEqual(holders.map((m) => m.name), [desired.get(shard)], `shard ${shard} held by its desired owner`);
    assert.equal(holders[0]?.held.get(shard), bucket.get(shard)?.revision, `shard ${shard} held at its record's revision`);
  }
}
