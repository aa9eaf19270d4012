// Spec section 4, scenarios 31-40: rolling updates, partitions, rollbacks, OnDelete, maxUnavailable
// (statefulset-behaviour.md).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS } from "#protocol";
import { allActions } from "./describe.ts";
import { templateOfRevision } from "./revisions.ts";
import type { ControllerRevision, DeletePodAction, Pod, StatefulSet } from "./types.ts";
import {
  MODES,
  STANDARD_INVARIANTS,
  addFinalizer,
  deletePod,
  imageOf,
  isRunningAndReady,
  mark,
  ordinalOf,
  pod,
  podCreates,
  podDeletes,
  podNames,
  podsOfSet,
  readyPodNames,
  removeFinalizers,
  revisionOf,
  scenario,
  setImage,
  tickUntilIdle,
} from "./testing/index.ts";
import type { Harness, Invariant, TurnReport } from "./testing/index.ts";

function changeImage(h: Harness, image: string): void {
  h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, image));
}

function editSpec(h: Harness, change: (spec: NonNullable<StatefulSet["spec"]>) => void): void {
  h.cluster.updateSet(h.namespace, h.name, (s) => change((s.spec ??= {})));
}

function images(h: Harness): (string | undefined)[] {
  return h.driver
    .pods()
    .sort((a, b) => ordinalOf(a) - ordinalOf(b))
    .map((p) => imageOf(p));
}

function updateDeletes(turns: readonly TurnReport[]): DeletePodAction[] {
  return turns.flatMap((t) => allActions(t.plan)).filter((a): a is DeletePodAction => a.type === "deletePod");
}

/** Upstream assertUpdateInvariants: the first currentReplicas pods are at currentRevision, the last updatedReplicas at updateRevision. */
const updateInvariants: Invariant = ({ cluster, namespace, name }) => {
  const set = cluster.get<StatefulSet>("StatefulSet", namespace, name);
  const status = set?.status;
  if (!status || set.spec?.podManagementPolicy === "Parallel") return [];
  const pods = podsOfSet(cluster.list<Pod>("Pod", namespace), name)
    .filter((p) => !p.metadata?.deletionTimestamp)
    .sort((a, b) => ordinalOf(a) - ordinalOf(b));
  const violations: string[] = [];
  const updated = pods.filter((p) => revisionOf(p) === status.updateRevision).map(ordinalOf);
  const current = pods.filter((p) => revisionOf(p) === status.currentRevision && status.currentRevision !== status.updateRevision).map(ordinalOf);
  const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  for (const c of current) {
    for (const u of updated) if (c > u && u >= partition) violations.push(`pod ${c} at current revision above updated pod ${u}`);
  }
  return violations;
};

/** OrderedReady updates the next pod only once every higher pod is at the update revision and Ready. */
const updateWaitsForReady: Invariant = ({ step, podsBefore, plan, set }) => {
  if (set.spec?.podManagementPolicy === "Parallel") return [];
  const violations: string[] = [];
  for (const action of step.step.actions) {
    if (action.type !== "deletePod" || action.reason !== "update") continue;
    for (const p of podsBefore) {
      if (ordinalOf(p) <= action.ordinal || step.step.actions.some((a) => a.type === "deletePod" && a.name === p.metadata?.name)) continue;
      if (revisionOf(p) !== plan.revisions.update || !isRunningAndReady(p)) violations.push(`updated ${action.name} while ${p.metadata?.name} is not updated and Ready`);
    }
  }
  return violations;
};

describe("scenario 31: monotonic image update [TestStatefulSetControlRollingUpdate monotonic/burst image update; e2e [Conformance] should perform rolling updates and roll backs]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: replaces pods from the highest ordinal down and completes at the new revision`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy }, { invariants: [...STANDARD_INVARIANTS, updateInvariants, updateWaitsForReady] });
      h.driver.converge();
      const before = mark(h);
      changeImage(h, "nginx:1.26");
      h.driver.converge();
      if (mode.policy === "OrderedReady") assert.deepEqual(podDeletes(h, before), ["web-2", "web-1", "web-0"]);
      else assert.deepEqual([...podDeletes(h, before)].sort(), ["web-0", "web-1", "web-2"]);
      assert.deepEqual(images(h), ["nginx:1.26", "nginx:1.26", "nginx:1.26"]);
      const status = h.driver.set?.status;
      assert.equal(status?.currentRevision, status?.updateRevision);
      assert.equal(status?.currentReplicas, 3);
      assert.equal(status?.updatedReplicas, 3);
    });
  }
});

