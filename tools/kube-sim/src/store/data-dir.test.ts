// A store on a data dir (ADR 0095): what was synced comes back after reopening, through the log and through a
// snapshot that empties it; a torn tail is cut off on open; a restored store answers 410 to watches from before
// the restart and continues resourceVersions above the highest loaded.
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { KubeObject } from "../types.ts";
import { DataDir, LOG_FILE, SNAPSHOT_FILE } from "./data-dir.ts";
import { extractFields } from "./fields.ts";
import { ResourceVersionTooOldError, Store } from "./store.ts";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kube-sim-data-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function openStore(options: { snapshotMinLogBytes?: number } = {}): { store: Store; data: DataDir } {
  const data = DataDir.open(dir, options);
  const store = new Store({ historyWindow: 100, fields: extractFields });
  store.restore(data.loaded);
  data.attach(() => store.snapshotSource());
  store.attachJournal(data);
  return { store, data };
}

const cm = (name: string, value = "v"): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", uid: `uid-${name}` }, data: { k: value } });

function contents(store: Store): string[] {
  return store.keys("/configmaps", undefined).map((k) => store.getByKey("/configmaps", k)?.json ?? "");
}

describe("DataDir with a store", () => {
  it("restores synced writes: objects, uids, resourceVersions and the counter after a delete", () => {
    const first = openStore();
    first.store.put("/configmaps", cm("a"));
    first.store.put("/configmaps", cm("b"));
    first.store.put("/configmaps", cm("a", "changed"));
    const removed = first.store.get("/configmaps", "default", "b");
    assert.ok(removed);
    first.store.remove("/configmaps", JSON.parse(removed.json) as KubeObject);
    first.data.sync();
    const before = contents(first.store);
    // No close(): as after a crash, only the log holds the writes.
    const second = openStore();
    assert.deepEqual(contents(second.store), before);
    assert.equal(second.store.currentRv, 4);
    assert.equal(second.store.put("/configmaps", cm("c")).rv, 5);
  });

  it("folds the log into a snapshot once it outgrows it, and loads from the snapshot", () => {
    const first = openStore({ snapshotMinLogBytes: 1 });
    for (let i = 0; i < 20; i++) {
      first.store.put("/configmaps", cm(`cm-${i}`));
      first.data.sync();
    }
    assert.ok(statSync(join(dir, SNAPSHOT_FILE)).size > 0);
    assert.ok(statSync(join(dir, LOG_FILE)).size < statSync(join(dir, SNAPSHOT_FILE)).size);
    const before = contents(first.store);
    first.data.close();
    assert.equal(statSync(join(dir, LOG_FILE)).size, 0);
    const second = openStore();
    assert.deepEqual(contents(second.store), before);
    assert.equal(second.store.currentRv, 20);
  });

  it("cuts a torn tail off the log on open, so the next append starts a whole record", () => {
    const first = openStore();
    first.store.put("/configmaps", cm("a"));
    first.data.sync();
    appendFileSync(join(dir, LOG_FILE), '1234abcd {"rv":2,"op":"put"');
    const second = openStore();
    assert.equal(second.store.count("/configmaps"), 1);
    second.store.put("/configmaps", cm("b"));
    second.data.sync();
    assert.doesNotMatch(readFileSync(join(dir, LOG_FILE), "utf8"), /1234abcd/);
    const third = openStore();
    assert.equal(third.store.count("/configmaps"), 2);
    assert.equal(third.store.currentRv, 2);
  });

  it("a restored store sends watches from before the restart away with 410 and serves those from its version on", () => {
    const first = openStore();
    for (const name of ["a", "b", "c"]) first.store.put("/configmaps", cm(name));
    first.data.sync();
    const second = openStore();
    const filter = { namespace: undefined, matches: () => true };
    assert.throws(() => second.store.watch("/configmaps", 1, filter, () => undefined), ResourceVersionTooOldError);
    assert.throws(() => second.store.watch("/secrets", 2, filter, () => undefined), ResourceVersionTooOldError);
    const seen: number[] = [];
    second.store.watch("/configmaps", 3, filter, (_type, entry) => seen.push(entry.rv));
    second.store.put("/configmaps", cm("d"));
    assert.deepEqual(seen, [4]);
  });

  it("tells the controllers about restored objects once, in resourceVersion order", () => {
    const first = openStore();
    for (const name of ["a", "b"]) first.store.put("/configmaps", cm(name));
    first.data.sync();
    const second = openStore();
    const seen: string[] = [];
    second.store.subscribe((event) => seen.push(`${event.type} ${event.entry.name} ${event.rv}`));
    second.store.announceRestored();
    second.store.announceRestored();
    assert.deepEqual(seen, ["ADDED a 1", "ADDED b 2"]);
  });
});
