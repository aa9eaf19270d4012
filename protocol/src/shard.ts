import { fnv1a32 } from "./fnv.ts";

/** Number of shards. Fixed for the life of a fleet: changing it is a full-restart migration. */
export const SHARD_COUNT = 256;

export type Shard = number;

/**
 * Object names are DNS-1123 subdomains and may contain dots, which NATS uses as token separators. `_` never
 * occurs in such a name, so replacing `.` by `_` is reversible.
 */
export function nameToToken(name: string): string {
  return name.replaceAll(".", "_");
}

export function tokenToName(token: string): string {
  return token.replaceAll("_", ".");
}

/**
 * The shard of a StatefulSet: FNV-1a 32 over `namespace + nameToken`, mod 256. Byte for byte what nats-server
 * (2.8+) computes for the subject mapping `{{partition(256,1,2)}}` on `<prefix>.<namespace>.<nameToken>`.
 */
export function shard(namespace: string, name: string): Shard {
  return fnv1a32(namespace, nameToToken(name)) % SHARD_COUNT;
}

export function isShard(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value < SHARD_COUNT;
}

/** Every shard number, ascending. */
export const ALL_SHARDS: readonly Shard[] = Object.freeze(Array.from({ length: SHARD_COUNT }, (_, i) => i));
