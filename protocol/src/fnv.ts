// Fowler–Noll–Vo hashes over UTF-8 bytes. FNV-1a 32 is what nats-server's partition() mapping uses;
// FNV-1 32 (multiply before xor) is what Kubernetes' controller history uses for ControllerRevision names.

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;
const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

const utf8 = new TextEncoder();

export type Bytes = Uint8Array | string;

function toBytes(input: Bytes): Uint8Array {
  return typeof input === "string" ? utf8.encode(input) : input;
}

/** Incremental FNV-1a 32-bit; `update` may be called several times, as Go's hash.Hash32 allows. */
export function fnv1a32(...parts: Bytes[]): number {
  let hash = FNV32_OFFSET;
  for (const part of parts) {
    for (const byte of toBytes(part)) {
      hash ^= byte;
      hash = Math.imul(hash, FNV32_PRIME);
    }
  }
  return hash >>> 0;
}

/** FNV-1 32-bit (Go's `fnv.New32`): multiply, then xor. */
export function fnv1_32(...parts: Bytes[]): number {
  let hash = FNV32_OFFSET;
  for (const part of parts) {
    for (const byte of toBytes(part)) {
      hash = Math.imul(hash, FNV32_PRIME);
      hash ^= byte;
    }
  }
  return hash >>> 0;
}

/** FNV-1a 64-bit, for rendezvous hashing of members over shards. */
export function fnv1a64(...parts: Bytes[]): bigint {
  let hash = FNV64_OFFSET;
  for (const part of parts) {
    for (const byte of toBytes(part)) {
      hash ^= BigInt(byte);
      hash = (hash * FNV64_PRIME) & MASK64;
    }
  }
  return hash;
}
