import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { BUCKETS, FLEET_KEYS, codecs, intentReplicaStream, memberKeys, shardKeys } from "#protocol";
import type { IntentLogLayout } from "#protocol";
import { useNatsServer } from "../../../test/support/nats.ts";
import { garbagePayloads } from "../../../tools/chaos/garbage.ts";
import { startNatsCluster } from "../../../tools/lib/nats-server.ts";
import { createLogger } from "./logger.ts";
import { connectNats } from "./nats.ts";
import { watchShardEpochs } from "./shard-epochs.ts";
import { IntentLogLayoutError, IntentLogPlacementError, provisionIntentLog, provisionTopology } from "./topology.ts";

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

describe("a starting actor and an unreadable intent log layout record (ADR 0088)", () => {
  const WAITING = "the intent log's layout record is unreadable; waiting for a running actor to write it back";
  const layout = (placement: string[]): IntentLogLayout => ({ type: "intent-log.layout", placement });

  /** A topology whose layout key holds issue 16's payloads (the empty map last), with a log to follow the wait. */
  async function poisoned() {
    const server = await useNatsServer();
    const nc = await connect({ servers: server.url });
    const topology = await provisionTopology(nc, { replicas: 1 });
    // A member that stopped long ago: its key is there and does not change.
    await topology.members.put(memberKeys.build("actor-7"), memberRecord("actor-7", "dead"));
    let garbage = 0;
    for (const { data } of garbagePayloads()) garbage = (await jetstream(nc).publish(`$KV.${BUCKETS.members}.${FLEET_KEYS.intentLog}`, data)).seq;
    const output = new PassThrough();
    const messages: string[] = [];
    output.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) messages.push((JSON.parse(line) as { msg: string }).msg);
    });
    const log = createLogger({ service: "test", instance: "t", level: "debug", format: "json", destination: output });
    /** Until the `count`th wait has begun. */
    const waiting = (count: number) => eventually(() => messages.filter((message) => message === WAITING).length >= count);
    return { nc, topology, garbage, log, messages, waiting };
  }

  function memberRecord(name: string, state: "alive" | "dead"): Uint8Array {
    return codecs.memberRecord.encode({
      type: "member",
      name,
      incarnation: `${name}-1`,
      state,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      version: "test",
      startedAtMs: Date.now(),
    });
  }

  /** A live member of an actor without the guard: it renews, and never writes the layout. */
  function renewing(members: KV): () => void {
    const timer = setInterval(() => void members.put(memberKeys.build("actor-0"), memberRecord("actor-0", "alive")).catch(() => undefined), 50);
    return () => clearInterval(timer);
  }

  async function pinnedEntry(members: KV) {
    const entry = await members.get(FLEET_KEYS.intentLog);
    assert.ok(entry?.operation === "PUT");
    return { revision: entry.revision, layout: codecs.intentLogLayout.decode(entry.value) };
  }

  it("writes its own layout over the garbage once no member renewed for the wait", async () => {
    const { nc, topology, garbage, log, messages } = await poisoned();
    try {
      const startedMs = performance.now();
      const provisioned = await provisionIntentLog(topology, [], { unreadableWaitMs: 400, logger: log });
      assert.ok(performance.now() - startedMs >= 400, "waited the bound first");
      assert.deepEqual(provisioned.layout, layout([]));
      const entry = await pinnedEntry(topology.members);
      assert.deepEqual(entry, { revision: garbage + 1, layout: layout([]) }, "by compare-and-set on the garbage's revision");
      assert.ok(messages.includes(WAITING));
      assert.ok(messages.some((message) => /wrote this actor's layout over it/.test(message)));
      // The next actor reads it as any pinned layout.
      await assert.rejects(provisionIntentLog(topology, ["x"]), (error: unknown) => error instanceof IntentLogLayoutError && error.pinned !== undefined);
    } finally {
      await nc.close();
    }
  });

  it("takes a running actor's repair during the wait, and compares with it as before", async () => {
    const { nc, topology, garbage, log, waiting } = await poisoned();
    const stopRenewing = renewing(topology.members);
    try {
      // Repaired with this actor's layout: it starts as soon as the repair shows, long before the bound.
      let startedMs = performance.now();
      const starting = provisionIntentLog(topology, [], { unreadableWaitMs: 10_000, logger: log });
      await waiting(1);
      await topology.members.update(FLEET_KEYS.intentLog, codecs.intentLogLayout.encode(layout([])), garbage);
      await starting;
      assert.ok(performance.now() - startedMs < 5_000, "did not wait out the bound");

      // Repaired with another layout: refused as ever, naming the layout pinned.
      const again = (await jetstream(nc).publish(`$KV.${BUCKETS.members}.${FLEET_KEYS.intentLog}`, new Uint8Array([0x80]))).seq;
      startedMs = performance.now();
      const refused = provisionIntentLog(topology, [], { unreadableWaitMs: 10_000, logger: log });
      await waiting(2);
      await topology.members.update(FLEET_KEYS.intentLog, codecs.intentLogLayout.encode(layout(["a"])), again);
      await assert.rejects(refused, (error: unknown) => error instanceof IntentLogLayoutError && error.pinned?.placement[0] === "a");
      assert.ok(performance.now() - startedMs < 5_000, "did not wait out the bound");
    } finally {
      stopRenewing();
      await nc.close();
    }
  });

  it("refuses when members renewed during the wait and nobody repaired, saying how to repair it", async () => {
    const { nc, topology, garbage, log } = await poisoned();
    const stopRenewing = renewing(topology.members);
    try {
      await assert.rejects(provisionIntentLog(topology, [], { unreadableWaitMs: 400, logger: log }), (error: unknown) => {
        assert.ok(error instanceof IntentLogLayoutError);
        assert.equal(error.pinned, undefined);
        assert.equal(error.waitedMs, 400);
        assert.match(error.message, /unreadable/);
        assert.match(error.message, /stop every actor, delete the key \(nats kv del members layout\.intent-log\)/i);
        return true;
      });
      const entry = await topology.members.get(FLEET_KEYS.intentLog);
      assert.equal(entry?.revision, garbage, "the garbage was left alone");
    } finally {
      stopRenewing();
      await nc.close();
    }
  });
});
