import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideLayoutEntry, sameLayout } from "./layout-entry.ts";
import type { LayoutDecision, LayoutEntry } from "./layout-entry.ts";

const ours = { type: "intent-log.layout", placement: ["n0", "n1", "n2"] } as const;
const quorum = (placement: string[]) => ({ type: "intent-log.layout" as const, placement });

describe("decideLayoutEntry", () => {
  const table: [string, LayoutEntry, LayoutDecision][] = [
    ["our layout (our own write coming back, or another actor's)", { kind: "layout", revision: 7, layout: quorum(["n0", "n1", "n2"]) }, { action: "keep" }],
    // Issue 16: garbage on the key used to stay until someone deleted it, and every actor start failed meanwhile.
    ["garbage", { kind: "undecodable", revision: 9, reason: "malformed" }, { action: "rewrite", revision: 9, why: "undecodable" }],
    ["a record that unpacks and is no layout", { kind: "undecodable", revision: 10, reason: "invalid" }, { action: "rewrite", revision: 10, why: "undecodable" }],
    ["deleted or purged while we append to our log", { kind: "absent", revision: 11 }, { action: "rewrite", revision: 11, why: "absent" }],
    ["no entry at all", { kind: "absent", revision: undefined }, { action: "rewrite", revision: undefined, why: "absent" }],
    ["another layout", { kind: "layout", revision: 12, layout: quorum([]) }, { action: "conflict", pinned: quorum([]) }],
    ["the same tags in another order: other replicas on other servers", { kind: "layout", revision: 13, layout: quorum(["n0", "n2", "n1"]) }, { action: "conflict", pinned: quorum(["n0", "n2", "n1"]) }],
  ];
  for (const [name, entry, decision] of table) {
    it(name, () => assert.deepEqual(decideLayoutEntry(entry, { ...ours, placement: [...ours.placement] }), decision));
  }

  it("compares placements element by element", () => {
    assert.equal(sameLayout(quorum([]), quorum([])), true);
    assert.equal(sameLayout(quorum(["a"]), quorum(["a", "b"])), false);
    assert.equal(sameLayout(quorum(["a", "b"]), quorum(["a"])), false);
  });
});
