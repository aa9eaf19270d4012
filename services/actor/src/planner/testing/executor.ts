// Executes a plan against FakeCluster with the executor contract of README.md: steps in order; on a failure in
// `adoption`/`revision` the turn ends; on a failure in `pods` the remaining pod steps are skipped but the status is
// written and `history` still runs. Events are recorded as the contract says (onSuccess/onFailure/recordEvent).

import { assertNever } from "#protocol";
import type {
  ActionEvents,
  ControllerRevision,
  EventSpec,
  OwnerReference,
  PersistentVolumeClaim,
  PlanAction,
  PlanResult,
  PlanStep,
  Pod,
  StatefulSet,
} from "../types.ts";
import { executionOrder, outcomeEvents } from "../execution.ts";
import { ApiError } from "./cluster.ts";
import type { FakeCluster } from "./cluster.ts";

export interface RecordedEvent extends EventSpec {
  atMs: number;
}

export interface StepReport {
  step: PlanStep;
  index: number;
  failures: { action: PlanAction; error: ApiError }[];
}

export interface ExecutionReport {
  steps: StepReport[];
  /** The first failing step, if any. */
  failed: StepReport | undefined;
  statusWritten: boolean;
  statusError: ApiError | undefined;
  /** A blocking step ran: the next plan should wait for the cache (here: the store is always current). */
  blocked: boolean;
}

export interface ExecuteHooks {
  /** Called before every executed step. */
  beforeStep?: (step: PlanStep, index: number) => void;
  /** Called after every executed step (invariant checks). */
  afterStep?: (report: StepReport) => void;
  /** Events are appended here. */
  events?: RecordedEvent[];
}

function apiErrorOf(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError("Other", error instanceof Error ? error.message : String(error));
}

function recordEvents(hooks: ExecuteHooks, cluster: FakeCluster, events: ActionEvents | undefined, error: ApiError | undefined): void {
  if (!events || !hooks.events) return;
  const failure = error ? { kind: error.kind, text: error.message } : undefined;
  for (const event of outcomeEvents(events, failure)) hooks.events.push({ ...event, atMs: cluster.nowMs });
}

function addControllerRef(refs: OwnerReference[] | null | undefined, owner: OwnerReference): OwnerReference[] {
  const list = refs ?? [];
  if (list.some((ref) => ref.controller === true)) throw new ApiError("Invalid", "object already has a controller reference");
  return [...list, owner];
}

type RevisionAction = Extract<PlanAction, { type: "createRevision" | "updateRevision" | "deleteRevision" }>;
type OwnershipAction = Extract<PlanAction, { type: "verifySetForAdoption" | "adoptRevision" | "adoptPod" | "releasePod" }>;

/** Patches an object, treating NotFound as done (the object went away: nothing left to adopt or release). */
function patchIfPresent(cluster: FakeCluster, kind: "Pod" | "ControllerRevision", ns: string, name: string, uid: string, mutate: (o: Pod) => void): void {
  try {
    cluster.patch<Pod>(kind, ns, name, mutate, { uid });
  } catch (error) {
    const apiError = apiErrorOf(error);
    if (apiError.kind !== "NotFound") throw apiError;
  }
}

function performRevisionAction(cluster: FakeCluster, ns: string, action: RevisionAction): void {
  switch (action.type) {
    case "createRevision":
      try {
        cluster.create("ControllerRevision", action.object, { rawData: action.raw });
      } catch (error) {
        const apiError = apiErrorOf(error);
        if (apiError.kind !== "AlreadyExists") throw apiError;
        // Contract: identical data is success, anything else a collision the next plan must see.
        if (cluster.revisionDataRaw(ns, action.name) !== action.raw) throw apiError;
      }
      return;
    case "updateRevision":
      cluster.patch<ControllerRevision>("ControllerRevision", ns, action.name, (r) => {
        r.revision = action.revision;
      }, action.preconditions);
      return;
    case "deleteRevision":
      cluster.delete("ControllerRevision", ns, action.name, action.preconditions);
      return;
    default:
      assertNever(action, "revision action");
  }
}

