// One reconcile turn of one StatefulSet: snapshot from the cache, plan(), append the intent (the fence), execute the
// steps in order, write status through the status-writer. Mirrors upstream sync(): adoption and revision failures
// end the turn before status; pod failures still write status and truncate history. Before planning, a set that
// another StatefulSet controller acts on is left alone: only its ForeignController condition is written
// (docs/adr/0092-another-statefulset-controller.md).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Link } from "@opentelemetry/api";
import type { NatsConnection } from "@nats-io/transport-node";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { assertNever, codecs, shard as shardOf, statusSubjects } from "#protocol";
import type { SetAddress, SetRef, StatusResult, StatusWrite } from "#protocol";
import { KubeApiError } from "../../../common/src/kube.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { withProducerSpan } from "../../../common/src/messaging-trace.ts";
import type { Expectation } from "../domain/expectations.ts";
import { FOREIGN_CONTROLLER_DETECTED, FOREIGN_CONTROLLER_GONE, foreignConditionStatus, foreignControllerCondition, foreignControllerGoneMessage, foreignControllerMessage } from "../domain/foreign-controller.ts";
import type { ForeignControllerRule, ForeignControllerVerdict, ForeignControllers } from "../domain/foreign-controller.ts";
import type { GenerationFloors } from "../domain/generation-floors.ts";
import { splitSetKey } from "../domain/object-store.ts";
import type { ObjectStore, SetKey } from "../domain/object-store.ts";
import { describeAction, plan, readStatus } from "../planner/index.ts";
import type { ControllerRevision, PlanOptions, PlanResult } from "../planner/index.ts";
import type { TurnOutcome, TurnRunner, TurnTrigger } from "./actor-system.ts";
import type { Executor, TurnContext } from "./executor.ts";
import { FencedError } from "./intents.ts";
import type { IntentAppender } from "./intents.ts";

export interface TurnOwnership {
  epochOf(shard: number): number | undefined;
  canAct(shard: number, epoch: number): boolean;
  signalFor(shard: number): AbortSignal | undefined;
  isSynced(shard: number): boolean;
  /**
   * The intent log (or the status-writer) refused this epoch: stop acting on the shard at it. A stale turn's epoch
   * (the shard was lost or claimed again since the turn began) leaves the shard held now alone.
   */
  fenced(shard: number, epoch: number): void;
}

export interface TurnMetrics {
  planned?(result: PlanResult, planSeconds: number): void;
  /** A turn did not plan: the set's objects are incomplete (an unreadable subject, ADR 0088). */
  incomplete?(): void;
  statusWrite?(outcome: StatusResult["outcome"] | "error"): void;
  /** A set was found to be acted on by another controller (left alone from now), or is acted on again. */
  foreignController?(event: "detected" | "resumed", rule: ForeignControllerRule): void;
}

export interface TurnDeps {
  readonly store: ObjectStore;
  /** The newest set generation the intent log shows a plan for, per set, until a turn takes it (see runTurn). */
  readonly generationFloors?: Pick<GenerationFloors, "take">;
  /** Judges, before every plan, whether another controller writes the set's status (ADR 0092); absent: never. */
  readonly foreignControllers?: Pick<ForeignControllers, "judge" | "forget" | "options">;
  readonly ownership: TurnOwnership;
  readonly intents: IntentAppender;
  readonly executor: Executor;
  readonly nats: NatsConnection;
  readonly member: string;
  readonly incarnation: string;
  readonly planOptions: Partial<PlanOptions>;
  readonly statusTimeoutMs: number;
  readonly retryPeriodMs: number;
  readonly logger: Logger;
  readonly metrics?: TurnMetrics;
}

export class StatusWriteError extends Error {
  override readonly name = "StatusWriteError";
  readonly outcome: string;

  constructor(outcome: string, message: string | undefined) {
    super(`status write ${outcome}${message ? `: ${message}` : ""}`);
    this.outcome = outcome;
  }
}

export class PlanSyncError extends Error {
  override readonly name = "PlanSyncError";
  constructor(message: string) {
    super(message);
  }
}

const tracer = trace.getTracer("stsfleet-actor");

/**
 * A set whose objects are incomplete is looked at again after this long. Its turn follows at once when the subject
 * becomes readable (the intake notifies the sets it unblocks); this is only the fallback.
 */
export const INCOMPLETE_RECHECK_MS = 5_000;

function retryAfterOf(errors: readonly unknown[]): number | undefined {
  let max: number | undefined;
  for (const error of errors) {
    if (error instanceof KubeApiError && error.retryAfterMs !== undefined) max = Math.max(max ?? 0, error.retryAfterMs);
  }
  return max;
}

