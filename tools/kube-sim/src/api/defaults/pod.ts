// Pod and pod-template defaulting: pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec, _Container,
// _Probe, _Volume, ...), the v1<->internal conversions that rewrite fields, SetDefaults_Pod (pods only),
// and the create-time mutations of the Priority and DefaultTolerationSeconds admission plugins.

import { defaultPullPolicy } from "../image.ts";
import {
  arrayOf,
  ensureObject,
  get,
  getObject,
  getString,
  isObject,
  objectsIn,
  set,
  setDefault,
  setDefaultString,
  sortedKeys,
  type JsonObject,
} from "../json.ts";
import { compareQuantities, parseQuantity, quantityText, sign, type Quantity } from "../quantity.ts";
import { defaultClaimSpec, defaultPluginSources } from "./storage.ts";

const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

/** Every field of v1.VolumeSource: a volume that sets none of them becomes an emptyDir. */
const VOLUME_SOURCES = [
  "hostPath",
  "emptyDir",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "persistentVolumeClaim",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "downwardAPI",
  "fc",
  "azureFile",
  "configMap",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "projected",
  "portworxVolume",
  "scaleIO",
  "storageos",
  "csi",
  "ephemeral",
  "image",
] as const;

/** v1.SecretVolumeSourceDefaultMode and friends: 0644. */
const DEFAULT_FILE_MODE = 0o644;

/** SetDefaults_HTTPGetAction. */
function defaultHTTPGet(handler: JsonObject | undefined): void {
  const httpGet = getObject(handler, "httpGet");
  if (httpGet === undefined) return;
  setDefaultString(httpGet, "path", "/");
  setDefaultString(httpGet, "scheme", "HTTP");
}

/** SetDefaults_Probe: zero means unset for these int32 fields. */
function defaultProbe(probe: JsonObject | undefined): void {
  if (probe === undefined) return;
  const zeroDefaults: [string, number][] = [
    ["timeoutSeconds", 1],
    ["periodSeconds", 10],
    ["successThreshold", 1],
    ["failureThreshold", 3],
  ];
  for (const [field, value] of zeroDefaults) {
    const current = get(probe, field);
    if (current === undefined || current === null || current === 0) set(probe, field, value);
  }
  defaultHTTPGet(probe);
}

/** SetDefaults_ObjectFieldSelector. */
function defaultFieldRef(holder: JsonObject | undefined): void {
  const fieldRef = getObject(holder, "fieldRef");
  if (fieldRef !== undefined) setDefaultString(fieldRef, "apiVersion", "v1");
}

/** SetDefaults_Container, its ports (SetDefaults_ContainerPort), env, probes and lifecycle handlers. */
export function defaultContainer(container: JsonObject): void {
  const imagePullPolicy = get(container, "imagePullPolicy");
  if (imagePullPolicy === undefined || imagePullPolicy === null || imagePullPolicy === "") {
    set(container, "imagePullPolicy", defaultPullPolicy(getString(container, "image") ?? ""));
  }
  setDefaultString(container, "terminationMessagePath", "/dev/termination-log");
  setDefaultString(container, "terminationMessagePolicy", "File");
  for (const port of objectsIn(get(container, "ports"))) setDefaultString(port, "protocol", "TCP");
  for (const env of objectsIn(get(container, "env"))) defaultFieldRef(getObject(env, "valueFrom"));
  for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"]) defaultProbe(getObject(container, probe));
  const lifecycle = getObject(container, "lifecycle");
  defaultHTTPGet(getObject(lifecycle, "postStart"));
  defaultHTTPGet(getObject(lifecycle, "preStop"));
}

function defaultDownwardItems(items: unknown): void {
  for (const item of objectsIn(items)) defaultFieldRef(item);
}

/** SetDefaults_Volume and the defaults of each volume source. */
export function defaultVolume(volume: JsonObject): void {
  if (!VOLUME_SOURCES.some((source) => isObject(get(volume, source)))) set(volume, "emptyDir", {});
  for (const source of ["secret", "configMap", "downwardAPI", "projected"]) {
    const holder = getObject(volume, source);
    if (holder !== undefined) setDefault(holder, "defaultMode", DEFAULT_FILE_MODE);
  }
  defaultDownwardItems(get(getObject(volume, "downwardAPI"), "items"));
  for (const projection of objectsIn(get(getObject(volume, "projected"), "sources"))) {
    defaultDownwardItems(get(getObject(projection, "downwardAPI"), "items"));
    const token = getObject(projection, "serviceAccountToken");
    if (token !== undefined) setDefault(token, "expirationSeconds", 3600);
  }
  defaultPluginSources(volume);
  const claimTemplate = getObject(getObject(volume, "ephemeral"), "volumeClaimTemplate");
  if (claimTemplate !== undefined) defaultClaimSpec(ensureObject(claimTemplate, "spec"));
}

