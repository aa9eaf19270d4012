import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SetKey } from "../domain/object-store.ts";
import { FencedError } from "./intents.ts";
import { takeOverShard } from "./takeover.ts";
import type { TakeoverDeps } from "./takeover.ts";

function fake(options: { epoch?: number; sets: SetKey[]; fenceOn?: SetKey; failTimes?: Map<SetKey, number> }) {
  const sets = [...options.sets];
  let epoch = options.epoch;
  const appended: SetKey[] = [];
  const notified: SetKey[] = [];
  const synced: number[] = [];
  const gaveUp: number[] = [];
  let releaseAppends: () => void = () => undefined;
  const appendsBlocked = new Promise<void>((resolve) => (releaseAppends = resolve));
  const deps: TakeoverDeps = {
    epochOf: () => epoch,
    setsInShard: () => [...sets],
    appendTakeover: async (_shard, key) => {
      appended.push(key);
      await appendsBlocked;
      if (key === options.fenceOn) throw new FencedError(`intent.7.${key}`, 3, 4);
      const failures = options.failTimes?.get(key) ?? 0;
      if (failures > 0) {
        options.failTimes?.set(key, failures - 1);
        throw new Error("503 no responders");
      }
    },
    markSynced: (shard) => synced.push(shard),
    giveUp: (shard) => gaveUp.push(shard),
    notify: (key) => notified.push(key),
    retryDelayMs: 1,
  };
  return {
    deps,
    appended,
    notified,
    synced,
    gaveUp,
    releaseAppends: () => releaseAppends(),
    addSet: (key: SetKey) => sets.push(key),
    setEpoch: (value: number | undefined) => (epoch = value),
  };
}

describe("takeOverShard", () => {
  it("starts a turn for a set that arrived while the takeover intents were being appended", async () => {
    // Seen in the failover benchmark: sets created during a takeover stayed without pods until the resync.
    const f = fake({ epoch: 3, sets: ["ns/a", "ns/b"] });
    const done = takeOverShard(7, f.deps);
    f.addSet("ns/late");
    f.releaseAppends();
    assert.equal(await done, "synced");
    assert.deepEqual(f.appended, ["ns/a", "ns/b"]);
    assert.deepEqual(f.synced, [7]);
    assert.deepEqual(f.notified, ["ns/a", "ns/b", "ns/late"]);
  });

  it("gives the shard up when a newer owner fenced any set, without marking it synced", async () => {
    const f = fake({ epoch: 3, sets: ["ns/a", "ns/b"], fenceOn: "ns/b" });
    const done = takeOverShard(7, f.deps);
    f.releaseAppends();
    assert.equal(await done, "fenced");
    assert.deepEqual([f.gaveUp, f.synced, f.notified], [[7], [], []]);
  });

  it("retries the sets whose takeover failed without a fence, and only those, until they are appended", async () => {
    // A NATS outage or a quorum intent log short of a majority: giving the shard up would leave it owned and unserved.
    const f = fake({ epoch: 3, sets: ["ns/a", "ns/b"], failTimes: new Map([["ns/b", 2]]) });
    f.releaseAppends();
    assert.equal(await takeOverShard(7, f.deps), "synced");
    assert.deepEqual(f.appended, ["ns/a", "ns/b", "ns/b", "ns/b"]);
    assert.deepEqual([f.gaveUp, f.synced], [[], [7]]);
  });

  it("does nothing for a shard it does not own, and stops if the shard changed hands meanwhile", async () => {
    const unowned = fake({ sets: ["ns/a"] });
    assert.equal(await takeOverShard(7, unowned.deps), "not-owned");
    assert.deepEqual(unowned.appended, []);

    const moved = fake({ epoch: 3, sets: ["ns/a"] });
    const done = takeOverShard(7, moved.deps);
    moved.setEpoch(4);
    moved.releaseAppends();
    assert.equal(await done, "not-owned");
    assert.deepEqual([moved.synced, moved.notified], [[], []]);
  });
});
