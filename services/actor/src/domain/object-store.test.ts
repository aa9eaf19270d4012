import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { isMemberOf, shard as shardOf } from "#protocol";
import type { ObjectEnvelope } from "#protocol";
import type { StatefulSet } from "../planner/index.ts";
import { isMet } from "./expectations.ts";
import { ObjectStore } from "./object-store.ts";
import { claimOwners } from "./set-owners.ts";
import type { CachedObject } from "./object-store.ts";

let rv = 0;
function put(kind: ObjectEnvelope["kind"], name: string, extra: Record<string, unknown> = {}, uid = `${kind}-${name}`): ObjectEnvelope {
  rv++;
  const metadata = { name, namespace: "ns", uid, resourceVersion: String(rv), ...(extra["metadata"] as object | undefined) };
  return {
    type: "object.put",
    kind,
    namespace: "ns",
    name,
    uid,
    resourceVersion: String(rv),
    object: { apiVersion: "v1", kind, ...extra, metadata },
  };
}

const web = put("StatefulSet", "web", {
  spec: { selector: { matchLabels: { app: "web" } }, volumeClaimTemplates: [{ metadata: { name: "data" } }] },
});
const db = put("StatefulSet", "db", { spec: { selector: { matchLabels: { app: "db" } } } });
const owned = (setName: string) => ({ ownerReferences: [{ kind: "StatefulSet", name: setName, uid: `StatefulSet-${setName}`, controller: true }] });

describe("ObjectStore", () => {
  it("routes changes to the sets they concern, as upstream's event handlers do", () => {
    const store = new ObjectStore();
    assert.deepEqual(store.apply(1, web).affected, ["ns/web"]);
    store.apply(2, db);
    // Owned pod: only its controller.
    assert.deepEqual(store.apply(1, put("Pod", "web-0", { metadata: { labels: { app: "web" }, ...owned("web") } })).affected, ["ns/web"]);
    // Orphan: every set whose selector matches.
    assert.deepEqual(store.apply(1, put("Pod", "stray", { metadata: { labels: { app: "db" } } })).affected, ["ns/db"]);
    // A pod controlled by something else concerns no set.
    assert.deepEqual(
      store.apply(1, put("Pod", "rs-pod", { metadata: { labels: { app: "web" }, ownerReferences: [{ kind: "ReplicaSet", name: "rs", uid: "x", controller: true }] } })).affected,
      [],
    );
    // Claims by their <template>-<set>-<ordinal> name, or their pod owner.
    assert.deepEqual(store.apply(1, put("PersistentVolumeClaim", "data-web-3")).affected, ["ns/web"]);
    assert.deepEqual(
      store.apply(1, put("PersistentVolumeClaim", "x", { metadata: { ownerReferences: [{ kind: "Pod", name: "web-7", uid: "p", controller: true }] } })).affected,
      ["ns/web"],
    );
    // An adoption moves the pod: old and new owners are both told.
    store.apply(1, put("Pod", "moving", { metadata: { labels: { app: "db" }, ...owned("web") } }, "moving"));
    const adopted = store.apply(1, put("Pod", "moving", { metadata: { labels: { app: "db" }, ...owned("db") } }, "moving"));
    assert.deepEqual([...adopted.affected].sort(), ["ns/db", "ns/web"]);
  });

  it("builds snapshots with owned and orphan candidates and the set's claims only", () => {
    const store = new ObjectStore();
    store.apply(1, web);
    store.apply(1, put("Pod", "web-0", { metadata: owned("web") }));
    store.apply(1, put("Pod", "orphan", {}));
    store.apply(2, put("Pod", "db-0", { metadata: owned("db") }));
    store.apply(1, put("PersistentVolumeClaim", "data-web-0"));
    store.apply(1, put("PersistentVolumeClaim", "data-other-0"));
    store.apply(1, put("ControllerRevision", "web-abc", { metadata: owned("web") }));
    const snapshot = store.snapshot("ns/web");
    assert.ok(snapshot);
    assert.deepEqual(snapshot.pods.map((p) => p.metadata?.name).sort(), ["orphan", "web-0"]);
    assert.deepEqual(snapshot.claims.map((c) => c.metadata?.name), ["data-web-0"]);
    assert.deepEqual(snapshot.revisions.map((r) => r.metadata?.name), ["web-abc"]);
    assert.equal(store.snapshot("ns/missing"), undefined);
  });

  it("keeps an object that moved to another owned shard when its old shard publishes a tombstone", () => {
    const store = new ObjectStore();
    const orphan = put("Pod", "stray", { metadata: { labels: { app: "db" } } }, "stray-uid");
    store.apply(1, orphan);
    store.apply(2, { ...orphan, resourceVersion: "99" });
    store.apply(1, { type: "object.delete", kind: "Pod", namespace: "ns", name: "stray", uid: "stray-uid", resourceVersion: "99" });
    assert.ok(store.get("Pod", "ns", "stray"), "still held by shard 2");
    store.apply(2, { type: "object.delete", kind: "Pod", namespace: "ns", name: "stray", uid: "stray-uid", resourceVersion: "100" });
    assert.equal(store.get("Pod", "ns", "stray"), undefined);
  });

  it("applies tombstones only for the same incarnation and forgets a dropped shard", () => {
    const store = new ObjectStore();
    store.apply(1, web);
    const pod = put("Pod", "web-0", { metadata: owned("web") }, "uid-1");
    store.apply(1, pod);
    const staleTombstone: ObjectEnvelope = { type: "object.delete", kind: "Pod", namespace: "ns", name: "web-0", uid: "uid-0", resourceVersion: "1" };
    assert.equal(store.apply(1, staleTombstone).changed, false);
    assert.ok(store.get("Pod", "ns", "web-0"));
    assert.equal(isMet({ type: "gone", kind: "Pod", namespace: "ns", name: "web-0", uid: "uid-1" }, store.get.bind(store)), false);
    store.apply(1, { ...staleTombstone, uid: "uid-1" });
    assert.equal(isMet({ type: "gone", kind: "Pod", namespace: "ns", name: "web-0", uid: "uid-1" }, store.get.bind(store)), true);
    assert.deepEqual(store.dropShard(1), ["ns/web"]);
    assert.equal(store.get("StatefulSet", "ns", "web"), undefined);
    assert.equal(store.setCount(), 0);
  });
});