export function createTurnRunner(deps: TurnDeps): TurnRunner {
  let turnCounter = 0;
  /** Revisions that collided with our creates and are not in the cache (owned by someone else). */
  const collisions = new Map<SetKey, ControllerRevision[]>();

  return async (key: SetKey, trigger: TurnTrigger): Promise<TurnOutcome> => {
    const { namespace, name } = splitSetKey(key);
    const shard = shardOf(namespace, name);
    const epoch = deps.ownership.epochOf(shard);
    const signal = deps.ownership.signalFor(shard);
    if (epoch === undefined || signal === undefined || !deps.ownership.isSynced(shard)) return { type: "not-owned" };
    if (!deps.ownership.canAct(shard, epoch)) {
      return { type: "failed", error: new Error("lease not fresh"), retryAfterMs: deps.retryPeriodMs, expectations: [] };
    }
    const snapshot = deps.store.snapshot(key);
    if (!snapshot) {
      collisions.delete(key);
      deps.foreignControllers?.forget([key]);
      return { type: "gone" };
    }
    // An object subject of the set's shard and namespace could not be read, and the store holds no value for it:
    // planning now could take an existing pod, claim or revision for missing (create it again, count it out of the
    // status, or bump collisionCount). Wait for the watcher to publish it again (ADR 0088).
    if (deps.store.isIncomplete(key)) {
      deps.metrics?.incomplete?.();
      deps.logger.debug({ namespace, name }, "objects of the set are incomplete (an unreadable subject); not planning");
      return { type: "done", requeueAfterMs: INCOMPLETE_RECHECK_MS, expectations: [] };
    }
    const extra = collisions.get(key);
    if (extra) {
      const known = new Set(snapshot.revisions.map((r) => r.metadata?.name));
      snapshot.revisions = [...snapshot.revisions, ...extra.filter((r) => !known.has(r.metadata?.name))];
    }
    const links: Link[] = trigger.links.map((context) => ({ context }));
    // The turn continues the trace of the newest change that triggered it (a single event is the common case, and
    // the messaging conventions allow a parent then); every coalesced event is also a link.
    const newest = trigger.links.at(-1);
    const parent = newest ? trace.setSpanContext(ROOT_CONTEXT, newest) : ROOT_CONTEXT;
    const turn = ++turnCounter;
    return tracer.startActiveSpan(
      "reconcile StatefulSet",
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: {
          "k8s.namespace.name": namespace,
          "k8s.statefulset.name": name,
          "k8s.statefulset.uid": snapshot.set.metadata?.uid ?? "",
          "messaging.destination.partition.id": String(shard),
          "stsfleet.epoch": epoch,
          "stsfleet.turn.reasons": trigger.reasons.join(","),
        },
      },
      parent,
      async (span) => {
        try {
          const outcome = await runTurn(deps, { key, namespace, name, shard, epoch, signal, turn, snapshot, collisions });
          span.setAttribute("stsfleet.turn.outcome", outcome.type);
          if (outcome.type === "failed") {
            span.setStatus({ code: SpanStatusCode.ERROR, message: String(outcome.error) });
          }
          return outcome;
        } finally {
          span.end();
        }
      },
    );
  };
}

interface TurnInput {
  key: SetKey;
  namespace: string;
  name: string;
  shard: number;
  epoch: number;
  signal: AbortSignal;
  turn: number;
  snapshot: NonNullable<ReturnType<ObjectStore["snapshot"]>>;
  collisions: Map<SetKey, ControllerRevision[]>;
}

