// The NATS proxy against a real nats-server: a cut silences exactly one named client (its requests time out, the
// others go on), healing brings it back through its own reconnect, delays add latency in order, and the server
// drops a cut client after its ping interval.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsServer } from "../lib/nats-server.ts";
import type { RunningNatsServer } from "../lib/nats-server.ts";
import { NatsProxy, parseConnectName } from "./proxy.ts";

async function connz(server: RunningNatsServer): Promise<string[]> {
  const response = await fetch(`${server.monitorUrl}/connz`);
  const body = (await response.json()) as { connections?: { name?: string }[] };
  return (body.connections ?? []).map((c) => c.name ?? "");
}

describe("NatsProxy", () => {
  let server: RunningNatsServer;
  let proxy: NatsProxy;
  let responder: NatsConnection;
  const clients: NatsConnection[] = [];
  const client = async (name: string) => {
    const nc = await connect({ servers: proxy.url, name, pingInterval: 1_000, maxPingOut: 2, reconnectTimeWait: 100, maxReconnectAttempts: -1, timeout: 1_000 });
    clients.push(nc);
    return nc;
  };

  before(async () => {
    server = await startNatsServer({ jetstream: false, pingIntervalMs: 1_000 });
    proxy = await NatsProxy.start(server.url);
    responder = await connect({ servers: server.url, name: "responder" });
    responder.subscribe("echo", { callback: (_error, message) => void message.respond(message.data) });
    await responder.flush();
  });
  after(async () => {
    for (const nc of clients) await nc.close().catch(() => undefined);
    await responder.close();
    await proxy.stop();
    await server.stop();
  });

  it("reads the client name from CONNECT", () => {
    assert.equal(parseConnectName('CONNECT {"verbose":false,"name":"actor/actor-1","lang":"nats.js"}'), "actor/actor-1");
    assert.equal(parseConnectName("CONNECT {}"), undefined);
    assert.equal(parseConnectName("PING"), undefined);
    assert.equal(parseConnectName("CONNECT {broken"), undefined);
  });

  it("cuts one named client while the others keep working, and heals it", async () => {
    const a = await client("actor/a");
    const b = await client("actor/b");
    await a.request("echo", "x", { timeout: 1_000 });
    assert.deepEqual(proxy.list().map((c) => c.name).sort(), ["actor/a", "actor/b"]);

    proxy.cut("actor/a");
    await assert.rejects(a.request("echo", "x", { timeout: 500 }));
    await b.request("echo", "x", { timeout: 1_000 });
    // The server gives up on the silent client after ping_interval × ping_max; the client cannot come back.
    await waitUntil(async () => !(await connz(server)).includes("actor/a"), 8_000);
    await sleep(500);
    assert.ok(!(await connz(server)).includes("actor/a"), "a cut client cannot reconnect");

    proxy.heal("actor/a");
    await waitUntil(() => a.request("echo", "y", { timeout: 300 }).then(() => true, () => false), 10_000);
    assert.ok((await connz(server)).includes("actor/a"));
  });

  it("delays a client's traffic in order", async () => {
    const c = await client("actor/c");
    proxy.delay("actor/c", 150);
    const started = performance.now();
    const replies = await Promise.all([1, 2, 3].map((i) => c.request("echo", String(i), { timeout: 3_000 })));
    assert.ok(performance.now() - started >= 280, "a round trip crosses the proxy twice");
    assert.deepEqual(replies.map((m) => m.string()), ["1", "2", "3"]);
    proxy.heal("actor/c");
    const quick = performance.now();
    await c.request("echo", "z", { timeout: 1_000 });
    assert.ok(performance.now() - quick < 150);
  });
});

async function waitUntil(probe: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(100);
  }
}
