// A turn over a set another StatefulSet controller writes (ADR 0092): the turn that sees kube-controller-manager's
// status write plans nothing, appends no intent and writes nothing but the ForeignController condition (a
// conditions-only status request), with a Warning Event; later turns stay quiet until the quiet period has passed,
// then the condition goes False and the set is planned again.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NatsConnection } from "@nats-io/transport-node";
import { codecs, shard as shardOf } from "#protocol";
import type { ObjectEnvelope, StatusManager, StatusResult, StatusWrite } from "#protocol";
import { TURN_TRIGGER, refusedTurnDeps } from "#test-support/turn-harness.ts";
import { DEFAULT_FOREIGN_CONTROLLER_OPTIONS, FOREIGN_CONTROLLER_CONDITION, ForeignControllers } from "../domain/foreign-controller.ts";
import { ObjectStore } from "../domain/object-store.ts";
import type { EventSpec } from "../planner/index.ts";
import type { Executor } from "./executor.ts";
import { createTurnRunner } from "./turn.ts";

const SHARD = shardOf("ns", "web");
const SET_UID = "uid-web";
const QUIET_MS = 200;

function setAt(rv: string, statusManagers: StatusManager[], conditions: unknown[] = []): ObjectEnvelope {
  return {
    type: "object.put",
    kind: "StatefulSet",
    namespace: "ns",
    name: "web",
    uid: SET_UID,
    resourceVersion: rv,
    object: {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "web", namespace: "ns", uid: SET_UID, resourceVersion: rv, generation: 2 },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web" } },
        serviceName: "web",
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "image:1" }] } },
      },
      status: { observedGeneration: 1, replicas: 1, conditions },
    },
    statusManagers,
  };
}

const own = (time: string): StatusManager => ({ manager: "stsfleet-status-writer", operation: "Update", time });
const kcm = (time: string): StatusManager => ({ manager: "kube-controller-manager", operation: "Update", time });

/** `outcomes`: the status-writer's answers, in order, then `written`. */
function harness(outcomes: StatusResult["outcome"][] = []) {
  const store = new ObjectStore();
  const statusWrites: StatusWrite[] = [];
  const events: EventSpec[] = [];
  const nats = {
    request: (_subject: string, bytes: Uint8Array) => {
      statusWrites.push(codecs.statusWrite.decode(bytes));
      return Promise.resolve({ data: codecs.statusResult.encode({ type: "status.result", outcome: outcomes.shift() ?? "written" }) });
    },
  } as unknown as NatsConnection;
  const foreignControllers = new ForeignControllers({ ...DEFAULT_FOREIGN_CONTROLLER_OPTIONS, ownManagers: ["stsfleet-status-writer"], quietPeriodMs: QUIET_MS });
  // A plan is recorded and then refused, so nothing reaches Kubernetes: the test reads what the turn would do.
  const { deps, appended } = refusedTurnDeps(store, {
    foreignControllers,
    executor: { recordEvent: (event: EventSpec) => events.push(event) } as unknown as Executor,
    nats,
  });
  const runTurn = createTurnRunner(deps);
  return { store, plans: appended, statusWrites, events, foreignControllers, turn: () => runTurn("ns/web", TURN_TRIGGER) };
}

