// Bad input never throws: invalid specs yield one Warning Event and nothing else; arbitrary JSON anywhere in the
// snapshot yields a well-formed result. The planner is deterministic and never mutates its input.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { allActions } from "./describe.ts";
import { plan } from "./plan.ts";
import type { PlanResult, Snapshot, StatefulSet } from "./types.ts";
import { FakeCluster, createHarness, newStatefulSet } from "./testing/index.ts";

const NOW_MS = Date.parse("2026-01-01T00:00:00Z");

function withUid(set: StatefulSet): StatefulSet {
  set.metadata = { ...set.metadata, uid: "set-uid", generation: 1 };
  return set;
}

function onlyWarning(result: PlanResult, reason: string): void {
  const actions = allActions(result);
  assert.equal(actions.length, 1, JSON.stringify(actions));
  const [action] = actions;
  assert.ok(action?.type === "recordEvent");
  assert.equal(action.event.type, "Warning");
  assert.equal(action.event.reason, reason);
  assert.equal(result.status.write, false);
}

function snapshotOf(set: StatefulSet): Snapshot {
  return { set, pods: [], claims: [], revisions: [] };
}

describe("invalid StatefulSets get a Warning Event and no other action", () => {
  it("an empty selector", () => {
    const set = withUid(newStatefulSet());
    (set.spec ??= {}).selector = {};
    onlyWarning(plan(snapshotOf(set), NOW_MS), "InvalidSelector");
  });

  it("a selector that does not match the template labels", () => {
    const set = withUid(newStatefulSet());
    (set.spec ??= {}).selector = { matchLabels: { app: "other" } };
    onlyWarning(plan(snapshotOf(set), NOW_MS), "InvalidSelector");
  });

  it("a malformed selector requirement", () => {
    const set = withUid(newStatefulSet());
    (set.spec ??= {}).selector = { matchExpressions: [{ key: "app", operator: "Near", values: ["web"] }] };
    onlyWarning(plan(snapshotOf(set), NOW_MS), "InvalidSelector");
  });

  it("accepts a selector made of expressions only", () => {
    const set = withUid(newStatefulSet());
    (set.spec ??= {}).selector = { matchExpressions: [{ key: "app", operator: "In", values: ["web", "api"] }] };
    const actions = allActions(plan(snapshotOf(set), NOW_MS));
    assert.ok(actions.some((a) => a.type === "createPod"));
  });

  it("a name too long for the revision label (63 characters)", () => {
    const long = withUid(newStatefulSet({ name: "s".repeat(60) }));
    onlyWarning(plan(snapshotOf(long), NOW_MS), "InvalidName");
    const fits = withUid(newStatefulSet({ name: "s".repeat(50) }));
    assert.ok(allActions(plan(snapshotOf(fits), NOW_MS)).some((a) => a.type === "createPod"));
  });

  for (const [label, change] of [
    ["no uid", (s: StatefulSet) => delete s.metadata?.uid],
    ["negative replicas", (s: StatefulSet) => ((s.spec ??= {}).replicas = -1)],
    ["fractional replicas", (s: StatefulSet) => ((s.spec ??= {}).replicas = 1.5)],
    ["no template", (s: StatefulSet) => delete s.spec?.template],
    ["an unnamed claim template", (s: StatefulSet) => ((s.spec ??= {}).volumeClaimTemplates = [{ spec: {} }])],
    ["ordinals beyond int32", (s: StatefulSet) => ((s.spec ??= {}).ordinals = { start: 2147483647 })],
  ] as const) {
    it(label, () => {
      const set = withUid(newStatefulSet({ replicas: 2 }));
      change(set);
      onlyWarning(plan(snapshotOf(set), NOW_MS), "InvalidSpec");
    });
  }

  it("an invalid maxUnavailable is a sync error after the status is computed, like upstream", () => {
    const cluster = new FakeCluster();
    const h = createHarness(cluster, newStatefulSet({ replicas: 2 }));
    h.driver.converge();
    cluster.updateSet(h.namespace, h.name, (s) => {
      const spec = (s.spec ??= {});
      spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: "lots" } };
      const containers = spec.template?.spec?.containers as { image: string }[];
      if (containers[0]) containers[0].image = "other";
    });
    const result = plan(cluster.snapshot(h.namespace, h.name), cluster.nowMs);
    assert.match(result.syncError ?? "", /not a percentage/);
    assert.ok(!allActions(result).some((a) => a.type === "deletePod"));
    assert.equal(result.status.write, true);
  });
});

describe("arbitrary input", () => {
  function validSnapshot(): Snapshot {
    const cluster = new FakeCluster();
    const h = createHarness(cluster, newStatefulSet({ replicas: 3 }));
    h.driver.converge();
    return cluster.snapshot(h.namespace, h.name);
  }
  const base = validSnapshot();

  /** Handled by the defensive reading, not by the last-resort catch. */
  function wellFormed(result: PlanResult): void {
    assert.ok(Array.isArray(result.steps));
    const failed = allActions(result).find((a) => a.type === "recordEvent" && a.event.reason === "PlanFailed");
    assert.equal(failed, undefined, JSON.stringify(failed));
    for (const value of Object.values(result.status.value)) {
      if (typeof value === "number") assert.ok(Number.isSafeInteger(value) && value >= 0);
    }
    assert.equal(typeof result.status.write, "boolean");
  }

  /** Replaces the value at a random path inside the snapshot with arbitrary JSON. */
  function corrupt(snapshot: Snapshot, pathChoices: number[], value: unknown): Snapshot {
    const copy = structuredClone(snapshot) as unknown as Record<string, unknown>;
    let node: unknown = copy;
    for (const choice of pathChoices) {
      if (node === null || typeof node !== "object") break;
      const keys = Object.keys(node);
      if (keys.length === 0) break;
      const key = keys[choice % keys.length] ?? "";
      const child = (node as Record<string, unknown>)[key];
      if (child === null || typeof child !== "object" || choice % 3 === 0) {
        (node as Record<string, unknown>)[key] = value;
        break;
      }
      node = child;
    }
    return copy as unknown as Snapshot;
  }

  it("never throws when any field anywhere holds any JSON value", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), fc.jsonValue(), (path, value) => {
        const result = plan(corrupt(base, path, value), NOW_MS);
        wellFormed(result);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on a snapshot of arbitrary values", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), fc.anything(), (set, pods, claims, revisions) => {
        const result = plan({ set, pods, claims, revisions } as unknown as Snapshot, NOW_MS);
        wellFormed(result);
      }),
      { numRuns: 150 },
    );
  });

  it("is deterministic and does not mutate its input", () => {
    const frozen = structuredClone(base);
    const deepFreeze = (value: unknown): void => {
      if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
      Object.freeze(value);
      for (const child of Object.values(value)) deepFreeze(child);
    };
    (frozen.set.spec ??= {}).replicas = 5;
    const reference = structuredClone(frozen);
    deepFreeze(frozen);
    const first = plan(frozen, NOW_MS);
    assert.ok(!allActions(first).some((a) => a.type === "recordEvent" && a.event.reason === "PlanFailed"), "no write to frozen input");
    assert.deepEqual(frozen, reference);
    assert.deepEqual(JSON.parse(JSON.stringify(plan(reference, NOW_MS))), JSON.parse(JSON.stringify(first)));
  });
});
