// The loopback JetStream cluster: three nodes with routes, an R3 stream that keeps accepting writes with any one
// node stopped, and a stopped node that comes back on its ports with its store and catches up.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { isNatsClusterEvent, natsLeaderEvents, natsLogTimeMs, startNatsCluster } from "./nats-server.ts";
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
    // Right after the restart the group may still be electing or catching the node up (a fresh-clone CI run read
    // 1 message once): wait for a leader with every replica current, then check nothing was lost.
    let info = await jsm.streams.info("R3");
    for (let attempt = 0; attempt < 40; attempt++) {
      const replicas = info.cluster?.replicas ?? [];
      if (info.cluster?.leader && replicas.length === 2 && replicas.every((r) => r.current && !r.offline)) break;
      await new Promise((r) => setTimeout(r, 250));
      info = await jsm.streams.info("R3");
    }
    assert.equal(info.state.messages, 2, JSON.stringify(info.cluster));
    assert.equal(info.config.num_replicas, 3);
  });
});

describe("nats-server log reading", () => {
  const log = [
    "[21071] 2026/11/30 02:47:16.757247 [DBG] RAFT [44jzkV9D - S-R3F-1Pq1HJj5] Switching to candidate",
    "[21071] 2026/11/30 02:47:16.760848 [INF] JetStream cluster new stream leader for '$G > KV_members'",
    "[21071] 2026/11/30 02:47:16.9 [INF] JetStream cluster new consumer leader for '$G > STS_CMD > pvc'",
    "[21071] 2026/11/30 02:47:17.000100 [INF] Self is new JetStream cluster metadata leader",
    "[21071] 2026/11/30 02:47:17.100000 [DBG] 127.0.0.1:5000 - cid:7 - Client Ping Timer",
    "not a log line",
  ].join("\n");

  it("finds the stream, consumer and meta elections a node logged, with millisecond UTC times", () => {
    assert.deepEqual(natsLeaderEvents("n2", log), [
      { node: "n2", atMs: Date.UTC(2026, 10, 30, 2, 47, 16, 760), kind: "stream", group: "KV_members" },
      { node: "n2", atMs: Date.UTC(2026, 10, 30, 2, 47, 16, 900), kind: "consumer", group: "STS_CMD > pvc" },
      { node: "n2", atMs: Date.UTC(2026, 10, 30, 2, 47, 17, 0), kind: "meta", group: "_meta_" },
    ]);
    assert.equal(natsLogTimeMs("not a log line"), undefined);
  });

  it("keeps cluster events and Raft elections for a failure's tail, not client chatter", () => {
    const kept = log.split("\n").filter(isNatsClusterEvent);
    assert.equal(kept.length, 5);
    assert.ok(!kept.some((line) => line.includes("cid:")));
  });
});
