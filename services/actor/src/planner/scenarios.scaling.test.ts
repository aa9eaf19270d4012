// Spec section 4, scenarios 1-16: creation, identity, scaling (statefulset-behaviour.md). Each test names the
// upstream test it reproduces; the driver checks the invariants after every executed step.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS } from "#protocol";
import { allActions } from "./describe.ts";
import type { ControllerRevision, Pod, StatefulSet } from "./types.ts";
import {
  MODES,
  STANDARD_INVARIANTS,
  addFinalizer,
  claim,
  deletePod,
  isRunningAndReady,
  mark,
  monotonicReadiness,
  pod,
  podCreates,
  podDeletes,
  podNames,
  readyPodNames,
  removeFinalizers,
  scenario,
  tickUntilIdle,
} from "./testing/index.ts";
import type { Invariant } from "./testing/index.ts";

/** Scenario 1: during an ordered scale-up never more than one pod is not Ready. */
const atMostOneUnready: Invariant = ({ cluster, namespace }) => {
  const unready = cluster.list<Pod>("Pod", namespace).filter((p) => !isRunningAndReady(p));
  return unready.length > 1 ? [`${unready.length} pods not Ready at once`] : [];
};

describe("scenario 1: ordered creation [unit TestStatefulSetControl/CreatesPods/Monotonic; e2e Scaling should happen in predictable order]", () => {
  it("creates web-0, web-1, web-2 strictly in order, each after its predecessor is Running and Ready", () => {
    const h = scenario({ replicas: 3 }, { invariants: [...STANDARD_INVARIANTS, monotonicReadiness, atMostOneUnready] });
    h.driver.converge();
    assert.deepEqual(podCreates(h), ["web-0", "web-1", "web-2"]);
    const status = h.driver.set?.status;
    assert.equal(status?.replicas, 3);
    assert.equal(status?.readyReplicas, 3);
    assert.equal(status?.updatedReplicas, 3);
    assert.equal(status?.currentReplicas, 3);
    assert.equal(status?.currentRevision, status?.updateRevision);
    for (const i of [0, 1, 2]) assert.ok(claim(h, `data-web-${i}`), `data-web-${i}`);
  });
});

describe("scenario 2: identity [e2e should provide basic identity; unit CreatesPods pod-index label]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: stable names, hostnames, labels, owner and claims survive deleting every pod`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy });
      h.driver.converge();
      const updateRevision = h.driver.set?.status?.updateRevision;
      const claimUids = [0, 1, 2].map((i) => claim(h, `data-web-${i}`)?.metadata?.uid);
      const check = (): void => {
        for (const i of [0, 1, 2]) {
          const p = pod(h, `web-${i}`);
          assert.ok(p, `web-${i}`);
          assert.equal(p.spec?.hostname, `web-${i}`);
          assert.equal(p.spec?.subdomain, "nginx");
          assert.equal(p.metadata?.labels?.[LABELS.podName], `web-${i}`);
          assert.equal(p.metadata?.labels?.[LABELS.podIndex], String(i));
          assert.equal(p.metadata?.labels?.[LABELS.revisionHash], updateRevision);
          const owner = p.metadata?.ownerReferences?.[0];
          assert.deepEqual(owner && [owner.kind, owner.name, owner.controller, owner.blockOwnerDeletion], ["StatefulSet", "web", true, true]);
          assert.equal(p.metadata?.ownerReferences?.[0]?.uid, h.driver.set?.metadata?.uid);
          const volume = p.spec?.volumes?.find((v) => v.name === "data");
          assert.equal(volume?.persistentVolumeClaim?.claimName, `data-web-${i}`);
        }
      };
      check();
      for (const i of [0, 1, 2]) deletePod(h, `web-${i}`);
      h.driver.converge();
      check();
      assert.deepEqual([0, 1, 2].map((i) => claim(h, `data-web-${i}`)?.metadata?.uid), claimUids, "same claims, data intact");
    });
  }
});

