// The scenarios: what one run does to an environment and what it measures. A run works in its own namespace, starts
// its clock just before the harness's first request, and ends when the simulator's probe saw the last set of the
// run converge (every replica Ready and updated at the current generation).
import { setTimeout as sleep } from "node:timers/promises";
import { ConvergenceTracker, chainLatency, countRequests, takeover } from "./analysis.ts";
import type { ChainLatency, RequestCounts } from "./analysis.ts";
import type { Environment, Mode } from "./environment.ts";
import { loadAverage } from "./lib/proc.ts";
import { controllerCpu, deltaRecord, natsDelta, processFigures, readCounters, resetPeaks } from "./measure.ts";
import type { ControllerCpu, NatsCounts, ProcessFigures } from "./measure.ts";
import { nowMicros } from "./sim/probe.ts";
import { changeTemplates, createNamespace, createSets, setNames } from "./workload.ts";
import type { PodManagementPolicy } from "./workload.ts";

export const SCENARIOS = ["converge", "rollout", "chain", "failover", "scale-out"] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface RunResult {
  readonly id: string;
  readonly scenario: Scenario;
  readonly mode: Mode;
  readonly latencyMs: number;
  readonly actors: number | undefined;
  readonly sets: number;
  readonly replicas: number;
  readonly policy: PodManagementPolicy;
  readonly namespace: string;
  readonly startedAt: string;
  readonly converged: boolean;
  readonly convergedSets: number;
  readonly wallMs: number;
  readonly pods: number;
  readonly podsPerSecond: number;
  /** Mutating requests of the controller side (audit log), whole run including what drained after convergence. */
  readonly requests: RequestCounts;
  /** Requests the controller processes counted themselves during the run, reads included. */
  readonly clientRequests: Readonly<Record<string, number>>;
  /** The baseline's or floor's own counters during the run (syncs, failed syncs, consistency errors, Events …). */
  readonly controllerCounts: Readonly<Record<string, number>>;
  readonly nats: NatsCounts | undefined;
  readonly processes: readonly ProcessFigures[];
  /** CPU ms per pod of the controller side (simulator and harness excluded) and of its busiest process. */
  readonly controllerCpu: ControllerCpu;
  readonly chain: ChainLatency | undefined;
  readonly failover: FailoverFigures | undefined;
  /** Load averages (1/5/15 min) when the run ended. */
  readonly loadAverage: readonly number[];
  /** The run on the monotonic clock (µs) V8 CPU profiles use, so a profile can be cut to the runs. */
  readonly monotonicWindowUs: readonly [number, number];
}

/** CLOCK_MONOTONIC in µs: the clock of `process.hrtime` and of V8's CPU profile timestamps in every process. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface FailoverFigures {
  readonly victim: string;
  readonly shardsOwned: Readonly<Record<string, number>>;
  readonly killedAfterMs: number;
  readonly victimSets: number;
  readonly firstWriteMs: number | undefined;
  readonly newOwners: readonly string[];
  /** From the kill until every set finished its rollout. */
  readonly convergedAfterKillMs: number | undefined;
}

export interface RunContext {
  readonly env: Environment;
  readonly timeoutMs: number;
  readonly progress: (message: string) => void;
}

interface Window {
  readonly namespace: string;
  readonly names: readonly string[];
  readonly generation: number;
  readonly startUs: number;
}

/** Polls the probe until every set of the window converged or the timeout passed; returns the end (µs). */
async function awaitConvergence(ctx: RunContext, window: Window, label: string): Promise<{ endUs: number | undefined; done: number }> {
  const deadline = performance.now() + ctx.timeoutMs;
  let lastReport = performance.now();
  const tracker = new ConvergenceTracker(window.namespace, window.names, window.generation, window.startUs);
  for (;;) {
    ctx.env.logs.poll();
    const state = tracker.update(ctx.env.logs.probe);
    if (state.lastUs !== undefined) return { endUs: state.lastUs, done: state.done };
    if (performance.now() > deadline) {
      ctx.progress(`${label}: timed out with ${state.done}/${window.names.length} sets converged (missing e.g. ${state.missing.slice(0, 3).join(", ")})`);
      return { endUs: undefined, done: state.done };
    }
    if (performance.now() - lastReport > 3_000) {
      lastReport = performance.now();
      ctx.progress(`${label}: ${state.done}/${window.names.length} sets converged after ${((nowMicros() - window.startUs) / 1e6).toFixed(1)} s`);
    }
    await sleep(50);
  }
}

