// The watcher's start (the service shell, ADR 0093, runs it): constructs the mirror and its sink, one list-watch
// loop per kind, the publisher, the lease with what winning and losing it do, the re-read server and the tombstone
// purges, wires them and starts them (after upstream's NewStatefulSetController: construct, wire, nothing else).
// NATS, the topology, the Kubernetes client, logs and metrics come from the shell; tests build them with
// openServiceDeps and run the watcher in-process.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { jetstream } from "@nats-io/jetstream";
import { BUCKETS, STREAMS, objectSubjects, rereadSubjects } from "#protocol";
import type { BackoffPolicy } from "../../common/src/backoff.ts";
import type { Logger } from "../../common/src/logger.ts";
import type { ServiceDeps, ServiceHandle } from "../../common/src/service.ts";
import { StreamPublisher } from "../../common/src/stream-publish.ts";
import { LeaseElector } from "./adapters/lease-elector.ts";
import type { LeaseCallbacks } from "./adapters/lease-elector.ts";
import { EventContexts } from "./adapters/event-contexts.ts";
import { Publisher } from "./adapters/publisher.ts";
import type { KubeSource, Reflector } from "./adapters/reflector.ts";
import { RereadServer } from "./adapters/reread-server.ts";
import { readStreamIndex } from "./adapters/stream-index.ts";
import { Activation } from "./activation.ts";
import type { WatcherConfig } from "./config.ts";
import { LEASE_KEY } from "./domain/lease.ts";
import type { WatchedKind } from "./domain/objects.ts";
import type { MirrorState } from "./domain/state.ts";
import { listWatchLoops } from "./list-watch.ts";
import { createWatcherMetrics } from "./metrics.ts";
import type { WatcherMetrics } from "./metrics.ts";
import { MirrorSink, createMirrorState, watchScope } from "./mirror-sink.ts";
import { allReady, watcherReadiness } from "./readiness.ts";

const TRACER_NAME = "stsfleet-watcher";

/** The longest pause of the publisher after failed publishes (see createPublisher). */
const PUBLISH_BACKOFF_MAX_MS = 1_000;

/** What the shell gives every service, and what tests inject on top. */
export interface WatcherDeps extends ServiceDeps {
  /** Replaces the Kubernetes sources (tests of the loop without an API server). */
  readonly sources?: Partial<Record<WatchedKind, KubeSource>>;
  readonly random?: () => number;
  /** Unique per process start; defaults to a random UUID. */
  readonly incarnation?: string;
}

export interface Watcher extends ServiceHandle {
  readonly name: string;
  readonly incarnation: string;
  readonly metrics: WatcherMetrics;
  readonly state: MirrorState;
  isLeader(): boolean;
  /** True when every readiness check answers true. */
  isReady(): boolean;
  /** Resolves once nothing is owed to the stream (or after `timeoutMs`); true when idle. */
  flush(timeoutMs: number): Promise<boolean>;
  /**
   * Graceful: stop watches and re-read answers, finish in-flight publishes, release the lease; NATS is the shell's.
   * `releaseLease: false` leaves the lease to expire, as a crashed watcher would (tests of the takeover).
   */
  stop(options?: { readonly releaseLease?: boolean }): Promise<void>;
}

/** The parts a running watcher stops, in the order it stops them. */
interface Running {
  readonly reflectors: readonly Reflector[];
  readonly rereads: RereadServer;
  readonly publisher: Publisher;
  readonly activation: Activation;
  readonly elector: LeaseElector;
  readonly purgeTimer: NodeJS.Timeout;
}

/** Starts the loops and the lease and returns at once; readiness says when the watcher has caught up. */
export function startWatcher(config: Readonly<WatcherConfig>, deps: WatcherDeps): Promise<Watcher> {
  const { logger, nats, topology } = deps;
  const incarnation = deps.incarnation ?? randomUUID();
  const random = deps.random ?? Math.random;
  const backoff: BackoffPolicy = { initialDelayMs: config.backoffInitialMs, maxDelayMs: config.backoffMaxMs };
  const metrics = createWatcherMetrics(deps.metrics.registry);
  metrics.leader.set(0);
  metrics.synced.set(0);
  const tracer = trace.getTracer(TRACER_NAME);
  const state = createMirrorState(config.namespace, metrics);
  const contexts = new EventContexts();
  const publisher = createPublisher(config, { deps, state, metrics, tracer, contexts, random, backoff });
  const sink = new MirrorSink({ state, metrics, logger, tracer, contexts, kick: () => publisher.kick() });
  const reflectors = listWatchLoops(config, { kube: deps.kube, sink, metrics, logger, random, sources: deps.sources });
  // The stream index is read through an R1 consumer, which nats-server 2.9 may place on a cluster node that is
  // down; that create is never answered, so it times out early and is retried (ADR 0083).
  const indexJs = jetstream(nats.connection, { timeout: 2_000 });
  const readIndex = () =>
    readStreamIndex(indexJs, topology.jsm, { stream: STREAMS.objects, filter: objectSubjects.all, batchWaitMs: Math.min(2_000, config.publishTimeoutMs) });
  const activation = new Activation({ ledger: state.ledger, publisher, readIndex, isLeader: () => elector.isLeader, logger, backoff, random });
  const elector = createElector(config, deps, { metrics, random, incarnation, callbacks: activation });
  const rereads = createRereadServer(config, deps, { state, publisher, metrics, tracer });
  const purgeTimer = setInterval(() => {
    publisher.purgeTombstones().catch((error: unknown) => logger.warn({ err: error }, "tombstone purge failed"));
  }, config.tombstonePurgeIntervalMs);
  purgeTimer.unref();

  let stopping = false;
  const readiness = watcherReadiness({ nats, elector, state, stopping: () => stopping });
  for (const reflector of reflectors) reflector.start();
  rereads.start();
  elector.start();
  logger.info({ namespace: config.namespace ?? "(all)", incarnation, bucket: BUCKETS.leases, stream: STREAMS.objects }, "watcher started");

  const running: Running = { reflectors, rereads, publisher, activation, elector, purgeTimer };
  let stopped: Promise<void> | undefined;
  return Promise.resolve({
    name: config.name,
    incarnation,
    metrics,
    state,
    readiness,
    isLeader: () => elector.isLeader,
    isReady: () => allReady(readiness),
    flush: (timeoutMs) => flushWatcher(state, running, timeoutMs),
    stop(options = {}) {
      stopping = true;
      stopped ??= stopWatcher(config, logger, state, running, options.releaseLease ?? true);
      return stopped;
    },
  });
}

