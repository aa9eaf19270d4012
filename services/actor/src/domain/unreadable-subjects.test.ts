import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UnreadableSubjects } from "./unreadable-subjects.ts";
import type { SubjectRef } from "./unreadable-subjects.ts";

const pod = (name: string, shard = 4, namespace = "ns"): SubjectRef => ({ shard, kind: "Pod", namespace, name });
const set = (name: string, shard = 4, namespace = "ns"): SubjectRef => ({ shard, kind: "StatefulSet", namespace, name });

describe("UnreadableSubjects", () => {
  it("blocks a shard and namespace while a subject of an object the cache does not hold is unknown, not one it holds", () => {
    const unreadable = new UnreadableSubjects();
    assert.equal(unreadable.any, false);
    assert.equal(unreadable.mark(pod("held"), true), false, "the cached value stays: nothing is missing");
    assert.equal(unreadable.blocks(4, "ns"), false);
    assert.equal(unreadable.mark(pod("web-0"), false), true);
    assert.equal(unreadable.mark(pod("web-0"), true), true, "marked again: it keeps blocking");
    assert.equal(unreadable.blocks(4, "ns"), true);
    assert.equal(unreadable.blocks(4, "other"), false);
    assert.equal(unreadable.blocks(5, "ns"), false);
    assert.equal(unreadable.count(), 2);
  });

  it("unblocks with the last blocking subject known again, and says so once", () => {
    const unreadable = new UnreadableSubjects();
    unreadable.mark(pod("web-0"), false);
    unreadable.mark(pod("web-1"), false);
    assert.deepEqual(unreadable.clear(pod("web-0")), { wasUnreadable: true, unblocks: false });
    assert.deepEqual(unreadable.clear(pod("web-1")), { wasUnreadable: true, unblocks: true });
    assert.deepEqual(unreadable.clear(pod("web-1")), { wasUnreadable: false, unblocks: false });
    assert.equal(unreadable.any, false);
  });

  it("lists the sets of a shard whose own subject is unknown, and forgets a dropped shard", () => {
    const unreadable = new UnreadableSubjects();
    unreadable.mark(set("web"), false);
    unreadable.mark(set("db"), true);
    unreadable.mark(set("api", 9), false);
    assert.deepEqual(unreadable.setsInShard(4), ["ns/web"]);
    unreadable.dropShard(4);
    assert.equal(unreadable.has(set("web")), false);
    assert.deepEqual(unreadable.setsInShard(9), ["ns/api"]);
  });
});
