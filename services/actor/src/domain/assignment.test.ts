import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { DesiredAssignmentCache, desiredAssignment } from "./assignment.ts";

function loads(assignment: Map<number, string>): Map<string, number> {
  const result = new Map<string, number>();
  for (const member of assignment.values()) result.set(member, (result.get(member) ?? 0) + 1);
  return result;
}

const memberNames = fc.uniqueArray(fc.stringMatching(/^actor-[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 8 });

describe("desiredAssignment (rendezvous hashing with a load cap)", () => {
  it("assigns every shard, identically for any member order, within the cap", () => {
    fc.assert(
      fc.property(memberNames, (members) => {
        const a = desiredAssignment(members);
        const b = desiredAssignment([...members].reverse());
        assert.equal(a.size, 256);
        assert.deepEqual([...a], [...b]);
        const cap = Math.ceil((1.15 * 256) / members.length);
        for (const load of loads(a).values()) assert.ok(load <= cap, `load ${load} > cap ${cap}`);
      }),
      { numRuns: 100 },
    );
  });

  it("moves about P/N shards when a member joins, and only to the new member", () => {
    fc.assert(
      fc.property(memberNames, fc.stringMatching(/^new-[a-z0-9]{1,8}$/), (members, joiner) => {
        const before = desiredAssignment(members);
        const after = desiredAssignment([...members, joiner]);
        let moved = 0;
        let movedElsewhere = 0;
        for (const [shard, owner] of before) {
          const next = after.get(shard);
          if (next === owner) continue;
          moved++;
          if (next !== joiner) movedElsewhere++;
        }
        const fair = 256 / (members.length + 1);
        assert.ok(moved <= fair * 1.6 + 8, `moved ${moved}, fair share ${fair.toFixed(1)}`);
        // The cap can push a few shards between old members; it must stay a minority of the moves. Measured over
        // 3,000 random fleets of 1-8 members: at most 11 shards and a third of the moves; the worst fleet fast-check
        // has found (below) moves 11 of 31.
        assert.ok(movedElsewhere <= Math.max(12, moved * 0.4), `moved ${movedElsewhere} of ${moved} between old members`);
      }),
      { numRuns: 60, examples: [[["actor-2", "actor-a", "actor-03", "actor-0f", "actor-344l", "actor-e", "actor-95"], "new-m7e8g9"]] },
    );
  });

  it("is empty without members and gives everything to a single member", () => {
    assert.equal(desiredAssignment([]).size, 0);
    assert.deepEqual([...loads(desiredAssignment(["solo"]))], [["solo", 256]]);
  });

  it("the cache answers what desiredAssignment answers, recomputing only when the member set changes", () => {
    const cache = new DesiredAssignmentCache();
    const first = cache.of(["b", "a"]);
    assert.deepEqual([...first], [...desiredAssignment(["a", "b"])]);
    assert.equal(cache.of(["a", "b", "a"]), first, "same members in another order and with repeats: the same map");
    const grown = cache.of(["a", "b", "c"]);
    assert.notEqual(grown, first);
    assert.deepEqual([...grown], [...desiredAssignment(["c", "b", "a"])]);
    assert.equal(cache.of([]).size, 0);
  });
});
