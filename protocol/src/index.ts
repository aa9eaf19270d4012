// The public surface of protocol/: every export is named here (no `export *`).
export { fnv1a32, fnv1_32, fnv1a64 } from "./fnv.ts";
export { SHARD_COUNT, ALL_SHARDS, shard, isShard, nameToToken, tokenToName } from "./shard.ts";
export type { Shard } from "./shard.ts";
export {
  LABELS,
  LABEL_VALUE_MAX,
  REVISION_NAME_PREFIX_MAX,
  claimName,
  controllerRevisionHash,
  controllerRevisionName,
  isMemberOf,
  parseParentAndOrdinal,
  podName,
  podOrdinal,
  safeEncodeString,
} from "./naming.ts";
export type { ParentAndOrdinal } from "./naming.ts";
export {
  BUCKETS,
  CONSUMERS,
  FLEET_KEYS,
  HEADERS,
  MAX_INTENT_LOG_REPLICAS,
  OBJECT_KINDS,
  STREAMS,
  SubjectError,
  eventSubjects,
  intentLogQuorum,
  intentReplicaStream,
  intentReplicaSubjects,
  intentSubjects,
  isObjectKindToken,
  kindToken,
  liveObjectSubjects,
  memberKeys,
  objectSubjects,
  pokeSubjects,
  probeSubjects,
  pvcCommandSubjects,
  rereadSubjects,
  shardKeys,
  statusSubjects,
} from "./subjects.ts";
export type { ObjectAddress, ObjectKind, ObjectKindToken, SetAddress } from "./subjects.ts";
export {
  AnyMessageSchema,
  EpochSchema,
  EventRecordSchema,
  IntentLogLayoutSchema,
  IntentPlanSchema,
  IntentSchema,
  IntentTakeoverSchema,
  KubeObjectSchema,
  MemberRecordSchema,
  MemberStateSchema,
  ObjectDeleteSchema,
  ObjectEnvelopeSchema,
  ObjectKindSchema,
  ObjectPutSchema,
  ObjectRereadOutcomeSchema,
  ObjectRereadResultSchema,
  ObjectRereadSchema,
  OwnerReferenceSchema,
  PokeSchema,
  ProbeAckSchema,
  ProbeSchema,
  PvcCommandSchema,
  PvcCreateSchema,
  PvcUpdateOwnerRefsSchema,
  SetRefSchema,
  ShardRecordSchema,
  ShardSchema,
  StatefulSetConditionSchema,
  StatefulSetStatusSchema,
  StatusManagerSchema,
  StatusOutcomeSchema,
  StatusResultSchema,
  StatusWriteSchema,
} from "./messages.ts";
export type {
  AnyMessage,
  EventRecord,
  Intent,
  IntentLogLayout,
  IntentPlan,
  IntentTakeover,
  KubeObject,
  MemberRecord,
  MemberState,
  MessageType,
  ObjectDelete,
  ObjectEnvelope,
  ObjectPut,
  ObjectReread,
  ObjectRereadOutcome,
  ObjectRereadResult,
  OwnerReference,
  Poke,
  Probe,
  ProbeAck,
  PvcCommand,
  PvcCreate,
  PvcUpdateOwnerRefs,
  SetRef,
  ShardRecord,
  StatefulSetStatus,
  StatusManager,
  StatusOutcome,
  StatusResult,
  StatusWrite,
} from "./messages.ts";
export { PublicationClock, comparePublicationVersions, formatPublicationVersion, parsePublicationVersion } from "./publication.ts";
export type { PublicationVersion } from "./publication.ts";
export { DECODE_FAILURES, DecodeError, codecFor, codecs } from "./codec.ts";
export type { Codec, DecodeFailure, DecodeIssue } from "./codec.ts";
export { TRACE_HEADERS, extractSpanContext, extractTraceContext, injectTraceContext } from "./trace.ts";
export type { HeaderCarrier } from "./trace.ts";
export { SAMPLE_MESSAGES } from "./samples.ts";
export { UnreachableError, assertNever } from "./assert.ts";
export { compileSelector, selectorMatches } from "./selector.ts";
export type { CompiledSelector, LabelSelector, LabelSelectorRequirement, SelectorResult } from "./selector.ts";
export { MAX_PAYLOAD_BYTES } from "./limits.ts";
