// What the invariant checker reads, in compact form: audited writes (from the simulator's audit log, with the
// writer's epoch), object facts at every resourceVersion (from watches of the API), changes of the `members` and
// `shards` buckets, and the harness's fault journal. Everything carries wall-clock times of this one machine
// (audit timestamps, KV write times and the journal are comparable); object events are ordered by the simulator's
// global resourceVersion counter (ADR 0020), which makes ordering checks causal rather than timing-based.
import { parseParentAndOrdinal } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";

// --- audit log -------------------------------------------------------------------------------------------------

export interface WriterEpoch {
  readonly shard: number;
  readonly epoch: number;
  readonly member: string;
}

/** One mutating request from the audit log. */
export interface AuditWrite {
  /** Line number in the file (completion order). */
  readonly index: number;
  readonly verb: string;
  readonly resource: string;
  readonly subresource: string | undefined;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly code: number;
  readonly reason: string | undefined;
  readonly userAgent: string;
  readonly username: string;
  /** `actor`, `pvc-provisioner`, … from `stsfleet-<service>/<version> (<instance>)`; undefined for other clients. */
  readonly service: string | undefined;
  readonly instance: string | undefined;
  /** From annotation `stsfleet.dev/epoch` (`<shard>/<epoch>/<member>`), sent by actors on every write. */
  readonly epoch: WriterEpoch | undefined;
  /** Wall clock, microseconds since the Unix epoch. */
  readonly receivedUs: number;
  readonly completedUs: number;
}

export const EPOCH_ANNOTATION = "stsfleet.dev/epoch";
const USER_AGENT_RE = /^stsfleet-([a-z-]+)\/\S+ \(([^)]*)\)$/;

/** `2026-01-02T03:04:05.123456Z` -> microseconds since the Unix epoch. */
export function microTime(value: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(value);
  if (!match?.[1]) throw new Error(`not an RFC 3339 time: ${value}`);
  return Date.parse(`${match[1]}Z`) * 1000 + Number((match[2] ?? "").padEnd(6, "0").slice(0, 6));
}

export function parseWriterEpoch(value: string | undefined): WriterEpoch | undefined {
  const match = /^(\d+)\/(\d+)\/(.+)$/.exec(value ?? "");
  if (!match?.[3]) return undefined;
  return { shard: Number(match[1]), epoch: Number(match[2]), member: match[3] };
}

interface RawAuditEvent {
  verb?: string;
  userAgent?: string;
  user?: { username?: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number; reason?: string };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
  annotations?: Record<string, string>;
}

/** One audit.k8s.io/v1 Event line as the simulator writes it; throws on a line that is not JSON. */
export function parseAuditLine(line: string, index: number): AuditWrite {
  const raw = JSON.parse(line) as RawAuditEvent;
  const userAgent = raw.userAgent ?? "";
  const agent = USER_AGENT_RE.exec(userAgent);
  return {
    index,
    verb: raw.verb ?? "",
    resource: raw.objectRef?.resource ?? "",
    subresource: raw.objectRef?.subresource,
    namespace: raw.objectRef?.namespace,
    name: raw.objectRef?.name,
    code: raw.responseStatus?.code ?? 0,
    reason: raw.responseStatus?.reason,
    userAgent,
    username: raw.user?.username ?? "",
    service: agent?.[1],
    instance: agent?.[2],
    epoch: parseWriterEpoch(raw.annotations?.[EPOCH_ANNOTATION]),
    receivedUs: microTime(raw.requestReceivedTimestamp ?? ""),
    completedUs: microTime(raw.stageTimestamp ?? ""),
  };
}

/** Parses audit.k8s.io/v1 Events, one per line; a torn last line (still being written) is skipped. */
export function parseAuditLog(text: string): AuditWrite[] {
  const lines = text.split("\n");
  const writes: AuditWrite[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      writes.push(parseAuditLine(line, index));
    } catch (error) {
      if (index === lines.length - 1) return;
      const what = error instanceof SyntaxError ? "is not JSON" : "is not an audit event";
      throw new Error(`audit log line ${index + 1} ${what}: ${(error as Error).message}`, { cause: error });
    }
  });
  return writes;
}

export function succeeded(write: AuditWrite): boolean {
  return write.code >= 200 && write.code <= 299;
}

/** The StatefulSet a pod or ControllerRevision name belongs to (`web-3` -> `web`, `web-5d8f7c9b4` -> `web`). */
export function setNameOf(resource: string, name: string): string | undefined {
  if (resource === "pods") {
    const { parent, ordinal } = parseParentAndOrdinal(name);
    return ordinal >= 0 ? parent : undefined;
  }
  if (resource === "controllerrevisions") {
    const cut = name.lastIndexOf("-");
    return cut > 0 ? name.slice(0, cut) : undefined;
  }
  return undefined;
}

// --- object facts ----------------------------------------------------------------------------------------------

export interface ObjectMeta {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly rv: number;
  readonly deleting: boolean;
  /** uid of the controller owner reference. */
  readonly ownerUid: string | undefined;
}

