// Behaviour the numbered scenarios touch only in passing: the first-unhealthy rule, minReadySeconds, pod adoption
// and release, write-only-when-inconsistent, the feature gates, Events and sync errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS } from "#protocol";
import { allActions } from "./describe.ts";
import type { PersistentVolumeClaim, Pod } from "./types.ts";
import {
  MODES,
  addFinalizer,
  deletePod,
  mark,
  pod,
  podCreates,
  podDeletes,
  podNames,
  readyPodNames,
  scenario,
  setImage,
  tickUntilIdle,
} from "./testing/index.ts";
import type { Harness } from "./testing/index.ts";

function scale(h: Harness, replicas: number): void {
  h.cluster.updateSet(h.namespace, h.name, (s) => {
    (s.spec ??= {}).replicas = replicas;
  });
}

describe("scale-down and the first unhealthy pod [unit TestStatefulSetControl/ScalesDown; processCondemned]", () => {
  it("OrderedReady deletes the lowest unhealthy condemned pod, but no unhealthy pod above it", () => {
    const h = scenario({ replicas: 3 });
    h.driver.converge();
    h.kubelet.setPolicy("web-1", { ready: false });
    tickUntilIdle(h);
    scale(h, 1);
    const before = mark(h);
    h.driver.converge();
    // web-2 is healthy: deleted; then web-1 is the first unhealthy pod: deleted although unready.
    assert.deepEqual(podDeletes(h, before), ["web-2", "web-1"]);
    assert.deepEqual(podNames(h), ["web-0"]);
  });

  it("OrderedReady halts when an unhealthy condemned pod is not the first unhealthy one", () => {
    const h = scenario({ replicas: 3 });
    h.driver.converge();
    h.kubelet.setPolicy("web-1", { ready: false });
    h.kubelet.setPolicy("web-2", { ready: false });
    tickUntilIdle(h);
    scale(h, 1);
    const before = mark(h);
    for (let i = 0; i < 5; i++) {
      h.driver.turn();
      h.driver.tick();
    }
    assert.deepEqual(podDeletes(h, before), [], "web-2 is unhealthy and web-1 is the first unhealthy pod");
  });
});

describe("minReadySeconds [e2e StatefulSet MinReadySeconds should be honored when enabled; availableReplicas]", () => {
  it("OrderedReady waits for each pod to be available before the next, and requeues for it", () => {
    const h = scenario({ replicas: 2, minReadySeconds: 30 }, { tickMs: 1000 });
    h.driver.turn();
    tickUntilIdle(h);
    const waiting = h.driver.turn();
    assert.deepEqual(allActions(waiting.plan).filter((a) => a.type === "createPod"), [], "web-0 is Ready but not yet available");
    assert.equal(h.driver.set?.status?.readyReplicas, 1);
    assert.equal(h.driver.set?.status?.availableReplicas, 0);
    const requeue = waiting.plan.requeueAfterMs;
    assert.ok(requeue !== null && requeue > 0 && requeue <= 30_000, `requeue ${requeue}`);
    h.cluster.advance(requeue);
    const next = h.driver.turn();
    assert.deepEqual(allActions(next.plan).filter((a) => a.type === "createPod").map((a) => a.name), ["web-1"]);
    assert.equal(h.driver.set?.status?.availableReplicas, 1);
    h.driver.converge();
    assert.equal(h.driver.set?.status?.availableReplicas, 2);
    assert.equal(h.driver.turn().plan.requeueAfterMs, null, "no requeue once everything is available");
  });
});

describe("adoption and release of pods [ctrl TestStatefulSetControllerAddPod/UpdatePod orphan; ClaimPods]", () => {
  function orphan(h: Harness, name: string, labels: Record<string, string>, extra: Partial<NonNullable<Pod["metadata"]>> = {}): void {
    h.cluster.create<Pod>("Pod", { metadata: { name, namespace: h.namespace, labels, ...extra }, spec: { containers: [] } });
  }

  it("adopts a matching orphan, releases an owned pod that stopped matching, ignores others", () => {
    const h = scenario({ replicas: 2 });
    h.driver.converge();
    deletePod(h, "web-1");
    tickUntilIdle(h);
    orphan(h, "web-1", { app: "web" });
    orphan(h, "other-0", { app: "web" });
    orphan(h, "web-7", { app: "web" }, { ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "rs-uid", controller: true }] });
    h.cluster.mutate<Pod>("Pod", h.namespace, "web-0", (p) => {
      (p.metadata ??= {}).labels = { ...p.metadata.labels, app: "moved" };
    }, "patch");
    const report = h.driver.turn();
    const adoption = report.plan.steps.filter((s) => s.phase === "adoption").map((s) => s.actions.map((a) => `${a.type}:${"name" in a ? a.name : ""}`));
    assert.deepEqual(adoption, [["verifySetForAdoption:web"], ["releasePod:web-0", "adoptPod:web-1"]]);
    assert.equal(pod(h, "web-1")?.metadata?.ownerReferences?.[0]?.uid, h.driver.set?.metadata?.uid);
    assert.deepEqual(pod(h, "web-0")?.metadata?.ownerReferences ?? [], []);
    assert.deepEqual(pod(h, "other-0")?.metadata?.ownerReferences ?? [], [], "not a member by name");
    assert.equal(pod(h, "web-7")?.metadata?.ownerReferences?.[0]?.kind, "ReplicaSet", "controlled by someone else");
    // The released pod still holds the name web-0: upstream's create fails with AlreadyExists, without an Event,
    // until a user removes the stray pod.
    const eventsBefore = h.driver.events.length;
    const next = h.driver.turn();
    assert.equal(next.execution.failed?.failures[0]?.error.kind, "AlreadyExists");
    assert.deepEqual(h.driver.events.slice(eventsBefore).filter((e) => e.reason === "FailedCreate"), []);
    h.cluster.delete("Pod", h.namespace, "web-0");
    h.driver.converge();
    assert.equal(pod(h, "web-0")?.metadata?.ownerReferences?.[0]?.uid, h.driver.set?.metadata?.uid);
  });

  it("does not adopt a terminating orphan", () => {
    const h = scenario({ replicas: 1 });
    h.driver.converge();
    orphan(h, "web-3", { app: "web" }, { finalizers: ["test/hold"] });
    h.cluster.delete("Pod", h.namespace, "web-3");
    const report = h.driver.turn();
    assert.ok(!allActions(report.plan).some((a) => a.type === "adoptPod"));
  });
});

