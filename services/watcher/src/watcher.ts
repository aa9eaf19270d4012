// Builds and runs one watcher from its configuration: ops endpoints, NATS and the stream topology, the Kubernetes
// client, the mirror state, one list-watch loop per kind, the publisher, the lease and the tombstone purger.
// main.ts calls startWatcher once; tests call it in-process with their own dependencies.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { context, SpanKind, trace } from "@opentelemetry/api";
import { jetstream } from "@nats-io/jetstream";
import type { Registry } from "prom-client";
import { BUCKETS, PublicationClock, STREAMS, objectSubjects, rereadSubjects } from "#protocol";
import { backoffDelayMs, retryForever } from "../../common/src/backoff.ts";
import type { BackoffPolicy } from "../../common/src/backoff.ts";
import { KubeClient, RESOURCES, loadKubeConfig } from "../../common/src/kube.ts";
import type { ResourceRef, UserAgentKubeConfig } from "../../common/src/kube.ts";
import { createLogger } from "../../common/src/logger.ts";
import type { Logger } from "../../common/src/logger.ts";
import { createCommonMetrics } from "../../common/src/metrics.ts";
import { connectNats, natsOptionsFrom } from "../../common/src/nats.ts";
import type { NatsHandle } from "../../common/src/nats.ts";
import { startOpsEndpoints } from "../../common/src/ops-server.ts";
import type { ReadinessCheck } from "../../common/src/ops-server.ts";
import { StreamPublisher } from "../../common/src/stream-publish.ts";
import { provisionTopology } from "../../common/src/topology.ts";
import { userAgent } from "../../common/src/version.ts";
import { kubeSource } from "./adapters/kube-source.ts";
import { LeaseElector } from "./adapters/lease-elector.ts";
import { EventContexts, Publisher } from "./adapters/publisher.ts";
import { Reflector } from "./adapters/reflector.ts";
import { RereadServer } from "./adapters/reread-server.ts";
import type { KubeSource, ReflectorSink } from "./adapters/reflector.ts";
import { readStreamIndex } from "./adapters/stream-index.ts";
import type { WatcherConfig } from "./config.ts";
import { LEASE_KEY } from "./domain/lease.ts";
import { WATCHED_KINDS, kindName, objectKey, parseWatchedObject } from "./domain/objects.ts";
import type { RejectReason, WatchedKind } from "./domain/objects.ts";
import { MirrorState } from "./domain/state.ts";
import { createWatcherMetrics } from "./metrics.ts";
import type { WatcherMetrics } from "./metrics.ts";

const TRACER_NAME = "stsfleet-watcher";

const KIND_RESOURCES: Readonly<Record<WatchedKind, ResourceRef>> = {
  sts: RESOURCES.statefulsets,
  pod: RESOURCES.pods,
  pvc: RESOURCES.persistentvolumeclaims,
  rev: RESOURCES.controllerrevisions,
};

/** The longest pause of the publisher after failed publishes (see where the Publisher is built). */
const PUBLISH_BACKOFF_MAX_MS = 1_000;

export interface WatcherDeps {
  readonly logger?: Logger;
  /** An existing NATS connection (tests); the watcher then leaves it open on stop. */
  readonly nats?: NatsHandle;
  readonly kubeConfig?: UserAgentKubeConfig;
  /** Replaces the Kubernetes sources (tests of the loop without an API server). */
  readonly sources?: Partial<Record<WatchedKind, KubeSource>>;
  readonly random?: () => number;
  /** Unique per process start; defaults to a random UUID. */
  readonly incarnation?: string;
}

export interface Watcher {
  readonly name: string;
  readonly incarnation: string;
  readonly metricsUrl: string | undefined;
  readonly probesUrl: string | undefined;
  readonly registry: Registry;
  readonly metrics: WatcherMetrics;
  readonly state: MirrorState;
  isLeader(): boolean;
  isReady(): boolean;
  /** Every readiness check with its current answer. */
  readiness(): Record<string, true | string>;
  /** Resolves once nothing is owed to the stream (or after `timeoutMs`); true when idle. */
  flush(timeoutMs: number): Promise<boolean>;
  /**
   * Graceful: stop watches, finish in-flight publishes, release the lease, close endpoints, drain NATS.
   * `releaseLease: false` leaves the lease to expire, as a crashed watcher would (tests of the takeover).
   */
  stop(options?: { readonly releaseLease?: boolean }): Promise<void>;
}

