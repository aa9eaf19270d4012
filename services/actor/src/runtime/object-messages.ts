// What one object message does to the cache, whichever path it came by (runtime/intake.ts reads them). The watcher
// sends every object change twice: on K8S_OBJS, and as core NATS on the shard's live subject (live.<shard>.>) the
// moment it has it, whatever its JetStream publish is doing. When K8S_OBJS has no leader (the node that led it
// crashed: a 4-9 s Raft election on nats-server 2.9) the live copies keep the cache current, so turns go on. Both
// copies carry the watcher's publication version (header Sts-Pub); PublicationOrder keeps the later one per subject
// and lets the second copy of a message skip decoding (ADR 0084).
//
// A message that cannot be read (undecodable, invalid, or about another object than its subject names) is counted
// and changes nothing. When it came from the stream it is the subject's last value, what the next owner's replay
// will find: the store marks the subject unreadable (an object it does not hold stays unknown, and the sets it may
// concern wait), and the watcher is asked to publish the subject again (ObjectRereads). The next readable message
// of the subject makes it known again (ADR 0088). A live copy is not stored: dropping it loses nothing the stream's
// copy does not bring.
import { DecodeError, HEADERS, OBJECT_KINDS, SubjectError, codecs, kindToken, liveObjectSubjects, nameToToken, objectSubjects, parsePublicationVersion } from "#protocol";
import type { HeaderCarrier, ObjectEnvelope, PublicationVersion } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import type { ObjectStore, SetKey, SubjectRef } from "../domain/object-store.ts";
import { PublicationOrder } from "../domain/publication-order.ts";
import type { ObjectRereads } from "./rereads.ts";

/** Which path an object message came by. */
export type ObjectSource = "stream" | "live";

export interface IntakeListener {
  changed(key: SetKey, reason: string, headers: HeaderCarrier | undefined): void;
  synced(shard: number): void;
  dropped(reason: string, source: ObjectSource): void;
  /** A message applied, or skipped because the same or a newer copy of its subject was already applied. */
  received?(source: ObjectSource, outcome: "applied" | "stale"): void;
}

/** How long a tombstone's version is remembered after it was applied (see PublicationOrder.sweep). */
export const TOMBSTONE_VERSION_KEEP_MS = 120_000;
const SWEEP_INTERVAL_MS = 30_000;

/** The subject the watcher publishes an envelope on in `shard` (objectSubjects.build without its checks). */
function subjectOfEnvelope(shard: number, envelope: ObjectEnvelope): string {
  return `k8s.${shard}.${kindToken(envelope.kind)}.${envelope.namespace}.${nameToToken(envelope.name)}`;
}

/** An envelope about another object than the subject it came on names. */
class SubjectMismatchError extends Error {
  override readonly name = "SubjectMismatchError";
  constructor(subject: string, envelope: ObjectEnvelope) {
    super(`${subject} carries ${envelope.kind} ${envelope.namespace}/${envelope.name}`);
  }
}

function publicationVersionOf(headers: HeaderCarrier | undefined): PublicationVersion | undefined {
  return headers?.has(HEADERS.publication) ? parsePublicationVersion(headers.get(HEADERS.publication)) : undefined;
}

/** Why a message could not be read, as the dropped-message metric labels it. */
function unreadableReason(error: unknown): string {
  return error instanceof DecodeError ? error.reason : error instanceof SubjectMismatchError ? "mismatch" : "error";
}

/** The subject an object subject names, or undefined for one that does not parse (no object the watcher publishes). */
function refOf(shard: number, objectSubject: string): SubjectRef | undefined {
  let address;
  try {
    address = objectSubjects.parse(objectSubject);
  } catch (error) {
    if (error instanceof SubjectError) return undefined;
    throw error;
  }
  return { shard: address.shard, kind: OBJECT_KINDS[address.kind], namespace: address.namespace, name: address.name };
}

export interface ObjectMessagesDeps {
  readonly store: ObjectStore;
  readonly listener: Pick<IntakeListener, "changed" | "dropped" | "received">;
  readonly logger: Logger;
  /** Asks the watcher to repair subjects whose last message could not be read; without it they stay unknown. */
  readonly rereads?: Pick<ObjectRereads, "request" | "resolved"> | undefined;
}

