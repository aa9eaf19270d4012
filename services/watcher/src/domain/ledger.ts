// What the K8S_OBJS stream holds per subject versus what it should hold, and the publishes that close the gap.
// Pure bookkeeping, driven by the state (targets) and by the publisher (acks, conflicts, failures):
// - `held` is the stream's last message per subject as far as this watcher knows: rebuilt from a headers-only
//   replay when the watcher becomes active, then advanced by its own acks and by re-reads after a conflict;
// - a target says where an object should be (PUT on each of its shards) or that it is gone;
// - the difference is a set of dirty subjects, each wanting one PUT or one DEL (tombstone); at most one publish
//   per subject is in flight, and a newer want simply replaces an older one (last value wins, like the stream).
// Every publish carries `Nats-Expected-Last-Subject-Sequence` = the held sequence, so a watcher whose view is stale
// (a deposed leader, a concurrent writer) gets a conflict instead of overwriting newer data.
// A message this watcher did not write (no K8s-UID header, or a payload that does not decode to what its headers
// say) is held as foreign: it is replaced by the mirror's PUT or tombstone, or purged when the mirror knows no
// object there (a tombstone needs the identity of what it removes; ADR 0088).
// The vocabulary and its pure rules are subject-messages.ts; the held view is held-messages.ts, the PUTs owners saw
// only live are live-announcements.ts.
import { objectSubjects } from "#protocol";
import type { Shard } from "#protocol";
import { HeldMessages } from "./held-messages.ts";
import { LiveAnnouncements } from "./live-announcements.ts";
import { objectKey, parseObjectKey } from "./objects.ts";
import type { ObjectKey } from "./objects.ts";
import { holdsQuietVersion, isForeign, msgIdOf, sameContent } from "./subject-messages.ts";
import type {
  AckResult,
  ChangedWant,
  Held,
  HeldEntry,
  KeptTarget,
  PublishAck,
  PublishCommand,
  Target,
  VerifyOutcome,
  Want,
} from "./subject-messages.ts";

// The vocabulary, where the state, the stream index, the re-read server and the tests import it from.
export { isForeign, msgIdOf, sameContent } from "./subject-messages.ts";
export type {
  AckResult,
  ChangedWant,
  Held,
  HeldEntry,
  MessageContent,
  Op,
  PublishAck,
  PublishCommand,
  Target,
  VerifyOutcome,
} from "./subject-messages.ts";


export interface LedgerOptions {
  /** Held entries outside the scope (e.g. other namespaces when the watcher is restricted) are never touched. */
  readonly inScope?: (namespace: string) => boolean;
  /** Seed for re-publish suffixes, so they differ across restarts within the duplicate window. */
  readonly republishSeed?: number;
}

export interface ActivationReport {
  readonly held: number;
  readonly ignored: number;
}

export class Ledger {
  private readonly held = new HeldMessages();
  private readonly targets = new Map<ObjectKey, KeptTarget>();
  private readonly dirty = new Map<string, Want>();
  /** Dirty subjects not in flight, in the order they became ready. */
  private readonly queue = new Set<string>();
  private readonly inflight = new Map<string, ObjectKey>();
  private readonly republish = new Map<string, number>();
  /** Dirty subjects whose want changed since the last takeChanged(). */
  private readonly changed = new Set<string>();
  /** The PUTs announced live that the stream does not hold yet (ADR 0084). */
  private readonly announced = new LiveAnnouncements();
  private readonly inScope: (namespace: string) => boolean;
  private republishCounter: number;
  private active = false;
  private synced = false;
  private epoch = 0;

  constructor(options: LedgerOptions = {}) {
    this.inScope = options.inScope ?? (() => true);
    this.republishCounter = options.republishSeed ?? 0;
  }

  get isActive(): boolean {
    return this.active;
  }

  get isSynced(): boolean {
    return this.synced;
  }

