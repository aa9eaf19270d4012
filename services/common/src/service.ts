// The one process shell of every stsfleet service (ADR 0093). In order: logs, metrics and telemetry; the ops
// endpoints (so /healthz answers while NATS is still unreachable); NATS, reconnecting forever; the stream topology,
// retried until NATS can provision it; the Kubernetes client with the service's User-Agent; then the service's own
// start. Signals and unhandled rejections are handled here, and shutdown runs in reverse: the service, NATS, spans,
// the ops endpoints.
import type { CommonConfig } from "./config.ts";
import { retryForever } from "./backoff.ts";
import type { BackoffPolicy } from "./backoff.ts";
import { KubeClient, loadKubeConfig } from "./kube.ts";
import type { UserAgentKubeConfig } from "./kube.ts";
import { createLogger } from "./logger.ts";
import type { Logger } from "./logger.ts";
import { createCommonMetrics } from "./metrics.ts";
import type { CommonMetrics } from "./metrics.ts";
import { connectNats, natsOptionsFrom } from "./nats.ts";
import type { NatsHandle } from "./nats.ts";
import { startOpsEndpoints } from "./ops-server.ts";
import type { ReadinessCheck } from "./ops-server.ts";
import { createShutdown } from "./shutdown.ts";
import { startTelemetry } from "./telemetry.ts";
import { provisionTopology } from "./topology.ts";
import type { Topology } from "./topology.ts";
import { userAgent } from "./version.ts";
import type { ServiceName } from "./version.ts";

/** Backoff of startup steps that wait for NATS (provisioning, first reads of buckets). */
export const STARTUP_RETRY: BackoffPolicy = { initialDelayMs: 250, maxDelayMs: 10_000 };

/** Startup steps a service cannot run without: retried until they succeed, given up when shutdown begins. */
export interface Startup {
  readonly signal: AbortSignal;
  retry<T>(what: string, call: () => Promise<T>): Promise<T>;
}

/** What every service's start gets from its process; tests build it with `openServiceDeps` and run in-process. */
export interface ServiceDeps {
  readonly nats: NatsHandle;
  readonly kube: KubeClient;
  readonly topology: Topology;
  readonly logger: Logger;
  readonly metrics: CommonMetrics;
  readonly startup: Startup;
}

/** What every service's start returns. */
export interface ServiceHandle {
  /** Named readiness checks, merged into /readyz. */
  readonly readiness: ReadonlyMap<string, ReadinessCheck>;
  /** Graceful: stop taking work, finish what is in flight. Idempotent. NATS is drained by the shell afterwards. */
  stop(): Promise<void>;
}

export interface ServiceDefinition<C extends CommonConfig> {
  readonly service: ServiceName;
  readonly config: C;
  start(config: C, deps: ServiceDeps): Promise<ServiceHandle>;
}

/** Thrown when the kubeconfig cannot be loaded: a configuration problem, not one to wait out. */
export class KubeConfigError extends Error {
  override readonly name = "KubeConfigError";
  readonly kubeconfig: string;

