// The loopback JetStream cluster: three nodes with routes, an R3 stream that keeps accepting writes with any one
// node stopped, and a stopped node that comes back on its ports with its store and catches up.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsCluster } from "./nats-server.ts";
import type { RunningNatsCluster } from "./nats-server.ts";

describe("startNatsCluster", () => {
  let cluster: RunningNatsCluster;
  let nc: NatsConnection;
  before(async () => {
    cluster = await startNatsCluster({ pingIntervalMs: 1_000 });
    nc = await connect({ servers: cluster.url.split(","), maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  });
  after(async () => {
    await nc.close();
    await cluster.stop();
  });

  it("serves an R3 stream through the loss of any node, and the node rejoins with its store", async () => {
    assert.equal(cluster.nodes.length, 3);
    assert.equal(cluster.url.split(",").length, 3);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "R3", subjects: ["r3.>"], num_replicas: 3 });
    const js = jetstream(nc, { timeout: 10_000 });
    await js.publish("r3.a", "1");
    const victim = 1;
    await cluster.stopNode(victim);
    assert.equal(cluster.nodes[victim]?.server, undefined);
    // The stream may need a new leader first; publishes retry until it has one.
    let published = false;
    for (let attempt = 0; attempt < 40 && !published; attempt++) {
      published = await js.publish("r3.a", "2").then(
        () => true,
        () => false,
      );
      if (!published) await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok(published, "the stream accepts writes with one node down");
    await cluster.startNode(victim);
    assert.ok(cluster.nodes[victim]?.server, "the node runs again");
    assert.match(await cluster.waitForMetaLeader(), /^n[0-2]$/);
    const info = await jsm.streams.info("R3");
    assert.equal(info.state.messages, 2);
    assert.equal(info.config.num_replicas, 3);
  });
});
