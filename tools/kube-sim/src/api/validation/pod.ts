// Pod and PodSpec validation (pkg/apis/core/validation/validation.go: ValidatePodSpec, validateContainers,
// ValidateVolumes, ValidatePodCreate, ValidatePodUpdate, ValidatePodStatusUpdate), ported for the fields
// a StatefulSet workload uses; rarely used volume plugins get only the one-volume-type rule.

import {
  IS_NEGATIVE_ERROR_MSG,
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  invalidEach,
  key,
  nonNegative,
  notFound,
  notSupported,
  required,
  type Cause,
} from "../field.ts";
import { get, getArray, getNumber, getObject, getString, isObject, objectsIn, semanticEqual, sortedKeys, type JsonObject } from "../json.ts";
import {
  inclusiveRangeError,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isHTTPHeaderName,
  isQualifiedName,
  isRelaxedEnvVarName,
  isValidID,
  isValidIP,
  isValidPortName,
  isValidPortNum,
  nameIsDNSSubdomain,
} from "../names.ts";
import { compareQuantities, formatQuantity, milliValue, parseQuantity, quantitiesEqual, quantityText, sign, type Quantity } from "../quantity.ts";
import { computeQOSClass } from "../defaults/pod.ts";
import { structDiff } from "./diff.ts";
import { str, strings, validateAnnotations, validateLabelName, validateLabels, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from "./meta.ts";
import { validateClaimSpec } from "./storage.ts";

const MAX_INT32 = 2147483647;
const FILE_MODE_ERROR_MSG = "must be a number between 0 and 0777 (octal), both inclusive";

export interface PodValidationOptions {
  /** The spec is a Pod's, not a template's (enables pod-only checks such as hostPort == containerPort). */
  readonly resourceIsPod: boolean;
}

/** Volume source keys in the order ValidateVolumes checks them, with the path upstream names them by. */
const VOLUME_SOURCE_CHECKS: readonly (readonly [string, string])[] = [
  ["emptyDir", "emptyDir"],
  ["hostPath", "hostPath"],
  ["gitRepo", "gitRepo"],
  ["gcePersistentDisk", "gcePersistentDisk"],
  ["awsElasticBlockStore", "awsElasticBlockStore"],
  ["secret", "secret"],
  ["nfs", "nfs"],
  ["iscsi", "iscsi"],
  ["glusterfs", "glusterfs"],
  ["flocker", "flocker"],
  ["persistentVolumeClaim", "persistentVolumeClaim"],
  ["rbd", "rbd"],
  ["cinder", "cinder"],
  ["cephfs", "cephFS"],
  ["quobyte", "quobyte"],
  ["downwardAPI", "downwarAPI"],
  ["fc", "fc"],
  ["flexVolume", "flexVolume"],
  ["configMap", "configMap"],
  ["azureFile", "azureFile"],
  ["vsphereVolume", "vsphereVolume"],
  ["photonPersistentDisk", "photonPersistentDisk"],
  ["portworxVolume", "portworxVolume"],
  ["azureDisk", "azureDisk"],
  ["storageos", "storageos"],
  ["projected", "projected"],
  ["scaleIO", "scaleIO"],
  ["csi", "csi"],
  ["ephemeral", "ephemeral"],
  ["image", "image"],
];

function fileMode(value: unknown, path: string): Cause[] {
  return typeof value === "number" && (value > 0o777 || value < 0) ? [invalid(path, value, FILE_MODE_ERROR_MSG)] : [];
}

/** validatePathNoBacksteps. */
function noBacksteps(target: string, path: string): Cause[] {
  return target.split("/").includes("..") ? [invalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath. */
function localDescendingPath(target: string, path: string): Cause[] {
  const causes = target.startsWith("/") ? [invalid(path, target, "must be a relative path")] : [];
  return [...causes, ...noBacksteps(target, path)];
}

/** ValidateLocalNonReservedPath. */
function localNonReservedPath(target: string, path: string): Cause[] {
  const causes = localDescendingPath(target, path);
  if (target.startsWith("..") && !target.startsWith("../")) causes.push(invalid(path, target, "must not start with '..'"));
  return causes;
}

function validateKeyToPaths(items: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  objectsIn(items).forEach((item, i) => {
    const itemPath = index(path, i);
    if (str(item, "key") === "") causes.push(required(child(itemPath, "key")));
    const target = str(item, "path");
    if (target === "") causes.push(required(child(itemPath, "path")));
    causes.push(...localNonReservedPath(target, child(itemPath, "path")));
    causes.push(...fileMode(get(item, "mode"), child(itemPath, "mode")));
  });
  return causes;
}

const HOST_PATH_TYPES = ["", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"];
const VALID_VOLUME_FIELD_PATHS = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];
const VALID_ENV_FIELD_PATHS = [
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.serviceAccountName",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
];
const DOWNWARD_API_LABELS = new Set([
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.serviceAccountName",
  "spec.schedulerName",
  "status.phase",
  "status.hostIP",
  "status.hostIPs",
  "status.podIP",
  "status.podIPs",
]);
const CONTAINER_RESOURCE_FIELD_PATHS = [
  "limits.cpu",
  "limits.ephemeral-storage",
  "limits.memory",
  "requests.cpu",
  "requests.ephemeral-storage",
  "requests.memory",
];

/** fieldpath.SplitMaybeSubscriptedPath. */
function splitSubscript(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const trimmed = fieldPath.slice(0, -2);
  const at = trimmed.indexOf("['");
  if (at <= 0) return undefined;
  return { path: trimmed.slice(0, at), subscript: trimmed.slice(at + 2) };
}

/** validateObjectFieldSelector with ConvertDownwardAPIFieldLabel's error texts. */
function validateFieldRef(ref: JsonObject, expressions: readonly string[], path: string): Cause[] {
  const apiVersion = str(ref, "apiVersion");
  const fieldPath = str(ref, "fieldPath");
  if (apiVersion === "") return [required(child(path, "apiVersion"))];
  if (fieldPath === "") return [required(child(path, "fieldPath"))];
  const subscripted = splitSubscript(fieldPath);
  let error: string | undefined;
  if (apiVersion !== "v1") error = `unsupported pod version: ${apiVersion}`;
  else if (subscripted !== undefined) {
    if (subscripted.path !== "metadata.annotations" && subscripted.path !== "metadata.labels") {
      error = `field label does not support subscript: ${fieldPath}`;
    }
  } else if (!DOWNWARD_API_LABELS.has(fieldPath) && fieldPath !== "spec.host") {
    error = `field label not supported: ${fieldPath}`;
  }
  if (error !== undefined) return [invalid(child(path, "fieldPath"), fieldPath, `error converting fieldPath: ${error}`)];
  if (subscripted !== undefined) {
    const name = subscripted.path === "metadata.annotations" ? subscripted.subscript.toLowerCase() : subscripted.subscript;
    return invalidEach(path, name, isQualifiedName(name));
  }
  const internal = fieldPath === "spec.host" ? "spec.nodeName" : fieldPath;
  return expressions.includes(internal) ? [] : [notSupported(child(path, "fieldPath"), internal, [...expressions].sort(), "auto")];
}

const DIVISORS_CPU = new Set(["1m", "1"]);
const DIVISORS_BYTES = new Set(["1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"]);

function validateResourceFieldRef(ref: JsonObject, path: string, volume: boolean): Cause[] {
  const causes: Cause[] = [];
  const resource = str(ref, "resource");
  if (volume && str(ref, "containerName") === "") causes.push(required(child(path, "containerName")));
  else if (resource === "") causes.push(required(child(path, "resource")));
  else if (!CONTAINER_RESOURCE_FIELD_PATHS.includes(resource) && !/^(requests|limits)\.hugepages-/.test(resource)) {
    causes.push(notSupported(child(path, "resource"), resource, CONTAINER_RESOURCE_FIELD_PATHS, "auto"));
  }
  const divisorText = quantityText(get(ref, "divisor"));
  const divisor = divisorText === undefined ? undefined : parseQuantity(divisorText);
  if (divisor?.ok === true && sign(divisor.quantity) !== 0) {
    const shown = formatQuantity(divisor.quantity);
    const divisorPath = child(path, "divisor");
    if ((resource === "limits.cpu" || resource === "requests.cpu") && !DIVISORS_CPU.has(shown)) {
      causes.push(invalid(divisorPath, resource, "only divisor's values 1m and 1 are supported with the cpu resource"));
    }
    const byteKinds: [RegExp, string][] = [
      [/^(limits|requests)\.memory$/, "memory"],
      [/^(limits|requests)\.ephemeral-storage$/, "local ephemeral storage"],
      [/^(limits|requests)\.hugepages-/, "hugepages"],
    ];
    for (const [pattern, label] of byteKinds) {
      if (pattern.test(resource) && !DIVISORS_BYTES.has(shown)) {
        causes.push(
          invalid(
            divisorPath,
            resource,
            `only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the ${label} resource`,
          ),
        );
      }
    }
  }
  return causes;
}

function validateDownwardAPIFiles(items: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  for (const file of objectsIn(items)) {
    const target = str(file, "path");
    if (target === "") causes.push(required(child(path, "path")));
    causes.push(...localNonReservedPath(target, child(path, "path")));
    const fieldRef = getObject(file, "fieldRef");
    const resourceRef = getObject(file, "resourceFieldRef");
    if (fieldRef !== undefined) {
      causes.push(...validateFieldRef(fieldRef, VALID_VOLUME_FIELD_PATHS, child(path, "fieldRef")));
      if (resourceRef !== undefined) causes.push(invalid(path, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"));
    } else if (resourceRef !== undefined) {
      causes.push(...validateResourceFieldRef(resourceRef, child(path, "resourceFieldRef"), true));
    } else {
      causes.push(required(path, "one of fieldRef and resourceFieldRef is required"));
    }
    causes.push(...fileMode(get(file, "mode"), child(path, "mode")));
  }
  return causes;
}

function validateProjected(projected: JsonObject, path: string): Cause[] {
  const causes = fileMode(get(projected, "defaultMode"), child(path, "defaultMode"));
  objectsIn(get(projected, "sources")).forEach((source, i) => {
    const sourcePath = index(child(path, "sources"), i);
    for (const kind of ["secret", "configMap"]) {
      const items = getObject(source, kind);
      if (items === undefined) continue;
      if (str(items, "name") === "") causes.push(required(child(sourcePath, kind, "name")));
      causes.push(...validateKeyToPaths(get(items, "items"), child(sourcePath, kind, "items")));
    }
    const downward = getObject(source, "downwardAPI");
    if (downward !== undefined) causes.push(...validateDownwardAPIFiles(get(downward, "items"), child(sourcePath, "downwardAPI")));
    const token = getObject(source, "serviceAccountToken");
    if (token !== undefined) {
      const tokenPath = child(sourcePath, "serviceAccountToken");
      const seconds = getNumber(token, "expirationSeconds") ?? 0;
      if (seconds < 10 * 60) causes.push(invalid(child(tokenPath, "expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"));
      if (seconds > 2 ** 32) causes.push(invalid(child(tokenPath, "expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"));
      if (str(token, "path") === "") causes.push(required(child(tokenPath, "path")));
    }
  });
  return causes;
}

/** The validation of each supported volume source (validateVolumeSource's per-source functions). */
function validateSource(kind: string, source: JsonObject, path: string): Cause[] {
  switch (kind) {
    case "emptyDir": {
      const limit = quantityText(get(source, "sizeLimit"));
      const parsed = limit === undefined ? undefined : parseQuantity(limit);
      return parsed?.ok === true && sign(parsed.quantity) < 0
        ? [forbidden(child(path, "sizeLimit"), "SizeLimit field must be a valid resource quantity")]
        : [];
    }
    case "hostPath": {
      const target = str(source, "path");
      if (target === "") return [required(child(path, "path"))];
      const type = get(source, "type");
      const typeErrors =
        typeof type === "string" && !HOST_PATH_TYPES.includes(type) ? [notSupported(child(path, "type"), type, HOST_PATH_TYPES)] : [];
      return [...noBacksteps(target, child(path, "path")), ...typeErrors];
    }
    case "secret":
      return [
        ...(str(source, "secretName") === "" ? [required(child(path, "secretName"))] : []),
        ...fileMode(get(source, "defaultMode"), child(path, "defaultMode")),
        ...validateKeyToPaths(get(source, "items"), child(path, "items")),
      ];
    case "configMap":
      return [
        ...(str(source, "name") === "" ? [required(child(path, "name"))] : []),
        ...fileMode(get(source, "defaultMode"), child(path, "defaultMode")),
        ...validateKeyToPaths(get(source, "items"), child(path, "items")),
      ];
    case "persistentVolumeClaim":
      return str(source, "claimName") === "" ? [required(child(path, "claimName"))] : [];
    case "downwardAPI":
      return [...fileMode(get(source, "defaultMode"), child(path, "defaultMode")), ...validateDownwardAPIFiles(get(source, "items"), path)];
    case "projected":
      return validateProjected(source, path);
    case "nfs": {
      const causes: Cause[] = [];
      if (str(source, "server") === "") causes.push(required(child(path, "server")));
      const target = str(source, "path");
      if (target === "") causes.push(required(child(path, "path")));
      if (!target.startsWith("/")) causes.push(invalid(child(path, "path"), target, "must be an absolute path"));
      return causes;
    }
    case "csi":
      return str(source, "driver") === "" ? [required(child(path, "driver"))] : [];
    case "ephemeral": {
      const template = getObject(source, "volumeClaimTemplate");
      if (template === undefined) return [required(child(path, "volumeClaimTemplate"))];
      const templatePath = child(path, "volumeClaimTemplate");
      const metadata = getObject(template, "metadata");
      return [
        ...validateAnnotations(get(metadata, "annotations"), child(templatePath, "metadata", "annotations")),
        ...validateLabels(get(metadata, "labels"), child(templatePath, "metadata", "labels")),
        ...validateClaimSpec(getObject(template, "spec") ?? {}, child(templatePath, "spec")),
      ];
    }
    default:
      return [];
  }
}

function validateVolumeSource(volume: JsonObject, path: string): Cause[] {
  const causes: Cause[] = [];
  let count = 0;
  for (const [field, pathName] of VOLUME_SOURCE_CHECKS) {
    const source = get(volume, field);
    if (!isObject(source)) continue;
    if (count > 0) {
      causes.push(forbidden(child(path, pathName), "may not specify more than 1 volume type"));
      continue;
    }
    count++;
    causes.push(...validateSource(field, source, child(path, field)));
  }
  if (count === 0) causes.push(required(path, "must specify a volume type"));
  return causes;
}

/** ValidateVolumes: returns the volumes that validated, by name, for the mount checks. */
function validateVolumes(volumes: unknown, path: string): { names: Map<string, JsonObject>; causes: Cause[] } {
  const names = new Map<string, JsonObject>();
  const causes: Cause[] = [];
  objectsIn(volumes).forEach((volume, i) => {
    const volumePath = index(path, i);
    const namePath = child(volumePath, "name");
    const name = str(volume, "name");
    const errors = validateVolumeSource(volume, volumePath);
    if (name === "") errors.push(required(namePath));
    else errors.push(...invalidEach(namePath, name, isDNS1123Label(name)));
    if (names.has(name)) errors.push(duplicate(namePath, name));
    if (errors.length === 0) names.set(name, volume);
    else causes.push(...errors);
  });
  return { names, causes };
}

const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];

function validateContainerPorts(ports: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  const names = new Set<string>();
  objectsIn(ports).forEach((port, i) => {
    const portPath = index(path, i);
    const name = str(port, "name");
    if (name !== "") {
      const messages = isValidPortName(name);
      if (messages.length > 0) causes.push(...invalidEach(child(portPath, "name"), name, messages));
      else if (names.has(name)) causes.push(duplicate(child(portPath, "name"), name));
      else names.add(name);
    }
    const containerPort = getNumber(port, "containerPort") ?? 0;
    if (containerPort === 0) causes.push(required(child(portPath, "containerPort")));
    else causes.push(...invalidEach(child(portPath, "containerPort"), containerPort, isValidPortNum(containerPort)));
    const hostPort = getNumber(port, "hostPort") ?? 0;
    if (hostPort !== 0) causes.push(...invalidEach(child(portPath, "hostPort"), hostPort, isValidPortNum(hostPort)));
    const protocol = str(port, "protocol");
    if (protocol === "") causes.push(required(child(portPath, "protocol")));
    else if (!PORT_PROTOCOLS.includes(protocol)) causes.push(notSupported(child(portPath, "protocol"), protocol, PORT_PROTOCOLS));
  });
  return causes;
}

function validateKeySelector(selector: JsonObject, path: string): Cause[] {
  const name = str(selector, "name");
  const causes = invalidEach(child(path, "name"), name, nameIsDNSSubdomain(name, false));
  const keyName = str(selector, "key");
  if (keyName === "") causes.push(required(child(path, "key")));
  else causes.push(...invalidEach(child(path, "key"), keyName, isConfigMapKey(keyName)));
  return causes;
}

function validateEnv(env: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  objectsIn(env).forEach((variable, i) => {
    const varPath = index(path, i);
    const name = str(variable, "name");
    if (name === "") causes.push(required(child(varPath, "name")));
    else causes.push(...invalidEach(child(varPath, "name"), name, isRelaxedEnvVarName(name)));
    const valueFrom = getObject(variable, "valueFrom");
    if (valueFrom === undefined) return;
    const fromPath = child(varPath, "valueFrom");
    let sources = 0;
    const fieldRef = getObject(valueFrom, "fieldRef");
    if (fieldRef !== undefined) {
      sources++;
      causes.push(...validateFieldRef(fieldRef, VALID_ENV_FIELD_PATHS, child(fromPath, "fieldRef")));
    }
    const resourceRef = getObject(valueFrom, "resourceFieldRef");
    if (resourceRef !== undefined) {
      sources++;
      causes.push(...validateResourceFieldRef(resourceRef, child(fromPath, "resourceFieldRef"), false));
    }
    for (const kind of ["configMapKeyRef", "secretKeyRef"]) {
      const ref = getObject(valueFrom, kind);
      if (ref === undefined) continue;
      sources++;
      causes.push(...validateKeySelector(ref, child(fromPath, kind)));
    }
    if (sources === 0) {
      causes.push(invalid(fromPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    } else if (str(variable, "value") !== "") {
      causes.push(invalid(fromPath, "", "may not be specified when `value` is not empty"));
    } else if (sources > 1) {
      causes.push(invalid(fromPath, "", "may not have more than one field specified at a time"));
    }
  });
  return causes;
}

function validateEnvFrom(envFrom: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  objectsIn(envFrom).forEach((source, i) => {
    const sourcePath = index(path, i);
    const prefix = str(source, "prefix");
    if (prefix !== "") causes.push(...invalidEach(child(sourcePath, "prefix"), prefix, isRelaxedEnvVarName(prefix)));
    let sources = 0;
    for (const kind of ["configMapRef", "secretRef"]) {
      const ref = getObject(source, kind);
      if (ref === undefined) continue;
      sources++;
      const name = str(ref, "name");
      if (name === "") causes.push(required(child(sourcePath, kind, "name")));
      else causes.push(...invalidEach(child(sourcePath, kind, "name"), name, nameIsDNSSubdomain(name, true)));
    }
    if (sources === 0) causes.push(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"));
    else if (sources > 1) causes.push(invalid(path, "", "may not have more than one field specified at a time"));
  });
  return causes;
}

const MOUNT_PROPAGATION = ["None", "HostToContainer", "Bidirectional"];

function validateVolumeMounts(mounts: unknown, devices: unknown, volumes: Map<string, JsonObject>, container: JsonObject, path: string): Cause[] {
  const causes: Cause[] = [];
  const mountPoints = new Set<string>();
  const devicePaths = new Map(objectsIn(devices).map((d) => [str(d, "name"), str(d, "devicePath")]));
  objectsIn(mounts).forEach((mount, i) => {
    const mountPath = index(path, i);
    const name = str(mount, "name");
    const target = str(mount, "mountPath");
    if (name === "") causes.push(required(child(mountPath, "name")));
    if (!volumes.has(name)) causes.push(notFound(child(mountPath, "name"), name));
    if (target === "") causes.push(required(child(mountPath, "mountPath")));
    if (mountPoints.has(target)) causes.push(invalid(child(mountPath, "mountPath"), target, "must be unique"));
    mountPoints.add(target);
    if (devicePaths.has(name)) causes.push(invalid(child(mountPath, "name"), name, "must not already exist in volumeDevices"));
    if ([...devicePaths.values()].includes(target)) {
      causes.push(invalid(child(mountPath, "mountPath"), target, "must not already exist as a path in volumeDevices"));
    }
    const subPath = str(mount, "subPath");
    if (subPath !== "") causes.push(...localDescendingPath(subPath, child(path, "subPath")));
    const subPathExpr = str(mount, "subPathExpr");
    if (subPathExpr !== "") {
      if (subPath !== "") causes.push(invalid(child(mountPath, "subPathExpr"), subPathExpr, "subPathExpr and subPath are mutually exclusive"));
      causes.push(...localDescendingPath(subPathExpr, child(path, "subPathExpr")));
    }
    const propagation = get(mount, "mountPropagation");
    if (typeof propagation === "string") {
      if (!MOUNT_PROPAGATION.includes(propagation)) {
        causes.push(notSupported(child(path, "mountPropagation"), propagation, MOUNT_PROPAGATION));
      } else if (propagation === "Bidirectional" && get(getObject(container, "securityContext"), "privileged") !== true) {
        causes.push(forbidden(child(path, "mountPropagation"), "Bidirectional mount propagation is available only to privileged containers"));
      }
    }
  });
  return causes;
}

const STANDARD_CONTAINER_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage"]);
const STANDARD_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "persistentvolumeclaims",
  "requests.storage",
  "configmaps",
  "services.nodeports",
  "services.loadbalancers",
]);
const isHugePages = (name: string): boolean => name.startsWith("hugepages-");
const isNativeResource = (name: string): boolean => !name.includes("/") || name.includes("kubernetes.io/");
const isExtendedResource = (name: string): boolean =>
  !isNativeResource(name) && !name.startsWith("requests.") && isQualifiedName(`requests.${name}`).length === 0;
const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePages(name);

/** validateContainerResourceName. */
function validateContainerResourceName(name: string, path: string): Cause[] {
  const causes = invalidEach(path, name, isQualifiedName(name), "json");
  if (causes.length > 0) return causes;
  if (!name.includes("/")) {
    if (!STANDARD_RESOURCES.has(name) && !isHugePages(name) && !name.startsWith("requests.hugepages-")) {
      causes.push(invalid(path, name, "must be a standard resource type or fully qualified", "json"));
    }
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) {
      causes.push(invalid(path, name, "must be a standard resource for containers", "json"));
    }
  } else if (!isNativeResource(name) && !isExtendedResource(name)) {
    causes.push(invalid(path, name, "doesn't follow extended resource name standard", "json"));
  }
  return causes;
}

function quantityAt(holder: JsonObject | undefined, name: string): Quantity | undefined {
  const text = quantityText(get(holder, name));
  if (text === undefined) return undefined;
  const parsed = parseQuantity(text);
  return parsed.ok ? parsed.quantity : undefined;
}

/** ValidateResourceQuantityValue. */
function validateQuantityValue(name: string, quantity: Quantity, path: string): Cause[] {
  const causes: Cause[] = [];
  if (sign(quantity) < 0) causes.push(invalid(path, formatQuantity(quantity), IS_NEGATIVE_ERROR_MSG));
  const integral = isExtendedResource(name) || ["pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims"].includes(name);
  if (integral && milliValue(quantity) % 1000n !== 0n) causes.push(invalid(path, formatQuantity(quantity), "must be an integer", "json"));
  return causes;
}

/** ValidateResourceRequirements. */
export function validateResourceRequirements(resources: JsonObject | undefined, path: string): Cause[] {
  const causes: Cause[] = [];
  const limitsPath = child(path, "limits");
  const requestsPath = child(path, "requests");
  const limits = getObject(resources, "limits");
  const requests = getObject(resources, "requests");
  let cpuOrMemory = false;
  let hugePages = false;
  for (const name of sortedKeys(limits ?? {})) {
    const namePath = key(limitsPath, name);
    causes.push(...validateContainerResourceName(name, namePath));
    const quantity = quantityAt(limits, name);
    if (quantity !== undefined) causes.push(...validateQuantityValue(name, quantity, namePath));
    if (isHugePages(name)) hugePages = true;
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
  }
  for (const name of sortedKeys(requests ?? {})) {
    const namePath = key(requestsPath, name);
    causes.push(...validateContainerResourceName(name, namePath));
    const quantity = quantityAt(requests, name);
    if (quantity !== undefined) causes.push(...validateQuantityValue(name, quantity, namePath));
    const limit = quantityAt(limits, name);
    if (quantity !== undefined && limit !== undefined) {
      const shown = formatQuantity(quantity);
      if (compareQuantities(quantity, limit) !== 0 && !isOvercommitAllowed(name)) {
        causes.push(invalid(requestsPath, shown, `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      } else if (compareQuantities(quantity, limit) > 0) {
        causes.push(invalid(requestsPath, shown, `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
      }
    } else if (get(limits, name) === undefined && !isOvercommitAllowed(name)) {
      causes.push(required(limitsPath, "Limit must be set for non overcommitable resources"));
    }
    if (isHugePages(name)) hugePages = true;
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
  }
  if (!cpuOrMemory && hugePages) causes.push(forbidden(path, "HugePages require cpu or memory"));
  return causes;
}

const SCHEMES = ["HTTP", "HTTPS"];

/** ValidatePortNumOrName. */
function validatePortNumOrName(port: unknown, path: string): Cause[] {
  if (typeof port === "number") return invalidEach(path, port, isValidPortNum(port));
  if (typeof port === "string") return invalidEach(path, port, isValidPortName(port));
  return [{ reason: "InternalError", field: path, message: `Internal error: unknown type: ${typeof port}` }];
}

/** validateHandler over a probe or lifecycle handler. */
function validateHandler(handler: JsonObject, gracePeriod: number | undefined, path: string, kinds: readonly string[]): Cause[] {
  const causes: Cause[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = getObject(handler, kind);
    if (action === undefined) continue;
    const actionPath = child(path, kind);
    if (count > 0) {
      causes.push(forbidden(actionPath, "may not specify more than 1 handler type"));
      continue;
    }
    count++;
    switch (kind) {
      case "exec":
        if (strings(action, "command").length === 0) causes.push(required(child(actionPath, "command")));
        break;
      case "httpGet": {
        if (str(action, "path") === "") causes.push(required(child(actionPath, "path")));
        causes.push(...validatePortNumOrName(get(action, "port"), child(actionPath, "port")));
        const scheme = str(action, "scheme");
        if (!SCHEMES.includes(scheme)) causes.push(notSupported(child(actionPath, "scheme"), scheme, SCHEMES));
        for (const header of objectsIn(get(action, "httpHeaders"))) {
          const name = str(header, "name");
          causes.push(...invalidEach(child(actionPath, "httpHeaders"), name, isHTTPHeaderName(name)));
        }
        break;
      }
      case "tcpSocket":
        causes.push(...validatePortNumOrName(get(action, "port"), child(actionPath, "port")));
        break;
      case "grpc":
        causes.push(...validatePortNumOrName(getNumber(action, "port") ?? 0, child(actionPath, "port")));
        break;
      case "sleep": {
        const seconds = getNumber(action, "seconds") ?? 0;
        const grace = gracePeriod ?? 0;
        if (seconds < 0 || seconds > grace) {
          causes.push(invalid(actionPath, seconds, `must be non-negative and less than terminationGracePeriodSeconds (${grace})`));
        }
        break;
      }
    }
  }
  if (count === 0) causes.push(required(path, "must specify a handler type"));
  return causes;
}

const PROBE_HANDLERS = ["exec", "httpGet", "tcpSocket", "grpc"];
const LIFECYCLE_HANDLERS = ["exec", "httpGet", "tcpSocket", "sleep"];

function validateProbe(probe: JsonObject | undefined, gracePeriod: number | undefined, path: string, kind: "liveness" | "readiness" | "startup"): Cause[] {
  if (probe === undefined) return [];
  const causes = validateHandler(probe, gracePeriod, path, PROBE_HANDLERS);
  for (const field of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"]) {
    causes.push(...nonNegative(child(path, field), get(probe, field)));
  }
  const probeGrace = get(probe, "terminationGracePeriodSeconds");
  if (typeof probeGrace === "number" && probeGrace <= 0) {
    causes.push(invalid(child(path, "terminationGracePeriodSeconds"), probeGrace, "must be greater than 0"));
  }
  if (kind === "readiness" && typeof probeGrace === "number") {
    causes.push(invalid(child(path, "terminationGracePeriodSeconds"), probeGrace, "must not be set for readinessProbes"));
  }
  const success = getNumber(probe, "successThreshold") ?? 0;
  if (kind !== "readiness" && success !== 1) causes.push(invalid(child(path, "successThreshold"), success, "must be 1"));
  return causes;
}

function validateLifecycle(lifecycle: JsonObject, gracePeriod: number | undefined, path: string): Cause[] {
  const causes: Cause[] = [];
  for (const hook of ["postStart", "preStop"]) {
    const handler = getObject(lifecycle, hook);
    if (handler !== undefined) causes.push(...validateHandler(handler, gracePeriod, child(path, hook), LIFECYCLE_HANDLERS));
  }
  return causes;
}

const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"];

function validateSecurityContext(context: JsonObject | undefined, path: string): Cause[] {
  if (context === undefined) return [];
  const causes: Cause[] = [];
  for (const field of ["runAsUser", "runAsGroup"]) {
    const id = getNumber(context, field);
    if (id !== undefined) causes.push(...invalidEach(child(path, field), id, isValidID(id)));
  }
  return causes;
}

/** validateContainerCommon. */
function validateContainerCommon(container: JsonObject, volumes: Map<string, JsonObject>, path: string): Cause[] {
  const causes: Cause[] = [];
  const name = str(container, "name");
  if (name === "") causes.push(required(child(path, "name")));
  else causes.push(...invalidEach(child(path, "name"), name, isDNS1123Label(name)));
  if (str(container, "image") === "") causes.push(required(child(path, "image")));
  const policy = str(container, "terminationMessagePolicy");
  if (policy === "") causes.push(required(child(path, "terminationMessagePolicy")));
  else if (!TERMINATION_MESSAGE_POLICIES.includes(policy)) {
    causes.push(notSupported(child(path, "terminationMessagePolicy"), policy, TERMINATION_MESSAGE_POLICIES));
  }
  causes.push(...validateContainerPorts(get(container, "ports"), child(path, "ports")));
  causes.push(...validateEnv(get(container, "env"), child(path, "env")));
  causes.push(...validateEnvFrom(get(container, "envFrom"), child(path, "envFrom")));
  causes.push(...validateVolumeMounts(get(container, "volumeMounts"), get(container, "volumeDevices"), volumes, container, child(path, "volumeMounts")));
  const pullPolicy = str(container, "imagePullPolicy");
  if (pullPolicy === "") causes.push(required(child(path, "imagePullPolicy")));
  else if (!PULL_POLICIES.includes(pullPolicy)) causes.push(notSupported(child(path, "imagePullPolicy"), pullPolicy, PULL_POLICIES));
  causes.push(...validateResourceRequirements(getObject(container, "resources"), child(path, "resources")));
  causes.push(...validateSecurityContext(getObject(container, "securityContext"), child(path, "securityContext")));
  return causes;
}

/** Host ports must not collide across the containers checked together (checkHostPortConflicts). */
function checkHostPortConflicts(containers: readonly JsonObject[], path: string): Cause[] {
  const seen = new Set<string>();
  const causes: Cause[] = [];
  containers.forEach((container, i) => {
    objectsIn(get(container, "ports")).forEach((port, j) => {
      const hostPort = getNumber(port, "hostPort") ?? 0;
      if (hostPort === 0) return;
      const id = `${str(port, "protocol")}/${str(port, "hostIP")}/${hostPort}`;
      if (seen.has(id)) causes.push(duplicate(child(index(child(index(path, i), "ports"), j), "hostPort"), id));
      else seen.add(id);
    });
  });
  return causes;
}

function validateContainers(containers: JsonObject[], volumes: Map<string, JsonObject>, gracePeriod: number | undefined, path: string): Cause[] {
  if (containers.length === 0) return [required(path)];
  const causes: Cause[] = [];
  const names = new Set<string>();
  containers.forEach((container, i) => {
    const containerPath = index(path, i);
    causes.push(...validateContainerCommon(container, volumes, containerPath));
    const name = str(container, "name");
    if (names.has(name)) causes.push(duplicate(child(containerPath, "name"), name));
    else names.add(name);
    const lifecycle = getObject(container, "lifecycle");
    if (lifecycle !== undefined) causes.push(...validateLifecycle(lifecycle, gracePeriod, child(containerPath, "lifecycle")));
    causes.push(...validateProbe(getObject(container, "livenessProbe"), gracePeriod, child(containerPath, "livenessProbe"), "liveness"));
    causes.push(...validateProbe(getObject(container, "readinessProbe"), gracePeriod, child(containerPath, "readinessProbe"), "readiness"));
    causes.push(...validateProbe(getObject(container, "startupProbe"), gracePeriod, child(containerPath, "startupProbe"), "startup"));
    if (get(container, "restartPolicy") !== undefined) causes.push(forbidden(child(containerPath, "restartPolicy"), "may not be set for non-init containers"));
  });
  return [...causes, ...checkHostPortConflicts(containers, path)];
}

function validateInitContainers(
  initContainers: JsonObject[],
  containers: JsonObject[],
  volumes: Map<string, JsonObject>,
  gracePeriod: number | undefined,
  path: string,
): Cause[] {
  const causes: Cause[] = [];
  const names = new Set(containers.map((c) => str(c, "name")));
  initContainers.forEach((container, i) => {
    const containerPath = index(path, i);
    causes.push(...validateContainerCommon(container, volumes, containerPath));
    const restartPolicy = get(container, "restartPolicy");
    if (restartPolicy !== undefined && restartPolicy !== "Always") {
      causes.push(notSupported(child(containerPath, "restartPolicy"), restartPolicy, ["Always"]));
    }
    const name = str(container, "name");
    if (names.has(name)) causes.push(duplicate(child(containerPath, "name"), name));
    else if (name !== "") names.add(name);
    causes.push(...checkHostPortConflicts([container], path));
    if (restartPolicy === "Always") {
      const lifecycle = getObject(container, "lifecycle");
      if (lifecycle !== undefined) causes.push(...validateLifecycle(lifecycle, gracePeriod, child(containerPath, "lifecycle")));
      causes.push(...validateProbe(getObject(container, "livenessProbe"), gracePeriod, child(containerPath, "livenessProbe"), "liveness"));
      causes.push(...validateProbe(getObject(container, "readinessProbe"), gracePeriod, child(containerPath, "readinessProbe"), "readiness"));
      causes.push(...validateProbe(getObject(container, "startupProbe"), gracePeriod, child(containerPath, "startupProbe"), "startup"));
    } else {
      for (const field of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"]) {
        if (get(container, field) !== undefined) {
          causes.push(forbidden(child(containerPath, field), "may not be set for init containers without restartPolicy=Always"));
        }
      }
    }
    if ((getArray(container, "resizePolicy") ?? []).length > 0) {
      causes.push(invalid(child(containerPath, "resizePolicy"), get(container, "resizePolicy"), "must not be set for init containers"));
    }
  });
  return causes;
}

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const PREEMPTION_POLICIES = ["PreemptLowerPriority", "Never"];
const TOLERATION_OPERATORS = ["Equal", "Exists"];
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const WHEN_UNSATISFIABLE = ["DoNotSchedule", "ScheduleAnyway"];

/** ValidateTolerations. */
export function validateTolerations(tolerations: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  objectsIn(tolerations).forEach((toleration, i) => {
    const tolerationPath = index(path, i);
    const tolerationKey = str(toleration, "key");
    const operator = str(toleration, "operator");
    const effect = str(toleration, "effect");
    if (tolerationKey !== "") causes.push(...validateLabelName(tolerationKey, child(tolerationPath, "key")));
    if (tolerationKey === "" && operator !== "Exists") {
      causes.push(
        invalid(child(tolerationPath, "operator"), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"', "json"),
      );
    }
    if (get(toleration, "tolerationSeconds") !== undefined && effect !== "NoExecute") {
      causes.push(invalid(child(tolerationPath, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set", "json"));
    }
    switch (operator) {
      case "Equal":
      case "": {
        const messages = isValidLabelValueJoined(str(toleration, "value"));
        if (messages !== "") causes.push(invalid(child(tolerationPath, "operator"), str(toleration, "value"), messages));
        break;
      }
      case "Exists":
        if (str(toleration, "value") !== "") {
          causes.push(invalid(child(tolerationPath, "operator"), toleration, "value must be empty when `operator` is 'Exists'"));
        }
        break;
      default:
        causes.push(notSupported(child(tolerationPath, "operator"), operator, TOLERATION_OPERATORS));
    }
    if (effect !== "" && !TAINT_EFFECTS.includes(effect)) causes.push(notSupported(child(tolerationPath, "effect"), effect, TAINT_EFFECTS));
  });
  return causes;
}

function isValidLabelValueJoined(value: string): string {
  const messages: string[] = [];
  if (value.length > 63) messages.push("must be no more than 63 characters");
  if (value !== "" && !/^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(value)) {
    messages.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue' or 'my_value' or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  }
  return messages.join(";");
}

function validatePodSecurityContext(context: JsonObject | undefined, path: string): Cause[] {
  if (context === undefined) return [];
  const causes: Cause[] = [];
  for (const field of ["fsGroup", "runAsUser", "runAsGroup"]) {
    const id = getNumber(context, field);
    if (id !== undefined) causes.push(...invalidEach(child(path, field), id, isValidID(id)));
  }
  (getArray(context, "supplementalGroups") ?? []).forEach((gid, i) => {
    if (typeof gid === "number") causes.push(...invalidEach(index(child(path, "supplementalGroups"), i), gid, isValidID(gid)));
  });
  return causes;
}

function validateTopologySpreadConstraints(constraints: unknown, path: string): Cause[] {
  const causes: Cause[] = [];
  const pairs = new Set<string>();
  objectsIn(constraints).forEach((constraint, i) => {
    const constraintPath = index(path, i);
    const maxSkew = getNumber(constraint, "maxSkew") ?? 0;
    if (maxSkew <= 0) causes.push(invalid(child(constraintPath, "maxSkew"), maxSkew, "must be greater than zero"));
    const topologyKey = str(constraint, "topologyKey");
    if (topologyKey === "") causes.push(required(child(constraintPath, "topologyKey"), "can not be empty"));
    else causes.push(...validateLabelName(topologyKey, child(constraintPath, "topologyKey")));
    const when = str(constraint, "whenUnsatisfiable");
    if (when === "") causes.push(required(child(constraintPath, "whenUnsatisfiable")));
    else if (!WHEN_UNSATISFIABLE.includes(when)) causes.push(notSupported(child(constraintPath, "whenUnsatisfiable"), when, WHEN_UNSATISFIABLE));
    const pair = `{${topologyKey}, ${when}}`;
    if (pairs.has(pair)) causes.push(duplicate(constraintPath, pair));
    pairs.add(pair);
    const selector = get(constraint, "labelSelector");
    if (selector !== undefined) causes.push(...validateLabelSelector(selector, child(constraintPath, "labelSelector")));
  });
  return causes;
}

function validateAffinity(affinity: JsonObject | undefined, path: string): Cause[] {
  if (affinity === undefined) return [];
  const causes: Cause[] = [];
  const nodeRequired = getObject(getObject(affinity, "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution");
  if (nodeRequired !== undefined && (getArray(nodeRequired, "nodeSelectorTerms") ?? []).length === 0) {
    causes.push(
      required(
        child(path, "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"),
        "must have at least one node selector term",
      ),
    );
  }
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    const terms = getObject(affinity, kind);
    const termPath = child(path, kind);
    objectsIn(get(terms, "requiredDuringSchedulingIgnoredDuringExecution")).forEach((term, i) => {
      causes.push(...validatePodAffinityTerm(term, index(child(termPath, "requiredDuringSchedulingIgnoredDuringExecution"), i)));
    });
    objectsIn(get(terms, "preferredDuringSchedulingIgnoredDuringExecution")).forEach((weighted, i) => {
      const weightedPath = index(child(termPath, "preferredDuringSchedulingIgnoredDuringExecution"), i);
      const weight = getNumber(weighted, "weight") ?? 0;
      if (weight <= 0 || weight > 100) causes.push(invalid(child(weightedPath, "weight"), weight, "must be in the range 1-100"));
      causes.push(...validatePodAffinityTerm(getObject(weighted, "podAffinityTerm") ?? {}, child(weightedPath, "podAffinityTerm")));
    });
  }
  return causes;
}

function validatePodAffinityTerm(term: JsonObject, path: string): Cause[] {
  const causes = validateLabelSelector(get(term, "labelSelector"), child(path, "labelSelector"));
  for (const namespace of strings(term, "namespaces")) causes.push(...invalidEach(child(path, "namespace"), namespace, isDNS1123Label(namespace)));
  const topologyKey = str(term, "topologyKey");
  if (topologyKey === "") causes.push(required(child(path, "topologyKey"), "can not be empty"));
  return [...causes, ...validateLabelName(topologyKey, child(path, "topologyKey"))];
}

/** ValidatePodSpec. */
export function validatePodSpec(spec: JsonObject, path: string, options: PodValidationOptions): Cause[] {
  const causes: Cause[] = [];
  const grace = get(spec, "terminationGracePeriodSeconds");
  if (grace === undefined || grace === null) causes.push(required(child(path, "terminationGracePeriodSeconds")));
  const gracePeriod = typeof grace === "number" ? grace : undefined;
  const { names: volumes, causes: volumeCauses } = validateVolumes(get(spec, "volumes"), child(path, "volumes"));
  causes.push(...volumeCauses);
  const containers = objectsIn(get(spec, "containers"));
  causes.push(...validateContainers(containers, volumes, gracePeriod, child(path, "containers")));
  causes.push(...validateInitContainers(objectsIn(get(spec, "initContainers")), containers, volumes, gracePeriod, child(path, "initContainers")));
  if (get(spec, "hostNetwork") === true) {
    containers.forEach((container, i) => {
      objectsIn(get(container, "ports")).forEach((port, j) => {
        const hostPort = getNumber(port, "hostPort") ?? 0;
        const containerPort = getNumber(port, "containerPort") ?? 0;
        if ((options.resourceIsPod || hostPort !== 0) && hostPort !== containerPort) {
          causes.push(
            invalid(child(index(child(index(child(path, "containers"), i), "ports"), j), "hostPort"), hostPort, "must match `containerPort` when `hostNetwork` is true"),
          );
        }
      });
    });
  }
  const restartPolicy = str(spec, "restartPolicy");
  if (restartPolicy === "") causes.push(required(child(path, "restartPolicy")));
  else if (!RESTART_POLICIES.includes(restartPolicy)) causes.push(notSupported(child(path, "restartPolicy"), restartPolicy, RESTART_POLICIES));
  const dnsPolicy = str(spec, "dnsPolicy");
  if (dnsPolicy === "") causes.push(required(child(path, "dnsPolicy")));
  else if (!DNS_POLICIES.includes(dnsPolicy)) causes.push(notSupported(child(path, "dnsPolicy"), dnsPolicy, DNS_POLICIES));
  causes.push(...validateLabels(get(spec, "nodeSelector"), child(path, "nodeSelector")));
  causes.push(...validatePodSecurityContext(getObject(spec, "securityContext"), child(path, "securityContext")));
  causes.push(...validateAffinity(getObject(spec, "affinity"), child(path, "affinity")));
  if (dnsPolicy === "None") {
    const dnsConfig = getObject(spec, "dnsConfig");
    if (dnsConfig === undefined) causes.push(required(child(path, "dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None"));
    else if ((getArray(dnsConfig, "nameservers") ?? []).length === 0) {
      causes.push(required(child(path, "dnsConfig", "nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"));
    }
  }
  objectsIn(get(spec, "readinessGates")).forEach((gate, i) => {
    const conditionType = str(gate, "conditionType");
    causes.push(...invalidEach(child(index(child(path, "readinessGates"), i), "conditionType"), conditionType, isQualifiedName(conditionType)));
  });
  const gateNames = new Set<string>();
  objectsIn(get(spec, "schedulingGates")).forEach((gate, i) => {
    const name = str(gate, "name");
    const gatePath = index(child(path, "schedulingGates"), i);
    causes.push(...invalidEach(gatePath, name, isQualifiedName(name)));
    if (gateNames.has(name)) causes.push(duplicate(gatePath, name));
    gateNames.add(name);
  });
  causes.push(...validateTopologySpreadConstraints(get(spec, "topologySpreadConstraints"), child(path, "topologySpreadConstraints")));
  for (const field of ["serviceAccountName", "nodeName"]) {
    const value = str(spec, field);
    if (value !== "") causes.push(...invalidEach(child(path, field), value, isDNS1123Subdomain(value)));
  }
  const deadline = get(spec, "activeDeadlineSeconds");
  if (typeof deadline === "number" && (deadline < 1 || deadline > MAX_INT32)) {
    causes.push(invalid(child(path, "activeDeadlineSeconds"), deadline, inclusiveRangeError(1, MAX_INT32)));
  }
  for (const field of ["hostname", "subdomain"]) {
    const value = str(spec, field);
    if (value !== "") causes.push(...invalidEach(child(path, field), value, isDNS1123Label(value)));
  }
  causes.push(...validateTolerations(get(spec, "tolerations"), child(path, "tolerations")));
  objectsIn(get(spec, "hostAliases")).forEach((alias, i) => {
    const aliasPath = index(child(path, "hostAliases"), i);
    const ip = str(alias, "ip");
    if (!isValidIP(ip)) causes.push(invalid(child(aliasPath, "ip"), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    strings(alias, "hostnames").forEach((hostname, j) => {
      causes.push(...invalidEach(index(child(aliasPath, "hostnames"), j), hostname, isDNS1123Subdomain(hostname)));
    });
  });
  const priorityClassName = str(spec, "priorityClassName");
  if (priorityClassName !== "") causes.push(...invalidEach(child(path, "priorityClassName"), priorityClassName, isDNS1123Subdomain(priorityClassName)));
  const runtimeClassName = get(spec, "runtimeClassName");
  if (typeof runtimeClassName === "string") {
    causes.push(...invalidEach(child(path, "runtimeClassName"), runtimeClassName, isDNS1123Subdomain(runtimeClassName)));
  }
  const preemptionPolicy = get(spec, "preemptionPolicy");
  if (typeof preemptionPolicy === "string") {
    if (preemptionPolicy === "") causes.push(required(child(path, "preemptionPolicy")));
    else if (!PREEMPTION_POLICIES.includes(preemptionPolicy)) {
      causes.push(notSupported(child(path, "preemptionPolicy"), preemptionPolicy, PREEMPTION_POLICIES));
    }
  }
  const overhead = getObject(spec, "overhead");
  if (overhead !== undefined) causes.push(...validateResourceRequirements({ limits: overhead }, child(path, "overhead")));
  const osName = get(getObject(spec, "os"), "name");
  if (typeof osName === "string" && osName !== "linux" && osName !== "windows") {
    causes.push(notSupported(child(path, "os", "name"), osName, ["linux", "windows"]));
  }
  return causes;
}

const MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";
const DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost";

/** ValidatePodSpecificAnnotations (mirror pods and pod-deletion-cost). */
export function validatePodSpecificAnnotations(annotations: unknown, spec: JsonObject, path: string): Cause[] {
  const causes: Cause[] = [];
  const mirror = get(annotations, MIRROR_POD_ANNOTATION);
  if (typeof mirror === "string" && str(spec, "nodeName") === "") {
    causes.push(invalid(key(path, MIRROR_POD_ANNOTATION), mirror, "must set spec.nodeName if mirror pod annotation is set"));
  }
  const cost = get(annotations, DELETION_COST_ANNOTATION);
  if (typeof cost === "string" && !/^[+-]?\d+$/.test(cost)) {
    causes.push(invalid(key(path, DELETION_COST_ANNOTATION), cost, "must be a 32bit integer"));
  } else if (typeof cost === "string" && Math.abs(Number(cost)) > MAX_INT32 + (cost.startsWith("-") ? 1 : 0)) {
    causes.push(invalid(key(path, DELETION_COST_ANNOTATION), cost, "must be a 32bit integer"));
  }
  return causes;
}

/** validatePodMetadataAndSpec. */
function validatePodMetadataAndSpec(pod: JsonObject): Cause[] {
  const metadata = getObject(pod, "metadata");
  const spec = getObject(pod, "spec") ?? {};
  const causes = validateObjectMeta(metadata, true, nameIsDNSSubdomain);
  causes.push(...validatePodSpecificAnnotations(get(metadata, "annotations"), spec, "metadata.annotations"));
  causes.push(...validatePodSpec(spec, "spec", { resourceIsPod: true }));
  if (str(spec, "serviceAccountName") === "") {
    objectsIn(get(spec, "volumes")).forEach((volume, i) => {
      objectsIn(get(getObject(volume, "projected"), "sources")).forEach((source, j) => {
        if (getObject(source, "serviceAccountToken") !== undefined) {
          causes.push(
            forbidden(
              child(index(child(index(child("spec", "volumes"), i), "projected", "sources"), j), "serviceAccountToken"),
              "must not be specified when serviceAccountName is not set",
            ),
          );
        }
      });
    });
  }
  for (const listName of ["containers", "initContainers"]) {
    objectsIn(get(spec, listName)).forEach((container, i) => {
      const image = str(container, "image");
      if (image !== image.trim()) causes.push(invalid(child(index(child("spec", listName), i), "image"), image, "must not have leading or trailing whitespace"));
    });
  }
  return causes;
}

/** ValidatePodCreate. */
export function validatePodCreate(pod: JsonObject): Cause[] {
  const causes = validatePodMetadataAndSpec(pod);
  const spec = getObject(pod, "spec") ?? {};
  if ((getArray(spec, "ephemeralContainers") ?? []).length > 0) causes.push(forbidden("spec.ephemeralContainers", "cannot be set on create"));
  if (str(spec, "nodeName") !== "" && (getArray(spec, "schedulingGates") ?? []).length > 0) {
    causes.push(forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"));
  }
  return causes;
}

const UPDATABLE_POD_SPEC_FIELDS = [
  "`spec.containers[*].image`",
  "`spec.initContainers[*].image`",
  "`spec.activeDeadlineSeconds`",
  "`spec.tolerations` (only additions to existing tolerations)",
  "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
];

/** ValidateContainerUpdates: the container count is fixed; images must stay present and trimmed. */
function validateContainerUpdates(containers: JsonObject[], oldContainers: JsonObject[], path: string): { causes: Cause[]; stop: boolean } {
  if (containers.length !== oldContainers.length) return { causes: [forbidden(path, "pod updates may not add or remove containers")], stop: true };
  const causes: Cause[] = [];
  containers.forEach((container, i) => {
    const image = str(container, "image");
    if (image === "") causes.push(required(child(index(path, i), "image")));
    if (image.trim() !== image) causes.push(invalid(child(index(path, i), "image"), image, "must not have leading or trailing whitespace"));
  });
  return { causes, stop: false };
}

function tolerationIdentity(toleration: JsonObject): JsonObject {
  return { key: str(toleration, "key"), operator: str(toleration, "operator"), value: str(toleration, "value"), effect: str(toleration, "effect") };
}

/** validateOnlyAddedTolerations. */
function validateOnlyAddedTolerations(tolerations: unknown, oldTolerations: unknown, path: string): Cause[] {
  const current = objectsIn(tolerations).map(tolerationIdentity);
  for (const old of objectsIn(oldTolerations)) {
    const identity = tolerationIdentity(old);
    if (!current.some((t) => semanticEqual(t, identity))) {
      return [forbidden(path, "existing toleration can not be modified except its tolerationSeconds")];
    }
  }
  return validateTolerations(tolerations, path);
}

/** ValidatePodUpdate. */
export function validatePodUpdate(pod: JsonObject, oldPod: JsonObject): Cause[] {
  const metadata = getObject(pod, "metadata");
  const causes = validateObjectMetaUpdate(metadata, getObject(oldPod, "metadata"));
  causes.push(...validatePodMetadataAndSpec(pod));
  causes.push(...validatePodAnnotationUpdates(get(metadata, "annotations"), get(getObject(oldPod, "metadata"), "annotations")));
  const spec = getObject(pod, "spec") ?? {};
  const oldSpec = getObject(oldPod, "spec") ?? {};
  for (const listName of ["containers", "initContainers"]) {
    const result = validateContainerUpdates(objectsIn(get(spec, listName)), objectsIn(get(oldSpec, listName)), child("spec", listName));
    causes.push(...result.causes);
    if (result.stop) return causes;
  }
  const deadline = get(spec, "activeDeadlineSeconds");
  const oldDeadline = get(oldSpec, "activeDeadlineSeconds");
  if (typeof deadline === "number") {
    if (deadline < 0 || deadline > MAX_INT32) {
      causes.push(invalid("spec.activeDeadlineSeconds", deadline, inclusiveRangeError(0, MAX_INT32)));
      return causes;
    }
    if (typeof oldDeadline === "number" && oldDeadline < deadline) {
      causes.push(invalid("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value"));
      return causes;
    }
  } else if (typeof oldDeadline === "number") {
    causes.push(invalid("spec.activeDeadlineSeconds", null, "must not update from a positive integer to nil value"));
  }
  causes.push(...validateOnlyAddedTolerations(get(spec, "tolerations"), get(oldSpec, "tolerations"), "spec.tolerations"));
  const oldGates = new Set(objectsIn(get(oldSpec, "schedulingGates")).map((g) => str(g, "name")));
  objectsIn(get(spec, "schedulingGates")).forEach((gate, i) => {
    const name = str(gate, "name");
    if (!oldGates.has(name)) {
      causes.push(forbidden(child(index("spec.schedulingGates", i), "name"), `only deletion is allowed, but found new scheduling gate '${name}'`));
    }
  });
  if (semanticEqual(spec, oldSpec, quantitiesEqual)) return causes;
  const oldQOS = getString(getObject(oldPod, "status"), "qosClass") ?? computeQOSClass(oldSpec);
  if (oldQOS !== computeQOSClass(spec)) {
    causes.push(invalid("metadata", get(getObject(pod, "status"), "qosClass") ?? "", "Pod QoS is immutable", "json"));
  }
  const munged = mungePodSpec(spec, oldSpec);
  if (!semanticEqual(munged, oldSpec, quantitiesEqual)) {
    causes.push(
      forbidden(
        "spec",
        `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(",")}\n${structDiff("core.PodSpec", oldSpec, munged)}`,
      ),
    );
  }
  return causes;
}

/** The new spec with every updatable field reset to the old value (ValidatePodUpdate's munging). */
function mungePodSpec(spec: JsonObject, oldSpec: JsonObject): JsonObject {
  const munged: JsonObject = JSON.parse(JSON.stringify(spec)) as JsonObject;
  for (const listName of ["containers", "initContainers"]) {
    const oldContainers = objectsIn(get(oldSpec, listName));
    objectsIn(get(munged, listName)).forEach((container, i) => {
      const oldImage = get(oldContainers[i], "image");
      if (oldImage === undefined) Reflect.deleteProperty(container, "image");
      else container["image"] = oldImage;
    });
  }
  for (const field of ["activeDeadlineSeconds", "schedulingGates", "tolerations"]) {
    const oldValue = get(oldSpec, field);
    if (oldValue === undefined) Reflect.deleteProperty(munged, field);
    else munged[field] = oldValue;
  }
  const oldGrace = getNumber(oldSpec, "terminationGracePeriodSeconds");
  if (oldGrace !== undefined && oldGrace < 0 && get(munged, "terminationGracePeriodSeconds") === 1) {
    munged["terminationGracePeriodSeconds"] = oldGrace;
  }
  return munged;
}

/** ValidatePodSpecificAnnotationUpdates: the mirror-pod annotation cannot be added, changed or removed. */
function validatePodAnnotationUpdates(annotations: unknown, oldAnnotations: unknown): Cause[] {
  const causes: Cause[] = [];
  const path = "metadata.annotations";
  const now = get(annotations, MIRROR_POD_ANNOTATION);
  const before = get(oldAnnotations, MIRROR_POD_ANNOTATION);
  if (before !== undefined && now !== before) causes.push(forbidden(key(path, MIRROR_POD_ANNOTATION), "may not remove or update mirror pod annotation"));
  if (before === undefined && now !== undefined) causes.push(forbidden(key(path, MIRROR_POD_ANNOTATION), "may not add mirror pod annotation"));
  return causes;
}

const SYSTEM_CONDITIONS = new Set(["PodScheduled", "Ready", "Initialized"]);

/** A terminated container of a pod that does not restart it may not come back (ValidateContainerStateTransition). */
function validateStateTransitions(statuses: unknown, oldStatuses: unknown, restartPolicy: string, path: string): Cause[] {
  if (restartPolicy === "Always") return [];
  const causes: Cause[] = [];
  objectsIn(oldStatuses).forEach((old, i) => {
    const terminated = getObject(getObject(old, "state"), "terminated");
    if (terminated === undefined) return;
    if ((getNumber(terminated, "exitCode") ?? 0) !== 0 && restartPolicy === "OnFailure") return;
    for (const current of objectsIn(statuses)) {
      if (str(current, "name") === str(old, "name") && getObject(getObject(current, "state"), "terminated") === undefined) {
        causes.push(forbidden(child(index(path, i), "state"), "may not be transitioned to non-terminated state"));
      }
    }
  });
  return causes;
}

/** ValidatePodStatusUpdate. */
export function validatePodStatusUpdate(pod: JsonObject, oldPod: JsonObject): Cause[] {
  const metadata = getObject(pod, "metadata");
  const causes = validateObjectMetaUpdate(metadata, getObject(oldPod, "metadata"));
  causes.push(...validatePodAnnotationUpdates(get(metadata, "annotations"), get(getObject(oldPod, "metadata"), "annotations")));
  const status = getObject(pod, "status");
  const oldStatus = getObject(oldPod, "status");
  objectsIn(get(status, "conditions")).forEach((condition, i) => {
    const type = str(condition, "type");
    if (!SYSTEM_CONDITIONS.has(type)) causes.push(...invalidEach(child(index("metadata.conditions", i), "Type"), type, isQualifiedName(type)));
  });
  const nominated = str(status, "nominatedNodeName");
  if (nominated !== "" && nominated !== str(oldStatus, "nominatedNodeName")) {
    causes.push(...invalidEach("status.nominatedNodeName", nominated, isDNS1123Subdomain(nominated)));
  }
  const restartPolicy = str(getObject(oldPod, "spec"), "restartPolicy");
  causes.push(...validateStateTransitions(get(status, "containerStatuses"), get(oldStatus, "containerStatuses"), restartPolicy, "status.containerStatuses"));
  objectsIn(get(status, "podIPs")).forEach((podIP, i) => {
    const ip = str(podIP, "ip");
    if (!isValidIP(ip)) causes.push(invalid(index("status.podIPs", i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  });
  const hostIPs = objectsIn(get(status, "hostIPs"));
  if (hostIPs.length > 0 && str(hostIPs[0], "ip") !== str(status, "hostIP")) {
    causes.push(invalid("status.hostIPs[0].ip", str(hostIPs[0], "ip"), "must be equal to `hostIP`"));
  }
  return causes;
}

/** Pod template annotations that ValidatePodTemplateSpecForStatefulSet checks (path is the template's). */
export function validateTemplateMetadata(template: JsonObject, path: string): Cause[] {
  const metadata = getObject(template, "metadata");
  return [
    ...validateLabels(get(metadata, "labels"), child(path, "labels")),
    ...validateAnnotations(get(metadata, "annotations"), child(path, "annotations")),
    ...validatePodSpecificAnnotations(get(metadata, "annotations"), getObject(template, "spec") ?? {}, child(path, "annotations")),
  ];
}
