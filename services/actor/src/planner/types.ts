// The planner's contract: what it reads (plain Kubernetes JSON as the API server returns it), the options it is
// given, and the plan it returns. See README.md in this folder and docs/adr/0010-planner-contract.md.

import type { LabelSelector } from "#protocol";

/** A JSON value as produced by JSON.parse: the planner treats fields it does not interpret as opaque data. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

// --- Kubernetes objects (only the fields the planner reads or writes; all optional because input is untrusted) --

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean | null;
  blockOwnerDeletion?: boolean | null;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC3339, e.g. `2026-11-29T19:48:29Z`. */
  creationTimestamp?: string | null;
  /** RFC3339; set when the object is being deleted. */
  deletionTimestamp?: string | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[] | null;
  finalizers?: string[] | null;
}

export interface Volume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean } | null;
  [field: string]: unknown;
}

/** Pod spec: the planner interprets volumes, hostname and subdomain and copies everything else verbatim. */
export interface PodSpec {
  volumes?: Volume[] | null;
  hostname?: string;
  subdomain?: string;
  [field: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta & { [field: string]: unknown };
  spec?: PodSpec;
}

export interface PodCondition {
  type?: string;
  /** `True`, `False` or `Unknown`. */
  status?: string;
  /** RFC3339. */
  lastTransitionTime?: string | null;
  [field: string]: unknown;
}

export interface PodStatus {
  /** `Pending`, `Running`, `Succeeded`, `Failed`, `Unknown`; empty or absent means "not created yet". */
  phase?: string;
  conditions?: PodCondition[] | null;
  [field: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
}

export interface PersistentVolumeClaim {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: unknown;
  status?: unknown;
}

export interface ControllerRevision {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /** The revision's `data` as the API server serves it: the parsed JSON of `data.raw`. */
  data?: unknown;
  revision?: number;
}

export interface RollingUpdateStatefulSetStrategy {
  partition?: number | null;
  /** A positive integer or a percentage string such as `"25%"`. */
  maxUnavailable?: number | string | null;
}

export interface StatefulSetUpdateStrategy {
  /** `RollingUpdate`, `OnDelete`, or (gate StatefulSetRecreateStrategy) `Recreate`. */
  type?: string;
  rollingUpdate?: RollingUpdateStatefulSetStrategy | null;
}

export interface StatefulSetSpec {
  replicas?: number | null;
  selector?: LabelSelector | null;
  template?: PodTemplateSpec | null;
  volumeClaimTemplates?: PersistentVolumeClaim[] | null;
  serviceName?: string | null;
  /** `OrderedReady` (default) or `Parallel`. */
  podManagementPolicy?: string | null;
  updateStrategy?: StatefulSetUpdateStrategy | null;
  revisionHistoryLimit?: number | null;
  minReadySeconds?: number | null;
  /** Each field `Retain` (default) or `Delete`. */
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string | null; whenScaled?: string | null } | null;
  ordinals?: { start?: number | null } | null;
}

export interface StatefulSetCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The status the planner computes; every counter is present, matching protocol's StatefulSetStatus. */
export interface StatefulSetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  conditions?: StatefulSetCondition[];
}

export interface StatefulSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: StatefulSetSpec;
  status?: Partial<StatefulSetStatus> | null;
}

// --- Input --------------------------------------------------------------------------------------------------

/**
 * What the actor knows about one StatefulSet, as plain API JSON (timestamps are RFC3339 strings).
 * - `pods`: candidate pods of the set's namespace, owned by the set or orphans (pods controlled by someone else
 *   may be included; they are ignored). The planner claims, adopts and releases like ControllerRefManager.
 * - `claims`: the PersistentVolumeClaims of the namespace that the set's claim templates may name.
 * - `revisions`: ControllerRevisions of the namespace. Those matching the selector and owned by the set (or
 *   orphans) are its history; the others only matter when a new revision's name collides with them.
 */
export interface Snapshot {
  set: StatefulSet;
  pods: readonly Pod[];
  claims: readonly PersistentVolumeClaim[];
  revisions: readonly ControllerRevision[];
}

