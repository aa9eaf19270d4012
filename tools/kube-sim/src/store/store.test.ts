// The store's resourceVersion and watch-window rules (the apiserver's watch cache: TestWatchCacheBasic,
// "too old resource version" in TestWatcherTimeout and friends).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { KubeObject } from "../types.ts";
import type { EventType } from "./store.ts";
import { ResourceVersionTooOldError, Store } from "./store.ts";

const fields = (_rk: string, obj: KubeObject) => ({ "metadata.name": obj.metadata.name ?? "", "metadata.namespace": obj.metadata.namespace ?? "" });
const cm = (name: string, ns = "a", labels?: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, uid: `uid-${name}`, ...(labels ? { labels } : {}) } });
const all = { namespace: undefined, matches: () => true };

describe("store", () => {
  it("gives every write, across resources, the next resourceVersion", () => {
    const store = new Store({ historyWindow: 10, fields });
    assert.equal(store.put("/configmaps", cm("x")).rv, 1);
    assert.equal(store.put("/pods", cm("p")).rv, 2);
    assert.equal(store.put("/configmaps", cm("x")).rv, 3);
    assert.equal(store.remove("/configmaps", cm("x"))?.rv, 4);
    assert.equal(store.currentRv, 4);
    assert.equal((JSON.parse(store.put("/configmaps", cm("y")).json) as KubeObject).metadata.resourceVersion, "5");
  });

  it("replays the events after a resourceVersion, then streams live ones", () => {
    const store = new Store({ historyWindow: 10, fields });
    store.put("/configmaps", cm("x"));
    store.put("/configmaps", cm("y"));
    const seen: string[] = [];
    const stop = store.watch("/configmaps", 1, all, (type: EventType, e) => seen.push(`${type} ${e.name} ${e.rv}`));
    store.put("/configmaps", cm("x"));
    store.remove("/configmaps", cm("y"));
    stop();
    store.put("/configmaps", cm("z"));
    assert.deepEqual(seen, ["ADDED y 2", "MODIFIED x 3", "DELETED y 4"]);
  });

  it("answers too old once an event after the version left the per-resource window", () => {
    const store = new Store({ historyWindow: 3, fields });
    for (let i = 0; i < 5; i++) store.put("/configmaps", cm(`c${i}`));
    store.put("/pods", cm("p"));
    assert.throws(() => store.watch("/configmaps", 1, all, () => undefined), (err: unknown) => {
      assert.ok(err instanceof ResourceVersionTooOldError);
      assert.equal(err.message, "too old resource version: 1 (2)");
      return true;
    });
    assert.doesNotThrow(() => store.watch("/configmaps", 2, all, () => undefined)());
    assert.doesNotThrow(() => store.watch("/pods", 0, all, () => undefined)(), "other resources keep their own window");
  });

  it("turns selector transitions into ADDED and DELETED", () => {
    const store = new Store({ historyWindow: 10, fields });
    const seen: string[] = [];
    store.watch("/configmaps", 0, { namespace: "a", matches: (e) => e.labels?.["on"] === "1" }, (type, e) => seen.push(`${type} ${e.name}`));
    store.put("/configmaps", cm("x", "a", { on: "0" }));
    store.put("/configmaps", cm("x", "a", { on: "1" }));
    store.put("/configmaps", cm("x", "a", { on: "1", more: "y" }));
    store.put("/configmaps", cm("x", "a", { on: "0" }));
    store.put("/configmaps", cm("other", "b", { on: "1" }));
    assert.deepEqual(seen, ["ADDED x", "MODIFIED x", "DELETED x"]);
  });

  it("keeps keys sorted per namespace and indexes owners", () => {
    const store = new Store({ historyWindow: 10, fields });
    for (const [ns, n] of [["b", "2"], ["a", "9"], ["a", "1"]] as const) store.put("/configmaps", cm(n, ns));
    assert.deepEqual(store.keys("/configmaps", undefined), ["a/1", "a/9", "b/2"]);
    assert.deepEqual(store.keys("/configmaps", "a"), ["a/1", "a/9"]);
    const dep = cm("dep");
    dep.metadata.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "1", uid: "uid-1" }];
    store.put("/configmaps", dep);
    assert.deepEqual(store.dependents("uid-1").map((d) => d.entry.name), ["dep"]);
    store.remove("/configmaps", dep);
    assert.deepEqual(store.dependents("uid-1"), []);
  });
  it("keeps the sorted keys of a resource and of each namespace sorted across creates and deletes after they were read", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.constantFrom("a", "b", "c-1"), fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,6}$/)), { maxLength: 60 }), (ops) => {
        const store = new Store({ historyWindow: 100, fields });
        const live = new Map<string, string>();
        for (const [create, ns, name] of ops) {
          // Reading between writes builds the cached arrays, so later writes must keep them in order.
          store.keys("/configmaps", undefined);
          store.keys("/configmaps", ns);
          if (create) {
            store.put("/configmaps", cm(name, ns));
            live.set(`${ns}/${name}`, ns);
          } else {
            store.remove("/configmaps", cm(name, ns));
            live.delete(`${ns}/${name}`);
          }
          const expected = [...live.keys()].sort();
          assert.deepEqual(store.keys("/configmaps", undefined), expected);
          assert.deepEqual(store.keys("/configmaps", ns), expected.filter((k) => live.get(k) === ns));
        }
      }),
    );
  });

  describe("seed", () => {
    const at = (obj: KubeObject, rv?: string): { resourceKey: string; obj: KubeObject } => ({
      resourceKey: "/configmaps",
      obj: rv === undefined ? obj : { ...obj, metadata: { ...obj.metadata, resourceVersion: rv } },
    });

    it("keeps recorded resourceVersions, numbers the rest after the highest, and writes continue above it", () => {
      const store = new Store({ historyWindow: 10, fields });
      store.put("/configmaps", cm("before"));
      const seen: string[] = [];
      store.watch("/configmaps", 1, all, (type, e) => seen.push(`${type} ${e.name} ${e.rv}`));
      const controller: string[] = [];
      store.subscribe((event) => controller.push(`${event.entry.name}:${String(store.count("/configmaps"))}`));
      const entries = store.seed([at(cm("set"), "197"), at(cm("pod"), "163"), at(cm("revision")), at(cm("claim"), "108")]);
      assert.deepEqual(entries.map((e) => [e.name, e.rv]), [["claim", 108], ["pod", 163], ["set", 197], ["revision", 198]]);
      assert.equal((JSON.parse(store.get("/configmaps", "a", "pod")?.json ?? "{}") as KubeObject).metadata.resourceVersion, "163");
      assert.equal(store.currentRv, 198);
      assert.deepEqual(seen, ["ADDED claim 108", "ADDED pod 163", "ADDED set 197", "ADDED revision 198"], "as creates, in resourceVersion order");
      assert.deepEqual(controller, ["claim:5", "pod:5", "set:5", "revision:5"], "every object is stored before the first event");
      assert.equal(store.put("/configmaps", cm("pod")).rv, 199);
    });

    it("refuses resourceVersions at or below the store's, given twice or not numbers, and existing keys, storing nothing", () => {
      const store = new Store({ historyWindow: 10, fields });
      store.put("/configmaps", cm("x"));
      store.put("/configmaps", cm("y"));
      for (const [objects, message] of [
        [[at(cm("a"), "2")], /resourceVersion 2 is not above the store's current 2/],
        [[at(cm("a"), "7"), at(cm("b"), "7")], /resourceVersion 7 is given twice/],
        [[at(cm("a"), "07")], /"07" is not a positive integer/],
        [[at(cm("a"), "9"), at(cm("x"), "10")], /x already exists/],
        [[at(cm("a"), "9"), at(cm("a"), "10")], /a already exists/],
      ] as const) {
        assert.throws(() => store.seed(objects), message);
        assert.equal(store.currentRv, 2);
        assert.equal(store.count("/configmaps"), 2);
      }
    });
  });
});
