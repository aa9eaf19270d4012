// One environment = one simulator process (with the chosen API latency) plus the controller side of one mode:
// fleet (startStack: nats-server, watcher, N actors, pvc-provisioner, status-writer), workqueue (the baseline
// process) or floor (the floor process). Runs of a benchmark share an environment and differ by namespace.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { KubeClient, loadKubeConfig } from "../../services/common/src/kube.ts";
import { REPO_ROOT, startStack } from "../stsfleet/src/stack.ts";
import type { Stack } from "../stsfleet/src/stack.ts";
import { Child } from "./lib/child.ts";
import { harnessUserAgent } from "./lib/controller-process.ts";
import { SimLogs } from "./lib/logs.ts";

export const MODES = ["fleet", "workqueue", "floor"] as const;
export type Mode = (typeof MODES)[number];

export interface KubeletTimings {
  readonly scheduleDelayMs: number;
  readonly startDelayMs: number;
  readonly terminationDelayMs: number;
  readonly bindDelayMs: number;
}

/** The simulator's own defaults: pods Ready about 200 ms after they are created. */
export const DEFAULT_KUBELET: KubeletTimings = { scheduleDelayMs: 5, startDelayMs: 200, terminationDelayMs: 100, bindDelayMs: 20 };

export interface EnvironmentSpec {
  readonly mode: Mode;
  readonly latencyMs: number;
  /** Actor replicas (fleet only). */
  readonly actors: number;
  readonly kubelet: KubeletTimings;
  /** The simulator's watch write coalescing window (0: every event is written as soon as it happens). */
  readonly watchCoalesceMs: number;
  /** Processes to run with --cpu-prof: `kube-sim`, `workqueue`, `floor`, or `fleet` (every fleet service). */
  readonly cpuProfile: readonly string[];
  /** Delay before the stack restarts a killed service (failover runs keep the killed actor away meanwhile). */
  readonly restartDelayMs?: number;
}

export interface MeasuredProcess {
  readonly name: string;
  readonly pid: number;
}

export interface Environment {
  readonly spec: EnvironmentSpec;
  readonly dir: string;
  /** The harness's client. */
  readonly kube: KubeClient;
  readonly logs: SimLogs;
  readonly stack: Stack | undefined;
  readonly natsMonitorUrl: string | undefined;
  /** Every process of the environment that runs now. */
  processes(): MeasuredProcess[];
  /** /metrics of the controller-side processes (client request counters). */
  metricsUrls(): { name: string; url: string }[];
  stop(): Promise<void>;
}

export function environmentLabel(spec: EnvironmentSpec): string {
  return `${spec.mode}${spec.mode === "fleet" ? `×${spec.actors}` : ""} @${spec.latencyMs}ms`;
}

const STARTUP_TIMEOUT_MS = 300_000;

