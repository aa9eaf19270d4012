// The per-set intent log (stream STS_INTENT, subject intent.<shard>.<ns>.<name>): every turn that will write to
// Kubernetes first appends its plan with compare-and-set on the subject's last sequence; a new owner appends a
// takeover record. A paused or partitioned former owner therefore cannot append, and does not write.
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { DecodeError, STREAMS, codecs, intentSubjects } from "#protocol";
import type { Intent, SetAddress } from "#protocol";

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

function isWrongLastSequence(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

export class IntentLog {
  private readonly lastSeq = new Map<string, number>();
  private readonly js: JetStreamClient;
  private readonly jsm: JetStreamManager;
  private readonly me: { readonly member: string; readonly incarnation: string };

  constructor(js: JetStreamClient, jsm: JetStreamManager, me: { member: string; incarnation: string }) {
    this.js = js;
    this.jsm = jsm;
    this.me = me;
  }

  private async readLast(subject: string): Promise<{ seq: number; intent: Intent | undefined }> {
    const stored = await this.jsm.streams.getMessage(STREAMS.intents, { last_by_subj: subject });
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
    const subject = intentSubjects.build(address);
    for (let attempt = 0; attempt < 3; attempt++) {
      let expected = this.lastSeq.get(subject);
      if (expected === undefined) {
        const last = await this.readLast(subject);
        if (last.intent && last.intent.epoch > intent.epoch) throw new FencedError(subject, intent.epoch, last.intent.epoch);
        expected = last.seq;
      }
      try {
        const ack = await this.js.publish(subject, codecs.intent.encode(intent), { expect: { lastSubjectSequence: expected } });
        this.lastSeq.set(subject, ack.seq);
        return ack.seq;
      } catch (error) {
        if (!isWrongLastSequence(error)) throw error;
        this.lastSeq.delete(subject);
        const last = await this.readLast(subject);
        const theirs = last.intent;
        const ours = theirs && theirs.member === this.me.member && theirs.incarnation === this.me.incarnation;
        if (!theirs || (!ours && theirs.epoch >= intent.epoch)) throw new FencedError(subject, intent.epoch, theirs?.epoch);
        // Our own earlier append, or a record from an older epoch: take the current sequence and try again.
      }
    }
    throw new FencedError(subject, intent.epoch, undefined);
  }

  /** Forgets cached sequences of a shard (it moved away; a later claim must re-read the log). */
  forgetShard(shard: number): void {
    const prefix = `intent.${shard}.`;
    for (const subject of this.lastSeq.keys()) if (subject.startsWith(prefix)) this.lastSeq.delete(subject);
  }
}
