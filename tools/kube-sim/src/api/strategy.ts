// The create/update pipeline of kube-apiserver up to validation, for the served types:
// decode (Go round trip, quantities, SetDefaults_*), mutating admission (create), rest.BeforeCreate /
// BeforeUpdate metadata rules and each type's strategy PrepareForCreate / PrepareForUpdate.

import { defaultPodOnly, defaultPodSpec, admitDefaultTolerations, admitPriority, preparePodCreate } from "./defaults/pod.ts";
import { defaultDeployment } from "./defaults/deployment.ts";
import { defaultStatefulSet, dropDisabledStatefulSetFields } from "./defaults/statefulset.ts";
import {
  PV_PROTECTION_FINALIZER,
  PVC_PROTECTION_FINALIZER,
  addFinalizer,
  defaultClaim,
  defaultVolume,
  prepareClaimStatus,
  prepareVolumeStatus,
} from "./defaults/storage.ts";
import {
  defaultNode,
  defaultSecret,
  defaultService,
  keepAllocatedServiceValues,
  labelNamespaceName,
  normalizeServiceNetworking,
  prepareNamespaceCreate,
} from "./defaults/core.ts";
import { toCoreEvent, toEventsV1Event } from "./events.ts";
import { cloneJson, ensureObject, get, getNumber, getObject, isObject, remove, semanticEqual, set, type JsonObject } from "./json.ts";
import { resolveOptions, type ApiOptions, type ApiOptionsInput } from "./options.ts";
import { canonicalizeQuantities } from "./quantities.ts";
import { quantitiesEqual } from "./quantity.ts";
import { resourceId, type ResourceId, type ResourceInfo } from "./resources.ts";
import { normalizeObject } from "./schema.ts";
import { formatLabelSelector } from "./selector.ts";

/** Resources whose strategy maintains `metadata.generation` (set to 1 on create, bumped on spec change). */
export const GENERATION_TRACKED: ReadonlySet<ResourceId> = new Set<ResourceId>(["pods", "statefulsets", "deployments"]);

/** Resources whose status lives behind a /status subresource (main-resource updates keep the old one). */
const STATUS_KEPT: ReadonlySet<ResourceId> = new Set<ResourceId>([
  "pods",
  "statefulsets",
  "deployments",
  "persistentvolumeclaims",
  "persistentvolumes",
  "namespaces",
  "services",
  "nodes",
]);

function specChanged(a: unknown, b: unknown): boolean {
  return !semanticEqual(get(a, "spec"), get(b, "spec"), quantitiesEqual);
}

/** Decoding: the Go round trip, quantity canonicalization and the SetDefaults_* functions. */
function decodeAndDefault(id: ResourceId, obj: JsonObject, options: ApiOptions): void {
  normalizeObject(id, obj);
  canonicalizeQuantities(id, obj);
  switch (id) {
    case "pods": {
      const spec = ensureObject(obj, "spec");
      defaultPodSpec(spec);
      defaultPodOnly(spec);
      return;
    }
    case "statefulsets":
      defaultStatefulSet(obj, options.featureGates);
      return;
    case "persistentvolumeclaims":
      defaultClaim(obj);
      return;
    case "persistentvolumes":
      defaultVolume(obj);
      return;
    case "namespaces":
      labelNamespaceName(obj);
      return;
    case "services":
      defaultService(obj);
      return;
    case "nodes":
      defaultNode(obj);
      return;
    case "secrets":
      defaultSecret(obj);
      return;
    case "deployments":
      defaultDeployment(obj);
      return;
    case "configmaps":
    case "events":
    case "controllerrevisions":
    case "leases":
    case "unknown":
      return;
  }
}

/** The request body as a JSON object in the storage form (events.k8s.io Events decode to core/v1). */
function decodeBody(info: ResourceInfo, body: unknown): JsonObject {
  const obj = isObject(body) ? cloneJson(body) : {};
  if (info.group === "events.k8s.io") return toCoreEvent(obj);
  if (!isObject(get(obj, "metadata"))) set(obj, "metadata", {});
  return obj;
}

/** Encodes back into the request's API form. */
function encodeBody(info: ResourceInfo, id: ResourceId, obj: JsonObject): JsonObject {
  normalizeObject(id, obj);
  return info.group === "events.k8s.io" ? toEventsV1Event(obj) : obj;
}

/**
 * Applies what kube-apiserver's defaulting, create-time admission and create strategy do (SetDefaults_*,
 * DefaultTolerationSeconds, Priority, StorageObjectInUseProtection, PrepareForCreate). Returns a new
 * object; the input is not modified. Name generation, uid, resourceVersion and creationTimestamp stay
 * with the server.
 */
export function prepareForCreate(info: ResourceInfo, obj: Record<string, unknown>, options?: ApiOptionsInput): Record<string, unknown> {
  const resolved = resolveOptions(options);
  const id = resourceId(info);
  const out = decodeBody(info, obj);
  const metadata = ensureObject(out, "metadata");
  // rest.BeforeCreate: a create cannot carry deletion state; cluster-scoped objects have no namespace.
  remove(metadata, "deletionTimestamp");
  remove(metadata, "deletionGracePeriodSeconds");
  if (!info.namespaced) remove(metadata, "namespace");
  decodeAndDefault(id, out, resolved);
  switch (id) {
    case "pods": {
      const spec = ensureObject(out, "spec");
      admitDefaultTolerations(spec);
      admitPriority(spec);
      preparePodCreate(out);
      break;
    }
    case "statefulsets":
      set(out, "status", {});
      set(metadata, "generation", 1);
      dropDisabledStatefulSetFields(out, undefined, resolved.featureGates);
      break;
    case "persistentvolumeclaims":
      addFinalizer(out, PVC_PROTECTION_FINALIZER);
      prepareClaimStatus(out);
      break;
    case "persistentvolumes":
      addFinalizer(out, PV_PROTECTION_FINALIZER);
      prepareVolumeStatus(out, resolved.now);
      break;
    case "namespaces":
      prepareNamespaceCreate(out);
      break;
    case "services":
      set(out, "status", {});
      normalizeServiceNetworking(out);
      break;
    case "deployments":
      set(out, "status", {});
      set(metadata, "generation", 1);
      break;
    case "secrets":
    case "nodes":
    case "configmaps":
    case "events":
    case "controllerrevisions":
    case "leases":
    case "unknown":
      break;
  }
  return encodeBody(info, id, out);
}

