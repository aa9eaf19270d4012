import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { PublicationVersion } from "#protocol";
import { PublicationOrder } from "./publication-order.ts";

const v = (epoch: number, counter: number): PublicationVersion => ({ epoch, counter });
const POD = "k8s.3.pod.ns.web-0";

describe("PublicationOrder", () => {
  it("skips the second copy of a publication and anything older, per subject", () => {
    const order = new PublicationOrder();
    assert.equal(order.isStale(3, POD, v(1, 5)), false);
    order.applied(3, POD, v(1, 5), "put", 0);
    assert.equal(order.isStale(3, POD, v(1, 5)), true, "the same publication again");
    assert.equal(order.isStale(3, POD, v(1, 4)), true, "an older one");
    assert.equal(order.isStale(3, POD, v(1, 6)), false);
    assert.equal(order.isStale(3, POD, v(2, 0)), false, "a later watcher activation");
    assert.equal(order.isStale(4, "k8s.4.pod.ns.web-0", v(1, 1)), false, "another shard's subject has its own order");
  });

  it("treats unversioned messages as stream-ordered: never stale, and followed by any version", () => {
    const order = new PublicationOrder();
    order.applied(3, POD, v(7, 7), "put", 0);
    assert.equal(order.isStale(3, POD, undefined), false);
    order.applied(3, POD, undefined, "put", 0);
    assert.equal(order.isStale(3, POD, v(1, 0)), false);
    assert.equal(order.size, 0);
  });

  it("remembers a tombstone's version until the sweep after keepMs, and forgets a dropped shard", () => {
    const order = new PublicationOrder();
    order.applied(3, POD, v(1, 9), "delete", 1_000);
    order.applied(3, "k8s.3.pod.ns.web-1", v(1, 10), "put", 1_000);
    assert.equal(order.isStale(3, POD, v(1, 8)), true, "an older PUT must not bring a deleted object back");
    assert.equal(order.sweep(1_500, 1_000), 0);
    assert.equal(order.sweep(2_001, 1_000), 1);
    assert.equal(order.isStale(3, POD, v(1, 8)), false);
    assert.equal(order.size, 1, "a live object's version is kept");
    order.dropShard(3);
    assert.equal(order.size, 0);
  });

  it("property: applying copies in any order keeps exactly the latest version per subject", () => {
    const message = fc.record({ subject: fc.constantFrom("a", "b", "c"), counter: fc.nat({ max: 50 }) });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 60 }), (messages) => {
        const order = new PublicationOrder();
        const applied = new Map<string, number>();
        for (const { subject, counter } of messages) {
          const stale = order.isStale(0, subject, v(1, counter));
          const latest = applied.get(subject);
          assert.equal(stale, latest !== undefined && counter <= latest);
          if (stale) continue;
          order.applied(0, subject, v(1, counter), "put", 0);
          applied.set(subject, counter);
        }
      }),
    );
  });
});
