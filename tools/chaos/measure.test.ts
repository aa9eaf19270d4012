// The soak's and the failover benchmark's arithmetic: percentiles (nearest rank) and the new owner's first write.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuditWrite } from "./facts.ts";
import { distribution, firstNewOwnerWrite, percentile } from "./measure.ts";
import type { OwnerSnapshot } from "./measure.ts";

function write(receivedMs: number, epoch: { shard: number; epoch: number; member: string } | undefined, code = 201): AuditWrite {
  return {
    index: 0,
    verb: "create",
    resource: "pods",
    subresource: undefined,
    namespace: "ns",
    name: "web-0",
    code,
    reason: undefined,
    userAgent: `stsfleet-actor/test (${epoch?.member ?? ""})`,
    username: "",
    service: "actor",
    instance: epoch?.member,
    epoch,
    receivedUs: receivedMs * 1000,
    completedUs: receivedMs * 1000 + 500,
  };
}

describe("failover measurements", () => {
  it("percentiles by nearest rank", () => {
    const values = Array.from({ length: 20 }, (_, i) => i + 1);
    assert.equal(percentile(values, 50), 10);
    assert.equal(percentile(values, 99), 20);
    assert.equal(percentile(values, 100), 20);
    assert.equal(percentile([], 50), undefined);
    assert.deepEqual(distribution([300, 100, 200]), { n: 3, p50Ms: 200, p99Ms: 300, maxMs: 300 });
  });

  it("the new owner's first write: accepted, after the fault, on a victim's shard, at a newer epoch", () => {
    const snapshot: OwnerSnapshot = { member: "actor-1", incarnation: "i1", epochs: new Map([[7, 100]]) };
    const audit = [
      write(900, { shard: 7, epoch: 120, member: "actor-0" }), // before the fault
      write(1_050, { shard: 7, epoch: 100, member: "actor-1" }), // the victim's own epoch
      write(1_100, { shard: 8, epoch: 130, member: "actor-0" }), // another shard
      write(1_150, { shard: 7, epoch: 120, member: "actor-0" }, 409), // rejected
      write(1_400, { shard: 7, epoch: 121, member: "actor-2" }),
      write(1_300, { shard: 7, epoch: 120, member: "actor-0" }), // completed later in the log, received earlier
      write(1_200, undefined),
    ];
    const first = firstNewOwnerWrite(audit, snapshot, 1_000);
    assert.equal(first?.delayMs, 300);
    assert.equal(first?.write.epoch?.member, "actor-0");
    assert.equal(firstNewOwnerWrite(audit.slice(0, 4), snapshot, 1_000), undefined);
  });
});