async function runTurn(deps: TurnDeps, input: TurnInput): Promise<TurnOutcome> {
  const { namespace, name, shard, epoch, signal, snapshot } = input;
  const uid = snapshot.set.metadata?.uid ?? "";
  const set: SetRef = { namespace, name, uid: uid || "unknown" };
  const address: SetAddress = { shard, namespace, name };
  const ctx: TurnContext = { address, set, epoch, turn: input.turn, signal, mayWrite: () => !signal.aborted && deps.ownership.canAct(shard, epoch) };
  const log = deps.logger.child({ namespace, name, turn: input.turn });

  const foreign = judgeForeignController(deps, input);
  if (foreign?.type === "stop") return leaveAlone(deps, ctx, input, foreign, log);
  if (foreign?.type === "act" && (foreign.resumed !== null || foreign.clearCondition)) {
    const outcome = await actAgain(deps, ctx, input, foreign, log);
    if (outcome) return outcome;
  }

  // A plan in the intent log was made from a newer spec than the cache shows (the stream is behind what an owner
  // already acted on, as after a NATS outage before the watcher has caught up): planning now could roll pods back to
  // the older template. Wait for the cache, at most the expectation timeout, once.
  const floor = deps.generationFloors?.take(input.key);
  const generation = snapshot.set.metadata?.generation ?? 0;
  if (floor !== undefined && floor.uid === snapshot.set.metadata?.uid && generation < floor.generation) {
    deps.logger.info({ namespace, name, cached: generation, planned: floor.generation }, "cache is behind the intent log; waiting for the newer set");
    return {
      type: "done",
      requeueAfterMs: null,
      expectations: [{ type: "generation", kind: "StatefulSet", namespace, name, uid: floor.uid, atLeast: floor.generation }],
    };
  }
  const planStarted = performance.now();
  const result = plan(snapshot, Date.now(), deps.planOptions);
  deps.metrics?.planned?.(result, (performance.now() - planStarted) / 1000);

  const actionCount = result.steps.reduce((n, step) => n + step.actions.length, 0);
  if (actionCount > 0) {
    try {
      await deps.intents.append(address, {
        type: "intent.plan",
        shard,
        epoch,
        member: deps.member,
        incarnation: deps.incarnation,
        set,
        turn: input.turn,
        setGeneration: generation,
        actions: result.steps.flatMap((step) => step.actions.map(describeAction)).slice(0, 1000),
      });
    } catch (error) {
      if (error instanceof FencedError) {
        log.warn({ err: error }, "fenced by a newer owner; stopping work on the shard");
        deps.ownership.fenced(shard, epoch);
        return { type: "not-owned" };
      }
      throw error;
    }
  }

  const expectations: Expectation[] = [];
  const errors: unknown[] = [];
  let podsFailed = false;
  for (const step of result.steps) {
    // Re-checked before every step: a pause (GC, SIGSTOP) may have outlived the lease in the middle of a turn.
    if (signal.aborted || !deps.ownership.canAct(shard, epoch)) return { type: "not-owned" };
    if (step.phase === "pods" && podsFailed) continue;
    const stepResult = await deps.executor.executeStep(step, ctx);
    expectations.push(...stepResult.expectations);
    if (stepResult.collisions.length > 0) input.collisions.set(input.key, stepResult.collisions);
    if (stepResult.ok) continue;
    errors.push(...stepResult.errors);
    log.info({ phase: step.phase, errors: stepResult.errors.map(String).slice(0, 3) }, "step failed");
    if (step.phase === "adoption" || step.phase === "revision") {
      return { type: "failed", error: stepResult.errors[0], retryAfterMs: retryAfterOf(errors), expectations };
    }
    if (step.phase === "pods") podsFailed = true;
  }

  if (result.status.write && (signal.aborted || !deps.ownership.canAct(shard, epoch))) return { type: "not-owned" };
  if (result.status.write) {
    const outcome = await writeStatus(deps, ctx, result);
    deps.metrics?.statusWrite?.(outcome.outcome);
    switch (outcome.outcome) {
      case "written": {
        const before = snapshot.set.metadata?.resourceVersion;
        if (before) expectations.push({ type: "changed", kind: "StatefulSet", namespace, name, fromResourceVersion: before });
        break;
      }
      case "unchanged":
      case "superseded":
      case "stale-generation":
        break;
      case "stale-epoch":
        deps.ownership.fenced(shard, epoch);
        return { type: "not-owned" };
      case "not-found":
        return { type: "gone" };
      case "failed":
        errors.push(new StatusWriteError(outcome.outcome, outcome.message));
        break;
    }
  }

  if (result.syncError !== null) errors.unshift(new PlanSyncError(result.syncError));
  if (errors.length > 0) return { type: "failed", error: errors[0], retryAfterMs: retryAfterOf(errors), expectations };
  if (actionCount > 0) log.debug({ actions: actionCount }, "turn done");
  return { type: "done", requeueAfterMs: result.requeueAfterMs, expectations };
}

function statusMessageOf(result: PlanResult): StatusWrite["status"] {
  const { conditions, ...counters } = result.status.value;
  return conditions ? { ...counters, conditions: conditions.map((condition) => ({ ...condition })) } : counters;
}

function judgeForeignController(deps: TurnDeps, input: TurnInput): ForeignControllerVerdict | undefined {
  if (!deps.foreignControllers) return undefined;
  const cached = deps.store.get("StatefulSet", input.namespace, input.name);
  return deps.foreignControllers.judge(input.key, {
    uid: input.snapshot.set.metadata?.uid ?? "",
    entries: cached?.statusManagers ?? [],
    condition: foreignConditionStatus(input.snapshot.set.status),
    nowMs: Date.now(),
  });
}

/**
 * Writes the ForeignController condition, and only it (ADR 0092): the counters stay whatever the other controller
 * wrote, so this write gives it no reason to write again. Returns the outcome that ends the turn, if one does (a
 * failed write is retried with back-off before anything else is done), and the expectation of a written condition.
 */
