import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { IntentPlan } from "#protocol";
import { GenerationFloors } from "./generation-floors.ts";

const plan = (uid: string, setGeneration: number | undefined): IntentPlan => ({
  type: "intent.plan",
  shard: 3,
  epoch: 6,
  member: "actor-1",
  incarnation: "i1",
  set: { namespace: "ns", name: "web", uid },
  turn: 1,
  actions: [],
  ...(setGeneration === undefined ? {} : { setGeneration }),
});

describe("GenerationFloors", () => {
  it("keeps the newest generation a plan was made from, per incarnation of the set, until a turn takes it", () => {
    const floors = new GenerationFloors();
    floors.note("ns/web", { type: "intent.takeover", shard: 3, epoch: 7, member: "actor-0", incarnation: "i0" });
    floors.note("ns/web", plan("u1", undefined));
    assert.equal(floors.take("ns/web"), undefined, "takeovers and plans from before setGeneration say nothing");
    floors.note("ns/web", plan("u1", 5));
    floors.note("ns/web", plan("u1", 4));
    assert.deepEqual(floors.take("ns/web"), { uid: "u1", generation: 5 });
    assert.equal(floors.take("ns/web"), undefined, "taken once");
    floors.note("ns/web", plan("u1", 9));
    floors.note("ns/web", plan("u2", 1));
    assert.deepEqual(floors.take("ns/web"), { uid: "u2", generation: 1 }, "a recreated set's plan replaces the old one's");
    floors.note("ns/web", plan("u2", 2));
    floors.forget(["ns/web"]);
    assert.equal(floors.take("ns/web"), undefined);
  });
});
