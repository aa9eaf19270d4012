// `npm run kube-sim`: the simulator as a process. Prints one line with the URL once listening and stops
// cleanly on SIGINT/SIGTERM. With --data-dir holding objects, a line `kube-sim resumed N objects ...` comes first.
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_BOOKMARK_INTERVAL_MS, DEFAULT_HISTORY_WINDOW, DEFAULT_WATCH_COALESCE_MS, startKubeSim } from "./main.ts";
import type { KubeSimOptions } from "./main.ts";
import { DEFAULT_KUBELET } from "./kubelet/kubelet.ts";
import { disableAllocationSitePretenuring } from "./runtime/v8-flags.ts";

function nonNegativeInt(name: string) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim())) throw new InvalidArgumentError(`${name} must be a non-negative integer, got "${raw}"`);
    return Number(raw);
  };
}

function rate(name: string) {
  return (raw: string): number => {
    const value = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(value) || value < 0 || value > 1) {
      throw new InvalidArgumentError(`${name} must be a number between 0 and 1, got "${raw}"`);
    }
    return value;
  };
}

const intOpt = (flags: string, description: string, env: string, fallback: number) =>
  new Option(flags, description).env(env).default(fallback).argParser(nonNegativeInt(flags.split(" ")[0] ?? flags));

export function buildCommand(): Command {
  return new Command("kube-sim")
    .description("A Kubernetes API server and kubelet simulator that kubectl and @kubernetes/client-node accept.")
    .addOption(intOpt("--port <n>", "port to listen on (0 = any free port)", "KUBE_SIM_PORT", 0))
    .addOption(new Option("--host <addr>", "address to listen on").env("KUBE_SIM_HOST").default("127.0.0.1"))
    .addOption(new Option("--kubeconfig-out <path>", "write a kubeconfig pointing at the simulator").env("KUBE_SIM_KUBECONFIG_OUT"))
    .addOption(new Option("--audit-log <path>", "append one audit.k8s.io/v1 Event JSON per line for every mutating request").env("KUBE_SIM_AUDIT_LOG"))
    .addOption(intOpt("--history-window <events>", "watch events kept per resource; older resourceVersions get 410 Gone", "KUBE_SIM_HISTORY_WINDOW", DEFAULT_HISTORY_WINDOW))
    .addOption(intOpt("--bookmark-interval-ms <ms>", "interval of BOOKMARK events on watches that allow them", "KUBE_SIM_BOOKMARK_INTERVAL_MS", DEFAULT_BOOKMARK_INTERVAL_MS))
    .addOption(intOpt("--watch-coalesce-ms <ms>", "during a burst, send one watcher's events together at most this often (0 = one write per event)", "KUBE_SIM_WATCH_COALESCE_MS", DEFAULT_WATCH_COALESCE_MS))
    .addOption(intOpt("--latency-ms <ms>", "fault: delay added to every request", "KUBE_SIM_LATENCY_MS", 0))
    .addOption(new Option("--error-rate <p>", "fault: probability that a write fails with 500 or 429 (Retry-After)").env("KUBE_SIM_ERROR_RATE").default(0).argParser(rate("--error-rate")))
    .addOption(new Option("--conflict-rate <p>", "fault: probability that a write carrying a resourceVersion gets 409 Conflict").env("KUBE_SIM_CONFLICT_RATE").default(0).argParser(rate("--conflict-rate")))
    .addOption(intOpt("--drop-watches-every-ms <ms>", "fault: close every open watch this often (0 = never)", "KUBE_SIM_DROP_WATCHES_EVERY_MS", 0))
    .addOption(new Option("--node-name <name>", "name of the simulated node pods are scheduled to").env("KUBE_SIM_NODE_NAME").default(DEFAULT_KUBELET.nodeName))
    .addOption(intOpt("--schedule-delay-ms <ms>", "kubelet: delay before a new pod is scheduled", "KUBE_SIM_SCHEDULE_DELAY_MS", DEFAULT_KUBELET.scheduleDelayMs))
    .addOption(intOpt("--start-delay-ms <ms>", "kubelet: delay from scheduled to Running and Ready (pod annotation sim.stsfleet.dev/start-delay-ms overrides)", "KUBE_SIM_START_DELAY_MS", DEFAULT_KUBELET.startDelayMs))
    .addOption(intOpt("--termination-delay-ms <ms>", "kubelet: time containers take to stop once a pod is Terminating (capped by its grace period)", "KUBE_SIM_TERMINATION_DELAY_MS", DEFAULT_KUBELET.terminationDelayMs))
    .addOption(intOpt("--bind-delay-ms <ms>", "volume binder: delay before a pending claim is bound to a new volume", "KUBE_SIM_BIND_DELAY_MS", DEFAULT_KUBELET.bindDelayMs))
    .addOption(new Option("--seed <file>", "start with the objects of this JSON file (an array or a List), stored as recorded: resourceVersions, uids and status kept").env("KUBE_SIM_SEED"))
    .addOption(new Option("--data-dir <dir>", "keep the objects in this directory: every write is durable before it is answered, and a restart on it resumes them").env("KUBE_SIM_DATA_DIR"));
}

