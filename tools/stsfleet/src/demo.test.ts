import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { demoStatefulSet, INITIAL_PROGRESS, progressLines } from "./demo.ts";
import type { DemoObservation } from "./demo.ts";

function pod(name: string, ready: boolean) {
  return {
    metadata: { name },
    status: { phase: ready ? "Running" : "Pending", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}
const bound = (name: string) => ({ metadata: { name }, status: { phase: "Bound" } });

describe("demo", () => {
  it("is a 3-replica OrderedReady set web with a data claim template in default, served by a headless Service", () => {
    const set = demoStatefulSet() as { metadata: { name: string; namespace: string }; spec: Record<string, unknown> };
    assert.equal(set.metadata.name, "web");
    assert.equal(set.metadata.namespace, "default");
    assert.equal(set.spec["replicas"], 3);
    assert.equal(set.spec["podManagementPolicy"], "OrderedReady");
    assert.equal(set.spec["serviceName"], "web");
    assert.deepEqual((set.spec["volumeClaimTemplates"] as { metadata: { name: string } }[]).map((t) => t.metadata.name), ["data"]);
  });

  it("prints each pod's creation and first Ready in ordinal order, then one summary", () => {
    const steps: DemoObservation[] = [
      { pods: [pod("web-0", false)], claims: [] },
      { pods: [pod("web-0", true)], claims: [bound("data-web-0")] },
      { pods: [pod("web-1", true), pod("web-0", true), pod("web-2", true)], claims: ["data-web-0", "data-web-1", "data-web-2"].map(bound) },
      { pods: [pod("web-0", true), pod("web-1", true), pod("web-2", true)], claims: ["data-web-0", "data-web-1", "data-web-2"].map(bound) },
    ];
    let progress = INITIAL_PROGRESS;
    const out: string[] = [];
    for (const [i, observation] of steps.entries()) {
      const next = progressLines(progress, observation, 1_000 * (i + 1));
      out.push(...next.lines);
      progress = next.progress;
    }
    assert.deepEqual(out, [
      "  web-0 created (Pending)",
      "  web-0 Running/Ready (1/3)",
      "  web-1 Running/Ready (2/3)",
      "  web-2 Running/Ready (3/3)",
      "demo: statefulset/web is ready: 3/3 pods Running/Ready, 3 claims Bound (3.0 s)",
    ]);
    assert.equal(progress.done, true);
  });

  it("is not done while a claim is unbound or a pod is terminating", () => {
    const pods = [pod("web-0", true), pod("web-1", true), { ...pod("web-2", true), metadata: { name: "web-2", deletionTimestamp: "x" } }];
    const claims = ["data-web-0", "data-web-1", "data-web-2"].map(bound);
    assert.equal(progressLines(INITIAL_PROGRESS, { pods, claims }, 0).progress.done, false);
    const readyPods = [pod("web-0", true), pod("web-1", true), pod("web-2", true)];
    const pending = [...claims.slice(0, 2), { metadata: { name: "data-web-2" }, status: { phase: "Pending" } }];
    assert.equal(progressLines(INITIAL_PROGRESS, { pods: readyPods, claims: pending }, 0).progress.done, false);
  });

  it("is not done until the StatefulSet's status shows every replica ready at its generation (what kubectl get sts shows)", () => {
    const pods = [pod("web-0", true), pod("web-1", true), pod("web-2", true)];
    const claims = ["data-web-0", "data-web-1", "data-web-2"].map(bound);
    const lagging = { metadata: { generation: 1 }, status: { observedGeneration: 1, readyReplicas: 2 } };
    const stale = { metadata: { generation: 2 }, status: { observedGeneration: 1, readyReplicas: 3 } };
    const current = { metadata: { generation: 2 }, status: { observedGeneration: 2, readyReplicas: 3 } };
    assert.equal(progressLines(INITIAL_PROGRESS, { pods, claims, set: lagging }, 0).progress.done, false);
    assert.equal(progressLines(INITIAL_PROGRESS, { pods, claims, set: stale }, 0).progress.done, false);
    assert.equal(progressLines(INITIAL_PROGRESS, { pods, claims, set: current }, 0).progress.done, true);
  });
});
