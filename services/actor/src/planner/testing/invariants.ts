// Invariants checked after every executed step (upstream stateful_set_control_test.go assertMonotonicInvariants,
// assertUpdateInvariants, and the PVC retention guarantees). Each returns human-readable violations.

import { LABELS, parseParentAndOrdinal } from "#protocol";
import type { DeletePodAction, PlanResult, Pod, StatefulSet } from "../types.ts";
import type { Deletion, FakeCluster } from "./cluster.ts";
import type { StepReport } from "./executor.ts";

export interface InvariantContext {
  readonly cluster: FakeCluster;
  readonly namespace: string;
  readonly name: string;
  readonly plan: PlanResult;
  readonly step: StepReport;
  /** The set's pods just before the step ran. */
  readonly podsBefore: readonly Pod[];
  /** The set as it was when the turn was planned. */
  readonly set: StatefulSet;
  /** Claim deletions that happened since the previous check. */
  readonly claimDeletions: readonly Deletion[];
}

export type Invariant = (context: InvariantContext) => string[];

export function podsOfSet(pods: readonly Pod[], setName: string): Pod[] {
  return pods.filter((pod) => parseParentAndOrdinal(pod.metadata?.name ?? "").parent === setName);
}

export function ordinalOf(pod: Pod): number {
  return parseParentAndOrdinal(pod.metadata?.name ?? "").ordinal;
}

export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" && pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

function range(set: StatefulSet): { start: number; end: number } {
  const start = set.spec?.ordinals?.start ?? 0;
  return { start, end: start + (set.spec?.replicas ?? 1) - 1 };
}

function succeeded(step: StepReport): ReturnType<StepReport["step"]["actions"]["filter"]> {
  return step.step.actions.filter((action) => !step.failures.some((f) => f.action === action));
}

/** No two pods of the set share an ordinal. */
export const uniqueOrdinals: Invariant = ({ cluster, namespace, name }) => {
  const seen = new Map<number, string>();
  const violations: string[] = [];
  for (const pod of podsOfSet(cluster.list<Pod>("Pod", namespace), name)) {
    const ordinal = ordinalOf(pod);
    const other = seen.get(ordinal);
    if (other !== undefined) violations.push(`pods ${other} and ${pod.metadata?.name} share ordinal ${ordinal}`);
    seen.set(ordinal, pod.metadata?.name ?? "");
  }
  return violations;
};

/** OrderedReady never creates a pod before every lower in-range ordinal is Running and Ready. */
export const orderedCreation: Invariant = ({ set, step, podsBefore }) => {
  if (set.spec?.podManagementPolicy === "Parallel") return [];
  const { start } = range(set);
  const byOrdinal = new Map(podsBefore.map((pod) => [ordinalOf(pod), pod]));
  const violations: string[] = [];
  for (const action of succeeded(step)) {
    if (action.type !== "createPod") continue;
    for (let ordinal = start; ordinal < action.ordinal; ordinal++) {
      const pod = byOrdinal.get(ordinal);
      if (!pod || !isRunningAndReady(pod) || pod.metadata?.deletionTimestamp) {
        violations.push(`created ${action.name} while ordinal ${ordinal} is ${pod ? "not Running and Ready" : "missing"}`);
      }
    }
  }
  return violations;
};

/** Upstream assertMonotonicInvariants: a successor is never Ready while its predecessor is not. */
export const monotonicReadiness: Invariant = ({ cluster, namespace, name, set }) => {
  if (set.spec?.podManagementPolicy === "Parallel") return [];
  const pods = podsOfSet(cluster.list<Pod>("Pod", namespace), name).sort((a, b) => ordinalOf(a) - ordinalOf(b));
  const violations: string[] = [];
  for (let i = 1; i < pods.length; i++) {
    const pod = pods[i];
    const previous = pods[i - 1];
    if (pod && previous && isRunningAndReady(pod) && !isRunningAndReady(previous)) {
      violations.push(`successor ${pod.metadata?.name} is Running and Ready while ${previous.metadata?.name} is not`);
    }
  }
  return violations;
};

