// The per-set intent log (stream STS_INTENT, subject intent.<shard>.<ns>.<name>): every turn that will write to
// Kubernetes first appends its plan with compare-and-set on the subject's last sequence; a new owner appends a
// takeover record. A paused or partitioned former owner therefore cannot append, and does not write.
//
// The same log can be kept by a quorum of single-replica streams on different NATS servers (QuorumIntentLog, ADR
// 0084): an append counts once a majority of them took it with compare-and-set, so the loss of one server costs no
// Raft election in front of every write. Any two majorities share a replica, and on that replica the takeover record
// of a newer owner makes the older owner's compare-and-set fail: the fence holds as with one stream.
import type { JetStreamManager } from "@nats-io/jetstream";
import { DecodeError, STREAMS, codecs, intentLogQuorum, intentSubjects } from "#protocol";
import type { Intent, SetAddress } from "#protocol";
import { isWrongLastSequence } from "../../../common/src/stream-publish.ts";
import type { StreamPublish } from "../../../common/src/stream-publish.ts";

/** What a turn and a takeover need of the log, whichever way it is kept. */
export interface IntentAppender {
  /** Appends with compare-and-set; rejects with FencedError when a newer owner appended. */
  append(address: SetAddress, intent: Intent): Promise<unknown>;
  /** Forgets cached sequences of a shard (it moved away; a later claim must re-read the log). */
  forgetShard(shard: number): void;
}

/** A stream of the log and the subjects it keeps the sets under. */
export interface IntentLogTarget {
  readonly stream: string;
  readonly subjects: { build(address: SetAddress): string; shardFilter(shard: number): string };
}

export const SINGLE_STREAM_TARGET: IntentLogTarget = { stream: STREAMS.intents, subjects: intentSubjects };

/** Another owner appended with a newer epoch: this member must stop acting on the set's shard. */
export class FencedError extends Error {
  override readonly name = "FencedError";
  readonly subject: string;
  readonly ourEpoch: number;
  readonly theirEpoch: number | undefined;

  constructor(subject: string, ourEpoch: number, theirEpoch: number | undefined) {
    super(`fenced on ${subject}: our epoch ${ourEpoch}, log has ${theirEpoch ?? "an unreadable record"}`);
    this.subject = subject;
    this.ourEpoch = ourEpoch;
    this.theirEpoch = theirEpoch;
  }
}

/**
 * Every compare-and-set attempt found a newer record than expected, each from an older epoch (another writer kept
 * appending between our read and our write). Not a fence: the other writer is older and will be fenced; try again.
 */
export class IntentContentionError extends Error {
  override readonly name = "IntentContentionError";
  readonly subject: string;
  readonly attempts: number;

  constructor(subject: string, attempts: number) {
    super(`intent append for ${subject}: the log moved on under ${attempts} attempts in a row (an older owner is still appending)`);
    this.subject = subject;
    this.attempts = attempts;
  }
}

/** A quorum intent log could not get a majority of its replicas to take an append (none of them fenced it). */
export class IntentQuorumError extends Error {
  override readonly name = "IntentQuorumError";
  readonly subject: string;
  readonly accepted: number;
  readonly needed: number;
  /** `<stream>: <error>` for every replica that failed. */
  readonly failures: readonly string[];

  constructor(subject: string, accepted: number, needed: number, failures: readonly string[]) {
    super(`intent append for ${subject}: ${accepted} of ${needed} replicas needed took it (${failures.join("; ")})`);
    this.subject = subject;
    this.accepted = accepted;
    this.needed = needed;
    this.failures = failures;
  }
}

const APPEND_ATTEMPTS = 3;

/**
 * JetStream timeout of the log's appends and reads. An answer takes milliseconds; one that never comes is usually a
 * request lost with the NATS server the client was connected to (nats.js keeps waiting on it after reconnecting
 * elsewhere), and every turn of the set waits for it. With the 5 s default one node-loss run of the full suite
 * stalled 5.3 s from the crash on, the length of that timeout (not reproduced in isolation; inferred).
 */
export const INTENT_API_TIMEOUT_MS = 2_000;

/** The log kept by one stream (STS_INTENT, or one replica of a quorum log). */
export class IntentLog implements IntentAppender {
  private readonly lastSeq = new Map<string, number>();
  private readonly js: StreamPublish;
  private readonly jsm: JetStreamManager;
  private readonly me: { readonly member: string; readonly incarnation: string };
  private readonly onLastRecord: ((address: SetAddress, intent: Intent) => void) | undefined;
  readonly target: IntentLogTarget;

