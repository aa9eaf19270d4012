// The list-watch loop against a scripted KubeSource (the habit of client-node's cache_test.ts with its fake Watch):
// every path of client-go's reflector that matters here, without an API server.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { Registry } from "prom-client";
import type { Counter } from "prom-client";
import { createLogger } from "../../../common/src/logger.ts";
import { createWatcherMetrics } from "../metrics.ts";
import type { WatcherMetrics } from "../metrics.ts";
import { Reflector } from "./reflector.ts";
import type { KubeSource, ListPage, ReflectorOptions, WatchHandle } from "./reflector.ts";

const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });

interface ScriptedWatch {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly emit: (type: string, object: unknown) => void;
  readonly end: (error?: unknown) => void;
  aborted: boolean;
}

class FakeSource implements KubeSource {
  readonly listCalls: { limit: number; continueToken: string | undefined }[] = [];
  readonly watches: ScriptedWatch[] = [];
  /** Answers for the next list calls; when empty, one page with `items` at `rv`. */
  readonly pages: (ListPage | Error)[] = [];
  /** Errors for the next watch calls (thrown before the stream starts); when empty the watch starts. */
  readonly watchFailures: unknown[] = [];
  items: unknown[] = [];
  rv = "100";

  list(options: { limit: number; continueToken: string | undefined }): Promise<ListPage> {
    this.listCalls.push({ limit: options.limit, continueToken: options.continueToken });
    const next = this.pages.shift();
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve(next ?? { items: this.items, resourceVersion: this.rv, continueToken: undefined });
  }

  watch(
    options: { resourceVersion: string; timeoutSeconds: number },
    onEvent: (type: string, object: unknown) => void,
    onDone: (error: unknown) => void,
  ): Promise<WatchHandle> {
    const failure = this.watchFailures.shift();
    if (failure !== undefined) {
      setImmediate(() => onDone(failure));
      return Promise.resolve({ abort: () => undefined });
    }
    let done = false;
    const watch: ScriptedWatch = {
      ...options,
      aborted: false,
      emit: (type, object) => {
        if (!done) onEvent(type, object);
      },
      end: (error) => {
        if (done) return;
        done = true;
        onDone(error ?? null);
      },
    };
    this.watches.push(watch);
    return Promise.resolve({
      abort: () => {
        watch.aborted = true;
        watch.end(new DOMException("aborted", "AbortError"));
      },
    });
  }
}

const gone = Object.assign(new Error("Gone"), { statusCode: 410 });
const obj = (name: string, rv: string) => ({ metadata: { name, namespace: "default", uid: `u-${name}`, resourceVersion: rv } });

