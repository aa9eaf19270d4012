// `npm run bench`: the fleet against upstream's architecture (a workqueue with 5 workers driving the same planner)
// and against the floor (only the writes the result needs), over the same simulator with the same API latency.
// Writes .bench/results/<stamp>.{json,md} and <stamp>-converge.svg; prints the markdown. docs/BENCHMARKS.md.
import { execFileSync } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { REPO_ROOT } from "../stsfleet/src/stack.ts";
import { MODES, environmentLabel, startEnvironment } from "./environment.ts";
import type { Environment, Mode } from "./environment.ts";
import { loadAverage } from "./lib/proc.ts";
import { PRESETS, expand } from "./presets.ts";
import type { EnvironmentPlan, Preset } from "./presets.ts";
import { renderConvergeChart, renderMarkdown } from "./report/markdown.ts";
import type { BenchReport } from "./report/markdown.ts";
import { summarizeProfileFile } from "./report/profile.ts";
import type { ProfileSummary } from "./report/profile.ts";
import { SCENARIOS, runConverge, runFailover, runRollout } from "./runs.ts";
import type { RunContext, RunResult, Scenario } from "./runs.ts";

function list<T extends string>(name: string, allowed: readonly T[]) {
  return (raw: string): T[] => {
    const values = raw.split(",").map((v) => v.trim()).filter((v) => v !== "");
    for (const value of values) {
      if (!allowed.includes(value as T)) throw new InvalidArgumentError(`${name}: unknown "${value}" (one of ${allowed.join(", ")})`);
    }
    return values as T[];
  };
}

function numbers(name: string, min = 0) {
  return (raw: string): number[] => {
    const values = raw.split(",").map((v) => Number(v.trim()));
    if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < min)) {
      throw new InvalidArgumentError(`${name} must be a comma-separated list of integers >= ${min}, got "${raw}"`);
    }
    return values;
  };
}