export async function startWatcher(config: Readonly<WatcherConfig>, deps: WatcherDeps = {}): Promise<Watcher> {
  const logger =
    deps.logger ?? createLogger({ service: "watcher", instance: config.name, level: config.logLevel, format: config.logFormat });
  const incarnation = deps.incarnation ?? randomUUID();
  const random = deps.random ?? Math.random;
  const backoff: BackoffPolicy = { initialDelayMs: config.backoffInitialMs, maxDelayMs: config.backoffMaxMs };
  const common = createCommonMetrics("watcher", config.name);
  const metrics = createWatcherMetrics(common.registry);
  metrics.leader.set(0);
  metrics.synced.set(0);
  const tracer = trace.getTracer(TRACER_NAME);
  const lifetime = new AbortController();

  const inScope = (namespace: string) => config.namespace === undefined || namespace === config.namespace;
  const state = new MirrorState({
    inScope,
    republishSeed: Date.now(),
    onQuiet: (kind) => metrics.quietChanges.inc({ kind }),
  });
  let nats: NatsHandle | undefined = deps.nats;
  let elector: LeaseElector | undefined = undefined;
  let stopping = false;

  const readinessChecks = new Map<string, ReadinessCheck>([
    ["nats", () => (nats?.isConnected() ? true : "not connected to NATS")],
    ["lease", () => (elector?.decided ? true : "lease not observed yet")],
    [
      "synced",
      () => state.synced || `initial lists pending: ${WATCHED_KINDS.filter((k) => !state.isKindSynced(k)).join(", ")}`,
    ],
    ["stream", () => (!elector?.isLeader || state.ledger.isActive ? true : "rebuilding the stream index")],
    ["shutdown", () => (stopping ? "shutting down" : true)],
  ]);
  const readiness = (): Record<string, true | string> => {
    const out: Record<string, true | string> = {};
    for (const [name, check] of readinessChecks) {
      const result = check();
      out[name] = result === true ? true : result === false ? "failed" : result;
    }
    return out;
  };

  const endpoints = await startOpsEndpoints({
    metricsBind: config.metricsBindAddress,
    probesBind: config.healthProbeBindAddress,
    registry: common.registry,
    readiness: readinessChecks,
  });

  const ownsNats = nats === undefined;
  nats ??= await connectNats(
    natsOptionsFrom(config, `stsfleet-watcher-${config.name}`),
    logger,
    common,
  );
  const connection = nats.connection;
  const topology = await retryForever("provisioning streams and buckets", () => provisionTopology(connection, { replicas: config.natsReplicas }), {
    policy: backoff,
    logger,
    signal: lifetime.signal,
  });
  // Stream publishes without nats.js's per-request machinery (ADR 0085); the ack timeout is --publish-timeout-ms.
  const streamPublisher = new StreamPublisher(connection, { timeoutMs: config.publishTimeoutMs, inboxPrefix: nats.inboxPrefix });
  // The stream index is read through an R1 consumer, which nats-server 2.9 may place on a cluster node that is
  // down; that create is never answered, so it times out early and is retried (ADR 0083).
  const indexJs = jetstream(connection, { timeout: 2_000 });

  const kubeConfig = deps.kubeConfig ?? loadKubeConfig(config.kubeconfig, userAgent("watcher", config.name));
  const kubeClient = new KubeClient(kubeConfig, { requestTimeoutMs: config.kubeRequestTimeoutMs, metrics: common });

  const contexts = new EventContexts();
  const publisher = new Publisher({
    stream: streamPublisher,
    jsm: topology.jsm,
    state,
    metrics,
    logger,
    tracer,
    contexts,
    random,
    live: connection,
    options: {
      stream: STREAMS.objects,
      concurrency: config.publishConcurrency,
      liveCopyDelayMs: config.liveCopyDelayMs,
      // A failed publish round waits on NATS, not on the API server the list/watch backoff protects: a round costs
      // at most `concurrency` publishes, and a stream leader comes back within a Raft election (4-9 s), so retry at
      // least every second. With the 30 s default, publishing resumed up to 8 s after a node crash's election.
      backoff: { ...backoff, maxDelayMs: Math.min(backoff.maxDelayMs, PUBLISH_BACKOFF_MAX_MS) },
      tombstoneTtlMs: config.tombstoneTtlMs,
    },
  });

  // --- the mirror, fed by one list-watch loop per kind -------------------------------------------------------
  const rejectedLogged = new Set<string>();
  const reject = (kind: WatchedKind, reason: RejectReason, detail: string) => {
    metrics.rejectedObjects.inc({ kind, reason });
    const once = `${kind}/${reason}`;
    if (rejectedLogged.has(once)) return;
    rejectedLogged.add(once);
    logger.warn({ kind: kindName(kind), reason, detail }, "object from the API server ignored (logged once per reason)");
  };
  const updateGauges = (kind: WatchedKind) => metrics.objects.set({ kind }, state.count(kind));

  const sinkFor = (kind: WatchedKind): ReflectorSink => ({
    replace(items) {
      const objects = [];
      for (const item of items) {
        const parsed = parseWatchedObject(kind, item);
        if (parsed.ok) objects.push(parsed.object);
        else reject(kind, parsed.reason, parsed.detail);
      }
      const report = state.replace(kind, objects);
      logger.debug({ kind: kindName(kind), ...report }, "list applied");
      updateGauges(kind);
      publisher.kick();
    },
    event(type, item) {
      const parsed = parseWatchedObject(kind, item);
      if (!parsed.ok) return reject(kind, parsed.reason, parsed.detail);
      const object = parsed.object;
      const key = objectKey(kind, object.namespace, object.name);
      // One span per watch event; the publishes it causes continue its trace (without relying on a context manager).
      const span = tracer.startSpan(
        `process k8s.watch.${kind}`,
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            "k8s.namespace.name": object.namespace,
            "stsfleet.object.kind": kindName(kind),
            "stsfleet.object.name": object.name,
            "stsfleet.object.uid": object.uid,
            "stsfleet.object.resource_version": object.resourceVersion,
            "stsfleet.watch.event": type,
          },
        },
        context.active(),
      );
      const eventContext = trace.setSpan(context.active(), span);
      try {
        context.with(eventContext, () => {
          if (type === "DELETED") {
            state.remove(kind, object.namespace, object.name, { uid: object.uid, rv: object.resourceVersion });
          } else {
            state.upsert(object);
          }
        });
        if (state.ledger.hasWork(key)) contexts.set(key, object.resourceVersion, eventContext);
      } finally {
        span.end();
      }
      updateGauges(kind);
      publisher.kick();
    },
  });

  const reflectors = WATCHED_KINDS.map(
    (kind) =>
      new Reflector({
        source:
          deps.sources?.[kind] ??
          kubeSource(kubeClient, KIND_RESOURCES[kind], {
            namespace: config.namespace,
            watchInactivityTimeoutMs: config.watchStallTimeoutMs + 5_000,
          }),
        sink: sinkFor(kind),
        metrics,
        logger,
        options: {
          kind,
          pageSize: config.listPageSize,
          watchTimeoutSeconds: config.watchTimeoutSeconds,
          stallTimeoutMs: config.watchStallTimeoutMs,
          relistPeriodMs: config.relistPeriodMs,
          backoff,
          random,
        },
        onSynced: () => {
          if (state.markSynced(kind)) {
            metrics.synced.set(1);
            logger.info({ objects: Object.fromEntries(WATCHED_KINDS.map((k) => [k, state.count(k)])) }, "initial lists synced");
            publisher.kick();
          }
        },
      }),
  );

  // --- active/standby ------------------------------------------------------------------------------------------
  let activation = 0;
  const activate = async (generation: number) => {
    for (let attempt = 0; generation === activation && !stopping; attempt++) {
      try {
        const index = await readStreamIndex(indexJs, topology.jsm, {
          stream: STREAMS.objects,
          filter: objectSubjects.all,
          batchWaitMs: Math.min(2_000, config.publishTimeoutMs),
        });
        if (generation !== activation || stopping || !elector?.isLeader) return;
        if (!index.headersOnly) logger.warn("the server ignored headers_only; the stream index was read with payloads");
        const report = state.ledger.activate(index.entries);
        logger.info({ ...report, pending: state.ledger.pending }, "stream index rebuilt; publishing differences");
        publisher.kick();
        return;
      } catch (error) {
        logger.warn({ err: error, attempt }, "reading the stream index failed; retrying");
        await sleep(backoffDelayMs(backoff, attempt, random));
      }
    }
  };
  elector = new LeaseElector({
    kv: topology.leases,
    logger,
    metrics,
    onUndecodable: (reason) => common.droppedMessages.inc({ subject: "$KV.leases.watcher", reason }),
    random,
    options: {
      key: LEASE_KEY,
      holder: config.name,
      incarnation,
      leaseDurationMs: config.leaseDurationMs,
      renewDeadlineMs: config.leaseRenewDeadlineMs,
      retryPeriodMs: config.leaseRetryPeriodMs,
    },
    callbacks: {
      onStartedLeading: (revision) => {
        publisher.setPublicationClock(new PublicationClock(revision));
        void activate(++activation);
      },
      onStoppedLeading: (reason) => {
        activation++;
        publisher.setPublicationClock(undefined);
        state.ledger.deactivate();
        logger.warn({ reason }, "no longer the active watcher; standing by");
        publisher.kick();
      },
    },
  });

  // Owners ask for an object subject they could not read to be verified and published again (ADR 0088).
  const rereads = new RereadServer({
    connection,
    jsm: topology.jsm,
    stream: STREAMS.objects,
    ledger: state.ledger,
    inScope,
    kick: () => publisher.kick(),
    metrics,
    dropped: (reason) => common.droppedMessages.inc({ subject: rereadSubjects.template, reason }),
    logger,
    tracer,
  });

  const purgeTimer = setInterval(() => {
    publisher.purgeTombstones().catch((error: unknown) => logger.warn({ err: error }, "tombstone purge failed"));
  }, config.tombstonePurgeIntervalMs);
  purgeTimer.unref();

  for (const reflector of reflectors) reflector.start();
  rereads.start();
  elector.start();
  logger.info(
    { namespace: config.namespace ?? "(all)", incarnation, bucket: BUCKETS.leases, stream: STREAMS.objects },
    "watcher started",
  );

  const isReady = () => Object.values(readiness()).every((value) => value === true);
  let stopped: Promise<void> | undefined;
  return {
    name: config.name,
    incarnation,
    metricsUrl: endpoints.metricsUrl,
    probesUrl: endpoints.probesUrl,
    registry: common.registry,
    metrics,
    state,
    isLeader: () => elector?.isLeader ?? false,
    isReady,
    readiness,
    async flush(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      // A freshly elected watcher first rebuilds its view of the stream; only then is "nothing owed" meaningful.
      while (elector?.isLeader && !state.ledger.isActive) {
        if (performance.now() > deadline) return false;
        await sleep(10);
      }
      return publisher.drain(Math.max(0, deadline - performance.now()));
    },
    stop(options = {}) {
      stopped ??= (async () => {
        stopping = true;
        lifetime.abort();
        clearInterval(purgeTimer);
        rereads.stop();
        await Promise.all(reflectors.map((reflector) => reflector.stop()));
        const drained = await publisher.drain(Math.max(100, Math.floor(config.shutdownTimeoutMs / 2)));
        if (!drained) logger.warn({ pending: state.ledger.pending }, "stopping with publishes still owed; the next active watcher diffs them");
        publisher.close();
        await publisher.drain(1_000);
        await elector?.stop({ release: options.releaseLease ?? true });
        await endpoints.close();
        if (ownsNats) await connection.drain().catch((error: unknown) => logger.warn({ err: error }, "NATS drain failed"));
        logger.info("watcher stopped");
      })();
      return stopped;
    },
  };
}
