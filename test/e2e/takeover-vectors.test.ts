// Zero-restart takeover. A cluster whose StatefulSets, ControllerRevisions, pods and claims
// were written by the real kube-controller-manager v1.32.6 (test/fixtures/kcm-v1.32.6.json: two sets, one rolled
// back with `kubectl rollout undo`, one with an env change and claims) is loaded into the simulator as recorded
// (`--seed`: original uids, resourceVersions, generations, labels, status, Ready pods; tools/kube-sim/README.md,
// "Seeding"), and the fleet starts against it, as after switching kube-controller-manager's StatefulSet controller
// off. Every set gets its turns; afterwards the fleet must have written nothing to a pod, a claim or a
// ControllerRevision, and each set's currentRevision/updateRevision must still be the recorded names.
//
// What upstream does on the same state, and so what is allowed: nothing but a /status write. Its sync() reuses the
// newest revision whose data equals the template's (ADR 0011: stsfleet's revisions are byte-compatible, and with
// StatefulSetSemanticRevisionComparison a `"creationTimestamp":null` difference is no change), so no revision is
// created and none truncated (2 of at most 10 per set); every pod carries the update revision's hash, its identity
// labels (pod-name, pod-index) and the set's controller reference, so none is recreated, updated or adopted; the
// claims exist and the retention policy is Retain/Retain, so no claim is created or re-owned. Upstream's
// TestStatefulSetCompatibility asserts exactly this (zero writes; services/actor/src/planner/revisions.test.ts does
// the same for the pure planner); here the whole fleet over NATS is held to it through the simulator's audit log,
// which records every write any client sent (the simulator's own scheduler, kubelet and volume binder write in
// process and are not in it: they bind the recorded pods, which have no node, and the pending claims).
//
// The same objects are also seeded a second time, in namespace `vec-served-137`, as an API server of 1.34 or
// later serves what 1.32 stored: without `"creationTimestamp":null` in the template and claim template metadata, and
// with `rollingUpdate.maxUnavailable: 1` defaulted (the differences tools/kube-sim/src/api/vectors.test.ts allows).
// That is the form a current cluster would show the fleet; the revision names must not change there either.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type {
  ControllerRevision as RecordedRevisionObject,
  ObjectMeta,
  PersistentVolumeClaim as RecordedClaim,
  Pod as RecordedPod,
  StatefulSet as RecordedSet,
} from "../../services/actor/src/planner/types.ts";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { otlpEnvironment, startOtlpReceiver } from "../observability/otlp-receiver.ts";
import type { ReceivedSpan } from "../observability/otlp-receiver.ts";
import { loadKcmRecording } from "../support/kcm-recording.ts";
import { FAST_KUBE_SIM_ARGS, useStack, waitFor } from "../support/stack.ts";
import type { AuditEvent, Sample } from "../support/stack.ts";
import type { Claim, ControllerRevision, Pod } from "./helpers.ts";
import { getSet, isReady } from "./helpers.ts";

const recording = loadKcmRecording();
const RECORDED_NS = "vec";
const SERVED_NS = "vec-served-137";
const NAMESPACES = [RECORDED_NS, SERVED_NS] as const;
const AUDIT_FENCE_NS = "takeover-audit-fence";
/** Every set's turns must have run by then (the stack is already ready; a loaded 2-core machine is slow). */
const TURNS_TIMEOUT_MS = 60_000;
/**
 * No turn for this long means the fleet has acted on everything it saw: turns follow object changes (the last ones
 * are the simulator binding the recorded pods and claims) and end in a span exported within 200 ms
 * (otlpEnvironment's OTEL_BSP_SCHEDULE_DELAY).
 */
const QUIET_MS = 2_000;

/** One namespace's worth of the recording, as seeded. */
interface Seeded {
  readonly namespace: { apiVersion: "v1"; kind: "Namespace"; metadata: ObjectMeta; spec: unknown; status: unknown };
  readonly sets: RecordedSet[];
  readonly revisions: RecordedRevisionObject[];
  readonly pods: RecordedPod[];
  readonly claims: RecordedClaim[];
}

/** Go's ObjectMeta before 1.34 wrote a zero creationTimestamp as null; 1.34+ omits it (ADR 0011). */
function withoutNullCreationTimestamp(meta: ObjectMeta | undefined): void {
  if (meta?.creationTimestamp === null) delete meta.creationTimestamp;
}

/** The recorded set as a 1.34+ API server with MaxUnavailableStatefulSet on serves the same stored object. */
function servedByNewerServer(set: RecordedSet): void {
  const spec = set.spec;
  assert.ok(spec, "a recorded set has a spec");
  withoutNullCreationTimestamp(spec.template?.metadata);
  for (const claim of spec.volumeClaimTemplates ?? []) withoutNullCreationTimestamp(claim.metadata);
  spec.updateStrategy = { ...spec.updateStrategy, rollingUpdate: { ...spec.updateStrategy?.rollingUpdate, maxUnavailable: 1 } };
}

