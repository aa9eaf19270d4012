// PersistentVolumeClaims: construction from the claim templates and the retention-policy owner references
// (upstream stateful_set_utils.go isClaimOwnerUpToDate / updateClaimOwnerRefForSetAndPod and
// stateful_pod_control.go ClaimsMatchRetentionPolicy / UpdatePodClaimForRetentionPolicy / PodClaimIsStale).

import { assertNever, claimName } from "#protocol";
import { setControllerRef } from "./pods.ts";
import { DELETE, RETAIN } from "./spec.ts";
import type { SetView } from "./spec.ts";
import type { EventSpec, OwnerReference, PersistentVolumeClaim } from "./types.ts";
import { deepCopy, isRecord, obj, ownerRefsOf } from "./util.ts";

/** The pod side of a claim decision: a placeholder has no UID yet. */
export interface PodIdentity {
  readonly name: string;
  readonly uid: string;
  readonly ordinal: number;
}

export interface ClaimState {
  readonly object: PersistentVolumeClaim;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly terminating: boolean;
  readonly ownerReferences: readonly OwnerReference[];
}

function viewClaim(claim: PersistentVolumeClaim): ClaimState | undefined {
  const meta = obj(claim.metadata);
  if (!meta || typeof meta.name !== "string") return undefined;
  return {
    object: claim,
    name: meta.name,
    uid: typeof meta.uid === "string" ? meta.uid : "",
    resourceVersion: typeof meta.resourceVersion === "string" ? meta.resourceVersion : "",
    terminating: typeof meta.deletionTimestamp === "string" && meta.deletionTimestamp !== "",
    ownerReferences: ownerRefsOf(meta.ownerReferences),
  };
}

/**
 * The claims of the namespace as this plan sees them. Owner-reference rewrites planned earlier in the same plan
 * are reflected, so one plan never rewrites a claim twice from stale data.
 */
export class ClaimBook {
  /** Claims of the namespace by name; read into a ClaimState on first use (most plans look at few). */
  private readonly raw = new Map<string, PersistentVolumeClaim>();
  private readonly claims = new Map<string, ClaimState | undefined>();
  private readonly plannedCreates = new Set<string>();

  constructor(claims: readonly PersistentVolumeClaim[], namespace: string) {
    for (const claim of claims) {
      const meta = obj(obj(claim)?.metadata);
      if (meta?.namespace === namespace && typeof meta.name === "string") this.raw.set(meta.name, claim);
    }
  }

  get(name: string): ClaimState | undefined {
    if (this.claims.has(name)) return this.claims.get(name);
    const raw = this.raw.get(name);
    const state = raw ? viewClaim(raw) : undefined;
    this.claims.set(name, state);
    return state;
  }

  /** Records a planned create; false if this plan already creates that claim. */
  planCreate(name: string): boolean {
    if (this.plannedCreates.has(name)) return false;
    this.plannedCreates.add(name);
    return true;
  }

  planOwnerRefs(state: ClaimState, ownerReferences: OwnerReference[]): void {
    this.claims.set(state.name, { ...state, ownerReferences });
  }
}

/** Upstream `getPersistentVolumeClaims`: template copy, pod-specific name, set namespace, selector labels win. */
export function newClaim(view: SetView, template: PersistentVolumeClaim, templateName: string, ordinal: number): PersistentVolumeClaim {
  const claim = deepCopy(template);
  delete claim.status;
  const meta = (claim.metadata = isRecord(claim.metadata) ? claim.metadata : {});
  meta.name = claimName(templateName, view.name, ordinal);
  meta.namespace = view.namespace;
  const selectorLabels = view.selector.matchLabels;
  if (isRecord(meta.labels)) Object.assign(meta.labels, selectorLabels);
  else if (Object.keys(selectorLabels).length > 0) meta.labels = { ...selectorLabels };
  claim.apiVersion = "v1";
  claim.kind = "PersistentVolumeClaim";
  return claim;
}

export function podInOrdinalRange(view: SetView, ordinal: number): boolean {
  return ordinal >= view.start && ordinal <= view.start + view.replicas - 1;
}

function matchesSetRef(ref: OwnerReference, view: SetView): boolean {
  return ref.apiVersion === "apps/v1" && ref.kind === "StatefulSet" && ref.name === view.name;
}

function matchesPodRef(ref: OwnerReference, pod: PodIdentity): boolean {
  return ref.apiVersion === "v1" && ref.kind === "Pod" && ref.name === pod.name;
}

