// The actor service's composition root: from a parsed config and what the service shell opened (NATS, the
// Kubernetes client, the topology, logger and metrics; ADR 0093), constructs the actor's parts and wires them. The
// parts do the work: ownership claims shards, the shard lifecycle opens and closes their feeds, the intake fills
// the cache, the actor system runs one turn at a time per set. main.ts is the process entry point; a test can call
// startActor() in-process with openServiceDeps().
import { extractSpanContext } from "#protocol";
import type { ServiceDeps, ServiceHandle } from "../../common/src/service.ts";
import type { ReadinessCheck } from "../../common/src/ops-server.ts";
import { StreamPublisher } from "../../common/src/stream-publish.ts";
import { fieldManager } from "../../common/src/version.ts";
import type { ActorConfig } from "./config.ts";
import type { Lookup } from "./domain/expectations.ts";
import { ForeignControllers, leftAloneDetail } from "./domain/foreign-controller.ts";
import { GenerationFloors } from "./domain/generation-floors.ts";
import { ObjectStore, setKey } from "./domain/object-store.ts";
import { openIntentLog } from "./intent-log-setup.ts";
import { createActorMetrics, registerActorGauges } from "./metrics.ts";
import type { ActorMetrics } from "./metrics.ts";
import { ActorSystem } from "./runtime/actor-system.ts";
import type { TurnRunner } from "./runtime/actor-system.ts";
import { Executor } from "./runtime/executor.ts";
import { ExpectationWaiters } from "./runtime/expectation-waiters.ts";
import { ShardIntake, feedJetStream } from "./runtime/intake.ts";
import type { IntakeListener } from "./runtime/intake.ts";
import type { IntentAppender } from "./runtime/intents.ts";
import { LEASE_PROFILES, ShardOwnership } from "./runtime/ownership.ts";
import type { LeaseProfile } from "./runtime/ownership.ts";
import { ObjectRereads } from "./runtime/rereads.ts";
import { PeriodicResync } from "./runtime/resync.ts";
import { ShardLifecycle } from "./runtime/shard-lifecycle.ts";
import type { ShardHolder } from "./runtime/shard-lifecycle.ts";
import { createTurnRunner } from "./runtime/turn.ts";

/** How long a claim command waits for its stream ack before the executor logs it (nats.js's JetStream default). */
const COMMAND_ACK_TIMEOUT_MS = 5_000;

export interface RunningActor extends ServiceHandle {
  /** Connected, the lease fresh, and every owned shard served. */
  ready(): boolean;
  ownedShards(): number;
}

