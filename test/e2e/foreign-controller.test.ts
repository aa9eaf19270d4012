// Never fight another controller (docs/adr/0092-another-statefulset-controller.md): while a set is being
// scaled, a second client with field manager `kube-controller-manager` keeps writing its status every 300 ms, as
// kube-controller-manager's StatefulSet controller would if nobody had switched it off. stsfleet must stop acting on
// the set within one turn (no pod create or delete after that), and say why: a Warning Event, the ForeignController
// condition, a metric and a failing /readyz check on the owning actor. Once the writes stop for the quiet period, it
// acts again and the set converges. A single foreign status write (ADR 0087) must not stop it:
// test/e2e/status-foreign.test.ts keeps that.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeClient, RESOURCES, loadKubeConfig, resourcePath } from "../../services/common/src/kube.ts";
import { probeReadyz } from "../../tools/stsfleet/src/readiness.ts";
import { FAST_SERVICE_ARGS, useStack, waitFor } from "../support/stack.ts";
import type { Sample } from "../support/stack.ts";
import { SIM_START_DELAY, createSet, creates, deletes, getSet, listEvents, listPods, patchSet, waitForConverged } from "./helpers.ts";
import type { StatefulSet } from "./helpers.ts";

/** Short, so the test sees the set acted on again; the writer's 300 ms period restarts it many times over. */
const QUIET_MS = 4_000;
const t = await useStack({ serviceArgs: { ...FAST_SERVICE_ARGS, actor: [...FAST_SERVICE_ARGS.actor, "--foreign-quiet-period-ms", String(QUIET_MS)] } });
/** kube-controller-manager's status updater, as it calls the API server (its User-Agent ends in the controller's name). */
const KCM_USER_AGENT = "kube-controller-manager/v1.32.6 (linux/amd64) kubernetes/0a1b2c3/statefulset-controller";
const NS = "e2e-foreign-controller";
const BOUND_MS = 30_000;

interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

