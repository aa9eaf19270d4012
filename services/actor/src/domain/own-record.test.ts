import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideLostRenew } from "./own-record.ts";
import type { LostRenewDecision, OwnRecordReading } from "./own-record.ts";

const self = { incarnation: "i-1", revision: 10 };

describe("decideLostRenew", () => {
  const table: [string, OwnRecordReading, LostRenewDecision][] = [
    ["the read did not answer: nothing is known", { kind: "unanswered" }, { action: "retry" }],
    ["deleted or purged", { kind: "absent" }, { action: "rejoin", why: "absent" }],
    // Issue 16: garbage on m.<name> used to be "nothing is known", so every later renew failed forever.
    ["garbage", { kind: "undecodable", revision: 12 }, { action: "rejoin", why: "undecodable" }],
    ["declared dead by a peer", { kind: "record", revision: 11, record: { incarnation: "i-1", state: "dead" } }, { action: "rejoin", why: "declared-dead" }],
    ["our name under another incarnation", { kind: "record", revision: 11, record: { incarnation: "i-0", state: "alive" } }, { action: "rejoin", why: "another-incarnation" }],
    ["ours and alive at a later revision: a lost answer", { kind: "record", revision: 11, record: { incarnation: "i-1", state: "alive" } }, { action: "adopt", revision: 11 }],
    ["ours, leaving, at a later revision", { kind: "record", revision: 12, record: { incarnation: "i-1", state: "leaving" } }, { action: "adopt", revision: 12 }],
    ["ours at the revision we renewed from: the failure was something else", { kind: "record", revision: 10, record: { incarnation: "i-1", state: "alive" } }, { action: "retry" }],
  ];
  for (const [name, reading, decision] of table) {
    it(name, () => assert.deepEqual(decideLostRenew(reading, self), decision));
  }
});
