// The watcher's lease against a real nats-server: what a holder does when the bucket loses the answer to a renew it
// applied (a NATS node crash can), and when another watcher really took the lease.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { KV } from "@nats-io/kv";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { Registry } from "prom-client";
import { BUCKETS } from "#protocol";
import { useNatsServer } from "#test-support/nats.ts";
import { eventually } from "#test-support/watcher-harness.ts";
import { garbagePayloads } from "../../../../tools/chaos/garbage.ts";
import { createLogger } from "../../../common/src/logger.ts";
import { provisionTopology } from "../../../common/src/topology.ts";
import { encodeLease } from "../domain/lease.ts";
import { createWatcherMetrics } from "../metrics.ts";
import { LeaseElector } from "./lease-elector.ts";

const TIMINGS = { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 };

describe("watcher lease elector", async () => {
  const server = await useNatsServer();
  let nc: NatsConnection;
  let leases: KV;

  before(async () => {
    nc = await connect({ servers: server.url });
    leases = (await provisionTopology(nc, { replicas: 1 })).leases;
  });
  after(async () => {
    await nc.close();
  });

  function elector(key: string, kv: KV, timings: typeof TIMINGS = TIMINGS, holder = "watcher-0") {
    const transitions: string[] = [];
    const revisions: number[] = [];
    const undecodable: string[] = [];
    const lease = new LeaseElector({
      kv,
      logger: createLogger({ service: "watcher", instance: "test", level: "silent", format: "json" }),
      metrics: createWatcherMetrics(new Registry()),
      onUndecodable: (reason) => undecodable.push(reason),
      options: { key, holder, incarnation: `inc-${key}-${holder}`, ...timings },
      callbacks: {
        onStartedLeading: (revision) => {
          transitions.push("started");
          revisions.push(revision);
        },
        onStoppedLeading: (reason) => transitions.push(`stopped:${reason}`),
      },
    });
    return { lease, transitions, revisions, undecodable };
  }

  it("stays active after a renew whose answer was lost, continuing from the record's revision", async () => {
    let swallow = 0;
    const lossy = new Proxy(leases, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property !== "update" || typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const revision: unknown = await Reflect.apply(value, target, args);
          if (swallow > 0) {
            swallow--;
            throw new Error("TimeoutError: timeout");
          }
          return revision;
        };
      },
    });
    const { lease, transitions } = elector("lossy", lossy);
    lease.start();
    await eventually("it leads", () => lease.isLeader);
    swallow = 2;
    await sleep(TIMINGS.renewDeadlineMs * 3);
    assert.equal(swallow, 0, "two answers were swallowed");
    assert.deepEqual(transitions, ["started"], "no step-down and no re-acquisition");
    const entry = await leases.get("lossy");
    assert.ok(entry && Date.now() - entry.created.getTime() < TIMINGS.renewDeadlineMs, "still renewing");
    await lease.stop({ release: true });
  });

  // A crash of the NATS node leading the leases bucket leaves it without a leader for 4-9 s: a renew sent meanwhile is
  // never answered. Each such try used to wait until the client's timeout, so the first renew after the election could
  // come seconds late, past the renew deadline.
  it("renews within a moment of the leases bucket answering again after an election (writes unanswered, not refused)", async (t) => {
    // The default profile's proportions (15 s / 10 s / 2 s) at 40%.
    const slow = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 800 };
    let outage = false;
    // A request to a leaderless stream is dropped: the write does not land and the client times out (here after 2 s).
    const unanswered = new Proxy(leases, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if ((property !== "update" && property !== "get") || typeof value !== "function") return value;
        return (...args: unknown[]) =>
          outage ? sleep(2_000).then(() => Promise.reject(new Error("TimeoutError: timeout"))) : (Reflect.apply(value, target, args) as Promise<unknown>);
      },
    });
    const { lease, transitions } = elector("election", unanswered, slow);
    lease.start();
    await eventually("it leads", () => lease.isLeader);
    // Outages of different lengths, so that no phase of the renew timer lands every first try just after the end;
    // the last one lasts 3.3 s of the 4 s renew deadline.
    const lagsMs: number[] = [];
    for (const outageMs of [1_000, 1_400, 1_800, 3_300]) {
      await sleep(600);
      outage = true;
      await sleep(outageMs);
      const before = (await leases.get("election"))?.revision ?? 0;
      outage = false;
      const endedAt = Date.now();
      await eventually("a renew lands after the outage", async () => ((await leases.get("election"))?.revision ?? 0) > before);
      lagsMs.push(Date.now() - endedAt);
    }
    t.diagnostic(`first renew after each outage: ${lagsMs.join(", ")} ms; transitions ${transitions.join(", ")}`);
    // A try every 2 × 100 ms while failing (each used to wait for the client's 2 s timeout).
    assert.ok(Math.max(...lagsMs) < 450, `the first renew after an outage landed within 450 ms of it (${lagsMs.join(", ")} ms)`);
    assert.deepEqual(transitions, ["started"], "no step-down");
    await lease.stop({ release: true });
  });

  it("steps down when another watcher took the lease, and hands out a larger revision to each new holder", async () => {
    const { lease, transitions, revisions } = elector("contested", leases);
    lease.start();
    await eventually("it leads", () => lease.isLeader);
    const entry = await leases.get("contested");
    await leases.update("contested", encodeLease({ holder: "watcher-1", incarnation: "other", leaseDurationMs: TIMINGS.leaseDurationMs, renewedAtMs: Date.now() }), entry?.revision ?? 0);
    await eventually("it stepped down", () => !lease.isLeader);
    assert.deepEqual(transitions, ["started", "stopped:lost"]);
    // watcher-1 stops renewing; after a lease this watcher takes over, at a later revision (the publication epoch).
    await eventually("it leads again", () => lease.isLeader, 10_000);
    assert.equal(revisions.length, 2);
    assert.ok((revisions[1] ?? 0) > (revisions[0] ?? 0), `revisions ${revisions.join(" -> ")}`);
    await lease.stop({ release: true });
  });

  // Issue 16: garbage on `$KV.leases.watcher`. The holder's renew lost its compare-and-set, the record read back as no
  // lease, so it stepped down, and then stood by like everyone else for a whole lease duration before any watcher
  // was active again. ADR 0088: the holder takes a key that holds no lease record back at once, as a new holder.
  it("takes its lease back at once, under a new revision, when the key is overwritten with garbage; a standby waits", async () => {
    const key = "garbled";
    const holder = elector(key, leases);
    holder.lease.start();
    await eventually("it leads", () => holder.lease.isLeader);
    const standby = elector(key, leases, TIMINGS, "watcher-1");
    standby.lease.start();
    await sleep(TIMINGS.retryPeriodMs * 2);
    assert.equal(standby.lease.isLeader, false);

    const js = jetstream(nc);
    const poisonedAt = Date.now();
    for (const { data } of garbagePayloads()) await js.publish(`$KV.${BUCKETS.leases}.${key}`, data);
    const garbage = (await leases.get(key))?.revision ?? 0;
    // Each payload may land after a retake (they come one after another): then it is taken back again.
    await eventually("it took the lease back", async () => {
      const entry = await leases.get(key);
      return holder.lease.isLeader && entry !== null && entry.revision === holder.revisions.at(-1) && entry.revision > garbage;
    });
    const tookMs = Date.now() - poisonedAt;
    assert.ok(tookMs < TIMINGS.leaseDurationMs / 2, `within ${tookMs} ms, not after a lease duration`);
    assert.ok(holder.transitions.length >= 3 && holder.transitions.length % 2 === 1, holder.transitions.join());
    holder.transitions.forEach((transition, i) =>
      assert.equal(transition, i % 2 === 0 ? "started" : "stopped:lost", `it stopped acting at its old epoch first: ${holder.transitions.join()}`),
    );
    assert.ok(
      holder.revisions.every((revision, i) => i === 0 || revision > (holder.revisions[i - 1] ?? 0)),
      `a new epoch for each retake, above the garbage (${holder.revisions.join(" -> ")}, garbage ${garbage})`,
    );
    assert.ok(holder.undecodable.length >= 1 && holder.undecodable.every((r) => r === "malformed" || r === "invalid"), holder.undecodable.join());
    await sleep(TIMINGS.leaseDurationMs);
    assert.deepEqual(standby.transitions, [], "the standby never led: the record was readable again long before its lease duration");
    await standby.lease.stop({ release: false });
    await holder.lease.stop({ release: true });
  });

  it("a standby takes a garbage key only after a lease duration when no holder repairs it", async () => {
    const key = "garbled-orphan";
    await leases.put(key, encodeLease({ holder: "gone", incarnation: "gone-1", leaseDurationMs: TIMINGS.leaseDurationMs, renewedAtMs: Date.now() }));
    const js = jetstream(nc);
    for (const { data } of garbagePayloads()) await js.publish(`$KV.${BUCKETS.leases}.${key}`, data);
    const poisonedAt = Date.now();
    const standby = elector(key, leases);
    standby.lease.start();
    await eventually("the standby leads", () => standby.lease.isLeader, 4 * TIMINGS.leaseDurationMs);
    assert.ok(Date.now() - poisonedAt >= TIMINGS.leaseDurationMs, "garbage proves nothing about a holder: a full lease duration");
    assert.deepEqual(standby.undecodable, ["malformed"], "counted once (an empty MessagePack map is no JSON) for the revision, however often it was polled");
    await standby.lease.stop({ release: true });
  });
});
