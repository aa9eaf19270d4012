// Pod predicates and construction (upstream stateful_set_utils.go): identity, storage, readiness, availability.

import { LABELS, claimName, parseParentAndOrdinal, podName } from "#protocol";
import type { SetView } from "./spec.ts";
import type { OwnerReference, Pod, PodTemplateSpec, Volume } from "./types.ts";
import { deepCopy, isRecord, obj, parseTimestampMs } from "./util.ts";

/** A pod slot as the algorithm sees it: a real pod from the snapshot or a not-yet-created placeholder. */
export interface PodView {
  readonly object: Pod;
  readonly name: string;
  /** The parent name parsed from the pod name ("" when it has no ordinal suffix). */
  readonly parent: string;
  /** Empty for placeholders. */
  readonly uid: string;
  readonly resourceVersion: string;
  readonly ordinal: number;
  readonly placeholder: boolean;
  /** Upstream `isCreated`: the API server has given it a phase. */
  readonly created: boolean;
  readonly phase: string;
  readonly terminating: boolean;
  readonly labels: Readonly<Record<string, string>>;
  /** The `controller-revision-hash` label, "" when absent. */
  readonly revision: string;
  /** PodReady condition is True. */
  readonly podReady: boolean;
  /** PodReady's lastTransitionTime in ms; null when absent (or not read, when minReadySeconds is 0). */
  readonly readySinceMs: number | null;
}

function labelValue(labels: Readonly<Record<string, string>>, key: string): string {
  const value = labels[key];
  return typeof value === "string" ? value : "";
}

/** `readTimes`: parse the Ready transition time (only availability under minReadySeconds > 0 needs it). */
export function viewPod(pod: Pod, readTimes: boolean): PodView {
  const meta = obj(pod.metadata) ?? {};
  const name = typeof meta.name === "string" ? meta.name : "";
  const { parent, ordinal } = parseParentAndOrdinal(name);
  const labels = obj(meta.labels) ?? {};
  const status = obj(pod.status) ?? {};
  const phase = typeof status.phase === "string" ? status.phase : "";
  let podReady = false;
  let readySinceMs: number | null = null;
  if (Array.isArray(status.conditions)) {
    for (const condition of status.conditions) {
      if (isRecord(condition) && condition.type === "Ready") {
        podReady = condition.status === "True";
        if (readTimes) readySinceMs = parseTimestampMs(condition.lastTransitionTime);
        break;
      }
    }
  }
  return {
    object: pod,
    name,
    parent,
    uid: typeof meta.uid === "string" ? meta.uid : "",
    resourceVersion: typeof meta.resourceVersion === "string" ? meta.resourceVersion : "",
    ordinal,
    placeholder: false,
    created: phase !== "",
    phase,
    terminating: typeof meta.deletionTimestamp === "string" && meta.deletionTimestamp !== "",
    labels,
    revision: labelValue(labels, LABELS.revisionHash),
    podReady,
    readySinceMs,
  };
}

/** Upstream `isRunningAndReady`. */
export function isRunningAndReady(pod: PodView): boolean {
  return pod.phase === "Running" && pod.podReady;
}

/** Upstream `isRunningAndAvailable` = podutil.IsPodAvailable: Ready for longer than minReadySeconds. */
export function isAvailable(pod: PodView, minReadySeconds: number, nowMs: number): boolean {
  if (!pod.podReady) return false;
  if (minReadySeconds === 0) return true;
  return pod.readySinceMs !== null && pod.readySinceMs + minReadySeconds * 1000 < nowMs;
}

/** Missing, terminating, or not Running+Ready+Available. */
export function isUnavailable(pod: PodView, minReadySeconds: number, nowMs: number): boolean {
  return !isRunningAndReady(pod) || pod.terminating || !isAvailable(pod, minReadySeconds, nowMs);
}