function integer(name: string, min = 0) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}, got "${raw}"`);
    return value;
  };
}

export function buildCommand(): Command {
  return new Command("bench")
    .description("Benchmark the fleet against a one-process workqueue baseline and against the floor (docs/BENCHMARKS.md)")
    .option("--quick", "the quick preset: small sizes, converge/rollout/chain only, under 3 minutes")
    .addOption(new Option("--modes <list>", `modes to run (${MODES.join(",")})`).argParser(list("--modes", MODES)))
    .addOption(new Option("--scenarios <list>", `scenarios (${SCENARIOS.join(",")})`).argParser(list("--scenarios", SCENARIOS)))
    .addOption(new Option("--latencies <ms>", "injected API latencies, e.g. 0,10").argParser(numbers("--latencies")))
    .addOption(new Option("--sizes <sets>", "Parallel converge sizes (StatefulSets), e.g. 100,300,1000").argParser(numbers("--sizes", 1)))
    .addOption(new Option("--replicas <n>", "replicas per StatefulSet").argParser(integer("--replicas", 1)))
    .addOption(new Option("--chain-sets <n>", "sets of the OrderedReady (chain latency) run").argParser(integer("--chain-sets", 1)))
    .addOption(new Option("--actors <n>", "actor replicas of the fleet in the mode comparison").argParser(integer("--actors", 1)))
    .addOption(new Option("--timeout-ms <ms>", "give up on a run after this long").argParser(integer("--timeout-ms", 1)))
    .addOption(new Option("--start-delay-ms <ms>", "simulated kubelet: scheduled -> Ready").argParser(integer("--start-delay-ms")))
    .addOption(new Option("--watch-coalesce-ms <ms>", "the simulator's watch coalescing window").argParser(integer("--watch-coalesce-ms")))
    .addOption(new Option("--cpu-prof <list>", "profile these processes: kube-sim, workqueue, floor, fleet (all fleet services)").argParser(list("--cpu-prof", ["kube-sim", "workqueue", "floor", "fleet"])))
    .addOption(new Option("--out <dir>", "where results go").default(".bench/results"))
    .addOption(new Option("--chart <path>", "also write the converge chart (SVG) here, e.g. docs/benchmarks/converge.svg"))
    .option("--keep", "keep each environment's logs, audit log and probe log under .bench/runs/");
}

interface CliOptions {
  quick?: boolean;
  modes?: Mode[];
  scenarios?: Scenario[];
  latencies?: number[];
  sizes?: number[];
  replicas?: number;
  chainSets?: number;
  actors?: number;
  timeoutMs?: number;
  startDelayMs?: number;
  watchCoalesceMs?: number;
  cpuProf?: string[];
  out: string;
  chart?: string;
  keep?: boolean;
}

export function presetFrom(options: CliOptions): Preset {
  const base = options.quick ? PRESETS.quick : PRESETS.full;
  return {
    ...base,
    ...(options.modes ? { modes: options.modes } : {}),
    ...(options.scenarios ? { scenarios: options.scenarios } : {}),
    ...(options.latencies ? { latencies: options.latencies } : {}),
    ...(options.sizes ? { sizes: options.sizes } : {}),
    ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
    ...(options.chainSets !== undefined ? { chainSets: options.chainSets } : {}),
    ...(options.actors !== undefined ? { fleetActors: options.actors } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.watchCoalesceMs !== undefined ? { watchCoalesceMs: options.watchCoalesceMs } : {}),
    ...(options.startDelayMs !== undefined ? { kubelet: { ...base.kubelet, startDelayMs: options.startDelayMs } } : {}),
  };
}

function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Runs every run of one environment plan; returns the results (what finished) and the error, if any. */
export async function runEnvironment(plan: EnvironmentPlan, dir: string, preset: Preset, progress: (message: string) => void): Promise<{ results: RunResult[]; error?: string; pids: Map<number, string> }> {
  const label = environmentLabel(plan.spec);
  const results: RunResult[] = [];
  const pids = new Map<number, string>();
  let env: Environment | undefined;
  try {
    const started = performance.now();
    env = await startEnvironment(plan.spec, dir, (message) => progress(`${label}: ${message}`));
    progress(`${label}: ready after ${((performance.now() - started) / 1000).toFixed(1)} s`);
    for (const p of env.processes()) pids.set(p.pid, p.name);
    const ctx: RunContext = { env, timeoutMs: preset.timeoutMs, progress };
    let index = 0;
    const slug = `${plan.spec.mode}${plan.spec.mode === "fleet" ? plan.spec.actors : ""}-${plan.spec.latencyMs}ms`;
    for (const run of plan.runs) {
      index += 1;
      if (run.kind === "failover") {
        const id = `failover-${slug}`;
        progress(`${label}: ${id} (${run.sets} × ${run.replicas})`);
        const result = await runFailover(ctx, { namespace: `b${index}-failover`, policy: "Parallel", ...run }, id);
        results.push(result);
        continue;
      }
      const id = `${run.scenario}-${run.policy === "Parallel" ? "par" : "ord"}-${run.sets}x${run.replicas}-${slug}`;
      progress(`${label}: ${id}`);
      const result = await runConverge(ctx, { scenario: run.scenario, namespace: `b${index}-${run.scenario}`, sets: run.sets, replicas: run.replicas, policy: run.policy }, id);
      results.push(result);
      progress(`${label}: ${id}: ${result.converged ? `${(result.wallMs / 1000).toFixed(2)} s` : "did not converge"}`);
      if (run.rollout && result.converged) {
        const rolloutId = `rollout-${run.sets}x${run.replicas}-${slug}`;
        progress(`${label}: ${rolloutId}`);
        const rollout = await runRollout(ctx, result, rolloutId);
        results.push(rollout);
        progress(`${label}: ${rolloutId}: ${rollout.converged ? `${(rollout.wallMs / 1000).toFixed(2)} s` : "did not converge"}`);
      }
    }
    for (const p of env.processes()) pids.set(p.pid, p.name);
    return { results, pids };
  } catch (error) {
    return { results, pids, error: `${label}: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await env?.stop().catch((error: unknown) => progress(`${label}: stopping failed: ${String(error)}`));
  }
}

