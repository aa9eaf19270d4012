import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideStandby, decodeLease, encodeLease, leaderMustStepDown } from "./lease.ts";
import type { LeaseObservation, LeaseRecord } from "./lease.ts";

const self = { incarnation: "me", leaseDurationMs: 1_000 };
const record = (holder: string, incarnation = holder, leaseDurationMs = 1_000): LeaseRecord => ({
  holder,
  incarnation,
  leaseDurationMs,
  renewedAtMs: 0,
});
const seen = (revision: number, r: LeaseRecord | undefined, deleted = false): LeaseObservation => ({ revision, deleted, record: r });

describe("lease decisions", () => {
  it("creates the key when nobody ever held it", () => {
    assert.deepEqual(decideStandby(undefined, undefined, 0, self), { action: "create" });
  });

  it("acquires a released or deleted lease at once, by compare-and-set on its revision", () => {
    assert.deepEqual(decideStandby(seen(4, record("")), undefined, 0, self), { action: "acquire", revision: 4, why: "free" });
    assert.deepEqual(decideStandby(seen(5, undefined, true), undefined, 0, self), { action: "acquire", revision: 5, why: "free" });
  });

  it("takes back a lease that names its own incarnation", () => {
    assert.deepEqual(decideStandby(seen(6, record("w", "me")), undefined, 0, self), { action: "acquire", revision: 6, why: "ours" });
  });

  it("waits a full lease duration on an unchanged revision, measured on its own clock, before taking over", () => {
    let decision = decideStandby(seen(7, record("other", "x", 500)), undefined, 10_000, self);
    assert.equal(decision.action, "wait");
    const memory = decision.action === "wait" ? decision.memory : undefined;
    assert.deepEqual(memory, { revision: 7, sinceMs: 10_000 });
    decision = decideStandby(seen(7, record("other", "x", 500)), memory, 10_499, self);
    assert.deepEqual(decision, { action: "wait", memory, expiresInMs: 1 });
    decision = decideStandby(seen(7, record("other", "x", 500)), memory, 10_500, self);
    assert.deepEqual(decision, { action: "acquire", revision: 7, why: "expired" });
  });

  it("restarts the wait whenever the holder renews (the revision moves)", () => {
    const first = decideStandby(seen(7, record("other")), undefined, 0, self);
    const memory = first.action === "wait" ? first.memory : undefined;
    const renewed = decideStandby(seen(8, record("other")), memory, 5_000, self);
    assert.deepEqual(renewed, { action: "wait", memory: { revision: 8, sinceMs: 5_000 }, expiresInMs: 1_000 });
  });

  it("uses its own lease duration for an unreadable record", () => {
    const decision = decideStandby(seen(9, undefined), { revision: 9, sinceMs: 0 }, 1_000, self);
    assert.deepEqual(decision, { action: "acquire", revision: 9, why: "expired" });
  });

  it("encodes records as JSON and refuses anything else", () => {
    const r = record("w-0", "abc", 15_000);
    assert.deepEqual(decodeLease(encodeLease(r)), r);
    assert.equal(decodeLease(new TextEncoder().encode("not json")), undefined);
    assert.equal(decodeLease(new TextEncoder().encode('{"holder":1}')), undefined);
    assert.equal(decodeLease(new Uint8Array([0xff, 0xfe])), undefined);
  });

  it("steps down once the renew deadline has passed without a renewal", () => {
    assert.equal(leaderMustStepDown(1_000, 1_699, 700), false);
    assert.equal(leaderMustStepDown(1_000, 1_700, 700), true);
  });
});
