// The list-watch loops as the watcher builds them: one per kind, each listing its own source with the flags' page
// size and handing the list to its kind's sink, then watching from the list's resourceVersion.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Registry } from "prom-client";
import { createLogger } from "../../common/src/logger.ts";
import type { KubeClient } from "../../common/src/kube.ts";
import type { KubeSource, ReflectorSink } from "./adapters/reflector.ts";
import { WATCHED_KINDS } from "./domain/objects.ts";
import type { WatchedKind } from "./domain/objects.ts";
import { listWatchLoops } from "./list-watch.ts";
import { createWatcherMetrics } from "./metrics.ts";
import { parseWatcherConfig } from "./config.ts";

/** A source with one page of `items` of its kind, whose watches stay open without events until aborted. */
function sourceStore(kind: WatchedKind) {
  const store = { limits: [] as number[], watchedFrom: [] as string[] };
  const source: KubeSource = {
    list: ({ limit }) => {
      store.limits.push(limit);
      return Promise.resolve({ items: [`${kind}-item`], resourceVersion: `${kind}-rv`, continueToken: undefined });
    },
    watch: ({ resourceVersion }, _onEvent, onDone) => {
      store.watchedFrom.push(resourceVersion);
      return Promise.resolve({ abort: () => onDone(undefined) });
    },
  };
  return { store, source };
}

describe("listWatchLoops", () => {
  it("runs one loop per kind over its own source, into its own kind's sink", async () => {
    const config = parseWatcherConfig(["--list-page-size", "7"]);
    const sources = Object.fromEntries(WATCHED_KINDS.map((kind) => [kind, sourceStore(kind)])) as Record<WatchedKind, ReturnType<typeof sourceStore>>;
    const replaced = new Map<WatchedKind, readonly unknown[]>();
    const synced: WatchedKind[] = [];
    const sink = {
      forKind: (kind: WatchedKind): ReflectorSink => ({ replace: (items) => replaced.set(kind, items), event: () => undefined }),
      synced: (kind: WatchedKind) => synced.push(kind),
    };
    const loops = listWatchLoops(config, {
      kube: {} as KubeClient,
      sink,
      metrics: createWatcherMetrics(new Registry()),
      logger: createLogger({ service: "watcher", instance: "test", level: "silent", format: "json" }),
      random: () => 0,
      sources: Object.fromEntries(WATCHED_KINDS.map((kind) => [kind, sources[kind].source])),
    });
    assert.equal(loops.length, WATCHED_KINDS.length);
    for (const loop of loops) loop.start();
    try {
      for (let i = 0; i < 200 && sources.rev.store.watchedFrom.length + sources.sts.store.watchedFrom.length < 2; i++) await sleep(5);
      assert.deepEqual([...synced].sort(), [...WATCHED_KINDS].sort());
      for (const kind of WATCHED_KINDS) {
        assert.deepEqual(replaced.get(kind), [`${kind}-item`]);
        assert.deepEqual(sources[kind].store.limits, [7]);
      }
      assert.deepEqual(sources.rev.store.watchedFrom, ["rev-rv"], "the watch resumes from its own list");
    } finally {
      await Promise.all(loops.map((loop) => loop.stop()));
    }
  });
});