describe("ObjectStore unreadable subjects (ADR 0088)", () => {
  const S = shardOf("ns", "web");
  const subjectOf = (kind: ObjectEnvelope["kind"], name: string, namespace = "ns") => ({ shard: S, kind, namespace, name });

  it("an unreadable subject of an object the store does not hold makes the sets of its shard and namespace incomplete", () => {
    const store = new ObjectStore();
    store.apply(S, web);
    store.apply(S, put("Pod", "web-0", { metadata: owned("web") }));
    assert.equal(store.isIncomplete("ns/web"), false);
    // The replay of a new owner: web-1's subject holds garbage, so the store has no value for it.
    assert.equal(store.markUnreadable(subjectOf("Pod", "web-1")), true);
    assert.equal(store.isIncomplete("ns/web"), true);
    assert.equal(store.unreadableCount(), 1);
    assert.deepEqual(store.snapshot("ns/web")?.pods.map((p) => p.metadata?.name), ["web-0"], "the snapshot alone cannot tell");
    // Another namespace of the same shard is not concerned.
    assert.equal(store.isIncomplete("other/web"), false);
    // Marked twice (the four garbage payloads): one entry.
    store.markUnreadable(subjectOf("Pod", "web-1"));
    assert.equal(store.unreadableCount(), 1);
    // The watcher publishes the pod again: known, and the set is told.
    const pod = put("Pod", "web-1", { metadata: owned("web") });
    store.apply(S, pod);
    assert.deepEqual(store.markReadable(subjectOf("Pod", "web-1")), { wasUnreadable: true, unblocked: ["ns/web"] });
    assert.equal(store.isIncomplete("ns/web"), false);
    assert.deepEqual(store.markReadable(subjectOf("Pod", "web-1")), { wasUnreadable: false, unblocked: [] });
  });

  it("keeps what it holds of an object whose subject became unreadable, without blocking", () => {
    const store = new ObjectStore();
    store.apply(S, web);
    store.apply(S, put("Pod", "web-0", { metadata: owned("web") }));
    assert.equal(store.markUnreadable(subjectOf("Pod", "web-0")), false);
    assert.equal(store.isIncomplete("ns/web"), false);
    assert.ok(store.get("Pod", "ns", "web-0"), "garbage says nothing about the object: the last value stays");
    assert.equal(store.unreadableCount(), 1, "still to be repaired in the stream");
    assert.deepEqual(store.markReadable(subjectOf("Pod", "web-0")), { wasUnreadable: true, unblocked: [] });
  });

  it("lists sets whose own subject is unreadable (a takeover fences them) and forgets a dropped shard's marks", () => {
    const store = new ObjectStore();
    store.markUnreadable(subjectOf("StatefulSet", "web"));
    store.markUnreadable(subjectOf("Pod", "web-0"));
    assert.deepEqual(store.unreadableSetsInShard(S), ["ns/web"]);
    assert.deepEqual(store.unreadableSetsInShard((S + 1) % 256), []);
    store.dropShard(S);
    assert.equal(store.unreadableCount(), 0);
    assert.deepEqual(store.unreadableSetsInShard(S), []);
  });

  it("unblocks once the last unknown subject of the shard and namespace is known, when the watcher says it holds nothing too", () => {
    const store = new ObjectStore();
    store.apply(S, web);
    store.markUnreadable(subjectOf("Pod", "stray"));
    store.markUnreadable(subjectOf("ControllerRevision", "web-abc"));
    assert.deepEqual(store.markReadable(subjectOf("Pod", "stray")).unblocked, [], "the revision is still unknown");
    assert.equal(store.isIncomplete("ns/web"), true);
    assert.deepEqual(store.markReadable(subjectOf("ControllerRevision", "web-abc")).unblocked, ["ns/web"]);
    assert.equal(store.isIncomplete("ns/web"), false);
  });
});