export class ObjectMessages {
  private readonly deps: ObjectMessagesDeps;
  private readonly order = new PublicationOrder();
  private readonly loggedReasons = new Set<string>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(deps: ObjectMessagesDeps) {
    this.deps = deps;
    this.sweeper = setInterval(() => this.order.sweep(performance.now(), TOMBSTONE_VERSION_KEEP_MS), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** One message of `shard`: `seq` is its stream sequence (0 for a live copy). */
  handle(shard: number, subject: string, data: Uint8Array, headers: HeaderCarrier | undefined, source: ObjectSource, seq: number): void {
    const { store, listener } = this.deps;
    let objectSubject = subject;
    if (source === "live") {
      try {
        objectSubject = liveObjectSubjects.toObjectSubject(subject);
      } catch (error) {
        if (!(error instanceof SubjectError)) throw error;
        return this.drop(subject, "subject", error, source);
      }
    }
    const version = publicationVersionOf(headers);
    // A live copy without a version could not be ordered against the stream's copies.
    if (source === "live" && version === undefined) return this.drop(subject, "unversioned", undefined, source);
    if (this.order.isStale(shard, objectSubject, version)) {
      listener.received?.(source, "stale");
      // The stream's copy of a publication whose live copy came first, on a subject marked unreadable by garbage
      // in between: the subject's last value is readable again (if it decodes: garbage may carry any header).
      if (source === "stream" && store.hasUnreadable) this.staleAfterUnreadable(shard, objectSubject, data, headers, seq);
      return;
    }
    let envelope;
    try {
      envelope = this.read(shard, objectSubject, data);
    } catch (error) {
      const reason = unreadableReason(error);
      if (source === "stream") this.unreadable(shard, objectSubject, seq, reason);
      return this.drop(subject, reason, error, source);
    }
    const { affected } = store.apply(shard, envelope);
    this.order.applied(shard, objectSubject, version, envelope.type === "object.delete" ? "delete" : "put", performance.now());
    listener.received?.(source, "applied");
    for (const key of affected) listener.changed(key, envelope.kind, headers);
    if (store.hasUnreadable) this.readable(shard, envelope, headers, affected);
  }

  /** Forgets the publication versions of a shard no longer read. */
  dropShard(shard: number): void {
    this.order.dropShard(shard);
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private drop(subject: string, reason: string, error: unknown, source: ObjectSource): void {
    this.deps.listener.dropped(reason, source);
    if (this.loggedReasons.has(reason)) return;
    this.loggedReasons.add(reason);
    this.deps.logger.warn({ subject, reason, err: error }, "dropping an object message (logged once per reason)");
  }

  /** Decodes an object message and checks that it is about the object its subject names. */
  private read(shard: number, objectSubject: string, data: Uint8Array): ObjectEnvelope {
    const envelope = codecs.objectEnvelope.decode(data);
    if (subjectOfEnvelope(shard, envelope) !== objectSubject) throw new SubjectMismatchError(objectSubject, envelope);
    return envelope;
  }

  /**
   * A stream message of `shard` that cannot be read is the subject's last value: mark the subject unreadable and ask
   * for it again. A subject that does not parse names no object the watcher publishes: nothing to repair.
   */
  private unreadable(shard: number, subject: string, seq: number, reason: string): void {
    const ref = refOf(shard, subject);
    if (ref?.shard !== shard) return;
    this.deps.store.markUnreadable(ref);
    this.deps.rereads?.request(ref, seq, reason);
  }

  /** A readable message of the subject was applied (or is older than one applied): known again. */
  private readable(shard: number, envelope: ObjectEnvelope, headers: HeaderCarrier | undefined, affected: readonly SetKey[]): void {
    const ref: SubjectRef = { shard, kind: envelope.kind, namespace: envelope.namespace, name: envelope.name };
    const readable = this.deps.store.markReadable(ref);
    if (!readable.wasUnreadable) return;
    this.deps.rereads?.resolved(ref);
    for (const key of readable.unblocked) if (!affected.includes(key)) this.deps.listener.changed(key, "readable", headers);
  }

  private staleAfterUnreadable(shard: number, objectSubject: string, data: Uint8Array, headers: HeaderCarrier | undefined, seq: number): void {
    const ref = refOf(shard, objectSubject);
    if (!ref || !this.deps.store.isUnreadable({ ...ref, shard })) return;
    let envelope;
    try {
      envelope = this.read(shard, objectSubject, data);
    } catch (error) {
      const reason = unreadableReason(error);
      this.unreadable(shard, objectSubject, seq, reason);
      return this.drop(objectSubject, reason, error, "stream");
    }
    this.readable(shard, envelope, headers, []);
  }
}
