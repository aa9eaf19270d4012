// What the two comparison controllers (workqueue baseline, floor) share as processes: a raw JSON Kubernetes client
// with the User-Agent `stsfleet-bench-<mode>/<version> (<mode>)` and client-go's request counters, a /metrics
// listener, the `metrics <url>` and `ready` lines the harness waits for, and a clean exit on SIGTERM (so
// `--cpu-prof` can write its profile).
import { Command, Option } from "commander";
import { createCommonMetrics } from "../../../services/common/src/metrics.ts";
import type { CommonMetrics } from "../../../services/common/src/metrics.ts";
import { KubeClient, loadKubeConfig } from "../../../services/common/src/kube.ts";
import { createLogger } from "../../../services/common/src/logger.ts";
import type { Logger } from "../../../services/common/src/logger.ts";
import { startOpsServer } from "../../../services/common/src/ops-server.ts";
import { VERSION } from "../../../services/common/src/version.ts";

export type ComparisonMode = "workqueue" | "floor";

export function benchUserAgent(mode: ComparisonMode): string {
  return `stsfleet-bench-${mode}/${VERSION} (${mode})`;
}

/** The harness itself: the analysis leaves these requests out (HARNESS_SERVICE). */
export function harnessUserAgent(): string {
  return `stsfleet-bench/${VERSION} (harness)`;
}

export interface ControllerRuntime {
  readonly kube: KubeClient;
  readonly metrics: CommonMetrics;
  readonly logger: Logger;
  readonly options: Record<string, unknown>;
  /** Prints `ready` for the harness. */
  ready(): void;
  /** Runs `stop` on SIGTERM/SIGINT, then exits. */
  onStop(stop: () => Promise<void>): void;
}

export async function startControllerRuntime(
  mode: ComparisonMode,
  argv: readonly string[],
  extend: (command: Command) => Command = (command) => command,
): Promise<ControllerRuntime> {
  const command = extend(
    new Command(`bench-${mode}`)
      .addOption(new Option("--kubeconfig <path>", "the simulator's kubeconfig").makeOptionMandatory())
      .addOption(new Option("--log-level <level>", "pino level").default("warn")),
  );
  command.parse([...argv]);
  const options = command.opts<Record<string, unknown>>();
  const metrics = createCommonMetrics(`bench-${mode}`, mode);
  const logger = createLogger({
    service: `bench-${mode}`,
    instance: mode,
    level: options["logLevel"] as "warn",
    format: "json",
    destination: process.stderr,
  });
  const kube = new KubeClient(loadKubeConfig(String(options["kubeconfig"]), benchUserAgent(mode)), { requestTimeoutMs: 30_000, metrics });
  const ops = await startOpsServer({
    bind: { host: "127.0.0.1", port: 0 },
    registry: metrics.registry,
    readiness: new Map(),
    serve: { metrics: true, probes: false },
  });
  process.stdout.write(`metrics ${ops.url}/metrics\n`);
  let stops: (() => Promise<void>)[] = [];
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const all = stops;
    stops = [];
    void Promise.allSettled(all.map((stop) => stop()))
      .then(() => ops.close())
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
  return {
    kube,
    metrics,
    logger,
    options,
    ready: () => process.stdout.write("ready\n"),
    onStop: (stop) => stops.push(stop),
  };
}
