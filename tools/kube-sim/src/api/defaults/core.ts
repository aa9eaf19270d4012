// Namespace, Service, Node and Secret defaulting with the parts of their strategies and REST storage that shape
// what is stored (namespace finalizer and name label; Service cluster-IP/IP-family normalization).

import { isIPv4, isValidIP } from "../names.ts";
import {
  ensureObject,
  get,
  getArray,
  getObject,
  getString,
  isObject,
  objectsIn,
  remove,
  set,
  setDefault,
  setDefaultString,
  type JsonObject,
} from "../json.ts";

const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** SetDefaults_Namespace / namespaceStrategy.Canonicalize: the name label always matches the name. */
export function labelNamespaceName(namespace: JsonObject): void {
  const metadata = ensureObject(namespace, "metadata");
  const name = getString(metadata, "name") ?? "";
  if (name === "") return;
  set(ensureObject(metadata, "labels"), NAMESPACE_NAME_LABEL, name);
}

/** namespaceStrategy.PrepareForCreate: Active, and the `kubernetes` finalizer always present. */
export function prepareNamespaceCreate(namespace: JsonObject): void {
  labelNamespaceName(namespace);
  set(namespace, "status", { phase: "Active" });
  const spec = ensureObject(namespace, "spec");
  const finalizers = getArray(spec, "finalizers") ?? [];
  if (!finalizers.includes("kubernetes")) set(spec, "finalizers", [...finalizers, "kubernetes"]);
}

/** `service.ExternallyAccessible`. */
function externallyAccessible(spec: JsonObject): boolean {
  const type = get(spec, "type");
  return type === "LoadBalancer" || type === "NodePort" || (type === "ClusterIP" && (getArray(spec, "externalIPs") ?? []).length > 0);
}

/** v1.DefaultClientIPServiceAffinitySeconds: three hours. */
const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

/** SetDefaults_Service. */
export function defaultService(service: JsonObject): void {
  const spec = ensureObject(service, "spec");
  setDefaultString(spec, "sessionAffinity", "None");
  if (get(spec, "sessionAffinity") === "None") remove(spec, "sessionAffinityConfig");
  if (get(spec, "sessionAffinity") === "ClientIP") {
    const timeout = get(getObject(getObject(spec, "sessionAffinityConfig"), "clientIP"), "timeoutSeconds");
    if (timeout === undefined || timeout === null) {
      set(spec, "sessionAffinityConfig", { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } });
    }
  }
  setDefaultString(spec, "type", "ClusterIP");
  for (const port of objectsIn(get(spec, "ports"))) {
    setDefaultString(port, "protocol", "TCP");
    const target = get(port, "targetPort");
    if (target === undefined || target === null || target === 0 || target === "") set(port, "targetPort", get(port, "port"));
  }
  if (externallyAccessible(spec)) setDefaultString(spec, "externalTrafficPolicy", "Cluster");
  const type = get(spec, "type");
  if (type === "NodePort" || type === "LoadBalancer" || type === "ClusterIP") setDefault(spec, "internalTrafficPolicy", "Cluster");
  if (type === "LoadBalancer") setDefault(spec, "allocateLoadBalancerNodePorts", true);
}

function isHeadless(spec: JsonObject): boolean {
  return get(spec, "clusterIP") === "None" || (getArray(spec, "clusterIPs") ?? [])[0] === "None";
}

/**
 * The Service REST storage's normalizeClusterIPs and initIPFamilyFields for a single-stack IPv4 cluster.
 * Allocating the address itself is left to the server (`needsClusterIP` tells it when).
 */
export function normalizeServiceNetworking(service: JsonObject): void {
  const spec = ensureObject(service, "spec");
  if (get(spec, "type") === "ExternalName") return;
  const clusterIP = getString(spec, "clusterIP") ?? "";
  const clusterIPs = getArray(spec, "clusterIPs") ?? [];
  if (clusterIPs.length === 0 && clusterIP !== "") set(spec, "clusterIPs", [clusterIP]);
  if (clusterIP === "" && typeof clusterIPs[0] === "string") set(spec, "clusterIP", clusterIPs[0]);
  const headlessWithoutSelector = isHeadless(spec) && Object.keys(getObject(spec, "selector") ?? {}).length === 0;
  setDefault(spec, "ipFamilyPolicy", headlessWithoutSelector ? "RequireDualStack" : "SingleStack");
  const families = getArray(spec, "ipFamilies") ?? [];
  if (families.length === 0) {
    const fromIPs = (getArray(spec, "clusterIPs") ?? [])
      .filter((ip): ip is string => typeof ip === "string" && isValidIP(ip))
      .map((ip) => (isIPv4(ip) ? "IPv4" : "IPv6"));
    set(spec, "ipFamilies", fromIPs.length > 0 ? fromIPs : ["IPv4"]);
  }
}