  constructor(kubeconfig: string | undefined, cause: unknown) {
    super(`cannot load the kubeconfig ${kubeconfig ?? "(default)"}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.kubeconfig = kubeconfig ?? "(default)";
  }
}

export interface OpenServiceDepsOptions {
  readonly logger: Logger;
  readonly metrics: CommonMetrics;
  /** Aborted when shutdown begins; startup waits end with its reason. */
  readonly signal: AbortSignal;
  /** Replaces the kubeconfig named by the config (tests). */
  readonly kubeConfig?: UserAgentKubeConfig;
  /** Called as soon as the NATS connection exists, before the topology is provisioned (readiness, shutdown). */
  onNats?(nats: NatsHandle): void;
}

/** The Kubernetes client, NATS and the topology, in that order; what runService does between endpoints and start. */
export async function openServiceDeps(service: ServiceName, config: CommonConfig, options: OpenServiceDepsOptions): Promise<ServiceDeps> {
  const { logger, metrics, signal } = options;
  let kube: KubeClient;
  try {
    kube = new KubeClient(options.kubeConfig ?? loadKubeConfig(config.kubeconfig, userAgent(service, config.name)), {
      requestTimeoutMs: config.kubeRequestTimeoutMs,
      metrics,
    });
  } catch (error) {
    throw new KubeConfigError(config.kubeconfig, error);
  }
  logger.info({ server: kube.server }, "using Kubernetes API server");
  const nats = await connectNats(natsOptionsFrom(config, `${service}/${config.name}`), logger, metrics);
  options.onNats?.(nats);
  const startup: Startup = {
    signal,
    retry: (what, call) => retryForever(what, call, { policy: STARTUP_RETRY, logger, signal }),
  };
  const topology = await startup.retry("provisioning streams and buckets", () =>
    provisionTopology(nats.connection, { replicas: config.natsReplicas }),
  );
  return { nats, kube, topology, logger, metrics, startup };
}

/** Folds a service's named checks into one /readyz check: the first that is not ready names itself. */
function serviceReadiness(handle: () => ServiceHandle | undefined): ReadinessCheck {
  return () => {
    const current = handle();
    if (!current) return "starting";
    for (const [name, check] of current.readiness) {
      const result = check();
      if (result !== true) return `${name}: ${result === false ? "not ready" : result}`;
    }
    return true;
  };
}

/** Runs a service until SIGINT/SIGTERM; the shutdown handler exits the process. */
export async function runService<C extends CommonConfig>(definition: ServiceDefinition<C>): Promise<void> {
  const { config, service } = definition;
  const logger = createLogger({ service, instance: config.name, level: config.logLevel, format: config.logFormat });
  process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled promise rejection"));
  const metrics = createCommonMetrics(service, config.name);
  const telemetry = startTelemetry(service, config.name);
  const shutdown = createShutdown(logger, config.shutdownTimeoutMs);
  shutdown.installSignalHandlers();

  // Filled in as startup proceeds; probes and shutdown steps read whatever exists when they run.
  const state: { nats?: NatsHandle; handle?: ServiceHandle } = {};
  const readiness = new Map<string, ReadinessCheck>([
    ["nats", () => state.nats?.isConnected() ?? "connecting"],
    [service, serviceReadiness(() => state.handle)],
  ]);
  const endpoints = await startOpsEndpoints({
    metricsBind: config.metricsBindAddress,
    probesBind: config.healthProbeBindAddress,
    registry: metrics.registry,
    readiness,
  });
  logger.info({ metrics: endpoints.metricsUrl, probes: endpoints.probesUrl }, "ops endpoints listening");

  // Run order is registration order. What startup waits for is given up first, so a signal is not held behind it;
  // the service stops and finishes in-flight work before NATS drains; the probes answer until the end.
  const startup = new AbortController();
  shutdown.add("stop waiting for NATS", () => startup.abort(new Error("shutting down")));
  shutdown.add(`stop ${service}`, () => state.handle?.stop());
  shutdown.add("drain NATS", async () => {
    const connection = state.nats?.connection;
    if (connection && !connection.isClosed()) await connection.drain();
  });
  shutdown.add("flush spans", () => telemetry.shutdown());
  shutdown.add("close ops endpoints", () => endpoints.close());

  let deps: ServiceDeps;
  try {
    deps = await openServiceDeps(service, config, { logger, metrics, signal: startup.signal, onNats: (nats) => (state.nats = nats) });
  } catch (error) {
    if (startup.signal.aborted) return;
    if (error instanceof KubeConfigError) {
      logger.fatal({ err: error.cause, kubeconfig: error.kubeconfig }, "cannot load the kubeconfig");
      await endpoints.close();
      process.exit(2);
    }
    throw error;
  }
  try {
    state.handle = await definition.start(config, deps);
  } catch (error) {
    if (startup.signal.aborted) return;
    throw error;
  }
  logger.info("started");
  // A signal that arrived while starting ran the steps before the service existed.
  if (shutdown.started) await state.handle.stop();
}

/** The entry point of a service binary: runs it and turns a startup failure into exit status 1 with its stack. */
export function runServiceMain<C extends CommonConfig>(definition: ServiceDefinition<C>): void {
  runService(definition).catch((error: unknown) => {
    process.stderr.write(`stsfleet-${definition.service}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
