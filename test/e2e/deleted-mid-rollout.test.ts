// Bad input (docs/RELIABILITY.md): pods and claims deleted behind the controller's back in the middle of a rollout. A set of
// 4 with a volume claim template rolls to a new template; once its highest ordinal is at the update revision, the
// test deletes, directly through the API: that updated pod and its claim, the claim of the lowest ordinal (its pod
// still at the old revision, so the claim stays Terminating under kubernetes.io/pvc-protection until the rollout
// deletes the pod) and a pod still at the old revision. Upstream (pkg/controller/statefulset, CreateStatefulPod and
// createPersistentVolumeClaims) recreates a missing claim before its pod and refuses, with "pvc … is being
// deleted", to create a pod whose claim is still Terminating; the set waits until the claim is gone, then makes a
// new claim and the pod. The set must converge at the update revision within 30 s of the deletes, every claim there
// again (a new one for each deleted claim, created before its pod), and no service may die.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack, waitFor } from "../support/stack.ts";
import {
  IMAGE_B,
  SIM_START_DELAY,
  auditMark,
  createSet,
  creates,
  isReady,
  listClaims,
  listEvents,
  listPods,
  patchSet,
  revisionOf,
  since,
  waitForConverged,
} from "./helpers.ts";
import type { Claim } from "./helpers.ts";

const t = await useStack();
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
const CONVERGE_MS = 30_000;
const NS = "e2e-deleted-mid-rollout";
const REPLICAS = 4;

function claimsByName(claims: readonly Claim[]): Map<string, Claim> {
  return new Map(claims.map((claim) => [claim.metadata.name ?? "", claim]));
}

describe("pods and claims deleted behind the controller's back in the middle of a rollout", () => {
  it("the set converges at the update revision within 30 s, every claim recreated before its pod; no service dies", async (test) => {
    const pids = new Map(SERVICES.map((name) => [name, t.stack.service(name).pid ?? -1]));
    await t.createNamespace(NS);
    // Slow enough starts that the rollout (4 pods, one at a time) is still running while the test deletes.
    await createSet(t.kube, NS, "web", { replicas: REPLICAS, annotations: { [SIM_START_DELAY]: "400" } });
    const { set: before } = await waitForConverged(t.kube, NS, "web", REPLICAS);
    const oldRevision = before.status?.updateRevision;
    const originalClaims = claimsByName(await listClaims(t.kube, NS));
    assert.equal(originalClaims.size, REPLICAS);

    const mark = auditMark(t.audit);
    await patchSet(t.kube, NS, "web", {
      spec: { template: { spec: { containers: [{ name: "app", image: IMAGE_B, volumeMounts: [{ name: "data", mountPath: "/data" }] }] } } },
    });
    // Mid-rollout: web-3 is replaced and Ready at the update revision, web-0 and web-1 are still at the old one.
    const updateRevision = await waitFor(
      "web-3 at the update revision while web-0 and web-1 are not",
      async () => {
        const pods = await listPods(t.kube, NS, "web");
        const at = (name: string) => pods.find((pod) => pod.metadata.name === name);
        const newest = at("web-3");
        const revision = newest ? revisionOf(newest) : undefined;
        if (!newest || revision === oldRevision || !isReady(newest)) return undefined;
        return ["web-0", "web-1"].every((name) => { const pod = at(name); return pod !== undefined && revisionOf(pod) === oldRevision; }) ? revision : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 25 },
    );

    const deletedAt = performance.now();
    const claims = { ...RESOURCES.persistentvolumeclaims, namespace: NS };
    const pods = { ...RESOURCES.pods, namespace: NS };
    // An updated pod and its claim (the claim first: it goes once the pod is gone, and the new pod must wait for
    // that), a claim whose pod the rollout has not reached yet (Terminating until then), and an old pod.
    await t.kube.delete({ ...claims, name: "data-web-3" });
    await Promise.all([
      t.kube.delete({ ...pods, name: "web-3" }),
      t.kube.delete({ ...claims, name: "data-web-0" }),
      t.kube.delete({ ...pods, name: "web-1" }),
    ]);
    const terminating = claimsByName(await listClaims(t.kube, NS)).get("data-web-0");
    assert.ok(terminating?.metadata.deletionTimestamp !== undefined, "a claim of a running pod waits for its pod (pvc-protection)");

    const { set, pods: final } = await waitForConverged(t.kube, NS, "web", REPLICAS, CONVERGE_MS);
    const convergedMs = Math.round(performance.now() - deletedAt);
    assert.equal(set.status?.updateRevision, updateRevision);
    assert.ok(final.every((pod) => pod.spec.containers[0]?.image === IMAGE_B), "every pod runs the new template");

    // Every claim is there again, not Terminating, bound, and a new object where the test deleted one.
    const after = await waitFor(
      "four bound claims",
      async () => {
        const found = claimsByName(await listClaims(t.kube, NS));
        const ready = [...found.values()].filter((c) => c.metadata.deletionTimestamp === undefined && c.status?.phase === "Bound");
        return ready.length === REPLICAS && found.size === REPLICAS ? found : undefined;
      },
      { timeoutMs: 5_000 },
    );
    for (let ordinal = 0; ordinal < REPLICAS; ordinal++) {
      const name = `data-web-${ordinal}`;
      const uid = after.get(name)?.metadata.uid;
      assert.ok(uid, `${name} exists`);
      const recreated = name === "data-web-0" || name === "data-web-3";
      if (recreated) assert.notEqual(uid, originalClaims.get(name)?.metadata.uid, `${name} is a new claim`);
      else assert.equal(uid, originalClaims.get(name)?.metadata.uid, `${name} is the original claim`);
    }
    for (const pod of final) {
      const volumes = (pod.spec as { volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] }).volumes ?? [];
      assert.ok(
        volumes.some((v) => v.persistentVolumeClaim?.claimName === `data-${pod.metadata.name ?? ""}`),
        `${pod.metadata.name ?? ""} mounts its claim`,
      );
    }

    // The recreated claims were created (successfully) before the last create of their pods began.
    const claimCreates = since(mark, creates(t.audit, NS, "persistentvolumeclaims"));
    const podCreates = since(mark, creates(t.audit, NS, "pods"));
    assert.deepEqual(claimCreates.map((e) => e.name).sort(), ["data-web-0", "data-web-3"], "only the deleted claims were created");
    for (const claim of claimCreates) {
      const pod = podCreates.filter((e) => `data-${e.name ?? ""}` === claim.name).at(-1);
      assert.ok(pod, `${claim.name ?? ""}'s pod was created again`);
      assert.ok(claim.completedUs <= pod.receivedUs, `${claim.name ?? ""} was created before its pod`);
    }

    for (const name of SERVICES) assert.equal(t.stack.service(name).pid, pids.get(name), `${name} was restarted (it died)`);
    const waited = (await listEvents(t.kube, NS)).filter((e) => e.reason === "FailedCreate" && /is being deleted/.test(e.message ?? ""));
    test.diagnostic(`converged ${convergedMs} ms after the deletes; FailedCreate "is being deleted" Events: ${waited.map((e) => `${e.message ?? ""} ×${e.count ?? 1}`).join("; ") || "none"}`);
  });
});
