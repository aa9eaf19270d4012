// The per-set intent log (stream STS_INTENT, subject intent.<shard>.<ns>.<name>): every turn that will write to
// Kubernetes first appends its plan with compare-and-set on the subject's last sequence; a new owner appends a
// takeover record. A paused or partitioned former owner therefore cannot append, and does not write.
//
// The same log can be kept by a quorum of single-replica streams on different NATS servers (QuorumIntentLog, ADR
// 0084): an append counts once a majority of them took it with compare-and-set, so the loss of one server costs no
// Raft election in front of every write. Any two majorities share a replica, and on that replica the takeover record
// of a newer owner makes the older owner's compare-and-set fail: the fence holds as with one stream.
//
// Entries that do not decode (anyone may publish on the log's subjects without --secure) are no record of anyone:
// the newest record that decodes decides, and the append compares-and-sets on the garbage's sequence
// (domain/intent-fence.ts, ADR 0089). Each is counted once in stsfleet_dropped_messages_total.
import type { JetStreamManager, StoredMsg } from "@nats-io/jetstream";
import { DecodeError, STREAMS, codecs, intentLogQuorum, intentSubjects } from "#protocol";
import type { Intent, SetAddress } from "#protocol";
import type { DropReporter } from "../../../common/src/executor/drops.ts";
import { isWrongLastSequence } from "../../../common/src/stream-publish.ts";
import type { StreamPublish } from "../../../common/src/stream-publish.ts";
import { decideAppend, tipOf } from "../domain/intent-fence.ts";
import type { LogEntry, LogTip } from "../domain/intent-fence.ts";

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
  readonly subjects: { build(address: SetAddress): string; shardFilter(shard: number): string; readonly template: string };
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
  /** Per subject, the highest sequence of garbage already counted: each entry is counted once, not once per read. */
  private readonly garbageCounted = new Map<string, number>();
  private readonly js: StreamPublish;
  private readonly jsm: JetStreamManager;
  private readonly onLastRecord: ((address: SetAddress, intent: Intent) => void) | undefined;
  private readonly drops: Pick<DropReporter, "drop"> | undefined;
  readonly target: IntentLogTarget;

  constructor(
    /** Appends with their acks (StreamPublisher, ADR 0085: no nats.js request() per append). */
    js: StreamPublish,
    jsm: JetStreamManager,
    target: IntentLogTarget = SINGLE_STREAM_TARGET,
    /** Told of every set's last record this log reads (a takeover, a lost compare-and-set): what was acted on. */
    onLastRecord?: (address: SetAddress, intent: Intent) => void,
    /** Counts (stsfleet_dropped_messages_total) and logs, rate-limited, every entry of the log that does not decode. */
    drops?: Pick<DropReporter, "drop">,
  ) {
    this.js = js;
    this.jsm = jsm;
    this.target = target;
    this.onLastRecord = onLastRecord;
    this.drops = drops;
  }

  /** The subject's last entry and, when it does not decode, the newest one below it that does (ADR 0089). */
  private async readTip(subject: string): Promise<LogTip> {
    const stored = await this.jsm.streams.getMessage(this.target.stream, { last_by_subj: subject });
    if (!stored) return { seq: 0, newest: undefined };
    const last = entryOf(stored);
    if (last.intent) return { seq: last.seq, newest: last.intent };
    const entries = await this.readWindow(subject, last.seq);
    this.countGarbage(subject, entries);
    return tipOf(entries);
  }

  /**
   * Every entry the stream keeps for the subject, up to `tipSeq`, oldest first (one request each; the stream keeps a
   * few dozen per set). Only read when the last entry is garbage.
   */
  private async readWindow(subject: string, tipSeq: number): Promise<LogEntry[]> {
    const entries: LogEntry[] = [];
    for (let from = 0; from <= tipSeq; ) {
      // nats-server 2.9 answers `next_by_subj` (the first entry of the subject at or after `seq`); nats.js 3 only
      // types it for direct gets.
      const query = { seq: from, next_by_subj: subject } as unknown as { seq: number };
      const stored = await this.jsm.streams.getMessage(this.target.stream, query);
      if (!stored || stored.seq > tipSeq) break;
      entries.push(entryOf(stored));
      from = stored.seq + 1;
    }
    return entries;
  }

  private countGarbage(subject: string, entries: readonly LogEntry[]): void {
    const counted = this.garbageCounted.get(subject) ?? 0;
    let highest = counted;
    for (const entry of entries) {
      if (entry.intent || entry.seq <= counted) continue;
      highest = Math.max(highest, entry.seq);
      this.drops?.drop(this.target.subjects.template, entry.failure, { stream: this.target.stream, at: subject, seq: entry.seq });
    }
    if (highest > counted) this.garbageCounted.set(subject, highest);
  }

  /** Reads the subject and decides (domain/intent-fence.ts): the sequence to append over, or FencedError. */
  private async decide(address: SetAddress, subject: string, intent: Intent): Promise<number> {
    const tip = await this.readTip(subject);
    if (tip.newest) this.onLastRecord?.(address, tip.newest);
    const decision = decideAppend(tip, intent);
    if (decision.type === "fenced") throw new FencedError(subject, intent.epoch, decision.theirEpoch);
    return decision.expectedSeq;
  }

  /**
   * Appends with compare-and-set on the subject's last sequence, as last appended by us, else as read. When that is
   * stale, the newest record that decodes decides: a record of ours (e.g. an append whose ack we lost) or of an older
   * epoch is superseded by retrying; a newer epoch means we were fenced. Garbage decides nothing.
   */
  async append(address: SetAddress, intent: Intent): Promise<number> {
    const subject = this.target.subjects.build(address);
    let expected = this.lastSeq.get(subject) ?? (await this.decide(address, subject, intent));
    for (let attempt = 1; ; attempt++) {
      try {
        const ack = await this.js.publish(subject, codecs.intent.encode(intent), { expectedLastSubjectSequence: expected });
        this.lastSeq.set(subject, ack.seq);
        return ack.seq;
      } catch (error) {
        if (!isWrongLastSequence(error)) throw error;
        this.lastSeq.delete(subject);
        // Re-read even after the last attempt: a newer owner is reported as a fence, not as contention.
        const current = await this.decide(address, subject, intent);
        if (attempt >= APPEND_ATTEMPTS) throw new IntentContentionError(subject, APPEND_ATTEMPTS);
        expected = current;
      }
    }
  }

  forgetShard(shard: number): void {
    const prefix = this.target.subjects.shardFilter(shard).slice(0, -1);
    for (const subject of this.lastSeq.keys()) if (subject.startsWith(prefix)) this.lastSeq.delete(subject);
    for (const subject of this.garbageCounted.keys()) if (subject.startsWith(prefix)) this.garbageCounted.delete(subject);
  }
}

function entryOf(stored: StoredMsg): LogEntry {
  try {
    return { seq: stored.seq, intent: codecs.intent.decode(stored.data) };
  } catch (error) {
    if (error instanceof DecodeError) return { seq: stored.seq, intent: undefined, failure: error.reason };
    throw error;
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
