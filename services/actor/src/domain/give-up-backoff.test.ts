// recordGiveUp: immediate first re-claim, exponential backoff with a cap, the reset; and the plan waiting it out.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_GIVE_UP_TIMINGS, recordGiveUp } from "./give-up-backoff.ts";
import type { GiveUp } from "./give-up-backoff.ts";
import { planOwnership } from "./ownership-plan.ts";

const timings = { backoff: { initialDelayMs: 100, maxDelayMs: 1_000 }, resetAfterMs: 10_000 };
const noJitter = () => 1;

describe("recordGiveUp", () => {
  it("claims again at once after one give-up, then backs off exponentially up to the cap", () => {
    let record: GiveUp | undefined;
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const nowMs = 1_000 * i;
      record = recordGiveUp(record, { epoch: i, nowMs, heldSinceMs: nowMs - 50 }, timings, noJitter);
      delays.push(record.retryAtMs - nowMs);
    }
    assert.deepEqual(delays, [0, 100, 200, 400, 800, 1_000, 1_000]);
    assert.equal(record?.count, 7);
  });

  it("starts the count over once the shard was held for resetAfterMs before it was given up", () => {
    const repeated = recordGiveUp({ epoch: 3, count: 5, retryAtMs: 19_000 }, { epoch: 4, nowMs: 20_000, heldSinceMs: 20_000 - 9_999 }, timings, noJitter);
    assert.equal(repeated.count, 6);
    const served = recordGiveUp({ epoch: 3, count: 5, retryAtMs: 19_000 }, { epoch: 4, nowMs: 20_000, heldSinceMs: 10_000 }, timings, noJitter);
    assert.deepEqual(served, { epoch: 4, count: 1, retryAtMs: 20_000 });
    const longAgo = recordGiveUp({ epoch: 3, count: 5, retryAtMs: 5_000 }, { epoch: 4, nowMs: 15_000, heldSinceMs: 14_990 }, timings, noJitter);
    assert.equal(longAgo.count, 1, "the last give-up is resetAfterMs ago");
  });

  it("keeps a feed that never opens from re-claiming in a tight loop: few claims in a minute", () => {
    // Each re-claim is given up 10 ms after it is held, as a shard whose feed cannot be opened is.
    let record: GiveUp | undefined;
    let claims = 0;
    for (let nowMs = 0; nowMs < 60_000; nowMs += 10) {
      const plan = planOwnership(
        {
          self: { name: "a", incarnation: "a-1", leaving: false },
          members: new Map(),
          shards: new Map([[5, { record: { owner: "a", incarnation: "a-1", state: "owned" }, revision: 100 + claims, orphanSinceMs: undefined }]]),
          held: new Map(),
          releasing: new Set(),
          givenUp: new Map(record ? [[5, record]] : []),
          membership: { key: "a", sinceMs: 0 },
        },
        nowMs,
        { stableAfterMs: 3_000, orphanClaimAfterMs: 5_000, maxConcurrentReleases: 32 },
      );
      if (!plan.claims.some((claim) => claim.shard === 5)) continue;
      claims++;
      record = recordGiveUp(record, { epoch: 100 + claims, nowMs: nowMs + 10, heldSinceMs: nowMs }, DEFAULT_GIVE_UP_TIMINGS, () => 0.5);
    }
    assert.ok(claims < 20, `${claims} claims in a minute (without backoff: one every 10 ms)`);
  });
});
