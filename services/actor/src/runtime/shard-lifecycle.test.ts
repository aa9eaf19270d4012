import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { shard as shardOf } from "#protocol";
import type { Intent, ObjectEnvelope, SetAddress } from "#protocol";
import { createLogger } from "../../../common/src/logger.ts";
import { ObjectStore, setKey } from "../domain/object-store.ts";
import type { SetKey } from "../domain/object-store.ts";
import { FencedError } from "./intents.ts";
import { ShardLifecycle } from "./shard-lifecycle.ts";

const logger = createLogger({ service: "actor", instance: "test", level: "silent", format: "json" });

function set(name: string): ObjectEnvelope {
  const metadata = { name, namespace: "ns", uid: `uid-${name}`, resourceVersion: "1" };
  return { type: "object.put", kind: "StatefulSet", namespace: "ns", name, uid: metadata.uid, resourceVersion: "1", object: { apiVersion: "apps/v1", kind: "StatefulSet", metadata } };
}

/** The member's world as stores: open feeds, live actors, held epochs, the intent log, per-set records. */
function world(options: { openFails?: boolean; fenceTakeovers?: boolean } = {}) {
  const store = new ObjectStore();
  const feeds = new Set<number>();
  const actors = new Map<SetKey, string[]>();
  const epochs = new Map<number, number>();
  const log: Intent[] = [];
  const records = new Set<SetKey>();
  const moved = { gained: 0, lost: 0 };
  const lifecycle = new ShardLifecycle({
    intake: {
      open: (shard) => (options.openFails ? Promise.reject(new Error("no JetStream")) : Promise.resolve(void feeds.add(shard))),
      close: (shard) => Promise.resolve(void feeds.delete(shard)),
    },
    store,
    actors: {
      notify: (key, reason) => void actors.set(key, [...(actors.get(key) ?? []), reason]),
      forget: (keys) => {
        for (const key of keys) actors.delete(key);
      },
      drain: (keys) => Promise.resolve(keys.forEach((key) => actors.delete(key))),
    },
    setRecords: [{ forget: (keys) => [...keys].forEach((key) => records.delete(key)) }],
    rereads: { dropShard: () => undefined },
    intents: {
      append: (address: SetAddress, intent: Intent) =>
        options.fenceTakeovers ? Promise.reject(new FencedError(`intent.${address.shard}`, 1, 2)) : Promise.resolve(void log.push(intent)),
      forgetShard: () => undefined,
    },
    holder: {
      epochOf: (shard) => epochs.get(shard),
      giveUp: (shard, epoch) => epochs.get(shard) === epoch && epochs.delete(shard),
      incarnation: "i1",
    },
    member: "actor-0",
    logger,
    metrics: { shardsMoved: (direction, count) => (moved[direction] += count) },
  });
  return { store, feeds, actors, epochs, log, records, moved, lifecycle };
}

const web = setKey("ns", "web");
const shard = shardOf("ns", "web");

describe("ShardLifecycle", () => {
  it("serves a gained shard once its feed replayed and every set got a takeover intent, then starts their turns", async () => {
    const w = world();
    w.epochs.set(shard, 3);
    w.lifecycle.gained(new Map([[shard, 3]]));
    await sleep(0);
    assert.ok(w.feeds.has(shard), "the feed is open");
    assert.equal(w.lifecycle.signalFor(shard)?.aborted, false);
    assert.equal(w.lifecycle.isSynced(shard), false, "not served before the replay is done");
    w.store.apply(shard, set("web"));
    w.lifecycle.synced(shard);
    await sleep(0);
    assert.deepEqual(w.log, [{ type: "intent.takeover", shard, epoch: 3, member: "actor-0", incarnation: "i1" }]);
    assert.equal(w.lifecycle.isSynced(shard), true);
    assert.deepEqual([...w.lifecycle.syncedShards()], [shard]);
    assert.deepEqual(w.actors.get(web), ["takeover"]);
    assert.deepEqual(w.moved, { gained: 1, lost: 0 });
  });

  it("on a loss aborts the shard's turns, closes its feed and forgets its sets everywhere", async () => {
    const w = world();
    w.epochs.set(shard, 3);
    w.lifecycle.gained(new Map([[shard, 3]]));
    w.store.apply(shard, set("web"));
    w.records.add(web);
    w.lifecycle.synced(shard);
    await sleep(0);
    const signal = w.lifecycle.signalFor(shard);
    w.lifecycle.lost([shard]);
    assert.equal(signal?.aborted, true);
    assert.equal(w.lifecycle.signalFor(shard), undefined);
    assert.equal(w.lifecycle.isSynced(shard), false);
    assert.equal(w.feeds.has(shard), false);
    assert.equal(w.store.setCount(), 0);
    assert.equal(w.actors.has(web), false);
    assert.equal(w.records.has(web), false);
    assert.deepEqual(w.moved, { gained: 1, lost: 1 });
  });

  it("drains a shard released gracefully: feed closed, the turns of its sets finished", async () => {
    const w = world();
    w.lifecycle.gained(new Map([[shard, 3]]));
    w.store.apply(shard, set("web"));
    w.actors.set(web, ["pod"]);
    await w.lifecycle.drain(shard);
    assert.equal(w.feeds.has(shard), false);
    assert.equal(w.actors.has(web), false);
  });

  it("gives the shard up when its feed cannot be opened, or the log fences its takeover", async () => {
    const unopened = world({ openFails: true });
    unopened.epochs.set(shard, 3);
    unopened.lifecycle.gained(new Map([[shard, 3]]));
    await sleep(0);
    assert.equal(unopened.epochs.has(shard), false, "given up at its epoch");

    const fenced = world({ fenceTakeovers: true });
    fenced.epochs.set(shard, 3);
    fenced.lifecycle.gained(new Map([[shard, 3]]));
    fenced.store.apply(shard, set("web"));
    fenced.lifecycle.synced(shard);
    await sleep(0);
    assert.equal(fenced.epochs.has(shard), false, "given up at its epoch");
    assert.equal(fenced.lifecycle.isSynced(shard), false, "never served");
  });
});