function performOwnershipAction(cluster: FakeCluster, ns: string, action: OwnershipAction): void {
  switch (action.type) {
    case "verifySetForAdoption": {
      const fresh = cluster.get<StatefulSet>("StatefulSet", ns, action.name);
      if (!fresh) throw new ApiError("NotFound", `original StatefulSet ${ns}/${action.name} is gone`);
      if (fresh.metadata?.uid !== action.uid) throw new ApiError("Conflict", `original StatefulSet ${ns}/${action.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${action.uid}`);
      if (fresh.metadata.deletionTimestamp) throw new ApiError("Conflict", `${ns}/${action.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
      return;
    }
    case "adoptRevision":
    case "adoptPod": {
      const owner = action.ownerReference;
      patchIfPresent(cluster, action.type === "adoptPod" ? "Pod" : "ControllerRevision", ns, action.name, action.uid, (o) => {
        (o.metadata ??= {}).ownerReferences = addControllerRef(o.metadata.ownerReferences, owner);
      });
      return;
    }
    case "releasePod": {
      const setUid = action.ownerUid;
      patchIfPresent(cluster, "Pod", ns, action.name, action.uid, (o) => {
        (o.metadata ??= {}).ownerReferences = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== setUid);
      });
      return;
    }
    default:
      assertNever(action, "ownership action");
  }
}

/** Performs one action; throws ApiError on failure (after which the caller records failure events). */
function perform(cluster: FakeCluster, set: { namespace: string; name: string }, action: PlanAction, hooks: ExecuteHooks): void {
  const ns = set.namespace;
  switch (action.type) {
    case "createRevision":
    case "updateRevision":
    case "deleteRevision":
      performRevisionAction(cluster, ns, action);
      return;
    case "verifySetForAdoption":
    case "adoptRevision":
    case "adoptPod":
    case "releasePod":
      performOwnershipAction(cluster, ns, action);
      return;
    case "createClaim":
      cluster.create<PersistentVolumeClaim>("PersistentVolumeClaim", action.object);
      return;
    case "updateClaimOwnerRefs":
      cluster.update<PersistentVolumeClaim>("PersistentVolumeClaim", action.object);
      return;
    case "createPod":
      cluster.create<Pod>("Pod", action.object);
      return;
    case "updatePod":
      cluster.update<Pod>("Pod", action.object);
      return;
    case "deletePod":
      try {
        cluster.delete("Pod", ns, action.name, action.preconditions);
      } catch (error) {
        const apiError = apiErrorOf(error);
        if (!(action.ignoreNotFound && apiError.kind === "NotFound")) throw apiError;
        recordEvents(hooks, cluster, action.events, apiError);
        throw new IgnoredError();
      }
      return;
    case "recordEvent":
      hooks.events?.push({ ...action.event, atMs: cluster.nowMs });
      return;
    default:
      assertNever(action, "plan action");
  }
}

/** A failure the action tolerates (NotFound on an update deletion): its events are recorded, the step goes on. */
class IgnoredError extends Error {
  override readonly name = "IgnoredError";
}

function eventsOf(action: PlanAction): ActionEvents | undefined {
  return "events" in action ? action.events : undefined;
}

/** Runs one step's actions; the report lists the ones that failed. */
function runStep(cluster: FakeCluster, set: { namespace: string; name: string }, step: PlanStep, index: number, hooks: ExecuteHooks): StepReport {
  hooks.beforeStep?.(step, index);
  const report: StepReport = { step, index, failures: [] };
  for (const action of step.actions) {
    try {
      perform(cluster, set, action, hooks);
      recordEvents(hooks, cluster, eventsOf(action), undefined);
    } catch (error) {
      if (error instanceof IgnoredError) continue;
      const apiError = apiErrorOf(error);
      report.failures.push({ action, error: apiError });
      recordEvents(hooks, cluster, eventsOf(action), apiError);
    }
  }
  hooks.afterStep?.(report);
  return report;
}

/** Carries out a plan in the contract's order (executionOrder, shared with the actor's turn). */
export function executePlan(
  cluster: FakeCluster,
  set: { namespace: string; name: string },
  result: PlanResult,
  hooks: ExecuteHooks = {},
): ExecutionReport {
  const report: ExecutionReport = { steps: [], failed: undefined, statusWritten: false, statusError: undefined, blocked: false };
  const order = executionOrder(result);
  for (let move = order.next(); !move.done; ) {
    if (move.value.type === "status") {
      try {
        cluster.updateStatus(set.namespace, set.name, result.status.value);
        report.statusWritten = true;
      } catch (error) {
        report.statusError = apiErrorOf(error);
      }
      move = order.next();
      continue;
    }
    const { step, index } = move.value;
    const stepReport = runStep(cluster, set, step, index, hooks);
    report.steps.push(stepReport);
    if (step.blocking) report.blocked = true;
    if (stepReport.failures.length > 0) report.failed ??= stepReport;
    move = order.next(stepReport.failures.length === 0);
  }
  return report;
}
