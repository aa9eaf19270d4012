// apps/v1 Deployment validation (pkg/apis/apps/validation/validation.go ValidateDeployment, ValidateDeploymentSpec,
// ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment,
// ValidateDeploymentUpdate with the apps/v1 strategy's selector immutability, ValidateDeploymentStatusUpdate). The
// pod template is validated as any pod template is (core ValidatePodTemplateSpec). Bad values of the internal
// strategy render with Go field names, as for StatefulSets.

import { child, forbidden, invalid, invalidEach, nonNegative, notSupported, required, type Cause } from "../field.ts";
import { get, getArray, getNumber, getObject, sortedMap, type JsonObject } from "../json.ts";
import { isValidPercent, nameIsDNSSubdomain } from "../names.ts";
import { labelSelectorAsSelector, selectorEmpty, selectorMatches } from "../selector.ts";
import { labelSelectorValue, str, validateImmutable, validateObjectMeta, validateObjectMetaUpdate, validateWorkloadSelector } from "./meta.ts";
import { validatePodSpec, validateTemplateMetadata } from "./pod.ts";

/** intstr.IntOrString as JSON (a number or a string), or null. */
function intOrString(value: unknown): number | string | null {
  return typeof value === "number" || typeof value === "string" ? value : null;
}

/** getIntOrPercentValue: a valid percent's number, else IntValue() (Atoi of a string, 0 on error). */
function intOrPercentValue(value: number | string | null): number {
  if (value === null) return 0;
  if (typeof value === "number") return value;
  if (isValidPercent(value).length === 0) return Number(value.slice(0, -1));
  return /^[+-]?\d+$/.test(value) ? Number(value) : 0;
}

/** ValidatePositiveIntOrPercent. */
function validatePositiveIntOrPercent(value: number | string | null, path: string): Cause[] {
  if (typeof value === "string") return invalidEach(path, value, isValidPercent(value), "json");
  return nonNegative(path, value ?? 0);
}

/** ValidateRollingUpdateDeployment. */
function validateRollingUpdate(rollingUpdate: JsonObject, path: string): Cause[] {
  const maxUnavailable = intOrString(get(rollingUpdate, "maxUnavailable"));
  const maxSurge = intOrString(get(rollingUpdate, "maxSurge"));
  const unavailablePath = child(path, "maxUnavailable");
  const causes = [...validatePositiveIntOrPercent(maxUnavailable, unavailablePath), ...validatePositiveIntOrPercent(maxSurge, child(path, "maxSurge"))];
  if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
    causes.push(invalid(unavailablePath, maxUnavailable ?? 0, "may not be 0 when `maxSurge` is 0", "json"));
  }
  if (typeof maxUnavailable === "string" && isValidPercent(maxUnavailable).length === 0 && intOrPercentValue(maxUnavailable) > 100) {
    causes.push(invalid(unavailablePath, maxUnavailable, "must not be greater than 100%", "json"));
  }
  return causes;
}

/** The internal apps.DeploymentStrategy as encoding/json writes it. */
function internalStrategy(strategy: JsonObject | undefined): JsonObject {
  const rollingUpdate = getObject(strategy, "rollingUpdate");
  return {
    Type: str(strategy, "type"),
    RollingUpdate:
      rollingUpdate === undefined ? null : { MaxUnavailable: intOrString(get(rollingUpdate, "maxUnavailable")) ?? 0, MaxSurge: intOrString(get(rollingUpdate, "maxSurge")) ?? 0 },
  };
}