describe("scenario 32: update and scale [TestStatefulSetControlRollingUpdate monotonic/burst image update and scale up/down]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: scale-up pods are created at the update revision`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy }, { invariants: [...STANDARD_INVARIANTS, updateInvariants] });
      h.driver.converge();
      const before = mark(h);
      editSpec(h, (spec) => {
        spec.replicas = 5;
        setImage({ spec }, "foo");
      });
      h.driver.turn();
      const firstNew = h.cluster.audit.find((e) => e.seq > before && e.verb === "create" && e.kind === "Pod");
      assert.equal(imageOf(firstNew?.object as Pod | undefined), "foo");
      h.driver.converge();
      assert.deepEqual(images(h), ["foo", "foo", "foo", "foo", "foo"]);
    });

    it(`${mode.label}: scale-down deletions come before any update deletion`, () => {
      const h = scenario({ replicas: 5, podManagementPolicy: mode.policy }, { invariants: [...STANDARD_INVARIANTS, updateInvariants] });
      h.driver.converge();
      const from = h.driver.turns.length;
      editSpec(h, (spec) => {
        spec.replicas = 3;
        setImage({ spec }, "foo");
      });
      h.driver.converge();
      const reasons = updateDeletes(h.driver.turns.slice(from)).map((d) => d.reason);
      const lastCondemned = reasons.lastIndexOf("condemned");
      const firstUpdate = reasons.indexOf("update");
      assert.ok(lastCondemned >= 0 && firstUpdate > lastCondemned, `order: ${reasons.join(",")}`);
      assert.deepEqual(images(h), ["foo", "foo", "foo"]);
    });
  }
});

describe("scenario 33: partitioned canary and phased rollout [TestStatefulSetControlRollingUpdateWithPartition; e2e [Conformance] should perform canary updates and phased rolling updates]", () => {
  it("partition 3 records the revision only; 2 updates web-2; recreated pods keep their side of the partition; 1 then 0 finish", () => {
    const h = scenario({ replicas: 3, partition: 3 }, { invariants: [...STANDARD_INVARIANTS, updateInvariants] });
    h.driver.converge();
    const oldRevision = h.driver.set?.status?.currentRevision;
    const before = mark(h);
    changeImage(h, "nginx:1.26");
    h.driver.converge();
    const newRevision = h.driver.set?.status?.updateRevision;
    assert.notEqual(newRevision, oldRevision);
    assert.deepEqual(podDeletes(h, before), [], "partition=replicas: no pod changes");
    editSpec(h, (spec) => {
      spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 2, maxUnavailable: 1 } };
    });
    h.driver.converge();
    assert.deepEqual(images(h), ["nginx:1.25", "nginx:1.25", "nginx:1.26"]);
    deletePod(h, "web-0");
    deletePod(h, "web-2");
    h.driver.converge();
    assert.equal(revisionOf(pod(h, "web-0")), oldRevision, "below the partition: current revision");
    assert.equal(revisionOf(pod(h, "web-2")), newRevision, "at or above the partition: update revision");
    for (const partition of [1, 0]) {
      editSpec(h, (spec) => {
        spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition, maxUnavailable: 1 } };
      });
      h.driver.converge();
      assert.equal(revisionOf(pod(h, `web-${partition}`)), newRevision);
    }
    assert.deepEqual(images(h), ["nginx:1.26", "nginx:1.26", "nginx:1.26"]);
    assert.equal(h.driver.set?.status?.currentRevision, newRevision);
  });
});

