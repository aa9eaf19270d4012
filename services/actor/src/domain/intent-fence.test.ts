// The intent log's fence decision (ADR 0089) as a table: what a set's subject holds, who appends, what happens.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Intent } from "#protocol";
import { decideAppend, tipOf } from "./intent-fence.ts";
import type { AppendDecision, LogEntry } from "./intent-fence.ts";

const record = (seq: number, member: string, incarnation: string, epoch: number): LogEntry => ({
  seq,
  intent: { type: "intent.takeover", shard: 1, epoch, member, incarnation } satisfies Intent,
});
const garbage = (seq: number): LogEntry => ({ seq, intent: undefined, failure: "malformed" });
/** The writer of every intent appended below, unless a case names another. */
const ME = { member: "a", incarnation: "ia" };

describe("decideAppend over a subject's entries", () => {
  const cases: { name: string; entries: LogEntry[]; epoch: number; writer?: { member: string; incarnation: string }; want: AppendDecision }[] = [
    { name: "empty subject", entries: [], epoch: 1, want: { type: "append", expectedSeq: 0 } },
    { name: "our own record (a lost ack)", entries: [record(3, "a", "ia", 1)], epoch: 1, want: { type: "append", expectedSeq: 3 } },
    { name: "an older epoch's record", entries: [record(3, "b", "ib", 1)], epoch: 2, want: { type: "append", expectedSeq: 3 } },
    { name: "a newer epoch's record", entries: [record(3, "b", "ib", 2)], epoch: 1, want: { type: "fenced", theirEpoch: 2 } },
    { name: "another owner at our epoch", entries: [record(3, "b", "ib", 1)], epoch: 1, want: { type: "fenced", theirEpoch: 1 } },
    {
      name: "the same member's earlier incarnation at our epoch (forged: every claim is a new epoch)",
      entries: [record(3, "a", "ia-old", 1)],
      epoch: 1,
      want: { type: "fenced", theirEpoch: 1 },
    },
    {
      // A turn of incarnation ia still appending after its member re-joined as ib: its own record, not someone else's.
      name: "the appending intent's own writer decides, not the member's incarnation now",
      entries: [record(3, "a", "ia", 1), garbage(4)],
      epoch: 1,
      writer: { member: "a", incarnation: "ia" },
      want: { type: "append", expectedSeq: 4 },
    },
    { name: "our own record of a newer epoch (a stale turn)", entries: [record(3, "a", "ia", 2)], epoch: 1, want: { type: "fenced", theirEpoch: 2 } },
    { name: "our record under garbage: over the garbage", entries: [record(3, "a", "ia", 1), garbage(4), garbage(6)], epoch: 1, want: { type: "append", expectedSeq: 6 } },
    {
      name: "a newer record under garbage still fences",
      entries: [record(2, "a", "ia", 1), record(3, "b", "ib", 2), garbage(4)],
      epoch: 1,
      want: { type: "fenced", theirEpoch: 2 },
    },
    {
      name: "garbage between records: the newest record decides, not the one under the garbage",
      entries: [record(2, "b", "ib", 2), garbage(3), record(5, "a", "ia", 3), garbage(7)],
      epoch: 3,
      want: { type: "append", expectedSeq: 7 },
    },
    { name: "only garbage: no record", entries: [garbage(4), garbage(5)], epoch: 1, want: { type: "append", expectedSeq: 5 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(decideAppend(tipOf(c.entries), { epoch: c.epoch, ...(c.writer ?? ME) }), c.want);
    });
  }
});