/**
 * Rolling updates go from the highest ordinal down to the partition: an update deletion never targets a pod below
 * the partition, and never skips a higher old-revision pod that it could have taken (OrderedReady: any; Parallel:
 * any available one, since broken old pods are replaced first by design).
 */
export const updateOrder: Invariant = ({ set, step, podsBefore, plan }) => {
  const deletions = succeeded(step).filter((a): a is DeletePodAction => a.type === "deletePod" && a.reason === "update");
  if (deletions.length === 0) return [];
  const { start, end } = range(set);
  const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  const parallel = set.spec?.podManagementPolicy === "Parallel";
  const deleted = new Set(deletions.map((d) => d.name));
  const violations: string[] = [];
  for (const deletion of deletions) {
    if (deletion.ordinal - start < partition) violations.push(`updated ${deletion.name} below partition ${partition}`);
    const target = podsBefore.find((p) => p.metadata?.name === deletion.name);
    if (parallel && target && !isRunningAndReady(target)) continue;
    for (const pod of podsBefore) {
      const ordinal = ordinalOf(pod);
      if (ordinal <= deletion.ordinal || ordinal > end || deleted.has(pod.metadata?.name ?? "")) continue;
      if (pod.metadata?.deletionTimestamp) continue;
      if (pod.metadata?.labels?.[LABELS.revisionHash] === plan.revisions.update) continue;
      if (parallel && !isRunningAndReady(pod)) continue;
      violations.push(`updated ${deletion.name} before higher old-revision pod ${pod.metadata?.name}`);
    }
  }
  return violations;
};

/**
 * Claims never lose data against the retention policy. The planner never deletes a claim; it only adds owner
 * references through which the garbage collector may. So: a reference to a pod is only ever added for a pod
 * outside the ordinal range under whenScaled=Delete, a reference to the set only under whenDeleted=Delete, and a
 * claim collected through its set reference went with a deleted set whose policy said Delete.
 */
export const claimsRetained: Invariant = ({ cluster, namespace, name, set, step, claimDeletions }) => {
  const violations: string[] = [];
  const policy = set.spec?.persistentVolumeClaimRetentionPolicy;
  const { start, end } = range(set);
  for (const action of succeeded(step)) {
    if (action.type !== "updateClaimOwnerRefs") continue;
    for (const ref of action.ownerReferences) {
      if (ref.kind === "Pod" && ref.apiVersion === "v1") {
        const ordinal = parseParentAndOrdinal(ref.name ?? "").ordinal;
        if (policy?.whenScaled !== "Delete" || (ordinal >= start && ordinal <= end)) {
          violations.push(`claim ${action.name} got an owner reference to pod ${ref.name} (whenScaled=${policy?.whenScaled ?? "Retain"}, range ${start}..${end})`);
        }
      }
      if (ref.kind === "StatefulSet" && ref.name === name && policy?.whenDeleted !== "Delete") {
        violations.push(`claim ${action.name} got an owner reference to the set under whenDeleted=${policy?.whenDeleted ?? "Retain"}`);
      }
    }
  }
  const live = cluster.get<StatefulSet>("StatefulSet", namespace, name);
  for (const deletion of claimDeletions) {
    if (deletion.by !== "gc") continue;
    const refs = deletion.object.metadata?.ownerReferences ?? [];
    const viaSet = refs.some((r) => r.kind === "StatefulSet" && r.name === name);
    if (viaSet && !(live === undefined && policy?.whenDeleted === "Delete")) {
      violations.push(`claim ${deletion.name} was garbage collected through its StatefulSet reference (whenDeleted=${policy?.whenDeleted ?? "Retain"}, set ${live ? "exists" : "gone"})`);
    }
  }
  return violations;
};

export const STANDARD_INVARIANTS: readonly Invariant[] = [uniqueOrdinals, orderedCreation, updateOrder, claimsRetained];