export interface PodFacts extends ObjectMeta {
  readonly kind: "Pod";
  /** Label `controller-revision-hash`. */
  readonly revision: string | undefined;
  readonly phase: string | undefined;
  /** Running with condition Ready=True. */
  readonly ready: boolean;
}

export interface SetFacts extends ObjectMeta {
  readonly kind: "StatefulSet";
  readonly generation: number;
  readonly replicas: number;
  readonly podManagementPolicy: "OrderedReady" | "Parallel";
  readonly updateStrategy: "RollingUpdate" | "OnDelete";
  readonly partition: number;
  readonly maxUnavailable: number | string | undefined;
  readonly startOrdinal: number;
  readonly status: {
    readonly observedGeneration: number | undefined;
    readonly replicas: number | undefined;
    readonly readyReplicas: number | undefined;
    readonly updatedReplicas: number | undefined;
    readonly currentRevision: string | undefined;
    readonly updateRevision: string | undefined;
  };
}

export interface RevisionFacts extends ObjectMeta {
  readonly kind: "ControllerRevision";
  readonly revision: number;
}

export interface ClaimFacts extends ObjectMeta {
  readonly kind: "PersistentVolumeClaim";
}

export type ObjectFacts = PodFacts | SetFacts | RevisionFacts | ClaimFacts;
export type FactKind = ObjectFacts["kind"];

export interface ObjectEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED";
  /** The simulator's global resourceVersion of this change. */
  readonly rv: number;
  /** When the recorder received it (wall clock, ms). */
  readonly atMs: number;
  /** Made up from a relist after a watch gap: the object's state is right, the moment of the change is not. */
  readonly synthetic: boolean;
  readonly facts: ObjectFacts;
}

interface LooseObject {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    deletionTimestamp?: string;
    generation?: number;
    labels?: Record<string, string>;
    ownerReferences?: { uid?: string; controller?: boolean }[];
  };
  spec?: {
    replicas?: number;
    podManagementPolicy?: string;
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
    ordinals?: { start?: number };
  };
  status?: {
    phase?: string;
    conditions?: { type?: string; status?: string }[];
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
  revision?: number;
}

function metaOf(object: LooseObject): ObjectMeta {
  const m = object.metadata ?? {};
  return {
    namespace: m.namespace ?? "",
    name: m.name ?? "",
    uid: m.uid ?? "",
    rv: Number(m.resourceVersion ?? 0),
    deleting: m.deletionTimestamp !== undefined,
    ownerUid: (m.ownerReferences ?? []).find((ref) => ref.controller === true)?.uid,
  };
}

/** The facts the invariants need from an API object of one of the four kinds. */
export function factsOf(kind: FactKind, raw: unknown): ObjectFacts {
  const object = (raw ?? {}) as LooseObject;
  const meta = metaOf(object);
  switch (kind) {
    case "Pod": {
      const phase = object.status?.phase;
      const ready = phase === "Running" && (object.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
      return { kind, ...meta, revision: object.metadata?.labels?.["controller-revision-hash"], phase, ready };
    }
    case "StatefulSet": {
      const spec = object.spec ?? {};
      const status = object.status ?? {};
      return {
        kind,
        ...meta,
        generation: object.metadata?.generation ?? 0,
        replicas: spec.replicas ?? 1,
        podManagementPolicy: spec.podManagementPolicy === "Parallel" ? "Parallel" : "OrderedReady",
        updateStrategy: spec.updateStrategy?.type === "OnDelete" ? "OnDelete" : "RollingUpdate",
        partition: spec.updateStrategy?.rollingUpdate?.partition ?? 0,
        maxUnavailable: spec.updateStrategy?.rollingUpdate?.maxUnavailable,
        startOrdinal: spec.ordinals?.start ?? 0,
        status: {
          observedGeneration: status.observedGeneration,
          replicas: status.replicas,
          readyReplicas: status.readyReplicas,
          updatedReplicas: status.updatedReplicas,
          currentRevision: status.currentRevision,
          updateRevision: status.updateRevision,
        },
      };
    }
    case "ControllerRevision":
      return { kind, ...meta, revision: object.revision ?? 0 };
    case "PersistentVolumeClaim":
      return { kind, ...meta };
    default:
      throw new Error(`unknown kind ${String(kind)}`);
  }
}

// --- fleet ownership ---------------------------------------------------------------------------------------------

/** One change of bucket `members` or `shards`, with the server's write time. */
export interface OwnershipChange {
  readonly bucket: "members" | "shards";
  readonly key: string;
  readonly revision: number;
  readonly atMs: number;
  readonly member?: MemberRecord | undefined;
  readonly shard?: ShardRecord | undefined;
}

// --- faults ----------------------------------------------------------------------------------------------------

export type FaultKind =
  | "kill"
  | "pause"
  | "resume"
  | "terminate"
  | "start"
  | "cut"
  | "heal"
  | "delay"
  | "nats-down"
  | "nats-up"
  | "node-down"
  | "node-up";

/** One injected fault (or its end), as the harness performed it. */
export interface FaultRecord {
  readonly kind: FaultKind;
  /** A service instance (`actor-1`), `nats`, or a cluster node (`n0`). */
  readonly target: string;
  readonly atMs: number;
  readonly note?: string;
}
