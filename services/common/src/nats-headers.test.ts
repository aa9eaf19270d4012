import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Kvm } from "@nats-io/kv";
import { MsgHdrsImpl } from "@nats-io/transport-node";
import { useNatsServer } from "../../../test/support/nats.ts";
import { RawNats } from "../../../test/e2e/raw-nats.ts";
import { createLogger } from "./logger.ts";
import { createCommonMetrics } from "./metrics.ts";
import { connectNats } from "./nats.ts";
import { tolerateUnparsableHeaders, withoutUnparsableLines } from "./nats-headers.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/** Blocks nats.js's own decoder throws on, each with one good line that must survive. */
const BAD_BLOCKS = [
  `NATS/1.0\r\ntrace parent: x\r\nok: 1\r\n\r\n`,
  `NATS/1.0\r\ntraceparént: x\r\nok: 1\r\n\r\n`,
  `NATS/1.0\r\ntraceparent: a\nb\r\nok: 1\r\n\r\n`,
  `NATS/1.0\r\ntraceparent: a\rb\r\nok: 1\r\n\r\n`,
] as const;

describe("header blocks nats.js cannot parse", () => {
  it("are decoded without the lines it refuses, the rest kept, and each one reported", () => {
    const heard: unknown[] = [];
    assert.equal(tolerateUnparsableHeaders((error) => heard.push(error)), true);
    for (const block of BAD_BLOCKS) {
      const headers = MsgHdrsImpl.decode(encode(block));
      assert.equal(headers.get("ok"), "1", JSON.stringify(block));
      assert.deepEqual(headers.keys(), ["ok"], JSON.stringify(block));
    }
    assert.equal(heard.length, BAD_BLOCKS.length);
    // A block nats.js parses is untouched and not reported.
    const good = MsgHdrsImpl.decode(encode(`NATS/1.0\r\ntraceparent: ${TRACEPARENT}\r\nKV-Operation: DEL\r\n\r\n`));
    assert.equal(good.get("traceparent"), TRACEPARENT);
    assert.equal(good.get("KV-Operation"), "DEL");
    const status = MsgHdrsImpl.decode(encode("NATS/1.0 503\r\n\r\n"));
    assert.equal(status.code, 503);
    assert.equal(heard.length, BAD_BLOCKS.length);
    assert.equal(new TextDecoder().decode(withoutUnparsableLines(encode(BAD_BLOCKS[0]))), "NATS/1.0\r\nok: 1\r\n\r\n");
  });

  it("on a KV key and a plain subject: the entry reads as a put of its bytes, watches and callbacks go on, each block counted", async () => {
    const server = await useNatsServer();
    const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
    const metrics = createCommonMetrics("test", "t");
    const nats = await connectNats({ url: server.url, name: "test" }, logger, metrics);
    const raw = await RawNats.connect(server.url);
    try {
      const kv = await new Kvm(nats.connection).create("t");
      await kv.put("k", encode("first"));
      const seen: string[] = [];
      const watch = await kv.watch({ key: "k", ignoreDeletes: true });
      const watching = (async () => {
        for await (const entry of watch) {
          seen.push(`${entry.operation}:${new TextDecoder().decode(entry.value)}`);
          if (seen.length === 3) break;
        }
      })();
      const received: string[] = [];
      nats.connection.subscribe("plain", {
        callback: (_error, message) => {
          received.push(`${message.headers?.get("ok")}`);
        },
      });
      await nats.connection.flush();

      raw.publish("$KV.t.k", encode("forged"), BAD_BLOCKS[0]);
      raw.publish("plain", encode("x"), BAD_BLOCKS[2]);
      await raw.flush();
      await kv.put("k", encode("after"));
      await watching;
      assert.deepEqual(seen, ["PUT:first", "PUT:forged", "PUT:after"]);
      const entry = await kv.get("k");
      assert.equal(entry?.operation, "PUT");
      await nats.connection.flush();
      assert.deepEqual(received, ["1"]);
      const counted = (await metrics.registry.getSingleMetric("stsfleet_nats_errors_total")?.get())?.values.find((v) => v.labels["operation"] === "unparsable-headers");
      assert.ok((counted?.value ?? 0) >= 2, JSON.stringify(counted));
    } finally {
      raw.close();
      await nats.connection.close();
    }
  });
});