export async function startActor(config: ActorConfig, deps: ServiceDeps): Promise<RunningActor> {
  const { nats, logger } = deps;
  const profile = LEASE_PROFILES[config.leaseProfile];
  const metrics = createActorMetrics(deps.metrics, config.maxConcurrentTurns);
  const store = new ObjectStore();
  const lookup: Lookup = (kind, namespace, name) => store.get(kind, namespace, name);
  const generationFloors = new GenerationFloors();
  const foreignControllers = newForeignControllers(config);
  const { intents, layoutGuard } = await openIntentLog(config, deps, {
    unreadableWaitMs: profile.leaseDurationMs,
    metrics,
    onLastRecord: (address, intent) => generationFloors.note(setKey(address.namespace, address.name), intent),
  });
  const waiters = new ExpectationWaiters(lookup);
  const system = newActorSystem(config, deps, metrics, lookup, (key, trigger) => runTurn(key, trigger));
  // Subjects whose last message could not be read are published again by the watcher on request (ADR 0088).
  const rereads = new ObjectRereads({
    nats: nats.connection,
    member: config.name,
    logger,
    absent: (ref) => store.markReadable(ref).unblocked.forEach((key) => system.notify(key, "readable")),
    result: (result) => metrics.objectReread(result),
  });
  const intake = new ShardIntake({
    js: feedJetStream(nats.connection),
    jsm: deps.topology.jsm,
    store,
    logger,
    live: nats.connection,
    rereads,
    listener: intakeListener(system, waiters, (shard) => shards.synced(shard), metrics),
  });
  // Ownership is constructed with the lifecycle as its listener; the lifecycle reaches it through this.
  const holder: ShardHolder = {
    epochOf: (shard) => ownership.epochOf(shard),
    giveUp: (shard, epoch) => ownership.giveUp(shard, epoch),
    get incarnation() {
      return ownership.incarnation;
    },
  };
  const setRecords = [generationFloors, foreignControllers];
  const shards = new ShardLifecycle({ intake, store, actors: system, setRecords, rereads, intents, holder, member: config.name, logger, metrics });
  const ownership = newOwnership(config, deps, profile, shards, metrics);
  const runTurn = newTurnRunner(config, deps, { store, generationFloors, foreignControllers, ownership, shards, intents, waiters, rereads, lookup, profile, metrics });
  registerActorGauges(deps.metrics, {
    ownedShards: () => ownership.ownedShards().size,
    syncedShards: () => shards.syncedShards().size,
    cachedSets: () => store.setCount(),
    unreadableObjects: () => store.unreadableCount(),
    setsLeftAlone: () => foreignControllers.stopped().length,
  });

  await ownership.start();
  const resync = new PeriodicResync({ periodMs: config.resyncPeriodMs, shards: () => shards.syncedShards(), setsInShard: (shard) => store.setsInShard(shard), notify: (key, reason) => system.notify(key, reason) });
  resync.start();

  let stopping: Promise<void> | undefined;
  return {
    readiness: actorReadiness(ownership, shards, foreignControllers),
    ready: () => nats.isConnected() && ownership.leaseFresh() && shards.syncedShards().size === ownership.ownedShards().size,
    ownedShards: () => ownership.ownedShards().size,
    stop: () =>
      (stopping ??= (async () => {
        resync.stop();
        // Shard by shard: stop intake, finish its turns, release it, so successors take over while we leave.
        await ownership.stop({ timeoutMs: Math.max(1_000, config.shutdownTimeoutMs - 2_000) });
        await intake.closeAll();
        rereads.close();
        layoutGuard.stop();
        await system.stop();
      })()),
  };
}

/**
 * Sets another StatefulSet controller acts on are left alone (ADR 0092); the fleet's own status writes are the
 * status-writer's, recorded under its User-Agent's prefix.
 */
function newForeignControllers(config: ActorConfig): ForeignControllers {
  return new ForeignControllers({
    ownManagers: [fieldManager("status-writer")],
    knownControllers: config.foreignControllerManagers,
    rewriteWindowMs: config.foreignRewriteWindowMs,
    quietPeriodMs: config.foreignQuietPeriodMs,
  });
}

function newActorSystem(config: ActorConfig, deps: ServiceDeps, metrics: ActorMetrics, lookup: Lookup, runTurn: TurnRunner): ActorSystem {
  return new ActorSystem({
    runTurn,
    lookup,
    maxConcurrentTurns: config.maxConcurrentTurns,
    expectationTimeoutMs: config.expectationTimeoutMs,
    backoff: { initialDelayMs: config.backoffInitialMs, maxDelayMs: config.backoffMaxMs },
    passivateAfterMs: config.passivateAfterMs,
    logger: deps.logger,
    metrics,
  });
}

/** A change in the cache starts a turn and settles the waits it meets; a replayed shard is taken over. */
function intakeListener(system: ActorSystem, waiters: ExpectationWaiters, synced: (shard: number) => void, metrics: ActorMetrics): IntakeListener {
  return {
    changed(key, reason, headers) {
      system.notify(key, reason, extractSpanContext(headers));
      waiters.settle();
    },
    synced,
    dropped: (reason, source) => metrics.droppedObjects(reason, source),
    received: (source, outcome) => metrics.objectMessage(source, outcome),
  };
}

