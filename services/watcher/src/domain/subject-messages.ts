// The ledger's vocabulary: what a subject of K8S_OBJS holds (its last message, as far as this watcher knows), where an
// object should be (its target), the publish a subject wants and the command that makes it, and the pure rules that
// compare them: same content, a foreign message (written by another client, ADR 0088), a quiet version (ADR 0090)
// and the message id a publish carries.
import type { Shard } from "#protocol";
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
export type KeptTarget = Target & { readonly quietRv?: string | undefined };

export interface Want {
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
export function holdsQuietVersion(held: Held | undefined, want: Want, target: KeptTarget | undefined): boolean {
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