describe("scenario 3: burst creation [unit TestStatefulSetControl/CreatesPods/Burst; TestParallelScale]", () => {
  it("Parallel 0 -> 1000 creates every pod in one turn, in slow-start batches, with status.replicas reaching 1000 unready", () => {
    const h = scenario({ replicas: 1000, podManagementPolicy: "Parallel" });
    const first = h.driver.turn();
    const createSteps = first.plan.steps.filter((s) => s.actions.some((a) => a.type === "createPod"));
    assert.deepEqual(
      createSteps.map((s) => s.actions.length),
      [1, 2, 4, 8, 16, 32, 64, 128, 256, 489],
      "slow-start batches 1, 2, 4 ... capped at 500",
    );
    assert.ok(createSteps.every((s) => !s.blocking));
    assert.equal(h.driver.pods().length, 1000);
    h.driver.turn();
    assert.equal(h.driver.set?.status?.replicas, 1000);
    assert.equal(h.driver.set?.status?.readyReplicas, 0);
    assert.equal(podCreates(h).length, 1000, "no more creates on the second turn");
  });
});

describe("scenario 4: scale-up halts on an unhealthy pod [e2e [Conformance] Scaling should happen in predictable order and halt]", () => {
  it("OrderedReady keeps one pod while web-0 is unready, then creates web-1 and web-2 in order", () => {
    const h = scenario({ replicas: 1 });
    h.driver.converge();
    h.kubelet.setPolicy("web-0", { ready: false });
    h.driver.converge();
    assert.equal(h.driver.set?.status?.readyReplicas, 0);
    h.cluster.updateSet(h.namespace, h.name, (s) => {
      (s.spec ??= {}).replicas = 3;
    });
    const before = mark(h);
    for (let i = 0; i < 10; i++) {
      h.driver.turn();
      h.driver.tick();
    }
    assert.deepEqual(podNames(h), ["web-0"]);
    h.kubelet.clearPolicy("web-0");
    h.driver.converge();
    assert.deepEqual(podCreates(h, before), ["web-1", "web-2"]);
  });
});

describe("scenario 5: scale-down in reverse order and halt [e2e [Conformance] Scaling should happen in predictable order and halt]", () => {
  it("deletes nothing while pods are unhealthy, then web-2, web-1, web-0 each after the previous one is gone", () => {
    const h = scenario({ replicas: 3 }, { kubeletPolicy: { terminationTicks: 2 } });
    h.driver.converge();
    for (const name of ["web-0", "web-1", "web-2"]) h.kubelet.setPolicy(name, { ready: false });
    tickUntilIdle(h);
    h.cluster.updateSet(h.namespace, h.name, (s) => {
      (s.spec ??= {}).replicas = 0;
    });
    const before = mark(h);
    for (let i = 0; i < 10; i++) {
      h.driver.turn();
      h.driver.tick();
    }
    assert.deepEqual(podDeletes(h, before), [], "no pod deleted while unhealthy");
    for (const name of ["web-0", "web-1", "web-2"]) h.kubelet.clearPolicy(name);
    h.driver.converge();
    assert.deepEqual(podDeletes(h, before), ["web-2", "web-1", "web-0"]);
    // Each deletion is issued only after the previous pod has left the store.
    const removals = h.cluster.deletions.filter((d) => d.kind === "Pod");
    const deleteSeq = (name: string): number => h.cluster.audit.find((e) => e.seq > before && e.verb === "delete" && e.name === name)?.seq ?? -1;
    assert.ok(removals.find((d) => d.name === "web-2"));
    assert.ok(deleteSeq("web-1") > deleteSeq("web-2") && deleteSeq("web-0") > deleteSeq("web-1"));
    assert.deepEqual(podNames(h), []);
  });
});

describe("scenario 6: burst scaling ignores health [e2e [Conformance] Burst scaling should run to completion even with unhealthy pods]", () => {
  it("Parallel scales 1 -> 3 and 3 -> 0 with every pod unready", () => {
    const h = scenario({ replicas: 1, podManagementPolicy: "Parallel" }, { kubeletPolicy: { ready: false } });
    h.driver.converge();
    h.cluster.updateSet(h.namespace, h.name, (s) => {
      (s.spec ??= {}).replicas = 3;
    });
    h.driver.turn();
    assert.deepEqual(podNames(h), ["web-0", "web-1", "web-2"]);
    h.driver.converge();
    assert.deepEqual(readyPodNames(h), []);
    h.cluster.updateSet(h.namespace, h.name, (s) => {
      (s.spec ??= {}).replicas = 0;
    });
    const before = mark(h);
    h.driver.turn();
    assert.deepEqual(podDeletes(h, before).sort(), ["web-0", "web-1", "web-2"]);
    h.driver.converge();
    assert.deepEqual(podNames(h), []);
  });
});

