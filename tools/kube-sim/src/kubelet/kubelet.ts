// A simulated scheduler + kubelet + volume binder: binds new pods to a fake node, runs them
// (Pending -> Running -> Ready), honours the sim.stsfleet.dev/* annotations, finishes graceful
// termination, and binds each pending claim to a freshly provisioned PersistentVolume.
import { rfc3339 } from "../clock.ts";
import { StatusError } from "../errors.ts";
import type { Registry } from "../registry/registry.ts";
import { INTERNAL_WRITE } from "../registry/registry.ts";
import { RESOURCES, canonicalQuantity, mustFind, parseQuantity } from "../resources.ts";
import type { StoreEvent } from "../store/store.ts";
import type { KubeObject } from "../types.ts";
import { clone, getPath, isRecord } from "../types.ts";

export const ANNOTATIONS = {
  ready: "sim.stsfleet.dev/ready",
  phase: "sim.stsfleet.dev/phase",
  startDelayMs: "sim.stsfleet.dev/start-delay-ms",
} as const;

export interface KubeletOptions {
  nodeName: string;
  /** Pending (unscheduled) -> scheduled. */
  scheduleDelayMs: number;
  /** Scheduled -> Running and Ready, unless the pod's start-delay-ms annotation says otherwise. */
  startDelayMs: number;
  /** How long containers take to stop once a pod is Terminating (capped by its grace period). */
  terminationDelayMs: number;
  /** Pending claim -> Bound. */
  bindDelayMs: number;
}

export const DEFAULT_KUBELET: KubeletOptions = {
  nodeName: "kube-sim-node",
  scheduleDelayMs: 5,
  startDelayMs: 200,
  terminationDelayMs: 100,
  bindDelayMs: 20,
};

type Condition = { type: string; status: "True" | "False"; lastProbeTime: null; lastTransitionTime: string; reason?: string; message?: string };

