// ObjectMeta, labels, annotations, finalizers, owner references and label selectors
// (apimachinery api/validation/objectmeta.go, apis/meta/v1/validation, core validation's finalizer rule).

import {
  FIELD_IMMUTABLE_ERROR_MSG,
  IS_NEGATIVE_ERROR_MSG,
  child,
  forbidden,
  index,
  invalid,
  invalidEach,
  required,
  tooLong,
  type Cause,
  type ValueStyle,
} from "../field.ts";
import { get, getArray, getObject, isObject, objectsIn, semanticEqual, sortedKeys, sortedMap, utf8Length, type JsonObject } from "../json.ts";
import { isQualifiedName, isValidLabelValue, nameIsDNSLabel, type NameValidator } from "../names.ts";

/** Reads a string field the way Go decodes it: absent (or not a string) is "". */
export function str(obj: unknown, key: string): string {
  const value = get(obj, key);
  return typeof value === "string" ? value : "";
}

/** Strings of a list field; non-strings are skipped. */
export function strings(obj: unknown, key: string): string[] {
  return (getArray(obj, key) ?? []).filter((v): v is string => typeof v === "string");
}

const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** `ValidateLabelName`. */
export function validateLabelName(name: string, path: string): Cause[] {
  return invalidEach(path, name, isQualifiedName(name));
}

/** `ValidateLabels`: keys then values, in sorted key order (Go's map order is random). */
export function validateLabels(labels: unknown, path: string): Cause[] {
  if (!isObject(labels)) return [];
  const causes: Cause[] = [];
  for (const key of sortedKeys(labels)) {
    causes.push(...validateLabelName(key, path));
    const value = labels[key];
    const text = typeof value === "string" ? value : "";
    causes.push(...invalidEach(path, text, isValidLabelValue(text)));
  }
  return causes;
}

/** `ValidateAnnotations`: keys are qualified names (case-insensitive), total size at most 256 KiB. */
export function validateAnnotations(annotations: unknown, path: string): Cause[] {
  if (!isObject(annotations)) return [];
  const causes: Cause[] = [];
  let totalBytes = 0;
  for (const key of sortedKeys(annotations)) {
    causes.push(...invalidEach(path, key, isQualifiedName(key.toLowerCase())));
    const value = annotations[key];
    totalBytes += utf8Length(key) + (typeof value === "string" ? utf8Length(value) : 0);
  }
  if (totalBytes > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) causes.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return causes;
}

/** `schema.ParseGroupVersion` reduced to the version part (empty on a malformed apiVersion). */
function versionOf(apiVersion: string): { group: string; version: string } {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? "", version: parts[1] ?? "" };
  return { group: "", version: "" };
}

/** metav1.OwnerReference in its JSON field order, for messages. */
function ownerReferenceValue(ref: JsonObject): JsonObject {
  const out: JsonObject = { apiVersion: str(ref, "apiVersion"), kind: str(ref, "kind"), name: str(ref, "name"), uid: str(ref, "uid") };
  for (const key of ["controller", "blockOwnerDeletion"]) if (typeof get(ref, key) === "boolean") out[key] = get(ref, key);
  return out;
}

