// One list-watch loop (Reflector) per watched kind, each over the Kubernetes API (or a source a test injects) and
// feeding its kind's sink of the mirror, with the flags' page size, watch timeouts, relist period and backoff.
import type { BackoffPolicy } from "../../common/src/backoff.ts";
import { RESOURCES } from "../../common/src/kube.ts";
import type { KubeClient, ResourceRef } from "../../common/src/kube.ts";
import type { Logger } from "../../common/src/logger.ts";
import { kubeSource } from "./adapters/kube-source.ts";
import { Reflector } from "./adapters/reflector.ts";
import type { KubeSource } from "./adapters/reflector.ts";
import type { WatcherConfig } from "./config.ts";
import { WATCHED_KINDS } from "./domain/objects.ts";
import type { WatchedKind } from "./domain/objects.ts";
import type { MirrorSink } from "./mirror-sink.ts";
import type { WatcherMetrics } from "./metrics.ts";

const KIND_RESOURCES: Readonly<Record<WatchedKind, ResourceRef>> = {
  sts: RESOURCES.statefulsets,
  pod: RESOURCES.pods,
  pvc: RESOURCES.persistentvolumeclaims,
  rev: RESOURCES.controllerrevisions,
};

/**
 * client-node's own inactivity timeout is set this far above --watch-stall-timeout-ms, so the reflector's watchdog,
 * which counts stalls, is the one that fires.
 */
const WATCH_INACTIVITY_SLACK_MS = 5_000;

export type ListWatchConfig = Pick<
  WatcherConfig,
  "namespace" | "listPageSize" | "watchTimeoutSeconds" | "watchStallTimeoutMs" | "relistPeriodMs" | "backoffInitialMs" | "backoffMaxMs"
>;

export interface ListWatchDeps {
  readonly kube: KubeClient;
  readonly sink: Pick<MirrorSink, "forKind" | "synced">;
  readonly metrics: WatcherMetrics;
  readonly logger: Logger;
  readonly random: () => number;
  /** Replaces the Kubernetes source of some kinds (tests of the loop without an API server). */
  readonly sources?: Partial<Record<WatchedKind, KubeSource>> | undefined;
}

/** The loops, not started. */
export function listWatchLoops(config: Readonly<ListWatchConfig>, deps: ListWatchDeps): Reflector[] {
  const backoff: BackoffPolicy = { initialDelayMs: config.backoffInitialMs, maxDelayMs: config.backoffMaxMs };
  return WATCHED_KINDS.map(
    (kind) =>
      new Reflector({
        source:
          deps.sources?.[kind] ??
          kubeSource(deps.kube, KIND_RESOURCES[kind], {
            namespace: config.namespace,
            watchInactivityTimeoutMs: config.watchStallTimeoutMs + WATCH_INACTIVITY_SLACK_MS,
          }),
        sink: deps.sink.forKind(kind),
        metrics: deps.metrics,
        logger: deps.logger,
        options: {
          kind,
          pageSize: config.listPageSize,
          watchTimeoutSeconds: config.watchTimeoutSeconds,
          stallTimeoutMs: config.watchStallTimeoutMs,
          relistPeriodMs: config.relistPeriodMs,
          backoff,
          random: deps.random,
        },
        onSynced: () => deps.sink.synced(kind),
      }),
  );
}
