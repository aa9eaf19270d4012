// apps/v1 validation (pkg/apis/apps/validation/validation.go): StatefulSet create/update/status, the
// autoscaling/v1 Scale of /scale, and ControllerRevision. Bad values of internal apps types render with
// Go field names (`{"Type":"Foo","RollingUpdate":null}`), since the internal types carry no json tags.

import {
  child,
  forbidden,
  index,
  invalid,
  invalidEach,
  nonNegative,
  notSupported,
  required,
  type Cause,
} from "../field.ts";
import { get, getNumber, getObject, isObject, semanticEqual, sortedMap, type JsonObject } from "../json.ts";
import { isValidPercent, nameIsDNSLabel, nameIsDNSSubdomain } from "../names.ts";
import { quantitiesEqual } from "../quantity.ts";
import { labelSelectorAsSelector, selectorEmpty, selectorMatches } from "../selector.ts";
import { labelSelectorValue, str, validateImmutable, validateObjectMeta, validateObjectMetaUpdate, validateWorkloadSelector } from "./meta.ts";
import { validateTemplateMetadata } from "./pod.ts";
import { validateClaimSpec } from "./storage.ts";

/** intstr.IntOrString as JSON (a number or a string), or null. */
function intOrString(value: unknown): number | string | null {
  return typeof value === "number" || typeof value === "string" ? value : null;
}

/** The internal apps.RollingUpdateStatefulSetStrategy as encoding/json writes it. */
function internalRollingUpdate(rollingUpdate: JsonObject | undefined): JsonObject | null {
  if (rollingUpdate === undefined) return null;
  return { Partition: getNumber(rollingUpdate, "partition") ?? 0, MaxUnavailable: intOrString(get(rollingUpdate, "maxUnavailable")) };
}

/** getIntOrPercentValue: a valid percent's number, else IntValue() (Atoi of a string, 0 on error). */
function intOrPercentValue(value: number | string): number {
  if (typeof value === "number") return value;
  if (isValidPercent(value).length === 0) return Number(value.slice(0, -1));
  return /^[+-]?\d+$/.test(value) ? Number(value) : 0;
}

/** validateRollingUpdateStatefulSet. */
function validateRollingUpdate(rollingUpdate: JsonObject, path: string): Cause[] {
  const causes = nonNegative(child(path, "partition"), get(rollingUpdate, "partition"));
  const maxUnavailable = intOrString(get(rollingUpdate, "maxUnavailable"));
  if (maxUnavailable === null) return causes;
  const maxPath = child(path, "maxUnavailable");
  if (typeof maxUnavailable === "string") causes.push(...invalidEach(maxPath, maxUnavailable, isValidPercent(maxUnavailable), "json"));
  else causes.push(...nonNegative(maxPath, maxUnavailable));
  if (intOrPercentValue(maxUnavailable) === 0) causes.push(invalid(maxPath, maxUnavailable, "cannot be 0", "json"));
  if (typeof maxUnavailable === "string" && isValidPercent(maxUnavailable).length === 0 && intOrPercentValue(maxUnavailable) > 100) {
    causes.push(invalid(maxPath, maxUnavailable, "must not be greater than 100%", "json"));
  }
  return causes;
}

const RETENTION_POLICIES = ["Retain", "Delete"];

