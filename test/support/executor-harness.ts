// Test support for both executors: a real nats-server with the fleet topology, the Kubernetes simulator over
// real HTTP, a client with the service's User-Agent, shard ownership records to fence against, and readers for a
// service's own /metrics. `close()` stops all of it (call it from the suite's `after`: node:test runs an `after`
// registered inside `before` right when `before` ends).
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { NatsConnection } from "@nats-io/transport-node";
import { codecs, shardKeys } from "#protocol";
import { KubeClient, loadKubeConfig } from "../../services/common/src/kube.ts";
import { createLogger } from "../../services/common/src/logger.ts";
import type { Logger } from "../../services/common/src/logger.ts";
import { createCommonMetrics } from "../../services/common/src/metrics.ts";
import type { CommonMetrics } from "../../services/common/src/metrics.ts";
import { connectNats } from "../../services/common/src/nats.ts";
import { startOpsServer } from "../../services/common/src/ops-server.ts";
import type { OpsServer } from "../../services/common/src/ops-server.ts";
import { watchShardEpochs } from "../../services/common/src/shard-epochs.ts";
import type { ShardEpochView } from "../../services/common/src/shard-epochs.ts";
import { provisionTopology } from "../../services/common/src/topology.ts";
import type { Topology } from "../../services/common/src/topology.ts";
import { userAgent } from "../../services/common/src/version.ts";
import type { ServiceName } from "../../services/common/src/version.ts";
import type { ExecutorDeps } from "../../services/common/src/executor/process.ts";
import { startKubeSim } from "../../tools/kube-sim/src/main.ts";
import type { KubeSim, KubeSimOptions } from "../../tools/kube-sim/src/main.ts";
import { startNatsServer } from "../../tools/lib/nats-server.ts";

export interface Harness {
  readonly nats: NatsConnection;
  readonly natsUrl: string;
  readonly topology: Topology;
  readonly epochs: ShardEpochView;
  readonly sim: KubeSim;
  readonly kubeconfigPath: string;
  readonly auditLogPath: string;
  readonly kube: KubeClient;
  readonly metrics: CommonMetrics;
  readonly logger: Logger;
  /** Every log line the service wrote, parsed. */
  readonly logLines: Record<string, unknown>[];
  readonly ops: OpsServer;
  deps(): ExecutorDeps;
  /** Makes `owner` the owner of `shard` (create or update of `s.<shard>`); returns the new epoch. */
  claimShard(shard: number, owner: string): Promise<number>;
  /** The service's /metrics, fetched over HTTP. */
  metricValue(name: string, labels?: Readonly<Record<string, string>>): Promise<number>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly service: ServiceName;
  readonly sim?: KubeSimOptions;
}

export async function startExecutorHarness(options: HarnessOptions): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), `stsfleet-${options.service}-test-`));
  const server = await startNatsServer();
  const auditLogPath = join(dir, "audit.log");
  const sim = await startKubeSim({ ...options.sim, kubeconfigOut: join(dir, "kubeconfig"), auditLog: auditLogPath });
  const kubeconfigPath = join(dir, "kubeconfig");
  const output = new PassThrough();
  const logLines: Record<string, unknown>[] = [];
  let buffered = "";
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      try {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not JSON: ignore
      }
    }
  });
  const logger = createLogger({ service: options.service, instance: "test", level: "debug", format: "json", destination: output });
  const metrics = createCommonMetrics(options.service, "test");
  const nats = await connectNats({ url: server.url, name: "test" }, logger, metrics);
  const topology = await provisionTopology(nats.connection, { replicas: 1 });
  const epochs = await watchShardEpochs(topology.shards, logger);
  const kube = new KubeClient(loadKubeConfig(kubeconfigPath, userAgent(options.service, "test")), {
    requestTimeoutMs: 4_000,
    metrics,
  });
  const ops = await startOpsServer({
    bind: { host: "127.0.0.1", port: 0 },
    registry: metrics.registry,
    readiness: new Map(),
    serve: { metrics: true, probes: true },
  });

  return {
    nats: nats.connection,
    natsUrl: server.url,
    topology,
    epochs,
    sim,
    kubeconfigPath,
    auditLogPath,
    kube,
    metrics,
    logger,
    logLines,
    ops,
    deps: () => ({ nats: nats.connection, kube, epochs, logger, metrics }),
    async claimShard(shard, owner) {
      const key = shardKeys.build(shard);
      const value = codecs.shardRecord.encode({ type: "shard", shard, owner, incarnation: `${owner}-1`, state: "owned" });
      const existing = await topology.shards.get(key);
      const epoch = existing && existing.operation === "PUT" ? await topology.shards.update(key, value, existing.revision) : await topology.shards.create(key, value);
      await eventually(() => epochs.epochOf(shard) === epoch, `epoch ${epoch} of shard ${shard} seen`);
      return epoch;
    },
    async metricValue(name, labels = {}) {
      const text = await (await fetch(`${ops.url}/metrics`)).text();
      return sumSeries(text, name, labels);
    },
    async close() {
      epochs.stop();
      await ops.close();
      if (!nats.connection.isClosed()) await nats.connection.close();
      await sim.stop();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sum of every sample of `name` whose labels include `labels`. */
export function sumSeries(text: string, name: string, labels: Readonly<Record<string, string>>): number {
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^([^{\s]+)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map<string, string>();
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found.set(pair[1] ?? "", pair[2] ?? "");
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) total += Number(match[3]);
  }
  return total;
}

export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(15);
  }
}