/** Whether the server still has to allocate a cluster IP for this Service. */
export function needsClusterIP(service: JsonObject): boolean {
  const spec = getObject(service, "spec");
  if (spec === undefined || get(spec, "type") === "ExternalName") return false;
  return (getString(spec, "clusterIP") ?? "") === "";
}

function needsNodePorts(spec: JsonObject | undefined): boolean {
  const type = get(spec, "type");
  return type === "NodePort" || (type === "LoadBalancer" && get(spec, "allocateLoadBalancerNodePorts") !== false);
}

/** The Service storage's patchAllocatedValues: an update that omits allocated values keeps them. */
export function keepAllocatedServiceValues(service: JsonObject, old: JsonObject): void {
  const spec = ensureObject(service, "spec");
  const oldSpec = getObject(old, "spec");
  if (oldSpec === undefined) return;
  const keepsClusterIP = (s: JsonObject): boolean => get(s, "type") !== "ExternalName";
  if (keepsClusterIP(spec) && keepsClusterIP(oldSpec)) {
    if ((getString(spec, "clusterIP") ?? "") === "" && get(oldSpec, "clusterIP") !== undefined) set(spec, "clusterIP", get(oldSpec, "clusterIP"));
    if ((getArray(spec, "clusterIPs") ?? []).length === 0 && get(oldSpec, "clusterIPs") !== undefined) {
      set(spec, "clusterIPs", get(oldSpec, "clusterIPs"));
    }
    if ((getArray(spec, "ipFamilies") ?? []).length === 0 && get(oldSpec, "ipFamilies") !== undefined) {
      set(spec, "ipFamilies", get(oldSpec, "ipFamilies"));
    }
    if (get(spec, "ipFamilyPolicy") === undefined && get(oldSpec, "ipFamilyPolicy") !== undefined) {
      set(spec, "ipFamilyPolicy", get(oldSpec, "ipFamilyPolicy"));
    }
  }
  if (needsNodePorts(spec) && needsNodePorts(oldSpec)) {
    const byName = new Map<unknown, unknown>();
    for (const port of objectsIn(get(oldSpec, "ports"))) byName.set(get(port, "name") ?? "", get(port, "nodePort"));
    for (const port of objectsIn(get(spec, "ports"))) {
      const nodePort = get(port, "nodePort");
      const previous = byName.get(get(port, "name") ?? "");
      if ((nodePort === undefined || nodePort === 0) && previous !== undefined) set(port, "nodePort", previous);
    }
  }
  const needsHealthCheck = (s: JsonObject): boolean => get(s, "type") === "LoadBalancer" && get(s, "externalTrafficPolicy") === "Local";
  const hc = get(spec, "healthCheckNodePort");
  if (needsHealthCheck(spec) && needsHealthCheck(oldSpec) && (hc === undefined || hc === 0)) {
    setDefault(spec, "healthCheckNodePort", get(oldSpec, "healthCheckNodePort"));
    if (hc === 0) set(spec, "healthCheckNodePort", get(oldSpec, "healthCheckNodePort"));
  }
}

/** SetDefaults_NodeStatus. */
export function defaultNode(node: JsonObject): void {
  const status = getObject(node, "status");
  if (status === undefined) return;
  const capacity = get(status, "capacity");
  if (isObject(capacity) && get(status, "allocatable") === undefined) set(status, "allocatable", capacity);
}

/**
 * What a Secret gets on its way in: `stringData` overwrites `data` key by key (Convert_v1_Secret_To_core_Secret; the
 * field is write-only and never stored or served), then SetDefaults_Secret's type Opaque.
 */
export function defaultSecret(secret: JsonObject): void {
  const stringData = get(secret, "stringData");
  remove(secret, "stringData");
  if (isObject(stringData) && Object.keys(stringData).length > 0) {
    const data = ensureObject(secret, "data");
    for (const [key, value] of Object.entries(stringData)) {
      set(data, key, Buffer.from(typeof value === "string" ? value : "", "utf8").toString("base64"));
    }
  }
  setDefaultString(secret, "type", "Opaque");
}
