import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WatchSet } from "./watch.ts";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("WatchSet flush schedule", () => {
  it("flushes watchers due now together in one microtask", async () => {
    const set = new WatchSet();
    const order: string[] = [];
    set.schedule(() => order.push("a"), 0);
    set.schedule(() => order.push("b"), -5);
    assert.deepEqual(order, []);
    await Promise.resolve();
    assert.deepEqual(order, ["a", "b"]);
  });

  it("flushes watchers inside a window together on one timer, not before it", async () => {
    const set = new WatchSet();
    const order: string[] = [];
    set.schedule(() => order.push("a"), 30);
    set.schedule(() => order.push("b"), 20);
    await tick(5);
    assert.deepEqual(order, []);
    await tick(60);
    assert.deepEqual(order, ["a", "b"]);
  });

  it("keeps a watcher due later out of a microtask flush of watchers due now", async () => {
    const set = new WatchSet();
    const order: string[] = [];
    set.schedule(() => order.push("later"), 20);
    set.schedule(() => order.push("now"), 0);
    await Promise.resolve();
    assert.deepEqual(order, ["now"]);
    await tick(50);
    assert.deepEqual(order, ["now", "later"]);
  });

  it("drops the flush of a watcher that closed before it ran", async () => {
    const set = new WatchSet();
    const order: string[] = [];
    const flush = () => order.push("closed");
    set.schedule(flush, 0);
    set.unschedule(flush);
    await tick(1);
    assert.deepEqual(order, []);
  });

  it("shares one concatenated chunk between watchers with the same pending events during a flush", async () => {
    const set = new WatchSet();
    const e1 = Buffer.from('{"type":"ADDED"}\n');
    const e2 = Buffer.from('{"type":"MODIFIED"}\n');
    const chunks: Buffer[] = [];
    set.schedule(() => chunks.push(set.concat([e1, e2])), 0);
    set.schedule(() => chunks.push(set.concat([e1, e2])), 0);
    set.schedule(() => chunks.push(set.concat([e2])), 0);
    set.schedule(() => chunks.push(set.concat([e2, e1])), 0);
    await Promise.resolve();
    assert.equal(chunks.length, 4);
    assert.equal(chunks[0], chunks[1], "same parts: the same buffer");
    assert.equal(chunks[2], e2, "a single part is written as is");
    assert.notEqual(chunks[3], chunks[0]);
    assert.equal(chunks[0]?.toString(), `${e1.toString()}${e2.toString()}`);
    assert.equal(chunks[3]?.toString(), `${e2.toString()}${e1.toString()}`);
  });
});
