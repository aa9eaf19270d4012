// Wires the actor service from a parsed config: NATS, Kubernetes, ownership, intake, actors, turns. main.ts is the
// process entry point; tests call startActor() in-process.
import { jetstreamManager } from "@nats-io/jetstream";
import { BUCKETS, FLEET_KEYS, extractSpanContext, intentReplicaStream, intentReplicaSubjects } from "#protocol";
import type { Intent, SetAddress } from "#protocol";
import { LEASE_PROFILES, ShardOwnership } from "./runtime/ownership.ts";
import { ActorSystem } from "./runtime/actor-system.ts";
import { Executor } from "./runtime/executor.ts";
import { ShardIntake, feedJetStream } from "./runtime/intake.ts";
import { ObjectRereads } from "./runtime/rereads.ts";
import { guardIntentLogLayout } from "./runtime/layout-guard.ts";
import { INTENT_API_TIMEOUT_MS, IntentLog, QuorumIntentLog } from "./runtime/intents.ts";
import type { IntentAppender } from "./runtime/intents.ts";
import { takeOverShard } from "./runtime/takeover.ts";
import { createTurnRunner } from "./runtime/turn.ts";
import { createActorMetrics } from "./metrics.ts";
import type { ActorConfig } from "./config.ts";
import { isMet } from "./domain/expectations.ts";
import type { Expectation } from "./domain/expectations.ts";
import { ForeignControllers, leftAloneDetail } from "./domain/foreign-controller.ts";
import { GenerationFloors } from "./domain/generation-floors.ts";
import { ObjectStore, setKey } from "./domain/object-store.ts";
import { KubeClient, loadKubeConfig } from "../../common/src/kube.ts";
import { createLogger } from "../../common/src/logger.ts";
import type { Logger } from "../../common/src/logger.ts";
import { createCommonMetrics } from "../../common/src/metrics.ts";
import { connectNats, natsOptionsFrom } from "../../common/src/nats.ts";
import { startOpsEndpoints } from "../../common/src/ops-server.ts";
import { DropReporter } from "../../common/src/executor/drops.ts";
import { StreamPublisher } from "../../common/src/stream-publish.ts";
import { provisionIntentLog, provisionTopology } from "../../common/src/topology.ts";
import { fieldManager, userAgent } from "../../common/src/version.ts";

/** How long a claim command waits for its stream ack before the executor logs it (nats.js's JetStream default). */
const COMMAND_ACK_TIMEOUT_MS = 5_000;

export interface RunningActor {
  readonly logger: Logger;
  readonly metricsUrl: string | undefined;
  readonly probesUrl: string | undefined;
  ready(): boolean;
  ownedShards(): number;
  /** Graceful shutdown: stop intake, finish running turns, release shards, drain NATS. */
  stop(): Promise<void>;
}

