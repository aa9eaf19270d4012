// Acceptance 2: random sequences of scale, template change, rollback, pod ready/unready/fail/delete and start-ordinal
// change; the driver checks every invariant after every executed step, and once pods may become Ready again the
// set converges to exactly its range, Ready, at the update revision. PLANNER_PROPERTY_RUNS raises the run count.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { LABELS } from "#protocol";
import type { Pod } from "./types.ts";
import { imageOf, isRunningAndReady, ordinalOf, scenario, setImage } from "./testing/index.ts";
import type { Harness } from "./testing/index.ts";

const RUNS = Number(process.env["PLANNER_PROPERTY_RUNS"] ?? "25");

type Op =
  | { kind: "scale"; replicas: number }
  | { kind: "image"; image: string }
  | { kind: "rollback" }
  | { kind: "ready"; ordinal: number; ready: boolean }
  | { kind: "fail"; ordinal: number; phase: "Failed" | "Succeeded" }
  | { kind: "delete"; ordinal: number }
  | { kind: "start"; start: number };

const ordinal = fc.integer({ min: 0, max: 7 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("scale" as const), replicas: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant("image" as const), image: fc.constantFrom("app:1", "app:2", "app:3", "app:4") }),
  fc.record({ kind: fc.constant("rollback" as const) }),
  fc.record({ kind: fc.constant("ready" as const), ordinal, ready: fc.boolean() }),
  fc.record({ kind: fc.constant("fail" as const), ordinal, phase: fc.constantFrom("Failed" as const, "Succeeded" as const) }),
  fc.record({ kind: fc.constant("delete" as const), ordinal }),
  fc.record({ kind: fc.constant("start" as const), start: fc.integer({ min: 0, max: 3 }) }),
);

const config = fc.record({
  podManagementPolicy: fc.constantFrom("OrderedReady" as const, "Parallel" as const),
  updateStrategy: fc.constantFrom("RollingUpdate", "RollingUpdate", "OnDelete"),
  maxUnavailable: fc.oneof(fc.integer({ min: 1, max: 3 }), fc.constant("50%")),
  whenScaled: fc.constantFrom("Retain" as const, "Delete" as const),
  whenDeleted: fc.constantFrom("Retain" as const, "Delete" as const),
  replicas: fc.integer({ min: 0, max: 4 }),
  minReadySeconds: fc.constantFrom(0, 0, 5),
  gate: fc.boolean(),
});

/** Applies one user or kubelet action; returns the pod names whose kubelet policy it changed. */
function apply(h: Harness, step: Op, images: string[]): string[] {
  const name = (o: number): string => `${h.name}-${o}`;
  switch (step.kind) {
    case "scale":
      h.cluster.updateSet(h.namespace, h.name, (s) => {
        (s.spec ??= {}).replicas = step.replicas;
      });
      return [];
    case "image":
      images.push(step.image);
      h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, step.image));
      return [];
    case "rollback": {
      const previous = images.length >= 2 ? images[images.length - 2] : undefined;
      if (previous) {
        images.push(previous);
        h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, previous));
      }
      return [];
    }
    case "ready":
      h.kubelet.setPolicy(name(step.ordinal), { ready: step.ready });
      return [name(step.ordinal)];
    case "fail":
      if (h.cluster.get<Pod>("Pod", h.namespace, name(step.ordinal))?.status?.phase === "Running") {
        h.cluster.mutate<Pod>("Pod", h.namespace, name(step.ordinal), (p) => {
          p.status = { phase: step.phase, conditions: [{ type: "Ready", status: "False" }] };
        });
      }
      return [];
    case "delete":
      if (h.cluster.get<Pod>("Pod", h.namespace, name(step.ordinal))) h.cluster.delete("Pod", h.namespace, name(step.ordinal));
      return [];
    case "start":
      h.cluster.updateSet(h.namespace, h.name, (s) => {
        (s.spec ??= {}).ordinals = { start: step.start };
      });
      return [];
    default: {
      const unreachable: never = step;
      throw new Error(`unknown op ${JSON.stringify(unreachable)}`);
    }
  }
}

describe("plan() under random operations (property)", () => {
  it("keeps every invariant after every step and converges once pods can become Ready", () => {
    fc.assert(
      fc.property(config, fc.array(fc.tuple(op, fc.integer({ min: 0, max: 3 })), { maxLength: 14 }), (cfg, ops) => {
        const h = scenario(
          {
            replicas: cfg.replicas,
            podManagementPolicy: cfg.podManagementPolicy,
            updateStrategy: cfg.updateStrategy,
            maxUnavailable: cfg.maxUnavailable,
            whenScaled: cfg.whenScaled,
            whenDeleted: cfg.whenDeleted,
            minReadySeconds: cfg.minReadySeconds,
            image: "app:1",
          },
          { planOptions: { maxUnavailableStatefulSet: cfg.gate } },
        );
        const images = ["app:1"];
        const touched = new Set<string>();
        for (const [step, turns] of ops) {
          for (const name of apply(h, step, images)) touched.add(name);
          for (let i = 0; i < turns; i++) {
            if (!h.driver.turn().wrote) h.driver.tick();
          }
        }
        for (const name of touched) h.kubelet.clearPolicy(name);
        h.driver.converge(2000);

        const set = h.driver.set;
        const spec = set?.spec;
        const status = set?.status;
        assert.ok(spec && status);
        const start = spec.ordinals?.start ?? 0;
        const replicas = spec.replicas ?? 0;
        const pods = h.driver.pods().sort((a, b) => ordinalOf(a) - ordinalOf(b));
        assert.deepEqual(pods.map(ordinalOf), Array.from({ length: replicas }, (_, i) => start + i), "exactly the ordinal range");
        assert.ok(pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp), "all Running and Ready");
        assert.equal(status.replicas, replicas);
        assert.equal(status.readyReplicas, replicas);
        assert.equal(status.availableReplicas, replicas);
        assert.equal(status.observedGeneration, set.metadata?.generation);
        if (cfg.updateStrategy === "RollingUpdate") {
          assert.ok(pods.every((p) => p.metadata?.labels?.[LABELS.revisionHash] === status.updateRevision), "all at the update revision");
          assert.ok(pods.every((p) => imageOf(p) === images[images.length - 1]), "all at the latest image");
          assert.equal(status.updatedReplicas, replicas);
          assert.equal(status.currentRevision, status.updateRevision);
        }
        for (const p of pods) {
          const claimName = `data-${p.metadata?.name}`;
          assert.ok(h.cluster.get("PersistentVolumeClaim", h.namespace, claimName), `${claimName} exists`);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