/** Feature gates and knobs, passed in (never read globally). Defaults are Kubernetes v1.37's. */
export interface PlanOptions {
  /** Gate MaxUnavailableStatefulSet (beta, on in 1.37): `rollingUpdate.maxUnavailable` and its update path. */
  maxUnavailableStatefulSet: boolean;
  /** Gate StatefulSetSemanticRevisionComparison (beta, on): reuse the newest revision when it differs only by serialization. */
  semanticRevisionComparison: boolean;
  /** Gate StatefulSetRecreateStrategy (alpha, off): `updateStrategy.type: Recreate`. */
  recreateStrategy: boolean;
  /** Upstream `MaxBatchSize`: the cap of a slow-start batch in Parallel mode. */
  maxBatchSize: number;
}

export const DEFAULT_PLAN_OPTIONS: Readonly<PlanOptions> = Object.freeze({
  maxUnavailableStatefulSet: true,
  semanticRevisionComparison: true,
  recreateStrategy: false,
  maxBatchSize: 500,
});

// --- Output -------------------------------------------------------------------------------------------------

export type EventType = "Normal" | "Warning";

/** An Event about the StatefulSet (upstream records every controller event on the set). */
export interface EventSpec {
  type: EventType;
  /** Upstream reason string, e.g. `SuccessfulCreate`. */
  reason: string;
  message: string;
  /** events.k8s.io `action`: what the controller did (`Create`, `Update`, `Delete`, `Reconcile`). */
  action: string;
}

/** An Event to record if the action fails; the executor appends the error text to `messagePrefix`. */
export interface FailureEventSpec {
  type: "Warning";
  reason: string;
  messagePrefix: string;
  action: string;
  /** Error kinds for which upstream records no event (AlreadyExists on creates). */
  suppressOn?: readonly ApiErrorKind[];
}

export type ApiErrorKind = "AlreadyExists" | "NotFound" | "Conflict" | "Invalid" | "Other";

/** Outcome-dependent Events: recorded by the executor after performing the action. */
export interface ActionEvents {
  onSuccess: readonly EventSpec[];
  onFailure: readonly FailureEventSpec[];
}

/** Why a pod is deleted; for logs, metrics and the test invariants. */
export type DeleteReason = "failed" | "succeeded" | "condemned" | "update" | "recreate";

export interface ObjectPreconditions {
  uid: string;
  resourceVersion: string;
}

/**
 * Create a ControllerRevision. `bodyJson` is the exact request body: its `data` member is `raw` byte for byte
 * (Go's encoding), which the API server stores verbatim. Executors must send `bodyJson`, never re-serialize
 * `object`, or the stored bytes (and every later hash comparison) would differ.
 * On AlreadyExists the executor GETs the existing object: identical `data` is success; otherwise the step fails
 * and the existing object must appear in the next snapshot's `revisions` so that the planner bumps collisionCount.
 */
export interface CreateRevisionAction {
  type: "createRevision";
  name: string;
  revision: number;
  raw: string;
  object: ControllerRevision;
  bodyJson: string;
}

/** Rollback: raise an existing revision's `.revision` to the next number (JSON merge patch, optimistic lock). */
export interface UpdateRevisionAction {
  type: "updateRevision";
  name: string;
  preconditions: ObjectPreconditions;
  fromRevision: number;
  revision: number;
  /** JSON merge patch including `metadata.resourceVersion`, so a concurrent change yields 409 Conflict. */
  patch: JsonObject;
}

/** History truncation. */
export interface DeleteRevisionAction {
  type: "deleteRevision";
  name: string;
  revision: number;
  preconditions: ObjectPreconditions;
}

/**
 * Upstream `canAdoptFunc`: an uncached GET of the StatefulSet; fails if it is gone, has another UID or is being
 * deleted. Always alone in the step before any adoption, so a failure stops every adoption.
 */
export interface VerifySetForAdoptionAction {
  type: "verifySetForAdoption";
  name: string;
  uid: string;
}

/** Give an orphan revision a controller reference to the set (strategic merge patch guarded by the revision's UID). */
export interface AdoptRevisionAction {
  type: "adoptRevision";
  name: string;
  uid: string;
  /** The controller reference the patch adds. */
  ownerReference: OwnerReference;
  patch: JsonObject;
}

