// Message types exchanged over NATS, as zod schemas (the runtime contract) and the TypeScript types inferred from
// them. Every message is an object with a literal `type`; every command carries the shard and the epoch (the
// revision of the shard's ownership record when the sender claimed it) so executors can fence stale senders.

import { z } from "zod";
import { SHARD_COUNT } from "./shard.ts";

const nonEmpty = z.string().min(1);
const count = z.number().int().nonnegative();

export const ShardSchema = z.number().int().min(0).max(SHARD_COUNT - 1);
/** The KV revision of the shard's ownership record at claim time: the fencing token. */
export const EpochSchema = z.number().int().nonnegative();

export const ObjectKindSchema = z.enum(["StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision"]);

/** The identity of a StatefulSet that a command is about. `uid` distinguishes incarnations of one name. */
export const SetRefSchema = z.object({ namespace: nonEmpty, name: nonEmpty, uid: nonEmpty });
export type SetRef = z.infer<typeof SetRefSchema>;

/**
 * A Kubernetes object as the API server returned it (managedFields stripped). Only the fields every consumer relies
 * on are checked here; unknown fields are kept.
 */
export const KubeObjectSchema = z.looseObject({
  apiVersion: nonEmpty,
  kind: nonEmpty,
  metadata: z.looseObject({
    name: nonEmpty,
    namespace: z.string().optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
  }),
});
export type KubeObject = z.infer<typeof KubeObjectSchema>;

