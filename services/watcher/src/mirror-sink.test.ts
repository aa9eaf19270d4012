// The mirror sink: what lists and watch events do to the mirror, its gauges and the publisher, without NATS or an
// API server (the publisher's kick is a counter, logs are kept as lines).
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import { Registry } from "prom-client";
import type { Counter, Gauge } from "prom-client";
import { rawPod, rawSet } from "#test-support/watcher-fixtures.ts";
import { createLogger } from "../../common/src/logger.ts";
import { EventContexts } from "./adapters/event-contexts.ts";
import { WATCHED_KINDS } from "./domain/objects.ts";
import { createWatcherMetrics } from "./metrics.ts";
import { MirrorSink, createMirrorState, watchScope } from "./mirror-sink.ts";

async function value(metric: Counter<string> | Gauge<string>, labels: Record<string, string> = {}): Promise<number> {
  const data = await metric.get();
  return data.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

function sinkOver(options: { synced?: boolean } = {}) {
  const metrics = createWatcherMetrics(new Registry());
  const state = createMirrorState(undefined, metrics);
  if (options.synced) {
    for (const kind of WATCHED_KINDS) state.markSynced(kind);
    state.ledger.activate([]);
  }
  const lines: { msg: string; reason?: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line) lines.push(JSON.parse(line) as { msg: string });
      done();
    },
  });
  const logger = createLogger({ service: "watcher", instance: "test", level: "info", format: "json", destination });
  const contexts = new EventContexts();
  const kicks = { count: 0 };
  const sink = new MirrorSink({ state, metrics, logger, tracer: trace.getTracer("test"), contexts, kick: () => kicks.count++ });
  return { sink, state, metrics, lines, contexts, kicks };
}

/** `web-0` of set `web` at `rv`; `bound` adds what the scheduler writes, which no owner reads (ADR 0090). */
function webPod(rv: string, bound = false): Record<string, unknown> {
  const raw = rawPod("web-0", { rv, labels: { app: "web" }, owners: [{ kind: "StatefulSet", name: "web", controller: true }] });
  return bound ? { ...raw, spec: { ...(raw["spec"] as object), nodeName: "node-1" } } : raw;
}

describe("MirrorSink", () => {
  it("counts every object it cannot mirror, logs once per kind and reason, and applies the rest of the list", async () => {
    const { sink, state, metrics, lines, kicks } = sinkOver();
    sink.replace("pod", [rawPod("a"), { metadata: {} }, { metadata: {} }, "garbage"]);
    assert.equal(state.count("pod"), 1);
    assert.equal(await value(metrics.objects, { kind: "pod" }), 1);
    assert.equal(await value(metrics.rejectedObjects, { kind: "pod", reason: "no-name" }), 2);
    assert.equal(await value(metrics.rejectedObjects, { kind: "pod", reason: "not-an-object" }), 1);
    assert.equal(kicks.count, 1, "one kick per list");

    sink.forKind("pod").event("ADDED", { metadata: {} });
    assert.equal(await value(metrics.rejectedObjects, { kind: "pod", reason: "no-name" }), 3);
    assert.equal(kicks.count, 1, "a rejected event changes nothing");
    const warnings = lines.filter((l) => l.msg.startsWith("object from the API server ignored")).map((l) => l.reason);
    assert.deepEqual(warnings, ["no-name", "not-an-object"]);
  });

  it("applies watch events, keeps the event's trace context while a publish is owed, and kicks the publisher", async () => {
    const { sink, state, metrics, contexts, kicks } = sinkOver({ synced: true });
    const sts = sink.forKind("sts");
    sts.event("ADDED", rawSet("web", { rv: "1" }));
    assert.equal(state.get("sts", "default", "web")?.resourceVersion, "1");
    assert.equal(contexts.size, 1, "the set's PUT is owed");
    sts.event("MODIFIED", rawSet("web", { rv: "2" }));
    assert.equal(state.get("sts", "default", "web")?.resourceVersion, "2");
    assert.equal(await value(metrics.objects, { kind: "sts" }), 1);
    sts.event("DELETED", rawSet("web", { rv: "3" }));
    assert.equal(state.count("sts"), 0);
    assert.equal(await value(metrics.objects, { kind: "sts" }), 0);
    assert.equal(kicks.count, 3);
  });

  it("counts a quiet change as mirrored and not published (ADR 0090)", async () => {
    const { sink, state, metrics } = sinkOver({ synced: true });
    sink.forKind("sts").event("ADDED", rawSet("web"));
    const pods = sink.forKind("pod");
    pods.event("ADDED", webPod("1"));
    for (let command = state.ledger.next(); command; command = state.ledger.next()) {
      state.ledger.acked(command, { seq: command.expectedSeq + 1, duplicate: false, atMs: 0 });
    }
    pods.event("MODIFIED", webPod("2", true));
    assert.equal(await value(metrics.quietChanges, { kind: "pod" }), 1);
    assert.equal(state.get("pod", "default", "web-0")?.resourceVersion, "2", "the mirror has the new version");
    assert.equal(state.ledger.pending, 0, "and owes no publish for it");
  });

  it("marks the mirror synced once the first list of every kind is in, and kicks the publisher then", async () => {
    const { sink, state, metrics, lines, kicks } = sinkOver();
    for (const kind of WATCHED_KINDS.slice(0, -1)) sink.synced(kind);
    assert.equal(state.synced, false);
    assert.equal(await value(metrics.synced), 0);
    assert.equal(kicks.count, 0);
    sink.synced(WATCHED_KINDS.at(-1) ?? "rev");
    assert.equal(state.synced, true);
    assert.equal(await value(metrics.synced), 1);
    assert.equal(kicks.count, 1);
    assert.equal(lines.filter((l) => l.msg === "initial lists synced").length, 1);
  });

  it("scopes the mirror to --namespace, or to every namespace without it", () => {
    assert.equal(watchScope("a")("a"), true);
    assert.equal(watchScope("a")("b"), false);
    assert.equal(watchScope(undefined)("b"), true);
  });
});
