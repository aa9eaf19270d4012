// The intent log's fence as a decision: given what a set's subject holds on one stream of the log, may this owner
// append, and over which sequence? The rule of docs/adr/0089-garbage-in-the-intent-log.md: entries that do not
// decode are no record of anyone and decide nothing; the newest record that decodes decides; the append is a
// compare-and-set on the subject's last sequence, whatever that entry holds, so that anything appended after the read
// (a newer owner's takeover above all) makes it fail. Pure; the runtime (runtime/intents.ts) does the reads.
import type { DecodeFailure, Intent } from "#protocol";

/** One stored entry of a set's subject: a record, or bytes that are none (with why they do not decode). */
export type LogEntry =
  | { readonly seq: number; readonly intent: Intent }
  | { readonly seq: number; readonly intent: undefined; readonly failure: DecodeFailure };

/** What a set's subject holds, as far as the fence is concerned. */
export interface LogTip {
  /** Sequence of the subject's last entry, record or garbage; 0 for an empty subject. The append expects it. */
  readonly seq: number;
  /** The newest entry that decodes, at or below `seq`; undefined when none of the retained entries does. */
  readonly newest: Intent | undefined;
}

/** The tip of a subject from its retained entries in stream order (the last one is the subject's last entry). */
export function tipOf(entries: readonly LogEntry[]): LogTip {
  let newest: Intent | undefined;
  for (const entry of entries) if (entry.intent) newest = entry.intent;
  return { seq: entries.at(-1)?.seq ?? 0, newest };
}

export interface Appender {
  readonly member: string;
  readonly incarnation: string;
}

export type AppendDecision =
  /** Append with compare-and-set on this sequence. */
  | { readonly type: "append"; readonly expectedSeq: number }
  /** A newer owner (or another owner of the same epoch) wrote the newest record: stop acting on the set. */
  | { readonly type: "fenced"; readonly theirEpoch: number };

/**
 * Appending is allowed over no record, over a record of an older epoch, and over our own record of the same epoch
 * (an append whose answer was lost). A newer epoch fences, ours included: a stale turn of this incarnation must not
 * take the set's epochs back. Garbage never gets here: it is neither a newer epoch nor an older one.
 */
export function decideAppend(tip: LogTip, intent: Pick<Intent, "epoch">, me: Appender): AppendDecision {
  const theirs = tip.newest;
  if (theirs === undefined || theirs.epoch < intent.epoch) return { type: "append", expectedSeq: tip.seq };
  const ours = theirs.member === me.member && theirs.incarnation === me.incarnation;
  if (theirs.epoch === intent.epoch && ours) return { type: "append", expectedSeq: tip.seq };
  return { type: "fenced", theirEpoch: theirs.epoch };
}
