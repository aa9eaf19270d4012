// The StatefulSet reconcile of Kubernetes v1.37 (stateful_set.go sync + stateful_set_control.go UpdateStatefulSet)
// as a pure function: snapshot in, ordered steps of actions plus the status out. Comments cite the upstream
// function each part mirrors; deliberate differences are listed in docs/adr/0012-planner-upstream-quirks.md.

import { LABEL_VALUE_MAX } from "#protocol";
import {
  aggregateMessage,
  claimRefAction,
  createClaimAction,
  createPodAction,
  deletePodAction,
  podFailureNow,
  recordEvent,
  updatePodAction,
} from "./actions.ts";
import {
  ClaimBook,
  claimsMatchRetentionPolicy,
  missingClaims,
  planClaimRetention,
  podClaimIsStale,
  podInOrdinalRange,
} from "./claims.ts";
import type { PodIdentity } from "./claims.ts";
import {
  applyIdentity,
  identityMatches,
  isAvailable,
  isRunningAndReady,
  isUnavailable,
  placeholderView,
  storageMatches,
  storageVolumes,
  viewPod,
} from "./pods.ts";
import type { PodView } from "./pods.ts";
import { adoptRevisions, claimPods } from "./refs.ts";
import { decideRevisions, ownedHistory, revisionsToTruncate, viewRevision } from "./revisions.ts";
import type { RevisionView } from "./revisions.ts";
import { readSet, readStatus } from "./spec.ts";
import type { SetView, StatusView } from "./spec.ts";
import { StepList, newUnit, slowStartBatches } from "./steps.ts";
import type { Unit } from "./steps.ts";
import { DEFAULT_PLAN_OPTIONS } from "./types.ts";
import type {
  DeleteRevisionAction,
  EventSpec,
  PlanAction,
  PlanOptions,
  PlanResult,
  PodRepair,
  PodTemplateSpec,
  Snapshot,
  StatefulSet,
  StatefulSetCondition,
  StatefulSetStatus,
} from "./types.ts";
import { deepCopy, errorMessage, isRecord, obj } from "./util.ts";

/**
 * Plans one reconcile turn for a StatefulSet. Never throws: bad input yields a Warning Event and nothing else.
 * @param nowMs the single clock reading used for every availability decision of this turn.
 */
export function plan(snapshot: Snapshot, nowMs: number, options: Partial<PlanOptions> = {}): PlanResult {
  const resolved: PlanOptions = { ...DEFAULT_PLAN_OPTIONS, ...options };
  try {
    return planTurn(snapshot, nowMs, resolved);
  } catch (error) {
    const set = isRecord(snapshot) && isRecord(snapshot.set) ? snapshot.set : {};
    const message = `planner failed: ${errorMessage(error)}`;
    return warningOnly(set, { type: "Warning", reason: "PlanFailed", message, action: "Reconcile" }, message);
  }
}

function previousStatus(set: StatefulSet): StatefulSetStatus {
  const { conditions: _conditions, ...status } = readStatus(set);
  return status;
}

/** Bad input: one Warning Event, no writes, the status left as it is. */
function warningOnly(set: StatefulSet, event: EventSpec, syncError: string | null): PlanResult {
  const status = previousStatus(set);
  return {
    steps: [{ phase: "pods", blocking: false, actions: [recordEvent(event)] }],
    status: { value: status, write: false },
    requeueAfterMs: null,
    syncError,
    revisions: { current: status.currentRevision, update: status.updateRevision },
  };
}

function arrayOf<T>(value: readonly T[] | undefined): readonly T[] {
  return Array.isArray(value) ? (value as readonly T[]) : [];
}

