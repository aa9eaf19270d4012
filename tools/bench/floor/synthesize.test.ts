import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newStatefulSet } from "../../../services/actor/src/planner/testing/builders.ts";
import { synthesize } from "./synthesize.ts";

describe("floor synthesize", () => {
  for (const policy of ["Parallel", "OrderedReady"] as const) {
    it(`yields every pod and its claims, and the converged status, for ${policy}`, () => {
      const set = newStatefulSet({ name: "web", replicas: 3, podManagementPolicy: policy });
      set.metadata = { ...set.metadata, uid: "uid-1", generation: 4, resourceVersion: "9" };
      const bodies = synthesize(set, Date.parse("2026-11-29T00:00:00Z"));
      assert.deepEqual([...bodies.pods.keys()].sort(), [0, 1, 2]);
      for (const [ordinal, { claims, pod }] of bodies.pods) {
        assert.equal(pod.metadata?.name, `web-${ordinal}`);
        assert.equal(pod.metadata?.labels?.["controller-revision-hash"], bodies.revision);
        assert.equal(pod.metadata?.ownerReferences?.[0]?.uid, "uid-1");
        assert.deepEqual(
          claims.map((c) => c.metadata?.name),
          [`data-web-${ordinal}`],
        );
      }
      assert.deepEqual(
        { ...bodies.status, conditions: undefined },
        {
          observedGeneration: 4,
          replicas: 3,
          readyReplicas: 3,
          currentReplicas: 3,
          updatedReplicas: 3,
          availableReplicas: 3,
          currentRevision: bodies.revision,
          updateRevision: bodies.revision,
          collisionCount: 0,
          conditions: undefined,
        },
      );
    });
  }

  it("a set without claim templates gets pods only", () => {
    const set = newStatefulSet({ name: "bare", replicas: 2, claimTemplates: [], podManagementPolicy: "Parallel" });
    set.metadata = { ...set.metadata, uid: "u", generation: 1 };
    const bodies = synthesize(set, 0);
    assert.deepEqual([...bodies.pods.values()].map((entry) => entry.claims.length), [0, 0]);
  });
});
