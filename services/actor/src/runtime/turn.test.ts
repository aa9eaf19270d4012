// A turn whose cache is behind the intent log (a plan was made from a newer spec than the cache shows, as after a
// NATS outage before the watcher has republished the set) waits for the newer set instead of planning from the old
// spec, which would roll pods back to the older template (chaos S3b under load once deleted a pod that already ran
// the newest revision). The wait is an expectation, so it ends when the cache catches up or after its timeout.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IntentPlan, ObjectEnvelope } from "#protocol";
import { TURN_TRIGGER, refusedTurnDeps } from "#test-support/turn-harness.ts";
import { isMet } from "../domain/expectations.ts";
import { GenerationFloors } from "../domain/generation-floors.ts";
import { ObjectStore } from "../domain/object-store.ts";
import { createTurnRunner } from "./turn.ts";

const SET_UID = "uid-web";

function setAt(generation: number, rv: string, uid = SET_UID): ObjectEnvelope {
  const metadata = { name: "web", namespace: "ns", uid, resourceVersion: rv, generation };
  return {
    type: "object.put",
    kind: "StatefulSet",
    namespace: "ns",
    name: "web",
    uid,
    resourceVersion: rv,
    object: {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata,
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        serviceName: "web",
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: `image:${generation}` }] } },
      },
    },
  };
}

/** A plan another owner appended, as a takeover reads it back. */
const planRecord: IntentPlan = {
  type: "intent.plan",
  shard: 3,
  epoch: 6,
  member: "actor-1",
  incarnation: "i1",
  set: { namespace: "ns", name: "web", uid: SET_UID },
  turn: 1,
  actions: [],
};

function harness(floor: { uid: string; generation: number } | undefined) {
  const store = new ObjectStore();
  store.apply(3, setAt(4, "40"));
  const floors = new GenerationFloors();
  if (floor) floors.note("ns/web", { ...planRecord, set: { ...planRecord.set, uid: floor.uid }, setGeneration: floor.generation });
  // The plan of a turn that gets this far is appended and then refused, so nothing reaches Kubernetes.
  const { deps, appended } = refusedTurnDeps(store, { generationFloors: floors });
  const plannedGeneration = () => appended.flatMap((intent) => (intent.type === "intent.plan" ? [intent.setGeneration] : []));
  const runTurn = createTurnRunner(deps);
  return { store, appended, plannedGeneration, turn: () => runTurn("ns/web", TURN_TRIGGER) };
}

describe("a turn behind the intent log", () => {
  it("waits for the set generation the log shows a plan for, once, instead of planning from the older spec", async () => {
    const h = harness({ uid: SET_UID, generation: 6 });
    const first = await h.turn();
    assert.equal(first.type, "done");
    assert.deepEqual(first.type === "done" ? first.expectations : [], [
      { type: "generation", kind: "StatefulSet", namespace: "ns", name: "web", uid: SET_UID, atLeast: 6 },
    ]);
    assert.deepEqual(h.appended, [], "nothing planned from generation 4");
    const expectation = first.type === "done" ? first.expectations[0] : undefined;
    assert.ok(expectation);
    const lookup = h.store.get.bind(h.store);
    assert.equal(isMet(expectation, lookup), false);
    h.store.apply(3, setAt(6, "60"));
    assert.equal(isMet(expectation, lookup), true, "met once the cache shows generation 6");
    // The floor is taken by the turn that waited: the next one plans (and records the generation it planned from).
    assert.equal((await h.turn()).type, "not-owned");
    assert.deepEqual(h.plannedGeneration(), [6]);
  });

  it("plans at once when the cache is as new as the log, or the log's plan was for another incarnation of the set", async () => {
    for (const floor of [{ uid: SET_UID, generation: 4 }, { uid: "uid-an-older-web", generation: 9 }, undefined]) {
      const h = harness(floor);
      assert.equal((await h.turn()).type, "not-owned", JSON.stringify(floor));
      assert.deepEqual(h.plannedGeneration(), [4]);
    }
  });

  it("counts another incarnation of the set, or its deletion, as caught up", () => {
    const store = new ObjectStore();
    const expectation = { type: "generation", kind: "StatefulSet", namespace: "ns", name: "web", uid: SET_UID, atLeast: 6 } as const;
    assert.equal(isMet(expectation, store.get.bind(store)), true, "no set");
    store.apply(3, setAt(1, "70", "uid-new-web"));
    assert.equal(isMet(expectation, store.get.bind(store)), true, "recreated");
  });
});