/** ValidateDeploymentStrategy. */
function validateStrategy(strategy: JsonObject | undefined, path: string): Cause[] {
  const rollingUpdate = getObject(strategy, "rollingUpdate");
  switch (str(strategy, "type")) {
    case "Recreate":
      return rollingUpdate === undefined ? [] : [forbidden(child(path, "rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")];
    case "RollingUpdate":
      if (rollingUpdate === undefined) return [required(child(path, "rollingUpdate"), "this should be defaulted and never be nil")];
      return validateRollingUpdate(rollingUpdate, child(path, "rollingUpdate"));
    default:
      return [notSupported(path, internalStrategy(strategy), ["Recreate", "RollingUpdate"], "auto")];
  }
}

/** ValidatePodTemplateSpecForReplicaSet, with core ValidatePodTemplateSpec for the template itself. */
function validateTemplate(template: JsonObject, selector: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  const parsed = labelSelectorAsSelector(selector);
  const labels = get(getObject(template, "metadata"), "labels");
  if (parsed.kind !== "error" && !selectorEmpty(parsed) && !selectorMatches(parsed, labels)) {
    causes.push(invalid(child(path, "metadata", "labels"), sortedMap(labels), "`selector` does not match template `labels`"));
  }
  const spec = getObject(template, "spec") ?? {};
  causes.push(...validateTemplateMetadata(template, path));
  causes.push(...validatePodSpec(spec, child(path, "spec"), { resourceIsPod: false }));
  if ((getArray(spec, "ephemeralContainers") ?? []).length > 0) {
    causes.push(forbidden(child(path, "spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"));
  }
  const restartPolicy = str(spec, "restartPolicy");
  if (restartPolicy !== "Always") causes.push(notSupported(child(path, "spec", "restartPolicy"), restartPolicy, ["Always"]));
  const deadline = get(spec, "activeDeadlineSeconds");
  if (deadline !== undefined && deadline !== null) {
    causes.push(forbidden(child(path, "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"));
  }
  return causes;
}

/** ValidateDeploymentSpec. */
function validateDeploymentSpec(spec: JsonObject, path = "spec"): Cause[] {
  const causes = nonNegative(child(path, "replicas"), get(spec, "replicas"));
  const selector = get(spec, "selector");
  causes.push(...validateWorkloadSelector(selector, child(path, "selector"), "deployment"));
  if (labelSelectorAsSelector(selector).kind === "error") {
    causes.push(invalid(child(path, "selector"), labelSelectorValue(selector), "invalid label selector"));
  } else {
    causes.push(...validateTemplate(getObject(spec, "template") ?? {}, selector, child(path, "template")));
  }
  causes.push(...validateStrategy(getObject(spec, "strategy"), child(path, "strategy")));
  const minReadySeconds = getNumber(spec, "minReadySeconds") ?? 0;
  causes.push(...nonNegative(child(path, "minReadySeconds"), minReadySeconds));
  causes.push(...nonNegative(child(path, "revisionHistoryLimit"), get(spec, "revisionHistoryLimit")));
  const deadline = getNumber(spec, "progressDeadlineSeconds");
  if (deadline !== undefined) {
    causes.push(...nonNegative(child(path, "progressDeadlineSeconds"), deadline));
    if (deadline <= minReadySeconds) causes.push(invalid(child(path, "progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds"));
  }
  return causes;
}

/** ValidateDeployment (create): the name must be a DNS subdomain. */
export function validateDeployment(deployment: JsonObject): Cause[] {
  return [...validateObjectMeta(getObject(deployment, "metadata"), true, nameIsDNSSubdomain), ...validateDeploymentSpec(getObject(deployment, "spec") ?? {})];
}

/** ValidateDeploymentUpdate, and the apps/v1 strategy's rule that the selector never changes. */
export function validateDeploymentUpdate(deployment: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(deployment, "metadata"), getObject(old, "metadata"));
  causes.push(...validateDeploymentSpec(getObject(deployment, "spec") ?? {}));
  causes.push(...validateImmutable(get(getObject(deployment, "spec"), "selector"), get(getObject(old, "spec"), "selector"), "spec.selector"));
  return causes;
}

const GREATER_THAN_REPLICAS = "cannot be greater than status.replicas";

/** ValidateDeploymentStatusUpdate. */
export function validateDeploymentStatusUpdate(deployment: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(deployment, "metadata"), getObject(old, "metadata"));
  const status = getObject(deployment, "status") ?? {};
  for (const field of ["observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas", "collisionCount"]) {
    causes.push(...nonNegative(child("status", field), get(status, field)));
  }
  const count = (field: string): number => getNumber(status, field) ?? 0;
  for (const field of ["updatedReplicas", "readyReplicas", "availableReplicas"]) {
    if (count(field) > count("replicas")) causes.push(invalid(child("status", field), count(field), GREATER_THAN_REPLICAS));
  }
  if (count("availableReplicas") > count("readyReplicas")) {
    causes.push(invalid("status.availableReplicas", count("availableReplicas"), "cannot be greater than readyReplicas"));
  }
  const collisions = getNumber(status, "collisionCount");
  const oldCollisions = getNumber(getObject(old, "status"), "collisionCount");
  if (oldCollisions !== undefined && (collisions === undefined || collisions < oldCollisions)) {
    causes.push(invalid("status.collisionCount", collisions ?? 0, "cannot be decremented"));
  }
  return causes;
}