  /** Dirty subjects (publishes still owed), in flight or not. */
  get pending(): number {
    return this.dirty.size;
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  get heldCount(): number {
    return this.held.size;
  }

  /** True while `subject` still owes a publish. */
  isDirty(subject: string): boolean {
    return this.dirty.has(subject);
  }

  heldAt(subject: string): Held | undefined {
    return this.held.get(subject);
  }

  /** True while a publish of `subject` awaits its answer. */
  isInFlight(subject: string): boolean {
    return this.inflight.has(subject);
  }

  /**
   * An owner could not read the subject's last message: `actual` is what the stream holds now as the publisher read
   * it back (undefined: nothing), foreign when it is not a message of this watcher. Takes it as the held message
   * unless a publish is in flight (its answer decides) or this watcher already holds a later sequence (the read
   * raced an ack), then decides again. Only while active and synced; the caller checks.
   */
  verified(subject: string, actual: Held | undefined): VerifyOutcome {
    const address = objectSubjects.parse(subject);
    const key = objectKey(address.kind, address.namespace, address.name);
    if (this.inflight.has(subject)) return "republishing";
    // An owner that asks wants the newest version: a quiet change it has not seen may be why (ADR 0090).
    const target = this.targets.get(key);
    if (target?.exists && target.quietRv !== undefined) this.targets.set(key, { ...target, quietRv: undefined });
    const known = this.held.get(subject);
    if (actual !== undefined && (known === undefined || actual.seq >= known.seq)) this.held.set(key, address.shard, subject, actual);
    else if (actual === undefined && known !== undefined) this.held.delete(key, address.shard, subject);
    this.reconcile(key);
    if (this.dirty.has(subject)) return "republishing";
    const held = this.held.get(subject);
    if (held === undefined) return "absent";
    return isForeign(held) ? "purge" : "valid";
  }

  /**
   * Sets where an object should be; nothing is computed until the ledger is both synced and active. `quiet`: this
   * version differs from the previous target only in what no owner reads (relevance.ts), so a subject that holds
   * the previous one, or the last one owners could tell apart, owes no publish for it.
   */
  setTarget(key: ObjectKey, target: Target, quiet = false): void {
    const previous = this.targets.get(key);
    let quietRv: string | undefined;
    if (target.exists && previous?.exists && previous.uid === target.uid) {
      if (previous.rv === target.rv) quietRv = previous.quietRv;
      else if (quiet) quietRv = previous.quietRv ?? previous.rv;
    }
    this.targets.set(key, quietRv === undefined ? target : { ...target, quietRv });
    this.reconcile(key);
  }

  /** Every kind has been listed once: the targets are complete, differences (and tombstones) may be published. */
  markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    this.reconcileAll();
  }

  /** Becomes the publishing watcher with the stream's current content (from a headers-only replay). */
  activate(entries: Iterable<HeldEntry>): ActivationReport {
    this.epoch++;
    this.clearPublishState();
    let ignored = 0;
    for (const entry of entries) {
      let address;
      try {
        address = objectSubjects.parse(entry.subject);
      } catch {
        ignored++;
        continue;
      }
      if (!this.inScope(address.namespace)) {
        ignored++;
        continue;
      }
      const { subject: _subject, ...held } = entry;
      this.held.set(objectKey(address.kind, address.namespace, address.name), address.shard, entry.subject, held);
    }
    this.active = true;
    this.reconcileAll();
    return { held: this.held.size, ignored };
  }

  /** Stops publishing (lost the lease): forgets the stream view, which is only valid while active. */
  deactivate(): void {
    this.epoch++;
    this.active = false;
    this.clearPublishState();
  }

  /**
   * The wants that appeared or changed since the last call, whether or not their subject is in flight: the publisher
   * sends each at once as a live copy, so a publish that waits on the stream (no leader) delays no change (ADR 0084).
   */
  takeChanged(): ChangedWant[] {
    const out: ChangedWant[] = [];
    for (const subject of this.changed) {
      const want = this.dirty.get(subject);
      if (!want) continue;
      out.push({ ...want, subject });
      if (want.op === "PUT") this.announced.set(want.key, want.shard, { uid: want.uid, rv: want.rv });
      else this.announced.clear(want.key, want.shard);
    }
    this.changed.clear();
    for (const [subject, want] of this.announced.takeLiveOnlyTombstones()) out.push({ ...want, subject, liveOnly: true });
    return out;
  }

  /** The next publish to make, or undefined when nothing is ready. Marks its subject in flight. */
  next(): PublishCommand | undefined {
    if (!this.active || !this.synced) return undefined;
    for (const subject of this.queue) {
      this.queue.delete(subject);
      const want = this.dirty.get(subject);
      if (!want || this.inflight.has(subject)) continue;
      this.inflight.set(subject, want.key);
      return {
        ...want,
        subject,
        expectedSeq: this.held.get(subject)?.seq ?? 0,
        msgId: msgIdOf(want, this.republish.get(subject)),
        epoch: this.epoch,
      };
    }
    return undefined;
  }

  /**
   * The stream answered a publish. A duplicate whose original is older than the subject's last message was not
   * stored (the msg id was reused within the duplicate window, e.g. re-publishing after a tombstone): it is sent
   * again with a fresh suffix. A duplicate at or after the expected sequence is the original (a retried publish
   * whose first ack was lost).
   */
  acked(command: PublishCommand, ack: PublishAck): AckResult {
    if (command.epoch !== this.epoch) return "stale";
    this.inflight.delete(command.subject);
    if (ack.duplicate && ack.seq < command.expectedSeq) {
      this.republish.set(command.subject, ++this.republishCounter);
      if (this.dirty.has(command.subject)) this.queue.add(command.subject);
      return "republish";
    }
    this.republish.delete(command.subject);
    this.held.set(command.key, command.shard, command.subject, {
      uid: command.uid,
      rv: command.rv,
      op: command.op,
      seq: ack.seq,
      atMs: ack.atMs,
    });
    this.reconcile(command.key);
    return "stored";
  }

