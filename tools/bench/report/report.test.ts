import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { controllerCpu } from "../measure.ts";
import type { RunResult } from "../runs.ts";
import { comparisonRows, renderConvergeChart, renderMarkdown } from "./markdown.ts";
import type { BenchReport } from "./markdown.ts";
import { originOf, summarizeProfile } from "./profile.ts";
import { niceTicks, renderChart } from "./svg.ts";

function run(partial: Partial<RunResult> & Pick<RunResult, "id" | "mode" | "sets" | "wallMs">): RunResult {
  return {
    scenario: "converge",
    latencyMs: 10,
    actors: partial.mode === "fleet" ? 1 : undefined,
    replicas: 3,
    policy: "Parallel",
    namespace: "ns",
    startedAt: "2026-11-29T00:00:00.000Z",
    converged: true,
    convergedSets: partial.sets,
    pods: partial.sets * 3,
    podsPerSecond: (partial.sets * 3) / (partial.wallMs / 1000),
    requests: { total: 30, byVerb: { create: 20, update: 10 }, byResource: { pods: 9, events: 6 }, failed: 0 },
    clientRequests: { get: 3 },
    controllerCounts: {},
    nats: partial.mode === "fleet" ? { inMsgs: 90, outMsgs: 120 } : undefined,
    processes: [{ name: "kube-sim", cpuSeconds: 1.5, peakRssMiB: 200 }],
    controllerCpu: { msPerPod: partial.mode === "fleet" ? 12 : 8, busiest: { name: partial.mode === "fleet" ? "actor-0" : partial.mode, msPerPod: 6 } },
    chain: undefined,
    failover: undefined,
    loadAverage: [1, 2, 3],
    monotonicWindowUs: [0, 1],
    ...partial,
  };
}

function report(runs: RunResult[]): BenchReport {
  return {
    version: 1,
    preset: "quick",
    command: "npm run bench -- --quick",
    startedAt: "2026-11-29T00:00:00.000Z",
    durationSeconds: 100,
    machine: { cores: 2, cpuModel: "cpu", memoryGiB: 8, node: "v22", platform: "linux x64", commit: "abc", loadAverageStart: [1, 1, 1], loadAverageEnd: [2, 2, 2] },
    settings: {},
    runs,
    profiles: [],
    errors: [],
  };
}

