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
import { objectSubjects } from "#protocol";
import type { Shard } from "#protocol";
import { objectKey, parseObjectKey } from "./objects.ts";
import type { ObjectKey } from "./objects.ts";

export type Op = "PUT" | "DEL";

/** The last message of a subject. `seq` is the stream sequence, `atMs` its wall-clock time. */
export interface Held {
  readonly uid: string;
  readonly rv: string;
  readonly op: Op;
  readonly seq: number;
  readonly atMs: number;
}

export interface HeldEntry extends Held {
  readonly subject: string;
}

/** Where an object should be published, or the identity to put in its tombstones. */
export type Target =
  | {
      readonly exists: true;
      readonly uid: string;
      readonly rv: string;
      readonly shards: ReadonlySet<Shard>;
    }
  | { readonly exists: false; readonly uid: string; readonly rv: string };

/**
 * A target as the ledger keeps it. `quietRv`: an older version of the same object whose message is as good as this
 * one, since every change after it was quiet (relevance.ts); a subject that holds it owes no publish (ADR 0090).
 */
type KeptTarget = Target & { readonly quietRv?: string | undefined };

interface Want {
  readonly key: ObjectKey;
  readonly shard: Shard;
  readonly op: Op;
  readonly uid: string;
  readonly rv: string;
}

/** A subject's new want, to announce at once on the live subject (takeChanged). */
export interface ChangedWant extends Want {
  readonly subject: string;
  /**
   * A tombstone for the live subject only: owners saw a live copy of the object there that the stream never held
   * (it was created and deleted, or moved, while the stream took no publishes), so no stream tombstone is owed.
   */
  readonly liveOnly?: true;
}

export interface PublishCommand extends Want {
  readonly subject: string;
  /** The subject's last sequence as this watcher knows it (0: empty). */
  readonly expectedSeq: number;
  /** `Nats-Msg-Id`: `<uid>@<rv>/<shard>` for a PUT, `.../del` for a tombstone, `/r<n>` when re-published. */
  readonly msgId: string;
  /** Activation epoch; results from an earlier activation are ignored. */
  readonly epoch: number;
}

export interface PublishAck {
  readonly seq: number;
  readonly duplicate: boolean;
  readonly atMs: number;
}

export type AckResult = "stored" | "republish" | "stale";

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

/** What a message of a subject says: the same operation on the same version of the same object. */
export interface MessageContent {
  readonly op: Op;
  readonly uid: string;
  readonly rv: string;
}

/**
 * A held message that carries no object identity: written by another client (garbage, a foreign publish), never by a
 * watcher, whose every message names the uid of its object.
 */
export function isForeign(held: MessageContent): boolean {
  return held.uid === "";
}

/** What a subject holds after an owner asked for it to be verified (Ledger.verified). */
export type VerifyOutcome =
  /** A publish is owed (or in flight) on the subject: the mirror's PUT or tombstone follows. */
  | "republishing"
  /** The subject holds a message of this watcher that agrees with the mirror. */
  | "valid"
  /** A foreign message and no object to publish in its place: purge the subject up to its sequence. */
  | "purge"
  /** The subject holds nothing and owes nothing. */
  | "absent";

export function sameContent(a: MessageContent | undefined, b: MessageContent): boolean {
  return a !== undefined && a.op === b.op && a.uid === b.uid && a.rv === b.rv;
}

/** The subject holds an older version of the wanted object that differs from it only in quiet changes. */
function holdsQuietVersion(held: Held | undefined, want: Want, target: KeptTarget | undefined): boolean {
  return (
    held !== undefined &&
    want.op === "PUT" &&
    held.op === "PUT" &&
    !isForeign(held) &&
    held.uid === want.uid &&
    target?.exists === true &&
    target.quietRv !== undefined &&
    held.rv === target.quietRv
  );
}

export function msgIdOf(want: Want, republish: number | undefined): string {
  const base = `${want.uid}@${want.rv}/${want.shard}${want.op === "DEL" ? "/del" : ""}`;
  return republish === undefined ? base : `${base}/r${republish}`;
}