/** ValidateStatefulSetSpec. */
export function validateStatefulSetSpec(spec: JsonObject, path = "spec"): Cause[] {
  const causes: Cause[] = [];
  const policy = str(spec, "podManagementPolicy");
  if (policy === "") causes.push(required(child(path, "podManagementPolicy")));
  else if (policy !== "OrderedReady" && policy !== "Parallel") {
    causes.push(invalid(child(path, "podManagementPolicy"), policy, "must be 'OrderedReady' or 'Parallel'", "json"));
  }
  const strategy = getObject(spec, "updateStrategy");
  const rollingUpdate = getObject(strategy, "rollingUpdate");
  const type = str(strategy, "type");
  if (type === "") causes.push(required(child(path, "updateStrategy")));
  else if (type === "OnDelete") {
    if (rollingUpdate !== undefined) {
      causes.push(invalid(child(path, "updateStrategy", "rollingUpdate"), internalRollingUpdate(rollingUpdate), "only allowed for updateStrategy 'RollingUpdate'"));
    }
  } else if (type === "RollingUpdate") {
    if (rollingUpdate !== undefined) causes.push(...validateRollingUpdate(rollingUpdate, child(path, "updateStrategy", "rollingUpdate")));
  } else {
    causes.push(
      invalid(child(path, "updateStrategy"), { Type: type, RollingUpdate: internalRollingUpdate(rollingUpdate) }, "must be 'RollingUpdate' or 'OnDelete'"),
    );
  }
  const retention = getObject(spec, "persistentVolumeClaimRetentionPolicy");
  if (retention !== undefined) {
    for (const field of ["whenDeleted", "whenScaled"]) {
      const value = str(retention, field);
      if (!RETENTION_POLICIES.includes(value)) {
        causes.push(notSupported(child(path, "persistentVolumeClaimRetentionPolicy", field), value, RETENTION_POLICIES));
      }
    }
  }
  causes.push(...nonNegative(child(path, "replicas"), get(spec, "replicas")));
  causes.push(...nonNegative(child(path, "minReadySeconds"), get(spec, "minReadySeconds")));
  const ordinals = getObject(spec, "ordinals");
  if (ordinals !== undefined) causes.push(...nonNegative(child(path, "ordinals.start"), getNumber(ordinals, "start") ?? 0));
  const selector = get(spec, "selector");
  causes.push(...validateWorkloadSelector(selector, child(path, "selector"), "statefulset"));
  const parsed = labelSelectorAsSelector(selector);
  const template = getObject(spec, "template") ?? {};
  const templatePath = child(path, "template");
  if (parsed.kind === "error") {
    causes.push(invalid(child(path, "selector"), labelSelectorValue(selector), ""));
  } else {
    const labels = get(getObject(template, "metadata"), "labels");
    if (!selectorEmpty(parsed) && !selectorMatches(parsed, labels)) {
      causes.push(invalid(child(templatePath, "metadata", "labels"), sortedMap(labels), "`selector` does not match template `labels`"));
    }
    causes.push(...validateTemplateMetadata(template, templatePath));
  }
  const templateSpec = getObject(template, "spec");
  const restartPolicy = str(templateSpec, "restartPolicy");
  if (restartPolicy !== "Always") causes.push(notSupported(child(templatePath, "spec", "restartPolicy"), restartPolicy, ["Always"]));
  const deadline = get(templateSpec, "activeDeadlineSeconds");
  if (deadline !== undefined && deadline !== null) {
    causes.push(forbidden(child(templatePath, "spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"));
  }
  // Since 1.34 the claim templates' specs are validated as claims' are (`spec.volumeClaimTemplates[0].spec.accessModes:
  // Required value: at least 1 access mode is required`).
  const claimTemplates = get(spec, "volumeClaimTemplates");
  if (Array.isArray(claimTemplates)) {
    claimTemplates.forEach((claimTemplate, i) => {
      causes.push(...validateClaimSpec(getObject(claimTemplate, "spec") ?? {}, child(index(child(path, "volumeClaimTemplates"), i), "spec")));
    });
  }
  return causes;
}

/** ValidateStatefulSet (create): the name must be a DNS label. */
export function validateStatefulSet(sts: JsonObject): Cause[] {
  return [...validateObjectMeta(getObject(sts, "metadata"), true, nameIsDNSLabel), ...validateStatefulSetSpec(getObject(sts, "spec") ?? {})];
}

/** The spec fields ValidateStatefulSetUpdate lets change (revisionHistoryLimit since 1.33). */
const MUTABLE_SPEC_FIELDS = ["replicas", "template", "updateStrategy", "revisionHistoryLimit", "minReadySeconds", "ordinals", "persistentVolumeClaimRetentionPolicy"];

/** ValidateStatefulSetUpdate: spec validation without the name rule, then the update allow-list. */
export function validateStatefulSetUpdate(sts: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(sts, "metadata"), getObject(old, "metadata"));
  const spec = getObject(sts, "spec") ?? {};
  const oldSpec = getObject(old, "spec") ?? {};
  causes.push(...validateStatefulSetSpec(spec));
  const restricted = { ...spec };
  for (const field of MUTABLE_SPEC_FIELDS) {
    if (Object.hasOwn(oldSpec, field)) restricted[field] = oldSpec[field];
    else Reflect.deleteProperty(restricted, field);
  }
  if (!semanticEqual(restricted, oldSpec, quantitiesEqual)) {
    causes.push(
      forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return causes;
}

const GREATER_THAN_REPLICAS = "cannot be greater than status.replicas";

/** ValidateStatefulSetStatus. */
function validateStatefulSetStatus(status: JsonObject, path: string): Cause[] {
  const causes: Cause[] = [];
  for (const field of ["replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas", "observedGeneration", "collisionCount"]) {
    causes.push(...nonNegative(child(path, field), get(status, field)));
  }
  const count = (field: string): number => getNumber(status, field) ?? 0;
  for (const field of ["readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas"]) {
    if (count(field) > count("replicas")) causes.push(invalid(child(path, field), count(field), GREATER_THAN_REPLICAS));
  }
  if (count("availableReplicas") > count("readyReplicas")) {
    causes.push(invalid(child(path, "availableReplicas"), count("availableReplicas"), "cannot be greater than status.readyReplicas"));
  }
  return causes;
}

/** ValidateStatefulSetStatusUpdate: status rules, metadata rules, collisionCount never decreasing. */
export function validateStatefulSetStatusUpdate(sts: JsonObject, old: JsonObject): Cause[] {
  const status = getObject(sts, "status") ?? {};
  const causes = validateStatefulSetStatus(status, "status");
  causes.push(...validateObjectMetaUpdate(getObject(sts, "metadata"), getObject(old, "metadata")));
  const collisions = getNumber(status, "collisionCount");
  const oldCollisions = getNumber(getObject(old, "status"), "collisionCount");
  if (oldCollisions !== undefined && (collisions === undefined || collisions < oldCollisions)) {
    causes.push(invalid("status.collisionCount", collisions ?? 0, "cannot be decremented"));
  }
  return causes;
}

/** ValidateScale (autoscaling), for a /scale update. */
export function validateScale(scale: unknown): Cause[] {
  const causes = validateObjectMeta(getObject(scale, "metadata"), true, nameIsDNSSubdomain);
  const replicas = getNumber(getObject(scale, "spec"), "replicas") ?? 0;
  if (replicas < 0) causes.push(invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
  return causes;
}

/** validateControllerRevision: metadata and a non-negative revision. */
function validateControllerRevisionCommon(revision: JsonObject): Cause[] {
  return [...validateObjectMeta(getObject(revision, "metadata"), true, nameIsDNSSubdomain), ...nonNegative("revision", get(revision, "revision"))];
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  return "bool";
}

/** ValidateControllerRevisionCreate: `data` must also decode as a JSON object. */
export function validateControllerRevision(revision: JsonObject): Cause[] {
  const causes = validateControllerRevisionCommon(revision);
  const data = get(revision, "data");
  if (data === undefined || data === null) causes.push(required("data", "data is mandatory"));
  else if (!isObject(data)) {
    causes.push(
      invalid("data", "<value omitted>", `error parsing data: json: cannot unmarshal ${jsonKind(data)} into Go value of type map[string]interface {}`),
    );
  }
  return causes;
}

/** ValidateControllerRevisionUpdate: `data` is immutable. */
export function validateControllerRevisionUpdate(revision: JsonObject, old: JsonObject): Cause[] {
  return [
    ...validateObjectMetaUpdate(getObject(revision, "metadata"), getObject(old, "metadata")),
    ...validateControllerRevisionCommon(revision),
    ...(get(revision, "data") === undefined || get(revision, "data") === null ? [required("data", "data is mandatory")] : []),
    ...validateImmutable(get(revision, "data"), get(old, "data"), "data", "json"),
  ];
}