describe("scenario 34: partition with a blocked pod-0 [e2e should perform canary updates ... for partiton1 and delete pod-0 with failing container]", () => {
  it("a finalizer-held web-0 drops readiness to 2 and comes back at the old revision", () => {
    const h = scenario({ replicas: 3 });
    h.driver.converge();
    const oldRevision = h.driver.set?.status?.currentRevision;
    addFinalizer(h, "Pod", "web-0");
    editSpec(h, (spec) => {
      spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 1, maxUnavailable: 1 } };
      setImage({ spec }, "nginx:1.26");
    });
    h.driver.converge();
    assert.equal(h.driver.set?.status?.updatedReplicas, 2);
    assert.equal(h.driver.set?.status?.readyReplicas, 3);
    deletePod(h, "web-0");
    h.driver.converge();
    assert.equal(h.driver.set?.status?.readyReplicas, 2);
    removeFinalizers(h, "Pod", "web-0");
    h.driver.converge();
    assert.equal(revisionOf(pod(h, "web-0")), oldRevision);
    assert.equal(h.driver.set?.status?.readyReplicas, 3);
  });
});

describe("scenarios 35-36: rollback [e2e rollbackTest; kubectl rollout undo]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: reverting the template reuses R1 and rolls pods back highest first`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy }, { invariants: [...STANDARD_INVARIANTS, updateInvariants] });
      h.driver.converge();
      const r1 = h.driver.set?.status?.currentRevision;
      changeImage(h, "nginx:1.26");
      h.driver.converge();
      const r2 = h.driver.set?.status?.currentRevision;
      assert.notEqual(r1, r2);
      const before = mark(h);
      changeImage(h, "nginx:1.25");
      const report = h.driver.turn();
      assert.ok(!allActions(report.plan).some((a) => a.type === "createRevision"));
      assert.equal(h.driver.set?.status?.updateRevision, r1);
      assert.equal(h.driver.set?.status?.currentRevision, r2);
      h.driver.converge();
      if (mode.policy === "OrderedReady") assert.deepEqual(podDeletes(h, before), ["web-2", "web-1", "web-0"]);
      assert.equal(h.driver.set?.status?.currentRevision, r1);
      assert.ok(h.driver.pods().every((p) => revisionOf(p) === r1));
    });
  }

  it("kubectl rollout undo patches the set with the prior revision's data: no new revision; undoing again changes nothing", () => {
    const h = scenario({ replicas: 2 });
    h.driver.converge();
    const r1 = h.driver.set?.status?.currentRevision ?? "";
    changeImage(h, "nginx:1.26");
    h.driver.converge();
    const prior = h.cluster.get<ControllerRevision>("ControllerRevision", h.namespace, r1);
    assert.ok(prior);
    const template = templateOfRevision(prior);
    assert.ok(template);
    h.cluster.updateSet(h.namespace, h.name, (s) => {
      (s.spec ??= {}).template = template;
    });
    const revisionsBefore = h.cluster.list("ControllerRevision", h.namespace).length;
    h.driver.converge();
    assert.equal(h.cluster.list("ControllerRevision", h.namespace).length, revisionsBefore);
    assert.equal(h.driver.set?.status?.currentRevision, r1);
    assert.deepEqual(images(h), ["nginx:1.25", "nginx:1.25"]);
    const again = h.driver.turn();
    assert.deepEqual(allActions(again.plan), []);
  });
});

describe("scenario 37: OnDelete [TestStatefulSetControlOnDeleteUpdate; e2e should implement legacy replacement when the update strategy is OnDelete]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: pods change only when deleted; scale-up uses the new revision; current is promoted when all are replaced (1.37)`, () => {
      const h = scenario({ replicas: 3, updateStrategy: "OnDelete", podManagementPolicy: mode.policy });
      h.driver.converge();
      const r1 = h.driver.set?.status?.currentRevision;
      const before = mark(h);
      changeImage(h, "nginx:1.26");
      h.driver.converge();
      const r2 = h.driver.set?.status?.updateRevision;
      assert.notEqual(r2, r1);
      assert.deepEqual(podDeletes(h, before), []);
      assert.deepEqual(images(h), ["nginx:1.25", "nginx:1.25", "nginx:1.25"]);
      editSpec(h, (spec) => {
        spec.replicas = 5;
      });
      h.driver.converge();
      assert.deepEqual(images(h), ["nginx:1.25", "nginx:1.25", "nginx:1.25", "nginx:1.26", "nginx:1.26"]);
      deletePod(h, "web-0");
      h.driver.converge();
      assert.equal(revisionOf(pod(h, "web-0")), r2);
      assert.equal(h.driver.set?.status?.currentRevision, r1);
      deletePod(h, "web-1");
      deletePod(h, "web-2");
      h.driver.converge();
      assert.deepEqual(readyPodNames(h), ["web-0", "web-1", "web-2", "web-3", "web-4"]);
      assert.equal(h.driver.set?.status?.currentRevision, r2, "PR #136833: promoted once every pod is updated and Ready");
    });
  }
});

