import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { createLogger } from "../../../common/src/logger.ts";
import type { Expectation } from "../domain/expectations.ts";
import type { CachedObject } from "../domain/object-store.ts";
import { ActorSystem } from "./actor-system.ts";
import type { TurnOutcome, TurnTrigger } from "./actor-system.ts";

const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });

interface Harness {
  system: ActorSystem;
  turns: { key: string; trigger: TurnTrigger }[];
  running: () => number;
  maxRunning: () => number;
  release: (outcome?: TurnOutcome) => void;
  cache: Map<string, CachedObject>;
}

function harness(options: { maxConcurrentTurns?: number; outcome?: (key: string, n: number) => TurnOutcome; manual?: boolean } = {}): Harness {
  const turns: { key: string; trigger: TurnTrigger }[] = [];
  const pending: ((outcome: TurnOutcome) => void)[] = [];
  let running = 0;
  let maxRunning = 0;
  const cache = new Map<string, CachedObject>();
  const system = new ActorSystem({
    maxConcurrentTurns: options.maxConcurrentTurns ?? 4,
    expectationTimeoutMs: 200,
    backoff: { initialDelayMs: 20, maxDelayMs: 100 },
    passivateAfterMs: 60_000,
    logger,
    lookup: (kind, namespace, name) => cache.get(`${kind}/${namespace}/${name}`),
    runTurn: async (key, trigger) => {
      turns.push({ key, trigger });
      running++;
      maxRunning = Math.max(maxRunning, running);
      try {
        if (options.manual) return await new Promise<TurnOutcome>((resolve) => pending.push(resolve));
        await sleep(5);
        return options.outcome?.(key, turns.filter((t) => t.key === key).length) ?? { type: "done", requeueAfterMs: null, expectations: [] };
      } finally {
        running--;
      }
    },
  });
  return {
    system,
    turns,
    running: () => running,
    maxRunning: () => maxRunning,
    release: (outcome = { type: "done", requeueAfterMs: null, expectations: [] }) => pending.shift()?.(outcome),
    cache,
  };
}

async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail("condition not reached");
    await sleep(2);
  }
}

describe("ActorSystem", () => {
  it("coalesces events: one turn running, at most one pending, with every reason", async () => {
    const h = harness({ manual: true });
    h.system.notify("ns/web", "Pod");
    await until(() => h.turns.length === 1);
    for (let i = 0; i < 100; i++) h.system.notify("ns/web", i % 2 ? "Pod" : "StatefulSet");
    await sleep(20);
    assert.equal(h.turns.length, 1, "no second turn while the first runs");
    h.release();
    await until(() => h.turns.length === 2);
    assert.deepEqual([...(h.turns[1]?.trigger.reasons ?? [])].sort(), ["Pod", "StatefulSet"]);
    h.release();
    await sleep(20);
    assert.equal(h.turns.length, 2, "the 100 events made exactly one extra turn");
    await h.system.stop();
  });

  it("bounds concurrent turns across actors", async () => {
    const h = harness({ maxConcurrentTurns: 3 });
    for (let i = 0; i < 20; i++) h.system.notify(`ns/set-${i}`, "StatefulSet");
    await until(() => h.turns.length === 20);
    assert.equal(h.maxRunning(), 3);
    await h.system.stop();
  });

  it("retries failed turns with back-off and resets it after success", async () => {
    const h = harness({
      outcome: (_key, n) => (n <= 2 ? { type: "failed", error: new Error("boom"), expectations: [] } : { type: "done", requeueAfterMs: null, expectations: [] }),
    });
    const started = Date.now();
    h.system.notify("ns/web", "StatefulSet");
    await until(() => h.turns.length === 3);
    assert.ok(Date.now() - started >= 20, "waited for back-off");
    assert.deepEqual(h.turns[1]?.trigger.reasons, ["retry"]);
    await sleep(50);
    assert.equal(h.turns.length, 3);
    await h.system.stop();
  });

  it("honours requeueAfterMs", async () => {
    const h = harness({ outcome: (_key, n) => ({ type: "done", requeueAfterMs: n === 1 ? 40 : null, expectations: [] }) });
    h.system.notify("ns/web", "StatefulSet");
    await until(() => h.turns.length === 2);
    assert.deepEqual(h.turns[1]?.trigger.reasons, ["requeue"]);
    await h.system.stop();
  });

  it("does not plan on a cache older than its own writes (until the write shows or the wait expires)", async () => {
    const expectation: Expectation = { type: "exists", kind: "Pod", namespace: "ns", name: "web-0" };
    const h = harness({ outcome: (_key, n) => ({ type: "done", requeueAfterMs: null, expectations: n === 1 ? [expectation] : [] }) });
    h.system.notify("ns/web", "StatefulSet");
    await until(() => h.turns.length === 1);
    await sleep(10);
    h.system.notify("ns/web", "PersistentVolumeClaim");
    await sleep(30);
    assert.equal(h.turns.length, 1, "an unrelated event does not start a turn while our pod create is unseen");
    h.cache.set("Pod/ns/web-0", { kind: "Pod", namespace: "ns", name: "web-0", uid: "u", resourceVersion: "1", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "web-0" } } });
    h.system.notify("ns/web", "Pod");
    await until(() => h.turns.length === 2);

    // A write that never shows up is abandoned after expectationTimeoutMs (200 ms here).
    const h2 = harness({ outcome: (_key, n) => ({ type: "done", requeueAfterMs: null, expectations: n === 1 ? [expectation] : [] }) });
    h2.system.notify("ns/web", "StatefulSet");
    await until(() => h2.turns.length === 1);
    await sleep(10);
    h2.system.notify("ns/web", "Pod");
    await until(() => h2.turns.length === 2, 1000);
    await h.system.stop();
    await h2.system.stop();
  });

  it("forgets actors of lost shards and drops sets that are gone", async () => {
    const h = harness({ outcome: () => ({ type: "gone" }) });
    h.system.notify("ns/web", "StatefulSet");
    await until(() => h.turns.length === 1);
    await sleep(10);
    assert.equal(h.system.stats().actors, 0);
    const m = harness({ manual: true });
    m.system.notify("ns/a", "x");
    m.system.notify("ns/b", "x");
    await until(() => m.turns.length === 2);
    m.system.notify("ns/a", "x");
    m.system.forget(["ns/a"]);
    m.release();
    m.release();
    await sleep(20);
    assert.equal(m.turns.length, 2, "a forgotten actor does not run its pending turn");
    await m.system.stop();
  });
});
