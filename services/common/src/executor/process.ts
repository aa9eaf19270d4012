// The process shell both executors share: logs, metrics and probes first (so /healthz answers while NATS is still
// unreachable), then NATS (reconnecting forever), the stream topology, the shard-epoch view used for fencing and a
// Kubernetes client with the service's User-Agent; then the service itself; and graceful shutdown in reverse.
import type { NatsConnection } from "@nats-io/transport-node";
import type { CommonConfig } from "../config.ts";
import { retryForever } from "../backoff.ts";
import { KubeClient, loadKubeConfig } from "../kube.ts";
import { createLogger } from "../logger.ts";
import type { Logger } from "../logger.ts";
import { createCommonMetrics } from "../metrics.ts";
import type { CommonMetrics } from "../metrics.ts";
import { connectNats, natsOptionsFrom } from "../nats.ts";
import { startOpsServer } from "../ops-server.ts";
import type { OpsServer, ReadinessCheck } from "../ops-server.ts";
import { watchShardEpochs } from "../shard-epochs.ts";
import type { ShardEpochView } from "../shard-epochs.ts";
import { createShutdown } from "../shutdown.ts";
import { startTelemetry } from "../telemetry.ts";
import { provisionTopology } from "../topology.ts";
import type { Topology } from "../topology.ts";
import { userAgent } from "../version.ts";
import type { ServiceName } from "../version.ts";

/** The Kubernetes calls executors make; KubeClient implements it. */
export type KubeApi = Pick<KubeClient, "get" | "create" | "replace" | "patch">;

/** What a service needs from its process; tests build these themselves and run the service in-process. */
export interface ExecutorDeps {
  readonly nats: NatsConnection;
  readonly kube: KubeApi;
  readonly epochs: ShardEpochView;
  readonly logger: Logger;
  readonly metrics: CommonMetrics;
}

export interface ExecutorHandle {
  /** Named readiness checks, merged into /readyz. */
  readonly readiness: ReadonlyMap<string, ReadinessCheck>;
  /** Graceful: stop taking work, finish what is in flight. Idempotent. */
  stop(): Promise<void>;
}

export interface ExecutorProcessOptions<C extends CommonConfig> {
  readonly service: ServiceName;
  readonly config: C;
  start(config: C, deps: ExecutorDeps): Promise<ExecutorHandle>;
}

async function startOpsServers(
  config: CommonConfig,
  metrics: CommonMetrics,
  readiness: ReadonlyMap<string, ReadinessCheck>,
): Promise<OpsServer[]> {
  const metricsBind = config.metricsBindAddress;
  const probesBind = config.healthProbeBindAddress;
  const servers: OpsServer[] = [];
  const sameAddress =
    metricsBind !== undefined && probesBind !== undefined && metricsBind.host === probesBind.host && metricsBind.port === probesBind.port;
  if (sameAddress) {
    servers.push(await startOpsServer({ bind: metricsBind, registry: metrics.registry, readiness, serve: { metrics: true, probes: true } }));
    return servers;
  }
  if (metricsBind) {
    servers.push(await startOpsServer({ bind: metricsBind, registry: metrics.registry, readiness, serve: { metrics: true, probes: false } }));
  }
  if (probesBind) {
    servers.push(await startOpsServer({ bind: probesBind, registry: metrics.registry, readiness, serve: { metrics: false, probes: true } }));
  }
  return servers;
}

/** Backoff of startup steps that wait for NATS (provisioning, the shard-epoch watch). */
const STARTUP_RETRY = { initialDelayMs: 250, maxDelayMs: 10_000 } as const;

/** Runs an executor until SIGINT/SIGTERM; never returns normally (the shutdown handler exits the process). */
export async function runExecutorProcess<C extends CommonConfig>(
  options: ExecutorProcessOptions<C>,
): Promise<void> {
  const { config, service } = options;
  const logger = createLogger({ service, instance: config.name, level: config.logLevel, format: config.logFormat });
  const metrics = createCommonMetrics(service, config.name);
  const telemetry = startTelemetry(service, config.name);
  const shutdown = createShutdown(logger, config.shutdownTimeoutMs);
  shutdown.installSignalHandlers();
  const stopped = () => shutdown.started;

  // Filled in as startup proceeds; probes and shutdown steps read whatever exists when they run.
  const state: { nats?: { isConnected(): boolean }; epochs?: ShardEpochView; handle?: ExecutorHandle } = {};
  const readiness = new Map<string, ReadinessCheck>([
    ["nats", () => state.nats?.isConnected() ?? "connecting"],
    ["shard-epochs", () => state.epochs?.ready() ?? "not loaded"],
  ]);
  const serviceReadiness: ReadinessCheck = () => {
    if (!state.handle) return "starting";
    for (const [name, check] of state.handle.readiness) {
      const result = check();
      if (result !== true) return `${name}: ${result === false ? "not ready" : result}`;
    }
    return true;
  };
  readiness.set(service, serviceReadiness);

  const servers = await startOpsServers(config, metrics, readiness);
  for (const server of servers) logger.info({ url: server.url }, "ops endpoints listening");

  let kube: KubeClient;
  try {
    kube = new KubeClient(loadKubeConfig(config.kubeconfig, userAgent(service, config.name)), {
      requestTimeoutMs: config.kubeRequestTimeoutMs,
      metrics,
    });
  } catch (error) {
    // Not a connection problem to wait out: the configuration is wrong.
    logger.fatal({ err: error, kubeconfig: config.kubeconfig ?? "(default)" }, "cannot load the kubeconfig");
    await Promise.all(servers.map((server) => server.close()));
    process.exit(2);
  }
  logger.info({ server: kube.server }, "using Kubernetes API server");

  const natsHandle = await connectNats(
    natsOptionsFrom(config, `${service}/${config.name}`),
    logger,
    metrics,
  );
  state.nats = natsHandle;
  const connection = natsHandle.connection;
  // Run order is registration order: intake stops and in-flight work finishes before NATS drains; the probes
  // answer until the end.
  shutdown.add(`stop ${service}`, () => state.handle?.stop());
  shutdown.add("stop shard-epoch watch", () => state.epochs?.stop());
  shutdown.add("drain NATS", async () => {
    if (!connection.isClosed()) await connection.drain();
  });
  shutdown.add("flush spans", () => telemetry.shutdown());
  shutdown.add("close ops endpoints", async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  // What startup waits for is given up when shutdown begins (its first step), so a signal is not held behind it.
  const startup = new AbortController();
  shutdown.add("stop waiting for NATS", () => startup.abort(new Error("shutting down")));
  const retry = { policy: STARTUP_RETRY, logger, signal: startup.signal };
  let topology: Topology;
  let epochs: ShardEpochView;
  try {
    topology = await retryForever("provisioning streams and buckets", () => provisionTopology(connection, { replicas: config.natsReplicas }), retry);
    epochs = await retryForever(
      "watching shard epochs",
      () => watchShardEpochs(topology.shards, logger, (reason) => metrics.droppedMessages.inc({ subject: "$KV.shards.{shard}", reason })),
      retry,
    );
  } catch (error) {
    if (startup.signal.aborted) return;
    throw error;
  }
  state.epochs = epochs;

  const handle = await options.start(config, { nats: connection, kube, epochs, logger, metrics });
  state.handle = handle;
  logger.info("started");
  // A signal that arrived while starting ran the steps before the service existed.
  if (stopped()) await handle.stop();
}
