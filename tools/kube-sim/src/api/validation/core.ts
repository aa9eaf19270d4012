// Namespace, Service, ConfigMap, Secret, Event (both APIs), Lease and Node validation (core validation.go,
// core/validation/events.go, coordination/validation).

import { child, duplicate, forbidden, index, invalid, invalidEach, key, notSupported, required, tooLong, type Cause } from "../field.ts";
import { get, getArray, getNumber, getObject, isObject, semanticEqual, sortedKeys, utf8Length, type JsonObject } from "../json.ts";
import {
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidIP,
  isValidPortName,
  isValidPortNum,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from "../names.ts";
import { str, strings, validateFinalizers, validateImmutable, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from "./meta.ts";

/** ValidateNamespace. */
export function validateNamespace(namespace: JsonObject): Cause[] {
  const causes = validateObjectMeta(getObject(namespace, "metadata"), false, nameIsDNSLabel);
  for (const name of strings(getObject(namespace, "spec"), "finalizers")) {
    causes.push(...invalidEach("spec.finalizers", name, isQualifiedName(name)));
    if (!name.includes("/") && name !== "kubernetes" && name !== "orphan" && name !== "foregroundDeletion") {
      causes.push(invalid("spec.finalizers", name, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
  return causes;
}

/** ValidateNamespaceStatusUpdate: the phase follows the deletion timestamp. */
export function validateNamespaceStatusUpdate(namespace: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(namespace, "metadata"), getObject(old, "metadata"));
  const phase = str(getObject(namespace, "status"), "phase");
  const deleting = get(getObject(namespace, "metadata"), "deletionTimestamp");
  if (deleting === undefined || deleting === null) {
    if (phase !== "Active") causes.push(invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty", "json"));
  } else if (phase !== "Terminating") {
    causes.push(invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty", "json"));
  }
  return causes;
}

/** ValidateNamespaceFinalizeUpdate. */
export function validateNamespaceFinalizeUpdate(namespace: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(namespace, "metadata"), getObject(old, "metadata"));
  const finalizers = strings(getObject(namespace, "spec"), "finalizers");
  finalizers.forEach((name, i) => causes.push(...validateFinalizers([name], index("spec.finalizers", i))));
  return causes;
}

const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];
const SESSION_AFFINITIES = ["ClientIP", "None"];
const SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const TRAFFIC_POLICIES = ["Cluster", "Local"];
const IP_FAMILY_POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];
const IP_FAMILIES = ["IPv4", "IPv6"];
const KUBELET_PORT = 10250;
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;

function isHeadless(spec: JsonObject): boolean {
  return str(spec, "clusterIP") === "None";
}

/** The internal core.ServicePort used as a duplicate key, rendered by encoding/json. */
function servicePortKey(port: JsonObject): JsonObject {
  return { Name: "", Protocol: str(port, "protocol"), AppProtocol: null, Port: getNumber(port, "port") ?? 0, TargetPort: 0, NodePort: 0 };
}

function validateServicePorts(spec: JsonObject, path: string): Cause[] {
  const causes: Cause[] = [];
  const ports = Array.isArray(get(spec, "ports")) ? (get(spec, "ports") as unknown[]).filter(isObject) : [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const portPath = index(path, i);
    const name = str(port, "name");
    if (ports.length > 1 && name === "") causes.push(required(child(portPath, "name")));
    else if (name !== "") {
      causes.push(...invalidEach(child(portPath, "name"), name, isDNS1123Label(name)));
      if (names.has(name)) causes.push(duplicate(child(portPath, "name"), name));
      else names.add(name);
    }
    const number = getNumber(port, "port") ?? 0;
    causes.push(...invalidEach(child(portPath, "port"), number, isValidPortNum(number)));
    const protocol = str(port, "protocol");
    if (protocol === "") causes.push(required(child(portPath, "protocol")));
    else if (!PORT_PROTOCOLS.includes(protocol)) causes.push(notSupported(child(portPath, "protocol"), protocol, PORT_PROTOCOLS));
    const target = get(port, "targetPort");
    if (typeof target === "number") causes.push(...invalidEach(child(portPath, "targetPort"), target, isValidPortNum(target)));
    else if (typeof target === "string") causes.push(...invalidEach(child(portPath, "targetPort"), target, isValidPortName(target)));
    const appProtocol = get(port, "appProtocol");
    if (typeof appProtocol === "string") causes.push(...invalidEach(child(portPath, "appProtocol"), appProtocol, isQualifiedName(appProtocol)));
  });
  const nodePorts = new Set<string>();
  const portKeys = new Set<string>();
  ports.forEach((port, i) => {
    const nodePort = getNumber(port, "nodePort") ?? 0;
    if (nodePort !== 0) {
      const id = `${str(port, "protocol")}/${nodePort}`;
      if (nodePorts.has(id)) causes.push(duplicate(child(index(path, i), "nodePort"), nodePort));
      nodePorts.add(id);
    }
    const id = `${str(port, "protocol")}/${getNumber(port, "port") ?? 0}`;
    if (portKeys.has(id)) causes.push(duplicate(index(path, i), servicePortKey(port)));
    portKeys.add(id);
  });
  return causes;
}

function validateClusterIPs(spec: JsonObject): Cause[] {
  const causes: Cause[] = [];
  const clusterIPs = getArray(spec, "clusterIPs") ?? [];
  const clusterIP = str(spec, "clusterIP");
  if (clusterIPs.length > 0 && clusterIP !== clusterIPs[0]) {
    causes.push(invalid("spec.clusterIPs", clusterIPs, "first value must match `clusterIP`"));
  }
  clusterIPs.forEach((ip, i) => {
    if (ip === "None" && i === 0) return;
    if (typeof ip !== "string" || !isValidIP(ip)) {
      causes.push(invalid(index("spec.clusterIPs", i), ip, "must be empty, 'None', or a valid IP address"));
    }
  });
  const policy = get(spec, "ipFamilyPolicy");
  if (typeof policy === "string" && !IP_FAMILY_POLICIES.includes(policy)) {
    causes.push(notSupported("spec.ipFamilyPolicy", policy, IP_FAMILY_POLICIES));
  }
  const seen = new Set<unknown>();
  (getArray(spec, "ipFamilies") ?? []).forEach((family, i) => {
    if (typeof family !== "string" || !IP_FAMILIES.includes(family)) causes.push(notSupported(index("spec.ipFamilies", i), family, IP_FAMILIES));
    if (seen.has(family)) causes.push(duplicate(index("spec.ipFamilies", i), family, "json"));
    seen.add(family);
  });
  return causes;
}

/** ValidateService. */
export function validateService(service: JsonObject): Cause[] {
  const causes = validateObjectMeta(getObject(service, "metadata"), true, nameIsDNS1035Label);
  const spec = getObject(service, "spec") ?? {};
  const type = str(spec, "type");
  const ports = getArray(spec, "ports") ?? [];
  if (ports.length === 0 && !isHeadless(spec) && type !== "ExternalName") causes.push(required("spec.ports"));
  if (type === "LoadBalancer") {
    ports.forEach((port, i) => {
      if (getNumber(port, "port") === KUBELET_PORT) {
        causes.push(invalid(index("spec.ports", i), KUBELET_PORT, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
      }
    });
  }
  if ((type === "LoadBalancer" || type === "NodePort") && isHeadless(spec)) {
    causes.push(invalid("spec.clusterIPs[0]", "None", `may not be set to 'None' for ${type} services`));
  }
  if (type === "ExternalName") {
    if ((getArray(spec, "clusterIPs") ?? []).length > 0) causes.push(forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
    if ((getArray(spec, "ipFamilies") ?? []).length > 0) causes.push(forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
    if (get(spec, "ipFamilyPolicy") !== undefined) causes.push(forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
    const cname = str(spec, "externalName").replace(/\.$/, "");
    if (cname === "") causes.push(required("spec.externalName"));
    else causes.push(...invalidEach("spec.externalName", cname, isDNS1123Subdomain(cname)));
  }
  causes.push(...validateServicePorts(spec, "spec.ports"));
  if (isObject(get(spec, "selector"))) causes.push(...validateLabels(get(spec, "selector"), "spec.selector"));
  const affinity = str(spec, "sessionAffinity");
  if (affinity === "") causes.push(required("spec.sessionAffinity"));
  else if (!SESSION_AFFINITIES.includes(affinity)) causes.push(notSupported("spec.sessionAffinity", affinity, SESSION_AFFINITIES));
  if (affinity === "ClientIP") {
    const timeout = get(getObject(getObject(spec, "sessionAffinityConfig"), "clientIP"), "timeoutSeconds");
    const configPath = "spec.sessionAffinityConfig.clientIP.timeoutSeconds";
    if (typeof timeout !== "number") causes.push(required(configPath, "when session affinity type is ClientIP"));
    else if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS) {
      causes.push(invalid(configPath, timeout, `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`));
    }
  } else if (affinity === "None" && get(spec, "sessionAffinityConfig") !== undefined) {
    causes.push(forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"));
  }
  if (type !== "ExternalName") causes.push(...validateClusterIPs(spec));
  (getArray(spec, "externalIPs") ?? []).forEach((ip, i) => {
    if (typeof ip !== "string" || !isValidIP(ip)) causes.push(invalid(index("spec.externalIPs", i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  });
  if (type === "") causes.push(required("spec.type"));
  else if (!SERVICE_TYPES.includes(type)) causes.push(notSupported("spec.type", type, SERVICE_TYPES));
  if (type === "ClusterIP") {
    ports.forEach((port, i) => {
      if ((getNumber(port, "nodePort") ?? 0) !== 0) causes.push(forbidden(child(index("spec.ports", i), "nodePort"), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  if ((getArray(spec, "loadBalancerSourceRanges") ?? []).length > 0 && type !== "LoadBalancer") {
    causes.push(forbidden("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"));
  }
  if (get(spec, "allocateLoadBalancerNodePorts") !== undefined && type !== "LoadBalancer") {
    causes.push(forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"));
  }
  const accessible = type === "LoadBalancer" || type === "NodePort" || (type === "ClusterIP" && (getArray(spec, "externalIPs") ?? []).length > 0);
  const external = str(spec, "externalTrafficPolicy");
  if (!accessible && external !== "") {
    causes.push(invalid("spec.externalTrafficPolicy", external, "may only be set for externally-accessible services", "json"));
  } else if (accessible && external === "") causes.push(required("spec.externalTrafficPolicy"));
  else if (accessible && !TRAFFIC_POLICIES.includes(external)) causes.push(notSupported("spec.externalTrafficPolicy", external, TRAFFIC_POLICIES));
  const internal = get(spec, "internalTrafficPolicy");
  if (internal === undefined && (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP")) causes.push(required("spec.internalTrafficPolicy"));
  if (typeof internal === "string" && !TRAFFIC_POLICIES.includes(internal)) causes.push(notSupported("spec.internalTrafficPolicy", internal, TRAFFIC_POLICIES));
  return causes;
}

/** ValidateServiceUpdate: assigned cluster IPs and the primary IP family never change. */
export function validateServiceUpdate(service: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(service, "metadata"), getObject(old, "metadata"));
  const spec = getObject(service, "spec") ?? {};
  const oldSpec = getObject(old, "spec") ?? {};
  const external = str(spec, "type") === "ExternalName" || str(oldSpec, "type") === "ExternalName";
  if (!external && !(isHeadless(spec) && isHeadless(oldSpec))) {
    const ips = getArray(spec, "clusterIPs") ?? [];
    const oldIPs = getArray(oldSpec, "clusterIPs") ?? [];
    if (ips.length === 0 && oldIPs.length > 0) causes.push(invalid("spec.clusterIPs[0]", ips, "primary clusterIP can not be unset"));
    oldIPs.forEach((ip, i) => {
      if (i < ips.length && ips[i] !== ip) causes.push(invalid(index("spec.clusterIPs", i), ips, "may not change once set"));
    });
    const families = getArray(spec, "ipFamilies") ?? [];
    const oldFamilies = getArray(oldSpec, "ipFamilies") ?? [];
    if (oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
      causes.push(invalid("spec.ipFamilies[0]", families, "may not change once set"));
    }
  }
  return [...causes, ...validateService(service)];
}

/** core.MaxSecretSize, which also bounds ConfigMaps. */
const MAX_CONFIG_MAP_BYTES = 1024 * 1024;

function base64Bytes(value: unknown): number {
  if (typeof value !== "string") return 0;
  return Math.floor((value.replace(/=+$/, "").length * 3) / 4);
}

/** ValidateConfigMap. */
export function validateConfigMap(configMap: JsonObject): Cause[] {
  const causes = validateObjectMeta(getObject(configMap, "metadata"), true, nameIsDNSSubdomain);
  const data = getObject(configMap, "data") ?? {};
  const binary = getObject(configMap, "binaryData") ?? {};
  let totalBytes = 0;
  for (const name of sortedKeys(data)) {
    causes.push(...invalidEach(key("data", name), name, isConfigMapKey(name)));
    if (Object.hasOwn(binary, name)) causes.push(invalid(key("data", name), name, "duplicate of key present in binaryData"));
    const value = data[name];
    totalBytes += typeof value === "string" ? utf8Length(value) : 0;
  }
  for (const name of sortedKeys(binary)) {
    causes.push(...invalidEach(key("binaryData", name), name, isConfigMapKey(name)));
    totalBytes += base64Bytes(binary[name]);
  }
  if (totalBytes > MAX_CONFIG_MAP_BYTES) causes.push(tooLong("", MAX_CONFIG_MAP_BYTES));
  return causes;
}

/** ValidateConfigMapUpdate: an immutable ConfigMap keeps its data. */
export function validateConfigMapUpdate(configMap: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(configMap, "metadata"), getObject(old, "metadata"));
  if (get(old, "immutable") === true) {
    if (get(configMap, "immutable") !== true) causes.push(forbidden("immutable", "field is immutable when `immutable` is set"));
    for (const field of ["data", "binaryData"]) {
      if (!semanticEqual(get(configMap, field), get(old, field))) causes.push(forbidden(field, "field is immutable when `immutable` is set"));
    }
  }
  return [...causes, ...validateConfigMap(configMap)];
}

const MAX_SECRET_BYTES = 1024 * 1024;

/** Keys the typed Secrets must carry (core validation ValidateSecret; the docker config types are not checked). */
function validateSecretType(secret: JsonObject, data: JsonObject): Cause[] {
  const has = (name: string) => Object.hasOwn(data, name);
  switch (str(secret, "type")) {
    case "kubernetes.io/service-account-token": {
      const annotations = getObject(getObject(secret, "metadata"), "annotations");
      return str(annotations, "kubernetes.io/service-account.name") === "" ? [required(key("metadata.annotations", "kubernetes.io/service-account.name"))] : [];
    }
    case "kubernetes.io/basic-auth":
      return has("username") || has("password") ? [] : [required(key("data", "username")), required(key("data", "password"))];
    case "kubernetes.io/ssh-auth":
      return has("ssh-privatekey") ? [] : [required(key("data", "ssh-privatekey"))];
    case "kubernetes.io/tls":
      return [...(has("tls.crt") ? [] : [required(key("data", "tls.crt"))]), ...(has("tls.key") ? [] : [required(key("data", "tls.key"))])];
    default:
      return [];
  }
}

/** ValidateSecret (after stringData was folded into data, as the conversion does). */
export function validateSecret(secret: JsonObject): Cause[] {
  const causes = validateObjectMeta(getObject(secret, "metadata"), true, nameIsDNSSubdomain);
  const data = getObject(secret, "data") ?? {};
  let totalBytes = 0;
  for (const name of sortedKeys(data)) {
    causes.push(...invalidEach(key("data", name), name, isConfigMapKey(name)));
    totalBytes += base64Bytes(data[name]);
  }
  if (totalBytes > MAX_SECRET_BYTES) causes.push(tooLong("data", MAX_SECRET_BYTES));
  return [...causes, ...validateSecretType(secret, data)];
}

/** ValidateSecretUpdate: the type never changes, an immutable Secret keeps its data. */
export function validateSecretUpdate(secret: JsonObject, old: JsonObject): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(secret, "metadata"), getObject(old, "metadata"));
  causes.push(...validateImmutable(str(secret, "type"), str(old, "type"), "type"));
  if (get(old, "immutable") === true) {
    if (get(secret, "immutable") !== true) causes.push(forbidden("immutable", "field is immutable when `immutable` is set"));
    if (!semanticEqual(get(secret, "data"), get(old, "data"))) causes.push(forbidden("data", "field is immutable when `immutable` is set"));
  }
  return [...causes, ...validateSecret(secret)];
}

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

function isZeroTime(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/**
 * ValidateEventCreate / legacyValidateEvent on the core/v1 form. `strict` is the events.k8s.io/v1 create
 * path, which also requires eventTime, a valid type and no deprecated fields.
 */
export function validateEvent(event: JsonObject, strict: boolean): Cause[] {
  const causes: Cause[] = [];
  const metadata = getObject(event, "metadata");
  const namespace = str(metadata, "namespace");
  const involved = getObject(event, "involvedObject");
  const involvedNamespace = str(involved, "namespace");
  const controllerField = strict ? "reportingController" : "reportingComponent";
  if (isZeroTime(get(event, "eventTime"))) {
    if (involvedNamespace === "") {
      if (namespace !== "" && namespace !== "default") causes.push(invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
    } else if (namespace !== involvedNamespace) {
      causes.push(invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
    }
  } else {
    if (involvedNamespace === "" && namespace !== "default" && namespace !== "kube-system") {
      causes.push(invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
    }
    const controller = str(event, "reportingComponent");
    if (controller === "") causes.push(required(controllerField));
    causes.push(...invalidEach(controllerField, controller, isQualifiedName(controller)));
    const instance = str(event, "reportingInstance");
    if (instance === "") causes.push(required("reportingInstance"));
    if (utf8Length(instance) > REPORTING_INSTANCE_LIMIT) causes.push(invalid("reportingInstance", "", `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
    const action = str(event, "action");
    if (action === "") causes.push(required("action"));
    if (utf8Length(action) > ACTION_LIMIT) causes.push(invalid("action", "", `can have at most ${ACTION_LIMIT} characters`));
    const reason = str(event, "reason");
    if (reason === "") causes.push(required("reason"));
    if (utf8Length(reason) > REASON_LIMIT) causes.push(invalid("reason", "", `can have at most ${REASON_LIMIT} characters`));
    if (utf8Length(str(event, "message")) > NOTE_LIMIT) causes.push(invalid("message", "", `can have at most ${NOTE_LIMIT} characters`));
  }
  causes.push(...invalidEach("namespace", namespace, isDNS1123Subdomain(namespace)));
  if (!strict) return causes;
  causes.push(...validateObjectMeta(metadata, true, nameIsDNSSubdomain));
  if (isZeroTime(get(event, "eventTime"))) causes.push(required("eventTime"));
  const type = str(event, "type");
  if (type !== "Normal" && type !== "Warning") causes.push(invalid("type", "", `has invalid value: ${type}`));
  if (!isZeroTime(get(event, "firstTimestamp"))) causes.push(invalid("deprecatedFirstTimestamp", "", "needs to be unset"));
  if (!isZeroTime(get(event, "lastTimestamp"))) causes.push(invalid("deprecatedLastTimestamp", "", "needs to be unset"));
  if ((getNumber(event, "count") ?? 0) !== 0) causes.push(invalid("deprecatedCount", "", "needs to be unset"));
  const source = getObject(event, "source");
  if (source !== undefined && (str(source, "component") !== "" || str(source, "host") !== "")) {
    causes.push(invalid("deprecatedSource", "", "needs to be unset"));
  }
  const series = getObject(event, "series");
  if (series !== undefined) {
    if ((getNumber(series, "count") ?? 0) < 2) causes.push(invalid("series.count", "", "should be at least 2"));
    if (isZeroTime(get(series, "lastObservedTime"))) causes.push(required("series.lastObservedTime"));
  }
  return causes;
}

/** ValidateEventUpdate: the identity of an event does not change. */
export function validateEventUpdate(event: JsonObject, old: JsonObject, strict: boolean): Cause[] {
  const causes = validateObjectMetaUpdate(getObject(event, "metadata"), getObject(old, "metadata"));
  if (strict) {
    for (const [field, path] of [
      ["involvedObject", "regarding"],
      ["reason", "reason"],
      ["reportingComponent", "reportingController"],
      ["reportingInstance", "reportingInstance"],
      ["action", "action"],
      ["eventTime", "eventTime"],
    ] as const) {
      causes.push(...validateImmutable(get(event, field) ?? null, get(old, field) ?? null, path, "json"));
    }
  }
  return [...causes, ...validateEvent(event, false)];
}

/** ValidateLease. */
export function validateLease(lease: JsonObject): Cause[] {
  const causes = validateObjectMeta(getObject(lease, "metadata"), true, nameIsDNSSubdomain);
  const spec = getObject(lease, "spec");
  const duration = get(spec, "leaseDurationSeconds");
  if (typeof duration === "number" && duration <= 0) causes.push(invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"));
  const transitions = get(spec, "leaseTransitions");
  if (typeof transitions === "number" && transitions < 0) {
    causes.push(invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"));
  }
  return causes;
}

/** ValidateNode, reduced to its metadata (the simulator's kubelet writes the rest). */
export function validateNode(node: JsonObject): Cause[] {
  return validateObjectMeta(getObject(node, "metadata"), false, nameIsDNSSubdomain);
}
