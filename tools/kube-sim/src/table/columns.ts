// Per-resource Table columns, after kubernetes/pkg/printers/internalversion/printers.go (column names,
// types, priorities and cell formats). Priority-1 columns are the ones `-o wide` adds.
import { toStorage } from "../resources.ts";
import type { KubeObject } from "../types.ts";
import { getPath, isRecord } from "../types.ts";
import { humanDuration } from "./duration.ts";

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export type Cell = string | number | boolean;

export interface Printer {
  columns: ColumnDefinition[];
  row(obj: KubeObject, now: Date): Cell[];
}

const col = (name: string, type = "string", priority = 0, format = "", description = ""): ColumnDefinition => ({
  name,
  type,
  format,
  description,
  priority,
});

const NAME = col("Name", "string", 0, "name", "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names");
const AGE = col("Age", "string", 0, "", "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata");

function str(value: unknown, fallback = "<none>"): string {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return fallback;
}

function age(obj: KubeObject, now: Date): string {
  const ts = obj.metadata.creationTimestamp;
  if (typeof ts !== "string") return "<unknown>";
  return humanDuration(now.getTime() - Date.parse(ts));
}

function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function records(value: unknown): Record<string, unknown>[] {
  return arr(value).filter(isRecord);
}

function podStatus(pod: KubeObject): string {
  let reason = str(getPath(pod, ["status", "phase"]), "");
  const statusReason = getPath(pod, ["status", "reason"]);
  if (typeof statusReason === "string" && statusReason !== "") reason = statusReason;
  let initializing = false;
  const initStatuses = records(getPath(pod, ["status", "initContainerStatuses"]));
  const initCount = arr(getPath(pod, ["spec", "initContainers"])).length;
  initStatuses.forEach((cs, i) => {
    if (initializing) return;
    const terminated = getPath(cs, ["state", "terminated"]);
    const waiting = getPath(cs, ["state", "waiting"]);
    if (isRecord(terminated) && terminated["exitCode"] === 0) return;
    if (isRecord(terminated)) {
      reason = `Init:${str(terminated["reason"], `ExitCode:${str(terminated["exitCode"], "0")}`)}`;
    } else if (isRecord(waiting) && typeof waiting["reason"] === "string" && waiting["reason"] !== "PodInitializing") {
      reason = `Init:${waiting["reason"]}`;
    } else {
      reason = `Init:${i}/${initCount}`;
    }
    initializing = true;
  });
  if (!initializing) {
    let hasRunning = false;
    for (const cs of records(getPath(pod, ["status", "containerStatuses"])).reverse()) {
      const waiting = getPath(cs, ["state", "waiting"]);
      const terminated = getPath(cs, ["state", "terminated"]);
      if (isRecord(waiting) && typeof waiting["reason"] === "string" && waiting["reason"] !== "") reason = waiting["reason"];
      else if (isRecord(terminated) && typeof terminated["reason"] === "string" && terminated["reason"] !== "") reason = terminated["reason"];
      else if (isRecord(terminated)) {
        reason = terminated["signal"] !== undefined && terminated["signal"] !== 0 ? `Signal:${str(terminated["signal"])}` : `ExitCode:${str(terminated["exitCode"], "0")}`;
      } else if (getPath(cs, ["ready"]) === true && isRecord(getPath(cs, ["state", "running"]))) hasRunning = true;
    }
    if (reason === "Completed" && hasRunning) {
      const ready = records(getPath(pod, ["status", "conditions"])).some((c) => c["type"] === "Ready" && c["status"] === "True");
      reason = ready ? "Running" : "NotReady";
    }
  }
  if (pod.metadata.deletionTimestamp !== undefined) reason = reason === "NodeLost" ? "Unknown" : "Terminating";
  return reason;
}