function foreignCondition(set: StatefulSet): Condition | undefined {
  const conditions = (set.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  return conditions.find((condition) => condition.type === "ForeignController");
}

function sum(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((total, s) => total + s.value, 0);
}

/**
 * Another StatefulSet controller with a stale view of the set: every `everyMs` it writes the status it computed
 * (2 replicas, flapping between 1 and 2 ready), with `?fieldManager=kube-controller-manager`. Returns a stop.
 */
function keepWritingStatus(name: string, everyMs: number): { stop: () => Promise<number> } {
  const kube = new KubeClient(loadKubeConfig(t.kubeconfigPath, KCM_USER_AGENT), { requestTimeoutMs: 10_000 });
  const stopped = new AbortController();
  let writes = 0;
  const loop = (async () => {
    for (let tick = 0; !stopped.signal.aborted; tick++) {
      const ready = tick % 2 === 0 ? 1 : 2;
      await kube
        .request({
          method: "PATCH",
          path: resourcePath({ ...RESOURCES.statefulsets, namespace: NS, name, subresource: "status" }),
          query: { fieldManager: "kube-controller-manager" },
          body: { status: { replicas: 2, readyReplicas: ready, availableReplicas: ready, currentReplicas: 2, updatedReplicas: 2 } },
          contentType: "application/merge-patch+json",
          verb: "patch",
          resource: "statefulsets",
        })
        .then(() => writes++)
        .catch(() => undefined);
      await sleep(everyMs, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      stopped.abort();
      await loop;
      return writes;
    },
  };
}

function actorProbes(): string {
  const probes = t.stack.service("actor-0").probes;
  assert.ok(probes, "actor-0 serves /readyz");
  return probes;
}

describe("another StatefulSet controller keeps writing a set's status", () => {
  it("stsfleet stops acting on the set within one turn, says why, writes no pod, and acts again once the writes stop", async () => {
    await t.createNamespace(NS);
    // Pods take a second to turn Ready, so the scale below is still creating pods when the other controller starts,
    // and the next pod's turn comes long after the first foreign write is in the owner's cache.
    await createSet(t.kube, NS, "web", { replicas: 2, claims: false, annotations: { [SIM_START_DELAY]: "1000" } });
    await waitForConverged(t.kube, NS, "web", 2, BOUND_MS);
    const detectedBefore = sum(await t.metrics("actor-0"), "stsfleet_foreign_controller_events_total", { event: "detected", rule: "known-controller" });

    await patchSet(t.kube, NS, "web", { spec: { replicas: 5 } });
    const writer = keepWritingStatus("web", 300);
    let writerStopped = false;
    try {
      // Within one turn of the first foreign write the owner leaves the set alone and writes the condition.
      const stoppedSet = await waitFor(
        "the ForeignController condition to be True",
        async () => {
          const set = await getSet(t.kube, NS, "web");
          return foreignCondition(set)?.status === "True" ? set : undefined;
        },
        { timeoutMs: BOUND_MS, intervalMs: 100 },
      );
      const stoppedAtUs = Date.now() * 1000;
      const condition = foreignCondition(stoppedSet);
      assert.equal(condition?.reason, "ForeignControllerDetected");
      assert.match(condition?.message ?? "", /^kube-controller-manager wrote this StatefulSet's status while stsfleet controls it/);

      const event = await waitFor(
        "the Warning Event ForeignControllerDetected",
        async () => (await listEvents(t.kube, NS)).find((e) => e.reason === "ForeignControllerDetected" && e.involvedObject.name === "web"),
        { timeoutMs: BOUND_MS, intervalMs: 200 },
      );
      assert.equal(event.type, "Warning");
      const metrics = await t.metrics("actor-0");
      assert.equal(sum(metrics, "stsfleet_foreign_controller_sets"), 1, "the gauge counts the set left alone");
      assert.ok(sum(metrics, "stsfleet_foreign_controller_events_total", { event: "detected", rule: "known-controller" }) > detectedBefore, "the detection is counted");
      const readyz = await probeReadyz(actorProbes());
      assert.equal(readyz.ok, false);
      assert.match(readyz.detail, /actor failed: foreign-controller: another controller writes the status of e2e-foreign-controller\/web \(kube-controller-manager\)/);

      // The other controller keeps writing; stsfleet writes no pod of the set, although the scale is unfinished.
      await sleep(3_000);
      const firstForeignUs = Math.min(
        ...t.audit.where({ verb: "patch", resource: "statefulsets", subresource: "status", namespace: NS, name: "web", succeeded: true }).map((e) => e.completedUs),
      );
      const podWrites = [...creates(t.audit, NS, "pods"), ...deletes(t.audit, NS, "pods")];
      assert.deepEqual(podWrites.filter((e) => e.receivedUs > stoppedAtUs).map((e) => `${e.verb} ${e.name ?? ""}`), [], "no pod write once the condition is there");
      // At most the turn already running when the first foreign write landed creates its one pod (OrderedReady).
      assert.ok(podWrites.filter((e) => e.receivedUs > firstForeignUs).length <= 1, "one turn at most after the first foreign write");
      const set = await getSet(t.kube, NS, "web");
      assert.equal(foreignCondition(set)?.status, "True", "still left alone while the writes go on");
      assert.ok((await listPods(t.kube, NS, "web")).length < 5, "the scale did not finish behind the other controller's back");

      // The other controller is switched off: after the quiet period the set is acted on again and converges.
      const writes = await writer.stop();
      writerStopped = true;
      assert.ok(writes >= 5, `the other controller kept writing (${writes} writes)`);
    } finally {
      if (!writerStopped) await writer.stop();
    }
    await waitFor(
      "the ForeignController condition to be False",
      async () => {
        const condition = foreignCondition(await getSet(t.kube, NS, "web"));
        return condition?.status === "False" ? condition : undefined;
      },
      { timeoutMs: QUIET_MS + BOUND_MS, intervalMs: 200 },
    );
    await waitForConverged(t.kube, NS, "web", 5, BOUND_MS);
    const gone = (await listEvents(t.kube, NS)).find((e) => e.reason === "ForeignControllerGone");
    assert.equal(gone?.type, "Normal");
    assert.equal(sum(await t.metrics("actor-0"), "stsfleet_foreign_controller_sets"), 0);
    assert.equal((await probeReadyz(actorProbes())).ok, true, "ready again");
  });
});