/** A minimal valid StatefulSet for the simulator. */
export function statefulSetManifest(name: string, namespace = "default"): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace },
    spec: {
      serviceName: name,
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx:1.25" }] } },
    },
  };
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** JSON log lines written so far. */
  readonly logLines: Record<string, unknown>[];
  /** The base URL of /healthz and /readyz, from the "ops endpoints listening" log line. */
  readonly opsUrl: Promise<string>;
  /** The URL of /metrics, from the same line. */
  readonly metricsUrl: Promise<string>;
  readonly exited: Promise<number | null>;
  output(): string;
}

/** Runs a service's main.ts as its own process on the pinned Node (the one running the tests). */
export function spawnService(entry: string, args: readonly string[]): ServiceProcess {
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" },
  });
  const logLines: Record<string, unknown>[] = [];
  let text = "";
  let resolveUrl: (url: string) => void = () => undefined;
  let resolveMetricsUrl: (url: string) => void = () => undefined;
  const metricsUrl = new Promise<string>((resolve) => (resolveMetricsUrl = resolve));
  let rejectUrl: (error: Error) => void = () => undefined;
  const opsUrl = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    pending += chunk.toString("utf8");
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        logLines.push(parsed);
        if (parsed["msg"] === "ops endpoints listening") {
          if (typeof parsed["probes"] === "string") resolveUrl(parsed["probes"]);
          if (typeof parsed["metrics"] === "string") resolveMetricsUrl(parsed["metrics"]);
        }
      } catch {
        // --help and other plain text
      }
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  void exited.then(() => rejectUrl(new Error(`process exited before listening:\n${text}`)));
  // Not every caller waits for the URL (--help); an early exit must not become an unhandled rejection.
  opsUrl.catch(() => undefined);
  return { child, logLines, opsUrl, metricsUrl, exited, output: () => text };
}

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Runs `--help`; resolves with its output after checking it exits 0 and names every flag. */
export async function helpOutput(entry: string, flags: readonly string[]): Promise<string> {
  const run = spawnService(entry, ["--help"]);
  const code = await run.exited;
  if (code !== 0) throw new Error(`--help exited ${code}: ${run.output()}`);
  const missing = flags.filter((flag) => !run.output().includes(flag));
  if (missing.length > 0) throw new Error(`--help does not mention ${missing.join(", ")}`);
  return run.output();
}

/** The flags that point a service process at the harness, with ops endpoints on one random port. */
export function harnessArgs(h: Harness, name: string): string[] {
  return [
    "--name", name,
    "--nats-url", h.natsUrl,
    "--kubeconfig", h.kubeconfigPath,
    "--metrics-bind-address", "127.0.0.1:0",
    "--health-probe-bind-address", "127.0.0.1:0",
  ];
}