describe("claimOwners", () => {
  // The scan it replaced (every set of the namespace, every template): the sets a claim name belongs to.
  const byScan = (sets: ReadonlyMap<string, CachedObject>, claim: string): string[] =>
    [...sets]
      .filter(([setName, set]) =>
        ((set.object as StatefulSet).spec?.volumeClaimTemplates ?? []).some((t) => {
          const prefix = `${t.metadata?.name ?? ""}-`;
          return claim.startsWith(prefix) && isMemberOf(setName, claim.slice(prefix.length));
        }),
      )
      .map(([setName]) => setName);
  const cachedSet = (name: string, templates: readonly string[]): [string, CachedObject] => [
    name,
    { kind: "StatefulSet", namespace: "ns", name, uid: name, resourceVersion: "1", object: { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name }, spec: { volumeClaimTemplates: templates.map((t) => ({ metadata: { name: t } })) } } },
  ];

  it("finds the set by name, dashes in template and set names included", () => {
    const sets = new Map([cachedSet("web", ["data"]), cachedSet("data-web", ["x"]), cachedSet("a-b", ["my-data", "logs"])]);
    assert.deepEqual(claimOwners(sets, "data-web-3"), ["web"]);
    assert.deepEqual(claimOwners(sets, "x-data-web-0"), ["data-web"]);
    assert.deepEqual(claimOwners(sets, "my-data-a-b-12"), ["a-b"]);
    assert.deepEqual(claimOwners(sets, "logs-a-b-0"), ["a-b"]);
    assert.deepEqual(claimOwners(sets, "other-web-1"), [], "no template named other");
    assert.deepEqual(claimOwners(sets, "data-web-x"), [], "no ordinal");
  });

  it("agrees with a scan of every set (property)", () => {
    const part = fc.constantFrom("a", "b", "web", "data", "a-b", "0", "1");
    const name = fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("-"));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.array(name, { maxLength: 3 })), { maxLength: 6 }),
        fc.array(part, { minLength: 1, maxLength: 6 }),
        (setSpecs, claimParts) => {
          const sets = new Map(setSpecs.map(([setName, templates]) => cachedSet(setName, templates)));
          const claim = claimParts.join("-");
          assert.deepEqual([...claimOwners(sets, claim)].sort(), byScan(sets, claim).sort());
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("ObjectStore snapshot claims", () => {
  it("are the claims named <template>-<set>-<ordinal>, after puts, deletes and a dropped shard (property)", () => {
    const part = fc.constantFrom("a", "web", "data", "a-b", "0", "1", "x");
    const name = fc.array(part, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("-"));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, fc.array(name, { maxLength: 2 })), { minLength: 1, maxLength: 4 }),
        fc.array(fc.tuple(name, fc.constantFrom("put", "delete"), fc.integer({ min: 1, max: 3 })), { maxLength: 20 }),
        fc.option(fc.integer({ min: 1, max: 3 })),
        (setSpecs, claimOps, droppedShard) => {
          const store = new ObjectStore();
          // Sets on shard 0, which is never dropped; claims on shards 1-3.
          for (const [setName, templates] of setSpecs) {
            store.apply(0, put("StatefulSet", setName, { spec: { volumeClaimTemplates: templates.map((t) => ({ metadata: { name: t } })) } }, `set-${setName}`));
          }
          const held = new Map<string, number>();
          for (const [claim, op, shard] of claimOps) {
            if (op === "put") {
              store.apply(shard, put("PersistentVolumeClaim", claim, {}, `claim-${claim}`));
              held.set(claim, shard);
            } else {
              store.apply(shard, { type: "object.delete", kind: "PersistentVolumeClaim", namespace: "ns", name: claim, uid: `claim-${claim}`, resourceVersion: "0" });
              if (held.get(claim) === shard) held.delete(claim);
            }
          }
          if (droppedShard !== null) {
            store.dropShard(droppedShard);
            for (const [claim, shard] of held) if (shard === droppedShard) held.delete(claim);
          }
          for (const [setName, templates] of new Map(setSpecs)) {
            const expected = [...held.keys()].filter((claim) =>
              templates.some((t) => claim.startsWith(`${t}-`) && isMemberOf(setName, claim.slice(t.length + 1))),
            );
            const got = store.snapshot(`ns/${setName}`)?.claims.map((c) => c.metadata?.name ?? "") ?? [];
            assert.deepEqual([...got].sort(), expected.sort(), `set ${setName}`);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

