// After a rolling update through the local stack (two actors), every service's /metrics (the
// URLs in stack.json) has the reconcile, mailbox, shard and drop series with sensible values, in controller-runtime's
// and client-go's shapes where those exist.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import { eventSubjects, shard } from "#protocol";
import { readStackFile } from "../../tools/stsfleet/src/state.ts";
import { parsePrometheus, useStack, waitFor } from "../support/stack.ts";
import type { Sample } from "../support/stack.ts";
import { IMAGE_B, createSet, patchSet, waitForConverged } from "../e2e/helpers.ts";

const t = await useStack({ actors: 2 });

interface Scrape {
  readonly name: string;
  readonly service: string;
  readonly text: string;
  readonly samples: Sample[];
}

async function scrapeAll(): Promise<Scrape[]> {
  const stack = readStackFile(t.stateDir);
  assert.ok(stack, "stack.json exists");
  const services = stack.processes.filter((p) => p.service !== "nats" && p.service !== "kube-sim");
  return Promise.all(
    services.map(async (entry) => {
      assert.ok(entry.metrics, `${entry.name} has a metrics URL in stack.json`);
      const response = await fetch(entry.metrics, { signal: AbortSignal.timeout(5_000) });
      assert.equal(response.status, 200, `${entry.metrics}`);
      assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      return { name: entry.name, service: entry.service, text, samples: parsePrometheus(text) };
    }),
  );
}

function sum(scrape: Scrape, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return scrape.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((total, s) => total + s.value, 0);
}

function series(scrape: Scrape, name: string): Sample[] {
  return scrape.samples.filter((s) => s.name === name);
}

/** A histogram is well formed: cumulative buckets ending in +Inf == _count, and a non-negative _sum. */
function assertHistogram(scrape: Scrape, name: string, labels: Readonly<Record<string, string>>): number {
  const buckets = series(scrape, `${name}_bucket`).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(buckets.length > 1, `${scrape.name}: ${name} has buckets`);
  const values = buckets.map((b) => b.value);
  assert.deepEqual(values, [...values].sort((a, b) => a - b), `${scrape.name}: ${name} buckets are cumulative`);
  assert.equal(buckets.at(-1)?.labels["le"], "+Inf");
  const count = sum(scrape, `${name}_count`, labels);
  assert.equal(buckets.at(-1)?.value, count, `${scrape.name}: ${name} +Inf bucket equals _count`);
  assert.ok(sum(scrape, `${name}_sum`, labels) >= 0);
  return count;
}

