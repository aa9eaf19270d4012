// One reconcile turn of one StatefulSet: snapshot from the cache, plan(), append the intent (the fence), execute the
// steps in order, write status through the status-writer. Mirrors upstream sync(): adoption and revision failures
// end the turn before status; pod failures still write status and truncate history. Before planning, a set that
// another StatefulSet controller acts on is left alone: only its ForeignController condition is written
// (docs/adr/0092-another-statefulset-controller.md, turn-foreign.ts). The status write itself is turn-status.ts.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Link } from "@opentelemetry/api";
import type { NatsConnection } from "@nats-io/transport-node";
import { shard as shardOf } from "#protocol";
import type { SetAddress, SetRef, StatusResult } from "#protocol";
import { KubeApiError } from "../../../common/src/kube.ts";
import type { Logger } from "../../../common/src/logger.ts";
import type { Expectation } from "../domain/expectations.ts";
import type { ForeignControllerRule, ForeignControllers } from "../domain/foreign-controller.ts";
import type { GenerationFloors } from "../domain/generation-floors.ts";
import { splitSetKey } from "../domain/object-store.ts";
import type { ObjectStore, SetKey } from "../domain/object-store.ts";
import { describeAction, executionOrder, plan } from "../planner/index.ts";
import type { ControllerRevision, PlanOptions, PlanResult } from "../planner/index.ts";
import type { TurnOutcome, TurnRunner, TurnTrigger } from "./actor-system.ts";
import type { Executor, TurnContext } from "./executor.ts";
import { FencedError } from "./intents.ts";
import type { IntentAppender } from "./intents.ts";
import { actAgain, judgeForeignController, leaveAlone } from "./turn-foreign.ts";
import { statusMessageOf, writeStatus } from "./turn-status.ts";
import type { StatusStep } from "./turn-status.ts";

export { StatusWriteError } from "./turn-status.ts";

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

/** One turn's set, shard and epoch, fixed when the turn starts. */
export interface TurnInput {
  readonly key: SetKey;
  readonly namespace: string;
  readonly name: string;
  readonly shard: number;
  readonly epoch: number;
  readonly signal: AbortSignal;
  readonly turn: number;
  readonly snapshot: NonNullable<ReturnType<ObjectStore["snapshot"]>>;
  readonly collisions: Map<SetKey, ControllerRevision[]>;
}

/** What the steps of a plan left: read-your-writes expectations, errors, or the outcome that ended the turn. */
interface StepsDone {
  readonly end?: TurnOutcome;
  readonly expectations: Expectation[];
  readonly errors: unknown[];
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
  const behind = cacheBehindIntentLog(deps, input);
  if (behind) return behind;

  const planStarted = performance.now();
  const result = plan(snapshot, Date.now(), deps.planOptions);
  deps.metrics?.planned?.(result, (performance.now() - planStarted) / 1000);
  const actionCount = result.steps.reduce((n, step) => n + step.actions.length, 0);
  if (actionCount > 0 && !(await appendPlan(deps, ctx, input, result, log))) return { type: "not-owned" };

  const { end, expectations, errors } = await executeSteps(deps, ctx, input, result, log);
  if (end) return end;

  if (result.syncError !== null) errors.unshift(new PlanSyncError(result.syncError));
  if (errors.length > 0) return { type: "failed", error: errors[0], retryAfterMs: retryAfterOf(errors), expectations };
  if (actionCount > 0) log.debug({ actions: actionCount }, "turn done");
  return { type: "done", requeueAfterMs: result.requeueAfterMs, expectations };
}

/**
 * A plan in the intent log was made from a newer spec than the cache shows (the stream is behind what an owner
 * already acted on, as after a NATS outage before the watcher has caught up): planning now could roll pods back to
 * the older template. Wait for the cache, at most the expectation timeout, once.
 */
