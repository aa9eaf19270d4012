// The watcher's lease against a real nats-server: what a holder does when the bucket loses the answer to a renew it
// applied (a NATS node crash can), and when another watcher really took the lease.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { KV } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { Registry } from "prom-client";
import { useNatsServer } from "#test-support/nats.ts";
import { createLogger } from "../../../common/src/logger.ts";
import { provisionTopology } from "../../../common/src/topology.ts";
import { encodeLease } from "../domain/lease.ts";
import { createWatcherMetrics } from "../metrics.ts";
import { eventually } from "../testing/harness.ts";
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

  function elector(key: string, kv: KV, timings: typeof TIMINGS = TIMINGS) {
    const transitions: string[] = [];
    const revisions: number[] = [];
    const lease = new LeaseElector({
      kv,
      logger: createLogger({ service: "watcher", instance: "test", level: "silent", format: "json" }),
      metrics: createWatcherMetrics(new Registry()),
      options: { key, holder: "watcher-0", incarnation: `inc-${key}`, ...timings },
      callbacks: {
        onStartedLeading: (revision) => {
          transitions.push("started");
          revisions.push(revision);
        },
        onStoppedLeading: (reason) => transitions.push(`stopped:${reason}`),
      },
    });
    return { lease, transitions, revisions };
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
});