function collectProfiles(dir: string, pids: ReadonlyMap<number, string>, keepIn: string, runs: readonly RunResult[]): ProfileSummary[] {
  const profDir = join(dir, "profiles");
  let files: string[];
  try {
    files = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"));
  } catch {
    return [];
  }
  const summaries: ProfileSummary[] = [];
  mkdirSync(keepIn, { recursive: true });
  for (const file of files) {
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread (tsx adds a loader thread).
    const parts = file.split(".");
    const pid = Number(parts[3]);
    if (parts[4] !== "0") continue;
    const name = pids.get(pid) ?? `pid ${pid}`;
    copyFileSync(join(profDir, file), join(keepIn, `${name}-${file}`));
    summaries.push(summarizeProfileFile(join(profDir, file), name, REPO_ROOT, runs.map((run) => run.monotonicWindowUs)));
  }
  return summaries;
}

export async function main(argv: string[]): Promise<number> {
  const command = buildCommand();
  command.parse(argv);
  const options = command.opts<CliOptions>();
  const preset = presetFrom(options);
  const plans = expand(preset, options.cpuProf ?? []);
  if (plans.length === 0) {
    log("nothing to run with these options");
    return 2;
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19);
  const outDir = resolve(REPO_ROOT, options.out);
  const runsDir = resolve(REPO_ROOT, ".bench/runs", stamp);
  mkdirSync(outDir, { recursive: true });
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const loadStart = loadAverage();
  log(`preset ${preset.name}: ${plans.length} environments, ${plans.reduce((n, p) => n + p.runs.length, 0)} runs; load average ${loadStart.join(" ")}`);
  const runs: RunResult[] = [];
  const errors: string[] = [];
  const profiles: ProfileSummary[] = [];
  let interrupted = false;
  process.once("SIGINT", () => {
    interrupted = true;
    log("interrupted: finishing the current environment's cleanup");
  });
  for (const [index, plan] of plans.entries()) {
    if (interrupted) break;
    const dir = join(runsDir, `${index}-${plan.spec.mode}-${plan.spec.latencyMs}ms-${plan.spec.actors}a`);
    log(`environment ${index + 1}/${plans.length}: ${environmentLabel(plan.spec)}`);
    const outcome = await runEnvironment(plan, dir, preset, log);
    runs.push(...outcome.results);
    if (outcome.error) {
      errors.push(outcome.error);
      log(`error: ${outcome.error}`);
    }
    profiles.push(...collectProfiles(dir, outcome.pids, join(outDir, `${stamp}-profiles`), outcome.results));
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
  if (!options.keep) rmSync(runsDir, { recursive: true, force: true });
  const report: BenchReport = {
    version: 1,
    preset: preset.name,
    command: `npm run bench${argv.length > 2 ? ` -- ${argv.slice(2).join(" ")}` : ""}`,
    startedAt,
    durationSeconds: (performance.now() - started) / 1000,
    machine: {
      cores: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      memoryGiB: totalmem() / 2 ** 30,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      commit: gitCommit(),
      loadAverageStart: loadStart,
      loadAverageEnd: loadAverage(),
    },
    settings: { ...preset },
    runs,
    profiles,
    errors,
  };
  const base = join(outDir, stamp);
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
  const markdown = renderMarkdown(report);
  writeFileSync(`${base}.md`, markdown);
  const chart = renderConvergeChart(report);
  writeFileSync(`${base}-converge.svg`, chart);
  if (options.chart) {
    const chartPath = resolve(process.cwd(), options.chart);
    writeFileSync(chartPath, chart);
  }
  process.stdout.write(markdown);
  log(`wrote ${base}.json, ${base}.md, ${base}-converge.svg${options.chart ? ` and ${options.chart}` : ""} in ${(report.durationSeconds / 60).toFixed(1)} min`);
  return errors.length > 0 || runs.some((run) => !run.converged) ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  main(process.argv).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