/** The publisher of K8S_OBJS and the live subjects, over the shell's connection. */
function createPublisher(
  config: Readonly<WatcherConfig>,
  parts: {
    deps: WatcherDeps;
    state: MirrorState;
    metrics: WatcherMetrics;
    tracer: Tracer;
    contexts: EventContexts;
    random: () => number;
    backoff: BackoffPolicy;
  },
): Publisher {
  const { deps, backoff } = parts;
  const { connection, inboxPrefix } = deps.nats;
  return new Publisher({
    // Stream publishes without nats.js's per-request machinery (ADR 0085); the ack timeout is --publish-timeout-ms.
    stream: new StreamPublisher(connection, { timeoutMs: config.publishTimeoutMs, inboxPrefix }),
    jsm: deps.topology.jsm,
    state: parts.state,
    metrics: parts.metrics,
    logger: deps.logger,
    tracer: parts.tracer,
    contexts: parts.contexts,
    random: parts.random,
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
}

/** The active/standby lease of this watcher in the `leases` bucket. */
function createElector(
  config: Readonly<WatcherConfig>,
  deps: WatcherDeps,
  parts: { metrics: WatcherMetrics; random: () => number; incarnation: string; callbacks: LeaseCallbacks },
): LeaseElector {
  return new LeaseElector({
    kv: deps.topology.leases,
    logger: deps.logger,
    metrics: parts.metrics,
    onUndecodable: (reason) => deps.metrics.droppedMessages.inc({ subject: "$KV.leases.watcher", reason }),
    random: parts.random,
    options: {
      key: LEASE_KEY,
      holder: config.name,
      incarnation: parts.incarnation,
      leaseDurationMs: config.leaseDurationMs,
      renewDeadlineMs: config.leaseRenewDeadlineMs,
      retryPeriodMs: config.leaseRetryPeriodMs,
    },
    callbacks: parts.callbacks,
  });
}

/** Owners ask for an object subject they could not read to be verified and published again (ADR 0088). */
function createRereadServer(
  config: Readonly<WatcherConfig>,
  deps: WatcherDeps,
  parts: { state: MirrorState; publisher: Publisher; metrics: WatcherMetrics; tracer: Tracer },
): RereadServer {
  return new RereadServer({
    connection: deps.nats.connection,
    jsm: deps.topology.jsm,
    stream: STREAMS.objects,
    ledger: parts.state.ledger,
    inScope: watchScope(config.namespace),
    kick: () => parts.publisher.kick(),
    metrics: parts.metrics,
    dropped: (reason) => deps.metrics.droppedMessages.inc({ subject: rereadSubjects.template, reason }),
    logger: deps.logger,
    tracer: parts.tracer,
  });
}

async function flushWatcher(state: MirrorState, running: Running, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  // A freshly elected watcher first rebuilds its view of the stream; only then is "nothing owed" meaningful.
  while (running.elector.isLeader && !state.ledger.isActive) {
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
  return running.publisher.drain(Math.max(0, deadline - performance.now()));
}

async function stopWatcher(config: Readonly<WatcherConfig>, logger: Logger, state: MirrorState, running: Running, releaseLease: boolean): Promise<void> {
  const { reflectors, rereads, publisher, activation, elector, purgeTimer } = running;
  activation.stop();
  clearInterval(purgeTimer);
  rereads.stop();
  await Promise.all(reflectors.map((reflector) => reflector.stop()));
  const drained = await publisher.drain(Math.max(100, Math.floor(config.shutdownTimeoutMs / 2)));
  if (!drained) logger.warn({ pending: state.ledger.pending }, "stopping with publishes still owed; the next active watcher diffs them");
  publisher.close();
  await publisher.drain(1_000);
  await elector.stop({ release: releaseLease });
  logger.info("watcher stopped");
}
