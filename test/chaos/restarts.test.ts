// Chaos scenarios S3 and S7 (docs/CHAOS.md) on one stack (3 actors, fast lease profile): nats-server killed and restarted with its
// JetStream store after a short (2 s) and a long (past the renew deadline) outage, and the watcher resuming after
// 410 Gone with objects deleted while it was away. The simulator keeps a small watch history (25 events per
// resource) and drops every watch each 3 s, so a watcher that was away resumes from a compacted resourceVersion.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstreamManager } from "@nats-io/jetstream";
import { HEADERS, STREAMS, objectSubjects, shard as shardOf } from "#protocol";
import { LEASE_PROFILES } from "../../services/actor/src/runtime/ownership.ts";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { CHAOS_KUBE_SIM_ARGS } from "../../tools/chaos/harness.ts";
import { succeeded } from "../../tools/chaos/facts.ts";
import { assertInvariants, createSets, ms, underChurn, useChaos } from "./support.ts";

const chaos = await useChaos({ kubeSimArgs: [...CHAOS_KUBE_SIM_ARGS, "--history-window", "25", "--drop-watches-every-ms", "3000"] });
const FAST = LEASE_PROFILES.fast;

/** Ownership changes in a time window: claims that moved a shard, and members marked dead. */
function ownershipChangesBetween(fromMs: number, toMs: number): { moves: number; deaths: string[] } {
  let moves = 0;
  const deaths: string[] = [];
  const owner = new Map<string, string>();
  for (const change of chaos.ownership.changes) {
    if (change.bucket === "shards" && change.shard) {
      const who = `${change.shard.owner}/${change.shard.incarnation}/${change.shard.state}`;
      if (change.atMs >= fromMs && change.atMs <= toMs && owner.get(change.key) !== who) moves++;
      owner.set(change.key, who);
    }
    if (change.bucket === "members" && change.member?.state === "dead" && change.atMs >= fromMs && change.atMs <= toMs) {
      deaths.push(change.member.name);
    }
  }
  return { moves, deaths };
}

describe("chaos: NATS restarts and a watcher resuming after 410 Gone", { concurrency: false }, () => {
  for (const outage of [
    { name: "S3a: nats-server SIGKILLed and back after 2 s: no ownership change, no member declared dead", downMs: 2_000 },
    { name: `S3b: nats-server down past the renew deadline: every replica self-fences and resumes, no mark-dead storm`, downMs: FAST.renewDeadlineMs + 4_000 },
  ]) {
    it(outage.name, async (t) => {
      const ns = outage.downMs > FAST.renewDeadlineMs ? "s3b" : "s3a";
      const since = Date.now();
      const sets = await createSets(chaos, ns, 4, { replicas: 2 });
      const objectsBefore = (await jetstreamManager(chaos.connection).then((jsm) => jsm.streams.info(STREAMS.objects))).state.messages;
      let window = { fromMs: 0, toMs: 0 };
      let measured = 0;
      const { churn } = await underChurn(chaos, sets, async () => {
        await sleep(1_000);
        const fromMs = Date.now();
        measured = (await chaos.restartNats({ downMs: outage.downMs })).downMs;
        await sleep(3_000);
        window = { fromMs, toMs: Date.now() };
      });
      const convergedMs = await chaos.waitConverged([ns]);
      await chaos.waitForFleet();
      const { moves, deaths } = ownershipChangesBetween(window.fromMs, window.toMs);
      assert.deepEqual(deaths, [], "no member was declared dead because of the outage");
      assert.equal(moves, 0, "no shard changed hands");
      const objectsAfter = (await jetstreamManager(chaos.connection).then((jsm) => jsm.streams.info(STREAMS.objects))).state.messages;
      assert.ok(objectsAfter >= objectsBefore * 0.5 && objectsAfter > 0, `JetStream kept its file store (${objectsBefore} → ${objectsAfter} messages)`);
      const writesAfter = chaos
        .audit()
        .filter((w) => w.namespace === ns && w.epoch && succeeded(w) && w.receivedUs > (window.fromMs + measured) * 1000);
      t.diagnostic(
        `${ns}: NATS down ${ms(measured)} under churn (${churn.scales} scales, ${churn.templates} template changes); ` +
          `first actor write ${writesAfter[0] ? ms(writesAfter[0].receivedUs / 1000 - window.fromMs - measured) : "none"} after NATS was back; converged ${ms(convergedMs)} after`,
      );
      assertInvariants(t, await chaos.check({ namespaces: [ns], sinceMs: since }));
    });
  }

  it("S7: the watcher resumes after 410 Gone, tombstones only what vanished while it was away, actors converge", async (t) => {
    const since = Date.now();
    const sets = await createSets(chaos, "s7", 3, { replicas: 2 });
    const [gone, ...kept] = sets;
    assert.ok(gone);
    await chaos.workload.createNamespace("s7-noise");
    const goneBefore = await chaos.metric("watcher", "stsfleet_watcher_watch_gone_total");
    const pausedAtUs = Date.now() * 1000;
    chaos.pause("watcher");
    // A paused process keeps its sockets: events sent before the simulator drops its watches (every 3 s) still
    // reach it on resume. Only what happens after a drop is missed, so wait for one first.
    await sleep(3_500);
    // While it is away: a set goes (its pods with it), others change, and enough happens to every kind the
    // watcher follows that its resourceVersion leaves the simulator's 25-event window.
    await chaos.workload.deleteSet(gone);
    for (const set of kept) await chaos.workload.scale(set, 3);
    for (let i = 0; i < 15; i++) {
      await chaos.kube.create({ ...RESOURCES.pods, namespace: "s7-noise" }, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `noise-${i}` },
        spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] },
      });
      await chaos.workload.createSet("s7-noise", `noise-${i}`, { replicas: 0, claims: false });
    }
    chaos.resume("watcher");
    const convergedMs = await chaos.waitConverged(["s7"]);
    const goneAfter = await chaos.metric("watcher", "stsfleet_watcher_watch_gone_total");
    assert.ok(goneAfter > goneBefore, `the watcher got 410 Gone (${goneBefore} → ${goneAfter})`);

    // The vanished set's subject now holds a tombstone; the kept ones still hold objects.
    const jsm = await jetstreamManager(chaos.connection);
    const opOf = async (name: string) => {
      const subject = objectSubjects.build({ shard: shardOf("s7", name), kind: "sts", namespace: "s7", name });
      return (await jsm.streams.getMessage(STREAMS.objects, { last_by_subj: subject }).catch(() => null))?.header.get(HEADERS.op) ?? "purged";
    };
    assert.notEqual(await opOf(gone.name), "PUT", "the deleted set was tombstoned");
    for (const set of kept) assert.equal(await opOf(set.name), "PUT", `${set.name} was not tombstoned`);
    const spurious = chaos
      .audit()
      .filter((w) => w.namespace === "s7" && w.verb === "delete" && w.service === "actor" && succeeded(w) && w.receivedUs > pausedAtUs);
    assert.deepEqual(spurious.map((w) => w.name), [], "no pod of a kept set was deleted");
    t.diagnostic(`S7: watcher paused with ${goneAfter - goneBefore} watch(es) answered 410 on resume; kept sets converged ${ms(convergedMs)} after`);
    assertInvariants(t, await chaos.check({ namespaces: ["s7"], sinceMs: since }));
  });
});
