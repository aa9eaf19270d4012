// Executes a plan against FakeCluster with the executor contract of README.md: steps in order; on a failure in
// `adoption`/`revision` the turn ends; on a failure in `pods` the remaining pod steps are skipped but the status is
// written and `history` still runs. Events are recorded as the contract says (onSuccess/onFailure/recordEvent).

import { assertNever } from "#protocol";
import type {
  ActionEvents,
  AdoptPodAction,
  AdoptRevisionAction,
  ControllerRevision,
  EventSpec,
  OwnerReference,
  PersistentVolumeClaim,
  PlanAction,
  PlanResult,
  PlanStep,
  Pod,
  ReleasePodAction,
  StatefulSet,
} from "../types.ts";
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
  if (!error) {
    for (const event of events.onSuccess) hooks.events.push({ ...event, atMs: cluster.nowMs });
    return;
  }
  for (const event of events.onFailure) {
    if (event.suppressOn?.includes(error.kind)) continue;
    hooks.events.push({ type: event.type, reason: event.reason, message: event.messagePrefix + error.message, action: event.action, atMs: cluster.nowMs });
  }
}

function addControllerRef(refs: OwnerReference[] | null | undefined, owner: OwnerReference): OwnerReference[] {
  const list = refs ?? [];
  if (list.some((ref) => ref.controller === true)) throw new ApiError("Invalid", "object already has a controller reference");
  return [...list, owner];
}

/** Adds the set as controller (adopt) or removes it (release); a pod or revision gone meanwhile is no failure. */
function patchOwners(cluster: FakeCluster, ns: string, action: AdoptRevisionAction | AdoptPodAction | ReleasePodAction): void {
  const kind = action.type === "adoptPod" || action.type === "releasePod" ? "Pod" : "ControllerRevision";
  try {
    cluster.patch<Pod>(kind, ns, action.name, (o) => {
      const meta = (o.metadata ??= {});
      meta.ownerReferences =
        action.type === "releasePod"
          ? (meta.ownerReferences ?? []).filter((r) => r.uid !== action.ownerUid)
          : addControllerRef(meta.ownerReferences, action.ownerReference);
    }, { uid: action.uid });
  } catch (error) {
    const apiError = apiErrorOf(error);
    if (apiError.kind !== "NotFound") throw apiError;
  }
}

/** Performs one action; throws ApiError on failure (after which the caller records failure events). */
function perform(cluster: FakeCluster, set: { namespace: string; name: string }, action: PlanAction, hooks: ExecuteHooks): void {
  const ns = set.namespace;
  switch (action.type) {
    case "createRevision": {
      try {
        cluster.create("ControllerRevision", action.object, { rawData: action.raw });
      } catch (error) {
        const apiError = apiErrorOf(error);
        if (apiError.kind !== "AlreadyExists") throw apiError;
        // Contract: identical data is success, anything else a collision the next plan must see.
        const existing = cluster.revisionDataRaw(ns, action.name);
        if (existing !== action.raw) throw apiError;
      }
      return;
    }
    case "updateRevision":
      cluster.patch<ControllerRevision>("ControllerRevision", ns, action.name, (r) => {
        r.revision = action.revision;
      }, action.preconditions);
      return;
    case "deleteRevision":
      cluster.delete("ControllerRevision", ns, action.name, action.preconditions);
      return;
    case "verifySetForAdoption": {
      const fresh = cluster.get<StatefulSet>("StatefulSet", ns, action.name);
      if (!fresh) throw new ApiError("NotFound", `original StatefulSet ${ns}/${action.name} is gone`);
      if (fresh.metadata?.uid !== action.uid) throw new ApiError("Conflict", `original StatefulSet ${ns}/${action.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${action.uid}`);
      if (fresh.metadata.deletionTimestamp) throw new ApiError("Conflict", `${ns}/${action.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
      return;
    }
    case "adoptRevision":
    case "adoptPod":
    case "releasePod":
      patchOwners(cluster, ns, action);
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

export function executePlan(
  cluster: FakeCluster,
  set: { namespace: string; name: string },
  result: PlanResult,
  hooks: ExecuteHooks = {},
): ExecutionReport {
  const reports: StepReport[] = [];
  let failed: StepReport | undefined;
  let abortTurn = false;
  let blocked = false;
  let statusDone = false;
  let statusWritten = false;
  let statusError: ApiError | undefined;
  // Upstream writes the status after the pod work and before truncating history.
  const writeStatus = (): void => {
    statusDone = true;
    if (!result.status.write) return;
    try {
      cluster.updateStatus(set.namespace, set.name, result.status.value);
      statusWritten = true;
    } catch (error) {
      statusError = apiErrorOf(error);
    }
  };
  for (const [index, step] of result.steps.entries()) {
    if (abortTurn) break;
    if (step.phase === "history" && !statusDone) writeStatus();
    if (failed && step.phase === "pods") continue;
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
    reports.push(report);
    if (step.blocking) blocked = true;
    hooks.afterStep?.(report);
    if (report.failures.length > 0 && !failed) {
      failed = report;
      if (step.phase === "adoption" || step.phase === "revision") abortTurn = true;
    }
  }
  if (!abortTurn && !statusDone) writeStatus();
  return { steps: reports, failed, statusWritten, statusError, blocked };
}
