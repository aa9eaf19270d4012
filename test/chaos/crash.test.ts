// Chaos scenarios S1, S2 and S4 (docs/CHAOS.md) on one stack (3 actors, fast lease profile 8 s / 5 s / 1 s, actors behind the chaos
// proxy): an owner killed mid-rollout, an owner paused past its lease, an owner cut off from NATS. Each scenario
// runs in its own namespace and must pass the invariant checker; the scenario-specific checks are those of docs/CHAOS.md.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { shard as shardOf } from "#protocol";
import { LEASE_PROFILES } from "../../services/actor/src/runtime/ownership.ts";
import { succeeded } from "../../tools/chaos/facts.ts";
import { actorWrites, assertInvariants, busiestOwner, createSets, ms, underChurn, useChaos, waitForWrite } from "./support.ts";

const chaos = await useChaos({ proxy: true });
const FAST = LEASE_PROFILES.fast;
/** --kube-request-timeout-ms the harness gives the actors. */
const KUBE_TIMEOUT_MS = 2_000;

/** The epochs a member holds now, by shard. */
function epochsOf(member: string): Map<number, number> {
  const epochs = new Map<number, number>();
  for (const shard of chaos.shardsOwnedBy(member)) {
    const revision = chaos.ownership.shards().get(shard)?.revision;
    if (revision !== undefined) epochs.set(shard, revision);
  }
  return epochs;
}

