// Issue 6 acceptance: the loss of one node of a 3-node JetStream cluster in the middle of a rollout. The harness
// starts the cluster on loopback and every service with --nats-replicas 3, so every stream and bucket is R3 and
// survives one node. The node stopped is the leader of STS_INTENT, the stream every batch of Kubernetes writes
// appends to first. Checks: nothing lost (every set converges, the invariant checker passes, the streams kept
// their messages) and the stall of reconciles (the largest gap between consecutive accepted writes of the fleet,
// from the last write before the stop until the sets converged; the churn keeps work pending all along).
//
// KNOWN FAILURES, so the scenarios run only with STSFLEET_CHAOS_CLUSTER=1 (not in `npm test`):
// - SIGTERM (leaders step down): the stall stayed under 5 s (4.1 s measured), but I6 failed. A replica connected to
//   the stopped node reconnects within a second, and in that window its probe subject has no subscriber, so a
//   peer's probe got "no responders" and declared it dead; both replicas then fought over the shards for ~20 s.
//   Fixed since (ownership.ts confirms "no responders" 300 ms later, ADR 0071). A later run with that fix had no
//   false death, but both actors' lease renews failed for > 10 s ("jetstream is not enabled", the members
//   bucket without a leader), both self-fenced, and one set did not converge within 90 s. The same again with the
//   shard-feed fix (2026-11-30 01:15): the surviving nodes answered KV writes with "jetstream is not enabled"
//   for over 60 s after the SIGTERM, so the actors correctly stayed fenced and the set converged too late. Why
//   JetStream stays unavailable on two of three nodes after a graceful stop of the third is not yet explained
//   (nats-server 2.9.10; the harness keeps no server logs yet).
// - SIGKILL: the followers of every group the node led wait out nats-server's Raft election timeout (4-9 s); the
//   actors' shard feeds (R1 ordered consumers) on that node die and are re-created (intake.ts); one run converged
//   with an 18 s stall; after an earlier node restart in the same stack JetStream stayed unavailable for > 90 s.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstreamManager } from "@nats-io/jetstream";
import { BUCKETS, STREAMS } from "#protocol";
import { succeeded } from "../../tools/chaos/facts.ts";
import type { AuditWrite } from "../../tools/chaos/facts.ts";
import { ChaosStack } from "../../tools/chaos/harness.ts";
import { assertInvariants, createSets, ms, underChurn, waitForWrite } from "./support.ts";

// Started in `before`, so a skipped run starts nothing.
let chaos: ChaosStack;
const STALL_BOUND_MS = 5_000;
/** A crash costs a Raft election (4-9 s) per group the node led before anything else can happen. */
const CRASH_STALL_BOUND_MS = 30_000;
const SERVICES = new Set(["actor", "pvc-provisioner", "status-writer"]);

/** Accepted writes of the fleet's services in `namespace`, in arrival order. */
function fleetWrites(namespace: string): AuditWrite[] {
  return chaos
    .audit()
    .filter((w) => w.namespace === namespace && w.service !== undefined && SERVICES.has(w.service) && succeeded(w))
    .sort((a, b) => a.receivedUs - b.receivedUs);
}

/** The largest gap between consecutive writes from the last one before `fromMs` to the last one before `toMs`. */
function largestGap(writes: readonly AuditWrite[], fromMs: number, toMs: number): { gapMs: number; atMs: number; writes: number } {
  const times = writes.map((w) => w.receivedUs / 1000);
  const start = Math.max(0, times.findLastIndex((t) => t <= fromMs));
  const inWindow = times.slice(start).filter((t) => t <= toMs);
  let gapMs = 0;
  let atMs = fromMs;
  for (let i = 1; i < inWindow.length; i++) {
    const gap = (inWindow[i] ?? 0) - (inWindow[i - 1] ?? 0);
    if (gap > gapMs) {
      gapMs = gap;
      atMs = inWindow[i - 1] ?? 0;
    }
  }
  return { gapMs, atMs, writes: inWindow.length };
}

async function leaders(): Promise<Record<string, string>> {
  const jsm = await jetstreamManager(chaos.connection);
  const names = [...Object.values(STREAMS), ...Object.values(BUCKETS).map((bucket) => `KV_${bucket}`)];
  const entries = await Promise.all(names.map(async (name) => [name, (await jsm.streams.info(name)).cluster?.leader ?? "?"] as const));
  return Object.fromEntries(entries);
}

async function messageCounts(): Promise<Record<string, number>> {
  const jsm = await jetstreamManager(chaos.connection);
  const names = [STREAMS.intents, STREAMS.objects];
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, (await jsm.streams.info(name)).state.messages] as const)));
}

