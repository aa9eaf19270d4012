// Desired shard owners: rendezvous (highest-random-weight) hashing over the live members with a load cap, so
// every member computes the same map from the same member list, a join or leave moves about P/N shards, and no
// member owns more than ceil(loadFactor * P / N).
import { SHARD_COUNT, fnv1a64 } from "#protocol";

export const DEFAULT_LOAD_FACTOR = 1.15;

const MASK64 = 0xffffffffffffffffn;

/** MurmurHash3's 64-bit finalizer: FNV-1a alone barely mixes its last bytes, so "a:1" and "a:2" would rank alike. */
function fmix64(value: bigint): bigint {
  let k = value;
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & MASK64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & MASK64;
  k ^= k >> 33n;
  return k;
}

export function rendezvousScore(member: string, shard: number): bigint {
  return fmix64(fnv1a64(`${member}:${shard}`));
}

/** shard -> member. Empty when there are no members. */
export function desiredAssignment(
  members: readonly string[],
  options: { shardCount?: number; loadFactor?: number } = {},
): Map<number, string> {
  const shardCount = options.shardCount ?? SHARD_COUNT;
  const unique = [...new Set(members)].sort();
  const assignment = new Map<number, string>();
  if (unique.length === 0) return assignment;
  const cap = Math.ceil(((options.loadFactor ?? DEFAULT_LOAD_FACTOR) * shardCount) / unique.length);
  const load = new Map(unique.map((m) => [m, 0]));
  for (let shard = 0; shard < shardCount; shard++) {
    const ranked = unique
      .map((member) => ({ member, score: rendezvousScore(member, shard) }))
      .sort((a, b) => (a.score === b.score ? (a.member < b.member ? -1 : 1) : a.score > b.score ? -1 : 1));
    const pick = ranked.find((r) => (load.get(r.member) ?? 0) < cap) ?? ranked[0];
    if (!pick) continue;
    assignment.set(shard, pick.member);
    load.set(pick.member, (load.get(pick.member) ?? 0) + 1);
  }
  return assignment;
}

/**
 * desiredAssignment of the last member list asked for. Ownership re-plans several times a second (every renewal,
 * every KV change) while the member list changes only on a join, a leave or a death, and the 256 × N rendezvous
 * scores in BigInt were ~4% of an actor's CPU under load (ADR 0085).
 */
export class DesiredAssignmentCache {
  private key: string | undefined;
  private value: ReadonlyMap<number, string> = new Map();

  of(members: readonly string[]): ReadonlyMap<number, string> {
    const key = [...new Set(members)].sort().join("\n");
    if (key !== this.key) {
      this.key = key;
      this.value = desiredAssignment(members);
    }
    return this.value;
  }
}
