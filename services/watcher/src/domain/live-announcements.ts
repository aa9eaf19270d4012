// The PUTs announced on the live subjects that the stream does not hold yet, per object and shard (ADR 0084): if the
// object goes away, or moves, before the stream holds it, owners saw a live copy the stream never will, so they are
// owed a tombstone on the live subject alone. The ledger records an announcement when it hands a want out
// (takeChanged) and settles it when the subject is clean.
import type { Shard } from "#protocol";
import type { ObjectKey } from "./objects.ts";
import type { Want } from "./subject-messages.ts";

export interface Announced {
  readonly uid: string;
  readonly rv: string;
}

export class LiveAnnouncements {
  private readonly puts = new Map<ObjectKey, Map<Shard, Announced>>();
  private readonly liveOnlyTombstones = new Map<string, Want>();

  get(key: ObjectKey, shard: Shard): Announced | undefined {
    return this.puts.get(key)?.get(shard);
  }

  /** The shards where `key` has an announced PUT. */
  shardsOf(key: ObjectKey): Iterable<Shard> {
    return this.puts.get(key)?.keys() ?? [];
  }

  set(key: ObjectKey, shard: Shard, identity: Announced): void {
    let shards = this.puts.get(key);
    if (!shards) {
      shards = new Map();
      this.puts.set(key, shards);
    }
    shards.set(shard, identity);
  }

  clear(key: ObjectKey, shard: Shard): void {
    const shards = this.puts.get(key);
    shards?.delete(shard);
    if (shards?.size === 0) this.puts.delete(key);
  }

  /** Owes `subject` a tombstone on its live subject only. */
  oweLiveOnlyTombstone(subject: string, want: Want): void {
    this.liveOnlyTombstones.set(subject, want);
  }

  /** The live-only tombstones owed, each once. */
  takeLiveOnlyTombstones(): [string, Want][] {
    const out = [...this.liveOnlyTombstones];
    this.liveOnlyTombstones.clear();
    return out;
  }

  clearAll(): void {
    this.puts.clear();
    this.liveOnlyTombstones.clear();
  }
}
