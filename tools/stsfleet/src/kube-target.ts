// The Kubernetes API the stack's services talk to: a cluster the user named with --kubeconfig (linked as
// `<stateDir>/kubeconfig`), or the simulator, started as a supervised child that writes that kubeconfig itself and
// keeps its objects in `<stateDir>/kube-sim` (ADR 0095).
import { existsSync, lstatSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { REPO_ROOT, StackStartError, nodeCommand, tail } from "./launch.ts";
import { ManagedProcess } from "./supervisor.ts";
import type { SupervisorEvent } from "./supervisor.ts";

const KUBE_SIM_CLI = join(REPO_ROOT, "tools/kube-sim/src/cli.ts");
const SIMULATOR_START_TIMEOUT_MS = 60_000;

function serverOf(kubeconfigPath: string): string {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new StackStartError(`${kubeconfigPath} has no current cluster`);
  return cluster.server;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Links `kubeconfigPath` to the user's kubeconfig and returns its current cluster's server. */
export function useCluster(kubeconfig: string, kubeconfigPath: string, step: (message: string) => void): string {
  const external = resolve(kubeconfig);
  if (!existsSync(external)) throw new StackStartError(`--kubeconfig ${external} does not exist`);
  if (existsSync(kubeconfigPath) || isSymlink(kubeconfigPath)) unlinkSync(kubeconfigPath);
  symlinkSync(external, kubeconfigPath);
  const server = serverOf(external);
  step(`using the cluster at ${server} (${external})`);
  return server;
}

export interface SimulatorOptions {
  readonly stateDir: string;
  /** The simulator's --data-dir: its objects survive a restart of the stack (ADR 0095); none: kept in memory only. */
  readonly dataDir: string | undefined;
  readonly logsDir: string;
  readonly kubeconfigPath: string;
  /** Extra simulator flags (kubelet timings, faults). */
  readonly args: readonly string[];
  readonly onLog: ((line: string) => void) | undefined;
  /** A line for the user (what the simulator resumed). */
  readonly step: (message: string) => void;
  readonly onProcessEvent: (event: SupervisorEvent) => void;
  /** The simulator exited while the stack was not stopping: the stack cannot go on. */
  readonly onDied: (error: Error) => void;
  /** Settles first when startup is interrupted or the stack failed meanwhile. */
  readonly guard: <T>(promise: Promise<T>, what: string) => Promise<T>;
}

/** The simulator as a supervised child; `url` resolves when it listens. `process` exists as soon as it is spawned. */
export function createSimulator(options: SimulatorOptions): { readonly process: ManagedProcess; start(): Promise<string> } {
  let onUrl: (url: string) => void = () => undefined;
  const urlPromise = new Promise<string>((resolveUrl) => (onUrl = resolveUrl));
  const sim = new ManagedProcess({
    service: "kube-sim",
    name: "kube-sim",
    logPath: join(options.logsDir, "kube-sim.log"),
    restart: false,
    launch: () =>
      nodeCommand(KUBE_SIM_CLI, ["--port", "0", "--kubeconfig-out", options.kubeconfigPath, "--audit-log", join(options.stateDir, "audit.log"), ...(options.dataDir !== undefined ? ["--data-dir", options.dataDir] : []), ...options.args]),
    onLine: (line) => {
      const match = /kube-sim listening on (http:\/\/\S+)/.exec(line);
      if (match?.[1]) onUrl(match[1]);
      const resumed = /kube-sim resumed (\d+) objects/.exec(line);
      if (resumed?.[1]) options.step(`resuming ${resumed[1]} objects from ${options.dataDir ?? "memory"}`);
      options.onLog?.(line);
    },
    onEvent: (event) => {
      options.onProcessEvent(event);
      if (event.type === "exited" && !event.expected) {
        options.onDied(new Error(`the Kubernetes simulator exited (code ${event.code}, signal ${event.signal})`));
      }
    },
  });
  return {
    process: sim,
    async start() {
      rmSync(options.kubeconfigPath, { force: true });
      await sim.start();
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new StackStartError(`the simulator did not start within 60 s:\n${tail(sim.logPath)}`)), SIMULATOR_START_TIMEOUT_MS).unref(),
      );
      return options.guard(Promise.race([urlPromise, timeout]), "starting");
    },
  };
}
