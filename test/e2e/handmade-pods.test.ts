// Bad input (docs/RELIABILITY.md): pods created by hand with the names a set wants. Upstream's controller adopts an orphan
// pod its selector matches (ClaimPods; then replaces it if it is not at the update revision). For a pod of the
// wanted name its selector does not match, its create keeps failing with AlreadyExists, which CreateStatefulPod
// returns without an Event ("sink already exists errors"), and the set is retried with back-off until someone
// removes the pod; then it creates its own. Neither may wedge the set or any other.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack } from "../support/stack.ts";
import { IMAGE_A, createSet, getSet, listEvents, listPods, waitForConverged } from "./helpers.ts";
import type { Pod } from "./helpers.ts";

const t = await useStack();
const CONVERGE_MS = 30_000;

function handmadePod(namespace: string, name: string, labels: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "app", image: IMAGE_A }] },
  };
}

describe("pods made by hand with the names a set wants", () => {
  it("an orphan with matching labels is adopted; the set converges and owns every pod", async () => {
    const ns = "e2e-handmade-adopt";
    await t.createNamespace(ns);
    await t.kube.create({ ...RESOURCES.pods, namespace: ns }, handmadePod(ns, "web-0", { app: "web" }));
    await createSet(t.kube, ns, "web", { replicas: 2, claims: false });
    const { set, pods } = await waitForConverged(t.kube, ns, "web", 2, CONVERGE_MS);
    for (const pod of pods) {
      const controller = (pod.metadata as { ownerReferences?: { uid: string; controller?: boolean }[] }).ownerReferences?.find((ref) => ref.controller === true);
      assert.equal(controller?.uid, set.metadata.uid, `${pod.metadata.name ?? ""} is owned by the set`);
    }
  });

  it("a pod of the wanted name the selector does not match: the set waits (no Event), and converges once it is removed", async () => {
    const ns = "e2e-handmade-foreign";
    await t.createNamespace(ns);
    await t.kube.create({ ...RESOURCES.pods, namespace: ns }, handmadePod(ns, "db-0", { app: "someone-else" }));
    await createSet(t.kube, ns, "db", { replicas: 2, claims: false });
    await createSet(t.kube, ns, "next", { replicas: 1, claims: false });
    // The other set in the namespace is not held up by it.
    await waitForConverged(t.kube, ns, "next", 1, CONVERGE_MS);
    const stuck = await getSet(t.kube, ns, "db");
    assert.equal(stuck.status?.readyReplicas ?? 0, 0, "OrderedReady waits for db-0");
    const owned = (await listPods(t.kube, ns, "db")).length;
    assert.equal(owned, 0, "no pod of the set exists while db-0 is someone else's");
    const failedCreates = (await listEvents(t.kube, ns)).filter((e) => e.reason === "FailedCreate" && e.involvedObject.name === "db");
    assert.deepEqual(failedCreates, [], "AlreadyExists is no Event, as upstream");

    await t.kube.delete({ ...RESOURCES.pods, namespace: ns, name: "db-0" });
    const { pods } = await waitForConverged(t.kube, ns, "db", 2, CONVERGE_MS);
    assert.deepEqual(pods.map((p: Pod) => p.metadata.name), ["db-0", "db-1"]);
    const leftover = (await listPods(t.kube, ns, "someone-else")).length;
    assert.equal(leftover, 0, "the hand-made pod stays deleted");
  });
});