export const OwnerReferenceSchema = z.object({
  apiVersion: nonEmpty,
  kind: nonEmpty,
  name: nonEmpty,
  uid: nonEmpty,
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof OwnerReferenceSchema>;

// --- watcher -> actors -------------------------------------------------------------------------------------

const objectIdentity = {
  kind: ObjectKindSchema,
  namespace: nonEmpty,
  name: nonEmpty,
  uid: nonEmpty,
  resourceVersion: nonEmpty,
};

/**
 * One managedFields entry of an object's status subresource: which field manager wrote its status, and when (RFC 3339,
 * second precision). The owner of a StatefulSet reads them to tell whether another controller acts on it (ADR 0092).
 */
export const StatusManagerSchema = z.object({
  manager: z.string().max(128),
  operation: z.string().max(16).optional(),
  time: z.string().max(64).optional(),
});
export type StatusManager = z.infer<typeof StatusManagerSchema>;

export const ObjectPutSchema = z.object({
  type: z.literal("object.put"),
  ...objectIdentity,
  object: KubeObjectSchema,
  /** StatefulSets only, when any: the object's managedFields are stripped, these entries are what owners read of them. */
  statusManagers: z.array(StatusManagerSchema).max(64).optional(),
});
/** A tombstone: the object is gone. `resourceVersion` is the last one seen (or the delete event's). */
export const ObjectDeleteSchema = z.object({ type: z.literal("object.delete"), ...objectIdentity });
export const ObjectEnvelopeSchema = z.discriminatedUnion("type", [ObjectPutSchema, ObjectDeleteSchema]);
export type ObjectPut = z.infer<typeof ObjectPutSchema>;
export type ObjectDelete = z.infer<typeof ObjectDeleteSchema>;
export type ObjectEnvelope = z.infer<typeof ObjectEnvelopeSchema>;

/**
 * An owner could not read the last message of one of its shard's object subjects (undecodable, invalid, or about
 * another object than its subject names) and asks the watcher to verify the subject and publish it again from its
 * mirror (ADR 0088). On `svc.reread.<shard>.<kind>.<ns>.<name>`; the body repeats the subject's address.
 */
export const ObjectRereadSchema = z.object({
  type: z.literal("object.reread"),
  shard: ShardSchema,
  kind: ObjectKindSchema,
  namespace: nonEmpty,
  name: nonEmpty,
  /** Stream sequence of the message that could not be read (0: not known). */
  seq: count,
  /** Why it could not be read: a DecodeFailure, or "mismatch". */
  reason: z.string().max(64),
  /** The fleet member asking. */
  requestedBy: nonEmpty,
});
export type ObjectReread = z.infer<typeof ObjectRereadSchema>;

export const ObjectRereadOutcomeSchema = z.enum([
  /** The subject owes a publish from the watcher's mirror (a PUT or a tombstone); it follows on the subject. */
  "republishing",
  /** The subject's last message is one the watcher published and reads back: nothing to repair. */
  "valid",
  /** The watcher knows no object on this subject and the subject holds nothing now (a foreign message was purged). */
  "absent",
]);
export type ObjectRereadOutcome = z.infer<typeof ObjectRereadOutcomeSchema>;

/** The active watcher's answer; a standby never answers (the owner asks again later). */
export const ObjectRereadResultSchema = z.object({
  type: z.literal("object.reread.result"),
  outcome: ObjectRereadOutcomeSchema,
  /** The subject's last stream sequence as the watcher read it (0: empty). */
  seq: count,
});
export type ObjectRereadResult = z.infer<typeof ObjectRereadResultSchema>;

// --- actor -> pvc-provisioner --------------------------------------------------------------------------------

const commandBase = {
  shard: ShardSchema,
  epoch: EpochSchema,
  /** Unique per command; also the JetStream `Nats-Msg-Id`, so a re-publish is deduplicated. */
  commandId: nonEmpty,
  /** The fleet member that issued the command. */
  issuedBy: nonEmpty,
  set: SetRefSchema,
};

/** Create the claims of one pod (claims exist before their pod). Idempotent: AlreadyExists is success. */
export const PvcCreateSchema = z.object({
  type: z.literal("pvc.create"),
  ...commandBase,
  podName: nonEmpty,
  ordinal: z.number().int(),
  claims: z.array(KubeObjectSchema).min(1),
});

/** Set a claim's owner references for the retention policy, guarded by uid and resourceVersion. */
export const PvcUpdateOwnerRefsSchema = z.object({
  type: z.literal("pvc.updateOwnerRefs"),
  ...commandBase,
  claimName: nonEmpty,
  claimUid: nonEmpty,
  resourceVersion: nonEmpty,
  ownerReferences: z.array(OwnerReferenceSchema),
  /**
   * The claim's owner references in the copy the actor planned from. With them, a claim whose resourceVersion moved
   * while its owners did not (it was bound to a volume: a quiet change the actor never saw, ADR 0090) is updated
   * from its current version instead of being refused as stale. Absent: the resourceVersion alone decides.
   */
  fromOwnerReferences: z.array(OwnerReferenceSchema).optional(),
});

export const PvcCommandSchema = z.discriminatedUnion("type", [PvcCreateSchema, PvcUpdateOwnerRefsSchema]);
export type PvcCreate = z.infer<typeof PvcCreateSchema>;
export type PvcUpdateOwnerRefs = z.infer<typeof PvcUpdateOwnerRefsSchema>;
export type PvcCommand = z.infer<typeof PvcCommandSchema>;

// --- actor -> status-writer ----------------------------------------------------------------------------------

export const StatefulSetConditionSchema = z.looseObject({
  type: nonEmpty,
  status: z.enum(["True", "False", "Unknown"]),
  lastTransitionTime: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

export const StatefulSetStatusSchema = z.object({
  observedGeneration: count,
  replicas: count,
  readyReplicas: count,
  currentReplicas: count,
  updatedReplicas: count,
  availableReplicas: count,
  currentRevision: z.string(),
  updateRevision: z.string(),
  collisionCount: count,
  conditions: z.array(StatefulSetConditionSchema).optional(),
});
export type StatefulSetStatus = z.infer<typeof StatefulSetStatusSchema>;

/** Latest wins per set; the writer never lets observedGeneration go below what the fleet wrote (ADR 0087). */
export const StatusWriteSchema = z.object({
  type: z.literal("status.write"),
  shard: ShardSchema,
  epoch: EpochSchema,
  set: SetRefSchema,
  status: StatefulSetStatusSchema,
  /**
   * What of `status` is written. `status` (the default): the whole status, under the ordering guards of ADR 0087.
   * `conditions`: only the given conditions, set by type over the stored status as apimachinery's
   * meta.SetStatusCondition does; the counters are not written, so the generation guards do not apply. For a set
   * the actor leaves alone because another controller writes its status (ADR 0092).
   */
  scope: z.enum(["status", "conditions"]).optional(),
});
export type StatusWrite = z.infer<typeof StatusWriteSchema>;

export const StatusOutcomeSchema = z.enum([
  "written",
  "unchanged",
  /** A newer write for the same set arrived before this one ran (latest wins). */
  "superseded",
  "stale-epoch",
  "stale-generation",
  "not-found",
  "failed",
]);
export type StatusOutcome = z.infer<typeof StatusOutcomeSchema>;

export const StatusResultSchema = z.object({
  type: z.literal("status.result"),
  outcome: StatusOutcomeSchema,
  /** The StatefulSet's resourceVersion after the write, for the actor's read-your-writes guard. */
  resourceVersion: z.string().optional(),
  message: z.string().optional(),
});
export type StatusResult = z.infer<typeof StatusResultSchema>;

/** A Kubernetes Event to record about an object (upstream reason strings such as SuccessfulCreate). */
export const EventRecordSchema = z.object({
  type: z.literal("event.record"),
  shard: ShardSchema,
  epoch: EpochSchema,
  regarding: z.object({
    apiVersion: nonEmpty,
    kind: nonEmpty,
    namespace: nonEmpty,
    name: nonEmpty,
    uid: nonEmpty,
    resourceVersion: z.string().optional(),
  }),
  eventType: z.enum(["Normal", "Warning"]),
  reason: nonEmpty,
  note: z.string().max(1024),
  action: z.string().min(1).max(128),
  occurredAtMs: count,
});
export type EventRecord = z.infer<typeof EventRecordSchema>;

// --- intent log (STS_INTENT) ---------------------------------------------------------------------------------

const intentBase = { shard: ShardSchema, epoch: EpochSchema, member: nonEmpty, incarnation: nonEmpty };

/** Appended (compare-and-set on the subject's last sequence) before a turn's batch of Kubernetes writes. */
export const IntentPlanSchema = z.object({
  type: z.literal("intent.plan"),
  ...intentBase,
  set: SetRefSchema,
  turn: count,
  /**
   * metadata.generation of the set the plan was made from. A later owner whose cache shows an older generation waits
   * for it before planning (its cache is behind what was acted on: after a NATS outage the stream may still hold the
   * previous spec). Absent in records from before it existed.
   */
  setGeneration: count.optional(),
  /** One short line per action, for humans reading the log. */
  actions: z.array(z.string()).max(1000),
});
/** Appended by a new owner for every set of a shard it claimed; fences the previous owner's next append. */
export const IntentTakeoverSchema = z.object({ type: z.literal("intent.takeover"), ...intentBase });
export const IntentSchema = z.discriminatedUnion("type", [IntentPlanSchema, IntentTakeoverSchema]);
export type IntentPlan = z.infer<typeof IntentPlanSchema>;
export type IntentTakeover = z.infer<typeof IntentTakeoverSchema>;
export type Intent = z.infer<typeof IntentSchema>;

/**
 * How the fleet keeps its intent log, written once by the first actor (bucket `members`, key FLEET_KEYS.intentLog)
 * and checked by every actor at start: two actors that append to different logs would not fence each other.
 * `placement` empty: one stream STS_INTENT; otherwise one single-replica stream per server tag, written by quorum.
 */
export const IntentLogLayoutSchema = z.object({
  type: z.literal("intent-log.layout"),
  placement: z.array(nonEmpty).max(7),
});
export type IntentLogLayout = z.infer<typeof IntentLogLayoutSchema>;

// --- membership and shard ownership (KV buckets) -------------------------------------------------------------

export const MemberStateSchema = z.enum(["alive", "leaving", "dead"]);
export type MemberState = z.infer<typeof MemberStateSchema>;

export const MemberRecordSchema = z.object({
  type: z.literal("member"),
  name: nonEmpty,
  /** New for every process start; a member marked dead never comes back under the same incarnation. */
  incarnation: nonEmpty,
  state: MemberStateSchema,
  leaseDurationMs: z.number().int().positive(),
  renewDeadlineMs: z.number().int().positive(),
  retryPeriodMs: z.number().int().positive(),
  version: nonEmpty,
  startedAtMs: count,
});
export type MemberRecord = z.infer<typeof MemberRecordSchema>;

export const ShardRecordSchema = z.object({
  type: z.literal("shard"),
  shard: ShardSchema,
  owner: nonEmpty,
  incarnation: nonEmpty,
  state: z.enum(["owned", "released"]),
});
export type ShardRecord = z.infer<typeof ShardRecordSchema>;

/** Liveness probe between members (request-reply on fleet.probe.<member>). */
export const ProbeSchema = z.object({ type: z.literal("probe"), from: nonEmpty, incarnation: nonEmpty, sentAtMs: count });
export const ProbeAckSchema = z.object({
  type: z.literal("probe.ack"),
  member: nonEmpty,
  incarnation: nonEmpty,
  state: MemberStateSchema,
});
export type Probe = z.infer<typeof ProbeSchema>;
export type ProbeAck = z.infer<typeof ProbeAckSchema>;

/** Ask the owner of a set for a reconcile turn. */
export const PokeSchema = z.object({ type: z.literal("poke"), namespace: nonEmpty, name: nonEmpty, reason: z.string() });
export type Poke = z.infer<typeof PokeSchema>;

/** Every message type, for tools that read any subject (debugging, replay). */
export const AnyMessageSchema = z.discriminatedUnion("type", [
  ObjectPutSchema,
  ObjectDeleteSchema,
  ObjectRereadSchema,
  ObjectRereadResultSchema,
  PvcCreateSchema,
  PvcUpdateOwnerRefsSchema,
  StatusWriteSchema,
  StatusResultSchema,
  EventRecordSchema,
  IntentPlanSchema,
  IntentTakeoverSchema,
  IntentLogLayoutSchema,
  MemberRecordSchema,
  ShardRecordSchema,
  ProbeSchema,
  ProbeAckSchema,
  PokeSchema,
]);
export type AnyMessage = z.infer<typeof AnyMessageSchema>;
export type MessageType = AnyMessage["type"];
