// The data dir's format and replay (ADR 0095): records round-trip, a torn last record is dropped, damage before a
// valid record refuses to load, a snapshot plus the log's later writes rebuild the store, and the resourceVersion
// counter continues where the writes ended (a delete's version included).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../types.ts";
import { JournalError, decodeLog, decodeSnapshot, encodeChange, encodeSnapshotHeader, encodeSnapshotObject, replay } from "./journal.ts";
import type { StoreChange } from "./journal.ts";

function cm(name: string, rv: number, data = "x"): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", uid: `uid-${name}`, resourceVersion: String(rv) }, data: { k: data } };
}

const put = (obj: KubeObject): StoreChange => ({ op: "put", rv: Number(obj.metadata.resourceVersion), resourceKey: "/configmaps", json: JSON.stringify(obj) });
const del = (rv: number, key: string): StoreChange => ({ op: "delete", rv, resourceKey: "/configmaps", key });
const logOf = (...changes: StoreChange[]) => Buffer.from(changes.map(encodeChange).join(""));

describe("data dir format", () => {
  it("an empty log holds nothing and replays to an empty store at resourceVersion 0", () => {
    const log = decodeLog(Buffer.alloc(0));
    assert.deepEqual(log, { changes: [], validBytes: 0 });
    assert.deepEqual(replay(undefined, log), { rv: 0, objects: [] });
  });

  it("round-trips puts and deletes; the counter ends at the last write, a delete included", () => {
    const bytes = logOf(put(cm("a", 1)), put(cm("b", 2)), put(cm("a", 3, "y")), del(4, "default/b"));
    const log = decodeLog(bytes);
    assert.equal(log.validBytes, bytes.length);
    const state = replay(undefined, log);
    assert.equal(state.rv, 4);
    assert.deepEqual(state.objects, [{ resourceKey: "/configmaps", obj: cm("a", 3, "y") }]);
  });

  it("drops a torn last record (a partial line, or a whole line whose checksum fails) and says where the log ends", () => {
    const whole = logOf(put(cm("a", 1)), put(cm("b", 2)));
    const torn = encodeChange(put(cm("c", 3)));
    for (const tail of [torn.slice(0, 20), torn.slice(0, -1), `${torn.slice(0, -5)}xxxx\n`, "\0\0\0\0"]) {
      const log = decodeLog(Buffer.concat([whole, Buffer.from(tail)]));
      assert.equal(log.validBytes, whole.length, JSON.stringify(tail));
      assert.deepEqual(
        log.changes.map((c) => c.rv),
        [1, 2],
      );
    }
  });

  it("refuses a damaged record that valid records follow, and versions that do not increase", () => {
    const good = encodeChange(put(cm("a", 1)));
    const damaged = good.replace('"k":"x"', '"k":"z"');
    assert.throws(() => decodeLog(Buffer.from(damaged + encodeChange(put(cm("b", 2))))), (err: unknown) => err instanceof JournalError && err.code === "LOG_CORRUPT");
    assert.throws(() => decodeLog(logOf(put(cm("a", 2)), put(cm("b", 2)))), (err: unknown) => err instanceof JournalError && err.code === "LOG_CORRUPT");
  });

  it("a snapshot plus the log: writes at or below the snapshot's version are skipped, later ones applied in order", () => {
    const text = encodeSnapshotHeader(5, 2) + encodeSnapshotObject("/configmaps", JSON.stringify(cm("a", 3))) + encodeSnapshotObject("/configmaps", JSON.stringify(cm("b", 5)));
    const snapshot = decodeSnapshot(text);
    // rv 4 and 5 were already folded into the snapshot (a crash between its rename and the log's truncation).
    const log = decodeLog(logOf(put(cm("z", 4)), put(cm("b", 5)), put(cm("c", 6)), del(7, "default/a"), put(cm("b", 8, "new"))));
    const state = replay(snapshot, log);
    assert.equal(state.rv, 8);
    assert.deepEqual(
      state.objects.map((o) => [o.obj.metadata.name, o.obj.metadata.resourceVersion, o.obj.metadata.uid]),
      [
        ["c", "6", "uid-c"],
        ["b", "8", "uid-b"],
      ],
    );
  });

  it("a snapshot with a damaged object or a wrong count is refused", () => {
    const header = encodeSnapshotHeader(1, 1);
    assert.throws(() => decodeSnapshot(header), (err: unknown) => err instanceof JournalError && err.code === "SNAPSHOT_CORRUPT");
    const object = encodeSnapshotObject("/configmaps", JSON.stringify(cm("a", 1))).replace("uid-a", "uid-b");
    assert.throws(() => decodeSnapshot(header + object), (err: unknown) => err instanceof JournalError && err.code === "SNAPSHOT_CORRUPT");
    assert.throws(() => decodeSnapshot("garbage\n"), (err: unknown) => err instanceof JournalError && err.code === "SNAPSHOT_CORRUPT");
  });
});
