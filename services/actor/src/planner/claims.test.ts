// PVC retention policy: the owner-reference table, its guards, and the end-to-end behaviour over the fake
// cluster (upstream stateful_set_utils_test.go TestIsClaimOwnerUpToDate / TestUpdateClaimOwnerRefForSetAndPod /
// TestClaimOwnerUpToDateEdgeCases, stateful_pod_control_test.go TestPodClaimIsStale, and
// stateful_set_control_test.go TestStatefulSetControl/*WithPVCDeletePolicy).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ClaimBook, desiredOwnerRefs, isClaimOwnerUpToDate, planClaimRetention } from "./claims.ts";
import type { PodIdentity } from "./claims.ts";
import { allActions } from "./describe.ts";
import { plan } from "./plan.ts";
import { readSet } from "./spec.ts";
import type { SetView } from "./spec.ts";
import { DEFAULT_PLAN_OPTIONS } from "./types.ts";
import type { OwnerReference, PersistentVolumeClaim, StatefulSet } from "./types.ts";
import { MODES, claim, newStatefulSet, podNames, scenario } from "./testing/index.ts";

type Policy = "Retain" | "Delete";

function setView(whenScaled: Policy, whenDeleted: Policy, replicas = 2): SetView {
  const set: StatefulSet = newStatefulSet({ replicas, whenScaled, whenDeleted });
  (set.metadata ??= {}).uid = "set-uid";
  const read = readSet(set, DEFAULT_PLAN_OPTIONS);
  assert.ok(read.ok);
  return read.view;
}

const setRef: OwnerReference = { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "set-uid", controller: true, blockOwnerDeletion: true };
const podRef = (ordinal: number, uid = `pod-${ordinal}`): OwnerReference => ({
  apiVersion: "v1",
  kind: "Pod",
  name: `web-${ordinal}`,
  uid,
  controller: true,
  blockOwnerDeletion: true,
});
const pod = (ordinal: number): PodIdentity => ({ name: `web-${ordinal}`, uid: `pod-${ordinal}`, ordinal });
const foreignController: OwnerReference = { apiVersion: "example.com/v1", kind: "Backup", name: "b", uid: "foreign", controller: true };
const foreignOwner: OwnerReference = { apiVersion: "example.com/v1", kind: "Backup", name: "b", uid: "foreign" };

describe("retention owner references [TestIsClaimOwnerUpToDate, TestUpdateClaimOwnerRefForSetAndPod]", () => {
  // Spec 3.14's table: (whenScaled, whenDeleted) -> refs of an in-range pod's claim, of a condemned pod's claim.
  const table: [Policy, Policy, OwnerReference[], OwnerReference[]][] = [
    ["Retain", "Retain", [], []],
    ["Retain", "Delete", [setRef], [setRef]],
    ["Delete", "Retain", [], [podRef(3)]],
    ["Delete", "Delete", [setRef], [podRef(3)]],
  ];
  for (const [whenScaled, whenDeleted, inRange, condemned] of table) {
    it(`whenScaled=${whenScaled} whenDeleted=${whenDeleted}`, () => {
      const view = setView(whenScaled, whenDeleted);
      assert.deepEqual(desiredOwnerRefs(view, [], pod(0)), inRange);
      assert.deepEqual(desiredOwnerRefs(view, [], pod(3)), condemned);
      assert.equal(isClaimOwnerUpToDate(view, inRange, pod(0)), true);
      assert.equal(isClaimOwnerUpToDate(view, condemned, pod(3)), true);
      // Moving between range and condemned needs a rewrite exactly when the table rows differ.
      assert.equal(isClaimOwnerUpToDate(view, inRange, pod(3)), JSON.stringify(inRange) === JSON.stringify(condemned));
      // Every other policy's refs are out of date under this one.
      for (const [otherScaled, otherDeleted, otherInRange] of table) {
        if (otherScaled === whenScaled && otherDeleted === whenDeleted) continue;
        if (JSON.stringify(otherInRange) === JSON.stringify(inRange)) continue;
        assert.equal(isClaimOwnerUpToDate(view, otherInRange, pod(0)), false, `${otherScaled}/${otherDeleted} refs`);
      }
    });
  }

  it("leaves a claim with a stale reference to an earlier set or pod of the same name untouched", () => {
    const view = setView("Delete", "Delete");
    assert.equal(isClaimOwnerUpToDate(view, [{ ...setRef, uid: "old-set" }], pod(0)), true);
    assert.equal(isClaimOwnerUpToDate(view, [podRef(3, "old-pod")], pod(3)), true);
  });

  it("under a non-Retain policy, strips its own refs from a claim another controller manages and adds none", () => {
    const view = setView("Retain", "Delete");
    assert.equal(isClaimOwnerUpToDate(view, [foreignController], pod(0)), true, "nothing of ours to clean");
    assert.equal(isClaimOwnerUpToDate(view, [foreignController, setRef], pod(0)), false);
    assert.deepEqual(desiredOwnerRefs(view, [foreignController, setRef], pod(0)), [foreignController]);
    const book = new ClaimBook(
      [{ metadata: { name: "data-web-0", namespace: "default", uid: "c", resourceVersion: "1", ownerReferences: [foreignController, setRef] } }],
      "default",
    );
    const { updates, events } = planClaimRetention(view, book, pod(0));
    assert.deepEqual(updates.map((u) => u.ownerReferences), [[foreignController]]);
    assert.deepEqual(events.map((e) => [e.type, e.reason]), [["Warning", "ConflictingController"]]);
  });

  it("ignores other controllers under Retain/Retain", () => {
    const view = setView("Retain", "Retain");
    assert.equal(isClaimOwnerUpToDate(view, [foreignController], pod(0)), true);
  });

  it("rewrites a non-controller reference of its own as a controller reference", () => {
    const view = setView("Retain", "Delete");
    const weak = { ...setRef, controller: false };
    assert.equal(isClaimOwnerUpToDate(view, [weak], pod(0)), false);
    assert.deepEqual(desiredOwnerRefs(view, [weak], pod(0)), [setRef]);
  });

  it("keeps foreign non-controller owners and appends its controller reference", () => {
    const view = setView("Retain", "Delete");
    assert.deepEqual(desiredOwnerRefs(view, [foreignOwner], pod(0)), [foreignOwner, setRef]);
  });
});