function planTurn(snapshot: Snapshot, nowMs: number, options: PlanOptions): PlanResult {
  const set = isRecord(snapshot.set) ? snapshot.set : {};
  const read = readSet(set, options);
  if (!read.ok) {
    // Upstream treats a bad selector as a non-transient error: no retry.
    return warningOnly(set, { ...read.problem, type: "Warning", action: "Reconcile" }, null);
  }
  const view = read.view;

  const namespaceRevisions = new Map<string, RevisionView>();
  for (const object of arrayOf(snapshot.revisions)) {
    if (!obj(object) || obj(object.metadata)?.namespace !== view.namespace) continue;
    const revision = viewRevision(object);
    if (revision) namespaceRevisions.set(revision.name, revision);
  }
  const history = ownedHistory(view, [...namespaceRevisions.values()]);
  const revisionAdoptions = adoptRevisions(view, history);
  const candidates: PodView[] = [];
  for (const pod of arrayOf(snapshot.pods)) if (obj(pod)) candidates.push(viewPod(pod, view.minReadySeconds > 0));
  const podClaims = claimPods(view, candidates);
  const decision = decideRevisions(view, history, namespaceRevisions, options.semanticRevisionComparison);

  if (decision.update.name.length > LABEL_VALUE_MAX) {
    return warningOnly(
      set,
      {
        type: "Warning",
        reason: "InvalidName",
        message: `revision name ${decision.update.name} is longer than ${LABEL_VALUE_MAX} characters and cannot label pods; shorten the StatefulSet name`,
        action: "Reconcile",
      },
      null,
    );
  }

  const steps = new StepList();
  if (revisionAdoptions.length > 0 || podClaims.adopt.length > 0) {
    steps.add("adoption", [{ type: "verifySetForAdoption", name: view.name, uid: view.uid }]);
  }
  steps.add("adoption", revisionAdoptions);
  steps.add("adoption", [...podClaims.release, ...podClaims.adopt]);
  if (decision.action) steps.add("revision", [decision.action]);

  const pods = podClaims.claimed;
  const turn = new PodTurn(view, options, nowMs, new ClaimBook(arrayOf(snapshot.claims), view.namespace), steps, {
    currentName: decision.current.name,
    updateName: decision.update.name,
    currentTemplate: decision.current.template,
    updateTemplate: decision.update.template,
    collisionCount: decision.collisionCount,
  });
  const outcome = turn.run(pods);

  let status: StatefulSetStatus;
  let write = false;
  if (outcome.status) {
    status = outcome.status;
    completeUpdate(view, status);
    write = inconsistentStatus(view.status, status);
  } else {
    status = previousStatus(set);
  }

  const live = new Set<string>([decision.current.name, decision.update.name]);
  for (const pod of pods) live.add(pod.revision);
  steps.add("history", revisionsToTruncate(decision.history, live, view.historyLimit).map(deleteRevisionAction));

  return {
    steps: steps.steps,
    status: { value: status, write },
    requeueAfterMs: outcome.status ? requeueAfterMs(view, status, pods, nowMs) : null,
    syncError: outcome.errors.length > 0 ? aggregateMessage(outcome.errors) : null,
    revisions: { current: decision.current.name, update: decision.update.name },
  };
}

function deleteRevisionAction(revision: RevisionView): DeleteRevisionAction {
  return {
    type: "deleteRevision",
    name: revision.name,
    revision: revision.revision,
    preconditions: { uid: revision.uid, resourceVersion: revision.resourceVersion },
  };
}