/**
 * SetDefaults_PodSpec plus the PodSpec conversion round trip: the deprecated `serviceAccount` is filled
 * from `serviceAccountName` (and the other way round when only the old field was sent).
 */
export function defaultPodSpec(spec: JsonObject): void {
  setDefaultString(spec, "dnsPolicy", "ClusterFirst");
  setDefaultString(spec, "restartPolicy", "Always");
  if (!isObject(get(spec, "securityContext"))) set(spec, "securityContext", {});
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefaultString(spec, "schedulerName", "default-scheduler");
  const accountName = getString(spec, "serviceAccountName") ?? "";
  const deprecatedName = getString(spec, "serviceAccount") ?? "";
  const effective = accountName !== "" ? accountName : deprecatedName;
  if (effective !== "") {
    set(spec, "serviceAccountName", effective);
    set(spec, "serviceAccount", effective);
  }
  for (const listName of CONTAINER_LISTS) for (const container of objectsIn(get(spec, listName))) defaultContainer(container);
  for (const volume of objectsIn(get(spec, "volumes"))) defaultVolume(volume);
}

/** Pod templates (StatefulSet `spec.template`): metadata stays as sent, the spec gets PodSpec defaults. */
export function defaultPodTemplate(template: JsonObject): void {
  defaultPodSpec(ensureObject(template, "spec"));
}

/** SetDefaults_Pod: what a Pod gets on top of the PodSpec defaults (never a template). */
export function defaultPodOnly(spec: JsonObject): void {
  for (const listName of ["containers", "initContainers"]) {
    for (const container of objectsIn(get(spec, listName))) {
      const resources = getObject(container, "resources");
      const limits = getObject(resources, "limits");
      if (resources === undefined || limits === undefined) continue;
      const requests = ensureObject(resources, "requests");
      for (const name of sortedKeys(limits)) if (get(requests, name) === undefined) set(requests, name, get(limits, name));
    }
  }
  setDefault(spec, "enableServiceLinks", true);
  if (get(spec, "hostNetwork") === true) {
    for (const listName of ["containers", "initContainers"]) {
      for (const container of objectsIn(get(spec, listName))) {
        for (const port of objectsIn(get(container, "ports"))) {
          const hostPort = get(port, "hostPort");
          if (hostPort === undefined || hostPort === null || hostPort === 0) set(port, "hostPort", get(port, "containerPort"));
        }
      }
    }
  }
}

const NOT_READY_TAINT = "node.kubernetes.io/not-ready";
const UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
/** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds defaults. */
const DEFAULT_TOLERATION_SECONDS = 300;

/** The DefaultTolerationSeconds admission plugin (pod create only). */
export function admitDefaultTolerations(spec: JsonObject): void {
  const tolerations = objectsIn(get(spec, "tolerations"));
  const tolerates = (taint: string): boolean =>
    tolerations.some((t) => {
      const key = getString(t, "key") ?? "";
      const effect = getString(t, "effect") ?? "";
      return (key === taint || key === "") && (effect === "NoExecute" || effect === "");
    });
  const added: JsonObject[] = [];
  for (const taint of [NOT_READY_TAINT, UNREACHABLE_TAINT]) {
    if (!tolerates(taint)) {
      added.push({ key: taint, operator: "Exists", effect: "NoExecute", tolerationSeconds: DEFAULT_TOLERATION_SECONDS });
    }
  }
  if (added.length === 0) return;
  set(spec, "tolerations", [...arrayOf(get(spec, "tolerations")), ...added]);
}

/** The built-in PriorityClasses; any other class name would have to exist (none are served). */
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  "system-cluster-critical": 2000000000,
  "system-node-critical": 2000001000,
};

/** The Priority admission plugin (pod create only): no default class exists, so priority 0. */
export function admitPriority(spec: JsonObject): void {
  const className = getString(spec, "priorityClassName") ?? "";
  set(spec, "priority", SYSTEM_PRIORITY_CLASSES[className] ?? 0);
  setDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
}