export async function startActor(config: ActorConfig, options: { logger?: Logger } = {}): Promise<RunningActor> {
  const logger =
    options.logger ??
    createLogger({ service: "actor", instance: config.name, level: config.logLevel, format: config.logFormat });
  const common = createCommonMetrics("actor", config.name);
  // Bound below, once the objects they read exist.
  const sources = { ownedShards: () => 0, syncedShards: () => 0, cachedSets: () => 0, unreadableObjects: () => 0, setsLeftAlone: () => 0 };
  const metrics = createActorMetrics(common, config.maxConcurrentTurns, {
    ownedShards: () => sources.ownedShards(),
    syncedShards: () => sources.syncedShards(),
    cachedSets: () => sources.cachedSets(),
    unreadableObjects: () => sources.unreadableObjects(),
    setsLeftAlone: () => sources.setsLeftAlone(),
  });
  const profile = LEASE_PROFILES[config.leaseProfile];

  const nats = await connectNats(
    natsOptionsFrom(config, `actor/${config.name}`),
    logger,
    common,
  );
  const topology = await provisionTopology(nats.connection, { replicas: config.natsReplicas });
  const intentLog = await provisionIntentLog(topology, config.intentLogPlacement, { unreadableWaitMs: profile.leaseDurationMs, logger });
  // Starting actors read the layout; running ones write it back over garbage or a delete (ADR 0088).
  const layoutGuard = await guardIntentLogLayout({
    members: topology.members,
    layout: intentLog.layout,
    logger: logger.child({ component: "layout-guard" }),
    onUndecodable(reason) {
      common.droppedMessages.inc({ subject: `$KV.${BUCKETS.members}.${FLEET_KEYS.intentLog}`, reason });
    },
  });
  if (intentLog.layout.placement.length > 0) {
    const servers = intentLog.servers.map((server, i) => `${intentReplicaStream(i)}@${server ?? "?"}`);
    if (intentLog.unavailable.length > 0) logger.warn({ servers, unavailable: intentLog.unavailable }, "some intent log replicas are unavailable; appends go to the majority that is there");
    else if (intentLog.servers.includes(undefined)) logger.warn({ servers }, "the quorum intent log's replicas are on a server that is not clustered: losing it loses all of them");
    else logger.info({ servers }, "intent log kept by a quorum of single-replica streams");
  }
  // Claim commands are not awaited by the turn (it waits for the claims in the cache); a missing ack is logged.
  const commands = new StreamPublisher(nats.connection, { timeoutMs: COMMAND_ACK_TIMEOUT_MS, inboxPrefix: nats.inboxPrefix });
  const kube = new KubeClient(loadKubeConfig(config.kubeconfig, userAgent("actor", config.name)), {
    requestTimeoutMs: config.kubeRequestTimeoutMs,
    metrics: common,
  });

  const store = new ObjectStore();
  const lookup = store.get.bind(store);
  const waiters = new Set<{ expectations: readonly Expectation[]; resolve: (met: boolean) => void }>();
  const settleWaiters = () => {
    for (const waiter of waiters) {
      if (waiter.expectations.every((e) => isMet(e, lookup))) {
        waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  };
  const waitFor = (expectations: readonly Expectation[], timeoutMs: number, signal: AbortSignal) =>
    new Promise<boolean>((resolve) => {
      if (expectations.every((e) => isMet(e, lookup))) return resolve(true);
      const waiter = {
        expectations,
        resolve: (met: boolean) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          resolve(met);
        },
      };
      const onAbort = () => {
        waiters.delete(waiter);
        waiter.resolve(false);
      };
      const timer = setTimeout(onAbort, timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      waiters.add(waiter);
    });

  const shardSignals = new Map<number, AbortController>();
  const synced = new Set<number>();
  const ownership: ShardOwnership = new ShardOwnership({
    connection: nats.connection,
    members: topology.members,
    shards: topology.shards,
    name: config.name,
    profile,
    logger: logger.child({ component: "ownership" }),
    listener: {
      gained(shards) {
        metrics.handoffs.inc({ direction: "gained" }, shards.size);
        for (const [shard, epoch] of shards) {
          shardSignals.set(shard, new AbortController());
          void intake.open(shard).catch((error: unknown) => {
            // Given up through ownership, so that it is claimed again and opened anew, not held and left unserved.
            logger.error({ shard, err: error }, "could not open shard feed; giving the shard up");
            ownership.giveUp(shard, epoch);
          });
        }
      },
      lost(shards) {
        metrics.handoffs.inc({ direction: "lost" }, shards.length);
        dropShards(shards);
      },
      async drain(shard) {
        await intake.close(shard);
        await system.drain(store.setsInShard(shard));
      },
    },
    onHandoff(event) {
      metrics.handoffGap(event.kind, event.gapMs);
    },
    onUndecodable(bucket, reason) {
      common.droppedMessages.inc({ subject: bucket === "members" ? "$KV.members.m.{member}" : "$KV.shards.{shard}", reason });
    },
    onDeath(event) {
      metrics.deathsDeclared.inc({ reason: event.why });
    },
  });

  const generationFloors = new GenerationFloors();
  // Sets another StatefulSet controller acts on are left alone (ADR 0092); the fleet's own status writes are the
  // status-writer's, recorded under its User-Agent's prefix.
  const foreignControllers = new ForeignControllers({
    ownManagers: [fieldManager("status-writer")],
    knownControllers: config.foreignControllerManagers,
    rewriteWindowMs: config.foreignRewriteWindowMs,
    quietPeriodMs: config.foreignQuietPeriodMs,
  });
  const noteLastRecord = (address: SetAddress, intent: Intent) => generationFloors.note(setKey(address.namespace, address.name), intent);
  // Appends through StreamPublisher (ADR 0085): one reply subscription and one timer instead of a request() each.
  const intentJs = new StreamPublisher(nats.connection, { timeoutMs: INTENT_API_TIMEOUT_MS, inboxPrefix: nats.inboxPrefix });
  const intentJsm = await jetstreamManager(nats.connection, { timeout: INTENT_API_TIMEOUT_MS });
  // Undecodable intent-log entries are counted and logged, rate-limited (ADR 0089).
  const intentDrops = new DropReporter(common, logger);
  const intents: IntentAppender =
    config.intentLogPlacement.length === 0
      ? new IntentLog(intentJs, intentJsm, undefined, noteLastRecord, intentDrops)
      : new QuorumIntentLog(
          config.intentLogPlacement.map(
            (_, replica) => new IntentLog(intentJs, intentJsm, { stream: intentReplicaStream(replica), subjects: intentReplicaSubjects(replica) }, noteLastRecord, intentDrops),
          ),
          { onReplicaError: (stream, error) => metrics.intentReplicaError(stream, error) },
        );

  const system = new ActorSystem({
    runTurn: (key, trigger) => runTurn(key, trigger),
    lookup,
    maxConcurrentTurns: config.maxConcurrentTurns,
    expectationTimeoutMs: config.expectationTimeoutMs,
    backoff: { initialDelayMs: config.backoffInitialMs, maxDelayMs: config.backoffMaxMs },
    passivateAfterMs: config.passivateAfterMs,
    logger,
    metrics,
  });

  const dropShards = (shards: readonly number[]) => {
    for (const shard of shards) {
      shardSignals.get(shard)?.abort();
      shardSignals.delete(shard);
      synced.delete(shard);
      void intake.close(shard);
      rereads.dropShard(shard);
      const dropped = store.dropShard(shard);
      system.forget(dropped);
      generationFloors.forget(dropped);
      foreignControllers.forget(dropped);
      intents.forgetShard(shard);
    }
  };

  // Subjects whose last message could not be read are published again by the watcher on request (ADR 0088).
  const rereads = new ObjectRereads({
    nats: nats.connection,
    member: config.name,
    logger,
    absent(ref) {
      for (const key of store.markReadable(ref).unblocked) system.notify(key, "readable");
    },
    result: (result) => metrics.objectReread(result),
  });

  const intake = new ShardIntake({
    js: feedJetStream(nats.connection),
    jsm: topology.jsm,
    store,
    logger,
    live: nats.connection,
    rereads,
    listener: {
      changed(key, reason, headers) {
        system.notify(key, reason, extractSpanContext(headers));
        settleWaiters();
      },
      synced(shard) {
        void takeOver(shard);
      },
      dropped(reason, source) {
        metrics.droppedObjects(reason, source);
      },
      received(source, outcome) {
        metrics.objectMessage(source, outcome);
      },
    },
  });

  /** After the cache of a newly owned shard is rebuilt: fence the previous owner on every set, then start turns. */
  const takeOver = (shard: number) =>
    takeOverShard(shard, {
      epochOf: (s) => ownership.epochOf(s),
      // A set whose own subject could not be read may exist: it is fenced like the others.
      setsInShard: (s) => [...new Set([...store.setsInShard(s), ...store.unreadableSetsInShard(s)])],
      appendTakeover: (s, key, epoch) => {
        const [namespace = "", name = ""] = key.split("/");
        return intents.append(
          { shard: s, namespace, name },
          { type: "intent.takeover", shard: s, epoch, member: config.name, incarnation: ownership.incarnation },
        );
      },
      markSynced: (s) => synced.add(s),
      giveUp: (s, epoch, reason) => {
        logger.warn({ shard: s, epoch, err: reason }, "takeover intent fenced; giving the shard up");
        ownership.giveUp(s, epoch);
      },
      notify: (key, reason) => system.notify(key, reason),
    });

  sources.ownedShards = () => ownership.ownedShards().size;
  sources.syncedShards = () => synced.size;
  sources.cachedSets = () => store.setCount();
  sources.unreadableObjects = () => store.unreadableCount();
  sources.setsLeftAlone = () => foreignControllers.stopped().length;

  const runTurn = createTurnRunner({
    store,
    generationFloors,
    foreignControllers,
    ownership: {
      epochOf: (shard) => ownership.epochOf(shard),
      canAct: (shard, epoch) => ownership.canAct(shard, epoch),
      signalFor: (shard) => shardSignals.get(shard)?.signal,
      isSynced: (shard) => synced.has(shard),
      fenced: (shard, epoch) => ownership.giveUp(shard, epoch),
    },
    intents,
    executor: new Executor({
      kube,
      nats: nats.connection,
      commands,
      member: config.name,
      lookup,
      waitFor,
      claimWaitTimeoutMs: config.claimWaitTimeoutMs,
      logger,
      // The stream may hold no newer version of a copy a write found stale: quiet changes are not published (ADR 0090).
      staleCopy: (ref) => rereads.refresh(ref, "stale-copy"),
    }),
    nats: nats.connection,
    member: config.name,
    get incarnation() {
      return ownership.incarnation;
    },
    planOptions: {},
    statusTimeoutMs: config.statusTimeoutMs,
    retryPeriodMs: profile.retryPeriodMs,
    logger,
    metrics,
  });

  const ready = () =>
    nats.isConnected() && ownership.leaseFresh() && synced.size === ownership.ownedShards().size;

  const readiness = new Map<string, () => boolean | string>([
    ["nats", () => nats.isConnected() || "not connected"],
    ["lease", () => ownership.leaseFresh() || "lease not fresh"],
    ["shards", () => synced.size === ownership.ownedShards().size || `${synced.size} shards synced`],
    // Not ready while another controller acts on a set this member owns: the operator must switch it off (ADR 0092).
    ["foreign-controller", () => leftAloneDetail(foreignControllers.stopped())],
  ]);
  const endpoints = await startOpsEndpoints({
    metricsBind: config.metricsBindAddress,
    probesBind: config.healthProbeBindAddress,
    registry: common.registry,
    readiness,
  });

  await ownership.start();

  let resyncTimer: NodeJS.Timeout | undefined;
  const scheduleResync = () => {
    if (config.resyncPeriodMs === 0) return;
    const delayMs = config.resyncPeriodMs * (0.9 + Math.random() * 0.2);
    resyncTimer = setTimeout(() => {
      for (const shard of synced) for (const key of store.setsInShard(shard)) system.notify(key, "resync");
      scheduleResync();
    }, delayMs);
    resyncTimer.unref();
  };
  scheduleResync();

  let stopping: Promise<void> | undefined;
  return {
    logger,
    metricsUrl: endpoints.metricsUrl,
    probesUrl: endpoints.probesUrl,
    ready,
    ownedShards: () => ownership.ownedShards().size,
    stop: () =>
      (stopping ??= (async () => {
        if (resyncTimer) clearTimeout(resyncTimer);
        // Shard by shard: stop intake, finish its turns, release it, so successors take over while we leave.
        await ownership.stop({ timeoutMs: Math.max(1_000, config.shutdownTimeoutMs - 2_000) });
        await intake.closeAll();
        rereads.close();
        layoutGuard.stop();
        await system.stop();
        await nats.connection.drain().catch(() => undefined);
        await endpoints.close();
      })()),
  };
}