describe("status is written only when inconsistent [inconsistentStatus; TestStatefulSetControl status updates]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: a steady set plans nothing and writes no status`, () => {
      const h = scenario({ replicas: 3, podManagementPolicy: mode.policy });
      h.driver.converge();
      const report = h.driver.turn();
      assert.deepEqual(report.plan.steps, []);
      assert.equal(report.plan.status.write, false);
      const status = h.driver.set?.status;
      assert.deepEqual(report.plan.status.value, { ...status });
    });
  }

  it("a collisionCount-only change is not written (upstream: not part of inconsistentStatus)", () => {
    const h = scenario({ replicas: 1 });
    h.driver.converge();
    h.cluster.mutate("StatefulSet", h.namespace, h.name, (s: { status?: Record<string, unknown> }) => {
      (s.status ??= {}).collisionCount = 3;
    });
    const report = h.driver.turn();
    assert.equal(report.plan.status.write, false);
  });
});

describe("feature gates", () => {
  it("MaxUnavailableStatefulSet off: one pod at a time, maxUnavailable ignored [TestStatefulSetControlRollingUpdate gate off]", () => {
    const h = scenario({ replicas: 4, maxUnavailable: 3 }, { planOptions: { maxUnavailableStatefulSet: false } });
    h.driver.converge();
    h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, "nginx:1.26"));
    const first = h.driver.turn();
    assert.deepEqual(allActions(first.plan).filter((a) => a.type === "deletePod").map((a) => a.name), ["web-3"]);
    const before = mark(h);
    h.driver.converge();
    assert.deepEqual(podDeletes(h, before), ["web-2", "web-1", "web-0"]);
  });

  it("StatefulSetRecreateStrategy on: Recreate deletes every old pod, waits, then creates the new ones [KEP-3541]", () => {
    const h = scenario({ replicas: 3, updateStrategy: "Recreate" }, { planOptions: { recreateStrategy: true } });
    h.driver.converge();
    h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, "nginx:1.26"));
    const before = mark(h);
    const first = h.driver.turn();
    assert.deepEqual(allActions(first.plan).filter((a) => a.type === "deletePod").map((a) => a.type === "deletePod" && a.reason), ["recreate", "recreate", "recreate"]);
    assert.equal(first.plan.status.value.conditions?.[0]?.type, "Progressing");
    assert.deepEqual(allActions(h.driver.turn().plan).filter((a) => a.type === "createPod"), [], "waits for the old pods to go");
    h.driver.converge();
    assert.deepEqual(podCreates(h, before), ["web-0", "web-1", "web-2"]);
    assert.deepEqual(readyPodNames(h), ["web-0", "web-1", "web-2"]);
    assert.ok(h.driver.pods().every((p) => p.metadata?.labels?.[LABELS.revisionHash] === h.driver.set?.status?.updateRevision));
  });
});

describe("Events and sync errors [stateful_pod_control.go recordPodEvent / recordClaimEvent]", () => {
  it("records upstream's reasons and messages", () => {
    const h = scenario({ replicas: 1 });
    h.driver.converge();
    h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, "nginx:1.26"));
    h.driver.converge();
    const messages = h.driver.events.map((e) => `${e.type} ${e.reason}: ${e.message}`);
    assert.deepEqual(messages, [
      "Normal SuccessfulCreate: create Claim data-web-0 Pod web-0 in StatefulSet web success",
      "Normal SuccessfulCreate: create Pod web-0 in StatefulSet web successful",
      "Normal SuccessfulDelete: delete Pod web-0 in StatefulSet web successful",
      "Normal SuccessfulCreate: create Pod web-0 in StatefulSet web successful",
    ]);
  });

  it("a claim being deleted blocks the pod with FailedCreate and a sync error, then recovers", () => {
    const h = scenario({ replicas: 1 });
    h.driver.converge();
    addFinalizer(h, "PersistentVolumeClaim", "data-web-0");
    h.cluster.delete("PersistentVolumeClaim", h.namespace, "data-web-0");
    deletePod(h, "web-0");
    tickUntilIdle(h);
    const report = h.driver.turn();
    assert.equal(report.plan.syncError, "pvc data-web-0 is being deleted");
    assert.ok(h.driver.events.some((e) => e.reason === "FailedCreate" && e.message === "create Pod web-0 in StatefulSet web failed error: pvc data-web-0 is being deleted"));
    assert.equal(pod(h, "web-0"), undefined);
    h.cluster.mutate<PersistentVolumeClaim>("PersistentVolumeClaim", h.namespace, "data-web-0", (c) => {
      (c.metadata ??= {}).finalizers = [];
    });
    h.driver.converge();
    assert.deepEqual(readyPodNames(h), ["web-0"]);
  });
});
