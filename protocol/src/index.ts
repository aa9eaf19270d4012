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
