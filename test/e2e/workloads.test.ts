// StatefulSet behaviour end to end (real nats-server, the simulator, the four services
// as processes), asserting the ORDER of the controller's writes from the simulator's audit log, not only the end
// state. One stack for the file; every scenario has its own namespace, so they run concurrently.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { findKubectl, Kubectl } from "../../tools/kube-sim/src/testing/kubectl.ts";
import { useStack, waitFor } from "../support/stack.ts";
import type { AuditEvent } from "../support/stack.ts";
import {
  assertClaimsBeforePods,
  auditMark,
  createSet,
  creates,
  deletes,
  getPod,
  getSet,
  IMAGE_A,
  IMAGE_B,
  isReady,
  listClaims,
  listEvents,
  listPods,
  listRevisions,
  patchPod,
  patchSet,
  podNames,
  range,
  revisionOf,
  since,
  SIM_READY,
  SIM_START_DELAY,
  uniqueNames,
  waitForConverged,
} from "./helpers.ts";

const t = await useStack();
const { kube, audit } = t;
const kubectlBinary = findKubectl();

/** The last audited request of the test itself (User-Agent stsfleet-stsfleet/… (e2e)) on a pod. */
function lastTestWrite(namespace: string, pod: string, verb: string): AuditEvent {
  const writes = audit.where({ verb, resource: "pods", namespace, name: pod, service: "stsfleet", succeeded: true });
  const last = writes.at(-1);
  assert.ok(last, `no ${verb} of ${pod} by the test in the audit log`);
  return last;
}


/** For a rolling replacement of `ordinals` (in that order): each pod is deleted, recreated, and only then the next. */
function assertReplacedInOrder(namespace: string, set: string, mark: number, ordinals: readonly number[]): void {
  const podDeletes = since(mark, deletes(audit, namespace, "pods")).filter((e) => e.service === "actor");
  const podCreates = since(mark, creates(audit, namespace, "pods"));
  assert.deepEqual(uniqueNames(podDeletes, "pod deletes"), podNames(set, ordinals), "pods deleted highest ordinal first");
  assert.deepEqual(uniqueNames(podCreates, "pod creates"), podNames(set, ordinals), "pods recreated in the same order");
  for (const [i, ordinal] of ordinals.entries()) {
    const removed = podDeletes[i];
    const recreated = podCreates[i];
    assert.ok(removed && recreated);
    assert.ok(recreated.receivedUs > removed.completedUs, `${set}-${ordinal} recreated before its delete finished`);
    const next = podDeletes[i + 1];
    if (next) {
      assert.ok(
        next.receivedUs > recreated.completedUs,
        `${next.name} was deleted before ${set}-${ordinal} had been recreated (rolling update must go one at a time)`,
      );
    }
  }
}

