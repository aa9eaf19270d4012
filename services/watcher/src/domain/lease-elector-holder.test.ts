import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeLease } from "./lease.ts";
import { decideLostLeaseRenew, leaseDecodeFailure, retakeRevision } from "./lease-elector-holder.ts";
import type { HeldLeaseReading, LostLeaseRenewDecision } from "./lease-elector-holder.ts";

const self = { holder: "watcher-0", incarnation: "i-1" };
const record = (holder: string, incarnation: string) => ({ holder, incarnation, leaseDurationMs: 15_000, renewedAtMs: 0 });

describe("decideLostLeaseRenew", () => {
  const table: [string, HeldLeaseReading, LostLeaseRenewDecision][] = [
    ["ours at a later revision: a lost answer", { kind: "record", revision: 9, record: record("watcher-0", "i-1") }, { action: "adopt", revision: 9 }],
    ["another watcher's", { kind: "record", revision: 9, record: record("watcher-1", "i-7") }, { action: "lost" }],
    ["our name, another incarnation (we restarted)", { kind: "record", revision: 9, record: record("watcher-0", "i-0") }, { action: "lost" }],
    ["released by someone", { kind: "record", revision: 9, record: record("", "i-7") }, { action: "lost" }],
    // Issue 16: garbage used to count as another holder's, and the fleet had no active watcher for a lease duration.
    ["garbage", { kind: "undecodable", revision: 9 }, { action: "retake", revision: 9, why: "undecodable" }],
    ["deleted or purged", { kind: "absent", revision: 9 }, { action: "retake", revision: 9, why: "absent" }],
    ["the read failed", { kind: "unanswered" }, { action: "lost" }],
  ];
  for (const [name, reading, decision] of table) it(name, () => assert.deepEqual(decideLostLeaseRenew(reading, self), decision));
});

describe("leaseDecodeFailure", () => {
  it("names why bytes are no lease record, with the protocol's words", () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    assert.equal(leaseDecodeFailure(new Uint8Array(0)), "empty");
    assert.equal(leaseDecodeFailure(new Uint8Array([0xc1, 0x00])), "malformed");
    assert.equal(leaseDecodeFailure(new Uint8Array([0x95, 0xa3, 0x61, 0x62, 0x63])), "malformed");
    assert.equal(leaseDecodeFailure(bytes("{}")), "invalid");
    assert.equal(leaseDecodeFailure(new Uint8Array([0x80])), "malformed");
    assert.equal(leaseDecodeFailure(encodeLease(record("watcher-0", "i-1"))), undefined);
  });
});

describe("retakeRevision", () => {
  it("retakes at once while the key holds no lease record, and only after stepping down to retake it", () => {
    const garbage = { revision: 12, deleted: false, record: undefined };
    assert.equal(retakeRevision(garbage, true), 12);
    assert.equal(retakeRevision({ revision: 13, deleted: true, record: undefined }, true), 13);
    assert.equal(retakeRevision(garbage, false), undefined, "a standby waits a lease duration (domain/lease.ts)");
    assert.equal(retakeRevision({ revision: 14, deleted: false, record: record("watcher-1", "i-7") }, true), undefined, "someone holds it now");
    assert.equal(retakeRevision(undefined, true), undefined);
  });
});