function newOwnership(config: ActorConfig, deps: ServiceDeps, profile: LeaseProfile, shards: ShardLifecycle, metrics: ActorMetrics): ShardOwnership {
  const { topology } = deps;
  return new ShardOwnership({
    connection: deps.nats.connection,
    members: topology.members,
    shards: topology.shards,
    name: config.name,
    profile,
    logger: deps.logger.child({ component: "ownership" }),
    listener: shards,
    onHandoff: (event) => metrics.handoffGap(event.kind, event.gapMs),
    onUndecodable: (bucket, reason) => deps.metrics.droppedMessages.inc({ subject: bucket === "members" ? "$KV.members.m.{member}" : "$KV.shards.{shard}", reason }),
    onDeath: (event) => metrics.deathsDeclared.inc({ reason: event.why }),
  });
}

interface TurnParts {
  readonly store: ObjectStore;
  readonly generationFloors: GenerationFloors;
  readonly foreignControllers: ForeignControllers;
  readonly ownership: ShardOwnership;
  readonly shards: ShardLifecycle;
  readonly intents: IntentAppender;
  readonly waiters: ExpectationWaiters;
  readonly rereads: ObjectRereads;
  readonly lookup: Lookup;
  readonly profile: LeaseProfile;
  readonly metrics: ActorMetrics;
}

function newTurnRunner(config: ActorConfig, deps: ServiceDeps, parts: TurnParts): TurnRunner {
  const { nats, logger } = deps;
  const { ownership, shards, rereads, waiters } = parts;
  // Claim commands are not awaited by the turn (it waits for the claims in the cache); a missing ack is logged.
  const commands = new StreamPublisher(nats.connection, { timeoutMs: COMMAND_ACK_TIMEOUT_MS, inboxPrefix: nats.inboxPrefix });
  const executor = new Executor({
    kube: deps.kube,
    nats: nats.connection,
    commands,
    member: config.name,
    lookup: parts.lookup,
    waitFor: (expectations, timeoutMs, signal) => waiters.waitFor(expectations, timeoutMs, signal),
    claimWaitTimeoutMs: config.claimWaitTimeoutMs,
    logger,
    // The stream may hold no newer version of a copy a write found stale: quiet changes are not published (ADR 0090).
    staleCopy: (ref) => rereads.refresh(ref, "stale-copy"),
  });
  return createTurnRunner({
    store: parts.store,
    generationFloors: parts.generationFloors,
    foreignControllers: parts.foreignControllers,
    ownership: {
      epochOf: (shard) => ownership.epochOf(shard),
      canAct: (shard, epoch) => ownership.canAct(shard, epoch),
      signalFor: (shard) => shards.signalFor(shard),
      isSynced: (shard) => shards.isSynced(shard),
      fenced: (shard, epoch) => ownership.giveUp(shard, epoch),
    },
    intents: parts.intents,
    executor,
    nats: nats.connection,
    member: config.name,
    get incarnation() {
      return ownership.incarnation;
    },
    planOptions: {},
    statusTimeoutMs: config.statusTimeoutMs,
    retryPeriodMs: parts.profile.retryPeriodMs,
    logger,
    metrics: parts.metrics,
  });
}

/** The actor's checks under the service's /readyz check (the shell checks NATS itself). */
function actorReadiness(ownership: ShardOwnership, shards: ShardLifecycle, foreignControllers: ForeignControllers): ReadonlyMap<string, ReadinessCheck> {
  return new Map<string, ReadinessCheck>([
    ["lease", () => ownership.leaseFresh() || "lease not fresh"],
    ["shards", () => shards.syncedShards().size === ownership.ownedShards().size || `${shards.syncedShards().size} shards synced`],
    // Not ready while another controller acts on a set this member owns: the operator must switch it off (ADR 0092).
    ["foreign-controller", () => leftAloneDetail(foreignControllers.stopped())],
  ]);
}