describe("metrics of every service after a rollout", () => {
  let scrapes: Scrape[];
  const ofService = (service: string) => scrapes.filter((s) => s.service === service);
  const one = (service: string): Scrape => {
    const [scrape] = ofService(service);
    assert.ok(scrape, service);
    return scrape;
  };

  before(async () => {
    const ns = "metrics-rollout";
    await t.createNamespace(ns);
    await createSet(t.kube, ns, "web", { replicas: 2 });
    await waitForConverged(t.kube, ns, "web", 2);
    await patchSet(t.kube, ns, "web", { spec: { template: { spec: { containers: [{ name: "app", image: IMAGE_B }] } } } });
    await waitForConverged(t.kube, ns, "web", 2);
    // One message the status-writer cannot use, so the drop counter has a sample to check.
    const nc = await connect({ servers: t.stack.natsUrl, name: "metrics-test" });
    nc.publish(eventSubjects.build({ shard: shard(ns, "web"), namespace: ns, name: "web" }), new Uint8Array([0xc1]));
    await nc.drain();
    // Ownership settles after start (the first member takes everything, then hands shards over to the second).
    scrapes = await waitFor(
      "both actors to own shards, all 256 between them, each owned shard's feed synced",
      async () => {
        const all = await scrapeAll();
        const actors = all.filter((s) => s.service === "actor");
        const owned = actors.map((s) => sum(s, "stsfleet_shards_owned"));
        // A handoff just before the scrape leaves the new owner's feeds replaying for a moment (opened 16 at a time).
        const synced = actors.map((s) => sum(s, "stsfleet_shards_synced"));
        const dropped = all.some((s) => s.service === "status-writer" && sum(s, "stsfleet_dropped_messages_total") > 0);
        const settled = owned.reduce((a, b) => a + b, 0) === 256 && owned.every((n) => n > 0) && synced.every((n, i) => n === owned[i]);
        return settled && dropped ? all : undefined;
      },
      { timeoutMs: 60_000 },
    );
  });

  it("scrapes every service named in stack.json, each labelled with its service and instance", () => {
    assert.deepEqual(scrapes.map((s) => s.name).sort(), ["actor-0", "actor-1", "pvc-provisioner", "status-writer", "watcher"]);
    for (const scrape of scrapes) {
      const up = series(scrape, "process_cpu_user_seconds_total")[0];
      assert.deepEqual([up?.labels["service"], up?.labels["instance"]], [scrape.service, scrape.name], "default labels");
      assert.match(scrape.text, /^# TYPE rest_client_request_duration_seconds histogram$/m);
      assert.equal(sum(scrape, "rest_client_requests_total", { code: "500" }), 0);
    }
    // The set lives in one shard, so one actor did its Kubernetes writes; the others only read NATS.
    for (const service of ["watcher", "pvc-provisioner", "status-writer"]) {
      assert.ok(sum(one(service), "rest_client_requests_total") > 0, `${service} made Kubernetes requests`);
    }
    const actorRequests = ofService("actor").reduce((total, s) => total + sum(s, "rest_client_requests_total", { verb: "create", resource: "pods" }), 0);
    assert.ok(actorRequests >= 4, `two pods created, then both replaced (got ${actorRequests})`);
  });

  it("reconcile series in controller-runtime's shape: successes, errors, duration histogram, workers", () => {
    const actors = ofService("actor");
    const successes = actors.reduce((total, s) => total + sum(s, "controller_runtime_reconcile_total", { controller: "statefulset", result: "success" }), 0);
    assert.ok(successes >= 4, `a rollout of 2 pods takes several successful turns (got ${successes})`);
    for (const actor of actors) {
      for (const [name, type] of [
        ["controller_runtime_reconcile_total", "counter"],
        ["controller_runtime_reconcile_errors_total", "counter"],
        ["controller_runtime_reconcile_time_seconds", "histogram"],
        ["controller_runtime_active_workers", "gauge"],
      ]) {
        assert.match(actor.text, new RegExp(`^# TYPE ${name} ${type}$`, "m"), `${actor.name} exports ${name}`);
      }
      assert.ok(sum(actor, "controller_runtime_max_concurrent_reconciles", { controller: "statefulset" }) >= 1);
      const total = sum(actor, "controller_runtime_reconcile_total");
      if (total === 0) continue;
      const observed = assertHistogram(actor, "controller_runtime_reconcile_time_seconds", { controller: "statefulset" });
      assert.equal(observed, total, `${actor.name}: one duration per reconcile`);
      assert.ok(sum(actor, "controller_runtime_reconcile_time_seconds_sum") > 0);
      assert.equal(sum(actor, "controller_runtime_active_workers"), 0, `${actor.name}: no turn running after the rollout`);
    }
  });

  it("mailbox series: workqueue depth (idle after the rollout) and queue latency", () => {
    let queued = 0;
    for (const actor of ofService("actor")) {
      assert.match(actor.text, /^# TYPE workqueue_depth gauge$/m);
      assert.match(actor.text, /^# TYPE workqueue_queue_duration_seconds histogram$/m);
      if (sum(actor, "controller_runtime_reconcile_total") === 0) continue;
      const depth = series(actor, "workqueue_depth");
      assert.deepEqual(depth.map((s) => [s.labels["name"], s.value]), [["statefulset", 0]], `${actor.name}: an empty mailbox after the rollout`);
      const turns = assertHistogram(actor, "workqueue_queue_duration_seconds", { name: "statefulset" });
      // A turn is timed when it starts and counted when it ends: at most one may be running at the scrape.
      const finished = sum(actor, "controller_runtime_reconcile_total");
      assert.ok(turns >= finished && turns <= finished + 1, `${actor.name}: every turn queued and timed once (${turns} started, ${finished} finished)`);
      queued += turns;
    }
    assert.ok(queued > 0, "turns waited in the mailbox and were timed");
  });

  it("shard series: the actors own all 256 shards between them, all synced, each at least one", () => {
    const actors = ofService("actor");
    const owned = actors.map((s) => sum(s, "stsfleet_shards_owned"));
    assert.equal(owned.reduce((a, b) => a + b, 0), 256, `owned per actor: ${owned.join(", ")}`);
    assert.ok(owned.every((n) => n > 0), `both members own shards: ${owned.join(", ")}`);
    const synced = actors.map((s) => sum(s, "stsfleet_shards_synced"));
    assert.deepEqual(synced, owned, "every owned shard is synced");
    assert.ok(actors.reduce((total, s) => total + sum(s, "stsfleet_shard_handoffs_total", { direction: "gained" }), 0) >= 256);
  });

  it("drop series on every service, and the poison event counted by subject template and reason", () => {
    for (const scrape of scrapes) {
      assert.match(scrape.text, /^# TYPE stsfleet_dropped_messages_total counter$/m, `${scrape.name} exports drops`);
      assert.match(scrape.text, /^# TYPE stsfleet_nats_errors_total counter$/m);
    }
    const drops = series(one("status-writer"), "stsfleet_dropped_messages_total");
    assert.deepEqual(
      drops.map((s) => [s.labels["subject"], s.labels["reason"], s.value]),
      [["svc.event.{shard}.{namespace}.{name}", drops[0]?.labels["reason"], 1]],
    );
    assert.match(drops[0]?.labels["reason"] ?? "", /^(malformed|invalid|empty|truncated)$/);
  });

  it("the executors' and the watcher's own work is counted", () => {
    assert.ok(sum(one("watcher"), "stsfleet_watcher_published_objects_total") > 0);
    assert.equal(sum(one("watcher"), "stsfleet_watcher_leader"), 1);
    assert.equal(sum(one("pvc-provisioner"), "stsfleet_pvc_commands_total", { type: "pvc.create", outcome: "created" }), 2, "one command per pod with claims");
    assert.ok(sum(one("status-writer"), "stsfleet_status_writes_total", { outcome: "written" }) > 0);
    assert.ok(sum(one("status-writer"), "stsfleet_events_total", { outcome: "created" }) > 0);
  });
});