/** Waits until the audit log stopped growing (trailing Events, status writes) so runs do not overlap. */
async function awaitQuiet(ctx: RunContext, quietMs = 500, maxMs = 60_000): Promise<void> {
  const deadline = performance.now() + maxMs;
  let last = ctx.env.logs.auditBytes;
  let since = performance.now();
  while (performance.now() < deadline) {
    await sleep(200);
    ctx.env.logs.poll();
    if (ctx.env.logs.auditBytes !== last) {
      last = ctx.env.logs.auditBytes;
      since = performance.now();
    } else if (performance.now() - since >= quietMs) return;
  }
}

export interface MeasureSpec {
  readonly id: string;
  readonly scenario: Scenario;
  readonly namespace: string;
  readonly names: readonly string[];
  readonly replicas: number;
  readonly policy: PodManagementPolicy;
  readonly generation: number;
  /** Sends the change that starts the run. */
  readonly start: () => Promise<void>;
  /** Runs while waiting for convergence (the failover kill). */
  readonly during?: (startUs: number) => Promise<Partial<FailoverFigures> | undefined>;
}

async function measure(ctx: RunContext, spec: MeasureSpec): Promise<RunResult> {
  const { env } = ctx;
  await awaitQuiet(ctx);
  resetPeaks(env);
  const before = await readCounters(env);
  const startedAt = new Date().toISOString();
  const monotonicStart = monotonicMicros();
  const startUs = nowMicros();
  await spec.start();
  const during = spec.during?.(startUs);
  const label = `${spec.id}`;
  const { endUs, done } = await awaitConvergence(ctx, { namespace: spec.namespace, names: spec.names, generation: spec.generation, startUs }, label);
  const after = await readCounters(env);
  const monotonicEnd = monotonicMicros();
  const processes = processFigures(env, before, after);
  const failoverPart = await during;
  await awaitQuiet(ctx);
  const logs = env.logs;
  const wallMs = ((endUs ?? nowMicros()) - startUs) / 1000;
  const pods = spec.names.length * spec.replicas;
  const result: RunResult = {
    id: spec.id,
    scenario: spec.scenario,
    mode: env.spec.mode,
    latencyMs: env.spec.latencyMs,
    actors: env.spec.mode === "fleet" ? env.spec.actors : undefined,
    sets: spec.names.length,
    replicas: spec.replicas,
    policy: spec.policy,
    namespace: spec.namespace,
    startedAt,
    converged: endUs !== undefined,
    convergedSets: done,
    wallMs,
    pods,
    podsPerSecond: pods / (wallMs / 1000),
    requests: countRequests(logs.audit, spec.namespace, startUs, Number.POSITIVE_INFINITY),
    clientRequests: deltaRecord(before.clientRequests, after.clientRequests),
    controllerCounts: deltaRecord(before.controller, after.controller),
    nats: natsDelta(before.nats, after.nats),
    processes,
    controllerCpu: controllerCpu(processes, pods),
    chain: spec.policy === "OrderedReady" && spec.generation === 1 ? chainLatency(logs.audit, logs.probe, spec.namespace, startUs) : undefined,
    failover: failoverPart
      ? ({
          victim: "",
          shardsOwned: {},
          killedAfterMs: 0,
          victimSets: 0,
          firstWriteMs: undefined,
          newOwners: [],
          convergedAfterKillMs: undefined,
          ...failoverPart,
        } satisfies FailoverFigures)
      : undefined,
    loadAverage: loadAverage(),
    monotonicWindowUs: [monotonicStart, monotonicEnd],
  };
  return result;
}

export interface ConvergeSpec {
  readonly scenario: "converge" | "chain" | "scale-out";
  readonly namespace: string;
  readonly sets: number;
  readonly replicas: number;
  readonly policy: PodManagementPolicy;
  readonly startDelayMs?: number;
}