async function writeCondition(
  deps: TurnDeps,
  ctx: TurnContext,
  input: TurnInput,
  verdict: ForeignControllerVerdict,
  log: Logger,
): Promise<{ readonly end?: TurnOutcome; readonly expectations: Expectation[] }> {
  const options = deps.foreignControllers?.options;
  if (!options) return { expectations: [] };
  const { conditions: _stored, ...counters } = readStatus(input.snapshot.set);
  const condition = foreignControllerCondition(verdict, options, Date.now());
  const outcome = await requestStatus(deps, ctx, { ...counters, conditions: [{ ...condition }] }, "conditions");
  deps.metrics?.statusWrite?.(outcome.outcome);
  switch (outcome.outcome) {
    case "written": {
      const before = input.snapshot.set.metadata?.resourceVersion;
      return { expectations: before ? [{ type: "changed", kind: "StatefulSet", namespace: input.namespace, name: input.name, fromResourceVersion: before }] : [] };
    }
    case "stale-epoch":
      deps.ownership.fenced(ctx.address.shard, ctx.epoch);
      return { end: { type: "not-owned" }, expectations: [] };
    case "not-found":
      return { end: { type: "gone" }, expectations: [] };
    case "unchanged":
    case "superseded":
    case "stale-generation":
      return { expectations: [] };
    case "failed":
      // The turn is retried with back-off, as after a failed status write: it writes nothing else meanwhile.
      log.info({ message: outcome.message }, "could not write the ForeignController condition");
      return { end: { type: "failed", error: new StatusWriteError(outcome.outcome, outcome.message), expectations: [] }, expectations: [] };
    default:
      return assertNever(outcome.outcome, "status outcome");
  }
}

/** Another controller acts on the set: no plan, no pod, claim, revision or counter write; say why, wait. */
async function leaveAlone(
  deps: TurnDeps,
  ctx: TurnContext,
  input: TurnInput,
  verdict: Extract<ForeignControllerVerdict, { type: "stop" }>,
  log: Logger,
): Promise<TurnOutcome> {
  const options = deps.foreignControllers?.options;
  if (verdict.detected && options) {
    const message = foreignControllerMessage(verdict.stop, options);
    log.warn({ manager: verdict.stop.manager, rule: verdict.stop.rule }, "another controller writes the set's status; leaving the set alone");
    deps.metrics?.foreignController?.("detected", verdict.stop.rule);
    deps.executor.recordEvent({ type: "Warning", reason: FOREIGN_CONTROLLER_DETECTED, message, action: "Reconcile" }, ctx);
  }
  const written = verdict.writeCondition ? await writeCondition(deps, ctx, input, verdict, log) : { expectations: [] };
  if (written.end) return written.end;
  return { type: "done", requeueAfterMs: Math.max(0, verdict.resumeAtMs - Date.now()), expectations: written.expectations };
}

/** The set is acted on again (or its condition still says otherwise): set the condition False before planning. */
async function actAgain(
  deps: TurnDeps,
  ctx: TurnContext,
  input: TurnInput,
  verdict: Extract<ForeignControllerVerdict, { type: "act" }>,
  log: Logger,
): Promise<TurnOutcome | undefined> {
  const options = deps.foreignControllers?.options;
  if (verdict.resumed !== null && options) {
    log.info({ manager: verdict.resumed.manager, rule: verdict.resumed.rule }, "no foreign status write for the quiet period; acting on the set again");
    deps.metrics?.foreignController?.("resumed", verdict.resumed.rule);
    deps.executor.recordEvent({ type: "Normal", reason: FOREIGN_CONTROLLER_GONE, message: foreignControllerGoneMessage(verdict.resumed, options), action: "Reconcile" }, ctx);
  }
  return (await writeCondition(deps, ctx, input, verdict, log)).end;
}

async function writeStatus(deps: TurnDeps, ctx: TurnContext, result: PlanResult): Promise<StatusResult> {
  return requestStatus(deps, ctx, statusMessageOf(result), "status");
}

async function requestStatus(deps: TurnDeps, ctx: TurnContext, status: StatusWrite["status"], scope: NonNullable<StatusWrite["scope"]>): Promise<StatusResult> {
  const headers = natsHeaders();
  try {
    const subject = statusSubjects.build(ctx.address);
    const bytes = codecs.statusWrite.encode({
      type: "status.write",
      shard: ctx.address.shard,
      epoch: ctx.epoch,
      set: ctx.set,
      status,
      ...(scope === "conditions" ? { scope } : {}),
    });
    const target = { template: statusSubjects.template, subject, shard: ctx.address.shard, bodySize: bytes.length };
    const reply = await withProducerSpan(tracer, target, headers, () =>
      deps.nats.request(subject, bytes, { timeout: deps.statusTimeoutMs, headers }),
    );
    return codecs.statusResult.decode(reply.data);
  } catch (error) {
    return { type: "status.result", outcome: "failed", message: error instanceof Error ? error.message : String(error) };
  }
}
