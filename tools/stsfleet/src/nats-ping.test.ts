// The local stack's nats-server drops a half-open client within seconds (issue 6: "set the server's ping interval
// so that a half-open connection is dropped within seconds"): a raw TCP client that stops answering the server's
// PINGs is disconnected within 3 ping intervals, while a live client stays connected. Limit (ADR 0075): nats-server
// 2.9 postpones its PING while it delivers messages to the client, so a frozen client that keeps receiving (an
// actor being probed) is not dropped this way; the lease detects those.
import assert from "node:assert/strict";
import { connect as tcpConnect } from "node:net";
import { describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import { useNatsServer } from "#test-support/nats.ts";
import { LOCAL_NATS_PING_INTERVAL_MS, localNatsOptions } from "./stack.ts";

const server = await useNatsServer(localNatsOptions({}));

describe("local nats-server ping interval", () => {
  it("is configured (varz) and short", async () => {
    const varz = (await (await fetch(`${server.monitorUrl}/varz`)).json()) as { ping_interval: number; ping_max: number };
    // varz reports the interval in nanoseconds.
    assert.equal(varz.ping_interval, LOCAL_NATS_PING_INTERVAL_MS * 1e6);
    assert.equal(varz.ping_max, 2);
    assert.ok(LOCAL_NATS_PING_INTERVAL_MS <= 2_000);
  });

  it("closes a connection that stops answering pings within 3 intervals; a live client stays", async () => {
    const live = await connect({ servers: server.url });
    const started = performance.now();
    const closedAfterMs = await new Promise<number>((resolve, reject) => {
      const socket = tcpConnect(server.port, "127.0.0.1");
      let greeted = false;
      socket.on("data", (chunk: Buffer) => {
        // Answer nothing but the handshake: the server's PINGs go unanswered, as to a frozen or vanished peer.
        if (!greeted && chunk.toString().startsWith("INFO")) {
          greeted = true;
          socket.write('CONNECT {"verbose":false,"pedantic":false,"protocol":1}\r\nSUB fleet.probe.frozen 1\r\n');
        }
      });
      socket.on("error", () => undefined);
      socket.on("close", () => resolve(performance.now() - started));
      setTimeout(() => {
        socket.destroy();
        reject(new Error("the server kept the half-open connection for 20 s"));
      }, 20_000).unref();
    });
    assert.ok(closedAfterMs <= 3 * LOCAL_NATS_PING_INTERVAL_MS + 1_500, `dropped after ${Math.round(closedAfterMs)} ms`);
    assert.ok(closedAfterMs >= LOCAL_NATS_PING_INTERVAL_MS, `not before the first ping (${Math.round(closedAfterMs)} ms)`);
    // Its subscription is gone with it: a request gets "no responders" at once.
    await assert.rejects(live.request("fleet.probe.frozen", new Uint8Array(), { timeout: 1_000 }), /no responders/i);
    assert.equal(live.isClosed(), false);
    await live.close();
  });
});
