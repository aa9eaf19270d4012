// PersistentVolumeClaim and PersistentVolume validation (core validation.go: ValidatePersistentVolumeClaim
// [Spec|Update|StatusUpdate], ValidatePersistentVolume[Spec|Update]).

import { child, forbidden, invalid, invalidEach, key, notSupported, required, type Cause } from "../field.ts";
import { cloneJson, get, getArray, getObject, isObject, semanticEqual, sortedKeys, type JsonObject } from "../json.ts";
import { isDNS1123Subdomain, nameIsDNSSubdomain } from "../names.ts";
import { compareQuantities, formatQuantity, parseQuantity, quantitiesEqual, quantityText, sign, type Quantity } from "../quantity.ts";
import { structDiff } from "./diff.ts";
import { str, validateImmutable, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from "./meta.ts";

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
const VOLUME_MODES = ["Block", "Filesystem"];
const RECLAIM_POLICIES = ["Delete", "Recycle", "Retain"];
const BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

function quantityOf(value: unknown): Quantity | undefined {
  const text = quantityText(value);
  if (text === undefined) return undefined;
  const parsed = parseQuantity(text);
  return parsed.ok ? parsed.quantity : undefined;
}

function validateAccessModes(modes: unknown, path: string, emptyDetail: string): Cause[] {
  const list = Array.isArray(modes) ? modes : [];
  const causes: Cause[] = list.length === 0 ? [required(path, emptyDetail)] : [];
  let readWriteOncePod = false;
  let other = false;
  for (const mode of list) {
    if (typeof mode !== "string" || !ACCESS_MODES.includes(mode)) causes.push(notSupported(path, mode, ACCESS_MODES));
    if (mode === "ReadWriteOncePod") readWriteOncePod = true;
    else if (typeof mode === "string" && ACCESS_MODES.includes(mode)) other = true;
  }
  if (readWriteOncePod && other) causes.push(forbidden(path, "may not use ReadWriteOncePod with other access modes"));
  return causes;
}

function validateDataSource(source: JsonObject, path: string): Cause[] {
  const causes: Cause[] = [];
  if (str(source, "name") === "") causes.push(required(child(path, "name")));
  const kind = str(source, "kind");
  if (kind === "") causes.push(required(child(path, "kind")));
  const apiGroup = str(source, "apiGroup");
  if (apiGroup === "" && kind !== "PersistentVolumeClaim") {
    causes.push(invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (apiGroup !== "") causes.push(...invalidEach(child(path, "apiGroup"), apiGroup, isDNS1123Subdomain(apiGroup)));
  return causes;
}

/** ValidatePersistentVolumeClaimSpec. */
export function validateClaimSpec(spec: JsonObject, path: string): Cause[] {
  const causes = validateAccessModes(get(spec, "accessModes"), child(path, "accessModes"), "at least 1 access mode is required");
  if (isObject(get(spec, "selector"))) causes.push(...validateLabelSelector(get(spec, "selector"), child(path, "selector")));
  const storagePath = key(child(path, "resources"), "storage");
  const storage = get(getObject(getObject(spec, "resources"), "requests"), "storage");
  const quantity = quantityOf(storage);
  if (storage === undefined) causes.push(required(storagePath));
  else if (quantity !== undefined && sign(quantity) <= 0) causes.push(invalid(storagePath, formatQuantity(quantity), "must be greater than zero"));
  for (const field of ["storageClassName", "volumeAttributesClassName"]) {
    const value = get(spec, field);
    if (typeof value === "string" && value !== "") causes.push(...invalidEach(child(path, field), value, isDNS1123Subdomain(value)));
  }
  const volumeMode = get(spec, "volumeMode");
  if (typeof volumeMode === "string" && !VOLUME_MODES.includes(volumeMode)) {
    causes.push(notSupported(child(path, "volumeMode"), volumeMode, VOLUME_MODES));
  }
  const dataSource = getObject(spec, "dataSource");
  if (dataSource !== undefined) causes.push(...validateDataSource(dataSource, child(path, "dataSource")));
  const dataSourceRef = getObject(spec, "dataSourceRef");
  if (dataSourceRef !== undefined) causes.push(...validateDataSource(dataSourceRef, child(path, "dataSourceRef")));
  return causes;
}

/** ValidatePersistentVolumeClaim. */
export function validateClaim(claim: JsonObject): Cause[] {
  return [...validateObjectMeta(getObject(claim, "metadata"), true, nameIsDNSSubdomain), ...validateClaimSpec(getObject(claim, "spec") ?? {}, "spec")];
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** ValidatePersistentVolumeClaimUpdate (RecoverVolumeExpansionFailure and VolumeAttributesClass on). */
export function validateClaimUpdate(claim: JsonObject, oldClaim: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(claim, "metadata"), getObject(oldClaim, "metadata"));
  causes.push(...validateClaim(claim));
  const spec = getObject(claim, "spec") ?? {};
  const oldSpec = getObject(oldClaim, "spec") ?? {};
  const newClone = cloneJson(spec);
  const oldClone = cloneJson(oldSpec);
  if (str(oldSpec, "volumeName") === "") oldClone["volumeName"] = get(spec, "volumeName");
  const annotations = getObject(getObject(claim, "metadata"), "annotations");
  const oldAnnotations = getObject(getObject(oldClaim, "metadata"), "annotations");
  const oldAnnotation = optionalString(get(oldAnnotations, BETA_STORAGE_CLASS_ANNOTATION));
  const newAnnotation = optionalString(get(annotations, BETA_STORAGE_CLASS_ANNOTATION));
  const oldClass = optionalString(get(oldSpec, "storageClassName"));
  const newClass = optionalString(get(spec, "storageClassName"));
  const upgradeFromAnnotation =
    oldAnnotation !== undefined && oldClass === undefined && newClass === oldAnnotation && (newAnnotation === undefined || newAnnotation === oldAnnotation);
  if (upgradeFromAnnotation) {
    Reflect.deleteProperty(newClone, "storageClassName");
  } else {
    if ((newAnnotation ?? "") !== (oldAnnotation ?? "")) {
      causes.push(invalid(child("metadata", "annotations", BETA_STORAGE_CLASS_ANNOTATION), newAnnotation ?? "", "field is immutable"));
    }
    if (newClass !== undefined && oldClass === undefined && (oldAnnotation === undefined || newClass === oldAnnotation)) {
      Reflect.deleteProperty(newClone, "storageClassName");
    }
  }
  const bound = str(getObject(claim, "status"), "phase") === "Bound";
  const newRequests = getObject(getObject(newClone, "resources"), "requests");
  if (bound && newRequests !== undefined) {
    const oldStorage = get(getObject(getObject(oldSpec, "resources"), "requests"), "storage");
    if (oldStorage === undefined) Reflect.deleteProperty(newRequests, "storage");
    else newRequests["storage"] = oldStorage;
  }
  if (get(oldClone, "volumeAttributesClassName") === undefined) Reflect.deleteProperty(newClone, "volumeAttributesClassName");
  else newClone["volumeAttributesClassName"] = get(oldClone, "volumeAttributesClassName");
  if (!semanticEqual(newClone, oldClone, quantitiesEqual)) {
    causes.push(
      forbidden(
        "spec",
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${structDiff("core.PersistentVolumeClaimSpec", oldClone, newClone)}`,
      ),
    );
  }
  const oldSize = quantityOf(get(getObject(getObject(oldSpec, "resources"), "requests"), "storage"));
  const newSize = quantityOf(get(getObject(getObject(spec, "resources"), "requests"), "storage"));
  const statusSize = quantityOf(get(getObject(getObject(oldClaim, "status"), "capacity"), "storage")) ?? { unscaled: 0n, exp: 0, format: "DecimalSI" };
  if (oldSize !== undefined && newSize !== undefined && compareQuantities(newSize, oldSize) < 0 && compareQuantities(newSize, statusSize) <= 0) {
    causes.push(forbidden("spec.resources.requests.storage", "field can not be less than status.capacity"));
  }
  causes.push(...validateImmutable(get(spec, "volumeMode") ?? null, get(oldSpec, "volumeMode") ?? null, "volumeMode", "json"));
  const oldVAC = get(oldSpec, "volumeAttributesClassName");
  const newVAC = get(spec, "volumeAttributesClassName");
  if (typeof oldVAC === "string" && oldVAC !== newVAC) {
    if (newVAC === undefined || newVAC === null) {
      causes.push(forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"));
    } else if (newVAC === "") {
      causes.push(forbidden("spec.volumeAttributesClassName", "update from non-nil value to an empty string is forbidden"));
    }
  }
  return causes;
}

/**
 * `validateBasicResource`: a negative quantity is reported by its `Value()`, the integer value rounded
 * away from zero ("-0.5" reports -1).
 */
function validateBasicResource(value: unknown, path: string): Cause[] {
  const quantity = quantityOf(value);
  if (quantity === undefined || sign(quantity) >= 0) return [];
  let integer: bigint;
  if (quantity.exp >= 0) integer = quantity.unscaled * 10n ** BigInt(quantity.exp);
  else {
    const divisor = 10n ** BigInt(-quantity.exp);
    // Negative here, so rounding away from zero is the floor of the division.
    integer = -((-quantity.unscaled + divisor - 1n) / divisor);
  }
  return [invalid(path, Number(integer), "must be a valid resource quantity")];
}

/** ValidatePersistentVolumeClaimStatusUpdate. */
export function validateClaimStatusUpdate(claim: JsonObject, oldClaim: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(claim, "metadata"), getObject(oldClaim, "metadata"));
  if ((getArray(getObject(claim, "spec"), "accessModes") ?? []).length === 0) causes.push(required("Spec.accessModes"));
  const capacity = getObject(getObject(claim, "status"), "capacity") ?? {};
  for (const name of sortedKeys(capacity)) causes.push(...validateBasicResource(capacity[name], key("status.capacity", name)));
  return causes;
}

const PV_SOURCES = [
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "hostPath",
  "glusterfs",
  "nfs",
  "rbd",
  "iscsi",
  "cinder",
  "cephfs",
  "fc",
  "flocker",
  "flexVolume",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "local",
  "storageos",
  "csi",
];

function validateVolumeSpec(spec: JsonObject, path: string): Cause[] {
  const causes = validateAccessModes(get(spec, "accessModes"), child(path, "accessModes"), "");
  const capacity = getObject(spec, "capacity") ?? {};
  const capacityPath = child(path, "capacity");
  if (Object.keys(capacity).length === 0) causes.push(required(capacityPath));
  if (get(capacity, "storage") === undefined || Object.keys(capacity).length > 1) {
    causes.push(notSupported(capacityPath, capacity, ["storage"]));
  }
  for (const name of sortedKeys(capacity)) {
    causes.push(...validateBasicResource(capacity[name], key(capacityPath, name)));
    const quantity = quantityOf(capacity[name]);
    if (quantity !== undefined && sign(quantity) <= 0) causes.push(invalid(key(capacityPath, name), formatQuantity(quantity), "must be greater than zero"));
  }
  const reclaim = str(spec, "persistentVolumeReclaimPolicy");
  if (reclaim !== "" && !RECLAIM_POLICIES.includes(reclaim)) {
    causes.push(notSupported(child(path, "persistentVolumeReclaimPolicy"), reclaim, RECLAIM_POLICIES));
  }
  let sources = 0;
  for (const source of PV_SOURCES) {
    const value = getObject(spec, source);
    if (value === undefined) continue;
    if (sources > 0) {
      causes.push(forbidden(child(path, source), "may not specify more than 1 volume type"));
      continue;
    }
    sources++;
    const sourcePath = child(path, source);
    if ((source === "hostPath" || source === "local" || source === "nfs") && str(value, "path") === "") causes.push(required(child(sourcePath, "path")));
    if (source === "nfs" && str(value, "server") === "") causes.push(required(child(sourcePath, "server")));
    if (source === "csi") {
      if (str(value, "driver") === "") causes.push(required(child(sourcePath, "driver")));
      if (str(value, "volumeHandle") === "") causes.push(required(child(sourcePath, "volumeHandle")));
    }
    if (source === "local" && getObject(spec, "nodeAffinity") === undefined) {
      causes.push(required(child(path, "nodeAffinity"), "Local volume requires node affinity"));
    }
  }
  if (sources === 0) causes.push(required(path, "must specify a volume type"));
  const hostPath = getObject(spec, "hostPath");
  if (hostPath !== undefined && str(hostPath, "path").replace(/\/+$/, "") === "" && str(hostPath, "path") !== "" && reclaim === "Recycle") {
    causes.push(forbidden(child(path, "persistentVolumeReclaimPolicy"), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  const storageClass = str(spec, "storageClassName");
  if (storageClass !== "") causes.push(...invalidEach(child(path, "storageClassName"), storageClass, isDNS1123Subdomain(storageClass)));
  const volumeMode = get(spec, "volumeMode");
  if (typeof volumeMode === "string" && !VOLUME_MODES.includes(volumeMode)) {
    causes.push(notSupported(child(path, "volumeMode"), volumeMode, VOLUME_MODES));
  }
  return causes;
}

/** ValidatePersistentVolume. */
export function validateVolume(volume: JsonObject): Cause[] {
  return [...validateObjectMeta(getObject(volume, "metadata"), false, nameIsDNSSubdomain), ...validateVolumeSpec(getObject(volume, "spec") ?? {}, "spec")];
}

function volumeSources(spec: JsonObject | undefined): JsonObject {
  const out: JsonObject = {};
  for (const source of PV_SOURCES) if (get(spec, source) !== undefined) out[source] = get(spec, source);
  return out;
}

/** ValidatePersistentVolumeUpdate. */
export function validateVolumeUpdate(volume: JsonObject, oldVolume: JsonObject): Cause[] {
  const causes = validateVolume(volume);
  const spec = getObject(volume, "spec");
  const oldSpec = getObject(oldVolume, "spec");
  const sources = volumeSources(spec);
  const oldSources = volumeSources(oldSpec);
  const csi = getObject(sources, "csi");
  if (csi !== undefined && get(getObject(oldSources, "csi"), "controllerExpandSecretRef") === undefined) {
    Reflect.deleteProperty(csi, "controllerExpandSecretRef");
  }
  if (!semanticEqual(sources, oldSources)) {
    causes.push(
      forbidden(
        "spec.persistentvolumesource",
        `spec.persistentvolumesource is immutable after creation\n${structDiff("core.PersistentVolumeSource", oldSources, sources)}`,
      ),
    );
  }
  causes.push(...validateImmutable(get(spec, "volumeMode") ?? null, get(oldSpec, "volumeMode") ?? null, "volumeMode", "json"));
  return causes;
}

/** ValidatePersistentVolumeStatusUpdate. */
export function validateVolumeStatusUpdate(volume: JsonObject, oldVolume: JsonObject): Cause[] {
  return validateObjectMetaUpdate(getObject(volume, "metadata"), getObject(oldVolume, "metadata"));
}