/** Adopt an orphan pod (strategic merge patch guarded by the pod's UID). NotFound counts as success. */
export interface AdoptPodAction {
  type: "adoptPod";
  name: string;
  uid: string;
  /** The controller reference the patch adds. */
  ownerReference: OwnerReference;
  patch: JsonObject;
}

/** Remove the set's controller reference from a pod it owns but no longer selects. NotFound counts as success. */
export interface ReleasePodAction {
  type: "releasePod";
  name: string;
  uid: string;
  /** The set's UID: the owner reference the patch removes. */
  ownerUid: string;
  patch: JsonObject;
}

/** Create one claim for a pod (claims are created in a step before their pod). */
export interface CreateClaimAction {
  type: "createClaim";
  name: string;
  podName: string;
  ordinal: number;
  object: PersistentVolumeClaim;
  events: ActionEvents;
}

/** Rewrite a claim's owner references for the retention policy (full-object update with optimistic lock). */
export interface UpdateClaimOwnerRefsAction {
  type: "updateClaimOwnerRefs";
  name: string;
  podName: string;
  preconditions: ObjectPreconditions;
  ownerReferences: OwnerReference[];
  /** The claim with the new owner references, for a PUT. */
  object: PersistentVolumeClaim;
  events: ActionEvents;
}

export interface CreatePodAction {
  type: "createPod";
  name: string;
  ordinal: number;
  /** The revision the pod is created at (its `controller-revision-hash` label). */
  revisionName: string;
  object: Pod;
  events: ActionEvents;
}

export type PodRepair = "identity" | "storage" | "claims";

/** Identity/storage repair: a full-object PUT of the pod (optimistic lock through resourceVersion). */
export interface UpdatePodAction {
  type: "updatePod";
  name: string;
  ordinal: number;
  preconditions: ObjectPreconditions;
  repairs: PodRepair[];
  object: Pod;
  events: ActionEvents;
}

export interface DeletePodAction {
  type: "deletePod";
  name: string;
  ordinal: number;
  reason: DeleteReason;
  /** DeleteOptions.preconditions. */
  preconditions: ObjectPreconditions;
  /** Upstream ignores NotFound for rolling-update deletions only. */
  ignoreNotFound: boolean;
  events: ActionEvents;
}

/** An Event decided by the planner itself (bad input, ConflictingController, FailedCreate without an API call). */
export interface RecordEventAction {
  type: "recordEvent";
  event: EventSpec;
}

export type PlanAction =
  | CreateRevisionAction
  | UpdateRevisionAction
  | DeleteRevisionAction
  | VerifySetForAdoptionAction
  | AdoptRevisionAction
  | AdoptPodAction
  | ReleasePodAction
  | CreateClaimAction
  | UpdateClaimOwnerRefsAction
  | CreatePodAction
  | UpdatePodAction
  | DeletePodAction
  | RecordEventAction;

export type PlanActionType = PlanAction["type"];

/**
 * Phases in upstream sync order. A failure in `adoption` or `revision` ends the turn (no status write); a failure
 * in `pods` skips the remaining `pods` steps but the status is still written and `history` still runs.
 */
export type StepPhase = "adoption" | "revision" | "pods" | "history";

export interface PlanStep {
  phase: StepPhase;
  /**
   * The planner stopped after this step because its next decision depends on seeing this step's effects (one
   * ordered pod at a time, a rolling-update deletion, a failed pod waiting to vanish). The executor finishes the
   * turn (status, history), waits until its cache reflects the writes and calls plan() again.
   */
  blocking: boolean;
  /** Independent actions: the executor may run them concurrently. */
  actions: PlanAction[];
}

export interface PlanResult {
  steps: PlanStep[];
  status: {
    value: StatefulSetStatus;
    /** Upstream `inconsistentStatus`: write only when the observed generation or a counter/revision changed. */
    write: boolean;
  };
  /** Re-plan after this long even without events (minReadySeconds availability); null when not needed. */
  requeueAfterMs: number | null;
  /**
   * Set when upstream's sync would return an error not caused by an API call (a claim being deleted, an invalid
   * maxUnavailable, an unreadable revision): the executor treats the turn as failed and retries with back-off.
   */
  syncError: string | null;
  /** The revisions this plan works towards. */
  revisions: { current: string; update: string };
}