describe("a turn over a set another controller writes (ADR 0092)", () => {
  it("stops within the turn that sees the write, says why, and acts again after the quiet period", async () => {
    const h = harness();
    h.store.apply(SHARD, setAt("10", [own("2026-12-02T10:00:00Z")]));
    assert.equal((await h.turn()).type, "not-owned", "the first look plans (and is fenced by the test's intent log)");
    assert.equal(h.plans.length, 1);

    // kube-controller-manager writes the status.
    h.store.apply(SHARD, setAt("11", [own("2026-12-02T10:00:00Z"), kcm("2026-12-02T10:00:01Z")]));
    const stopped = await h.turn();
    assert.equal(stopped.type, "done");
    assert.ok(stopped.type === "done" && stopped.requeueAfterMs !== null && stopped.requeueAfterMs <= QUIET_MS, "a turn when the quiet period ends");
    assert.deepEqual(stopped.type === "done" ? stopped.expectations : [], [{ type: "changed", kind: "StatefulSet", namespace: "ns", name: "web", fromResourceVersion: "11" }]);
    assert.equal(h.plans.length, 1, "nothing planned: no intent, no pod write");
    assert.deepEqual(h.events.map((event) => [event.type, event.reason]), [["Warning", "ForeignControllerDetected"]]);
    assert.match(h.events[0]?.message ?? "", /^kube-controller-manager wrote this StatefulSet's status/);
    assert.equal(h.statusWrites.length, 1);
    const write = h.statusWrites[0];
    assert.equal(write?.scope, "conditions");
    assert.deepEqual(
      write?.status.conditions?.map((c) => [c.type, c.status, c.reason]),
      [[FOREIGN_CONTROLLER_CONDITION, "True", "ForeignControllerDetected"]],
    );
    assert.deepEqual([write?.status.observedGeneration, write?.status.replicas], [1, 1], "the stored counters, not planned ones");
    assert.deepEqual(h.foreignControllers.stopped().map(({ key, stop }) => [key, stop.manager, stop.rule]), [["ns/web", "kube-controller-manager", "known-controller"]]);

    // The condition landed (an own write); another turn before the quiet period ends writes nothing at all.
    h.store.apply(SHARD, setAt("12", [own("2026-12-02T10:00:02Z"), kcm("2026-12-02T10:00:01Z")], [{ type: FOREIGN_CONTROLLER_CONDITION, status: "True" }]));
    assert.equal((await h.turn()).type, "done");
    assert.deepEqual([h.plans.length, h.statusWrites.length, h.events.length], [1, 1, 1]);

    await new Promise((resolve) => setTimeout(resolve, QUIET_MS + 20));
    await h.turn();
    assert.deepEqual(h.events.map((event) => [event.type, event.reason]).at(-1), ["Normal", "ForeignControllerGone"]);
    assert.deepEqual(h.statusWrites.at(-1)?.status.conditions?.map((c) => [c.type, c.status]), [[FOREIGN_CONTROLLER_CONDITION, "False"]]);
    assert.equal(h.plans.length, 2, "planned again after the quiet period");
    assert.deepEqual(h.foreignControllers.stopped(), []);
  });

  it("a condition the status-writer could not write fails the turn (retried with back-off), still writing nothing else", async () => {
    const h = harness(["failed"]);
    h.store.apply(SHARD, setAt("10", [own("2026-12-02T10:00:00Z")]));
    await h.turn();
    h.store.apply(SHARD, setAt("11", [own("2026-12-02T10:00:00Z"), kcm("2026-12-02T10:00:01Z")]));
    assert.equal((await h.turn()).type, "failed");
    assert.equal((await h.turn()).type, "done", "the retry writes the condition");
    assert.deepEqual(h.statusWrites.map((write) => write.scope), ["conditions", "conditions"]);
    assert.deepEqual([h.plans.length, h.events.length], [1, 1], "no plan, and the Warning only once");
  });

  it("a single status write of another manager (issue 16) never stops the set", async () => {
    const h = harness();
    h.store.apply(SHARD, setAt("10", [own("2026-12-02T10:00:00Z")]));
    await h.turn();
    h.store.apply(SHARD, setAt("11", [own("2026-12-02T10:00:00Z"), { manager: "kubectl-patch", operation: "Update", time: "2026-12-02T10:00:01Z" }]));
    await h.turn();
    h.store.apply(SHARD, setAt("12", [own("2026-12-02T10:00:02Z")]));
    await h.turn();
    assert.deepEqual([h.plans.length, h.events.length, h.foreignControllers.stopped().length], [3, 0, 0]);
  });
});
