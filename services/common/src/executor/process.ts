// What both executors add to the service shell (service.ts): the shard-epoch view they fence commands with, watched
// once the topology exists, and a smaller set of dependencies that tests build themselves.
import type { NatsConnection } from "@nats-io/transport-node";
import type { CommonConfig } from "../config.ts";
import type { KubeClient } from "../kube.ts";
import type { Logger } from "../logger.ts";
import type { CommonMetrics } from "../metrics.ts";
import type { ReadinessCheck } from "../ops-server.ts";
import { runServiceMain } from "../service.ts";
import type { ServiceDeps, ServiceHandle } from "../service.ts";
import { watchShardEpochs } from "../shard-epochs.ts";
import type { ShardEpochView } from "../shard-epochs.ts";
import type { ServiceName } from "../version.ts";

/** The Kubernetes calls executors make; KubeClient implements it. */
export type KubeApi = Pick<KubeClient, "get" | "create" | "replace" | "patch">;

/** What an executor needs from its process; tests build these themselves and run the executor in-process. */
export interface ExecutorDeps {
  readonly nats: NatsConnection;
  readonly kube: KubeApi;
  readonly epochs: ShardEpochView;
  readonly logger: Logger;
  readonly metrics: CommonMetrics;
}

export type ExecutorHandle = ServiceHandle;

export interface ExecutorProcessOptions<C extends CommonConfig> {
  readonly service: ServiceName;
  readonly config: C;
  start(config: C, deps: ExecutorDeps): Promise<ExecutorHandle>;
}

/** An executor's start as a service's: watches the shard epochs first and stops the watch after the executor. */
export function executorStart<C extends CommonConfig>(
  start: (config: C, deps: ExecutorDeps) => Promise<ExecutorHandle>,
): (config: C, deps: ServiceDeps) => Promise<ServiceHandle> {
  return async (config, deps) => {
    const { topology, logger, metrics } = deps;
    const epochs = await deps.startup.retry("watching shard epochs", () =>
      watchShardEpochs(topology.shards, logger, (reason) => metrics.droppedMessages.inc({ subject: "$KV.shards.{shard}", reason })),
    );
    let handle: ExecutorHandle;
    try {
      handle = await start(config, { nats: deps.nats.connection, kube: deps.kube, epochs, logger, metrics });
    } catch (error) {
      epochs.stop();
      throw error;
    }
    const readiness = new Map<string, ReadinessCheck>([["shard-epochs", () => epochs.ready()], ...handle.readiness]);
    return {
      readiness,
      async stop() {
        await handle.stop();
        epochs.stop();
      },
    };
  };
}

/** Runs an executor until SIGINT/SIGTERM. */
export function runExecutorProcess<C extends CommonConfig>(options: ExecutorProcessOptions<C>): void {
  runServiceMain({ service: options.service, config: options.config, start: executorStart((config: C, deps: ExecutorDeps) => options.start(config, deps)) });
}