/** The recorded objects in `namespace`: uids and resourceVersions are moved apart for the second copy. */
function seedFor(namespace: string): Seeded {
  const copy = namespace !== RECORDED_NS;
  const uid = (u: string | undefined) => (copy && u !== undefined ? `${u.slice(0, -3)}137` : u);
  const relocate = <T extends { metadata?: ObjectMeta }>(object: T): T => {
    const out = structuredClone(object);
    const meta = out.metadata;
    assert.ok(meta, "a recorded object has metadata");
    meta.namespace = namespace;
    if (copy) {
      meta.uid = uid(meta.uid);
      meta.resourceVersion = String(Number(meta.resourceVersion) + 1_000);
      for (const ref of meta.ownerReferences ?? []) ref.uid = uid(ref.uid);
    }
    return out;
  };
  const sets = recording.statefulSets.map(relocate);
  if (copy) sets.forEach(servedByNewerServer);
  // The recording keeps each revision's name, number, labels, annotations and exact data.raw; the rest of its
  // metadata is what upstream's NewControllerRevision writes: the set's controller reference. The simulator gives it
  // a uid, a creationTimestamp and a resourceVersion after the recorded ones (none were recorded).
  const revisions = recording.controllerRevisions.map((r): RecordedRevisionObject => {
    const set = sets.find((s) => s.metadata?.name === r.set);
    assert.ok(set, `recorded set of ${r.name}`);
    return {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: {
        name: r.name,
        namespace,
        labels: r.labels,
        annotations: r.annotations ?? {},
        ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: r.set, uid: set.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true }],
      },
      data: JSON.parse(r.raw) as unknown,
      revision: r.revision,
    };
  });
  return {
    namespace: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, labels: { "kubernetes.io/metadata.name": namespace } }, spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } },
    sets,
    revisions,
    pods: recording.pods.map(relocate),
    claims: recording.persistentVolumeClaims.map(relocate),
  };
}

const seeded = new Map<string, Seeded>(NAMESPACES.map((ns) => [ns, seedFor(ns)]));
const seedDir = mkdtempSync(join(tmpdir(), "stsfleet-takeover-"));
after(() => rmSync(seedDir, { recursive: true, force: true }));
const seedFile = join(seedDir, "seed.json");
writeFileSync(seedFile, JSON.stringify([...seeded.values()].flatMap((s) => [s.namespace, ...s.sets, ...s.revisions, ...s.pods, ...s.claims])));

const receiver = await startOtlpReceiver();
after(() => receiver.close());
const t = await useStack({ kubeSimArgs: [...FAST_KUBE_SIM_ARGS, "--seed", seedFile], serviceEnv: otlpEnvironment(receiver) });

function turnsOf(namespace: string, name: string): ReceivedSpan[] {
  return receiver.spans.filter(
    (s) => s.service === "stsfleet-actor" && s.name === "reconcile StatefulSet" && s.attributes["k8s.namespace.name"] === namespace && s.attributes["k8s.statefulset.name"] === name,
  );
}

function plannedActions(samples: readonly Sample[]): number {
  return samples.filter((s) => s.name === "stsfleet_planned_actions_total").reduce((sum, s) => sum + s.value, 0);
}

function describeWrite(e: AuditEvent): string {
  return `${e.service ?? e.userAgent} ${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ""} ${e.namespace ?? ""}/${e.name ?? ""} ${e.code}`;
}

/** Every seeded set, revision, pod and claim of `namespace` is the same object as seeded, unchanged. */
async function assertAsSeeded(namespace: string): Promise<void> {
  const seed = seeded.get(namespace);
  assert.ok(seed);
  for (const recorded of seed.sets) {
    const name = recorded.metadata?.name ?? "";
    const set = await getSet(t.kube, namespace, name);
    assert.equal(set.metadata.uid, recorded.metadata?.uid, `${namespace}/${name}: the same object`);
    assert.equal(set.metadata.generation, recorded.metadata?.generation, `${namespace}/${name}: spec untouched`);
    assert.deepEqual(set.spec, recorded.spec, `${namespace}/${name}: spec as seeded`);
    assert.equal(set.status?.currentRevision, recorded.status?.currentRevision, `${namespace}/${name}: currentRevision`);
    assert.equal(set.status?.updateRevision, recorded.status?.updateRevision, `${namespace}/${name}: updateRevision`);
    assert.equal(set.status?.observedGeneration, set.metadata.generation, `${namespace}/${name}: observedGeneration`);
    assert.equal(set.status?.readyReplicas, recorded.status?.readyReplicas, `${namespace}/${name}: readyReplicas`);
  }

  const revisions = (await t.kube.list<{ items: ControllerRevision[] }>({ ...RESOURCES.controllerrevisions, namespace })).items;
  assert.deepEqual(
    revisions.map((r) => `${r.metadata.name ?? ""}@${r.revision}`).sort(),
    seed.revisions.map((r) => `${r.metadata?.name ?? ""}@${String(r.revision)}`).sort(),
    `${namespace}: the recorded revisions, numbers unchanged, and no other`,
  );

  const pods = (await t.kube.list<{ items: (Pod & { spec: Record<string, unknown> })[] }>({ ...RESOURCES.pods, namespace })).items;
  for (const recorded of seed.pods) {
    const name = recorded.metadata?.name ?? "";
    const pod = pods.find((p) => p.metadata.name === name);
    assert.ok(pod, `${namespace}/${name} still exists`);
    assert.equal(pod.metadata.uid, recorded.metadata?.uid, `${namespace}/${name}: not recreated`);
    assert.deepEqual(pod.metadata.labels, recorded.metadata?.labels, `${namespace}/${name}: labels (revision hash included) unchanged`);
    assert.deepEqual(pod.metadata.ownerReferences, recorded.metadata?.ownerReferences, `${namespace}/${name}: owner unchanged`);
    const { nodeName, ...spec } = pod.spec;
    assert.equal(nodeName, "kube-sim-node", "bound by the simulator's scheduler");
    assert.deepEqual(spec, recorded.spec, `${namespace}/${name}: spec unchanged but for the node`);
    assert.ok(isReady(pod), `${namespace}/${name} is still Ready`);
  }

  const claims = (await t.kube.list<{ items: Claim[] }>({ ...RESOURCES.persistentvolumeclaims, namespace })).items;
  for (const recorded of seed.claims) {
    const name = recorded.metadata?.name ?? "";
    const claim = claims.find((c) => c.metadata.name === name);
    assert.ok(claim, `${namespace}/${name} still exists`);
    assert.equal(claim.metadata.uid, recorded.metadata?.uid, `${namespace}/${name}: the recorded claim`);
    assert.equal(claim.metadata.ownerReferences, undefined, `${namespace}/${name}: Retain/Retain, no owner reference added`);
  }
}

