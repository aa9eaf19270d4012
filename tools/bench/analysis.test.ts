import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chainLatency, convergence, countRequests, percentile, setOfObject, takeover } from "./analysis.ts";
import { parseAuditRecord, parseMicros } from "./lib/logs.ts";
import type { AuditRecord } from "./lib/logs.ts";
import { parseStatCpuSeconds, parseStatusKiB } from "./lib/proc.ts";
import { controllerCounts, requestsByVerb } from "./measure.ts";
import type { ProbeRecord } from "./sim/probe.ts";

function audit(partial: Partial<AuditRecord> & { name: string; receivedUs: number }): AuditRecord {
  return { verb: "create", resource: "pods", subresource: undefined, namespace: "ns", code: 201, service: "actor", instance: "actor-0", ...partial };
}

describe("percentile", () => {
  it("is the nearest rank", () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(percentile(sorted, 50), 50);
    assert.equal(percentile(sorted, 99), 99);
    assert.equal(percentile([7], 99), 7);
    assert.ok(Number.isNaN(percentile([], 50)));
  });
});

describe("countRequests", () => {
  it("counts the controller side's writes in the namespace and window, by verb and resource", () => {
    const records = [
      audit({ name: "a-0", receivedUs: 10 }),
      audit({ name: "a", verb: "update", resource: "statefulsets", subresource: "status", receivedUs: 11 }),
      audit({ name: "a", verb: "create", resource: "statefulsets", service: "bench", receivedUs: 12 }),
      audit({ name: "a-1", namespace: "other", receivedUs: 13 }),
      audit({ name: "a-1", receivedUs: 5 }),
      audit({ name: "a-1", code: 409, receivedUs: 14 }),
    ];
    const counts = countRequests(records, "ns", 10, 20);
    assert.equal(counts.total, 3);
    assert.deepEqual(counts.byVerb, { create: 2, update: 1 });
    assert.deepEqual(counts.byResource, { pods: 2, "statefulsets/status": 1 });
    assert.equal(counts.failed, 1);
  });
});

describe("convergence", () => {
  const set = (name: string, t: number, gen: number, done: boolean): ProbeRecord => ({ k: "set", t, ns: "ns", name, gen, done });

  it("ends at the last set's first converged record at the generation", () => {
    const probe = [set("a", 5, 1, true), set("a", 20, 1, true), set("b", 30, 1, false), set("b", 40, 1, true), set("c", 50, 2, true)];
    assert.deepEqual(convergence(probe, "ns", ["a", "b"], 1, 0), { done: 2, lastUs: 40, missing: [] });
    const pending = convergence(probe, "ns", ["a", "b", "c"], 1, 0);
    assert.equal(pending.lastUs, undefined);
    assert.deepEqual(pending.missing, ["c"]);
  });

  it("ignores records before the run and counts a set that fell back from its new arrival", () => {
    const probe = [set("a", 5, 1, true), set("a", 15, 1, false), set("a", 25, 1, true)];
    assert.equal(convergence(probe, "ns", ["a"], 1, 10).lastUs, 25);
    assert.equal(convergence(probe, "ns", ["a"], 1, 0).lastUs, 25);
  });
});

describe("chainLatency", () => {
  it("measures pod N Ready to the first create of pod N+1 and flags early creates", () => {
    const ready = (name: string, t: number): ProbeRecord => ({ k: "ready", t, ns: "ns", name, uid: name });
    const probe = [ready("s0-0", 1_000), ready("s0-1", 10_000), ready("s1-0", 2_000), ready("s1-0", 9_000)];
    const records = [
      audit({ name: "s0-0", receivedUs: 500 }),
      audit({ name: "s0-1", receivedUs: 6_000 }),
      audit({ name: "s0-1", receivedUs: 7_000 }),
      audit({ name: "s0-2", receivedUs: 12_000 }),
      audit({ name: "s1-1", receivedUs: 1_500 }),
      audit({ name: "s1-2", receivedUs: 3_000, service: "bench" }),
    ];
    const chain = chainLatency(records, probe, "ns", 0);
    assert.equal(chain.samples, 2);
    assert.equal(chain.p50Ms, 2);
    assert.equal(chain.p99Ms, 5);
    assert.equal(chain.maxMs, 5);
    assert.equal(chain.early, 1, "s1-1 was created before s1-0 was Ready");
    assert.equal(chain.toClaim, undefined, "no claims, no split");
  });

  it("splits the chain at pod N+1's claims: Ready to the first claim create, the last claim create to the pod", () => {
    const ready = (name: string, t: number): ProbeRecord => ({ k: "ready", t, ns: "ns", name, uid: name });
    const claim = (name: string, receivedUs: number) => audit({ name, resource: "persistentvolumeclaims", instance: "pvc-provisioner", receivedUs });
    const probe = [ready("web-a-0", 1_000), ready("web-b-0", 1_000)];
    const records = [
      claim("data-web-a-1", 4_000),
      claim("logs-web-a-1", 6_000),
      audit({ name: "web-a-1", receivedUs: 7_000 }),
      claim("data-web-b-1", 2_000),
      audit({ name: "web-b-1", receivedUs: 11_000 }),
      claim("data-web-a-0", 500),
      claim("data-other-1", 3_000),
    ];
    const chain = chainLatency(records, probe, "ns", 0);
    assert.equal(chain.samples, 2);
    assert.deepEqual(chain.toClaim, { samples: 2, p50Ms: 1, p99Ms: 3 });
    assert.deepEqual(chain.claimToPod, { samples: 2, p50Ms: 1, p99Ms: 9 });
  });
});