/** rest.BeforeUpdate: generation, uid, creation and deletion state come from the stored object. */
function keepSystemMetadata(info: ResourceInfo, metadata: JsonObject, oldMetadata: JsonObject | undefined): void {
  if (!info.namespaced) remove(metadata, "namespace");
  const generation = getNumber(oldMetadata, "generation");
  if (generation === undefined) remove(metadata, "generation");
  else set(metadata, "generation", generation);
  const uid = get(metadata, "uid");
  if ((uid === undefined || uid === "") && get(oldMetadata, "uid") !== undefined) set(metadata, "uid", get(oldMetadata, "uid"));
  for (const key of ["creationTimestamp", "deletionTimestamp"]) {
    const previous = get(oldMetadata, key);
    if (previous !== undefined && previous !== null) set(metadata, key, previous);
  }
  if (get(metadata, "deletionGracePeriodSeconds") === undefined && get(oldMetadata, "deletionGracePeriodSeconds") !== undefined) {
    set(metadata, "deletionGracePeriodSeconds", get(oldMetadata, "deletionGracePeriodSeconds"));
  }
}

function copyField(to: JsonObject, from: JsonObject, key: string): void {
  const value = get(from, key);
  if (value === undefined) remove(to, key);
  else set(to, key, cloneJson(value));
}

/**
 * PrepareForUpdate of the main resource or a subresource (`sub` is "", "status", "finalize" or "scale").
 * For "scale", `newObj` is the autoscaling/v1 Scale sent and the result is the updated StatefulSet.
 */
export function prepareForUpdate(
  info: ResourceInfo,
  sub: string,
  newObj: Record<string, unknown>,
  oldObj: Record<string, unknown>,
  options?: ApiOptionsInput,
): Record<string, unknown> {
  const resolved = resolveOptions(options);
  const id = resourceId(info);
  const old = decodeBody(info, oldObj);
  if (sub === "scale") return applyScale(old, newObj);
  const out = decodeBody(info, newObj);
  decodeAndDefault(id, out, resolved);
  const metadata = ensureObject(out, "metadata");
  keepSystemMetadata(info, metadata, getObject(old, "metadata"));
  if (sub === "status") {
    copyField(out, old, "spec");
  } else if (sub === "finalize") {
    copyField(out, old, "status");
  } else {
    if (STATUS_KEPT.has(id)) copyField(out, old, "status");
    if (id === "statefulsets") dropDisabledStatefulSetFields(out, old, resolved.featureGates);
    if (id === "namespaces") set(ensureObject(out, "spec"), "finalizers", cloneJson(get(getObject(old, "spec"), "finalizers") ?? []));
    if (id === "services") {
      keepAllocatedServiceValues(out, old);
      normalizeServiceNetworking(out);
    }
    // The Deployment strategy also counts an annotation change (the rollback annotation of old).
    const annotationsChanged = id === "deployments" && !semanticEqual(get(metadata, "annotations") ?? {}, get(getObject(old, "metadata"), "annotations") ?? {});
    if (GENERATION_TRACKED.has(id) && (specChanged(out, old) || annotationsChanged)) {
      set(metadata, "generation", (getNumber(getObject(old, "metadata"), "generation") ?? 0) + 1);
    }
  }
  return encodeBody(info, id, out);
}

/** The StatefulSet after a /scale update: `spec.replicas` from the Scale, generation bumped on change. */
function applyScale(sts: JsonObject, scale: unknown): JsonObject {
  const out = cloneJson(sts);
  const spec = ensureObject(out, "spec");
  const replicas = getNumber(getObject(scale, "spec"), "replicas") ?? 0;
  const metadata = ensureObject(out, "metadata");
  if (get(spec, "replicas") !== replicas) {
    set(spec, "replicas", replicas);
    set(metadata, "generation", (getNumber(metadata, "generation") ?? 0) + 1);
  }
  return out;
}

/** The autoscaling/v1 Scale a StatefulSet's /scale subresource returns (scaleFromStatefulSet). */
export function scaleOf(sts: Record<string, unknown>): Record<string, unknown> {
  const metadata = getObject(sts, "metadata");
  const scaleMetadata: JsonObject = {};
  for (const key of ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"]) {
    const value = get(metadata, key);
    if (value !== undefined && value !== null && value !== "") set(scaleMetadata, key, value);
  }
  const spec = getObject(sts, "spec");
  const replicas = getNumber(spec, "replicas") ?? 0;
  const status: JsonObject = { replicas: getNumber(getObject(sts, "status"), "replicas") ?? 0 };
  const selector = formatLabelSelector(get(spec, "selector"));
  if (selector !== "") status["selector"] = selector;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: scaleMetadata,
    spec: replicas === 0 ? {} : { replicas },
    status,
  };
}

/** Post-validation Canonicalize hook: a namespace named by generateName gets its name label here. */
export function canonicalize(info: ResourceInfo, obj: Record<string, unknown>): Record<string, unknown> {
  const out = cloneJson(obj);
  if (resourceId(info) === "namespaces") labelNamespaceName(out);
  return out;
}