describe("chaos: crashes, pauses and partitions of an owner", { concurrency: false }, () => {
  it("S1: SIGKILL of an owner mid-rollout: the new owner takes over after appending its takeover, nothing is written twice", async (t) => {
    const since = Date.now();
    const sets = await createSets(chaos, "s1", 6, (i) => ({ replicas: 3, partition: i < 2 ? 1 : 0 }));
    const { member: victim, sets: victimSets } = busiestOwner(chaos, sets);
    const before = epochsOf(victim);
    const rolloutAtUs = Date.now() * 1000;
    await Promise.all(sets.map((set) => chaos.workload.changeTemplate(set)));
    // Mid-rollout: right after the victim's first pod deletion, the next deletion or re-creation is in flight.
    await waitForWrite(
      chaos,
      `pod delete by ${victim}`,
      (w) => w.namespace === "s1" && w.verb === "delete" && w.resource === "pods" && w.instance === victim && succeeded(w) && w.receivedUs > rolloutAtUs,
    );
    const kill = chaos.kill(victim);
    const convergedMs = await chaos.waitConverged(["s1"]);
    await chaos.waitForFleet();

    // Failover: the first write to each of the victim's sets by its new owner.
    const after = actorWrites(chaos, victimSets).filter((w) => w.receivedUs > kill.atMs * 1000 && w.epoch?.member !== victim);
    assert.ok(after.length > 0, "the new owners wrote");
    const firstWriteMs = (after[0]?.receivedUs ?? 0) / 1000 - kill.atMs;
    t.diagnostic(`S1: killed ${victim} (${victimSets.length} of ${sets.length} sets), first write by a new owner ${ms(firstWriteMs)} after the kill, converged ${ms(convergedMs)} later`);

    // The intent log shows the takeover (new epoch) before any plan of the new owner and before its first write.
    for (const set of victimSets) {
      const oldEpoch = before.get(shardOf(set.namespace, set.name)) ?? 0;
      const log = await chaos.intentLog(set.namespace, set.name);
      const newer = log.filter((r) => (r.intent?.epoch ?? 0) > oldEpoch);
      assert.ok(newer.length > 0, `${set.name}: the new owner appended to the intent log`);
      assert.equal(newer[0]?.intent?.type, "intent.takeover", `${set.name}: the new epoch starts with a takeover`);
      const firstWrite = after.find((w) => w.name?.startsWith(`${set.name}-`));
      if (firstWrite) assert.ok((newer[0]?.atMs ?? Infinity) * 1000 <= firstWrite.receivedUs, `${set.name}: takeover before the first write`);
    }
    assertInvariants(t, await chaos.check({ namespaces: ["s1"], sinceMs: since }));
  });

  it("S2: SIGSTOP longer than the lease, then SIGCONT: the resumed replica performs zero accepted writes with its old epoch", async (t) => {
    const since = Date.now();
    const sets = await createSets(chaos, "s2", 4, { replicas: 2 });
    const { member: victim } = busiestOwner(chaos, sets);
    const before = epochsOf(victim);
    const incarnation = chaos.ownership.members().get(victim)?.incarnation;
    let resumedAtMs = 0;
    const { churn } = await underChurn(chaos, sets, async () => {
      await sleep(500);
      chaos.pause(victim);
      await sleep(FAST.leaseDurationMs + 3_000);
      resumedAtMs = chaos.resume(victim).atMs;
      await sleep(4_000);
    });
    const convergedMs = await chaos.waitConverged(["s2"]);
    await chaos.waitForFleet();

    const stale = chaos
      .audit()
      .filter((w) => w.epoch?.member === victim && succeeded(w) && w.receivedUs > resumedAtMs * 1000 && before.get(w.epoch.shard) === w.epoch.epoch);
    assert.deepEqual(stale.map((w) => `${w.verb} ${w.resource}/${w.name}`), [], "no accepted write with an epoch held before the pause");
    assert.notEqual(chaos.ownership.members().get(victim)?.incarnation, incarnation, "the resumed replica re-joined as a new incarnation");
    t.diagnostic(`S2: paused ${victim} for ${ms(FAST.leaseDurationMs + 3_000)} under churn (${churn.scales} scales, ${churn.templates} template changes); converged ${ms(convergedMs)} after`);
    assertInvariants(t, await chaos.check({ namespaces: ["s2"], sinceMs: since }));
  });

  it("S4: a replica cut off from NATS stops writing within renewDeadline + the Kubernetes timeout; the others take over", async (t) => {
    const since = Date.now();
    const sets = await createSets(chaos, "s4", 4, { replicas: 2 });
    const { member: victim } = busiestOwner(chaos, sets);
    const before = epochsOf(victim);
    const incarnation = chaos.ownership.members().get(victim)?.incarnation;
    let cutAtMs = 0;
    let takenOverMs: number | undefined;
    await underChurn(chaos, sets, async () => {
      await sleep(500);
      cutAtMs = chaos.cut(victim).atMs;
      const deadline = performance.now() + FAST.leaseDurationMs + 4_000;
      while (performance.now() < deadline) {
        if (takenOverMs === undefined && [...before.keys()].every((shard) => chaos.ownership.ownerOf(shard) !== victim)) takenOverMs = Date.now() - cutAtMs;
        await sleep(100);
      }
      chaos.heal(victim);
      await sleep(4_000);
    });
    const convergedMs = await chaos.waitConverged(["s4"]);
    await chaos.waitForFleet();

    const fenceBy = cutAtMs + FAST.renewDeadlineMs + KUBE_TIMEOUT_MS;
    const late = chaos
      .audit()
      .filter((w) => w.epoch?.member === victim && succeeded(w) && w.receivedUs > fenceBy * 1000 && before.get(w.epoch.shard) === w.epoch.epoch);
    assert.deepEqual(late.map((w) => `${w.verb} ${w.resource}/${w.name}`), [], "no old-epoch write after renewDeadline + Kubernetes timeout");
    assert.ok(takenOverMs !== undefined, "its shards were taken over during the cut");
    assert.notEqual(chaos.ownership.members().get(victim)?.incarnation, incarnation, "it re-joined under a new incarnation after the cut");
    t.diagnostic(`S4: cut ${victim} off NATS; its ${before.size} shards were owned by others ${ms(takenOverMs)} after the cut; converged ${ms(convergedMs)} after healing`);
    assertInvariants(t, await chaos.check({ namespaces: ["s4"], sinceMs: since }));
  });
});