/** Upstream `completeUpdate` (1.37, any strategy): everything updated and ready ⇒ the update revision is current. */
function completeUpdate(view: SetView, status: StatefulSetStatus): void {
  if (
    status.updatedReplicas === view.replicas &&
    status.readyReplicas === view.replicas &&
    status.replicas === view.replicas
  ) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

/** Upstream `inconsistentStatus`: collisionCount and conditions alone never cause a write. */
function inconsistentStatus(old: StatusView, status: StatefulSetStatus): boolean {
  return (
    status.observedGeneration > old.observedGeneration ||
    status.replicas !== old.replicas ||
    status.currentReplicas !== old.currentReplicas ||
    status.readyReplicas !== old.readyReplicas ||
    status.updatedReplicas !== old.updatedReplicas ||
    status.currentRevision !== old.currentRevision ||
    status.availableReplicas !== old.availableReplicas ||
    status.updateRevision !== old.updateRevision
  );
}

/**
 * Upstream requeues after minReadySeconds while availableReplicas != spec.replicas, and its pod event handler
 * also requeues minReadySeconds after a pod turns Ready. Both are folded in here, so the actor needs no timer of
 * its own: the earliest moment a Ready pod becomes available, capped at minReadySeconds.
 */
function requeueAfterMs(view: SetView, status: StatefulSetStatus, pods: readonly PodView[], nowMs: number): number | null {
  if (view.minReadySeconds <= 0) return null;
  const upperMs = view.minReadySeconds * 1000;
  let delayMs: number | null = status.availableReplicas !== view.replicas ? upperMs : null;
  for (const pod of pods) {
    if (!pod.podReady || pod.terminating || isAvailable(pod, view.minReadySeconds, nowMs)) continue;
    // Available once strictly after readySince + minReadySeconds; an unknown transition time waits the full span.
    const waitMs = pod.readySinceMs === null ? upperMs : Math.min(upperMs, Math.max(1, pod.readySinceMs + upperMs + 1 - nowMs));
    if (delayMs === null || waitMs < delayMs) delayMs = waitMs;
  }
  return delayMs;
}

interface Revisions {
  currentName: string;
  updateName: string;
  /** Null when the current revision's data cannot be read (upstream ApplyRevision fails). */
  currentTemplate: PodTemplateSpec | null;
  updateTemplate: PodTemplateSpec;
  collisionCount: number;
}

interface StepResult {
  /** Monotonic mode stops the loop here (upstream `shouldExit`). */
  exit: boolean;
  error?: string;
}

const CONTINUE: StepResult = { exit: false };
const EXIT: StepResult = { exit: true };

/** One pass of upstream `updateStatefulSet` over the claimed pods. */
class PodTurn {
  readonly errors: string[] = [];
  private readonly view: SetView;
  private readonly options: PlanOptions;
  private readonly nowMs: number;
  private readonly book: ClaimBook;
  private readonly steps: StepList;
  private readonly revisions: Revisions;
  private status!: StatefulSetStatus;
  private replicas: PodView[] = [];
  private condemned: PodView[] = [];
  /** Work was deferred until this turn's writes are observed: the last pods step is blocking. */
  private deferred = false;

  constructor(view: SetView, options: PlanOptions, nowMs: number, book: ClaimBook, steps: StepList, revisions: Revisions) {
    this.view = view;
    this.options = options;
    this.nowMs = nowMs;
    this.book = book;
    this.steps = steps;
    this.revisions = revisions;
  }

  run(pods: readonly PodView[]): { status: StatefulSetStatus | null; errors: string[] } {
    if (this.revisions.currentTemplate === null) {
      this.errors.push(`ControllerRevision ${this.revisions.currentName} has no readable spec.template`);
      return { status: null, errors: this.errors };
    }
    const view = this.view;
    const status: StatefulSetStatus = {
      observedGeneration: view.generation,
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      availableReplicas: 0,
      currentRevision: this.revisions.currentName,
      updateRevision: this.revisions.updateName,
      collisionCount: this.revisions.collisionCount,
    };
    this.status = status;
    this.count(pods);
    this.partition(pods, this.revisions.currentTemplate);
    this.updatePods();
    if (this.deferred) this.steps.blockAfterLast("pods");
    return { status: this.status, errors: this.errors };
  }

  /** Upstream `updateStatus`: counters from scratch over the given pods (placeholders count nowhere). */
  private count(pods: readonly PodView[]): void {
    const s = this.status;
    s.replicas = s.readyReplicas = s.availableReplicas = s.currentReplicas = s.updatedReplicas = 0;
    for (const pod of pods) {
      if (pod.created) s.replicas++;
      if (isRunningAndReady(pod)) {
        s.readyReplicas++;
        if (isAvailable(pod, this.view.minReadySeconds, this.nowMs)) s.availableReplicas++;
      }
      if (pod.created && !pod.terminating) {
        if (pod.revision === this.revisions.currentName) s.currentReplicas++;
        if (pod.revision === this.revisions.updateName) s.updatedReplicas++;
      }
    }
  }

  private recount(): void {
    this.count([...this.replicas, ...this.condemned]);
  }

  /** In-range pods by index (gaps filled with placeholders) and condemned pods by descending ordinal. */
  private partition(pods: readonly PodView[], currentTemplate: PodTemplateSpec): void {
    const view = this.view;
    const slots: (PodView | undefined)[] = new Array<PodView | undefined>(view.replicas);
    for (const pod of pods) {
      if (podInOrdinalRange(view, pod.ordinal)) slots[pod.ordinal - view.start] = pod;
      else if (pod.ordinal >= 0) this.condemned.push(pod);
    }
    const rollingUpdate = view.rollingUpdate;
    for (let index = 0; index < view.replicas; index++) {
      if (slots[index]) continue;
      const ordinal = view.start + index;
      // newVersionedStatefulSetPod, including Go's && / || precedence.
      const atCurrent =
        (view.strategyType === "RollingUpdate" &&
          rollingUpdate === null &&
          ordinal < view.start + view.status.currentReplicas) ||
        (rollingUpdate !== null && ordinal < view.start + rollingUpdate.partition);
      slots[index] = atCurrent
        ? placeholderView(view, currentTemplate, ordinal, this.revisions.currentName)
        : placeholderView(view, this.revisions.updateTemplate, ordinal, this.revisions.updateName);
    }
    this.replicas = slots as PodView[];
    this.condemned.sort((a, b) => b.ordinal - a.ordinal);
  }

  private unavailable(pod: PodView): boolean {
    return isUnavailable(pod, this.view.minReadySeconds, this.nowMs);
  }

  private available(pod: PodView): boolean {
    return isAvailable(pod, this.view.minReadySeconds, this.nowMs);
  }

  private updatePods(): void {
    const view = this.view;
    // firstUnavailablePod: the lowest unavailable replica, else the lowest unavailable condemned pod.
    let firstUnavailable = this.replicas.find((pod) => this.unavailable(pod));
    if (!firstUnavailable) {
      for (let i = this.condemned.length - 1; i >= 0; i--) {
        const pod = this.condemned[i];
        if (pod && this.unavailable(pod)) {
          firstUnavailable = pod;
          break;
        }
      }
    }
    // A set being deleted gets its status computed and nothing else.
    if (view.deleting) return;

    if (this.options.recreateStrategy && view.strategyType === "Recreate" && this.recreateDeleteAndWait()) {
      this.recount();
      return;
    }
    if (this.runForAll(this.replicas, (pod, unit) => this.processReplica(pod, unit))) return this.recount();
    if (this.runForAll(this.condemned, (pod, unit) => this.fixCondemnedClaims(pod, unit))) return this.recount();
    if (this.runForAll(this.condemned, (pod, unit) => this.processCondemned(pod, unit, firstUnavailable))) {
      return this.recount();
    }
    this.recount();
    if (view.strategyType === "OnDelete") return;
    if (this.options.maxUnavailableStatefulSet) this.rollingUpdate();
    else this.legacyRollingUpdate();
  }

  /**
   * Upstream `runForAll`: monotonic runs in order and stops at the first exit; burst runs slow-start batches and
   * stops only after a batch with an error. Returns whether the caller must stop.
   */
  private runForAll(pods: readonly PodView[], fn: (pod: PodView, unit: Unit) => StepResult): boolean {
    const unit = newUnit();
    if (this.view.monotonic) {
      for (const pod of pods) {
        const result = fn(pod, unit);
        const added = this.steps.flush(unit);
        if (result.error !== undefined) this.errors.push(result.error);
        if (result.exit || result.error !== undefined) {
          if (added > 0) this.deferred = true;
          return true;
        }
      }
      return false;
    }
    let index = 0;
    for (const size of slowStartBatches(pods.length, this.options.maxBatchSize)) {
      // One batch's calls run concurrently upstream: they share the batch's sub-steps.
      let failed = false;
      for (let k = 0; k < size; k++, index++) {
        const pod = pods[index];
        if (!pod) continue;
        const result = fn(pod, unit);
        if (result.error !== undefined) {
          this.errors.push(result.error);
          failed = true;
        }
      }
      this.steps.flush(unit);
      if (failed) return true;
    }
    return false;
  }

  private identity(pod: PodView): PodIdentity {
    return { name: pod.name, uid: pod.uid, ordinal: pod.ordinal };
  }

  /** Claim owner-reference rewrites and ConflictingController warnings for a pod (UpdatePodClaimForRetentionPolicy). */
  private retention(pod: PodView, unit: Unit): boolean {
    const { updates, events } = planClaimRetention(this.view, this.book, this.identity(pod));
    for (const event of events) unit.first.push(recordEvent(event));
    for (const update of updates) unit.claimRefs.push(claimRefAction(this.view, update, pod));
    return updates.length > 0;
  }

  /** Upstream `processReplica`. */
  private processReplica(pod: PodView, unit: Unit): StepResult {
    const view = this.view;
    const monotonic = view.monotonic;
    if (pod.phase === "Failed" || pod.phase === "Succeeded") {
      if (!pod.terminating) {
        unit.podWrites.push(deletePodAction(view, pod, pod.phase === "Failed" ? "failed" : "succeeded", false));
        // The replacement is created once the pod is gone from the cache.
        this.deferred = true;
      }
      return EXIT;
    }
    if (!pod.created) {
      if (podClaimIsStale(view, this.book, this.identity(pod))) return EXIT;
      const error = this.createStatefulPod(pod, unit);
      if (error !== undefined) return { exit: true, error };
      // Burst mode continues with the next slot; the new pod's invariants are checked on a later turn.
      return monotonic ? EXIT : CONTINUE;
    }
    if (pod.phase === "Pending") {
      const missing = missingClaims(view, this.book, pod.ordinal);
      for (const claim of missing.creates) unit.first.push(createClaimAction(view, claim, pod, null));
      if (missing.errors.length > 0) return { exit: true, error: aggregateMessage(missing.errors) };
      this.retention(pod, unit);
    }
    if (monotonic && (pod.terminating || !isRunningAndReady(pod) || !this.available(pod))) return EXIT;

    const claimsMatch = claimsMatchRetentionPolicy(view, this.book, this.identity(pod));
    if (identityMatches(view, pod) && storageMatches(view, pod) && claimsMatch) return CONTINUE;
    const error = this.updateStatefulPod(pod, unit);
    return error === undefined ? CONTINUE : { exit: true, error };
  }

  /** Upstream `CreateStatefulPod`: claims first, then the pod, then claim owner refs for claims that existed. */
  private createStatefulPod(pod: PodView, unit: Unit): string | undefined {
    const view = this.view;
    const missing = missingClaims(view, this.book, pod.ordinal);
    for (const claim of missing.creates) unit.first.push(createClaimAction(view, claim, pod, "create"));
    if (missing.errors.length > 0) {
      const error = aggregateMessage(missing.errors);
      unit.first.push(podFailureNow("create", pod.name, view.name, error));
      return error;
    }
    unit.podWrites.push(createPodAction(view, pod));
    this.retention(pod, unit);
    return undefined;
  }

  /** Upstream `UpdateStatefulPod`: repair identity and storage, fix claim refs, then PUT the pod. */
  private updateStatefulPod(pod: PodView, unit: Unit): string | undefined {
    const view = this.view;
    const object = deepCopy(pod.object);
    const repairs: PodRepair[] = [];
    if (!identityMatches(view, pod)) {
      applyIdentity(view, object, pod.ordinal);
      repairs.push("identity");
    }
    if (!storageMatches(view, pod)) {
      const spec = (object.spec = obj(object.spec) ?? {});
      spec.volumes = storageVolumes(view, pod.ordinal, spec.volumes);
      repairs.push("storage");
      const missing = missingClaims(view, this.book, pod.ordinal);
      for (const claim of missing.creates) unit.first.push(createClaimAction(view, claim, pod, "update"));
      if (missing.errors.length > 0) {
        const error = aggregateMessage(missing.errors);
        unit.first.push(podFailureNow("update", pod.name, view.name, error));
        return error;
      }
    }
    if (!claimsMatchRetentionPolicy(view, this.book, this.identity(pod)) && this.retention(pod, unit)) {
      repairs.push("claims");
    }
    // Upstream issues the pod update even when only claim references changed.
    if (repairs.length > 0) unit.podUpdates.push(updatePodAction(view, pod, object, repairs));
    return undefined;
  }

  /** Upstream `fixPodClaim` for condemned pods: e.g. whenScaled=Delete puts the pod's ref on its claims first. */
  private fixCondemnedClaims(pod: PodView, unit: Unit): StepResult {
    if (!claimsMatchRetentionPolicy(this.view, this.book, this.identity(pod))) this.retention(pod, unit);
    return CONTINUE;
  }

  /** Upstream `processCondemned`. */
  private processCondemned(pod: PodView, unit: Unit, firstUnavailable: PodView | undefined): StepResult {
    const monotonic = this.view.monotonic;
    if (pod.terminating) return monotonic ? EXIT : CONTINUE;
    if (monotonic && pod !== firstUnavailable && (!isRunningAndReady(pod) || !this.available(pod))) return EXIT;
    unit.podWrites.push(deletePodAction(this.view, pod, "condemned", false));
    return EXIT;
  }

  /** Rolling-update deletions count against `status.currentReplicas` (only pods that were counted there). */
  private deleteForUpdate(pods: PodView[], reason: "update" | "recreate"): void {
    const actions: PlanAction[] = [];
    for (const pod of pods) {
      actions.push(deletePodAction(this.view, pod, reason, reason === "update"));
      if (pod.revision === this.status.currentRevision && this.status.currentReplicas > 0) this.status.currentReplicas--;
    }
    if (actions.length > 0) {
      this.steps.add("pods", actions);
      this.deferred = true;
    }
  }

  private needsUpdate(pod: PodView): boolean {
    // A placeholder cannot be deleted; upstream would delete a pod it only just created by name.
    return !pod.placeholder && pod.revision !== this.revisions.updateName && !pod.terminating;
  }

  /** Upstream `updateStatefulSetAfterInvariantEstablished` (gate MaxUnavailableStatefulSet, 1.37 incl. PR #137666). */
  private rollingUpdate(): void {
    const view = this.view;
    const rollingUpdate = view.rollingUpdate;
    const updateMin = rollingUpdate?.partition ?? 0;
    let maxUnavailable = 1;
    if (rollingUpdate) {
      const scaled = maxUnavailableOf(rollingUpdate.maxUnavailable, view.replicas);
      if (typeof scaled === "string") {
        this.errors.push(scaled);
        return;
      }
      maxUnavailable = scaled;
    }
    const parallel = !view.monotonic;
    let unavailable = 0;
    let unavailableNeedingUpdate = 0;
    for (const pod of this.replicas) {
      if (!this.unavailable(pod)) continue;
      unavailable++;
      if (parallel && pod.revision !== this.revisions.updateName && !pod.terminating) unavailableNeedingUpdate++;
    }
    if (unavailable >= maxUnavailable && unavailableNeedingUpdate === 0) return;

    const targets: PodView[] = [];
    if (parallel) {
      // Phase 1: old pods that are already unavailable do not spend the budget.
      for (let i = this.replicas.length - 1; i >= updateMin; i--) {
        const pod = this.replicas[i];
        if (pod && this.needsUpdate(pod) && !this.available(pod)) targets.push(pod);
      }
      // Phase 2: available old pods, within what the budget has left.
      let budget = maxUnavailable - unavailable;
      for (let i = this.replicas.length - 1; i >= updateMin && budget > 0; i--) {
        const pod = this.replicas[i];
        if (pod && this.needsUpdate(pod) && this.available(pod)) {
          targets.push(pod);
          budget--;
        }
      }
    } else {
      const budget = maxUnavailable - unavailable;
      for (let i = this.replicas.length - 1; i >= updateMin && targets.length < budget; i--) {
        const pod = this.replicas[i];
        if (pod && this.needsUpdate(pod)) targets.push(pod);
      }
    }
    this.deleteForUpdate(targets, "update");
  }

  /** The gate-off path (1.35.4–1.36 default): one pod at a time, waiting on any unavailable pod. */
  private legacyRollingUpdate(): void {
    const updateMin = this.view.rollingUpdate?.partition ?? 0;
    for (let i = this.replicas.length - 1; i >= updateMin; i--) {
      const pod = this.replicas[i];
      if (!pod) continue;
      if (this.needsUpdate(pod)) {
        this.deleteForUpdate([pod], "update");
        return;
      }
      if (this.unavailable(pod)) return;
    }
  }

  /**
   * Recreate (gate StatefulSetRecreateStrategy, alpha): delete every pod not at the update revision, wait for them
   * to terminate, then let the normal loop create the new ones. Returns whether this turn stops here.
   */
  private recreateDeleteAndWait(): boolean {
    const all = [...this.replicas, ...this.condemned];
    const old = all.filter((pod) => pod.created && !pod.placeholder && !pod.terminating && pod.revision !== this.revisions.updateName);
    const waiting = all.some((pod) => pod.terminating && pod.revision !== this.revisions.updateName);
    if (old.length === 0 && !waiting) return false;
    this.status.conditions = [progressing("Recreating", "deleting pods of previous revisions before creating new ones")];
    let index = 0;
    for (const size of slowStartBatches(old.length, this.options.maxBatchSize)) {
      this.deleteForUpdate(old.slice(index, index + size), "recreate");
      index += size;
    }
    this.deferred = true;
    return true;
  }
}

function progressing(reason: string, message: string): StatefulSetCondition {
  return { type: "Progressing", status: "True", reason, message };
}

/**
 * Upstream `getStatefulSetMaxUnavailable`: an int, or a percentage of spec.replicas rounded down, at least 1.
 * Returns the error text for values intstr cannot parse.
 */
export function maxUnavailableOf(value: number | string | null, replicas: number): number | string {
  let scaled: number;
  if (value === null) scaled = 1;
  else if (typeof value === "number") scaled = Math.trunc(value);
  else if (value.endsWith("%")) {
    const digits = value.slice(0, -1);
    if (!/^[+-]?\d+$/.test(digits)) return `invalid value for IntOrString: invalid value ${JSON.stringify(value)}`;
    scaled = Math.floor((Number(digits) * replicas) / 100);
  } else {
    return "invalid value for IntOrString: invalid type: string is not a percentage";
  }
  return Math.max(1, scaled);
}
