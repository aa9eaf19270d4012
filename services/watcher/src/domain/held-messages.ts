// What K8S_OBJS holds as far as the active watcher knows: the last message per subject, and per object the shards
// where it holds one (an object's subjects are one per shard it was published on). Rebuilt from a headers-only
// replay on activation, then advanced by acks, conflicts, re-reads and purges (ledger.ts).
import type { Shard } from "#protocol";
import type { ObjectKey } from "./objects.ts";
import type { Held } from "./subject-messages.ts";

export class HeldMessages {
  private readonly bySubject = new Map<string, Held>();
  private readonly shardsByKey = new Map<ObjectKey, Set<Shard>>();

  get size(): number {
    return this.bySubject.size;
  }

  get(subject: string): Held | undefined {
    return this.bySubject.get(subject);
  }

  /** Every subject with its last message, in the order they were first held. */
  entries(): IterableIterator<[string, Held]> {
    return this.bySubject.entries();
  }

  /** The shards where `key` has a held message. */
  shardsOf(key: ObjectKey): ReadonlySet<Shard> {
    return this.shardsByKey.get(key) ?? new Set();
  }

  /** The objects with a held message somewhere. */
  keys(): IterableIterator<ObjectKey> {
    return this.shardsByKey.keys();
  }

  set(key: ObjectKey, shard: Shard, subject: string, held: Held): void {
    this.bySubject.set(subject, held);
    const shards = this.shardsByKey.get(key) ?? new Set<Shard>();
    shards.add(shard);
    this.shardsByKey.set(key, shards);
  }

  delete(key: ObjectKey, shard: Shard, subject: string): void {
    this.bySubject.delete(subject);
    const shards = this.shardsByKey.get(key);
    shards?.delete(shard);
    if (shards?.size === 0) this.shardsByKey.delete(key);
  }

  clear(): void {
    this.bySubject.clear();
    this.shardsByKey.clear();
  }
}