describe("takeover", () => {
  it("finds the first write by another replica to a set the victim had written to", () => {
    const records = [
      audit({ name: "a-0", instance: "actor-1", receivedUs: 100 }),
      audit({ name: "b-0", instance: "actor-0", receivedUs: 110 }),
      audit({ name: "b-1", instance: "actor-0", receivedUs: 2_000 }),
      audit({ name: "a-1", instance: "actor-0", receivedUs: 3_000 }),
      audit({ name: "a-ab12cd", resource: "controllerrevisions", instance: "actor-2", receivedUs: 2_500 }),
    ];
    const result = takeover(records, "ns", "actor-1", 1_000);
    assert.equal(result.victimSets, 1);
    assert.equal(result.firstWriteMs, 1.5);
    assert.deepEqual(result.newOwners, ["actor-0", "actor-2"]);
    assert.equal(setOfObject("controllerrevisions", "web-7d9c"), "web");
    assert.equal(setOfObject("pods", "nope"), undefined);
  });
});

describe("log and /proc parsing", () => {
  it("reads the simulator's audit lines", () => {
    const line = JSON.stringify({
      kind: "Event",
      verb: "update",
      userAgent: "stsfleet-status-writer/0.1.0 (status-writer)",
      objectRef: { resource: "statefulsets", subresource: "status", namespace: "ns", name: "a" },
      responseStatus: { code: 200 },
      requestReceivedTimestamp: "2026-01-02T03:04:05.123456Z",
    });
    const record = parseAuditRecord(line);
    assert.equal(record?.service, "status-writer");
    assert.equal(record?.subresource, "status");
    assert.equal(record?.receivedUs, Date.parse("2026-01-02T03:04:05Z") * 1000 + 123456);
    assert.equal(parseAuditRecord("{torn"), undefined);
    assert.equal(parseAuditRecord(JSON.stringify({ userAgent: "kubectl/v1.32" }))?.service, "other");
    assert.ok(Number.isNaN(parseMicros("yesterday")));
  });

  it("reads CPU ticks and peak RSS", () => {
    const stat = "123 (node (tsx) x) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 11 0 100";
    assert.equal(parseStatCpuSeconds(stat), 3);
    assert.equal(parseStatusKiB("Name:\tnode\nVmHWM:\t  2048 kB\nVmRSS:\t 1024 kB\n", "VmHWM"), 2 * 1024 * 1024);
    assert.throws(() => parseStatCpuSeconds("garbage"));
  });

  it("sums client-go request counters by verb", () => {
    const text = [
      '# HELP rest_client_requests_total x',
      'rest_client_requests_total{verb="get",resource="pods",code="200",service="a",instance="b"} 3',
      'rest_client_requests_total{resource="pods",verb="get",code="404"} 2',
      'rest_client_requests_total{verb="create",resource="pods",code="201"} 5',
    ].join("\n");
    assert.deepEqual(requestsByVerb(text), { get: 5, create: 5 });
    const counts = 'bench_workqueue_counts{what="syncs",service="s",instance="i"} 180\nbench_floor_counts{what="sets"} 4\n';
    assert.deepEqual(controllerCounts(counts), { syncs: 180, sets: 4 });
  });
});
