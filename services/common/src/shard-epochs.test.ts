// The executors' shard epochs against a real nats-server, with garbage on the shard records (issue 16): the epoch is
// the key's last revision whatever it holds (docs/adr/0088-garbage-is-absent-and-repaired.md), every undecodable
// record is counted, and the log does not get one warning per key.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { BUCKETS, codecs, shardKeys } from "#protocol";
import type { DecodeFailure } from "#protocol";
import { useNatsServer } from "../../../test/support/nats.ts";
import { garbagePayloads } from "../../../tools/chaos/garbage.ts";
import { createLogger } from "./logger.ts";
import { watchShardEpochs } from "./shard-epochs.ts";
import { provisionTopology } from "./topology.ts";

async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for: ${what}`);
    await sleep(10);
  }
}

describe("shard epochs over undecodable shard records", () => {
  it("fences at the garbage's revision, takes the next claim's epoch, counts every record, and warns once", async () => {
    const server = await useNatsServer();
    const nc = await connect({ servers: server.url });
    const output = new PassThrough();
    const lines: { level: number | string; msg: string }[] = [];
    output.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line) as { level: number | string; msg: string });
    });
    const logger = createLogger({ service: "test", instance: "t", level: "debug", format: "json", destination: output });
    try {
      const { shards } = await provisionTopology(nc, { replicas: 1 });
      const claim = (shard: number, owner: string) =>
        codecs.shardRecord.encode({ type: "shard", shard, owner, incarnation: `${owner}-1`, state: "owned" });
      const poisoned = Array.from({ length: 20 }, (_, i) => i);
      const epochsBefore = new Map<number, number>();
      for (const shard of poisoned) epochsBefore.set(shard, await shards.put(shardKeys.build(shard), claim(shard, "a")));
      const reasons: DecodeFailure[] = [];
      const epochs = await watchShardEpochs(shards, logger, (reason) => reasons.push(reason));
      await eventually(() => epochs.ready() && poisoned.every((s) => epochs.epochOf(s) === epochsBefore.get(s)), "the claims seen");

      const js = jetstream(nc);
      for (const { data } of garbagePayloads()) for (const shard of poisoned) await js.publish(`$KV.${BUCKETS.shards}.${shardKeys.build(shard)}`, data);
      const garbage = (await shards.get(shardKeys.build(0)))?.revision ?? 0;
      await eventually(() => epochs.epochOf(0) === garbage && reasons.length === 4 * poisoned.length, "the garbage seen");
      // The owner before the garbage is fenced: nobody holds the garbage's revision, the next claim is above it.
      assert.equal(epochs.isStale(0, epochsBefore.get(0) ?? 0), true);
      // Random bytes, a truncated array and `{}` (a number, then a byte too many) do not unpack; an empty map unpacks
      // and is no shard record.
      assert.deepEqual(reasons.slice(0, poisoned.length * 3), Array<DecodeFailure>(poisoned.length * 3).fill("malformed"));
      assert.deepEqual(reasons.slice(poisoned.length * 3), Array<DecodeFailure>(poisoned.length).fill("invalid"));
      const claimed = await shards.update(shardKeys.build(0), claim(0, "b"), garbage);
      await eventually(() => epochs.epochOf(0) === claimed, "the claim over the garbage seen");
      assert.equal(epochs.isStale(0, claimed), false);

      const warnings = lines.filter((l) => l.msg.startsWith("undecodable shard record") && (l.level === "warn" || l.level === 40));
      assert.equal(warnings.length, 1, `one warning for ${reasons.length} undecodable records`);
      epochs.stop();
    } finally {
      await nc.close();
    }
  });
});
