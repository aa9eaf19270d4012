// What `npm run bench` runs: a preset (quick or full) narrowed by flags, expanded into environments and the runs
// inside each. Environments run one after another; runs inside one share its processes and differ by namespace.
import { DEFAULT_KUBELET, MODES } from "./environment.ts";
import type { EnvironmentSpec, KubeletTimings, Mode } from "./environment.ts";
import type { Scenario } from "./runs.ts";
import type { PodManagementPolicy } from "./workload.ts";

export interface Preset {
  readonly name: "quick" | "full";
  readonly modes: readonly Mode[];
  readonly latencies: readonly number[];
  /** Parallel converge sizes (sets), for the chart. */
  readonly sizes: readonly number[];
  readonly replicas: number;
  /** Sets of the OrderedReady converge run the chain latency comes from. */
  readonly chainSets: number;
  readonly scenarios: readonly Scenario[];
  /** Actor replicas of the fleet in the mode comparison. */
  readonly fleetActors: number;
  /** Scale-out: the largest Parallel converge again with these actor counts, at this latency. */
  readonly scaleOut: { readonly latencyMs: number; readonly actors: readonly number[] };
  readonly failover: { readonly latencyMs: number; readonly actors: number; readonly sets: number; readonly startDelayMs: number; readonly killAfterMs: number };
  readonly kubelet: KubeletTimings;
  /**
   * The simulator's watch coalescing window. 0 here: the simulator's 25 ms default protects it from 100 watchers
   * in its own load test, while a benchmark environment has at most a dozen watch streams, and a batching window
   * would add up to its length to every hop the chain latency measures (ADR 0080).
   */
  readonly watchCoalesceMs: number;
  readonly timeoutMs: number;
}

export const PRESETS: Readonly<Record<Preset["name"], Preset>> = {
  quick: {
    name: "quick",
    modes: MODES,
    // One latency: starting an environment (3 per latency) costs more than its runs, and 3 minutes is the budget.
    latencies: [10],
    sizes: [10, 40],
    replicas: 3,
    chainSets: 20,
    scenarios: ["converge", "rollout", "chain"],
    fleetActors: 1,
    scaleOut: { latencyMs: 10, actors: [1, 2] },
    failover: { latencyMs: 0, actors: 2, sets: 20, startDelayMs: 1_500, killAfterMs: 1_000 },
    kubelet: DEFAULT_KUBELET,
    watchCoalesceMs: 0,
    timeoutMs: 60_000,
  },
  full: {
    name: "full",
    modes: MODES,
    latencies: [0, 10],
    sizes: [100, 300, 1000],
    replicas: 3,
    chainSets: 100,
    scenarios: ["converge", "rollout", "chain", "failover", "scale-out"],
    fleetActors: 1,
    scaleOut: { latencyMs: 10, actors: [1, 2, 3] },
    failover: { latencyMs: 10, actors: 3, sets: 200, startDelayMs: 1_500, killAfterMs: 1_500 },
    kubelet: DEFAULT_KUBELET,
    watchCoalesceMs: 0,
    timeoutMs: 600_000,
  },
};

export type RunPlan =
  | {
      readonly kind: "converge";
      readonly scenario: "converge" | "chain" | "scale-out";
      readonly sets: number;
      readonly replicas: number;
      readonly policy: PodManagementPolicy;
      /** Also roll out a template change on these sets afterwards. */
      readonly rollout: boolean;
    }
  | { readonly kind: "failover"; readonly sets: number; readonly replicas: number; readonly startDelayMs: number; readonly killAfterMs: number };

export interface EnvironmentPlan {
  readonly spec: EnvironmentSpec;
  readonly runs: readonly RunPlan[];
}

export function expand(preset: Preset, cpuProfile: readonly string[]): EnvironmentPlan[] {
  const plans: EnvironmentPlan[] = [];
  const has = (scenario: Scenario) => preset.scenarios.includes(scenario);
  const largest = Math.max(...preset.sizes);
  const base = (mode: Mode, latencyMs: number, actors: number): EnvironmentSpec => ({
    mode,
    latencyMs,
    actors,
    kubelet: preset.kubelet,
    watchCoalesceMs: preset.watchCoalesceMs,
    cpuProfile,
  });
  for (const latencyMs of preset.latencies) {
    for (const mode of preset.modes) {
      const runs: RunPlan[] = [];
      if (has("converge") || has("rollout")) {
        const sizes = has("converge") ? [...preset.sizes].sort((a, b) => a - b) : [largest];
        for (const sets of sizes) {
          runs.push({ kind: "converge", scenario: "converge", sets, replicas: preset.replicas, policy: "Parallel", rollout: has("rollout") && sets === largest });
        }
      }
      if (has("chain")) runs.push({ kind: "converge", scenario: "chain", sets: preset.chainSets, replicas: preset.replicas, policy: "OrderedReady", rollout: false });
      if (runs.length > 0) plans.push({ spec: base(mode, latencyMs, preset.fleetActors), runs });
    }
  }
  if (preset.modes.includes("fleet")) {
    const failoverActors = has("failover") ? preset.failover.actors : undefined;
    const scaleActors = has("scale-out") ? preset.scaleOut.actors.filter((n) => !(n === preset.fleetActors && preset.latencies.includes(preset.scaleOut.latencyMs) && has("converge"))) : [];
    for (const actors of scaleActors) {
      const runs: RunPlan[] = [{ kind: "converge", scenario: "scale-out", sets: largest, replicas: preset.replicas, policy: "Parallel", rollout: false }];
      const failoverHere = failoverActors === actors && preset.failover.latencyMs === preset.scaleOut.latencyMs;
      if (failoverHere) runs.push({ kind: "failover", ...preset.failover, replicas: preset.replicas });
      plans.push({ spec: { ...base("fleet", preset.scaleOut.latencyMs, actors), ...(failoverHere ? { restartDelayMs: 120_000 } : {}) }, runs });
    }
    const failoverPlanned = plans.some((plan) => plan.runs.some((run) => run.kind === "failover"));
    if (failoverActors !== undefined && !failoverPlanned) {
      plans.push({
        spec: { ...base("fleet", preset.failover.latencyMs, failoverActors), restartDelayMs: 120_000 },
        runs: [{ kind: "failover", ...preset.failover, replicas: preset.replicas }],
      });
    }
  }
  return plans;
}