/** The objects of a `--seed` file: a JSON array of objects, or a `List` (what `kubectl get -o json` prints). */
export function readSeedFile(path: string): unknown[] {
  const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
  if (Array.isArray(parsed)) return parsed;
  if (typeof parsed === "object" && parsed !== null && Array.isArray((parsed as { items?: unknown }).items)) return (parsed as { items: unknown[] }).items;
  throw new InvalidArgumentError(`--seed ${path}: expected a JSON array of objects or a List with items`);
}

/** The parsed flags of buildCommand(). */
export interface CliOptions {
  port: number;
  host: string;
  kubeconfigOut?: string;
  auditLog?: string;
  historyWindow: number;
  bookmarkIntervalMs: number;
  watchCoalesceMs: number;
  latencyMs: number;
  errorRate: number;
  conflictRate: number;
  dropWatchesEveryMs: number;
  nodeName: string;
  scheduleDelayMs: number;
  startDelayMs: number;
  terminationDelayMs: number;
  bindDelayMs: number;
  seed?: string;
  dataDir?: string;
}

/** The simulator's options from the parsed flags (shared with the benchmark's simulator process). */
export function simOptionsFrom(o: CliOptions): KubeSimOptions {
  return {
    port: o.port,
    host: o.host,
    ...(o.kubeconfigOut !== undefined ? { kubeconfigOut: o.kubeconfigOut } : {}),
    ...(o.auditLog !== undefined ? { auditLog: o.auditLog } : {}),
    historyWindow: o.historyWindow,
    bookmarkIntervalMs: o.bookmarkIntervalMs,
    watchCoalesceMs: o.watchCoalesceMs,
    faults: { latencyMs: o.latencyMs, errorRate: o.errorRate, conflictRate: o.conflictRate, dropWatchesEveryMs: o.dropWatchesEveryMs },
    kubelet: { nodeName: o.nodeName, scheduleDelayMs: o.scheduleDelayMs, startDelayMs: o.startDelayMs, terminationDelayMs: o.terminationDelayMs, bindDelayMs: o.bindDelayMs },
    ...(o.seed !== undefined ? { seed: readSeedFile(o.seed) } : {}),
    ...(o.dataDir !== undefined ? { dataDir: o.dataDir } : {}),
  };
}

export async function main(argv: string[]): Promise<void> {
  const cmd = buildCommand();
  cmd.parse(argv);
  const sim = await startKubeSim(simOptionsFrom(cmd.opts<CliOptions>()));
  const restored = sim.restored;
  if (restored !== undefined && restored.objects > 0) {
    process.stdout.write(`kube-sim resumed ${restored.objects} objects (resourceVersion ${restored.resourceVersion}) from ${restored.dataDir}\n`);
  }
  process.stdout.write(`kube-sim listening on ${sim.url}${sim.kubeconfigPath !== undefined ? ` (kubeconfig ${sim.kubeconfigPath})` : ""}\n`);
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    sim.stop().then(
      () => process.exit(signal === "SIGINT" ? 130 : 0),
      (err: unknown) => {
        process.stderr.write(`kube-sim: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

if (import.meta.url === `file://${process.argv[1] ?? ""}`) {
  // Only when kube-sim is its own process: a V8 flag is process-wide, and an embedding process (tests,
  // stsfleet up) chooses its own.
  disableAllocationSitePretenuring();
  main(process.argv).catch((err: unknown) => {
    process.stderr.write(`kube-sim: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
