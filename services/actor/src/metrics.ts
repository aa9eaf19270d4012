// Actor metrics. Reconcile series keep controller-runtime's names and labels (controller="statefulset"), queue
// series keep client-go workqueue's names (name="statefulset"), so existing dashboards and alerts carry over.
// One function per area; createActorMetrics puts them together, registerActorGauges adds the gauges read at scrape
// time once the objects they read exist.
import { Counter, Gauge, Histogram } from "prom-client";
import type { Registry } from "prom-client";
import { liveObjectSubjects, objectSubjects } from "#protocol";
import type { CommonMetrics } from "../../common/src/metrics.ts";
import type { ActorSystemMetrics, TurnOutcome } from "./runtime/actor-system.ts";
import type { ShardLifecycleMetrics } from "./runtime/shard-lifecycle.ts";
import type { TurnMetrics } from "./runtime/turn.ts";
import { natsFailureKind } from "../../common/src/errors/nats.ts";

const CONTROLLER = "statefulset";

/** What the cache and the fleet report beyond turns. */
export interface CacheMetrics {
  readonly droppedObjects: (reason: string, source: "stream" | "live") => void;
  /** How a re-read request for an unreadable object subject ended (ADR 0088). */
  readonly objectReread: (result: string) => void;
  /** An object message taken from the stream or its live copy, applied or skipped as stale (ADR 0084). */
  readonly objectMessage: (source: "stream" | "live", outcome: "applied" | "stale") => void;
}

export interface FleetMetrics extends ShardLifecycleMetrics {
  readonly deathsDeclared: Counter<"reason">;
  /** A shard claimed here: how long it had no acting owner (from the release or death mark to the claim). */
  readonly handoffGap: (kind: "graceful" | "failover" | "initial", gapMs: number | undefined) => void;
  /** A replica of the quorum intent log failed an append (the others may still have made a majority). */
  readonly intentReplicaError: (stream: string, error: unknown) => void;
}

export interface ActorMetrics extends ActorSystemMetrics, TurnMetrics, CacheMetrics, FleetMetrics {}

/** Read at scrape time, so the gauges can never drift from the state they describe. */
export interface ActorGaugeSources {
  ownedShards(): number;
  syncedShards(): number;
  cachedSets(): number;
  /** Object subjects of owned shards whose last message could not be read and is not repaired yet. */
  unreadableObjects(): number;
  /** Owned sets left alone because another controller writes their status (ADR 0092). */
  setsLeftAlone(): number;
}

const resultOf = (outcome: TurnOutcome["type"]): string => (outcome === "done" ? "success" : outcome === "failed" ? "error" : outcome);

/** controller-runtime's reconcile series and client-go's workqueue series, fed by the actor system. */
function actorSystemMetrics(registers: Registry[], maxConcurrentTurns: number): ActorSystemMetrics {
  const reconcileTotal = new Counter({ name: "controller_runtime_reconcile_total", help: "Total number of reconciliations per controller", labelNames: ["controller", "result"], registers });
  const reconcileErrors = new Counter({ name: "controller_runtime_reconcile_errors_total", help: "Total number of reconciliation errors per controller", labelNames: ["controller"], registers });
  const reconcileTime = new Histogram({
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60],
    registers,
  });
  new Gauge({ name: "controller_runtime_max_concurrent_reconciles", help: "Maximum number of concurrent reconciles per controller", labelNames: ["controller"], registers }).set({ controller: CONTROLLER }, maxConcurrentTurns);
  const activeWorkers = new Gauge({ name: "controller_runtime_active_workers", help: "Number of currently used workers per controller", labelNames: ["controller"], registers });
  const depth = new Gauge({ name: "workqueue_depth", help: "Current depth of workqueue (actors with a pending turn, waiting for a slot)", labelNames: ["name"], registers });
  const actors = new Gauge({ name: "stsfleet_actors", help: "Actors currently alive (not passivated)", registers });
  const queueDuration = new Histogram({
    name: "workqueue_queue_duration_seconds",
    help: "How long in seconds a set waits from its first coalesced event to the start of its turn",
    labelNames: ["name"],
    buckets: [0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const expirations = new Counter({
    name: "stsfleet_actor_expectations_expired_total",
    help: "Read-your-writes expectations abandoned because the cache did not show the actor's own write in time",
    registers,
  });
  return {
    turnStarted(queueSeconds) {
      queueDuration.observe({ name: CONTROLLER }, queueSeconds);
    },
    turnFinished(outcome, seconds) {
      reconcileTotal.inc({ controller: CONTROLLER, result: resultOf(outcome) });
      if (outcome === "failed") reconcileErrors.inc({ controller: CONTROLLER });
      reconcileTime.observe({ controller: CONTROLLER }, seconds);
    },
    expectationsExpired(count) {
      expirations.inc(count);
    },
    depth(queued, running, actorCount) {
      depth.set({ name: CONTROLLER }, queued);
      activeWorkers.set({ controller: CONTROLLER }, running);
      actors.set(actorCount);
    },
  };
}

/** What a turn does: plans, status writes, sets it does not plan for. */
function turnMetrics(registers: Registry[]): Required<TurnMetrics> {
  const planDuration = new Histogram({
    name: "stsfleet_plan_duration_seconds",
    help: "Time spent in the pure planner per turn",
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05],
    registers,
  });
  const plannedActions = new Counter({ name: "stsfleet_planned_actions_total", help: "Actions planned, by type", labelNames: ["type"], registers });
  const statusWrites = new Counter({ name: "stsfleet_status_writes_total", help: "Status writes requested from the status-writer, by outcome", labelNames: ["outcome"], registers });
  const foreignControllerEvents = new Counter({
    name: "stsfleet_foreign_controller_events_total",
    help: "Sets found to be acted on by another controller (event=detected) and sets acted on again after the quiet period (event=resumed), by the rule that stopped them (known-controller, rewrote-after-overwrite, condition)",
    labelNames: ["event", "rule"],
    registers,
  });
  const incompleteTurns = new Counter({
    name: "stsfleet_turns_incomplete_total",
    help: "Turns that did not plan because an object subject of the set's shard and namespace could not be read (ADR 0088)",
    registers,
  });
  return {
    planned(result, seconds) {
      planDuration.observe(seconds);
      for (const step of result.steps) for (const action of step.actions) plannedActions.inc({ type: action.type });
    },
    statusWrite(outcome) {
      statusWrites.inc({ outcome });
    },
    incomplete() {
      incompleteTurns.inc();
    },
    foreignController(event, rule) {
      foreignControllerEvents.inc({ event, rule });
    },
  };
}

/** Shards moving between members, peers declared dead, the intent log's replicas. */
function fleetMetrics(registers: Registry[]): FleetMetrics {
  const handoffDuration = new Histogram({
    name: "stsfleet_shard_handoff_duration_seconds",
    help: "Time a shard had no acting owner before this member claimed it: graceful (from release) or failover (from the previous owner's last write of the record)",
    labelNames: ["kind"],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30],
    registers,
  });
  const handoffs = new Counter({ name: "stsfleet_shard_handoffs_total", help: "Shard ownership changes on this member, by direction (gained, lost)", labelNames: ["direction"], registers });
  const intentReplicaErrors = new Counter({
    name: "stsfleet_intent_replica_errors_total",
    help: "Appends a replica of the quorum intent log failed, by stream and reason (timeout, unavailable: no responders or no server, error); a majority of the others may still have taken them (ADR 0084)",
    labelNames: ["stream", "reason"],
    registers,
  });
  return {
    shardsMoved(direction, count) {
      handoffs.inc({ direction }, count);
    },
    deathsDeclared: new Counter({
      name: "stsfleet_member_deaths_declared_total",
      help: "Peers this member declared dead, by reason (no-responders: its connection vanished; lease-expired: it stopped renewing)",
      labelNames: ["reason"],
      registers,
    }),
    handoffGap(kind, gapMs) {
      if (gapMs !== undefined && kind !== "initial") handoffDuration.observe({ kind }, gapMs / 1000);
    },
    intentReplicaError(stream, error) {
      intentReplicaErrors.inc({ stream, reason: natsFailureKind(error) });
    },
  };
}

