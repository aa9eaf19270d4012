// Dispatch from a served resource (and subresource) to its strategy's Validate / ValidateUpdate.

import type { Cause } from "../field.ts";
import { toCoreEvent } from "../events.ts";
import { getObject, isObject, type JsonObject } from "../json.ts";
import { nameIsDNSSubdomain, nameIsPathSegment, type NameValidator } from "../names.ts";
import { resourceId, type ResourceInfo } from "../resources.ts";
import {
  validateConfigMap,
  validateConfigMapUpdate,
  validateEvent,
  validateEventUpdate,
  validateLease,
  validateNamespace,
  validateNamespaceFinalizeUpdate,
  validateNamespaceStatusUpdate,
  validateNode,
  validateSecret,
  validateSecretUpdate,
  validateService,
  validateServiceUpdate,
} from "./core.ts";
import { validateDeployment, validateDeploymentStatusUpdate, validateDeploymentUpdate } from "./deployment.ts";
import { validateObjectMeta, validateObjectMetaUpdate } from "./meta.ts";
import { validatePodCreate, validatePodStatusUpdate, validatePodUpdate } from "./pod.ts";
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateScale,
  validateStatefulSet,
  validateStatefulSetStatusUpdate,
  validateStatefulSetUpdate,
} from "./statefulset.ts";
import {
  validateClaim,
  validateClaimStatusUpdate,
  validateClaimUpdate,
  validateVolume,
  validateVolumeStatusUpdate,
  validateVolumeUpdate,
} from "./storage.ts";

function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

/**
 * The name rule of a kind served generically (its metadata is validated, not its body): RBAC objects are named by
 * path segments (ValidateRBACName), the others (ServiceAccount, PodDisruptionBudget, NetworkPolicy) by DNS subdomains.
 */
function genericNameRule(info: ResourceInfo): NameValidator {
  return info.group === "rbac.authorization.k8s.io" ? nameIsPathSegment : nameIsDNSSubdomain;
}

function storageForm(info: ResourceInfo, obj: unknown): JsonObject {
  return info.group === "events.k8s.io" ? toCoreEvent(obj) : asObject(obj);
}

/** The strategy's Validate for a create (after prepareForCreate and name generation). */
export function validateCreate(info: ResourceInfo, obj: unknown): Cause[] {
  const object = storageForm(info, obj);
  const id = resourceId(info);
  switch (id) {
    case "pods":
      return validatePodCreate(object);
    case "statefulsets":
      return validateStatefulSet(object);
    case "persistentvolumeclaims":
      return validateClaim(object);
    case "persistentvolumes":
      return validateVolume(object);
    case "namespaces":
      return validateNamespace(object);
    case "services":
      return validateService(object);
    case "configmaps":
      return validateConfigMap(object);
    case "events":
      return validateEvent(object, info.group === "events.k8s.io");
    case "controllerrevisions":
      return validateControllerRevision(object);
    case "leases":
      return validateLease(object);
    case "nodes":
      return validateNode(object);
    case "secrets":
      return validateSecret(object);
    case "deployments":
      return validateDeployment(object);
    case "unknown":
      return validateObjectMeta(getObject(object, "metadata"), info.namespaced, genericNameRule(info));
  }
}

function metadataUpdate(object: JsonObject, old: JsonObject): Cause[] {
  return validateObjectMetaUpdate(getObject(object, "metadata"), getObject(old, "metadata"));
}

function validateStatusUpdate(info: ResourceInfo, object: JsonObject, old: JsonObject): Cause[] {
  switch (resourceId(info)) {
    case "pods":
      return validatePodStatusUpdate(object, old);
    case "statefulsets":
      return validateStatefulSetStatusUpdate(object, old);
    case "persistentvolumeclaims":
      return validateClaimStatusUpdate(object, old);
    case "persistentvolumes":
      return validateVolumeStatusUpdate(object, old);
    case "namespaces":
      return validateNamespaceStatusUpdate(object, old);
    case "deployments":
      return validateDeploymentStatusUpdate(object, old);
    case "services":
    case "secrets":
    case "nodes":
    case "configmaps":
    case "events":
    case "controllerrevisions":
    case "leases":
    case "unknown":
      return metadataUpdate(object, old);
  }
}

function validateMainUpdate(info: ResourceInfo, object: JsonObject, old: JsonObject): Cause[] {
  switch (resourceId(info)) {
    case "pods":
      return validatePodUpdate(object, old);
    case "statefulsets":
      return validateStatefulSetUpdate(object, old);
    case "persistentvolumeclaims":
      return validateClaimUpdate(object, old);
    case "persistentvolumes":
      return validateVolumeUpdate(object, old);
    case "namespaces":
      return metadataUpdate(object, old);
    case "services":
      return validateServiceUpdate(object, old);
    case "configmaps":
      return validateConfigMapUpdate(object, old);
    case "events":
      return validateEventUpdate(object, old, info.group === "events.k8s.io");
    case "controllerrevisions":
      return validateControllerRevisionUpdate(object, old);
    case "leases":
      return [...metadataUpdate(object, old), ...validateLease(object)];
    case "nodes":
      return [...metadataUpdate(object, old), ...validateNode(object)];
    case "secrets":
      return validateSecretUpdate(object, old);
    case "deployments":
      return validateDeploymentUpdate(object, old);
    case "unknown":
      return metadataUpdate(object, old);
  }
}

/**
 * The strategy's ValidateUpdate for the main resource (`sub` ""), or the status / finalize / scale
 * subresource. For "scale", `newObj` is the autoscaling/v1 Scale and `oldObj` the stored object.
 */
export function validateUpdate(info: ResourceInfo, sub: string, newObj: unknown, oldObj: unknown): Cause[] {
  if (sub === "scale") return validateScale(newObj);
  const object = storageForm(info, newObj);
  const old = storageForm(info, oldObj);
  if (sub === "status") return validateStatusUpdate(info, object, old);
  if (sub === "finalize") return resourceId(info) === "namespaces" ? validateNamespaceFinalizeUpdate(object, old) : metadataUpdate(object, old);
  if (sub !== "") return [];
  return validateMainUpdate(info, object, old);
}
