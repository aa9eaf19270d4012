// Chaos scenario S11 (docs/CHAOS.md): in the middle of a rollout under churn, garbage goes once to every subject of the
// sets (their K8S_OBJS subjects, intent log and PVC commands, the live copies, every key of the members, shards and
// leases buckets, the status, event, poke and probe subjects; tools/chaos/garbage.ts) and another client writes an
// observedGeneration no controller could have computed into one set's status. Every set must converge within
// CONVERGE_BOUND_MS after the bad input and the churn stop, no service may die, the invariant checker must pass, and
// the consumers must have counted what they dropped. The rules: ADR 0087, 0088, 0089; the bounds: docs/RELIABILITY.md.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { succeeded } from "../../tools/chaos/facts.ts";
import { injectGarbage } from "../../tools/chaos/garbage.ts";
import { assertInvariants, createSets, ms, underChurn, useChaos, waitForWrite } from "./support.ts";

const chaos = await useChaos();
/** The bound of docs/RELIABILITY.md: convergence within 30 s after the bad input stops. */
const CONVERGE_BOUND_MS = 30_000;
const POISONED_OBSERVED_GENERATION = 1_000_000;
const SERVICES = [...chaos.actorNames, "watcher", "pvc-provisioner", "status-writer"];

/** Messages the actors dropped, all subjects and reasons. */
async function droppedByActors(): Promise<number> {
  const counts = await Promise.all(chaos.actorNames.map((name) => chaos.metric(name, "stsfleet_dropped_messages_total")));
  return counts.reduce((sum, n) => sum + n, 0);
}

describe("chaos: garbage on every subject of the fleet", () => {
  it("S11: garbage on every subject and a foreign status mid-rollout: every set converges within 30 s, no service dies, invariants hold", async (t) => {
    const since = Date.now();
    const ns = "garbage";
    const sets = await createSets(chaos, ns, 4, { replicas: 3 });
    const pids = new Map(SERVICES.map((name) => [name, chaos.stack.service(name).pid]));
    const droppedBefore = await droppedByActors();

    const rolloutAtUs = Date.now() * 1000;
    let published = 0;
    const { churn } = await underChurn(chaos, sets, async () => {
      await Promise.all(sets.map((set) => chaos.workload.changeTemplate(set)));
      await waitForWrite(chaos, "rollout pod delete", (w) => w.namespace === ns && w.verb === "delete" && w.resource === "pods" && succeeded(w) && w.receivedUs > rolloutAtUs);
      published = (await injectGarbage(chaos.connection, sets, chaos.actorNames)).published;
      const [first] = sets;
      assert.ok(first);
      // What `kubectl patch sts --subresource=status --type=merge` sends.
      await chaos.kube.patch({ ...RESOURCES.statefulsets, namespace: ns, name: first.name, subresource: "status" }, { status: { observedGeneration: POISONED_OBSERVED_GENERATION } }, "merge");
      await sleep(3_000);
    });
    const convergedMs = await chaos.waitConverged([ns], CONVERGE_BOUND_MS);
    t.diagnostic(`${published} garbage messages under churn (${churn.scales} scales, ${churn.templates} template changes); converged ${ms(convergedMs)} after the churn stopped`);

    for (const name of SERVICES) assert.equal(chaos.stack.service(name).pid, pids.get(name), `${name} died and was restarted`);
    assert.ok((await droppedByActors()) > droppedBefore, "the actors counted the garbage they dropped");
    assertInvariants(t, await chaos.check({ namespaces: [ns], sinceMs: since }));
  });
});