function containersOf(pod: KubeObject): Record<string, unknown>[] {
  const list = getPath(pod, ["spec", "containers"]);
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function annotation(pod: KubeObject, key: string): string | undefined {
  return pod.metadata.annotations?.[key];
}

function setCondition(conditions: Condition[], type: string, status: "True" | "False", now: string, reason?: string, message?: string): Condition[] {
  const existing = conditions.find((c) => c.type === type);
  const next: Condition = { type, status, lastProbeTime: null, lastTransitionTime: existing !== undefined && existing.status === status ? existing.lastTransitionTime : now };
  if (reason !== undefined) next.reason = reason;
  if (message !== undefined) next.message = message;
  return existing === undefined ? [...conditions, next] : conditions.map((c) => (c.type === type ? next : c));
}

/** The taint a cordoned node stands for; a pod that tolerates it is scheduled anyway (the NodeUnschedulable plugin). */
const UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";
/** The default scheduler's message for a pod no node takes because the only node is cordoned (one node). */
const CORDONED_MESSAGE = "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";

/** True when one of the pod's tolerations matches the unschedulable taint (effect NoSchedule). */
function toleratesUnschedulable(pod: KubeObject): boolean {
  const tolerations = getPath(pod, ["spec", "tolerations"]);
  if (!Array.isArray(tolerations)) return false;
  return tolerations.filter(isRecord).some((t) => {
    const effect = t["effect"];
    if (effect !== undefined && effect !== "" && effect !== "NoSchedule") return false;
    const key = t["key"] ?? "";
    // An empty key with operator Exists matches every taint.
    if (key === "") return t["operator"] === "Exists";
    return key === UNSCHEDULABLE_TAINT && (t["operator"] === "Exists" || (t["value"] ?? "") === "");
  });
}

/** distribution/reference's grammar for an image reference: [domain/]path[:tag][@digest]. */
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const IMAGE_REFERENCE = new RegExp(
  `^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*` +
    "(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$",
);

/**
 * Why a kubelet could not parse `image` (the message of its InvalidImageName waiting state), or undefined when it
 * parses. A domain may have capitals; a repository path may not.
 */
export function invalidImageMessage(image: string): string | undefined {
  const name = image.split("@")[0]?.replace(/:[\w][\w.-]{0,127}$/, "") ?? "";
  if (IMAGE_REFERENCE.test(image) && name.length <= 255) return undefined;
  const lowercase = IMAGE_REFERENCE.test(image.replace(/^([^/]*\/)?(.*)$/, (_m, domain: string | undefined, rest: string) => (domain ?? "") + rest.toLowerCase()));
  const reason = lowercase ? "invalid reference format: repository name must be lowercase" : "invalid reference format";
  return `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${reason}`;
}

/** Seconds of a probe field, or its default (the API server defaults periodSeconds 10, successThreshold 1). */
function probeSeconds(probe: unknown, field: "initialDelaySeconds" | "periodSeconds" | "successThreshold", fallback: number): number {
  const value = isRecord(probe) ? probe[field] : undefined;
  return typeof value === "number" && value >= 0 ? value : fallback;
}

/**
 * When a container of this spec is started and Ready after it starts, in ms, as its probes would pass on a real
 * kubelet (the simulator runs nothing, so every probe succeeds at its first chance): started once the startup probe's
 * initial delay has passed, Ready once started and the readiness probe has passed successThreshold times.
 */
export function probeTimingMs(container: Record<string, unknown>): { startedAfterMs: number; readyAfterMs: number } {
  const startup = container["startupProbe"];
  const readiness = container["readinessProbe"];
  const startedAfterMs = isRecord(startup) ? probeSeconds(startup, "initialDelaySeconds", 0) * 1000 : 0;
  if (!isRecord(readiness)) return { startedAfterMs, readyAfterMs: startedAfterMs };
  const initialMs = probeSeconds(readiness, "initialDelaySeconds", 0) * 1000;
  const periodMs = Math.max(1, probeSeconds(readiness, "periodSeconds", 10)) * 1000;
  const passesMs = (Math.max(1, probeSeconds(readiness, "successThreshold", 1)) - 1) * periodMs;
  return { startedAfterMs, readyAfterMs: Math.max(startedAfterMs, initialMs + passesMs) };
}

/** One line of a container's simulated log. */
export interface LogLine {
  readonly container: string;
  /** RFC 3339 with nanoseconds, as `kubectl logs --timestamps` prints it. */
  readonly time: string;
  readonly text: string;
}

/** Lines kept per pod (a container's log rotates on a real node too). */
const LOG_LINES_PER_POD = 1_000;

export class Kubelet {
  private readonly registry: Registry;
  private readonly options: KubeletOptions;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly unsubscribe: () => void;
  private ipCounter = 0;
  private stopped = false;
  /** What each pod's containers "logged", by uid: the simulated kubelet's own lines (nothing runs in them). */
  private readonly logBook = new Map<string, LogLine[]>();
  /** When each running pod's containers started (performance.now()), for probe timing; by uid. */
  private readonly startedAtMs = new Map<string, number>();
  /** Pods left unscheduled because the node was cordoned, by uid: tried again when the node changes. */
  private readonly waiting = new Map<string, { readonly namespace: string; readonly name: string }>();

  constructor(registry: Registry, options: KubeletOptions) {
    for (const [k, v] of Object.entries(options)) {
      if (typeof v === "number" && !(v >= 0)) throw new RangeError(`kubelet ${k} must be >= 0, got ${v}`);
    }
    this.registry = registry;
    this.options = options;
    this.unsubscribe = registry.store.subscribe((event) => this.observe(event));
    this.registerNode();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private registerNode(): void {
    if (!RESOURCES.some((r) => r.group === "" && r.resource === "nodes")) return;
    const info = mustFind("", "nodes");
    const now = rfc3339(this.registry.now());
    const name = this.options.nodeName;
    // A restored store (--data-dir) already holds the node this kubelet registered before the restart.
    if (this.registry.tryGet(info, "", name) !== undefined) return;
    const created = this.registry.create(
      info,
      "",
      {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", type: "kube-sim" } },
        spec: { podCIDR: "10.244.0.0/16", podCIDRs: ["10.244.0.0/16"] },
      },
      INTERNAL_WRITE,
    );
    const capacity = { cpu: "32", memory: "128Gi", pods: "110000", "ephemeral-storage": "1Ti" };
    created["status"] = {
      capacity,
      allocatable: capacity,
      conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: now, lastTransitionTime: now, reason: "KubeletReady", message: "kube-sim kubelet is posting ready status" }],
      addresses: [
        { type: "InternalIP", address: "127.0.0.1" },
        { type: "Hostname", address: name },
      ],
      nodeInfo: { kubeletVersion: "v1.37.0-kube-sim", kubeProxyVersion: "", operatingSystem: "linux", architecture: "amd64", containerRuntimeVersion: "kube-sim://1.0", kernelVersion: "", osImage: "kube-sim", machineID: "", systemUUID: "", bootID: "" },
      phase: "Running",
    };
    this.registry.writeInternal(info, created);
  }

  private later(id: string, delayMs: number, fn: () => void): void {
    if (this.stopped || this.timers.has(id)) return;
    const timer = setTimeout(() => {
      this.timers.delete(id);
      if (this.stopped) return;
      try {
        fn();
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
      }
    }, delayMs);
    this.timers.set(id, timer);
  }

  private cancel(prefix: string): void {
    for (const [id, timer] of this.timers) {
      if (id.startsWith(prefix)) {
        clearTimeout(timer);
        this.timers.delete(id);
      }
    }
  }

  private observe(event: StoreEvent): void {
    if (event.resourceKey === "/pods") this.observePod(event);
    else if (event.resourceKey === "/persistentvolumeclaims") this.observeClaim(event);
    else if (event.resourceKey === "/nodes" && event.type === "MODIFIED") this.retryWaiting();
  }

  // ---- pods ----

  private observePod(event: StoreEvent): void {
    const uid = event.entry.uid;
    if (event.type === "DELETED") {
      this.cancel(`${uid}/`);
      this.waiting.delete(uid);
      this.startedAtMs.delete(uid);
      this.logBook.delete(uid);
      return;
    }
    const pod = JSON.parse(event.entry.json) as KubeObject;
    const nodeName = getPath(pod, ["spec", "nodeName"]);
    const phase = getPath(pod, ["status", "phase"]);
    if (pod.metadata.deletionTimestamp !== undefined) {
      if (typeof nodeName === "string" && nodeName !== "") {
        const graceMs = (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
        this.later(`${uid}/terminate`, Math.min(this.options.terminationDelayMs, graceMs), () => this.finishTermination(pod));
      }
      return;
    }
    if (typeof nodeName !== "string" || nodeName === "") {
      this.later(`${uid}/schedule`, this.options.scheduleDelayMs, () => this.schedule(pod));
      return;
    }
    if (nodeName !== this.options.nodeName) return;
    if (phase === undefined || phase === "Pending") {
      const raw = annotation(pod, ANNOTATIONS.startDelayMs);
      const delay = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : this.options.startDelayMs;
      this.later(`${uid}/start`, delay, () => this.start(pod.metadata.namespace ?? "", pod.metadata.name ?? "", uid));
      return;
    }
    if (phase === "Running") this.later(`${uid}/sync`, 0, () => this.sync(pod.metadata.namespace ?? "", pod.metadata.name ?? "", uid));
  }

  private current(namespace: string, name: string, uid: string): KubeObject | undefined {
    const pod = this.registry.tryGet(mustFind("", "pods"), namespace, name);
    return pod?.metadata.uid === uid ? pod : undefined;
  }

  private schedule(seen: KubeObject): void {
    const pod = this.current(seen.metadata.namespace ?? "", seen.metadata.name ?? "", seen.metadata.uid ?? "");
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) return;
    const spec = (pod["spec"] ?? {}) as Record<string, unknown>;
    if (typeof spec["nodeName"] === "string" && spec["nodeName"] !== "") return;
    const uid = pod.metadata.uid ?? "";
    const status = (isRecord(pod["status"]) ? pod["status"] : {});
    const now = rfc3339(this.registry.now());
    if (this.nodeCordoned() && !toleratesUnschedulable(pod)) {
      // As the default scheduler: the pod stays Pending with PodScheduled False until the node is uncordoned.
      this.waiting.set(uid, { namespace: pod.metadata.namespace ?? "", name: pod.metadata.name ?? "" });
      const conditions = (status["conditions"] ?? []) as Condition[];
      const before = conditions.find((c) => c.type === "PodScheduled");
      if (before?.status === "False" && before.reason === "Unschedulable") return;
      status["phase"] ??= "Pending";
      status["conditions"] = setCondition(conditions, "PodScheduled", "False", now, "Unschedulable", CORDONED_MESSAGE);
      pod["status"] = status;
      this.registry.writeInternal(mustFind("", "pods"), pod);
      return;
    }
    this.waiting.delete(uid);
    spec["nodeName"] = this.options.nodeName;
    status["phase"] ??= "Pending";
    status["conditions"] = setCondition((status["conditions"] ?? []) as Condition[], "PodScheduled", "True", now);
    pod["status"] = status;
    this.registry.writeInternal(mustFind("", "pods"), pod);
  }

  /** The simulated log of a pod's container, oldest first (empty for a pod this kubelet did not start). */
  logs(uid: string, container: string): readonly LogLine[] {
    return (this.logBook.get(uid) ?? []).filter((line) => line.container === container);
  }

  private log(uid: string, container: string, text: string): void {
    const lines = this.logBook.get(uid) ?? [];
    lines.push({ container, time: this.registry.now().toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z"), text });
    if (lines.length > LOG_LINES_PER_POD) lines.splice(0, lines.length - LOG_LINES_PER_POD);
    this.logBook.set(uid, lines);
  }

  /** `spec.unschedulable` of the node (kubectl cordon sets it). */
  private nodeCordoned(): boolean {
    if (!RESOURCES.some((r) => r.group === "" && r.resource === "nodes")) return false;
    const node = this.registry.tryGet(mustFind("", "nodes"), "", this.options.nodeName);
    return node !== undefined && getPath(node, ["spec", "unschedulable"]) === true;
  }

  private retryWaiting(): void {
    if (this.waiting.size === 0 || this.nodeCordoned()) return;
    for (const [uid, { namespace, name }] of this.waiting) {
      this.waiting.delete(uid);
      const pod = this.current(namespace, name, uid);
      if (pod !== undefined) this.later(`${uid}/schedule`, this.options.scheduleDelayMs, () => this.schedule(pod));
    }
  }

  private start(namespace: string, name: string, uid: string): void {
    const pod = this.current(namespace, name, uid);
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) return;
    const status = (isRecord(pod["status"]) ? pod["status"] : {});
    if (status["phase"] !== undefined && status["phase"] !== "Pending") return;
    const now = rfc3339(this.registry.now());
    if (this.refuseInvalidImages(pod, status, now)) return;
    this.ipCounter++;
    const ip = `10.244.${Math.floor(this.ipCounter / 250) % 256}.${(this.ipCounter % 250) + 2}`;
    status["phase"] = "Running";
    status["hostIP"] = "127.0.0.1";
    status["hostIPs"] = [{ ip: "127.0.0.1" }];
    status["podIP"] = ip;
    status["podIPs"] = [{ ip }];
    status["startTime"] = now;
    let conditions = (status["conditions"] ?? []) as Condition[];
    conditions = setCondition(conditions, "PodReadyToStartContainers", "True", now);
    conditions = setCondition(conditions, "Initialized", "True", now);
    conditions = setCondition(conditions, "PodScheduled", "True", now);
    status["conditions"] = conditions;
    status["containerStatuses"] = containersOf(pod).map((c) => ({
      name: c["name"],
      image: c["image"],
      imageID: `docker.io/library/${String(c["image"])}@sha256:${"0".repeat(64)}`,
      containerID: `containerd://${uid.replace(/-/g, "")}${String(c["name"])}`.slice(0, 77),
      ready: false,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: now } },
      lastState: {},
    }));
    pod["status"] = status;
    this.startedAtMs.set(uid, performance.now());
    for (const c of containersOf(pod)) {
      const image = typeof c["image"] === "string" ? c["image"] : "";
      this.log(uid, String(c["name"]), `kube-sim: container started from image ${image} on node ${this.options.nodeName}; the simulator runs no processes, so nothing else is logged`);
    }
    this.applyAnnotations(pod, now);
    this.registry.writeInternal(mustFind("", "pods"), pod);
  }

  /**
   * A container image that does not parse: as a kubelet, the pod stays Pending with that container waiting in
   * InvalidImageName (and is re-examined when its images change). True when the pod was held for it.
   */
  private refuseInvalidImages(pod: KubeObject, status: Record<string, unknown>, now: string): boolean {
    const containers = containersOf(pod);
    const invalid = containers.map((c) => invalidImageMessage(typeof c["image"] === "string" ? c["image"] : ""));
    if (invalid.every((m) => m === undefined)) return false;
    const statuses = containers.map((c, i) => {
      const message = invalid[i];
      return {
        name: c["name"],
        image: c["image"],
        imageID: "",
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: message === undefined ? { reason: "ContainerCreating" } : { reason: "InvalidImageName", message } },
        lastState: {},
      };
    });
    if (JSON.stringify(statuses) === JSON.stringify(status["containerStatuses"])) return true;
    const names = containers.map((c) => String(c["name"]));
    const message = `containers with unready status: [${names.join(" ")}]`;
    let conditions = (status["conditions"] ?? []) as Condition[];
    conditions = setCondition(conditions, "PodReadyToStartContainers", "True", now);
    conditions = setCondition(conditions, "Initialized", "True", now);
    conditions = setCondition(conditions, "Ready", "False", now, "ContainersNotReady", message);
    conditions = setCondition(conditions, "ContainersReady", "False", now, "ContainersNotReady", message);
    conditions = setCondition(conditions, "PodScheduled", "True", now);
    const order = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];
    status["phase"] = "Pending";
    status["hostIP"] = "127.0.0.1";
    status["hostIPs"] = [{ ip: "127.0.0.1" }];
    status["startTime"] ??= now;
    status["conditions"] = [...conditions].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
    status["containerStatuses"] = statuses;
    pod["status"] = status;
    this.registry.writeInternal(mustFind("", "pods"), pod);
    return true;
  }

  private sync(namespace: string, name: string, uid: string): void {
    const pod = this.current(namespace, name, uid);
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) return;
    if (getPath(pod, ["status", "phase"]) !== "Running") return;
    const before = JSON.stringify(pod["status"]);
    this.applyAnnotations(pod, rfc3339(this.registry.now()));
    if (JSON.stringify(pod["status"]) !== before) this.registry.writeInternal(mustFind("", "pods"), pod);
  }

  /** Readiness and terminal phases as the sim.stsfleet.dev annotations ask. */
  private applyAnnotations(pod: KubeObject, now: string): void {
    const status = pod["status"] as Record<string, unknown>;
    const names = containersOf(pod).map((c) => String(c["name"]));
    const terminal = annotation(pod, ANNOTATIONS.phase);
    const statuses = (status["containerStatuses"] ?? []) as Record<string, unknown>[];
    let conditions = (status["conditions"] ?? []) as Condition[];
    if (terminal === "Failed" || terminal === "Succeeded") {
      const failed = terminal === "Failed";
      status["phase"] = terminal;
      status["containerStatuses"] = statuses.map((cs) => ({
        ...cs,
        ready: false,
        started: false,
        state: { terminated: { exitCode: failed ? 1 : 0, reason: failed ? "Error" : "Completed", startedAt: getPath(cs, ["state", "running", "startedAt"]) ?? now, finishedAt: now, containerID: cs["containerID"] } },
      }));
      const reason = failed ? "PodFailed" : "PodCompleted";
      conditions = setCondition(conditions, "PodReadyToStartContainers", "False", now);
      conditions = setCondition(conditions, "ContainersReady", "False", now, reason);
      conditions = setCondition(conditions, "Ready", "False", now, reason);
      status["conditions"] = conditions;
      return;
    }
    // The ready annotation overrides probes either way; without it each container is Ready once its probes pass.
    const forced = annotation(pod, ANNOTATIONS.ready);
    const timings = containersOf(pod).map(probeTimingMs);
    const uid = pod.metadata.uid ?? "";
    // A pod this kubelet did not start (the simulator restarted) is taken as started long ago.
    const sinceStartMs = performance.now() - (this.startedAtMs.get(uid) ?? Number.NEGATIVE_INFINITY);
    const containerReady = timings.map((t) => (forced === "false" ? false : forced === "true" ? true : sinceStartMs >= t.readyAfterMs));
    const ready = containerReady.every(Boolean);
    status["containerStatuses"] = statuses.map((cs, i) => ({ ...cs, ready: containerReady[i] ?? ready, started: sinceStartMs >= (timings[i]?.startedAfterMs ?? 0) }));
    // The next probe due: sync again then.
    const due = timings.flatMap((t) => [t.startedAfterMs, t.readyAfterMs]).filter((ms) => ms > sinceStartMs);
    if (due.length > 0 && forced === undefined) {
      this.later(`${uid}/probe`, Math.min(...due) - sinceStartMs, () => this.sync(pod.metadata.namespace ?? "", pod.metadata.name ?? "", uid));
    }
    if (ready) {
      conditions = setCondition(conditions, "ContainersReady", "True", now);
      conditions = setCondition(conditions, "Ready", "True", now);
    } else {
      const message = `containers with unready status: [${names.filter((_, i) => containerReady[i] !== true).join(" ")}]`;
      conditions = setCondition(conditions, "ContainersReady", "False", now, "ContainersNotReady", message);
      conditions = setCondition(conditions, "Ready", "False", now, "ContainersNotReady", message);
    }
    const order = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];
    status["conditions"] = [...conditions].sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  }

  /** Containers stopped: the kubelet confirms with a zero-grace delete guarded by the pod's uid. */
  private finishTermination(seen: KubeObject): void {
    const info = mustFind("", "pods");
    const pod = this.current(seen.metadata.namespace ?? "", seen.metadata.name ?? "", seen.metadata.uid ?? "");
    if (pod === undefined) return;
    this.registry.delete(info, pod.metadata.namespace ?? "", pod.metadata.name ?? "", { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid ?? "" } }, INTERNAL_WRITE);
  }

  // ---- volumes ----

  private observeClaim(event: StoreEvent): void {
    const uid = event.entry.uid;
    if (event.type === "DELETED") {
      this.cancel(`${uid}/`);
      this.later(`${uid}/reclaim`, 0, () => this.reclaim(uid));
      return;
    }
    const claim = JSON.parse(event.entry.json) as KubeObject;
    if (claim.metadata.deletionTimestamp !== undefined) return;
    const volumeName = getPath(claim, ["spec", "volumeName"]);
    if (typeof volumeName !== "string" || volumeName === "") {
      this.later(`${uid}/bind`, this.options.bindDelayMs, () => this.bind(claim.metadata.namespace ?? "", claim.metadata.name ?? "", uid));
    } else {
      this.later(`${uid}/resize`, 0, () => this.resize(claim.metadata.namespace ?? "", claim.metadata.name ?? "", uid));
    }
  }

  private bind(namespace: string, name: string, uid: string): void {
    const pvcInfo = mustFind("", "persistentvolumeclaims");
    const pvInfo = mustFind("", "persistentvolumes");
    const claim = this.registry.tryGet(pvcInfo, namespace, name);
    if (claim === undefined || claim.metadata.uid !== uid || claim.metadata.deletionTimestamp !== undefined) return;
    if (typeof getPath(claim, ["spec", "volumeName"]) === "string") return;
    const storage = getPath(claim, ["spec", "resources", "requests", "storage"]);
    const capacity = { storage: typeof storage === "string" ? canonicalQuantity(storage) : "1Gi" };
    const accessModes = getPath(claim, ["spec", "accessModes"]) ?? ["ReadWriteOnce"];
    const pvName = `pvc-${uid}`;
    const spec: Record<string, unknown> = {
      capacity,
      accessModes,
      persistentVolumeReclaimPolicy: "Delete",
      volumeMode: getPath(claim, ["spec", "volumeMode"]) ?? "Filesystem",
      hostPath: { path: `/var/lib/kube-sim/volumes/${pvName}`, type: "" },
      claimRef: { kind: "PersistentVolumeClaim", namespace, name, uid, apiVersion: "v1", resourceVersion: claim.metadata.resourceVersion ?? "" },
    };
    const storageClass = getPath(claim, ["spec", "storageClassName"]);
    if (typeof storageClass === "string" && storageClass !== "") spec["storageClassName"] = storageClass;
    const pv = this.registry.create(
      pvInfo,
      "",
      { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: pvName, annotations: { "pv.kubernetes.io/provisioned-by": "kube-sim.stsfleet.dev/hostpath" } }, spec },
      INTERNAL_WRITE,
    );
    pv["status"] = { phase: "Bound", lastPhaseTransitionTime: rfc3339(this.registry.now()) };
    this.registry.writeInternal(pvInfo, pv);
    const next = clone(claim);
    next.metadata.annotations = {
      ...next.metadata.annotations,
      "pv.kubernetes.io/bind-completed": "yes",
      "pv.kubernetes.io/bound-by-controller": "yes",
      "volume.beta.kubernetes.io/storage-provisioner": "kube-sim.stsfleet.dev/hostpath",
      "volume.kubernetes.io/storage-provisioner": "kube-sim.stsfleet.dev/hostpath",
    };
    (next["spec"] as Record<string, unknown>)["volumeName"] = pvName;
    next["status"] = { phase: "Bound", accessModes, capacity };
    this.registry.writeInternal(pvcInfo, next);
  }

  /** A claim asking for more than its volume has: grow the volume and report the new capacity. */
  private resize(namespace: string, name: string, uid: string): void {
    const pvcInfo = mustFind("", "persistentvolumeclaims");
    const pvInfo = mustFind("", "persistentvolumes");
    const claim = this.registry.tryGet(pvcInfo, namespace, name);
    if (claim === undefined || claim.metadata.uid !== uid) return;
    const requested = getPath(claim, ["spec", "resources", "requests", "storage"]);
    const current = getPath(claim, ["status", "capacity", "storage"]);
    if (typeof requested !== "string" || typeof current !== "string" || !quantityGreater(requested, current)) return;
    const pv = this.registry.tryGet(pvInfo, "", String(getPath(claim, ["spec", "volumeName"])));
    if (pv !== undefined) {
      (pv["spec"] as Record<string, unknown>)["capacity"] = { storage: requested };
      this.registry.writeInternal(pvInfo, pv);
    }
    (claim["status"] as Record<string, unknown>)["capacity"] = { storage: requested };
    this.registry.writeInternal(pvcInfo, claim);
  }

  private reclaim(claimUid: string): void {
    const pvInfo = mustFind("", "persistentvolumes");
    for (const key of [...this.registry.store.keys("/persistentvolumes", undefined)]) {
      const entry = this.registry.store.getByKey("/persistentvolumes", key);
      if (entry === undefined) continue;
      const pv = JSON.parse(entry.json) as KubeObject;
      if (getPath(pv, ["spec", "claimRef", "uid"]) !== claimUid || pv.metadata.deletionTimestamp !== undefined) continue;
      try {
        this.registry.delete(pvInfo, "", entry.name, {}, INTERNAL_WRITE);
      } catch (err) {
        if (!(err instanceof StatusError)) throw err;
      }
    }
  }
}

/** Whether quantity `a` is larger than `b` (false when either does not parse). */
export function quantityGreater(a: string, b: string): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x.ok || !y.ok) return false;
  const exp = Math.min(x.quantity.exp, y.quantity.exp);
  const scale = (q: { unscaled: bigint; exp: number }) => q.unscaled * 10n ** BigInt(q.exp - exp);
  return scale(x.quantity) > scale(y.quantity);
}
