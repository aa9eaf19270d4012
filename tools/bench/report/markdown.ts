// The report: one JSON document per `npm run bench` and its markdown rendering (the tables docs/BENCHMARKS.md
// quotes) and chart.
import type { Percentiles } from "../analysis.ts";
import type { RunResult } from "../runs.ts";
import type { ProfileSummary } from "./profile.ts";
import { MODE_COLORS, renderChart } from "./svg.ts";
import type { Panel } from "./svg.ts";

export interface Machine {
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly commit: string;
  readonly loadAverageStart: readonly number[];
  readonly loadAverageEnd: readonly number[];
}

export interface BenchReport {
  readonly version: 1;
  readonly preset: string;
  readonly command: string;
  readonly startedAt: string;
  readonly durationSeconds: number;
  readonly machine: Machine;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly runs: readonly RunResult[];
  readonly profiles: readonly ProfileSummary[];
  readonly errors: readonly string[];
}

const fmt = (value: number | undefined, digits = 1): string =>
  value === undefined || !Number.isFinite(value) ? "–" : value.toFixed(digits);

function perPod(count: number | undefined, pods: number): string {
  return fmt((count ?? 0) / pods, 2);
}

function modeLabel(run: RunResult): string {
  return run.mode === "fleet" ? `fleet (${run.actors} actor${run.actors === 1 ? "" : "s"})` : run.mode;
}

function wall(run: RunResult): string {
  return run.converged ? fmt(run.wallMs / 1000, 2) : `> ${fmt(run.wallMs / 1000, 0)} (${run.convergedSets}/${run.sets} sets)`;
}

function topProcesses(run: RunResult, count = 3): string {
  return [...run.processes]
    .sort((a, b) => b.cpuSeconds - a.cpuSeconds)
    .slice(0, count)
    .map((p) => `${p.name} ${fmt(p.cpuSeconds, 1)}`)
    .join(", ");
}

export function comparisonRows(runs: readonly RunResult[]): { sets: number; replicas: number; latencyMs: number; byMode: Map<string, RunResult> }[] {
  const groups = new Map<string, { sets: number; replicas: number; latencyMs: number; byMode: Map<string, RunResult> }>();
  for (const run of runs) {
    if (run.scenario !== "converge" || run.policy !== "Parallel") continue;
    const key = `${run.latencyMs}/${run.sets}/${run.replicas}`;
    let group = groups.get(key);
    if (!group) {
      group = { sets: run.sets, replicas: run.replicas, latencyMs: run.latencyMs, byMode: new Map() };
      groups.set(key, group);
    }
    group.byMode.set(run.mode, run);
  }
  return [...groups.values()].sort((a, b) => a.latencyMs - b.latencyMs || a.sets - b.sets);
}

function counters(run: RunResult): string {
  const entries = Object.entries(run.controllerCounts);
  return entries.length > 0 ? entries.map(([what, value]) => `${what} ${value}`).join(", ") : "–";
}

function ratio(a: RunResult | undefined, b: RunResult | undefined): string {
  if (!a || !b || !a.converged || !b.converged) return "–";
  return `${(a.wallMs / b.wallMs).toFixed(2)}×`;
}

/** Controller-side CPU ms per pod (simulator and harness excluded). */
function cpuPerPod(run: RunResult | undefined): string {
  return run ? fmt(run.controllerCpu.msPerPod, 1) : "–";
}

function busiest(run: RunResult): string {
  const top = run.controllerCpu.busiest;
  return top ? `${top.name} ${fmt(top.msPerPod, 1)}` : "–";
}

function cpuRatio(a: RunResult | undefined, b: RunResult | undefined): string {
  if (!a || !b || b.controllerCpu.msPerPod <= 0) return "–";
  return `${(a.controllerCpu.msPerPod / b.controllerCpu.msPerPod).toFixed(2)}×`;
}