/** Object messages into the cache: applied, stale, dropped, and re-read requests for unreadable subjects. */
function cacheMetrics(common: CommonMetrics, registers: Registry[]): CacheMetrics {
  const rereads = new Counter({
    name: "stsfleet_object_rereads_total",
    help: "Requests to the watcher to publish an unreadable object subject again, by result (republishing, valid, absent: the watcher's answer; timeout, no-responders, error: asked again later)",
    labelNames: ["result"],
    registers,
  });
  const objectMessages = new Counter({
    name: "stsfleet_object_messages_total",
    help: "Object messages received per path (stream: K8S_OBJS, live: its core NATS copy) and outcome (applied, stale: the same or a newer copy of the subject was applied first)",
    labelNames: ["source", "outcome"],
    registers,
  });
  return {
    objectReread(result) {
      rereads.inc({ result });
    },
    objectMessage(source, outcome) {
      objectMessages.inc({ source, outcome });
    },
    droppedObjects(reason, source) {
      common.droppedMessages.inc({ subject: source === "live" ? liveObjectSubjects.template : objectSubjects.template, reason });
    },
  };
}

export function createActorMetrics(common: CommonMetrics, maxConcurrentTurns: number): ActorMetrics {
  const registers = [common.registry];
  return {
    ...actorSystemMetrics(registers, maxConcurrentTurns),
    ...turnMetrics(registers),
    ...fleetMetrics(registers),
    ...cacheMetrics(common, registers),
  };
}

/** The gauges read at scrape time, registered once the objects they read exist. */
export function registerActorGauges(common: CommonMetrics, sources: ActorGaugeSources): void {
  const registers = [common.registry];
  // Objects with `name:` literals, so the dashboard test's scan of metrics.ts files finds them.
  const gauges: { name: string; help: string; read: () => number }[] = [
    { name: "stsfleet_shards_owned", help: "Shards this member owns", read: () => sources.ownedShards() },
    { name: "stsfleet_shards_synced", help: "Owned shards whose cache is rebuilt and which this member acts on", read: () => sources.syncedShards() },
    { name: "stsfleet_sets_cached", help: "StatefulSets in this member's cache", read: () => sources.cachedSets() },
    {
      name: "stsfleet_unreadable_objects",
      help: "Object subjects of owned shards whose last K8S_OBJS message could not be read and that the watcher has not published again yet (ADR 0088)",
      read: () => sources.unreadableObjects(),
    },
    {
      name: "stsfleet_foreign_controller_sets",
      help: "Owned StatefulSets this member leaves alone because another controller writes their status (ADR 0092)",
      read: () => sources.setsLeftAlone(),
    },
  ];
  for (const { name, help, read } of gauges) {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  }
}
