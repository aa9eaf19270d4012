import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Semaphore } from "./semaphore.ts";

describe("Semaphore", () => {
  it("admits at most `permits` holders and serves urgent waiters first, each kind in arrival order", async () => {
    const semaphore = new Semaphore(1);
    await semaphore.acquire();
    const order: string[] = [];
    const waiting = [
      semaphore.acquire().then(() => order.push("normal-1")),
      semaphore.acquire({ urgent: true }).then(() => order.push("urgent-1")),
      semaphore.acquire().then(() => order.push("normal-2")),
      semaphore.acquire({ urgent: true }).then(() => order.push("urgent-2")),
    ];
    await Promise.resolve();
    assert.deepEqual(order, [], "nobody gets in while the permit is held");
    for (let i = 0; i < waiting.length; i++) {
      semaphore.release();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(order.length, i + 1, "one waiter per release");
    }
    await Promise.all(waiting);
    assert.deepEqual(order, ["urgent-1", "urgent-2", "normal-1", "normal-2"]);
  });

  it("run() holds a permit for its work and gives it back when the work fails", async () => {
    const semaphore = new Semaphore(1);
    await assert.rejects(semaphore.run(() => Promise.reject(new Error("boom"))), /boom/);
    assert.equal(await semaphore.run(() => Promise.resolve("free again")), "free again");
  });
});
