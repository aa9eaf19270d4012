// The work queue's guarantees, as client-go's util/workqueue tests state them (TestBasic, TestAddWhileProcessing,
// TestRateLimitingQueue, TestItemExponentialFailureRateLimiter, TestMaxOfRateLimiter).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, WorkQueue, defaultControllerRateLimiter } from "./queue.ts";

describe("WorkQueue", () => {
  it("deduplicates a key while it waits (TestBasic)", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    queue.add("b");
    queue.add("a");
    assert.equal(queue.length, 2);
    assert.equal(await queue.get(), "a");
    assert.equal(await queue.get(), "b");
    assert.equal(queue.length, 0);
  });

  it("never hands out a key that is processing; an add meanwhile queues it again on done (TestAddWhileProcessing)", async () => {
    const queue = new WorkQueue();
    queue.add("a");
    const key = await queue.get();
    assert.equal(key, "a");
    queue.add("a");
    queue.add("a");
    assert.equal(queue.length, 0, "not queued while processing");
    let second: string | undefined;
    void queue.get().then((k) => (second = k));
    await sleep(5);
    assert.equal(second, undefined, "a waiting worker does not get the key being processed");
    queue.done("a");
    await sleep(0);
    assert.equal(second, "a", "queued again once, after done");
    queue.done("a");
    assert.equal(queue.length, 0);
  });

  it("hands a new key straight to a waiting worker", async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.add("x");
    assert.equal(await waiting, "x");
  });

  it("addRateLimited delays by the per-key exponential back-off and forget resets it (TestRateLimitingQueue)", async () => {
    const queue = new WorkQueue(new ItemExponentialFailureRateLimiter(20, 1000));
    queue.addRateLimited("k");
    assert.equal(queue.retries("k"), 1);
    assert.equal(queue.length, 0);
    await sleep(40);
    assert.equal(queue.length, 1);
    queue.addRateLimited("k");
    assert.equal(queue.retries("k"), 2);
    queue.forget("k");
    assert.equal(queue.retries("k"), 0);
    queue.shutDown();
  });

  it("shutDown releases waiting workers with undefined", async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.shutDown();
    assert.equal(await waiting, undefined);
    queue.add("late");
    assert.equal(queue.length, 0);
  });
});

describe("rate limiters", () => {
  it("ItemExponentialFailureRateLimiter doubles per failure up to the cap (TestItemExponentialFailureRateLimiter)", () => {
    const limiter = new ItemExponentialFailureRateLimiter(1, 1000);
    assert.deepEqual([1, 2, 3, 4, 5].map(() => limiter.when("one")), [1, 2, 4, 8, 16]);
    assert.equal(limiter.when("two"), 1);
    for (let i = 0; i < 20; i++) limiter.when("one");
    assert.equal(limiter.when("one"), 1000);
    limiter.forget("one");
    assert.equal(limiter.when("one"), 1);
  });

  it("BucketRateLimiter lets a burst through, then spaces keys at 1/qps", () => {
    let now = 0;
    const bucket = new BucketRateLimiter(10, 3, () => now);
    assert.deepEqual([bucket.when(), bucket.when(), bucket.when()], [0, 0, 0]);
    assert.equal(Math.round(bucket.when()), 100);
    assert.equal(Math.round(bucket.when()), 200);
    now = 1000;
    assert.equal(bucket.when(), 0, "refilled after a second");
  });

  it("MaxOfRateLimiter takes the longest wait (TestMaxOfRateLimiter); the default is 5 ms doubling, 10 qps burst 100", () => {
    const max = new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(5, 1000), new ItemExponentialFailureRateLimiter(1, 1000));
    assert.equal(max.when("k"), 5);
    assert.equal(max.retries("k"), 1);
    let now = 0;
    const defaults = defaultControllerRateLimiter(() => now);
    const waits = Array.from({ length: 101 }, (_, i) => defaults.when(`key-${i}`));
    assert.equal(waits[0], 5);
    assert.equal(Math.round(waits[100] ?? 0), 100, "the 101st distinct key waits for the bucket");
    now = 0;
  });
});
