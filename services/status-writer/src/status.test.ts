import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SAMPLE_MESSAGES } from "#protocol";
import { mergeStatus, sameStatus } from "./status.ts";

const wanted = SAMPLE_MESSAGES["status.write"].status;

describe("status comparison", () => {
  it("treats the fields the API server omits when zero or empty as equal", () => {
    const stored = { observedGeneration: 1, replicas: 0, availableReplicas: 0, collisionCount: 0 };
    const zero = { ...wanted, observedGeneration: 1, replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0, currentRevision: "", updateRevision: "", collisionCount: 0 };
    assert.ok(sameStatus(stored, mergeStatus(stored, zero)));
    assert.ok(!sameStatus(stored, mergeStatus(stored, { ...zero, readyReplicas: 1 })));
  });

  it("keeps stored fields it does not know and stored conditions when the write has none", () => {
    const stored = { observedGeneration: 2, futureField: "x", conditions: [{ type: "A", status: "True" }] };
    const merged = mergeStatus(stored, wanted);
    assert.equal(merged["futureField"], "x");
    assert.deepEqual(merged["conditions"], stored.conditions);
    assert.deepEqual(mergeStatus(stored, { ...wanted, conditions: [] })["conditions"], []);
  });

  it("ignores key order and compares conditions", () => {
    const a = { replicas: 3, observedGeneration: 1, conditions: [{ status: "True", type: "A" }] };
    const b = { observedGeneration: 1, replicas: 3, conditions: [{ type: "A", status: "True" }] };
    assert.ok(sameStatus(a, b));
    assert.ok(!sameStatus(a, { ...b, conditions: [{ type: "A", status: "False" }] }));
  });
});
