// A turn whose objects are incomplete (ADR 0088): a new owner's replay found garbage as the last message of a pod's
// subject, so its cache holds no value for a pod that exists. Planning from that cache would create the pod again
// (and count it out of the status); the turn waits instead, and plans once the watcher has published the pod again.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { shard as shardOf } from "#protocol";
import type { IntentPlan, ObjectEnvelope } from "#protocol";
import { TURN_TRIGGER, refusedTurnDeps } from "#test-support/turn-harness.ts";
import { ObjectStore } from "../domain/object-store.ts";
import { INCOMPLETE_RECHECK_MS, createTurnRunner } from "./turn.ts";

const SHARD = shardOf("ns", "web");
const SET_UID = "uid-web";

const set: ObjectEnvelope = {
  type: "object.put",
  kind: "StatefulSet",
  namespace: "ns",
  name: "web",
  uid: SET_UID,
  resourceVersion: "10",
  object: {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "web", namespace: "ns", uid: SET_UID, resourceVersion: "10", generation: 1 },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      serviceName: "web",
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "image:1" }] } },
    },
  },
};

function pod(name: string): ObjectEnvelope {
  const metadata = {
    name,
    namespace: "ns",
    uid: `uid-${name}`,
    resourceVersion: "20",
    labels: { app: "web", "statefulset.kubernetes.io/pod-name": name },
    ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: SET_UID, controller: true, blockOwnerDeletion: true }],
  };
  return {
    type: "object.put",
    kind: "Pod",
    namespace: "ns",
    name,
    uid: metadata.uid,
    resourceVersion: "20",
    object: {
      apiVersion: "v1",
      kind: "Pod",
      metadata,
      spec: { containers: [{ name: "c", image: "image:1" }] },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
    },
  };
}

function harness() {
  const store = new ObjectStore();
  store.apply(SHARD, set);
  store.apply(SHARD, pod("web-0"));
  // A plan is recorded and then refused, so nothing reaches Kubernetes: the test reads what the turn would do.
  const { deps, appended } = refusedTurnDeps(store);
  const runTurn = createTurnRunner(deps);
  const plans = () => appended.filter((intent): intent is IntentPlan => intent.type === "intent.plan");
  const podCreates = () => plans().flatMap((plan) => plan.actions.filter((action) => action.startsWith("create pod")));
  return { store, plans, podCreates, turn: () => runTurn("ns/web", TURN_TRIGGER) };
}

describe("a turn whose objects are incomplete", () => {
  it("does not plan while a pod subject of its shard and namespace is unreadable, and plans once it is published again", async () => {
    // Without the mark, the cache alone says web-1 is missing: the plan would create it although it exists.
    const unaware = harness();
    await unaware.turn();
    assert.deepEqual(unaware.podCreates().map((action) => action.split(" ")[2]), ["web-1"]);

    const h = harness();
    assert.equal(h.store.markUnreadable({ shard: SHARD, kind: "Pod", namespace: "ns", name: "web-1" }), true);
    const waiting = await h.turn();
    assert.deepEqual(waiting, { type: "done", requeueAfterMs: INCOMPLETE_RECHECK_MS, expectations: [] });
    assert.deepEqual(h.plans(), [], "nothing planned from an incomplete cache");

    // The watcher publishes web-1 again; the intake applies it and marks the subject readable.
    h.store.apply(SHARD, pod("web-1"));
    assert.deepEqual(h.store.markReadable({ shard: SHARD, kind: "Pod", namespace: "ns", name: "web-1" }).unblocked, ["ns/web"]);
    await h.turn();
    assert.equal(h.plans().length, 1, "the turn plans again");
    assert.deepEqual(h.podCreates(), [], "both pods exist: none is created");
  });

  it("plans when the unreadable subject's object is held (the garbage came after it): the last value stands", async () => {
    const h = harness();
    assert.equal(h.store.markUnreadable({ shard: SHARD, kind: "Pod", namespace: "ns", name: "web-0" }), false);
    await h.turn();
    assert.equal(h.plans().length, 1);
    assert.deepEqual(h.podCreates().map((action) => action.split(" ")[2]), ["web-1"], "web-1 really is missing here");
  });
});