describe("scenario 7: scale to zero [unit TestStatefulSetControl/ScalesDown]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: ends with no pods and zero counters`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy });
      h.driver.converge();
      h.cluster.updateSet(h.namespace, h.name, (s) => {
        (s.spec ??= {}).replicas = 0;
      });
      h.driver.converge();
      assert.deepEqual(podNames(h), []);
      const status = h.driver.set?.status;
      assert.deepEqual([status?.replicas, status?.readyReplicas, status?.updatedReplicas, status?.currentReplicas], [0, 0, 0, 0]);
    });
  }
});

describe("scenario 8: terminating pods are respected [ctrl TestStatefulSetControllerRespectsTermination]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: replicas=3 with terminating web-3 and web-4 leaves all five pods alone`, () => {
      const h = scenario({ replicas: 5, podManagementPolicy: mode.policy });
      h.driver.converge();
      for (const name of ["web-3", "web-4"]) {
        addFinalizer(h, "Pod", name);
        deletePod(h, name);
      }
      h.cluster.updateSet(h.namespace, h.name, (s) => {
        (s.spec ??= {}).replicas = 3;
      });
      const before = mark(h);
      const report = h.driver.turn();
      assert.deepEqual(allActions(report.plan).filter((a) => a.type === "deletePod" || a.type === "createPod"), []);
      assert.deepEqual(podDeletes(h, before), []);
      assert.equal(h.driver.pods().length, 5);
      assert.equal(h.driver.set?.status?.replicas, 5, "status.replicas counts terminating pods (quirk 10)");
    });
  }
});

describe("scenario 9: a terminating predecessor blocks scale-up [ctrl TestStatefulSetControllerBlocksScaling]", () => {
  it("OrderedReady creates nothing while web-0 terminates, then recreates web-0 only", () => {
    const h = scenario({ replicas: 3 });
    h.driver.converge();
    addFinalizer(h, "Pod", "web-0");
    deletePod(h, "web-0");
    h.cluster.updateSet(h.namespace, h.name, (s) => {
      (s.spec ??= {}).replicas = 5;
    });
    const before = mark(h);
    h.driver.turn();
    h.driver.turn();
    assert.deepEqual(podCreates(h, before), []);
    removeFinalizers(h, "Pod", "web-0");
    tickUntilIdle(h);
    assert.equal(pod(h, "web-0"), undefined);
    h.driver.turn();
    assert.deepEqual(podCreates(h, before), ["web-0"]);
    assert.equal(h.driver.pods().length, 3);
  });
});

describe("scenario 10: no deadlock when a pod's predecessor fails [e2e should not deadlock when a pod's predecessor fails]", () => {
  it("OrderedReady recreates a deleted web-0 although web-1 is unready, then completes", () => {
    const h = scenario({ replicas: 2 });
    h.driver.converge();
    h.kubelet.setPolicy("web-1", { ready: false });
    tickUntilIdle(h);
    const before = mark(h);
    deletePod(h, "web-0");
    h.driver.runUntil(() => podCreates(h, before).includes("web-0"));
    h.kubelet.clearPolicy("web-1");
    h.driver.converge();
    assert.deepEqual(readyPodNames(h), ["web-0", "web-1"]);
    assert.equal(h.driver.set?.status?.readyReplicas, 2);
  });
});

describe("scenario 11: replace deleted pods [unit TestStatefulSetControl/ReplacesPods]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: web-0, web-2, web-4 come back ascending with their claims and no pod refs on claims`, () => {
      const h = scenario({ replicas: 5, podManagementPolicy: mode.policy });
      h.driver.converge();
      const claimUids = [0, 2, 4].map((i) => claim(h, `data-web-${i}`)?.metadata?.uid);
      for (const name of ["web-0", "web-2", "web-4"]) deletePod(h, name);
      tickUntilIdle(h);
      const before = mark(h);
      const first = h.driver.turn();
      const created = allActions(first.plan).filter((a) => a.type === "createPod").map((a) => a.name);
      assert.deepEqual(created, mode.policy === "OrderedReady" ? ["web-0"] : ["web-0", "web-2", "web-4"]);
      h.driver.converge();
      assert.deepEqual(podCreates(h, before), ["web-0", "web-2", "web-4"]);
      assert.deepEqual([0, 2, 4].map((i) => claim(h, `data-web-${i}`)?.metadata?.uid), claimUids);
      for (let i = 0; i < 5; i++) assert.deepEqual(claim(h, `data-web-${i}`)?.metadata?.ownerReferences ?? [], []);
    });
  }
});

