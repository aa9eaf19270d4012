// Bad input (docs/RELIABILITY.md): replicas flapping between 0 and 50 many times a second, on an OrderedReady and a Parallel
// set. The actor's mailbox coalesces the changes; once they stop, both sets converge at the last value within the
// bound, and no pod above the last value is left behind.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { useStack } from "../support/stack.ts";
import { createSet, listPods, patchSet, waitForConverged } from "./helpers.ts";

const t = await useStack();
const FLAPS = 40;
const FLAP_EVERY_MS = 50;
const FINAL_REPLICAS = 3;
const CONVERGE_MS = 30_000;

describe("replicas flapping between 0 and 50", () => {
  for (const policy of ["OrderedReady", "Parallel"] as const) {
    it(`${policy}: ${FLAPS} changes ${FLAP_EVERY_MS} ms apart, then ${FINAL_REPLICAS}: converges within 30 s`, async () => {
      const ns = `e2e-flap-${policy.toLowerCase()}`;
      await t.createNamespace(ns);
      await createSet(t.kube, ns, "web", { replicas: 1, claims: false, podManagementPolicy: policy });
      await waitForConverged(t.kube, ns, "web", 1);
      for (let i = 0; i < FLAPS; i++) {
        await patchSet(t.kube, ns, "web", { spec: { replicas: i % 2 === 0 ? 50 : 0 } });
        await sleep(FLAP_EVERY_MS);
      }
      await patchSet(t.kube, ns, "web", { spec: { replicas: FINAL_REPLICAS } });
      const { pods } = await waitForConverged(t.kube, ns, "web", FINAL_REPLICAS, CONVERGE_MS);
      assert.deepEqual(pods.map((p) => p.metadata.name), ["web-0", "web-1", "web-2"]);
      const all = await listPods(t.kube, ns, "web");
      assert.equal(all.filter((p) => p.metadata.deletionTimestamp === undefined).length, FINAL_REPLICAS, "no pod above the last value is left");
    });
  }
});