/** Waits until every stream and bucket has a leader and all its replicas are current again. */
async function waitReplicated(timeoutMs = 60_000): Promise<void> {
  const jsm = await jetstreamManager(chaos.connection);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const infos = await Promise.all([...(await jsm.streams.names().next())].map((name) => jsm.streams.info(name).catch(() => undefined)));
    const behind = infos.filter((i) => !i?.cluster?.leader || (i.cluster.replicas ?? []).some((r) => !r.current || r.offline));
    if (behind.length === 0) return;
    if (performance.now() > deadline) throw new Error(`streams not replicated again within ${timeoutMs} ms`);
    await sleep(250);
  }
}

const KNOWN_FAILURE = process.env["STSFLEET_CHAOS_CLUSTER"] === "1" ? false : "known failures (see the top of this file); STSFLEET_CHAOS_CLUSTER=1 runs them";

interface Loss {
  readonly signal: "SIGTERM" | "SIGKILL";
  readonly name: string;
  readonly stallBoundMs: number;
}

const LOSSES: readonly Loss[] = [
  {
    signal: "SIGTERM",
    name: "the STS_INTENT leader stops (SIGTERM, its Raft leaders step down) mid-rollout: nothing lost, reconciles stall less than 5 s",
    stallBoundMs: STALL_BOUND_MS,
  },
  {
    signal: "SIGKILL",
    name: "the STS_INTENT leader is SIGKILLed mid-rollout: nothing lost, every set converges",
    // A crashed leader's followers wait 4-9 s (nats-server's Raft election timeout) before they elect a new one,
    // for every group it led; then the actors re-create the consumers that lived on it.
    stallBoundMs: CRASH_STALL_BOUND_MS,
  },
];

describe("chaos: a 3-node JetStream cluster loses a node", { concurrency: false, skip: KNOWN_FAILURE }, () => {
  before(async () => {
    chaos = await ChaosStack.start({ natsCluster: true, actors: 2 });
  });
  after(() => chaos.stop());

  for (const loss of LOSSES) {
    it(loss.name, async (t) => {
      try {
        await scenario(t, loss);
      } catch (error) {
        // The servers' side of a failure (elections, routes, JetStream state) is only in their logs.
        for (const line of chaos.natsLogTails().split("\n")) t.diagnostic(line);
        throw error;
      }
    });
  }
});

async function scenario(t: TestContext, loss: Loss): Promise<void> {
  const since = Date.now();
  const ns = `nodeloss-${loss.signal.toLowerCase()}`;
  const sets = await createSets(chaos, ns, 4, { replicas: 3 });
  const before = await leaders();
  const victim = before[STREAMS.intents] ?? "";
  const index = chaos.cluster?.nodes.findIndex((n) => n.name === victim) ?? -1;
  assert.ok(index >= 0, `the intent stream has a leader among the nodes (${JSON.stringify(before)})`);
  const countsBefore = await messageCounts();

  let stoppedAtMs = 0;
  const rolloutAtUs = Date.now() * 1000;
  const { churn } = await underChurn(chaos, sets, async () => {
    await Promise.all(sets.map((set) => chaos.workload.changeTemplate(set)));
    await waitForWrite(chaos, "rollout pod delete", (w) => w.namespace === ns && w.verb === "delete" && w.resource === "pods" && succeeded(w) && w.receivedUs > rolloutAtUs);
    stoppedAtMs = Date.now();
    await chaos.stopNatsNode(index, loss.signal);
    await sleep(8_000);
  });
  const convergedMs = await chaos.waitConverged([ns]);
  const after = await leaders();
  const countsAfter = await messageCounts();
  // Work remained from the stop until the sets converged (the churn kept changing them until shortly before).
  const stall = largestGap(fleetWrites(ns), stoppedAtMs, Date.now());
  t.diagnostic(
    `${loss.signal} of ${victim} (leaders before ${JSON.stringify(before)}, after ${JSON.stringify(after)}) under churn ` +
      `(${churn.scales} scales, ${churn.templates} template changes): largest gap between accepted writes ${ms(stall.gapMs)}, ` +
      `starting ${ms(stall.atMs - stoppedAtMs)} after the stop (${stall.writes} writes); converged ${ms(convergedMs)} after the churn; ` +
      `messages ${JSON.stringify(countsBefore)} -> ${JSON.stringify(countsAfter)}`,
  );
  assert.ok(stall.writes > 20, `work went on during the window (${stall.writes} writes)`);
  for (const [name, count] of Object.entries(countsBefore)) assert.ok((countsAfter[name] ?? 0) >= count, `${name} lost no messages`);
  assert.ok(Object.values(after).every((leader) => leader !== victim), "no group is led by the stopped node");
  assert.ok(stall.gapMs < loss.stallBoundMs, `reconciles stalled ${ms(stall.gapMs)} (bound ${ms(loss.stallBoundMs)})`);
  assertInvariants(t, await chaos.check({ namespaces: [ns], sinceMs: since }));

  // The node comes back and catches up before the next scenario.
  await chaos.startNatsNode(index);
  await chaos.cluster?.waitForMetaLeader();
  await waitReplicated();
}
