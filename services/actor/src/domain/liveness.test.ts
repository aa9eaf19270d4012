import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LivenessObserver } from "./liveness.ts";

describe("LivenessObserver", () => {
  it("expires a member whose revision stays the same for the lease duration", () => {
    const observer = new LivenessObserver();
    observer.observe("a", 1, 0);
    observer.observe("b", 5, 0);
    observer.observe("a", 2, 1000); // renewed
    assert.deepEqual(observer.expired(1400, 1500), []);
    assert.deepEqual(observer.expired(1500, 1500), [{ member: "b", revision: 5 }]);
    observer.observe("b", 5, 1600); // the same revision again is not a renewal
    assert.deepEqual(observer.expired(2600, 1500), [{ member: "a", revision: 2 }, { member: "b", revision: 5 }]);
  });

  it("says how long a member's record has stayed the same (a renewal restarts it)", () => {
    const observer = new LivenessObserver();
    assert.equal(observer.silentForMs("a", 0), undefined);
    observer.observe("a", 1, 100);
    assert.equal(observer.silentForMs("a", 600), 500);
    observer.observe("a", 2, 700);
    assert.equal(observer.silentForMs("a", 900), 200);
    observer.reconnect(1_000);
    assert.equal(observer.silentForMs("a", 1_100), 100, "time spent disconnected does not count");
  });

  it("pauses while disconnected and restarts every observation on reconnect", () => {
    const observer = new LivenessObserver();
    observer.observe("a", 1, 0);
    observer.disconnect();
    assert.deepEqual(observer.expired(10_000, 1500), [], "nothing expires while we cannot see renewals");
    observer.reconnect(10_000);
    assert.deepEqual(observer.expired(11_000, 1500), []);
    assert.deepEqual(observer.expired(11_500, 1500), [{ member: "a", revision: 1 }]);
    observer.forget("a");
    assert.deepEqual(observer.expired(20_000, 1500), []);
  });
});