async function eventually(check: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for: ${what}`);
    await sleep(2);
  }
}

async function value(counter: Counter<string>, labels: Record<string, string>): Promise<number> {
  const data = await counter.get();
  const match = data.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return match?.value ?? 0;
}

interface Harness {
  source: FakeSource;
  reflector: Reflector;
  metrics: WatcherMetrics;
  replaced: unknown[][];
  events: [string, unknown][];
}

function harness(options: Partial<ReflectorOptions> = {}, setup?: (source: FakeSource) => void): Harness {
  const source = new FakeSource();
  setup?.(source);
  const metrics = createWatcherMetrics(new Registry());
  const replaced: unknown[][] = [];
  const events: [string, unknown][] = [];
  const reflector = new Reflector({
    source,
    metrics,
    logger,
    sink: { replace: (items) => replaced.push([...items]), event: (type, object) => events.push([type, object]) },
    options: {
      kind: "pod",
      pageSize: 2,
      watchTimeoutSeconds: 300,
      stallTimeoutMs: 10_000,
      relistPeriodMs: 0,
      backoff: { initialDelayMs: 5, maxDelayMs: 20 },
      shortWatchMs: 0,
      ...options,
    },
  });
  reflector.start();
  return { source, reflector, metrics, replaced, events };
}

describe("Reflector (list-watch loop)", () => {
  it("lists page by page, hands the whole list over once, then watches from the list's resourceVersion with bookmarks", async () => {
    const h = harness({}, (source) => {
      source.pages.push(
        { items: [obj("a", "1"), obj("b", "2")], resourceVersion: "50", continueToken: "c1" },
        { items: [obj("c", "3")], resourceVersion: "50", continueToken: undefined },
      );
    });
    try {
      await eventually(() => h.source.watches.length === 1, "first watch");
      assert.deepEqual(h.source.listCalls, [
        { limit: 2, continueToken: undefined },
        { limit: 2, continueToken: "c1" },
      ]);
      assert.equal(h.replaced.length, 1);
      assert.equal(h.replaced[0]?.length, 3);
      assert.equal(h.reflector.synced, true);
      const watch = h.source.watches[0]!;
      assert.equal(watch.resourceVersion, "50");
      assert.ok(watch.timeoutSeconds >= 300 && watch.timeoutSeconds < 600, `timeoutSeconds ${watch.timeoutSeconds} in [300, 600)`);
      assert.equal(await value(h.metrics.relists, { kind: "pod", reason: "initial" }), 1);
    } finally {
      await h.reflector.stop();
    }
  });

  it("forwards events, keeps the resourceVersion fresh from bookmarks and resumes from it when the server ends the watch", async () => {
    const h = harness();
    try {
      await eventually(() => h.source.watches.length === 1, "first watch");
      const first = h.source.watches[0]!;
      first.emit("ADDED", obj("a", "101"));
      first.emit("MODIFIED", obj("a", "102"));
      first.emit("DELETED", obj("a", "103"));
      first.emit("BOOKMARK", { metadata: { resourceVersion: "150" } });
      assert.deepEqual(h.events.map(([type]) => type), ["ADDED", "MODIFIED", "DELETED"]);
      assert.equal(h.reflector.lastResourceVersion, "150");
      first.end();
      await eventually(() => h.source.watches.length === 2, "second watch");
      assert.equal(h.source.watches[1]!.resourceVersion, "150", "resumes from the bookmark, no relist");
      assert.equal(h.source.listCalls.length, 1);
      assert.equal(await value(h.metrics.watchRestarts, { kind: "pod", reason: "closed" }), 1);
      assert.equal(await value(h.metrics.watchEvents, { kind: "pod", type: "BOOKMARK" }), 1);
    } finally {
      await h.reflector.stop();
    }
  });

  it("relists on a 410 Gone ERROR event and on an HTTP 410 answer to the watch", async () => {
    const h = harness();
    try {
      await eventually(() => h.source.watches.length === 1, "first watch");
      h.source.rv = "200";
      h.source.watches[0]!.emit("ERROR", { kind: "Status", code: 410, reason: "Expired", message: "too old resource version" });
      await eventually(() => h.source.watches.length === 2, "watch after relist");
      assert.equal(h.source.listCalls.length, 2);
      assert.equal(h.replaced.length, 2);
      assert.equal(h.source.watches[1]!.resourceVersion, "200");
      assert.equal(h.source.watches[0]!.aborted, true, "the expired stream is closed");
      h.source.watchFailures.push(gone);
      h.source.rv = "300";
      h.source.watches[1]!.end();
      await eventually(() => h.source.watches.length === 3, "watch after the second relist");
      assert.equal(h.source.watches[2]!.resourceVersion, "300");
      assert.equal(await value(h.metrics.relists, { kind: "pod", reason: "gone" }), 2);
      assert.equal(await value(h.metrics.watchGone, { kind: "pod" }), 2);
    } finally {
      await h.reflector.stop();
    }
  });

  it("retries a failed watch from the same resourceVersion with backoff, without relisting", async () => {
    const h = harness();
    try {
      await eventually(() => h.source.watches.length === 1, "first watch");
      h.source.watchFailures.push(Object.assign(new Error("Internal Server Error"), { statusCode: 500 }), new Error("ECONNREFUSED"));
      h.source.watches[0]!.emit("ADDED", obj("a", "101"));
      h.source.watches[0]!.end(new Error("socket hang up"));
      await eventually(() => h.source.watches.length === 2, "watch after errors");
      assert.equal(h.source.watches[1]!.resourceVersion, "101");
      assert.equal(h.source.listCalls.length, 1);
      assert.equal(await value(h.metrics.watchRestarts, { kind: "pod", reason: "error" }), 3);
      // An ERROR event other than 410 is an error too.
      h.source.watches[1]!.emit("ERROR", { code: 500, reason: "InternalError" });
      await eventually(() => h.source.watches.length === 3, "watch after an ERROR event");
      assert.equal(h.source.watches[2]!.resourceVersion, "101");
    } finally {
      await h.reflector.stop();
    }
  });

  it("restarts a watch that stays silent longer than the stall timeout (watchdog)", async () => {
    const h = harness({ stallTimeoutMs: 60 });
    try {
      await eventually(() => h.source.watches.length >= 2, "watch restarted by the watchdog");
      assert.equal(h.source.watches[0]!.aborted, true);
      assert.equal(h.source.watches[1]!.resourceVersion, "100");
      assert.equal(h.source.listCalls.length, 1, "a stall resumes, it does not relist");
      assert.ok((await value(h.metrics.watchStalls, { kind: "pod" })) >= 1);
    } finally {
      await h.reflector.stop();
    }
  });

  it("keeps a watch that receives bookmarks alive past the stall timeout", async () => {
    const h = harness({ stallTimeoutMs: 80 });
    try {
      await eventually(() => h.source.watches.length === 1, "first watch");
      for (let i = 0; i < 6; i++) {
        await sleep(30);
        h.source.watches[0]!.emit("BOOKMARK", { metadata: { resourceVersion: String(101 + i) } });
      }
      assert.equal(h.source.watches.length, 1);
      assert.equal(await value(h.metrics.watchStalls, { kind: "pod" }), 0);
    } finally {
      await h.reflector.stop();
    }
  });

  it("relists periodically at a jittered moment", async () => {
    const h = harness({ relistPeriodMs: 40, random: () => 0.5 });
    try {
      await eventually(() => h.source.listCalls.length >= 3, "two periodic relists");
      assert.ok((await value(h.metrics.relists, { kind: "pod", reason: "periodic" })) >= 2);
      assert.ok(h.source.watches.slice(0, -1).every((w) => w.aborted));
    } finally {
      await h.reflector.stop();
    }
  });

  it("starts the list over when a continue token expires, and retries a failed list with backoff", async () => {
    const h = harness({}, (source) => {
      source.pages.push(
        { items: [obj("a", "1"), obj("b", "2")], resourceVersion: "50", continueToken: "c1" },
        gone,
        new Error("connection refused"),
        { items: [obj("a", "1"), obj("b", "2")], resourceVersion: "60", continueToken: "c2" },
        { items: [obj("c", "3")], resourceVersion: "60", continueToken: undefined },
      );
    });
    try {
      await eventually(() => h.source.watches.length === 1, "first watch");
      assert.deepEqual(
        h.source.listCalls.map((c) => c.continueToken),
        [undefined, "c1", undefined, undefined, "c2"],
      );
      assert.equal(h.replaced.length, 1, "partial lists never reach the sink");
      assert.equal(h.replaced[0]?.length, 3);
      assert.equal(h.source.watches[0]!.resourceVersion, "60");
      assert.equal(await value(h.metrics.relists, { kind: "pod", reason: "error" }), 1);
    } finally {
      await h.reflector.stop();
    }
  });

  it("refuses a list without a resourceVersion and keeps retrying", async () => {
    const h = harness({}, (source) => {
      source.pages.push({ items: [], resourceVersion: "", continueToken: undefined });
    });
    try {
      await eventually(() => h.source.watches.length === 1, "watch after a good list");
      assert.equal(h.source.listCalls.length, 2);
    } finally {
      await h.reflector.stop();
    }
  });

  it("stops promptly, in the middle of a watch", async () => {
    const h = harness();
    await eventually(() => h.source.watches.length === 1, "first watch");
    await h.reflector.stop();
    assert.equal(h.source.watches[0]!.aborted, true);
    await sleep(20);
    assert.equal(h.source.watches.length, 1);
  });
});
