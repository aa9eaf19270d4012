import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonEqual, sameForOwners } from "./relevance.ts";

const TIME = "2026-01-01T00:00:00Z";
const LATER = "2026-01-01T00:00:05Z";

function pendingPod(rv: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-0", namespace: "default", uid: "u0", resourceVersion: rv, labels: { app: "web" } },
    spec: { containers: [{ name: "c", image: "i" }], hostname: "web-0" },
    status: { phase: "Pending", qosClass: "BestEffort" },
  };
}

/** What the scheduler writes: the node and the PodScheduled condition. */
function scheduled(rv: string): Record<string, unknown> {
  const pod = pendingPod(rv);
  return {
    ...pod,
    spec: { ...(pod["spec"] as object), nodeName: "node-1" },
    status: { phase: "Pending", qosClass: "BestEffort", conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: TIME }] },
  };
}

function running(rv: string, ready: { status: string; at: string }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const pod = scheduled(rv);
  return {
    ...pod,
    status: {
      phase: "Running",
      qosClass: "BestEffort",
      podIP: "10.0.0.1",
      conditions: [
        { type: "PodScheduled", status: "True", lastTransitionTime: TIME },
        { type: "Ready", status: ready.status, lastTransitionTime: ready.at, lastProbeTime: null },
      ],
      ...extra,
    },
  };
}

function claim(rv: string, bound: boolean, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: {
      name: "data-web-0",
      namespace: "default",
      uid: "c0",
      resourceVersion: rv,
      labels: { app: "web" },
      ...(bound ? { annotations: { "pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes" } } : {}),
      ...meta,
    },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...(bound ? { volumeName: "pv-1" } : {}) },
    status: bound ? { phase: "Bound", capacity: { storage: "1Gi" } } : { phase: "Pending" },
  };
}

describe("sameForOwners: which changes no owner reads (ADR 0090)", () => {
  it("a pod's binding to a node is quiet", () => {
    assert.equal(sameForOwners("pod", pendingPod("1"), scheduled("2")), true);
  });

  it("the phase, the Ready condition's status and its transition time are not", () => {
    assert.equal(sameForOwners("pod", scheduled("2"), running("3", { status: "False", at: TIME })), false, "Pending -> Running");
    assert.equal(sameForOwners("pod", running("3", { status: "False", at: TIME }), running("4", { status: "True", at: LATER })), false, "became Ready");
    assert.equal(sameForOwners("pod", running("3", { status: "True", at: TIME }), running("4", { status: "True", at: LATER })), false, "Ready since another time (minReadySeconds)");
  });

  it("the kubelet's addresses, container statuses and other conditions are quiet", () => {
    const ready = { status: "True", at: TIME };
    assert.equal(sameForOwners("pod", running("3", ready), running("4", ready, { podIP: "10.0.0.2", containerStatuses: [{ name: "c", restartCount: 1 }] })), true);
  });

  it("labels, annotations, owner references, a deletion and any spec field but nodeName are not quiet", () => {
    const base = scheduled("2");
    const meta = base["metadata"] as Record<string, unknown>;
    const withMeta = (extra: Record<string, unknown>) => ({ ...base, metadata: { ...meta, ...extra }, }) as Record<string, unknown>;
    assert.equal(sameForOwners("pod", base, withMeta({ resourceVersion: "3", labels: { app: "web", tier: "a" } })), false);
    assert.equal(sameForOwners("pod", base, withMeta({ resourceVersion: "3", annotations: { a: "b" } })), false);
    assert.equal(sameForOwners("pod", base, withMeta({ resourceVersion: "3", ownerReferences: [{ kind: "StatefulSet", name: "web", uid: "s" }] })), false);
    assert.equal(sameForOwners("pod", base, withMeta({ resourceVersion: "3", deletionTimestamp: LATER })), false);
    assert.equal(sameForOwners("pod", base, { ...base, spec: { ...(base["spec"] as object), hostname: "other" } }), false);
    // A field no list names counts as a change: a reader of it stays correct.
    assert.equal(sameForOwners("pod", base, { ...base, somethingNew: 1 }), false);
  });

  it("a claim's binding (volume, status, the binder's annotations) is quiet; its labels and owners are not", () => {
    assert.equal(sameForOwners("pvc", claim("1", false), claim("2", true)), true);
    assert.equal(sameForOwners("pvc", claim("2", true), claim("3", true, { labels: { app: "other" } })), false);
    assert.equal(sameForOwners("pvc", claim("2", true), claim("3", true, { ownerReferences: [{ kind: "Pod", name: "web-0", uid: "u0" }] })), false);
    assert.equal(sameForOwners("pvc", claim("2", true), claim("3", true, { annotations: { mine: "x" } })), false, "an annotation of another writer");
  });

  it("StatefulSets and revisions always count", () => {
    const body = { metadata: { name: "web", resourceVersion: "1" } };
    assert.equal(sameForOwners("sts", body, { metadata: { name: "web", resourceVersion: "2" } }), false);
    assert.equal(sameForOwners("rev", body, body), false);
  });

  it("jsonEqual compares objects by keys, not by their order", () => {
    assert.equal(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: undefined }), false);
    assert.equal(jsonEqual([1, 2], [2, 1]), false);
    assert.equal(jsonEqual(null, {}), false);
  });
});