export function renderMarkdown(report: BenchReport): string {
  const lines: string[] = [];
  const m = report.machine;
  lines.push(`# stsfleet benchmark (${report.preset})`, "");
  lines.push(`Command: \`${report.command}\``, "");
  lines.push(
    `Machine: ${m.cores} cores (${m.cpuModel}), ${fmt(m.memoryGiB, 0)} GiB, ${m.platform}, Node ${m.node}, commit ${m.commit}. ` +
      `Load average (1/5/15 min) at start ${m.loadAverageStart.map((v) => fmt(v, 2)).join("/")}, at end ${m.loadAverageEnd.map((v) => fmt(v, 2)).join("/")}. ` +
      `Started ${report.startedAt}, took ${fmt(report.durationSeconds / 60, 1)} min.`,
    "",
  );
  const comparison = comparisonRows(report.runs);
  if (comparison.length > 0) {
    lines.push("## Converge, Parallel: wall time (s)", "");
    lines.push(
      "| sets × replicas | API latency | fleet | workqueue | floor | fleet ÷ workqueue | fleet ÷ floor | controller CPU ms/pod: fleet / workqueue / floor | CPU fleet ÷ workqueue |",
    );
    lines.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const row of comparison) {
      const f = row.byMode.get("fleet");
      const w = row.byMode.get("workqueue");
      const fl = row.byMode.get("floor");
      lines.push(
        `| ${row.sets} × ${row.replicas} | ${row.latencyMs} ms | ${f ? wall(f) : "–"} | ${w ? wall(w) : "–"} | ${fl ? wall(fl) : "–"} | ${ratio(f, w)} | ${ratio(f, fl)} | ` +
          `${cpuPerPod(f)} / ${cpuPerPod(w)} / ${cpuPerPod(fl)} | ${cpuRatio(f, w)} |`,
      );
    }
    lines.push("");
  }
  const chains = report.runs.filter((run) => run.chain);
  if (chains.length > 0) {
    lines.push("## OrderedReady chain latency (pod N Ready → create request of pod N+1)", "");
    lines.push("| mode | API latency | sets × replicas | samples | p50 ms | p99 ms | max ms | created early | Ready → claim p50/p99 ms | claim → pod p50/p99 ms | wall s |");
    lines.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    const split = (p: Percentiles | undefined) => (p ? `${fmt(p.p50Ms, 1)} / ${fmt(p.p99Ms, 1)}` : "–");
    for (const run of chains) {
      const c = run.chain;
      if (!c) continue;
      lines.push(
        `| ${modeLabel(run)} | ${run.latencyMs} ms | ${run.sets} × ${run.replicas} | ${c.samples} | ${fmt(c.p50Ms, 1)} | ${fmt(c.p99Ms, 1)} | ${fmt(c.maxMs, 1)} | ${c.early} | ${split(c.toClaim)} | ${split(c.claimToPod)} | ${wall(run)} |`,
      );
    }
    lines.push("", "The split: pod N Ready → the first create request of pod N+1's claims, and the last of them → the pod's create request.", "");
  }
  const scale = report.runs.filter((run) => run.mode === "fleet" && (run.scenario === "scale-out" || run.scenario === "converge"));
  const scaleOut = report.runs.filter((run) => run.scenario === "scale-out");
  if (scaleOut.length > 0) {
    const reference = scaleOut[0];
    const rows = scale.filter((run) => reference && run.sets === reference.sets && run.latencyMs === reference.latencyMs && run.policy === "Parallel");
    lines.push("## Scale-out (fleet, Parallel converge)", "");
    lines.push("| actors | sets × replicas | API latency | wall s | pods/s | controller CPU ms/pod | busiest process ms/pod | CPU s per process |");
    lines.push("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const run of rows.sort((a, b) => (a.actors ?? 0) - (b.actors ?? 0))) {
      const cpu = run.processes
        .filter((p) => p.name.startsWith("actor-") || p.name === "kube-sim")
        .map((p) => `${p.name} ${fmt(p.cpuSeconds, 1)}`)
        .join(", ");
      lines.push(
        `| ${run.actors} | ${run.sets} × ${run.replicas} | ${run.latencyMs} ms | ${wall(run)} | ${fmt(run.podsPerSecond, 0)} | ${cpuPerPod(run)} | ${busiest(run)} | ${cpu} |`,
      );
    }
    lines.push("");
  }
  const failovers = report.runs.filter((run) => run.failover);
  if (failovers.length > 0) {
    lines.push("## Failover (SIGKILL of the actor owning most shards during a rollout, fast lease profile)", "");
    lines.push("| actors | sets × replicas | API latency | victim (shards) | killed after ms | victim's sets | first write by new owner, ms after kill | all converged, s after kill | rollout wall s |");
    lines.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const run of failovers) {
      const f = run.failover;
      if (!f) continue;
      lines.push(
        `| ${run.actors} | ${run.sets} × ${run.replicas} | ${run.latencyMs} ms | ${f.victim} (${f.shardsOwned[f.victim] ?? "?"}) | ${fmt(f.killedAfterMs, 0)} | ${f.victimSets} | ${fmt(f.firstWriteMs, 0)} (${f.newOwners.join(", ") || "none"}) | ${fmt(f.convergedAfterKillMs === undefined ? undefined : f.convergedAfterKillMs / 1000, 2)} | ${wall(run)} |`,
      );
    }
    lines.push("");
  }
  lines.push("## Every run", "");
  lines.push(
    "Requests per pod: mutating requests of the controller side for the run's namespace from the audit log (create/update/patch/delete, Events included; `events` = Event writes alone), reads (`get`+`list` counted by the controllers' own clients, watches excluded). NATS: messages into/out of nats-server per pod. CPU: seconds during the run; controller CPU: every process but the simulator and the harness (nats-server included), per pod; busiest: the controller process that spent the most, per pod (the bound on throughput once each process has cores of its own); RSS: peak during the run.",
    "",
  );
  lines.push("| run | mode | latency | sets × R, policy | wall s | pods/s | writes/pod (c/u/p/d) | events/pod | reads/pod | NATS in/out per pod | CPU s (top 3) | CPU s total | controller CPU ms/pod | busiest process ms/pod | peak RSS MiB (largest) | load 1m | controller counters |");
  lines.push("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const run of report.runs) {
    const v = run.requests.byVerb;
    const reads = (run.clientRequests["get"] ?? 0) + (run.clientRequests["list"] ?? 0);
    const cpuTotal = run.processes.reduce((sum, p) => sum + p.cpuSeconds, 0);
    const biggest = [...run.processes].sort((a, b) => b.peakRssMiB - a.peakRssMiB)[0];
    lines.push(
      `| ${run.id} | ${modeLabel(run)} | ${run.latencyMs} ms | ${run.sets} × ${run.replicas}, ${run.policy} | ${wall(run)} | ${fmt(run.podsPerSecond, 0)} | ` +
        `${perPod(run.requests.total, run.pods)} (${perPod(v["create"], run.pods)}/${perPod(v["update"], run.pods)}/${perPod(v["patch"], run.pods)}/${perPod(v["delete"], run.pods)}) | ` +
        `${perPod(run.requests.byResource["events"], run.pods)} | ${perPod(reads, run.pods)} | ` +
        `${run.nats ? `${perPod(run.nats.inMsgs, run.pods)} / ${perPod(run.nats.outMsgs, run.pods)}` : "–"} | ${topProcesses(run)} | ${fmt(cpuTotal, 1)} | ${cpuPerPod(run)} | ${busiest(run)} | ` +
        `${biggest ? `${biggest.name} ${fmt(biggest.peakRssMiB, 0)}` : "–"} | ${fmt(run.loadAverage[0], 1)} | ${counters(run)} |`,
    );
  }
  lines.push("");
  if (report.profiles.length > 0) {
    lines.push("## CPU profiles", "");
    for (const profile of report.profiles) {
      lines.push(`### ${profile.process} (${fmt(profile.totalMs / 1000, 1)} s of samples inside the runs, not idle; ${profile.file})`, "");
      lines.push("| self % | self ms | function | where |", "| --- | --- | --- | --- |");
      for (const entry of profile.top) {
        lines.push(`| ${fmt(entry.selfPercent, 1)} | ${fmt(entry.selfMs, 0)} | ${entry.functionName} | ${entry.location} |`);
      }
      lines.push("", "| self % | by origin |", "| --- | --- |");
      for (const entry of profile.byOrigin) lines.push(`| ${fmt(entry.selfPercent, 1)} | ${entry.origin} |`);
      lines.push("");
    }
  }
  if (report.errors.length > 0) {
    lines.push("## Errors", "");
    for (const error of report.errors) lines.push(`- ${error}`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

export function renderConvergeChart(report: BenchReport): string {
  const latencies = [...new Set(comparisonRows(report.runs).map((row) => row.latencyMs))].sort((a, b) => a - b);
  const panels: Panel[] = latencies.map((latencyMs) => {
    const rows = comparisonRows(report.runs).filter((row) => row.latencyMs === latencyMs);
    const modes = [...new Set(rows.flatMap((row) => [...row.byMode.keys()]))];
    return {
      title: `API latency ${latencyMs} ms`,
      series: modes.map((mode) => ({
        label: mode,
        color: MODE_COLORS[mode] ?? "#555",
        points: rows.flatMap((row) => {
          const run = row.byMode.get(mode);
          return run?.converged ? [[row.sets, run.wallMs / 1000] as const] : [];
        }),
      })),
    };
  });
  const replicas = report.runs[0]?.replicas ?? 3;
  return renderChart(panels, `Converge time, Parallel sets of ${replicas} replicas (${report.startedAt.slice(0, 10)})`);
}