function cacheBehindIntentLog(deps: TurnDeps, input: TurnInput): TurnOutcome | undefined {
  const { namespace, name, snapshot } = input;
  const floor = deps.generationFloors?.take(input.key);
  const generation = snapshot.set.metadata?.generation ?? 0;
  if (floor === undefined || floor.uid !== snapshot.set.metadata?.uid || generation >= floor.generation) return undefined;
  deps.logger.info({ namespace, name, cached: generation, planned: floor.generation }, "cache is behind the intent log; waiting for the newer set");
  return {
    type: "done",
    requeueAfterMs: null,
    expectations: [{ type: "generation", kind: "StatefulSet", namespace, name, uid: floor.uid, atLeast: floor.generation }],
  };
}

/** Appends the plan to the intent log (the fence); false when a newer owner fenced this one off the shard. */
async function appendPlan(deps: TurnDeps, ctx: TurnContext, input: TurnInput, result: PlanResult, log: Logger): Promise<boolean> {
  const { shard, epoch } = input;
  try {
    await deps.intents.append(ctx.address, {
      type: "intent.plan",
      shard,
      epoch,
      member: deps.member,
      incarnation: deps.incarnation,
      set: ctx.set,
      turn: input.turn,
      setGeneration: input.snapshot.set.metadata?.generation ?? 0,
      actions: result.steps.flatMap((step) => step.actions.map(describeAction)).slice(0, 1000),
    });
    return true;
  } catch (error) {
    if (!(error instanceof FencedError)) throw error;
    log.warn({ err: error }, "fenced by a newer owner; stopping work on the shard");
    deps.ownership.fenced(shard, epoch);
    return false;
  }
}

/** Writes the planned status (the contract's `status` move). */
async function writePlannedStatus(deps: TurnDeps, ctx: TurnContext, input: TurnInput, result: PlanResult): Promise<StatusStep> {
  const target = { namespace: input.namespace, name: input.name, resourceVersion: input.snapshot.set.metadata?.resourceVersion };
  return writeStatus(deps, ctx, target, statusMessageOf(result), "status");
}

/**
 * Carries out the plan in the executor contract's order (executionOrder, the one the planner's reference executor
 * and its invariant harness run): a failed adoption or revision step ends the turn; after a failed pod step the
 * remaining pod steps are skipped; the status is written after the pods and before the history is truncated.
 */
async function executeSteps(deps: TurnDeps, ctx: TurnContext, input: TurnInput, result: PlanResult, log: Logger): Promise<StepsDone> {
  const { shard, epoch, signal } = input;
  const expectations: Expectation[] = [];
  const errors: unknown[] = [];
  const order = executionOrder(result);
  for (let move = order.next(); !move.done; ) {
    // Re-checked before every write: a pause (GC, SIGSTOP) may have outlived the lease in the middle of a turn.
    if (signal.aborted || !deps.ownership.canAct(shard, epoch)) return { end: { type: "not-owned" }, expectations, errors };
    if (move.value.type === "status") {
      const step = await writePlannedStatus(deps, ctx, input, result);
      if (step.type === "end") return { end: step.outcome, expectations, errors };
      if (step.type === "failed") errors.push(step.error);
      else expectations.push(...step.expectations);
      move = order.next();
      continue;
    }
    const { step } = move.value;
    const stepResult = await deps.executor.executeStep(step, ctx);
    expectations.push(...stepResult.expectations);
    if (stepResult.collisions.length > 0) input.collisions.set(input.key, stepResult.collisions);
    if (!stepResult.ok) {
      errors.push(...stepResult.errors);
      log.info({ phase: step.phase, errors: stepResult.errors.map(String).slice(0, 3) }, "step failed");
      if (step.phase === "adoption" || step.phase === "revision") {
        return { end: { type: "failed", error: stepResult.errors[0], retryAfterMs: retryAfterOf(errors), expectations }, expectations, errors };
      }
    }
    move = order.next(stepResult.ok);
  }
  return { expectations, errors };
}