describe("report", () => {
  const runs = [
    run({ id: "f10", mode: "fleet", sets: 10, wallMs: 1000 }),
    run({ id: "w10", mode: "workqueue", sets: 10, wallMs: 5000 }),
    run({ id: "l10", mode: "floor", sets: 10, wallMs: 800 }),
    run({ id: "f40", mode: "fleet", sets: 40, wallMs: 2000, converged: false, convergedSets: 30 }),
    run({ id: "chain", mode: "fleet", sets: 5, wallMs: 900, policy: "OrderedReady", scenario: "chain", chain: { samples: 10, p50Ms: 4, p99Ms: 9, maxMs: 10, early: 0, toClaim: { samples: 10, p50Ms: 1.5, p99Ms: 3 }, claimToPod: { samples: 10, p50Ms: 2.5, p99Ms: 6 } } }),
  ];

  it("groups Parallel converge runs by latency and size for the comparison", () => {
    const rows = comparisonRows(runs);
    assert.deepEqual(rows.map((r) => [r.sets, [...r.byMode.keys()]]), [[10, ["fleet", "workqueue", "floor"]], [40, ["fleet"]]]);
  });

  it("renders the tables with ratios, per-pod figures and the machine", () => {
    const markdown = renderMarkdown(report(runs));
    assert.match(markdown, /\| 10 × 3 \| 10 ms \| 1\.00 \| 5\.00 \| 0\.80 \| 0\.20× \| 1\.25× \| 12\.0 \/ 8\.0 \/ 8\.0 \| 1\.50× \|/);
    assert.match(markdown, /\| 12\.0 \| actor-0 6\.0 \|/, "every run shows controller CPU per pod and the busiest process");
    assert.match(markdown, /\| 40 × 3 \| 10 ms \| > 2 \(30\/40 sets\) \|/);
    assert.match(markdown, /chain latency/);
    assert.match(markdown, /\| fleet \(1 actor\) \| 10 ms \| 5 × 3 \| 10 \| 4\.0 \| 9\.0 \| 10\.0 \| 0 \| 1\.5 \/ 3\.0 \| 2\.5 \/ 6\.0 \|/);
    assert.match(markdown, /2 cores \(cpu\)/);
    assert.match(markdown, /\| 1\.00 \(0\.67\/0\.33\/0\.00\/0\.00\) \| 0\.20 \|/);
  });

  it("counts controller CPU without the simulator and the harness, and names the busiest process", () => {
    const figures = [
      { name: "kube-sim", cpuSeconds: 9, peakRssMiB: 1 },
      { name: "harness", cpuSeconds: 3, peakRssMiB: 1 },
      { name: "nats", cpuSeconds: 1, peakRssMiB: 1 },
      { name: "actor-0", cpuSeconds: 2, peakRssMiB: 1 },
      { name: "watcher", cpuSeconds: 0.5, peakRssMiB: 1 },
    ];
    assert.deepEqual(controllerCpu(figures, 100), { msPerPod: 35, busiest: { name: "actor-0", msPerPod: 20 } });
    assert.deepEqual(controllerCpu([], 0), { msPerPod: 0, busiest: undefined });
  });

  it("charts converged runs only, one panel per latency, as SVG", () => {
    const svg = renderConvergeChart(report(runs));
    assert.match(svg, /^<svg /);
    assert.match(svg, /API latency 10 ms/);
    assert.equal((svg.match(/<circle /g) ?? []).length, 3, "the unconverged 40-set run is not plotted");
    assert.match(renderChart([{ title: "a<b", series: [] }], "t&t"), /a&lt;b/);
  });

  it("picks round axis ticks", () => {
    assert.deepEqual(niceTicks(1000), [0, 200, 400, 600, 800, 1000]);
    assert.deepEqual(niceTicks(7.3), [0, 2, 4, 6, 8]);
    assert.deepEqual(niceTicks(0), [0, 1]);
  });

  it("summarizes a CPU profile by function and origin, without idle time", () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
    const profile = {
        nodes: [
          { id: 1, callFrame: frame("(idle)", "") },
          { id: 2, callFrame: frame("plan", "file:///repo/services/actor/src/planner/plan.ts") },
          { id: 3, callFrame: frame("parse", "file:///repo/node_modules/undici/lib/x.js") },
          { id: 4, callFrame: frame("(garbage collector)", "") },
        ],
        startTime: 0,
        endTime: 100,
        samples: [1, 2, 2, 3, 4, 1],
        timeDeltas: [10, 20, 20, 10, 10, 30],
      };
    const summary = summarizeProfile(profile, "actor-0", "profile.cpuprofile", "/repo");
    assert.equal(summary.totalMs, 0.06);
    assert.equal(summary.top[0]?.functionName, "plan");
    assert.equal(Math.round(summary.top[0]?.selfPercent ?? 0), 67);
    assert.deepEqual(summary.byOrigin.map((o) => o.origin), ["services/actor/src", "npm undici", "(garbage collector)"]);
    assert.equal(originOf("node:internal/x", "f", "/repo"), "node internals");
    assert.equal(summary.top[1]?.location, "undici/x.js:10");
    assert.equal(summary.top[0]?.location, "services/actor/src/planner/plan.ts");
    // Samples fall at 10, 30, 50, 60, 70, 100 µs: a window [25, 55] keeps the two in `plan`.
    const windowed = summarizeProfile(profile, "actor-0", "p", "/repo", [[25, 55]]);
    assert.equal(windowed.totalMs, 0.04);
    assert.deepEqual(windowed.top.map((entry) => entry.functionName), ["plan"]);
  });
});