describe("scenario 38: maxUnavailable batches [TestStatefulSetControlRollingUpdateWithMaxUnavailable]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: replicas=6 partition=3 maxUnavailable=2 updates web-5 and web-4 together, then web-3`, () => {
      const h = scenario({ replicas: 6, partition: 3, maxUnavailable: 2, podManagementPolicy: mode.policy });
      h.driver.converge();
      const untouched = ["web-0", "web-1", "web-2"].map((n) => pod(h, n)?.metadata?.uid);
      changeImage(h, "foo");
      const first = h.driver.turn();
      const deletes = first.plan.steps.filter((s) => s.actions.some((a) => a.type === "deletePod"));
      assert.deepEqual(deletes.map((s) => s.actions.map((a) => a.type === "deletePod" && a.name)), [["web-5", "web-4"]], "one step, deleted together");
      h.kubelet.setPolicy("web-5", { ready: false });
      tickUntilIdle(h);
      const creates = h.driver.turn();
      const created = allActions(creates.plan).filter((a) => a.type === "createPod").map((a) => a.name);
      assert.deepEqual(created, mode.policy === "OrderedReady" ? ["web-4"] : ["web-4", "web-5"]);
      tickUntilIdle(h);
      if (mode.policy === "OrderedReady") {
        // web-4 Ready: only now is web-5 created; web-3 waits for web-5.
        assert.deepEqual(allActions(h.driver.turn().plan).filter((a) => a.type === "createPod").map((a) => a.name), ["web-5"]);
        tickUntilIdle(h);
        assert.ok(!allActions(h.driver.turn().plan).some((a) => a.type === "deletePod"), "web-3 waits while web-5 is unready");
        h.kubelet.clearPolicy("web-5");
        tickUntilIdle(h);
      }
      const next = h.driver.turn();
      assert.deepEqual(allActions(next.plan).filter((a) => a.type === "deletePod").map((a) => a.name), ["web-3"]);
      h.kubelet.clearPolicy("web-5");
      h.driver.converge();
      assert.deepEqual(images(h), ["nginx:1.25", "nginx:1.25", "nginx:1.25", "foo", "foo", "foo"]);
      assert.deepEqual(["web-0", "web-1", "web-2"].map((n) => pod(h, n)?.metadata?.uid), untouched);
    });
  }
});

describe("scenario 39: the maxUnavailable budget includes unavailable pods [TestStatefulSetControlRollingUpdateWithMaxUnavailableInOrderedModeVerifyInvariant]", () => {
  const cases = [[], [5], [3], [4], [5, 4], [5, 3], [4, 3], [5, 4, 3], [2], [1]];
  for (const terminating of cases) {
    it(`Parallel, terminating ${JSON.stringify(terminating)}: deletes max(0, 2 - k) pods`, () => {
      const h = scenario({ replicas: 6, partition: 3, maxUnavailable: 2, podManagementPolicy: "Parallel" });
      h.driver.converge();
      for (const ordinal of terminating) {
        addFinalizer(h, "Pod", `web-${ordinal}`);
        deletePod(h, `web-${ordinal}`);
      }
      changeImage(h, "foo");
      const report = h.driver.turn();
      const deleted = allActions(report.plan).filter((a) => a.type === "deletePod" && a.reason === "update");
      assert.equal(deleted.length, Math.max(0, 2 - terminating.length));
    });
  }

  it("OrderedReady: the replica loop already waits for any terminating pod, so nothing is deleted", () => {
    // Upstream's unit test calls the update phase directly; through a full sync OrderedReady blocks earlier.
    const h = scenario({ replicas: 6, partition: 3, maxUnavailable: 2 });
    h.driver.converge();
    addFinalizer(h, "Pod", "web-1");
    deletePod(h, "web-1");
    changeImage(h, "foo");
    assert.ok(!allActions(h.driver.turn().plan).some((a) => a.type === "deletePod"));
  });
});

