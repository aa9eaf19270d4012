// Per object subject, the publication version of the last message applied, so that an object that arrives twice (its
// live core-NATS copy first, the K8S_OBJS copy later, or after a feed re-opens) is applied once, and never goes back
// to an older version. Per subject, because the stream orders per subject; one object routed to two shards has two.
// Pure data structure; the intake feeds it (ADR 0084).
import { comparePublicationVersions } from "#protocol";
import type { PublicationVersion, Shard } from "#protocol";

interface Applied {
  readonly version: PublicationVersion;
  /** When the message applied was a tombstone: its arrival, for sweep(). */
  readonly deletedAtMs: number | undefined;
}

export class PublicationOrder {
  private readonly perShard = new Map<Shard, Map<string, Applied>>();

  /**
   * True when a message with `version` on `subject` is the same as or older than one already applied. A message
   * without a version (from a watcher before ADR 0084) is never stale: it applies in stream order, as it always did.
   */
  isStale(shard: Shard, subject: string, version: PublicationVersion | undefined): boolean {
    if (version === undefined) return false;
    const applied = this.perShard.get(shard)?.get(subject);
    return applied !== undefined && comparePublicationVersions(version, applied.version) <= 0;
  }

  /** Records the message just applied. */
  applied(shard: Shard, subject: string, version: PublicationVersion | undefined, op: "put" | "delete", atMs: number): void {
    let subjects = this.perShard.get(shard);
    if (version === undefined) {
      // Unversioned: later messages of any version follow it.
      subjects?.delete(subject);
      return;
    }
    if (!subjects) {
      subjects = new Map();
      this.perShard.set(shard, subjects);
    }
    subjects.set(subject, { version, deletedAtMs: op === "delete" ? atMs : undefined });
  }

  /** Forgets a shard (it moved away; a later owner replays it from the stream). */
  dropShard(shard: Shard): void {
    this.perShard.delete(shard);
  }

  /**
   * Forgets tombstones applied more than `keepMs` before `nowMs`. A tombstone's version has to outlive every older
   * copy of the subject still on its way (a live copy and the stream's copy of one publication arrive milliseconds
   * apart), not forever: objects deleted for good would otherwise pile up. Returns how many were forgotten.
   */
  sweep(nowMs: number, keepMs: number): number {
    let forgotten = 0;
    for (const [shard, subjects] of this.perShard) {
      for (const [subject, applied] of subjects) {
        if (applied.deletedAtMs !== undefined && nowMs - applied.deletedAtMs > keepMs) {
          subjects.delete(subject);
          forgotten++;
        }
      }
      if (subjects.size === 0) this.perShard.delete(shard);
    }
    return forgotten;
  }

  get size(): number {
    let count = 0;
    for (const subjects of this.perShard.values()) count += subjects.size;
    return count;
  }
}
