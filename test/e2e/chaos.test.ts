// SIGKILL each service in the middle of a scale-up or a rollout, let the stack restart it,
// and check the same converged state with no duplicate or lost pod or claim (successful creates per name in the
// simulator's audit log). Sequential: each kill should hit one scenario in flight.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack, waitFor } from "../support/stack.ts";
import {
  auditMark,
  createSet,
  creates,
  deletes,
  getPod,
  IMAGE_B,
  listClaims,
  names,
  patchSet,
  podNames,
  range,
  revisionOf,
  since,
  SIM_START_DELAY,
  uniqueNames,
  waitForConverged,
} from "./helpers.ts";

const t = await useStack();
const { kube, audit } = t;

/** Every pod and claim of the set exists once, was created once, and none was deleted by stsfleet. */
async function assertNothingDuplicatedOrLost(ns: string, set: string, replicas: number): Promise<void> {
  const expectedPods = podNames(set, range(0, replicas - 1));
  assert.deepEqual(uniqueNames(creates(audit, ns, "pods"), "pod creates").sort(), [...expectedPods].sort());
  assert.deepEqual(
    uniqueNames(creates(audit, ns, "persistentvolumeclaims"), "claim creates").sort(),
    expectedPods.map((p) => `data-${p}`).sort(),
  );
  assert.deepEqual(deletes(audit, ns, "pods"), [], "no pod was deleted during a scale-up");
  assert.deepEqual(names(await listClaims(kube, ns)), expectedPods.map((p) => `data-${p}`));
}

describe("SIGKILL of each service mid-flight, then convergence without duplicates", () => {
  for (const service of ["watcher", "pvc-provisioner", "status-writer"] as const) {
    it(`${service}: killed during an OrderedReady scale-up, restarted, the set converges with each pod and claim created once`, async () => {
      const ns = `e2e-kill-${service}`;
      await t.createNamespace(ns);
      await createSet(kube, ns, "web", { replicas: 2, annotations: { [SIM_START_DELAY]: "250" } });
      await waitForConverged(kube, ns, "web", 2);
      await patchSet(kube, ns, "web", { spec: { replicas: 5 } });
      await waitFor("web-2 to be created", () => getPod(kube, ns, "web-2"));
      const { oldPid, newPid } = await t.killService(service);
      assert.notEqual(oldPid, newPid);
      assert.ok((t.stack.service(service).restarts ?? 0) >= 1);
      await waitForConverged(kube, ns, "web", 5, 90_000);
      await assertNothingDuplicatedOrLost(ns, "web", 5);
      const entry = t.stack.snapshot().processes.find((p) => p.name === service);
      assert.equal(entry?.pid, newPid, "stack.json names the restarted process");
    });
  }

  it("actor: killed during a rolling update, restarted, the rollout finishes with each pod replaced exactly once", async () => {
    const ns = "e2e-kill-actor";
    await t.createNamespace(ns);
    await createSet(kube, ns, "web", { replicas: 5, annotations: { [SIM_START_DELAY]: "250" } });
    const { set } = await waitForConverged(kube, ns, "web", 5);
    const rev1 = set.status?.updateRevision;
    const mark = auditMark(audit);
    await kube.patch(
      { ...RESOURCES.statefulsets, namespace: ns, name: "web" },
      { spec: { template: { spec: { containers: [{ name: "app", image: IMAGE_B }] } } } },
      "strategic",
    );
    await waitFor("web-4 to be replaced", async () => {
      const pod = await getPod(kube, ns, "web-4");
      return pod && revisionOf(pod) !== rev1 ? pod : undefined;
    });
    await t.killService("actor-0");
    const { pods } = await waitForConverged(kube, ns, "web", 5, 90_000);
    assert.ok(pods.every((p) => p.spec.containers[0]?.image === IMAGE_B));

    const replaced = podNames("web", [4, 3, 2, 1, 0]);
    assert.deepEqual(uniqueNames(since(mark, deletes(audit, ns, "pods")), "pod deletes"), replaced, "each pod deleted once, highest first");
    assert.deepEqual(uniqueNames(since(mark, creates(audit, ns, "pods")), "pod creates"), replaced, "each pod recreated once, highest first");
    assert.equal(uniqueNames(creates(audit, ns, "persistentvolumeclaims"), "claim creates").length, 5, "claims are reused, never recreated");
    assert.equal(uniqueNames(creates(audit, ns, "controllerrevisions"), "revision creates").length, 2);
  });
});
