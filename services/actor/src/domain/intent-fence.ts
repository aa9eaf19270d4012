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

export type AppendDecision =
  /** Append with compare-and-set on this sequence. */
  | { readonly type: "append"; readonly expectedSeq: number }
  /** A newer owner (or another writer at the same epoch) wrote the newest record: stop acting on the set. */
  | { readonly type: "fenced"; readonly theirEpoch: number };

/**
 * Appending is allowed over no record, over a record of an older epoch, and over a record of the same epoch by the
 * same writer (member and incarnation) as the intent being appended (an append whose answer was lost). A newer epoch
 * fences, the same writer's included: a stale turn must not take the set's epochs back. Garbage never gets here: it
 * is neither a newer epoch nor an older one.
 *
 * The writer is the intent's own, not the appending process's as it is now: a member that re-joined under a new
 * incarnation while a turn of the old one was appending would otherwise read the old incarnation's record at the
 * same epoch as someone else's (issue 16's S11 stall). Each claim is a new revision of the shards bucket, so two
 * writers never hold one epoch; an equal epoch under another name can only be forged, and fences.
 */
export function decideAppend(tip: LogTip, intent: Pick<Intent, "epoch" | "member" | "incarnation">): AppendDecision {
  const theirs = tip.newest;
  if (theirs === undefined || theirs.epoch < intent.epoch) return { type: "append", expectedSeq: tip.seq };
  const sameWriter = theirs.member === intent.member && theirs.incarnation === intent.incarnation;
  if (theirs.epoch === intent.epoch && sameWriter) return { type: "append", expectedSeq: tip.seq };
  return { type: "fenced", theirEpoch: theirs.epoch };
}
