// The planner's public surface (named exports only). See README.md.
export { plan, maxUnavailableOf } from "./plan.ts";
export { goJsonMarshal, GoJsonError } from "./gojson.ts";
export { revisionRaw, templateOfRevision, revisionMatchesTemplate } from "./revisions.ts";
export { allActions, describeAction, describePlan } from "./describe.ts";
export { DEFAULT_PLAN_OPTIONS } from "./types.ts";
export { readStatus } from "./spec.ts";
export { executionOrder, outcomeEvents } from "./execution.ts";
export type { ActionFailure, ExecutionMove } from "./execution.ts";
export type {
  ActionEvents,
  AdoptPodAction,
  AdoptRevisionAction,
  ApiErrorKind,
  ControllerRevision,
  CreateClaimAction,
  CreatePodAction,
  CreateRevisionAction,
  DeletePodAction,
  DeleteReason,
  DeleteRevisionAction,
  EventSpec,
  EventType,
  FailureEventSpec,
  JsonObject,
  JsonValue,
  ObjectMeta,
  ObjectPreconditions,
  OwnerReference,
  PersistentVolumeClaim,
  PlanAction,
  PlanActionType,
  PlanOptions,
  PlanResult,
  PlanStep,
  Pod,
  PodRepair,
  RecordEventAction,
  ReleasePodAction,
  Snapshot,
  StatefulSet,
  StatefulSetStatus,
  StepPhase,
  UpdateClaimOwnerRefsAction,
  UpdatePodAction,
  UpdateRevisionAction,
  VerifySetForAdoptionAction,
} from "./types.ts";