export async function startEnvironment(spec: EnvironmentSpec, dir: string, onStep: (message: string) => void): Promise<Environment> {
  mkdirSync(dir, { recursive: true });
  const profDir = join(dir, "profiles");
  const profArgs = (name: string) => (spec.cpuProfile.includes(name) ? ["--cpu-prof", "--cpu-prof-dir", profDir] : []);
  const kubeconfigPath = join(dir, "kubeconfig");
  const children: Child[] = [];
  const exitHook = () => children.forEach((child) => child.kill());
  process.on("exit", exitHook);
  let stack: Stack | undefined;
  const stopAll = async () => {
    await stack?.stop();
    await Promise.all(children.reverse().map((child) => child.stop()));
    process.off("exit", exitHook);
  };
  try {
    onStep(`starting the simulator (latency ${spec.latencyMs} ms)`);
    const sim = Child.spawn({
      name: "kube-sim",
      script: join(REPO_ROOT, "tools/bench/sim/main.ts"),
      cwd: REPO_ROOT,
      logPath: join(dir, "kube-sim.log"),
      nodeArgs: profArgs("kube-sim"),
      args: [
        "--port", "0",
        "--kubeconfig-out", kubeconfigPath,
        "--audit-log", join(dir, "audit.log"),
        "--probe-log", join(dir, "probe.log"),
        "--latency-ms", String(spec.latencyMs),
        // Long enough that no watch of a full run falls out of the window and has to relist.
        "--history-window", "200000",
        "--watch-coalesce-ms", String(spec.watchCoalesceMs),
        "--schedule-delay-ms", String(spec.kubelet.scheduleDelayMs),
        "--start-delay-ms", String(spec.kubelet.startDelayMs),
        "--termination-delay-ms", String(spec.kubelet.terminationDelayMs),
        "--bind-delay-ms", String(spec.kubelet.bindDelayMs),
      ],
    });
    children.push(sim);
    await sim.waitForLine(/kube-sim listening on (http:\/\/\S+)/, 120_000);
    const kube = new KubeClient(loadKubeConfig(kubeconfigPath, harnessUserAgent()), {
      requestTimeoutMs: 60_000,
    });
    const controllers: { child: Child; metricsUrl: string }[] = [];
    if (spec.mode === "fleet") {
      onStep(`starting the fleet (${spec.actors} actor${spec.actors === 1 ? "" : "s"})`);
      const previous = process.env["NODE_OPTIONS"];
      if (spec.cpuProfile.includes("fleet")) process.env["NODE_OPTIONS"] = `${previous ?? ""} --cpu-prof --cpu-prof-dir=${profDir}`.trim();
      try {
        stack = await startStack({
          stateDir: join(dir, "stack"),
          kubeconfig: kubeconfigPath,
          actors: spec.actors,
          logLevel: "warn",
          readyTimeoutMs: STARTUP_TIMEOUT_MS,
          stopTimeoutMs: 15_000,
          ...(spec.restartDelayMs !== undefined
            ? { restart: { initialDelayMs: spec.restartDelayMs, maxDelayMs: spec.restartDelayMs, stableAfterMs: 20_000 } }
            : {}),
          onEvent: (event) => {
            if (event.type === "step") onStep(`  ${event.message}`);
          },
        });
      } finally {
        if (previous === undefined) delete process.env["NODE_OPTIONS"];
        else process.env["NODE_OPTIONS"] = previous;
      }
    } else {
      onStep(`starting the ${spec.mode} controller`);
      const child = Child.spawn({
        name: spec.mode,
        script: join(REPO_ROOT, `tools/bench/${spec.mode}/main.ts`),
        cwd: REPO_ROOT,
        logPath: join(dir, `${spec.mode}.log`),
        nodeArgs: profArgs(spec.mode),
        args: ["--kubeconfig", kubeconfigPath, ...(process.env["BENCH_CONTROLLER_LOG_LEVEL"] ? ["--log-level", process.env["BENCH_CONTROLLER_LOG_LEVEL"]] : [])],
      });
      children.push(child);
      const metrics = child.waitForLine(/^metrics (\S+)/, STARTUP_TIMEOUT_MS);
      await child.waitForLine(/^ready$/, STARTUP_TIMEOUT_MS);
      controllers.push({ child, metricsUrl: (await metrics)[1] ?? "" });
    }
    const started = stack;
    return {
      spec,
      dir,
      kube,
      logs: new SimLogs(join(dir, "audit.log"), join(dir, "probe.log")),
      stack: started,
      natsMonitorUrl: started?.nats?.monitorUrl,
      processes() {
        const list: MeasuredProcess[] = [];
        const add = (name: string, pid: number | undefined) => {
          if (pid !== undefined) list.push({ name, pid });
        };
        for (const child of children) add(child.name, child.pid);
        if (started) {
          add("nats", started.nats?.pid);
          for (const [name, service] of started.services) add(name, service.pid);
        }
        return list;
      },
      metricsUrls() {
        const urls = controllers.map(({ child, metricsUrl }) => ({ name: child.name, url: metricsUrl }));
        if (started) {
          for (const [name, service] of started.services) if (service.metrics && service.running) urls.push({ name, url: service.metrics });
        }
        return urls;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}
