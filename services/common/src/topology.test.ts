import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import { BUCKETS, FLEET_KEYS, codecs, intentReplicaStream, shardKeys } from "#protocol";
import { useNatsServer } from "../../../test/support/nats.ts";
import { startNatsCluster } from "../../../tools/lib/nats-server.ts";
import { createLogger } from "./logger.ts";
import { connectNats } from "./nats.ts";
import { watchShardEpochs } from "./shard-epochs.ts";
import { IntentLogPlacementError, provisionIntentLog, provisionTopology } from "./topology.ts";

const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });

async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail("condition not reached in time");
    await sleep(10);
  }
}

describe("topology and shard epochs", () => {
  it("provisions streams and buckets idempotently and tracks shard epochs for fencing", async () => {
    const server = await useNatsServer();
    const nats = await connectNats({ url: server.url, name: "test" }, logger);
    try {
      const topology = await provisionTopology(nats.connection, { replicas: 1 });
      await provisionTopology(nats.connection, { replicas: 1 });
      const streams = [];
      for await (const info of topology.jsm.streams.list()) streams.push(info.config.name);
      assert.deepEqual(streams.sort(), ["KV_leases", "KV_members", "KV_shards", "K8S_OBJS", "STS_CMD", "STS_INTENT"].sort());

      const view = await watchShardEpochs(topology.shards, logger);
      assert.equal(view.ready(), true);
      assert.equal(view.isStale(5, 0), false, "no owner yet: nothing is stale");

      const record = (owner: string) =>
        codecs.shardRecord.encode({ type: "shard", shard: 5, owner, incarnation: owner, state: "owned" });
      const first = await topology.shards.create(shardKeys.build(5), record("actor-0"));
      await eventually(() => view.epochOf(5) === first);
      const second = await topology.shards.update(shardKeys.build(5), record("actor-1"), first);
      await eventually(() => view.epochOf(5) === second);
      assert.equal(view.isStale(5, first), true, "the previous owner's epoch is fenced");
      assert.equal(view.isStale(5, second), false);
      // Compare-and-set: the fenced owner cannot write back.
      await assert.rejects(topology.shards.update(shardKeys.build(5), record("actor-0"), first));
      view.stop();

      const restarted = await watchShardEpochs(topology.shards, logger);
      await eventually(() => restarted.ready() && restarted.epochOf(5) === second);
      restarted.stop();
    } finally {
      await nats.connection.close();
    }
  });
});

describe("the quorum intent log's streams on a 3-node cluster (ADR 0084)", () => {
  it("places one replica per tagged server, refuses two on one server, and starts with a majority when a server is down", async () => {
    const cluster = await startNatsCluster();
    const nc = await connect({ servers: cluster.url.split(","), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    try {
      const topology = await provisionTopology(nc, { replicas: 3 });
      const forget = async () => {
        await topology.members.delete(FLEET_KEYS.intentLog);
        for (let replica = 0; replica < 3; replica++) await topology.jsm.streams.delete(intentReplicaStream(replica)).catch(() => false);
      };

      // A tag twice: both replicas land on n0, which would lose both at once.
      await assert.rejects(provisionIntentLog(topology, ["n0", "n0", "n1"]), IntentLogPlacementError);
      await forget();
      // A tag no server has is an answer, not an outage.
      await assert.rejects(provisionIntentLog(topology, ["n0", "n1", "nope"]), /no suitable peers|tags not matched/i);
      await forget();

      const placed = await provisionIntentLog(topology, ["n0", "n1", "n2"]);
      assert.deepEqual(placed.servers, ["n0", "n1", "n2"]);
      assert.deepEqual(placed.unavailable, []);

      // An actor that starts while n2 is down: its replica does not answer, the other two are a majority. The members
      // bucket (R3) must have its leader first: if n2 led it, its election takes 4-9 s.
      await cluster.stopNode(2);
      for (let attempt = 0; ; attempt++) {
        const leader = await topology.jsm.streams.info(`KV_${BUCKETS.members}`).then((info) => info.cluster?.leader, () => undefined);
        if (leader && leader !== "n2") break;
        assert.ok(attempt < 60, "the members bucket elected a leader within 15 s");
        await sleep(250);
      }
      const degraded = await provisionIntentLog(topology, ["n0", "n1", "n2"]);
      assert.deepEqual(degraded.servers.slice(0, 2), ["n0", "n1"]);
      assert.equal(degraded.unavailable.length, 1);
      assert.match(degraded.unavailable[0] ?? "", /^STS_INTENT_2: /);
    } finally {
      await nc.close();
      await cluster.stop();
    }
  });
});