const pods: Printer = {
  columns: [
    NAME,
    col("Ready", "string", 0, "", "The aggregate readiness state of this pod for accepting traffic."),
    col("Status", "string", 0, "", "The aggregate status of the containers in this pod."),
    col("Restarts", "string", 0, "", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
    AGE,
    col("IP", "string", 1, "", "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated."),
    col("Node", "string", 1, "", "NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements."),
    col("Nominated Node", "string", 1, "", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled."),
    col("Readiness Gates", "string", 1, "", "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates"),
  ],
  row(pod, now) {
    const statuses = records(getPath(pod, ["status", "containerStatuses"]));
    const total = arr(getPath(pod, ["spec", "containers"])).length;
    const ready = statuses.filter((cs) => cs["ready"] === true).length;
    const restarts = statuses.reduce((n, cs) => n + (typeof cs["restartCount"] === "number" ? cs["restartCount"] : 0), 0);
    const gates = records(getPath(pod, ["spec", "readinessGates"]));
    return [
      pod.metadata.name ?? "",
      `${ready}/${total}`,
      podStatus(pod),
      String(restarts),
      age(pod, now),
      str(getPath(pod, ["status", "podIP"])),
      str(getPath(pod, ["spec", "nodeName"])),
      str(getPath(pod, ["status", "nominatedNodeName"])),
      gates.length === 0 ? "<none>" : `0/${gates.length}`,
    ];
  },
};

function containerNamesAndImages(template: unknown): [string, string] {
  const containers = records(getPath(template, ["spec", "containers"]));
  return [containers.map((c) => str(c["name"], "")).join(","), containers.map((c) => str(c["image"], "")).join(",")];
}

const statefulsets: Printer = {
  columns: [
    NAME,
    col("Ready", "string", 0, "", "Number of the pod with ready state"),
    AGE,
    col("Containers", "string", 1, "", "Names of each container in the template."),
    col("Images", "string", 1, "", "Images referenced by each container in the template."),
  ],
  row(sts, now) {
    const [names, images] = containerNamesAndImages(getPath(sts, ["spec", "template"]));
    const desired = getPath(sts, ["spec", "replicas"]);
    const ready = getPath(sts, ["status", "readyReplicas"]);
    return [sts.metadata.name ?? "", `${typeof ready === "number" ? ready : 0}/${typeof desired === "number" ? desired : 0}`, age(sts, now), names, images];
  },
};

function accessModes(value: unknown): string {
  const short: Record<string, string> = { ReadWriteOnce: "RWO", ReadOnlyMany: "ROX", ReadWriteMany: "RWX", ReadWriteOncePod: "RWOP" };
  const modes = arr(value).filter((m): m is string => typeof m === "string");
  return [...new Set(modes.map((m) => short[m] ?? m))].join(",");
}

const persistentvolumeclaims: Printer = {
  columns: [
    NAME,
    col("Status", "string", 0, "", "Phase represents the current phase of PersistentVolumeClaim."),
    col("Volume", "string", 0, "", "volumeName is the binding reference to the PersistentVolume backing this claim."),
    col("Capacity", "string", 0, "", "capacity represents the actual resources of the underlying volume."),
    col("Access Modes", "string", 0, "", "accessModes contains the desired access modes the volume should have."),
    col("StorageClass", "string", 0, "", "storageClassName is the name of the StorageClass required by the claim."),
    col("VolumeAttributesClass", "string", 0, "", "volumeAttributesClassName may be used to set the VolumeAttributesClass used by this claim."),
    AGE,
    col("VolumeMode", "string", 1, "", "volumeMode defines what type of volume is required by the claim."),
  ],
  row(pvc, now) {
    const phase = str(getPath(pvc, ["status", "phase"]), "");
    const bound = phase === "Bound";
    const status = pvc.metadata.deletionTimestamp !== undefined ? "Terminating" : phase;
    return [
      pvc.metadata.name ?? "",
      status,
      str(getPath(pvc, ["spec", "volumeName"]), ""),
      bound ? str(getPath(pvc, ["status", "capacity", "storage"]), "") : "",
      bound ? accessModes(getPath(pvc, ["status", "accessModes"])) : "",
      str(getPath(pvc, ["spec", "storageClassName"]), "<unset>"),
      str(getPath(pvc, ["spec", "volumeAttributesClassName"]), "<unset>"),
      age(pvc, now),
      str(getPath(pvc, ["spec", "volumeMode"]), "<unset>"),
    ];
  },
};

const persistentvolumes: Printer = {
  columns: [
    NAME,
    col("Capacity", "string", 0, "", "capacity is the description of the persistent volume's resources and capacity."),
    col("Access Modes", "string", 0, "", "accessModes contains all ways the volume can be mounted."),
    col("Reclaim Policy", "string", 0, "", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim."),
    col("Status", "string", 0, "", "phase indicates if a volume is available, bound to a claim, or released by a claim."),
    col("Claim", "string", 0, "", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim."),
    col("StorageClass", "string", 0, "", "storageClassName is the name of StorageClass to which this persistent volume belongs."),
    col("VolumeAttributesClass", "string", 0, "", "Name of VolumeAttributesClass to which this persistent volume belongs."),
    col("Reason", "string", 0, "", "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI."),
    AGE,
    col("VolumeMode", "string", 1, "", "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state."),
  ],
  row(pv, now) {
    const claimNs = getPath(pv, ["spec", "claimRef", "namespace"]);
    const claimName = getPath(pv, ["spec", "claimRef", "name"]);
    return [
      pv.metadata.name ?? "",
      str(getPath(pv, ["spec", "capacity", "storage"]), ""),
      accessModes(getPath(pv, ["spec", "accessModes"])),
      str(getPath(pv, ["spec", "persistentVolumeReclaimPolicy"]), ""),
      pv.metadata.deletionTimestamp !== undefined ? "Terminating" : str(getPath(pv, ["status", "phase"]), ""),
      typeof claimName === "string" ? `${str(claimNs, "")}/${claimName}` : "",
      str(getPath(pv, ["spec", "storageClassName"]), ""),
      str(getPath(pv, ["spec", "volumeAttributesClassName"]), "<unset>"),
      str(getPath(pv, ["status", "reason"]), ""),
      age(pv, now),
      str(getPath(pv, ["spec", "volumeMode"]), "<unset>"),
    ];
  },
};

function servicePorts(svc: KubeObject): string {
  const ports = records(getPath(svc, ["spec", "ports"]));
  if (ports.length === 0) return "<none>";
  return ports
    .map((p) => {
      const nodePort = typeof p["nodePort"] === "number" && p["nodePort"] > 0 ? `:${p["nodePort"]}` : "";
      return `${str(p["port"], "0")}${nodePort}/${str(p["protocol"], "TCP")}`;
    })
    .join(",");
}

const services: Printer = {
  columns: [
    NAME,
    col("Type", "string", 0, "", "type determines how the Service is exposed."),
    col("Cluster-IP", "string", 0, "", "clusterIP is the IP address of the service and is usually assigned randomly."),
    col("External-IP", "string", 0, "", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
    col("Port(s)", "string", 0, "", "The list of ports that are exposed by this service."),
    AGE,
    col("Selector", "string", 1, "", "Route service traffic to pods with label keys and values matching this selector."),
  ],
  row(svc, now) {
    const type = str(getPath(svc, ["spec", "type"]), "ClusterIP");
    const external = arr(getPath(svc, ["spec", "externalIPs"])).filter((x): x is string => typeof x === "string");
    let externalIp = "<none>";
    if (type === "ExternalName") externalIp = str(getPath(svc, ["spec", "externalName"]));
    else if (external.length > 0) externalIp = external.join(",");
    else if (type === "LoadBalancer") externalIp = "<pending>";
    const selector = getPath(svc, ["spec", "selector"]);
    return [
      svc.metadata.name ?? "",
      type,
      str(getPath(svc, ["spec", "clusterIP"])),
      externalIp,
      servicePorts(svc),
      age(svc, now),
      isRecord(selector) && Object.keys(selector).length > 0
        ? Object.entries(selector)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => `${k}=${str(v, "")}`)
            .join(",")
        : "<none>",
    ];
  },
};

const configmaps: Printer = {
  columns: [NAME, col("Data", "string", 0, "", "Number of data items"), AGE],
  row(cm, now) {
    const data = getPath(cm, ["data"]);
    const bin = getPath(cm, ["binaryData"]);
    const n = (isRecord(data) ? Object.keys(data).length : 0) + (isRecord(bin) ? Object.keys(bin).length : 0);
    return [cm.metadata.name ?? "", n, age(cm, now)];
  },
};

const namespaces: Printer = {
  columns: [NAME, col("Status", "string", 0, "", "The status of the namespace"), AGE],
  row(ns, now) {
    return [ns.metadata.name ?? "", str(getPath(ns, ["status", "phase"]), ""), age(ns, now)];
  },
};

const nodes: Printer = {
  columns: [NAME, col("Status"), col("Roles"), AGE, col("Version")],
  row(node, now) {
    const ready = records(getPath(node, ["status", "conditions"])).find((c) => c["type"] === "Ready");
    // As upstream's printNode: a cordoned node reads "Ready,SchedulingDisabled".
    const status = [ready?.["status"] === "True" ? "Ready" : "NotReady", ...(getPath(node, ["spec", "unschedulable"]) === true ? ["SchedulingDisabled"] : [])].join(",");
    return [node.metadata.name ?? "", status, "<none>", age(node, now), str(getPath(node, ["status", "nodeInfo", "kubeletVersion"]), "")];
  },
};

function sinceOr(ts: unknown, now: Date, fallback: string): string {
  return typeof ts === "string" && ts !== "" ? humanDuration(now.getTime() - Date.parse(ts)) : fallback;
}

const events: Printer = {
  columns: [
    col("Last Seen"),
    col("Type"),
    col("Reason"),
    col("Object"),
    col("Subobject", "string", 1),
    col("Source", "string", 1),
    col("Message"),
    col("First Seen", "string", 1),
    col("Count", "string", 1),
    col("Name", "string", 1),
  ],
  row(view, now) {
    // The events.k8s.io view prints like the core/v1 Event it is stored as.
    const ev = isRecord(view["regarding"]) ? toStorage({ group: "events.k8s.io", resource: "events" }, view) : view;
    const first = getPath(ev, ["firstTimestamp"]) ?? getPath(ev, ["eventTime"]);
    const last = getPath(ev, ["series", "lastObservedTime"]) ?? getPath(ev, ["lastTimestamp"]) ?? first;
    const kind = str(getPath(ev, ["involvedObject", "kind"]), "").toLowerCase();
    return [
      sinceOr(last, now, "<unknown>"),
      str(getPath(ev, ["type"]), ""),
      str(getPath(ev, ["reason"]), ""),
      `${kind}/${str(getPath(ev, ["involvedObject", "name"]), "")}`,
      str(getPath(ev, ["involvedObject", "fieldPath"]), ""),
      str(getPath(ev, ["source", "component"]), str(getPath(ev, ["reportingComponent"]), "")),
      str(getPath(ev, ["message"]), ""),
      sinceOr(first, now, "<unknown>"),
      str(getPath(ev, ["count"]), "1"),
      ev.metadata.name ?? "",
    ];
  },
};

const controllerrevisions: Printer = {
  columns: [NAME, col("Controller"), col("Revision", "integer"), AGE],
  row(cr, now) {
    const owner = (cr.metadata.ownerReferences ?? []).find((o) => o.controller === true);
    const controller = owner === undefined ? "<none>" : `${owner.kind.toLowerCase()}.${owner.apiVersion.split("/").length > 1 ? owner.apiVersion.split("/")[0] ?? "" : ""}/${owner.name}`.replace("./", "/");
    return [cr.metadata.name ?? "", controller, Number(getPath(cr, ["revision"]) ?? 0), age(cr, now)];
  },
};

const leases: Printer = {
  columns: [NAME, col("Holder", "string", 0, "", "The holder of a lease"), AGE],
  row(lease, now) {
    return [lease.metadata.name ?? "", str(getPath(lease, ["spec", "holderIdentity"]), ""), age(lease, now)];
  },
};

const fallback: Printer = {
  columns: [NAME, AGE],
  row(obj, now) {
    return [obj.metadata.name ?? "", age(obj, now)];
  },
};

const PRINTERS: Record<string, Printer> = {
  "/pods": pods,
  "apps/statefulsets": statefulsets,
  "/persistentvolumeclaims": persistentvolumeclaims,
  "/persistentvolumes": persistentvolumes,
  "/services": services,
  "/configmaps": configmaps,
  "/namespaces": namespaces,
  "/nodes": nodes,
  "/events": events,
  "apps/controllerrevisions": controllerrevisions,
  "coordination.k8s.io/leases": leases,
};

export function printerFor(resourceKey: string): Printer {
  return PRINTERS[resourceKey] ?? fallback;
}