describe("scenario 12: Failed and Succeeded pods are recreated [unit RecreatesFailedPod, RecreatesSucceededPod, RecreatesFailedPodWithDeleteFailure; e2e [Conformance] Should recreate evicted statefulset]", () => {
  for (const mode of MODES) {
    for (const phase of ["Failed", "Succeeded"] as const) {
      it(`${mode.label}: a ${phase} web-0 is deleted once, then recreated with a new UID`, () => {
        const h = scenario({ replicas: 3, podManagementPolicy: mode.policy });
        h.driver.turn();
        tickUntilIdle(h);
        const oldUid = pod(h, "web-0")?.metadata?.uid;
        h.cluster.mutate<Pod>("Pod", h.namespace, "web-0", (p) => {
          p.status = { phase, conditions: [] };
        });
        const deletesBefore = h.cluster.callCount("delete", "Pod");
        const report = h.driver.turn();
        assert.equal(h.cluster.callCount("delete", "Pod") - deletesBefore, 1, "exactly one DELETE");
        const actions = allActions(report.plan);
        assert.ok(actions.some((a) => a.type === "deletePod" && a.name === "web-0" && a.reason === phase.toLowerCase()));
        if (mode.policy === "OrderedReady") assert.ok(!actions.some((a) => a.type === "createPod"), "nothing else progresses");
        tickUntilIdle(h);
        assert.equal(pod(h, "web-0"), undefined);
        h.driver.turn();
        const recreated = pod(h, "web-0");
        assert.ok(recreated);
        assert.notEqual(recreated.metadata?.uid, oldUid);
        assert.equal(recreated.status?.phase, "Pending");
        assert.equal(h.cluster.callCount("create", "Pod"), mode.policy === "OrderedReady" ? 2 : 4, "OR 2 creates, PAR replicas+1");
      });
    }

    it(`${mode.label}: a failed DELETE of the Failed pod is retried on the next turn`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy });
      h.driver.turn();
      tickUntilIdle(h);
      h.cluster.mutate<Pod>("Pod", h.namespace, "web-0", (p) => {
        p.status = { phase: "Failed" };
      });
      h.cluster.failOn({ verb: "delete", kind: "Pod", nth: 1 });
      const first = h.driver.turn();
      assert.ok(first.execution.failed);
      assert.equal(h.cluster.callCount("delete", "Pod"), 1);
      assert.ok(h.driver.events.some((e) => e.reason === "FailedDelete" && e.message.startsWith("delete Pod web-0 in StatefulSet web failed error: ")));
      h.driver.turn();
      assert.equal(h.cluster.callCount("delete", "Pod"), 2);
      h.driver.converge();
      assert.equal(h.driver.set?.status?.readyReplicas, 3);
    });
  }
});

describe("scenario 13: a failed create is retried [unit TestStatefulSetControl/CreatePodFailure]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: the 2nd pod create fails with 500, later turns reach 3 Ready`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy });
      h.cluster.failOn({ verb: "create", kind: "Pod", nth: 2, error: "Other", message: "Internal error" });
      h.driver.converge();
      assert.ok(h.driver.turns.some((t) => t.execution.failed?.failures.some((f) => f.action.type === "createPod")));
      assert.ok(h.driver.events.some((e) => e.reason === "FailedCreate" && e.message.endsWith("Internal error")));
      assert.equal(h.driver.set?.status?.readyReplicas, 3);
    });
  }
});