export class Ledger {
  private readonly held = new Map<string, Held>();
  private readonly heldShards = new Map<ObjectKey, Set<Shard>>();
  private readonly targets = new Map<ObjectKey, KeptTarget>();
  private readonly dirty = new Map<string, Want>();
  /** Dirty subjects not in flight, in the order they became ready. */
  private readonly queue = new Set<string>();
  private readonly inflight = new Map<string, ObjectKey>();
  private readonly republish = new Map<string, number>();
  /** Dirty subjects whose want changed since the last takeChanged(). */
  private readonly changed = new Set<string>();
  /**
   * Per object and shard, the PUT last announced live that the stream does not hold yet: if the object goes away
   * first, owners still need a tombstone, on the live subject alone (ADR 0084).
   */
  private readonly announcedPuts = new Map<ObjectKey, Map<Shard, { readonly uid: string; readonly rv: string }>>();
  private readonly liveOnlyTombstones = new Map<string, Want>();
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
    if (actual !== undefined && (known === undefined || actual.seq >= known.seq)) this.setHeld(key, address.shard, subject, actual);
    else if (actual === undefined && known !== undefined) this.deleteHeld(key, address.shard, subject);
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
      this.setHeld(objectKey(address.kind, address.namespace, address.name), address.shard, entry.subject, held);
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
      if (want.op === "PUT") this.setAnnounced(want.key, want.shard, { uid: want.uid, rv: want.rv });
      else this.clearAnnounced(want.key, want.shard);
    }
    this.changed.clear();
    for (const [subject, want] of this.liveOnlyTombstones) out.push({ ...want, subject, liveOnly: true });
    this.liveOnlyTombstones.clear();
    return out;
  }

  private setAnnounced(key: ObjectKey, shard: Shard, identity: { uid: string; rv: string }): void {
    let shards = this.announcedPuts.get(key);
    if (!shards) {
      shards = new Map();
      this.announcedPuts.set(key, shards);
    }
    shards.set(shard, identity);
  }

  private clearAnnounced(key: ObjectKey, shard: Shard): void {
    const shards = this.announcedPuts.get(key);
    shards?.delete(shard);
    if (shards?.size === 0) this.announcedPuts.delete(key);
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
    this.setHeld(command.key, command.shard, command.subject, {
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
    if (actual) this.setHeld(command.key, command.shard, command.subject, actual);
    else this.deleteHeld(command.key, command.shard, command.subject);
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
    for (const [subject, held] of this.held) {
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
    this.deleteHeld(key, address.shard, subject);
    this.reconcile(key);
  }

  /** True when some subject of `key` still owes a publish. */
  hasWork(key: ObjectKey): boolean {
    for (const shard of this.shardsOf(key)) if (this.dirty.has(this.subjectOf(key, shard))) return true;
    return false;
  }

  private clearPublishState(): void {
    this.held.clear();
    this.heldShards.clear();
    this.dirty.clear();
    this.queue.clear();
    this.inflight.clear();
    this.republish.clear();
    this.changed.clear();
    this.announcedPuts.clear();
    this.liveOnlyTombstones.clear();
  }

  private setHeld(key: ObjectKey, shard: Shard, subject: string, held: Held): void {
    this.held.set(subject, held);
    const shards = this.heldShards.get(key) ?? new Set<Shard>();
    shards.add(shard);
    this.heldShards.set(key, shards);
  }

  private deleteHeld(key: ObjectKey, shard: Shard, subject: string): void {
    this.held.delete(subject);
    const shards = this.heldShards.get(key);
    shards?.delete(shard);
    if (shards?.size === 0) this.heldShards.delete(key);
  }

  private subjectOf(key: ObjectKey, shard: Shard): string {
    const { kind, namespace, name } = parseObjectKey(key);
    return objectSubjects.build({ shard, kind, namespace, name });
  }

  private shardsOf(key: ObjectKey): Set<Shard> {
    const target = this.targets.get(key);
    const shards = new Set<Shard>(target?.exists ? target.shards : []);
    for (const shard of this.heldShards.get(key) ?? []) shards.add(shard);
    for (const shard of this.announcedPuts.get(key)?.keys() ?? []) shards.add(shard);
    return shards;
  }

  private reconcileAll(): void {
    const keys = new Set<ObjectKey>([...this.targets.keys(), ...this.heldShards.keys()]);
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
          const announced = this.announcedPuts.get(key)?.get(shard);
          if (announced !== undefined) {
            // Held by the stream now (its own tombstone follows if needed), or gone before the stream held it.
            if (want === undefined) this.liveOnlyTombstones.set(subject, { key, shard, op: "DEL", uid: announced.uid, rv: announced.rv });
            this.clearAnnounced(key, shard);
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
    for (const shard of this.heldShards.get(key) ?? []) {
      if (this.held.get(this.subjectOf(key, shard))?.op === "PUT") return true;
    }
    for (const inflightKey of this.inflight.values()) if (inflightKey === key) return true;
    return false;
  }
}
