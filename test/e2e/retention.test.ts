// PersistentVolumeClaimRetentionPolicy end to end, every combination of whenDeleted and
// whenScaled. Scale 3 -> 1, then delete the set; claims must be kept or deleted as the policy says, and the owner
// references that make the garbage collector delete them must be in place before the pods go.
// upstream e2e: "Non-retain StatefulSetPersistentVolumeClaimPolicy should delete PVCs with a WhenDeleted policy",
// "... should delete PVCs with a OnScaledown policy", "... should delete PVCs after adopting pod (WhenScaled)".
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack, waitFor } from "../support/stack.ts";
import { createSet, creates, deletes, getSet, listClaims, listPods, names, patchSet, uniqueNames, waitForConverged } from "./helpers.ts";
import type { Claim } from "./helpers.ts";

const t = await useStack();
const { kube, audit } = t;

type Policy = "Retain" | "Delete";

const POLICIES: readonly Policy[] = ["Retain", "Delete"];

function ownerKinds(claim: Claim | undefined): string[] {
  return (claim?.metadata.ownerReferences ?? []).map((ref) => `${ref.kind}/${ref.name}`).sort();
}

describe("claim retention policies end to end", { concurrency: true }, () => {
  for (const whenDeleted of POLICIES) {
    for (const whenScaled of POLICIES) {
      it(`whenDeleted=${whenDeleted}, whenScaled=${whenScaled}: claims are kept or deleted as the policy says`, async () => {
        const ns = `e2e-retain-${whenDeleted.toLowerCase()}-${whenScaled.toLowerCase()}`;
        await t.createNamespace(ns);
        await createSet(kube, ns, "db", { replicas: 3, retention: { whenDeleted, whenScaled } });
        await waitForConverged(kube, ns, "db", 3);
        const set = await getSet(kube, ns, "db");
        const claims = await listClaims(kube, ns);
        assert.deepEqual(names(claims), ["data-db-0", "data-db-1", "data-db-2"]);
        for (const claim of claims) {
          // Upstream: a claim is owned by the set when whenDeleted=Delete; a scaled-down pod's claim is given to
          // that pod only when it is condemned.
          assert.deepEqual(ownerKinds(claim), whenDeleted === "Delete" ? ["StatefulSet/db"] : [], `${claim.metadata.name} owners`);
          if (whenDeleted === "Delete") assert.equal(claim.metadata.ownerReferences?.[0]?.uid, set.metadata.uid);
        }

        await patchSet(kube, ns, "db", { spec: { replicas: 1 } });
        await waitForConverged(kube, ns, "db", 1);
        const scaledAway = ["data-db-1", "data-db-2"];
        if (whenScaled === "Delete") {
          await waitFor("the scaled-down pods' claims to be deleted", async () => {
            const left = names(await listClaims(kube, ns));
            return left.length === 1 && left[0] === "data-db-0" ? left : undefined;
          });
        } else {
          await sleep(500);
          assert.deepEqual(names(await listClaims(kube, ns)), ["data-db-0", ...scaledAway], "claims of scaled-down pods are retained");
        }

        await kube.delete({ ...RESOURCES.statefulsets, namespace: ns, name: "db" }, { propagationPolicy: "Background" });
        await waitFor("the pods to be gone", async () => ((await listPods(kube, ns, "db")).length === 0 ? true : undefined));
        const expected = whenDeleted === "Delete" ? [] : whenScaled === "Delete" ? ["data-db-0"] : ["data-db-0", ...scaledAway];
        const final = await waitFor(
          `claims ${JSON.stringify(expected)}`,
          async () => {
            const left = names(await listClaims(kube, ns));
            return JSON.stringify(left) === JSON.stringify(expected) ? left : undefined;
          },
          { timeoutMs: 20_000 },
        );
        await sleep(300);
        assert.deepEqual(names(await listClaims(kube, ns)), final, "claims stay as the policy says");

        // stsfleet never deletes a claim itself (the garbage collector does, through owner references), and
        // created each claim exactly once.
        assert.deepEqual(deletes(audit, ns, "persistentvolumeclaims"), []);
        assert.equal(uniqueNames(creates(audit, ns, "persistentvolumeclaims"), "claim creates").length, 3);
      });
    }
  }
});

// Upstream (updateStatefulSet, "Ensure ownerRefs are set correctly for the condemned pods") gives a condemned pod's
// claim the pod as owner BEFORE deleting the pod: a ref that lands later points at a pod that may already have been
// replaced by a new pod of the same name using the same claim. Pausing the pvc-provisioner (SIGSTOP) makes the
// order observable: the pod must stay until the provisioner, resumed, has written the claim's owner.
describe("claim owner references before condemned pods are deleted", () => {
  it("whenScaled=Delete: no condemned pod is deleted while its claim's new owner reference is not written", async () => {
    const ns = "e2e-retain-order";
    await t.createNamespace(ns);
    await createSet(kube, ns, "db", { replicas: 3, retention: { whenDeleted: "Retain", whenScaled: "Delete" } });
    await waitForConverged(kube, ns, "db", 3);
    const provisioner = t.stack.service("pvc-provisioner");
    assert.equal(provisioner.signal("SIGSTOP"), true);
    try {
      await patchSet(kube, ns, "db", { spec: { replicas: 2 } });
      await sleep(1_500);
      assert.deepEqual(deletes(audit, ns, "pods"), [], "db-2 was deleted before its claim named it as owner");
    } finally {
      provisioner.signal("SIGCONT");
    }
    await waitForConverged(kube, ns, "db", 2);
    await waitFor("data-db-2 to be collected", async () => (names(await listClaims(kube, ns)).includes("data-db-2") ? undefined : true));
    const ownerWrite = audit
      .where({ resource: "persistentvolumeclaims", namespace: ns, name: "data-db-2", succeeded: true })
      .find((e) => (e.verb === "update" || e.verb === "patch") && e.service === "pvc-provisioner");
    const podDelete = deletes(audit, ns, "pods").find((e) => e.name === "db-2");
    assert.ok(ownerWrite && podDelete);
    assert.ok(ownerWrite.completedUs < podDelete.receivedUs, "data-db-2 got its owner after db-2 was deleted");
  });
});
