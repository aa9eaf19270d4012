// A status frozen by another writer (docs/adr/0087-status-writer-orders-by-its-own-writes.md): another client writes status.observedGeneration 1000000 (as
// `kubectl patch sts base-1 --subresource=status --type=merge -p '{"status":{"observedGeneration":1000000}}'` does),
// then the set is scaled. Upstream's updateStatefulSetStatus overwrites a stored status that differs from the one it
// computed, whoever wrote it; the fleet must too, also when the status-writer has just restarted and remembers
// none of its own writes (ADR 0087). Before the fix the status-writer answered `stale-generation` forever and
// status stayed at observedGeneration 1000000 and the old replica count.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack, waitFor } from "../support/stack.ts";
import type { Sample } from "../support/stack.ts";
import { createSet, getSet, patchSet, waitForConverged } from "./helpers.ts";
import type { StatefulSet } from "./helpers.ts";

const t = await useStack();
const { kube } = t;
const POISON = 1_000_000;
/** The bound: status catches up with the scale within 30 s. */
const CONVERGE_TIMEOUT_MS = 30_000;

function foreignOverwrites(samples: readonly Sample[]): number {
  return samples
    .filter((s) => s.name === "stsfleet_status_foreign_overwrites_total" && s.labels["reason"] === "impossible-generation")
    .reduce((sum, s) => sum + s.value, 0);
}

/** What `kubectl patch --subresource=status --type=merge` sends. */
async function poisonStatus(namespace: string, name: string): Promise<void> {
  const patched = await kube.patch<StatefulSet>(
    { ...RESOURCES.statefulsets, namespace, name, subresource: "status" },
    { status: { observedGeneration: POISON } },
    "merge",
  );
  assert.equal(patched.status?.observedGeneration, POISON, "the simulator took the status patch");
}

/** status.observedGeneration == metadata.generation and status.replicas == `replicas`, within the bound. */
async function waitForStatusOf(namespace: string, name: string, replicas: number): Promise<StatefulSet> {
  let last: unknown;
  return waitFor(
    `${namespace}/${name} status to observe its generation at ${replicas} replicas`,
    async () => {
      const set = await getSet(kube, namespace, name);
      last = { generation: set.metadata.generation, status: set.status };
      return set.status?.observedGeneration === set.metadata.generation && set.status?.replicas === replicas ? set : undefined;
    },
    { timeoutMs: CONVERGE_TIMEOUT_MS, intervalMs: 150, describeLast: () => last },
  );
}

describe("a status another client wrote does not freeze the set's status", () => {
  it("observedGeneration 1000000 patched into /status, then a scale: status follows the scale", async () => {
    const ns = "e2e-status-foreign";
    await t.createNamespace(ns);
    await createSet(kube, ns, "base", { replicas: 3, claims: false });
    await waitForConverged(kube, ns, "base", 3);
    const before = foreignOverwrites(await t.metrics("status-writer"));

    await poisonStatus(ns, "base");
    const scaled = await patchSet(kube, ns, "base", { spec: { replicas: 5 } });
    const set = await waitForStatusOf(ns, "base", 5);
    assert.equal(set.metadata.generation, scaled.metadata.generation);
    assert.ok(set.status?.observedGeneration !== undefined && set.status.observedGeneration < POISON);
    await waitForConverged(kube, ns, "base", 5);
    assert.ok(foreignOverwrites(await t.metrics("status-writer")) > before, "the overwrite is counted by reason");
  });

  it("the same after a status-writer restart, with no memory of its own writes", async () => {
    const ns = "e2e-status-foreign-restart";
    await t.createNamespace(ns);
    await createSet(kube, ns, "base", { replicas: 2, claims: false });
    await waitForConverged(kube, ns, "base", 2);

    await t.killService("status-writer");
    await poisonStatus(ns, "base");
    await patchSet(kube, ns, "base", { spec: { replicas: 3 } });
    await waitForStatusOf(ns, "base", 3);
    await waitForConverged(kube, ns, "base", 3);
  });
});