/** What a claim's owner references say about this set and pod, gathered in one pass. */
interface RefScan {
  /** The first reference naming this set (or pod) carries another UID: left by a deleted predecessor. */
  staleSet: boolean;
  stalePod: boolean;
  /** References by UID. */
  setRef: boolean;
  podRef: boolean;
  /** Upstream `hasUnexpectedController`, before the Retain/Retain exemption. */
  unexpected: boolean;
  /** Upstream `hasNonControllerOwner`. */
  nonController: boolean;
}

function scanRefs(view: SetView, refs: readonly OwnerReference[], pod: PodIdentity): RefScan {
  const scan: RefScan = { staleSet: false, stalePod: false, setRef: false, podRef: false, unexpected: false, nonController: false };
  let seenSet = false;
  let seenPod = false;
  for (const ref of refs) {
    const bySet = matchesSetRef(ref, view);
    const byPod = !bySet && matchesPodRef(ref, pod);
    if (bySet && !seenSet) {
      seenSet = true;
      scan.staleSet = ref.uid !== view.uid;
    }
    if (matchesPodRef(ref, pod) && !seenPod) {
      seenPod = true;
      scan.stalePod = ref.uid !== pod.uid;
    }
    if (ref.uid === view.uid) scan.setRef = true;
    if (ref.uid === pod.uid) scan.podRef = true;
    if ((ref.uid === view.uid || ref.uid === pod.uid) && ref.controller !== true) scan.nonController = true;
    if (bySet ? ref.uid !== view.uid : byPod ? ref.uid !== pod.uid : ref.controller === true) scan.unexpected = true;
  }
  return scan;
}

function isRetainRetain(view: SetView): boolean {
  return view.whenScaled === RETAIN && view.whenDeleted === RETAIN;
}

/** Upstream `hasUnexpectedController` (only under a non-Retain/Retain policy). */
export function hasUnexpectedController(view: SetView, refs: readonly OwnerReference[], pod: PodIdentity): boolean {
  return !isRetainRetain(view) && scanRefs(view, refs, pod).unexpected;
}

type Policy = "RetainRetain" | "RetainDelete" | "DeleteRetain" | "DeleteDelete";

/** Unknown policy values are treated as Retain/Retain, like upstream's default case. */
function policyOf(view: SetView): Policy {
  const scaled = view.whenScaled;
  const deleted = view.whenDeleted;
  if (scaled === RETAIN && deleted === DELETE) return "RetainDelete";
  if (scaled === DELETE && deleted === RETAIN) return "DeleteRetain";
  if (scaled === DELETE && deleted === DELETE) return "DeleteDelete";
  return "RetainRetain";
}

/** Upstream `isClaimOwnerUpToDate`: true when no rewrite is needed (including the "do not touch" guards). */
export function isClaimOwnerUpToDate(view: SetView, refs: readonly OwnerReference[], pod: PodIdentity): boolean {
  const scaledDown = !podInOrdinalRange(view, pod.ordinal);
  const policy = policyOf(view);
  if (refs.length === 0) {
    // Nothing stale, nothing foreign: only the policy's wanted references matter.
    return policy === "RetainRetain" || (policy === "DeleteRetain" && !scaledDown);
  }
  const scan = scanRefs(view, refs, pod);
  if (scan.staleSet || scan.stalePod) return true;
  if (policy !== "RetainRetain" && scan.unexpected) return !(scan.setRef || scan.podRef);
  if (scan.nonController) return false;
  switch (policy) {
    case "RetainRetain":
      return !scan.setRef && !scan.podRef;
    case "RetainDelete":
      return scan.setRef && !scan.podRef;
    case "DeleteRetain":
      return !scan.setRef && scaledDown === scan.podRef;
    case "DeleteDelete":
      return scaledDown !== scan.setRef && scaledDown === scan.podRef;
    default:
      return assertNever(policy, "retention policy");
  }
}

