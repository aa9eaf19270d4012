import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { PeriodicResync, resyncDelayMs } from "./resync.ts";

describe("PeriodicResync", () => {
  it("jitters the period by ±10 %", () => {
    assert.equal(resyncDelayMs(600_000, 0), 540_000);
    assert.equal(resyncDelayMs(600_000, 0.5), 600_000);
    assert.ok(resyncDelayMs(600_000, 0.999_999) < 660_000);
  });

  it("gives every set of the served shards a turn each period, and none after stop", async () => {
    const sets = new Map([
      [1, ["ns/a", "ns/b"]],
      [2, ["ns/c"]],
    ]);
    const served = new Set([1]);
    const turns = new Map<string, number>();
    const resync = new PeriodicResync({
      periodMs: 20,
      shards: () => served,
      setsInShard: (shard) => sets.get(shard) ?? [],
      notify: (key) => turns.set(key, (turns.get(key) ?? 0) + 1),
      random: () => 0.5,
    });
    resync.start();
    await sleep(70);
    resync.stop();
    const afterStop = new Map(turns);
    assert.ok((turns.get("ns/a") ?? 0) >= 2, `ns/a had ${turns.get("ns/a") ?? 0} resyncs`);
    assert.equal(turns.get("ns/b"), turns.get("ns/a"));
    assert.equal(turns.has("ns/c"), false, "a shard not served gets none");
    await sleep(50);
    assert.deepEqual(turns, afterStop);
  });

  it("is off with a period of 0", async () => {
    let notified = 0;
    const resync = new PeriodicResync({ periodMs: 0, shards: () => [1], setsInShard: () => ["ns/a"], notify: () => notified++ });
    resync.start();
    await sleep(20);
    resync.stop();
    assert.equal(notified, 0);
  });
});