describe("scenario 14: a failed status write [unit TestStatefulSetControl/UpdateSetStatusFailure; TestStatefulSetStatusUpdate]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: the status write is attempted once per turn and eventually lands`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy });
      h.cluster.failOn({ verb: "updateStatus", kind: "StatefulSet", nth: 2 });
      let writesBefore = 0;
      for (let i = 0; i < 40; i++) {
        const report = h.driver.turn();
        const attempts = h.cluster.callCount("updateStatus", "StatefulSet") - writesBefore;
        writesBefore += attempts;
        assert.ok(attempts <= 1, "at most one status write attempt per turn");
        assert.equal(attempts, report.plan.status.write ? 1 : 0);
        if (!report.wrote) h.driver.tick();
      }
      assert.ok(h.driver.turns.some((t) => t.execution.statusError !== undefined));
      h.driver.converge();
      assert.equal(h.driver.set?.status?.readyReplicas, 3);
      assert.equal(h.driver.set?.status?.replicas, 3);
    });
  }
});

describe("scenario 15: a claim is recreated for a Pending pod [unit RecreatesPVCForPendingPod; e2e PVC should be recreated when pod is pending due to missing PVC]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: deleting data-web-0 under a Pending web-0 brings the claim back and the pod runs`, () => {
      const h = scenario({ replicas: 1, podManagementPolicy: mode.policy });
      h.driver.turn();
      assert.equal(pod(h, "web-0")?.status?.phase, "Pending");
      h.cluster.delete("PersistentVolumeClaim", h.namespace, "data-web-0");
      h.driver.tick();
      assert.equal(pod(h, "web-0")?.status?.phase, "Pending", "cannot start without its claim");
      const report = h.driver.turn();
      assert.deepEqual(allActions(report.plan).filter((a) => a.type === "createClaim").map((a) => a.name), ["data-web-0"]);
      h.driver.converge();
      assert.ok(claim(h, "data-web-0"));
      assert.deepEqual(readyPodNames(h), ["web-0"]);
    });
  }
});

describe("scenario 16: a set being deleted [ctrl TestStatefulSetControllerDeletionTimestamp, TestStatefulSetControllerDeletionTimestampRace]", () => {
  it("creates no pods for a set with a deletionTimestamp, but still computes its status", () => {
    const h = scenario({ replicas: 3 });
    h.driver.turn();
    h.cluster.mutate<StatefulSet>("StatefulSet", h.namespace, h.name, (s) => {
      const meta = (s.metadata ??= {});
      meta.deletionTimestamp = h.cluster.timestamp();
      meta.finalizers = ["test/hold"];
    });
    tickUntilIdle(h);
    for (let i = 0; i < 5; i++) {
      const report = h.driver.turn();
      assert.deepEqual(allActions(report.plan).filter((a) => a.type !== "deleteRevision"), []);
      h.driver.tick();
    }
    assert.deepEqual(podNames(h), ["web-0"]);
    assert.equal(h.driver.set?.status?.readyReplicas, 1);
  });

  it("adopts no orphan pod or revision when the cache says alive but a fresh read says deleting", () => {
    let staleCache = false;
    const h = scenario(
      { replicas: 1 },
      {
        snapshotHook: (snapshot) => {
          if (staleCache) delete snapshot.set.metadata?.deletionTimestamp;
          return snapshot;
        },
      },
    );
    h.driver.converge();
    const orphanPod = structuredClone(pod(h, "web-0")) as Pod;
    orphanPod.metadata = { name: "web-1", namespace: h.namespace, labels: { app: "web" } };
    h.cluster.create<Pod>("Pod", orphanPod);
    const orphanRevision: ControllerRevision = {
      metadata: { name: "web-orphan", namespace: h.namespace, labels: { app: "web" } },
      data: { spec: { template: { $patch: "replace" } } },
      revision: 7,
    };
    h.cluster.create<ControllerRevision>("ControllerRevision", orphanRevision);
    h.cluster.mutate<StatefulSet>("StatefulSet", h.namespace, h.name, (s) => {
      const meta = (s.metadata ??= {});
      meta.deletionTimestamp = h.cluster.timestamp();
      meta.finalizers = ["test/hold"];
    });
    staleCache = true;
    const report = h.driver.turn();
    assert.equal(report.plan.steps[0]?.actions[0]?.type, "verifySetForAdoption", "the plan adopts only after a fresh read");
    assert.equal(report.execution.failed?.index, 0);
    assert.equal(report.execution.statusWritten, false);
    assert.deepEqual(pod(h, "web-1")?.metadata?.ownerReferences ?? [], []);
    assert.deepEqual(h.cluster.get<ControllerRevision>("ControllerRevision", h.namespace, "web-orphan")?.metadata?.ownerReferences ?? [], []);
  });
});