function controllerRefTo(apiVersion: string, kind: string, name: string, uid: string): OwnerReference {
  return { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
}

function addControllerRef(refs: OwnerReference[], owner: OwnerReference): OwnerReference[] {
  if (refs.some((ref) => ref.uid === owner.uid)) return refs;
  return [...refs, owner];
}

/** Upstream `updateClaimOwnerRefForSetAndPod`: scrub our refs, then add what the policy wants. */
export function desiredOwnerRefs(view: SetView, refs: readonly OwnerReference[], pod: PodIdentity): OwnerReference[] {
  const unexpected = hasUnexpectedController(view, refs, pod);
  let next = refs.filter((ref) => !matchesSetRef(ref, view) && !matchesPodRef(ref, pod)).map((ref) => ({ ...ref }));
  if (unexpected) return next;
  const scaledDown = !podInOrdinalRange(view, pod.ordinal);
  const setRef = setControllerRef(view);
  const podRef = controllerRefTo("v1", "Pod", pod.name, pod.uid);
  const policy = policyOf(view);
  switch (policy) {
    case "RetainRetain":
      break;
    case "RetainDelete":
      next = addControllerRef(next, setRef);
      break;
    case "DeleteRetain":
      if (scaledDown) next = addControllerRef(next, podRef);
      break;
    case "DeleteDelete":
      next = addControllerRef(next, scaledDown ? podRef : setRef);
      break;
    default:
      return assertNever(policy, "retention policy");
  }
  return next;
}

/** Upstream `ClaimsMatchRetentionPolicy`: missing claims count as matching. */
export function claimsMatchRetentionPolicy(view: SetView, book: ClaimBook, pod: PodIdentity): boolean {
  for (const template of view.claimTemplates) {
    const claim = book.get(claimName(template.name, view.name, pod.ordinal));
    if (claim && !isClaimOwnerUpToDate(view, claim.ownerReferences, pod)) return false;
  }
  return true;
}

export interface ClaimRefUpdate {
  readonly claim: ClaimState;
  readonly ownerReferences: OwnerReference[];
}

/**
 * Upstream `UpdatePodClaimForRetentionPolicy`: the claim rewrites to perform (recorded in the book) and the
 * ConflictingController warnings to record.
 */
export function planClaimRetention(
  view: SetView,
  book: ClaimBook,
  pod: PodIdentity,
): { updates: ClaimRefUpdate[]; events: EventSpec[] } {
  const updates: ClaimRefUpdate[] = [];
  const events: EventSpec[] = [];
  for (const template of view.claimTemplates) {
    const name = claimName(template.name, view.name, pod.ordinal);
    const claim = book.get(name);
    if (!claim) continue;
    if (hasUnexpectedController(view, claim.ownerReferences, pod)) {
      events.push({
        type: "Warning",
        reason: "ConflictingController",
        message: `PersistentVolumeClaim ${name} has a conflicting OwnerReference that acts as a managing controller, the retention policy is ignored for this claim`,
        action: "Reconcile",
      });
    }
    if (!isClaimOwnerUpToDate(view, claim.ownerReferences, pod)) {
      const ownerReferences = desiredOwnerRefs(view, claim.ownerReferences, pod);
      book.planOwnerRefs(claim, ownerReferences);
      updates.push({ claim, ownerReferences });
    }
  }
  return { updates, events };
}

/**
 * Upstream `PodClaimIsStale`: under whenScaled=Delete, a claim still owned by an earlier pod of the same name
 * (different UID) blocks creating the pod until the garbage collector removes that claim.
 */
export function podClaimIsStale(view: SetView, book: ClaimBook, pod: PodIdentity): boolean {
  if (view.whenScaled === RETAIN) return false;
  for (const template of view.claimTemplates) {
    const claim = book.get(claimName(template.name, view.name, pod.ordinal));
    if (claim && scanRefs(view, claim.ownerReferences, pod).stalePod) return true;
  }
  return false;
}

export interface MissingClaims {
  readonly creates: { name: string; object: PersistentVolumeClaim }[];
  /** Claims that exist but are being deleted: upstream fails the sync with "pvc … is being deleted". */
  readonly errors: string[];
}

/** Upstream `createPersistentVolumeClaims`: create what is missing, complain about claims being deleted. */
export function missingClaims(view: SetView, book: ClaimBook, ordinal: number): MissingClaims {
  const creates: { name: string; object: PersistentVolumeClaim }[] = [];
  const errors: string[] = [];
  for (const template of view.claimTemplates) {
    const name = claimName(template.name, view.name, ordinal);
    const existing = book.get(name);
    if (existing) {
      if (existing.terminating) errors.push(`pvc ${name} is being deleted`);
    } else if (book.planCreate(name)) {
      creates.push({ name, object: newClaim(view, template.template, template.name, ordinal) });
    }
  }
  return { creates, errors };
}