describe("StatefulSets end to end through NATS (one stack, audit-log ordering)", { concurrency: true }, () => {
  // upstream e2e: "Scaling should happen in predictable order and halt if any stateful pod is unhealthy"; the
  // simulated readiness gate stands in for the upstream test's broken readiness probe.
  it("OrderedReady: creates 5 pods strictly in order, each only after the previous one is Ready, claims first", async () => {
    const ns = "e2e-ordered";
    await t.createNamespace(ns);
    await createSet(kube, ns, "web", { replicas: 5, annotations: { [SIM_READY]: "false" } });
    for (const i of range(0, 4)) {
      const pod = await waitFor(`web-${i} to be created`, () => getPod(kube, ns, `web-${i}`), { timeoutMs: 30_000 });
      assert.equal(isReady(pod), false, `web-${i} must start unready (template gate)`);
      if (i < 4) {
        // The set must halt at an unready pod: give the controller time to (wrongly) go on.
        await sleep(400);
        assert.equal(await getPod(kube, ns, `web-${i + 1}`), undefined, `web-${i + 1} created while web-${i} was not Ready`);
      }
      await patchPod(kube, ns, `web-${i}`, { metadata: { annotations: { [SIM_READY]: "true" } } });
    }
    await waitForConverged(kube, ns, "web", 5);

    const podCreates = creates(audit, ns, "pods");
    assert.deepEqual(uniqueNames(podCreates, "pod creates"), podNames("web", range(0, 4)));
    assert.ok(podCreates.every((e) => e.service === "actor"), "pods are created by the actor");
    for (const i of range(1, 4)) {
      const ungated = lastTestWrite(ns, `web-${i - 1}`, "patch");
      const created = podCreates[i];
      assert.ok(created);
      assert.ok(created.receivedUs > ungated.completedUs, `web-${i} was created before web-${i - 1} was made Ready`);
    }
    const claimCreates = creates(audit, ns, "persistentvolumeclaims");
    assert.deepEqual(uniqueNames(claimCreates, "claim creates"), podNames("data-web", range(0, 4)));
    assert.ok(claimCreates.every((e) => e.service === "pvc-provisioner"), "claims are created by the pvc-provisioner");
    assertClaimsBeforePods(audit, ns);
    const claims = await waitFor("claims bound", async () => {
      const list = await listClaims(kube, ns);
      return list.length === 5 && list.every((c) => c.status?.phase === "Bound") ? list : undefined;
    });
    assert.equal(claims.length, 5);
  });

  // upstream e2e: "Scaling should happen in predictable order and halt if any stateful pod is unhealthy" (the
  // scale-down half) and TestStatefulSetControlScaleDownDeleteError's ordering.
  it("OrderedReady: scales up in ordinal order and down from the highest ordinal, one pod at a time", async () => {
    const ns = "e2e-scale";
    await t.createNamespace(ns);
    await createSet(kube, ns, "web", { replicas: 2, annotations: { [SIM_START_DELAY]: "150" } });
    await waitForConverged(kube, ns, "web", 2);

    let mark = auditMark(audit);
    await patchSet(kube, ns, "web", { spec: { replicas: 5 } });
    await waitForConverged(kube, ns, "web", 5);
    const upCreates = since(mark, creates(audit, ns, "pods"));
    assert.deepEqual(uniqueNames(upCreates, "pod creates"), podNames("web", [2, 3, 4]));
    for (const [i, event] of upCreates.entries()) {
      const previous = i === 0 ? undefined : upCreates[i - 1];
      if (!previous) continue;
      // A pod cannot be Ready sooner than its start delay after its create: a shorter gap means no waiting.
      assert.ok(
        event.receivedUs - previous.completedUs >= 140_000,
        `${event.name} created ${(event.receivedUs - previous.completedUs) / 1000} ms after ${previous.name}: it cannot have been Ready`,
      );
    }
    assertClaimsBeforePods(audit, ns);

    // Hold web-4 in Terminating with a finalizer: the controller must not delete web-3 until web-4 is gone.
    await patchPod(kube, ns, "web-4", { metadata: { finalizers: ["e2e.stsfleet.dev/hold"] } });
    mark = auditMark(audit);
    await patchSet(kube, ns, "web", { spec: { replicas: 1 } });
    await waitFor("web-4 to be terminating", async () => (await getPod(kube, ns, "web-4"))?.metadata.deletionTimestamp);
    await sleep(600);
    const early = since(mark, deletes(audit, ns, "pods")).map((e) => e.name);
    assert.deepEqual(early, ["web-4"], "only web-4 may be deleted while it is still terminating");
    await patchPod(kube, ns, "web-4", { metadata: { finalizers: null } });
    const released = lastTestWrite(ns, "web-4", "patch");
    await waitForConverged(kube, ns, "web", 1);

    const downDeletes = since(mark, deletes(audit, ns, "pods"));
    assert.deepEqual(uniqueNames(downDeletes, "pod deletes"), podNames("web", [4, 3, 2, 1]));
    assert.ok(downDeletes.every((e) => e.service === "actor"));
    const web3 = downDeletes[1];
    assert.ok(web3 && web3.receivedUs > released.completedUs, "web-3 deleted before web-4 was gone");
    // Claims are retained by default (persistentVolumeClaimRetentionPolicy Retain/Retain).
    assert.equal((await listClaims(kube, ns)).length, 5);
  });

  // upstream e2e: "should perform canary updates and phased rolling updates of template modifications".
  it("RollingUpdate with a partition: replaces only ordinals >= partition, highest first, then the rest", async () => {
    const ns = "e2e-rolling";
    await t.createNamespace(ns);
    await createSet(kube, ns, "web", { replicas: 5 });
    const { set: initial } = await waitForConverged(kube, ns, "web", 5);
    const rev1 = initial.status?.updateRevision;
    assert.ok(rev1);

    let mark = auditMark(audit);
    await kube.patch(
      { ...RESOURCES.statefulsets, namespace: ns, name: "web" },
      {
        spec: {
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 3 } },
          template: { spec: { containers: [{ name: "app", image: IMAGE_B }] } },
        },
      },
      "strategic",
    );
    const canary = await waitFor("web-3 and web-4 updated", async () => {
      const set = await getSet(kube, ns, "web");
      const pods = await listPods(kube, ns, "web");
      const rev2 = set.status?.updateRevision;
      const done =
        rev2 !== rev1 &&
        set.status?.updatedReplicas === 2 &&
        set.status.readyReplicas === 5 &&
        pods.length === 5 &&
        pods.every(isReady) &&
        pods.slice(3).every((p) => revisionOf(p) === rev2);
      return done ? { set, pods, rev2 } : undefined;
    });
    await sleep(500);
    const pods = await listPods(kube, ns, "web");
    assert.deepEqual(pods.map(revisionOf), [rev1, rev1, rev1, canary.rev2, canary.rev2], "ordinals below the partition keep the old revision");
    assert.equal(canary.set.status?.currentRevision, rev1);
    assertReplacedInOrder(ns, "web", mark, [4, 3]);

    mark = auditMark(audit);
    await patchSet(kube, ns, "web", { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
    const { set: final, pods: finalPods } = await waitForConverged(kube, ns, "web", 5);
    assert.equal(final.status?.currentRevision, canary.rev2);
    assert.ok(finalPods.every((p) => p.spec.containers[0]?.image === IMAGE_B));
    assertReplacedInOrder(ns, "web", mark, [2, 1, 0]);
  });

  // upstream e2e: "should implement legacy replacement when the update strategy is OnDelete".
  it("OnDelete: a template change replaces no pod until the user deletes it", async () => {
    const ns = "e2e-ondelete";
    await t.createNamespace(ns);
    await createSet(kube, ns, "web", { replicas: 3, updateStrategy: { type: "OnDelete" } });
    const { set: initial } = await waitForConverged(kube, ns, "web", 3);
    const rev1 = initial.status?.updateRevision;
    const mark = auditMark(audit);
    await kube.patch(
      { ...RESOURCES.statefulsets, namespace: ns, name: "web" },
      { spec: { template: { spec: { containers: [{ name: "app", image: IMAGE_B }] } } } },
      "strategic",
    );
    const rev2 = await waitFor("the update revision to change", async () => {
      const set = await getSet(kube, ns, "web");
      const update = set.status?.updateRevision;
      return set.status?.observedGeneration === set.metadata.generation && update !== rev1 ? update : undefined;
    });
    await sleep(800);
    assert.deepEqual(since(mark, deletes(audit, ns, "pods")), [], "the controller deleted a pod under OnDelete");
    assert.deepEqual((await listPods(kube, ns, "web")).map(revisionOf), [rev1, rev1, rev1]);

    await kube.delete({ ...RESOURCES.pods, namespace: ns, name: "web-1" });
    await waitFor("web-1 recreated at the update revision", async () => {
      const pod = await getPod(kube, ns, "web-1");
      return pod && isReady(pod) && revisionOf(pod) === rev2 ? pod : undefined;
    });
    assert.deepEqual((await listPods(kube, ns, "web")).map(revisionOf), [rev1, rev2, rev1], "only the deleted pod was replaced");
    const recreated = since(mark, creates(audit, ns, "pods"));
    assert.deepEqual(uniqueNames(recreated, "pod creates"), ["web-1"]);
    assert.deepEqual(since(mark, deletes(audit, ns, "pods")).filter((e) => e.service === "actor"), []);

    await Promise.all(["web-0", "web-2"].map((name) => kube.delete({ ...RESOURCES.pods, namespace: ns, name })));
    await waitFor("every pod at the update revision", async () => {
      const list = await listPods(kube, ns, "web");
      const set = await getSet(kube, ns, "web");
      return list.length === 3 && list.every((p) => isReady(p) && revisionOf(p) === rev2) && set.status?.updatedReplicas === 3;
    });
  });

  for (const variant of ["kubectl", "patch"] as const) {
    // upstream e2e: "should perform rolling updates and roll backs of template modifications"; kubectl's
    // StatefulSetRollbacker sends the previous ControllerRevision's data as a strategic merge patch.
    const skip = variant === "kubectl" && kubectlBinary === undefined ? "kubectl is not on the PATH (the patch variant sends the same PATCH)" : false;
    it(`rollout undo (${variant === "kubectl" ? "kubectl rollout undo" : "the PATCH kubectl rollout undo sends"}) rolls back to the previous revision`, { skip }, async () => {
      const ns = `e2e-undo-${variant}`;
      await t.createNamespace(ns);
      await createSet(kube, ns, "web", { replicas: 3, image: IMAGE_A });
      const { set: first } = await waitForConverged(kube, ns, "web", 3);
      const rev1 = first.status?.updateRevision;
      assert.ok(rev1);
      await kube.patch(
        { ...RESOURCES.statefulsets, namespace: ns, name: "web" },
        { spec: { template: { spec: { containers: [{ name: "app", image: IMAGE_B }] } } } },
        "strategic",
      );
      const { set: second } = await waitForConverged(kube, ns, "web", 3);
      assert.notEqual(second.status?.updateRevision, rev1);

      const mark = auditMark(audit);
      if (variant === "kubectl") {
        const kubectl = new Kubectl(kubectlBinary ?? "kubectl", t.kubeconfigPath);
        try {
          await kubectl.ok(["rollout", "undo", "statefulset/web", "-n", ns]);
        } finally {
          kubectl.cleanup();
        }
      } else {
        const revisions = await listRevisions(kube, ns);
        const previous = revisions.at(-2);
        assert.ok(previous, "no previous revision to roll back to");
        await kube.request({
          method: "PATCH",
          path: `/apis/apps/v1/namespaces/${ns}/statefulsets/web`,
          rawBody: JSON.stringify(previous.data),
          contentType: "application/strategic-merge-patch+json",
          verb: "patch",
          resource: "statefulsets",
        });
      }
      const { set: rolledBack, pods } = await waitForConverged(kube, ns, "web", 3);
      assert.equal(rolledBack.status?.updateRevision, rev1, "the equivalent old revision is reused, not duplicated");
      assert.ok(pods.every((p) => p.spec.containers[0]?.image === IMAGE_A));
      const revisions = await listRevisions(kube, ns);
      assert.equal(revisions.length, 2, "no new ControllerRevision for a rollback");
      assert.equal(revisions.find((r) => r.metadata.name === rev1)?.revision, 3, "the reused revision gets the next number");
      assertReplacedInOrder(ns, "web", mark, [2, 1, 0]);
    });
  }

  // upstream e2e: "Burst scaling should run to completion even with unhealthy pods".
  it("Parallel: creates all 50 pods without waiting for readiness, each with its claim first, then all become Ready", async () => {
    const ns = "e2e-parallel";
    await t.createNamespace(ns);
    await createSet(kube, ns, "burst", { replicas: 50, podManagementPolicy: "Parallel", annotations: { [SIM_READY]: "false" } });
    const pods = await waitFor(
      "50 pods",
      async () => {
        const list = await listPods(kube, ns, "burst");
        return list.length === 50 ? list : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    assert.equal(pods.filter(isReady).length, 0, "every pod was created while none was Ready");
    assert.deepEqual(uniqueNames(creates(audit, ns, "pods"), "pod creates").sort(), podNames("burst", range(0, 49)).sort());
    assert.equal(uniqueNames(creates(audit, ns, "persistentvolumeclaims"), "claim creates").length, 50);
    assertClaimsBeforePods(audit, ns);

    for (let i = 0; i < 50; i += 10) {
      await Promise.all(
        range(i, i + 9).map((n) => patchPod(kube, ns, `burst-${n}`, { metadata: { annotations: { [SIM_READY]: "true" } } })),
      );
    }
    await waitForConverged(kube, ns, "burst", 50, 90_000);
    assert.equal(uniqueNames(creates(audit, ns, "pods"), "pod creates").length, 50, "no pod was created twice");
  });

  // Acceptance 4 / planner InvalidName: the revision label (`<name>-<hash>`) cannot exceed 63 characters, so a
  // 60-character name passes API validation but cannot be reconciled.
  // What an operator types against the local stack (the kubectl transcript's commands that need the controller):
  // kubectl's typed commands speak protobuf to the simulator, `rollout status` waits on what the status-writer writes.
  it("kubectl on the fleet: create namespace, set image, rollout status and history, logs, exec refused", { skip: kubectlBinary === undefined ? "kubectl is not on the PATH" : false }, async () => {
    const kubectl = new Kubectl(kubectlBinary ?? "kubectl", t.kubeconfigPath);
    try {
      const ns = "e2e-kubectl-day";
      assert.match(await kubectl.ok(["create", "namespace", ns]), /namespace\/e2e-kubectl-day created/);
      await createSet(kube, ns, "web", { replicas: 2, image: IMAGE_A });
      await waitForConverged(kube, ns, "web", 2);
      assert.match(await kubectl.ok(["-n", ns, "set", "image", "statefulset/web", `app=${IMAGE_B}`]), /image updated/);
      assert.match(await kubectl.ok(["-n", ns, "rollout", "status", "statefulset/web", "--timeout=60s"]), /roll out complete/);
      const history = await kubectl.ok(["-n", ns, "rollout", "history", "statefulset/web"]);
      assert.match(history, /^1\s/m);
      assert.match(history, /^2\s/m);
      assert.match(await kubectl.ok(["-n", ns, "logs", "web-0"]), new RegExp(`container started from image ${IMAGE_B.replaceAll(".", "\\.")}`));
      const exec = await kubectl.run(["-n", ns, "exec", "web-0", "--", "true"]);
      assert.notEqual(exec.code, 0);
      assert.match(exec.stderr, /kube-sim runs no containers/);
    } finally {
      kubectl.cleanup();
    }
  });

  it("a StatefulSet the planner refuses gets a Warning Event and nothing else", async () => {
    const ns = "e2e-refused";
    const name = `refused-${"x".repeat(52)}`;
    assert.equal(name.length, 60);
    await t.createNamespace(ns);
    await createSet(kube, ns, name, { replicas: 2 });
    const warning = await waitFor("a Warning Event about the set", async () => {
      const events = await listEvents(kube, ns);
      return events.find((e) => e.type === "Warning" && e.involvedObject.name === name);
    });
    assert.equal(warning.reason, "InvalidName");
    assert.equal(warning.involvedObject.kind, "StatefulSet");
    await sleep(1_500);
    const writes = audit
      .where({ namespace: ns, succeeded: true })
      .filter((e) => e.service !== undefined && e.service !== "stsfleet" && e.resource !== "events");
    assert.deepEqual(
      writes.map((e) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ""} ${e.name ?? ""}`),
      [],
      "the controller wrote something besides the Warning Event",
    );
    assert.deepEqual(await listPods(kube, ns, name), []);
    assert.deepEqual(await listRevisions(kube, ns), []);
    const events = await listEvents(kube, ns);
    assert.ok(events.every((e) => e.type === "Warning" && e.reason === "InvalidName"), JSON.stringify(events.map((e) => e.reason)));
    assert.equal(events.length, 1, "one Event object (repeats are counted on it)");
  });
});