describe("scenario 40: Parallel does not stall on broken old pods [PR #137666; issue #137409]", () => {
  /** Healthy pods taken down in one step never exceed what the budget leaves. */
  const budgetKept: Invariant = ({ step, podsBefore }) => {
    const healthyDeleted = step.step.actions.filter(
      (a) => a.type === "deletePod" && a.reason === "update" && podsBefore.some((p) => p.metadata?.name === a.name && isRunningAndReady(p)),
    ).length;
    const unavailableBefore = podsBefore.filter((p) => !isRunningAndReady(p) || p.metadata?.deletionTimestamp).length;
    return healthyDeleted > Math.max(0, 1 - unavailableBefore) ? [`${healthyDeleted} healthy pods deleted with ${unavailableBefore} unavailable`] : [];
  };
  const brokenImage = (p: Pod): { ready?: boolean } => (imageOf(p) === "broken" ? { ready: false } : {});

  it("Parallel, maxUnavailable=1: a never-Ready revision is replaced after the template is fixed, without manual deletes", () => {
    const h = scenario(
      { replicas: 3, podManagementPolicy: "Parallel", image: "broken" },
      { invariants: [...STANDARD_INVARIANTS, budgetKept], kubeletPolicy: brokenImage },
    );
    h.driver.converge();
    assert.deepEqual(readyPodNames(h), []);
    changeImage(h, "nginx:1.26");
    h.driver.converge();
    assert.deepEqual(readyPodNames(h), ["web-0", "web-1", "web-2"]);
    assert.deepEqual(images(h), ["nginx:1.26", "nginx:1.26", "nginx:1.26"]);
    assert.equal(h.driver.set?.status?.currentRevision, h.driver.set?.status?.updateRevision);
  });

  it("Parallel: healthy old pods still go one at a time next to a broken one", () => {
    const h = scenario(
      { replicas: 4, podManagementPolicy: "Parallel" },
      { invariants: [...STANDARD_INVARIANTS, budgetKept] },
    );
    h.driver.converge();
    h.kubelet.setPolicy("web-1", { ready: false });
    tickUntilIdle(h);
    changeImage(h, "nginx:1.26");
    const report = h.driver.turn();
    assert.deepEqual(allActions(report.plan).filter((a) => a.type === "deletePod").map((a) => a.name), ["web-1"], "the broken pod goes, the budget is spent");
    h.kubelet.clearPolicy("web-1");
    h.driver.converge();
    assert.deepEqual(images(h), ["nginx:1.26", "nginx:1.26", "nginx:1.26", "nginx:1.26"]);
  });

  it("OrderedReady keeps the upstream deadlock (quirk 1, issue #67250): broken pods need a manual delete", () => {
    const h = scenario({ replicas: 2, image: "broken" }, { kubeletPolicy: brokenImage });
    h.driver.converge();
    assert.deepEqual(podNames(h), ["web-0"], "web-1 is never created behind an unready web-0");
    const before = mark(h);
    changeImage(h, "nginx:1.26");
    h.driver.converge();
    assert.deepEqual(podDeletes(h, before), []);
    deletePod(h, "web-0");
    h.driver.converge();
    assert.deepEqual(readyPodNames(h), ["web-0", "web-1"]);
    assert.deepEqual(podCreates(h, before), ["web-0", "web-1"]);
    assert.equal(pod(h, "web-0")?.metadata?.labels?.[LABELS.revisionHash], h.driver.set?.status?.updateRevision);
  });
});