  /** The expected sequence was wrong: `actual` is the subject's real last message (undefined when empty). */
  conflicted(command: PublishCommand, actual: Held | undefined): void {
    if (command.epoch !== this.epoch) return;
    this.inflight.delete(command.subject);
    if (actual) this.held.set(command.key, command.shard, command.subject, actual);
    else this.held.delete(command.key, command.shard, command.subject);
    this.reconcile(command.key);
  }

  /** The publish failed for another reason; the subject stays dirty and is retried. */
  failed(command: PublishCommand): void {
    if (command.epoch !== this.epoch) return;
    this.inflight.delete(command.subject);
    if (this.dirty.has(command.subject)) this.queue.add(command.subject);
  }

  /**
   * Tombstones older than `ttlMs`, and foreign messages with no object to publish in their place, with nothing owed
   * on their subject: purge each up to and including `seq`.
   */
  purgeCandidates(nowMs: number, ttlMs: number, limit = Number.POSITIVE_INFINITY): { subject: string; seq: number }[] {
    const out: { subject: string; seq: number }[] = [];
    if (!this.active) return out;
    for (const [subject, held] of this.held.entries()) {
      if (out.length >= limit) break;
      const expired = held.op === "DEL" && nowMs - held.atMs >= ttlMs;
      if (!expired && !isForeign(held)) continue;
      if (this.dirty.has(subject) || this.inflight.has(subject)) continue;
      out.push({ subject, seq: held.seq });
    }
    return out;
  }

  /** The subject was purged up to `seq`; forget it unless something newer was stored meanwhile. */
  purged(subject: string, seq: number): void {
    const held = this.held.get(subject);
    if (!held || held.seq !== seq) return;
    const address = objectSubjects.parse(subject);
    const key = objectKey(address.kind, address.namespace, address.name);
    this.held.delete(key, address.shard, subject);
    this.reconcile(key);
  }

  /** True when some subject of `key` still owes a publish. */
  hasWork(key: ObjectKey): boolean {
    for (const shard of this.shardsOf(key)) if (this.dirty.has(this.subjectOf(key, shard))) return true;
    return false;
  }

  private clearPublishState(): void {
    this.held.clear();
    this.dirty.clear();
    this.queue.clear();
    this.inflight.clear();
    this.republish.clear();
    this.changed.clear();
    this.announced.clearAll();
  }

  private subjectOf(key: ObjectKey, shard: Shard): string {
    const { kind, namespace, name } = parseObjectKey(key);
    return objectSubjects.build({ shard, kind, namespace, name });
  }

  private shardsOf(key: ObjectKey): Set<Shard> {
    const target = this.targets.get(key);
    const shards = new Set<Shard>(target?.exists ? target.shards : []);
    for (const shard of this.held.shardsOf(key)) shards.add(shard);
    for (const shard of this.announced.shardsOf(key)) shards.add(shard);
    return shards;
  }

  private reconcileAll(): void {
    const keys = new Set<ObjectKey>([...this.targets.keys(), ...this.held.keys()]);
    for (const key of keys) this.reconcile(key);
  }

  private reconcile(key: ObjectKey): void {
    const target = this.targets.get(key);
    if (this.active && this.synced) {
      for (const shard of this.shardsOf(key)) {
        const subject = this.subjectOf(key, shard);
        const held = this.held.get(subject);
        let want: Want | undefined;
        if (target?.exists && target.shards.has(shard)) {
          want = { key, shard, op: "PUT", uid: target.uid, rv: target.rv };
        } else if (held?.op === "PUT" && (target !== undefined || !isForeign(held))) {
          // Gone, or moved to other shards: a tombstone with the identity the actors know it by now. A foreign
          // message with no object behind it has no identity to put in a tombstone: it is purged instead.
          want = { key, shard, op: "DEL", uid: target?.uid ?? held.uid, rv: target?.rv ?? held.rv };
        }
        if (want === undefined || sameContent(held, want) || holdsQuietVersion(held, want, target)) {
          this.dirty.delete(subject);
          this.queue.delete(subject);
          this.changed.delete(subject);
          const announced = this.announced.get(key, shard);
          if (announced !== undefined) {
            // Held by the stream now (its own tombstone follows if needed), or gone before the stream held it.
            if (want === undefined) this.announced.oweLiveOnlyTombstone(subject, { key, shard, op: "DEL", uid: announced.uid, rv: announced.rv });
            this.announced.clear(key, shard);
          }
        } else {
          if (!sameContent(this.dirty.get(subject), want)) this.changed.add(subject);
          this.dirty.set(subject, want);
          if (!this.inflight.has(subject)) this.queue.add(subject);
        }
      }
    }
    // A deleted object is remembered only while its tombstones are owed (or a publish for it may still land).
    if (target && !target.exists && (!this.active || !this.owesTombstones(key))) this.targets.delete(key);
  }

  private owesTombstones(key: ObjectKey): boolean {
    for (const shard of this.held.shardsOf(key)) {
      if (this.held.get(this.subjectOf(key, shard))?.op === "PUT") return true;
    }
    for (const inflightKey of this.inflight.values()) if (inflightKey === key) return true;
    return false;
  }
}