/** The pod's `status.qosClass` (qos.ComputePodQOS), from container or pod-level cpu/memory. */
export function computeQOSClass(spec: JsonObject): "Guaranteed" | "Burstable" | "BestEffort" {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  const add = (into: Map<string, Quantity>, name: string, q: Quantity): void => {
    const prev = into.get(name);
    if (prev === undefined) {
      into.set(name, q);
      return;
    }
    const e = Math.min(prev.exp, q.exp);
    const scaled = (x: Quantity): bigint => x.unscaled * 10n ** BigInt(x.exp - e);
    into.set(name, { unscaled: scaled(prev) + scaled(q), exp: e, format: prev.format });
  };
  const collect = (resources: JsonObject | undefined): void => {
    const found = new Set<string>();
    for (const [list, into] of [
      ["requests", requests],
      ["limits", limits],
    ] as const) {
      const map = getObject(resources, list);
      for (const name of ["cpu", "memory"]) {
        const text = quantityText(get(map, name));
        if (text === undefined) continue;
        const parsed = parseQuantity(text);
        if (!parsed.ok || sign(parsed.quantity) <= 0) continue;
        add(into, name, parsed.quantity);
        if (list === "limits") found.add(name);
      }
    }
    if (!(found.has("cpu") && found.has("memory"))) guaranteed = false;
  };
  const podResources = getObject(spec, "resources");
  if (podResources !== undefined && (getObject(podResources, "requests") !== undefined || getObject(podResources, "limits") !== undefined)) {
    collect(podResources);
  } else {
    for (const listName of ["containers", "initContainers"]) {
      for (const container of objectsIn(get(spec, listName))) collect(getObject(container, "resources"));
    }
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (limit === undefined || compareQuantities(limit, request) !== 0) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}

/** Appends `key In/NotIn [label value]` for each listed key the pod carries (matchLabelKeys merging). */
function mergeLabelKeys(term: JsonObject, labels: JsonObject | undefined, keysField: string, operator: "In" | "NotIn"): void {
  const keys = get(term, keysField);
  const selector = getObject(term, "labelSelector");
  if (!Array.isArray(keys) || keys.length === 0 || selector === undefined) return;
  const added: JsonObject[] = [];
  for (const key of keys) {
    if (typeof key !== "string") continue;
    const value = get(labels, key);
    if (typeof value === "string") added.push({ key, operator, values: [value] });
  }
  if (added.length === 0) return;
  set(selector, "matchExpressions", [...arrayOf(get(selector, "matchExpressions")), ...added]);
}

/** mutatePodAffinity and mutateTopologySpreadConstraints (MatchLabelKeys* gates, on in 1.37). */
function applyMatchLabelKeys(spec: JsonObject, labels: JsonObject | undefined): void {
  const affinity = getObject(spec, "affinity");
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    const terms = getObject(affinity, kind);
    const all = [
      ...objectsIn(get(terms, "requiredDuringSchedulingIgnoredDuringExecution")),
      ...objectsIn(get(terms, "preferredDuringSchedulingIgnoredDuringExecution"))
        .map((weighted) => getObject(weighted, "podAffinityTerm"))
        .filter((term): term is JsonObject => term !== undefined),
    ];
    for (const term of all) {
      mergeLabelKeys(term, labels, "matchLabelKeys", "In");
      mergeLabelKeys(term, labels, "mismatchLabelKeys", "NotIn");
    }
  }
  for (const constraint of objectsIn(get(spec, "topologySpreadConstraints"))) {
    mergeLabelKeys(constraint, labels, "matchLabelKeys", "In");
  }
}

/** podStrategy.PrepareForCreate: generation 1, fresh Pending status, scheduling-gated condition. */
export function preparePodCreate(pod: JsonObject): void {
  const metadata = ensureObject(pod, "metadata");
  set(metadata, "generation", 1);
  const spec = ensureObject(pod, "spec");
  const status: JsonObject = { phase: "Pending", qosClass: computeQOSClass(spec) };
  const gates = get(spec, "schedulingGates");
  if (Array.isArray(gates) && gates.length > 0) {
    status["conditions"] = [
      {
        type: "PodScheduled",
        status: "False",
        lastProbeTime: null,
        lastTransitionTime: null,
        reason: "SchedulingGated",
        message: "Scheduling is blocked due to non-empty scheduling gates",
      },
    ];
  }
  set(pod, "status", status);
  applyMatchLabelKeys(spec, getObject(metadata, "labels"));
}
