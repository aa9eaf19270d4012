// Benchmark (not a test): plan() time for 3, 100 and 1000 replicas, in a steady state and mid-rollout.
// Run: npx tsx services/actor/src/planner/plan.bench.ts
// The snapshots come from the fake cluster, so they look like what the actor's informer cache holds.

import { plan } from "./plan.ts";
import type { Snapshot, StatefulSet } from "./types.ts";
import { imageOf, scenario, setImage, tickUntilIdle } from "./testing/index.ts";

const BUDGET_MS = 5;

interface Case {
  label: string;
  replicas: number;
  snapshot: Snapshot;
}

function withPolicy(snapshot: Snapshot, policy: "OrderedReady" | "Parallel", maxUnavailable: number | string): Snapshot {
  const set: StatefulSet = structuredClone(snapshot.set);
  const spec = (set.spec ??= {});
  spec.podManagementPolicy = policy;
  spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable } };
  return { ...snapshot, set };
}

/** Steady state and a rollout half done (half the pods at the new revision, the rest old and Ready). */
function build(replicas: number): Case[] {
  const h = scenario({ replicas, podManagementPolicy: "Parallel", maxUnavailable: "50%", whenDeleted: "Delete" });
  h.driver.converge(10_000);
  const steady = h.cluster.snapshot(h.namespace, h.name);
  h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, "nginx:1.26"));
  const updated = (): number => h.driver.pods().filter((p) => imageOf(p) === "nginx:1.26").length;
  // Half the pods replaced and Ready again: the next plan deletes the next old pod.
  for (let i = 0; i < 20 && updated() < Math.floor(replicas / 2); i++) {
    h.driver.turn();
    tickUntilIdle(h);
  }
  const rollout = h.cluster.snapshot(h.namespace, h.name);
  if (updated() < Math.floor(replicas / 2) || updated() === replicas) throw new Error(`rollout snapshot is not mid-rollout: ${updated()}/${replicas}`);
  const cases: Case[] = [];
  for (const policy of ["OrderedReady", "Parallel"] as const) {
    cases.push({ label: `steady ${policy}`, replicas, snapshot: withPolicy(steady, policy, 1) });
    cases.push({ label: `mid-rollout ${policy}`, replicas, snapshot: withPolicy(rollout, policy, 1) });
  }
  return cases;
}

function now(): number {
  // eslint-disable-next-line no-restricted-properties -- a benchmark harness measures time; plan() itself never reads the clock.
  return performance.now();
}

/** Process CPU time in ms: robust when other work shares the machine's two cores. */
function cpuMs(): number {
  // eslint-disable-next-line no-restricted-globals -- the harness reads its own CPU usage; plan() never touches process.
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function measure(c: Case): { p50: number; p99: number; mean: number; cpu: number; actions: number } {
  const iterations = c.replicas >= 1000 ? 300 : c.replicas >= 100 ? 2000 : 5000;
  const nowMs = Date.parse("2026-06-01T00:00:00Z");
  let actions = 0;
  for (let i = 0; i < Math.min(200, iterations); i++) plan(c.snapshot, nowMs);
  const samples: number[] = [];
  const cpuStart = cpuMs();
  for (let i = 0; i < iterations; i++) {
    const start = now();
    const result = plan(c.snapshot, nowMs);
    samples.push(now() - start);
    actions = result.steps.reduce((n, s) => n + s.actions.length, 0);
  }
  const cpu = (cpuMs() - cpuStart) / iterations;
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), mean, cpu, actions };
}

const rows: string[][] = [["replicas", "case", "actions", "p50 ms", "p99 ms", "mean ms", "cpu ms"]];
let worst1000 = { p50: 0, cpu: 0 };
for (const replicas of [3, 100, 1000]) {
  for (const c of build(replicas)) {
    const m = measure(c);
    if (replicas === 1000) worst1000 = { p50: Math.max(worst1000.p50, m.p50), cpu: Math.max(worst1000.cpu, m.cpu) };
    rows.push([String(replicas), c.label, String(m.actions), m.p50.toFixed(3), m.p99.toFixed(3), m.mean.toFixed(3), m.cpu.toFixed(3)]);
  }
}
const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
for (const row of rows) console.log(row.map((cell, i) => cell.padStart(widths[i] ?? 0)).join("  "));
const verdict = (ms: number): string => (ms < BUDGET_MS ? "within" : "OVER");
console.log(
  `\n1000 replicas, worst case: p50 ${worst1000.p50.toFixed(3)} ms wall (${verdict(worst1000.p50)} budget), ` +
    `${worst1000.cpu.toFixed(3)} ms CPU per plan (${verdict(worst1000.cpu)} budget); budget ${BUDGET_MS} ms.`,
);
console.log("Wall times include waiting for a core when other processes load the machine; CPU time does not.");
