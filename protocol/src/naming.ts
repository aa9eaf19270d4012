// Naming formulas shared by every service, with upstream semantics (pkg/controller/statefulset
// stateful_set_utils.go and pkg/controller/history/controller_history.go).

import { fnv1_32 } from "./fnv.ts";

export const LABELS = {
  /** `apps.StatefulSetPodNameLabel` */
  podName: "statefulset.kubernetes.io/pod-name",
  /** `apps.PodIndexLabel` (GA 1.32) */
  podIndex: "apps.kubernetes.io/pod-index",
  /** `apps.StatefulSetRevisionLabel` / `apps.ControllerRevisionHashLabelKey` */
  revisionHash: "controller-revision-hash",
  /** `history.ControllerRevisionHashLabel`, on ControllerRevisions */
  controllerRevisionHash: "controller.kubernetes.io/hash",
} as const;

/** Upstream `statefulPodRegex`: greedy parent, then a dash and decimal digits at the end. */
const STATEFUL_POD_REGEX = /^(.*)-([0-9]+)$/;
const INT32_MAX = 2147483647;

export interface ParentAndOrdinal {
  /** Empty when the name does not look like `<parent>-<digits>`. */
  readonly parent: string;
  /** -1 when the name has no ordinal or the ordinal does not fit an int32. */
  readonly ordinal: number;
}

/** Upstream `getParentNameAndOrdinal`. */
export function parseParentAndOrdinal(podName: string): ParentAndOrdinal {
  const match = STATEFUL_POD_REGEX.exec(podName);
  if (match === null) return { parent: "", ordinal: -1 };
  const parent = match[1] ?? "";
  const digits = match[2] ?? "";
  // strconv.ParseInt(s, 10, 32): any run of digits that fits in an int32, leading zeros allowed.
  const value = Number(digits);
  const ordinal = digits.length <= 10 && value <= INT32_MAX ? value : -1;
  return { parent, ordinal };
}

/** Upstream `getOrdinal`. */
export function podOrdinal(podName: string): number {
  return parseParentAndOrdinal(podName).ordinal;
}

/** Upstream `isMemberOf`: the pod's parsed parent name equals the set's name. */
export function isMemberOf(setName: string, podName: string): boolean {
  return parseParentAndOrdinal(podName).parent === setName;
}

/** Upstream `getPodName`: `<set>-<ordinal>`. */
export function podName(setName: string, ordinal: number): string {
  return `${setName}-${ordinal}`;
}

/** Upstream `getPersistentVolumeClaimName`: `<template>-<set>-<ordinal>`. */
export function claimName(templateName: string, setName: string, ordinal: number): string {
  return `${templateName}-${setName}-${ordinal}`;
}

/** Upstream `rand.SafeEncodeString` alphabet: no vowels, no look-alikes. */
const SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** Upstream `rand.SafeEncodeString`: maps each byte (code unit here; inputs are ASCII) through the alphabet. */
export function safeEncodeString(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) out += SAFE_ALPHABET[value.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

/**
 * Upstream `history.HashControllerRevision` for a revision carrying only `data.raw`: FNV-1 32 over the raw
 * bytes, then over the decimal collision count, printed in decimal and safe-encoded.
 */
export function controllerRevisionHash(raw: Uint8Array | string, collisionCount: number | undefined): string {
  const parts: (Uint8Array | string)[] = [raw];
  if (collisionCount !== undefined) parts.push(String(collisionCount));
  return safeEncodeString(String(fnv1_32(...parts)));
}

/** Upstream `history.ControllerRevisionName`: the prefix is cut to 223 characters. */
export const REVISION_NAME_PREFIX_MAX = 223;

export function controllerRevisionName(setName: string, hash: string): string {
  return `${setName.slice(0, REVISION_NAME_PREFIX_MAX)}-${hash}`;
}

/** Kubernetes label values are at most 63 characters; a revision name must fit (it labels every pod). */
export const LABEL_VALUE_MAX = 63;