  constructor(
    /** Appends with their acks (StreamPublisher, ADR 0085: no nats.js request() per append). */
    js: StreamPublish,
    jsm: JetStreamManager,
    me: { member: string; incarnation: string },
    target: IntentLogTarget = SINGLE_STREAM_TARGET,
    /** Told of every set's last record this log reads (a takeover, a lost compare-and-set): what was acted on. */
    onLastRecord?: (address: SetAddress, intent: Intent) => void,
  ) {
    this.js = js;
    this.jsm = jsm;
    this.me = me;
    this.target = target;
    this.onLastRecord = onLastRecord;
  }

  private async readLast(subject: string): Promise<{ seq: number; intent: Intent | undefined }> {
    const stored = await this.jsm.streams.getMessage(this.target.stream, { last_by_subj: subject });
    if (!stored) return { seq: 0, intent: undefined };
    try {
      return { seq: stored.seq, intent: codecs.intent.decode(stored.data) };
    } catch (error) {
      if (error instanceof DecodeError) return { seq: stored.seq, intent: undefined };
      throw error;
    }
  }

  /**
   * Appends with compare-and-set. When the expected sequence is stale, the last record decides: a record of ours
   * (same incarnation, same epoch; e.g. an append whose ack we lost) or an older epoch is superseded by retrying;
   * a newer epoch means we were fenced.
   */
  async append(address: SetAddress, intent: Intent): Promise<number> {
    const subject = this.target.subjects.build(address);
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      let expected = this.lastSeq.get(subject);
      if (expected === undefined) {
        const last = await this.readLast(subject);
        if (last.intent) this.onLastRecord?.(address, last.intent);
        if (last.intent && last.intent.epoch > intent.epoch) throw new FencedError(subject, intent.epoch, last.intent.epoch);
        expected = last.seq;
      }
      try {
        const ack = await this.js.publish(subject, codecs.intent.encode(intent), { expectedLastSubjectSequence: expected });
        this.lastSeq.set(subject, ack.seq);
        return ack.seq;
      } catch (error) {
        if (!isWrongLastSequence(error)) throw error;
        this.lastSeq.delete(subject);
        const last = await this.readLast(subject);
        const theirs = last.intent;
        if (theirs) this.onLastRecord?.(address, theirs);
        const ours = theirs && theirs.member === this.me.member && theirs.incarnation === this.me.incarnation;
        if (!theirs || (!ours && theirs.epoch >= intent.epoch)) throw new FencedError(subject, intent.epoch, theirs?.epoch);
        // Our own earlier append, or a record from an older epoch: take the current sequence and try again.
      }
    }
    throw new IntentContentionError(subject, APPEND_ATTEMPTS);
  }

  forgetShard(shard: number): void {
    const prefix = this.target.subjects.shardFilter(shard).slice(0, -1);
    for (const subject of this.lastSeq.keys()) if (subject.startsWith(prefix)) this.lastSeq.delete(subject);
  }
}

/**
 * The log kept by an odd number (3 or more) of replicas, each an IntentLog over its own single-replica stream. An
 * append resolves once a majority took it; the others finish in the background (their sequences stay current for the
 * next append). It rejects with FencedError as soon as any replica shows a newer owner, and with IntentQuorumError
 * once too many replicas failed for a majority.
 */
export class QuorumIntentLog implements IntentAppender {
  readonly replicas: readonly IntentLog[];
  readonly quorum: number;
  private readonly onReplicaError: ((stream: string, error: unknown) => void) | undefined;

  constructor(replicas: readonly IntentLog[], options: { onReplicaError?: (stream: string, error: unknown) => void } = {}) {
    if (replicas.length < 3 || replicas.length % 2 === 0) throw new RangeError(`a quorum intent log needs an odd number of replicas from 3, got ${replicas.length}`);
    this.replicas = replicas;
    this.quorum = intentLogQuorum(replicas.length);
    this.onReplicaError = options.onReplicaError;
  }

  append(address: SetAddress, intent: Intent): Promise<number> {
    return new Promise((resolve, reject) => {
      let accepted = 0;
      let settled = false;
      const failures: string[] = [];
      for (const replica of this.replicas) {
        replica.append(address, intent).then(
          () => {
            accepted++;
            if (!settled && accepted >= this.quorum) {
              settled = true;
              resolve(accepted);
            }
          },
          (error: unknown) => {
            const fenced = error instanceof FencedError;
            if (!fenced) this.onReplicaError?.(replica.target.stream, error);
            if (settled) return;
            if (fenced) {
              settled = true;
              reject(error);
              return;
            }
            failures.push(`${replica.target.stream}: ${error instanceof Error ? error.message : String(error)}`);
            if (failures.length > this.replicas.length - this.quorum) {
              settled = true;
              reject(new IntentQuorumError(this.replicas[0]?.target.subjects.build(address) ?? "", accepted, this.quorum, failures));
            }
          },
        );
      }
    });
  }

  forgetShard(shard: number): void {
    for (const replica of this.replicas) replica.forgetShard(shard);
  }
}