/** Upstream `newControllerRef` for the set (also used for claims and revisions). */
export function setControllerRef(view: SetView): OwnerReference {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    name: view.name,
    uid: view.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Upstream `identityMatches`. */
export function identityMatches(view: SetView, pod: PodView): boolean {
  const namespace = pod.object.metadata?.namespace;
  return (
    pod.ordinal >= 0 &&
    pod.parent === view.name &&
    pod.name === podName(view.name, pod.ordinal) &&
    namespace === view.namespace &&
    pod.labels[LABELS.podName] === pod.name
  );
}

/** Upstream `storageMatches`: every claim template has a same-named volume pointing at the pod's claim. */
export function storageMatches(view: SetView, pod: PodView): boolean {
  if (pod.ordinal < 0) return false;
  if (view.claimTemplates.length === 0) return true;
  const volumes = new Map<string, Volume>();
  const list = pod.object.spec?.volumes;
  if (Array.isArray(list)) for (const volume of list) if (isRecord(volume)) volumes.set(String(volume.name), volume);
  for (const template of view.claimTemplates) {
    const volume = volumes.get(template.name);
    const source = volume?.persistentVolumeClaim;
    if (!isRecord(source) || source.claimName !== claimName(template.name, view.name, pod.ordinal)) return false;
  }
  return true;
}

/** Upstream `updateStorage`: claim-template volumes first (template order), then the pod's other volumes. */
export function storageVolumes(view: SetView, ordinal: number, current: readonly Volume[] | null | undefined): Volume[] {
  const names = new Set(view.claimTemplates.map((t) => t.name));
  const volumes: Volume[] = view.claimTemplates.map((t) => ({
    name: t.name,
    persistentVolumeClaim: { claimName: claimName(t.name, view.name, ordinal) },
  }));
  if (Array.isArray(current)) {
    for (const volume of current) {
      if (isRecord(volume) && !names.has(String(volume.name))) volumes.push(volume);
    }
  }
  return volumes;
}

/** Upstream `updateIdentity` on a copy: namespace plus the pod-name and pod-index labels. */
export function applyIdentity(view: SetView, pod: Pod, ordinal: number): void {
  const meta = (pod.metadata = obj(pod.metadata) ?? {});
  meta.namespace = view.namespace;
  const labels = (meta.labels = isRecord(meta.labels) ? meta.labels : {});
  labels[LABELS.podName] = podName(view.name, ordinal);
  labels[LABELS.podIndex] = String(ordinal);
}

/**
 * Upstream `newVersionedStatefulSetPod` body: GetPodFromTemplate (labels, annotations, finalizers, spec, controller
 * ref, generateName), then identity, hostname/subdomain (create-time only), claim volumes and the revision label.
 */
export function newPod(view: SetView, template: PodTemplateSpec, ordinal: number, revisionName: string): Pod {
  const name = podName(view.name, ordinal);
  const templateMeta = isRecord(template.metadata) ? template.metadata : {};
  const labels: Record<string, string> = isRecord(templateMeta.labels) ? { ...templateMeta.labels } : {};
  labels[LABELS.podName] = name;
  labels[LABELS.podIndex] = String(ordinal);
  labels[LABELS.revisionHash] = revisionName;
  const metadata: NonNullable<Pod["metadata"]> = {
    generateName: `${view.name}-`,
    name,
    namespace: view.namespace,
    labels,
    ownerReferences: [setControllerRef(view)],
  };
  if (isRecord(templateMeta.annotations) && Object.keys(templateMeta.annotations).length > 0) {
    metadata.annotations = { ...templateMeta.annotations };
  }
  if (Array.isArray(templateMeta.finalizers) && templateMeta.finalizers.length > 0) {
    metadata.finalizers = [...templateMeta.finalizers];
  }
  const spec = isRecord(template.spec) ? deepCopy(template.spec) : {};
  spec.hostname = name;
  if (view.serviceName !== "") spec.subdomain = view.serviceName;
  else delete spec.subdomain;
  const volumes = storageVolumes(view, ordinal, spec.volumes);
  if (volumes.length > 0) spec.volumes = volumes;
  return { apiVersion: "v1", kind: "Pod", metadata, spec };
}

/**
 * A placeholder slot for a pod that does not exist yet; its body (what would be created) is built on first use,
 * because a large scale-up has many empty slots but creates few pods per plan.
 */
export function placeholderView(view: SetView, template: PodTemplateSpec, ordinal: number, revisionName: string): PodView {
  let body: Pod | undefined;
  const build = (): Pod => (body ??= newPod(view, template, ordinal, revisionName));
  return {
    get object() {
      return build();
    },
    get labels() {
      return build().metadata?.labels ?? {};
    },
    name: podName(view.name, ordinal),
    parent: view.name,
    uid: "",
    resourceVersion: "",
    ordinal,
    placeholder: true,
    created: false,
    phase: "",
    terminating: false,
    revision: revisionName,
    podReady: false,
    readySinceMs: null,
  };
}