export async function runConverge(ctx: RunContext, spec: ConvergeSpec, id: string): Promise<RunResult> {
  const names = setNames(spec.sets);
  await createNamespace(ctx.env.kube, spec.namespace);
  return measure(ctx, {
    id,
    scenario: spec.scenario,
    namespace: spec.namespace,
    names,
    replicas: spec.replicas,
    policy: spec.policy,
    generation: 1,
    start: () =>
      createSets(ctx.env.kube, spec.namespace, names, {
        sets: spec.sets,
        replicas: spec.replicas,
        policy: spec.policy,
        ...(spec.startDelayMs !== undefined ? { startDelayMs: spec.startDelayMs } : {}),
      }),
  });
}

/** A template change (generation 2) on every set of a converged namespace, until every rollout completed. */
function rollout(ctx: RunContext, id: string, scenario: Scenario, of: { namespace: string; sets: number; replicas: number; policy: PodManagementPolicy }): MeasureSpec {
  const names = setNames(of.sets);
  return {
    id,
    scenario,
    namespace: of.namespace,
    names,
    replicas: of.replicas,
    policy: of.policy,
    generation: 2,
    start: () => changeTemplates(ctx.env.kube, of.namespace, names, 2),
  };
}

/** A rollout of every set of an earlier converge run (same namespace). */
export async function runRollout(ctx: RunContext, of: RunResult, id: string): Promise<RunResult> {
  return measure(ctx, rollout(ctx, id, "rollout", of));
}

/** `stsfleet_shards_owned` of every actor replica. */
async function shardsOwned(env: Environment): Promise<Record<string, number>> {
  const owned: Record<string, number> = {};
  for (const { name, url } of env.metricsUrls()) {
    if (!name.startsWith("actor-")) continue;
    try {
      const text = await (await fetch(url, { signal: AbortSignal.timeout(5_000) })).text();
      const match = /^stsfleet_shards_owned(?:\{[^}]*\})?\s+(\S+)$/m.exec(text);
      owned[name] = Number(match?.[1] ?? 0);
    } catch {
      owned[name] = 0;
    }
  }
  return owned;
}

export interface FailoverSpec {
  readonly namespace: string;
  readonly sets: number;
  readonly replicas: number;
  readonly policy: PodManagementPolicy;
  /** Pod start delay of these sets, so every rollout is still going when the kill comes. */
  readonly startDelayMs: number;
  readonly killAfterMs: number;
}

/**
 * Converges the sets (not reported), starts a rollout of all of them, and SIGKILLs the actor replica that owns the
 * most shards `killAfterMs` later. Reported: the rollout, the takeover (first write by another replica to a set the
 * victim had written to) and the time from the kill until every set finished.
 */
export async function runFailover(ctx: RunContext, spec: FailoverSpec, id: string): Promise<RunResult> {
  const { env } = ctx;
  const stack = env.stack;
  if (!stack) throw new Error("failover needs the fleet");
  const setup = await runConverge(ctx, { scenario: "converge", namespace: spec.namespace, sets: spec.sets, replicas: spec.replicas, policy: spec.policy, startDelayMs: spec.startDelayMs }, `${id}-setup`);
  if (!setup.converged) throw new Error(`failover setup did not converge (${setup.convergedSets}/${spec.sets})`);
  const names = setNames(spec.sets);
  return measure(ctx, {
    ...rollout(ctx, id, "failover", spec),
    during: async (startUs) => {
      const owned = await shardsOwned(env);
      const victim = Object.entries(owned).sort((a, b) => b[1] - a[1])[0]?.[0];
      if (!victim) throw new Error("no actor replica reports owned shards");
      const waitMs = spec.killAfterMs - (nowMicros() - startUs) / 1000;
      if (waitMs > 0) await sleep(waitMs);
      const killedUs = nowMicros();
      stack.service(victim).signal("SIGKILL");
      ctx.progress(`${id}: SIGKILL ${victim} (${owned[victim]} shards) ${((killedUs - startUs) / 1000).toFixed(0)} ms into the rollout`);
      const end = await awaitConvergence(ctx, { namespace: spec.namespace, names, generation: 2, startUs }, `${id} after the kill`);
      env.logs.poll();
      const taken = takeover(env.logs.audit, spec.namespace, victim, killedUs);
      return {
        victim,
        shardsOwned: owned,
        killedAfterMs: (killedUs - startUs) / 1000,
        victimSets: taken.victimSets,
        firstWriteMs: taken.firstWriteMs,
        newOwners: taken.newOwners,
        convergedAfterKillMs: end.endUs === undefined ? undefined : (end.endUs - killedUs) / 1000,
      };
    },
  });
}