export function validateOwnerReferences(refs: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  let firstController = "";
  for (const ref of objectsIn(refs)) {
    const apiVersion = str(ref, "apiVersion");
    const kind = str(ref, "kind");
    const gv = versionOf(apiVersion);
    if (gv.version === "") causes.push(invalid(child(path, "apiVersion"), apiVersion, "version must not be empty"));
    if (kind === "") causes.push(invalid(child(path, "kind"), kind, "kind must not be empty"));
    if (str(ref, "name") === "") causes.push(invalid(child(path, "name"), "", "name must not be empty"));
    if (str(ref, "uid") === "") causes.push(invalid(child(path, "uid"), "", "uid must not be empty", "json"));
    if (gv.group === "" && gv.version === "v1" && kind === "Event") {
      causes.push(invalid(path, ownerReferenceValue(ref), "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (get(ref, "controller") === true) {
      const current = `${kind}/${str(ref, "name")}`;
      if (firstController !== "") {
        causes.push(
          invalid(
            path,
            objectsIn(refs).map(ownerReferenceValue),
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return causes;
}

/** Go's `%#v` of a []string, as ValidateNoNewFinalizers prints it. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(", ")}}`;
}

/** apimachinery `ValidateFinalizers` plus core's `validateKubeFinalizerName` for each entry. */
export function validateFinalizers(finalizers: unknown, path: string): Cause[] {
  const names = Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === "string") : [];
  const causes: Cause[] = [];
  for (const name of names) causes.push(...invalidEach(path, name, isQualifiedName(name)));
  if (names.includes("orphan") && names.includes("foregroundDeletion")) {
    causes.push(invalid(path, names, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return [...causes, ...validateKubeFinalizerNames(names, path)];
}

/** Core's extra rule: an unqualified finalizer must be a standard one. */
export function validateKubeFinalizerNames(names: readonly string[], path: string): Cause[] {
  const causes: Cause[] = [];
  names.forEach((name, i) => {
    if (!name.includes("/") && !STANDARD_FINALIZERS.has(name)) {
      causes.push(invalid(index(path, i), name, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  });
  return causes;
}

/** `ValidateObjectMeta` (core flavour) for a create. */
export function validateObjectMeta(meta: unknown, requiresNamespace: boolean, nameFn: NameValidator, path = "metadata"): Cause[] {
  const causes: Cause[] = [];
  const generateName = str(meta, "generateName");
  if (generateName !== "") causes.push(...invalidEach(child(path, "generateName"), generateName, nameFn(generateName, true)));
  const name = str(meta, "name");
  if (name === "") causes.push(required(child(path, "name"), "name or generateName is required"));
  else causes.push(...invalidEach(child(path, "name"), name, nameFn(name, false)));
  const namespace = str(meta, "namespace");
  if (requiresNamespace) {
    if (namespace === "") causes.push(required(child(path, "namespace")));
    else causes.push(...invalidEach(child(path, "namespace"), namespace, nameIsDNSLabel(namespace, false)));
  } else if (namespace !== "") {
    causes.push(forbidden(child(path, "namespace"), "not allowed on this type"));
  }
  const generation = get(meta, "generation");
  if (typeof generation === "number" && generation < 0) causes.push(invalid(child(path, "generation"), generation, IS_NEGATIVE_ERROR_MSG));
  causes.push(...validateLabels(get(meta, "labels"), child(path, "labels")));
  causes.push(...validateAnnotations(get(meta, "annotations"), child(path, "annotations")));
  causes.push(...validateOwnerReferences(get(meta, "ownerReferences"), child(path, "ownerReferences")));
  causes.push(...validateFinalizers(get(meta, "finalizers"), child(path, "finalizers")));
  return causes;
}

/** `ValidateImmutableField`; `style` "json" for typed values (types.UID, metav1.Time, pointers). */
export function validateImmutable(newValue: unknown, oldValue: unknown, path: string, style: ValueStyle = "auto"): Cause[] {
  return semanticEqual(newValue, oldValue) ? [] : [invalid(path, newValue === undefined ? null : newValue, FIELD_IMMUTABLE_ERROR_MSG, style)];
}

/** `ValidateObjectMetaUpdate` (core flavour). The server fills resourceVersion before validation. */
export function validateObjectMetaUpdate(meta: unknown, oldMeta: unknown, path = "metadata"): Cause[] {
  const causes: Cause[] = [];
  const newFinalizers = strings(meta, "finalizers");
  if (get(oldMeta, "deletionTimestamp") !== undefined && get(oldMeta, "deletionTimestamp") !== null) {
    const oldFinalizers = new Set(strings(oldMeta, "finalizers"));
    const extra = [...new Set(newFinalizers.filter((f) => !oldFinalizers.has(f)))].sort();
    if (extra.length > 0) {
      causes.push(
        forbidden(
          child(path, "finalizers"),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
        ),
      );
    }
  }
  const generation = get(meta, "generation");
  const oldGeneration = get(oldMeta, "generation");
  if (typeof generation === "number" && typeof oldGeneration === "number" && generation < oldGeneration) {
    causes.push(invalid(child(path, "generation"), generation, "must not be decremented"));
  }
  for (const key of ["name", "namespace"]) causes.push(...validateImmutable(str(meta, key), str(oldMeta, key), child(path, key)));
  causes.push(...validateImmutable(str(meta, "uid"), str(oldMeta, "uid"), child(path, "uid"), "json"));
  for (const key of ["creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"]) {
    causes.push(...validateImmutable(get(meta, key) ?? null, get(oldMeta, key) ?? null, child(path, key), "json"));
  }
  causes.push(...validateLabels(get(meta, "labels"), child(path, "labels")));
  causes.push(...validateAnnotations(get(meta, "annotations"), child(path, "annotations")));
  causes.push(...validateOwnerReferences(get(meta, "ownerReferences"), child(path, "ownerReferences")));
  causes.push(...validateKubeFinalizerNames(newFinalizers, child(path, "finalizers")));
  return causes;
}

export interface LabelSelectorOptions {
  readonly allowInvalidLabelValue: boolean;
}

/** metav1 `ValidateLabelSelector`. */
export function validateLabelSelector(selector: unknown, path: string, options: LabelSelectorOptions = { allowInvalidLabelValue: false }): Cause[] {
  if (!isObject(selector)) return [];
  const causes = validateLabels(get(selector, "matchLabels"), child(path, "matchLabels"));
  objectsIn(get(selector, "matchExpressions")).forEach((expression, i) => {
    const exprPath = index(child(path, "matchExpressions"), i);
    const operator = get(expression, "operator");
    const values = getArray(expression, "values") ?? [];
    switch (operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) causes.push(required(child(exprPath, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          causes.push(forbidden(child(exprPath, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        }
        break;
      default:
        causes.push(invalid(child(exprPath, "operator"), typeof operator === "string" ? operator : "", "not a valid selector operator", "json"));
    }
    causes.push(...validateLabelName(str(expression, "key"), child(exprPath, "key")));
    if (!options.allowInvalidLabelValue) {
      values.forEach((value, valueIndex) => {
        const text = typeof value === "string" ? value : "";
        causes.push(...invalidEach(index(child(exprPath, "values"), valueIndex), text, isValidLabelValue(text)));
      });
    }
  });
  return causes;
}

/** metav1.LabelSelector in its JSON shape (maps sorted), as a bad value. */
export function labelSelectorValue(selector: unknown): JsonObject | null {
  if (!isObject(selector)) return null;
  const out: JsonObject = {};
  const matchLabels = getObject(selector, "matchLabels");
  if (matchLabels !== undefined && Object.keys(matchLabels).length > 0) out["matchLabels"] = sortedMap(matchLabels);
  const expressions = objectsIn(get(selector, "matchExpressions"));
  if (expressions.length > 0) {
    out["matchExpressions"] = expressions.map((e) => {
      const requirement: JsonObject = { key: str(e, "key"), operator: str(e, "operator") };
      const values = getArray(e, "values");
      if (values !== undefined && values.length > 0) requirement["values"] = values;
      return requirement;
    });
  }
  return out;
}

/**
 * A workload's `spec.selector`: required, a valid label selector, and not empty (upstream's "empty selector is
 * invalid for <kind>", as ValidateStatefulSetSpec and ValidateDeploymentSpec say it).
 */
export function validateWorkloadSelector(selector: unknown, path: string, kind: string): Cause[] {
  if (selector === undefined || selector === null) return [required(path)];
  const causes = validateLabelSelector(selector, path);
  const matchLabels = getObject(selector, "matchLabels") ?? {};
  const expressions = get(selector, "matchExpressions");
  if (Object.keys(matchLabels).length + (Array.isArray(expressions) ? expressions.length : 0) === 0) {
    causes.push(invalid(path, labelSelectorValue(selector), `empty selector is invalid for ${kind}`));
  }
  return causes;
}