describe("takeover of a cluster kube-controller-manager wrote", () => {
  it("every set gets its turns; no pod, claim or revision is written and the revision names stay the recorded ones", async (test) => {
    const sets = NAMESPACES.flatMap((namespace) => recording.statefulSets.map((s) => ({ namespace, name: s.metadata?.name ?? "" })));
    await waitFor(
      "a completed turn of every seeded set",
      () => sets.every(({ namespace, name }) => turnsOf(namespace, name).some((s) => s.attributes["stsfleet.turn.outcome"] === "done")),
      { timeoutMs: TURNS_TIMEOUT_MS, intervalMs: 200, describeLast: () => sets.map(({ namespace, name }) => `${namespace}/${name}: ${turnsOf(namespace, name).map((s) => s.attributes["stsfleet.turn.outcome"]).join(",")}`) },
    );
    // The simulator's own changes to the recorded objects, which the fleet sees (and may take turns for).
    for (const namespace of NAMESPACES) {
      await waitFor(`the recorded pods of ${namespace} bound to the node and its claims bound`, async () => {
        const pods = (await t.kube.list<{ items: (Pod & { spec: { nodeName?: string } })[] }>({ ...RESOURCES.pods, namespace })).items;
        const claims = (await t.kube.list<{ items: Claim[] }>({ ...RESOURCES.persistentvolumeclaims, namespace })).items;
        return pods.length === recording.pods.length && pods.every((p) => p.spec.nodeName) && claims.every((c) => c.status?.phase === "Bound");
      }, { timeoutMs: TURNS_TIMEOUT_MS });
    }
    let count = -1;
    let changedAt = performance.now();
    await waitFor(`${QUIET_MS} ms without a turn`, () => {
      const now = receiver.spans.filter((s) => s.name === "reconcile StatefulSet").length;
      if (now !== count) {
        count = now;
        changedAt = performance.now();
      }
      return performance.now() - changedAt >= QUIET_MS;
    }, { timeoutMs: TURNS_TIMEOUT_MS, intervalMs: 100 });

    // The audit log is appended as requests complete: a write of the test's own, once it is in the log, shows that
    // every write the fleet completed before it is there too.
    await t.createNamespace(AUDIT_FENCE_NS);
    await waitFor("the test's own write in the audit log", () => t.audit.where({ resource: "namespaces", name: AUDIT_FENCE_NS }).length > 0, { timeoutMs: 10_000 });

    // The fleet's writes, whoever sent them: only a set's /status may be written (upstream writes it whenever the
    // status it computes differs from the stored one; for these recorded states it computes the same).
    const writes = t.audit.all().filter((e) => e.namespace !== undefined && (NAMESPACES as readonly string[]).includes(e.namespace));
    const forbidden = writes.filter((e) => !(e.resource === "statefulsets" && e.subresource === "status"));
    assert.deepEqual(forbidden.map(describeWrite), [], "no write to pods, claims, revisions, sets' spec or Events");
    test.diagnostic(`turns: ${sets.map(({ namespace, name }) => `${namespace}/${name} ${turnsOf(namespace, name).length}`).join(", ")}; status writes: ${writes.length}`);
    const anywhere = t.audit.all().filter((e) => ["pods", "persistentvolumeclaims", "controllerrevisions"].includes(e.resource));
    assert.deepEqual(anywhere.map(describeWrite), [], "no pod, claim or revision written in any namespace");
    assert.equal(plannedActions(await t.metrics("actor-0")), 0, "the planner planned no action at all");

    for (const namespace of NAMESPACES) await assertAsSeeded(namespace);
  });
});