describe("retention over the fake cluster [TestStatefulSetControl/*WithPVCDeletePolicy, e2e PersistentVolumeClaim retention]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: whenScaled=Delete gives condemned claims a pod reference before the pod goes, then GC removes them`, () => {
      const h = scenario({ replicas: 3, whenScaled: "Delete", podManagementPolicy: mode.policy });
      h.driver.converge();
      for (const i of [0, 1, 2]) assert.deepEqual(claim(h, `data-web-${i}`)?.metadata?.ownerReferences ?? [], []);
      h.cluster.updateSet(h.namespace, h.name, (s) => {
        (s.spec ??= {}).replicas = 1;
      });
      const report = h.driver.turn();
      const types = report.plan.steps.map((s) => s.actions.map((a) => a.type).join(","));
      const refStep = types.findIndex((t) => t.includes("updateClaimOwnerRefs"));
      const deleteStep = types.findIndex((t) => t.includes("deletePod"));
      assert.ok(refStep >= 0 && deleteStep > refStep, `claim refs before the delete: ${types.join(" | ")}`);
      h.driver.converge();
      assert.deepEqual(podNames(h), ["web-0"]);
      assert.ok(claim(h, "data-web-0"));
      assert.equal(claim(h, "data-web-1"), undefined);
      assert.equal(claim(h, "data-web-2"), undefined);
      assert.ok(h.cluster.deletions.filter((d) => d.kind === "PersistentVolumeClaim").every((d) => d.by === "gc"));
    });

    it(`${mode.label}: whenDeleted=Delete gives every claim a set reference; deleting the set collects pods and claims`, () => {
      const h = scenario({ replicas: 2, whenDeleted: "Delete", podManagementPolicy: mode.policy });
      h.driver.converge();
      for (const i of [0, 1]) assert.equal(claim(h, `data-web-${i}`)?.metadata?.ownerReferences?.[0]?.uid, h.driver.set?.metadata?.uid);
      h.cluster.delete("StatefulSet", h.namespace, h.name);
      for (let i = 0; i < 10; i++) h.driver.tick();
      assert.deepEqual(h.cluster.list("Pod", h.namespace), []);
      assert.deepEqual(h.cluster.list("PersistentVolumeClaim", h.namespace), []);
    });
  }

  it("Retain/Retain: deleting the set keeps every claim", () => {
    const h = scenario({ replicas: 2 });
    h.driver.converge();
    h.cluster.delete("StatefulSet", h.namespace, h.name);
    for (let i = 0; i < 10; i++) h.driver.tick();
    assert.deepEqual(h.cluster.list("Pod", h.namespace), []);
    assert.equal(h.cluster.list("PersistentVolumeClaim", h.namespace).length, 2);
  });

  it("switching the policy on a running set rewrites the references of existing claims", () => {
    const h = scenario({ replicas: 2 });
    h.driver.converge();
    h.cluster.updateSet(h.namespace, h.name, (s) => {
      (s.spec ??= {}).persistentVolumeClaimRetentionPolicy = { whenScaled: "Retain", whenDeleted: "Delete" };
    });
    const report = h.driver.turn();
    // Upstream issues a pod update even when only claim references changed; repairs do not stop the ordered loop.
    const repairs = allActions(report.plan).flatMap((a) => (a.type === "updatePod" ? [[a.name, a.repairs.join()]] : []));
    assert.deepEqual(repairs, [["web-0", "claims"], ["web-1", "claims"]]);
    h.driver.converge();
    for (const i of [0, 1]) assert.equal(claim(h, `data-web-${i}`)?.metadata?.ownerReferences?.[0]?.kind, "StatefulSet");
  });

  it("does not create a pod while its claim still belongs to an earlier pod of that name [TestPodClaimIsStale]", () => {
    const set = newStatefulSet({ replicas: 1, whenScaled: "Delete" });
    set.metadata = { ...set.metadata, uid: "set-uid", generation: 1 };
    const stale: PersistentVolumeClaim = {
      metadata: { name: "data-web-0", namespace: "default", uid: "c0", resourceVersion: "5", ownerReferences: [podRef(0, "gone-pod")] },
    };
    const blocked = plan({ set, pods: [], claims: [stale], revisions: [] }, 0);
    assert.deepEqual(allActions(blocked).filter((a) => a.type === "createPod" || a.type === "createClaim"), []);
    const free = plan({ set, pods: [], claims: [], revisions: [] }, 0);
    assert.deepEqual(allActions(free).filter((a) => a.type === "createPod").map((a) => a.name), ["web-0"]);
  });
});
