import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { useNatsServer } from "../../../test/support/nats.ts";
import { createLogger } from "./logger.ts";
import { connectNats, ensureStream, jetstreamManager } from "./nats.ts";
import { StreamPublishError, StreamPublisher } from "./stream-publish.ts";

const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
const bytes = (text: string) => new TextEncoder().encode(text);

describe("StreamPublisher (JetStream publishes over one reply subscription)", () => {
  it("resolves with the stream's acks, deduplicates by message id, and enforces the expected last subject sequence", async () => {
    const server = await useNatsServer();
    const nats = await connectNats({ url: server.url, name: "test", user: "watcher", pass: "x" }, logger);
    try {
      const jsm = await jetstreamManager(nats.connection);
      await ensureStream(jsm, { name: "SP", subjects: ["sp.>"], max_msgs_per_subject: 1 });
      const publisher = new StreamPublisher(nats.connection, { timeoutMs: 2_000, inboxPrefix: nats.inboxPrefix });
      const h = natsHeaders();
      h.set("K8s-RV", "7");
      const first = await publisher.publish("sp.a", bytes("one"), { msgId: "a-1", expectedLastSubjectSequence: 0, headers: h });
      assert.deepEqual(first, { stream: "SP", seq: 1, duplicate: false });
      const again = await publisher.publish("sp.a", bytes("one"), { msgId: "a-1" });
      assert.deepEqual(again, { stream: "SP", seq: 1, duplicate: true });
      const stored = await jsm.streams.getMessage("SP", { last_by_subj: "sp.a" });
      assert.equal(stored?.header.get("K8s-RV"), "7", "the caller's headers travel with the message");

      const refused = await publisher.publish("sp.a", bytes("two"), { msgId: "a-2", expectedLastSubjectSequence: 0 }).catch((error: unknown) => error);
      assert.ok(refused instanceof StreamPublishError);
      assert.equal(refused.failure, "api");
      assert.ok(refused.isWrongLastSequence, refused.message);

      // Many at once, answered out of any order the server likes: each promise gets its own ack.
      const acks = await Promise.all(Array.from({ length: 200 }, (_, i) => publisher.publish(`sp.n${i}`, bytes(String(i)), { msgId: `n-${i}` })));
      assert.deepEqual(new Set(acks.map((ack) => ack.seq)).size, 200);
      assert.equal(publisher.inFlight, 0);

      const lost = await publisher.publish("nostream.x", bytes("x")).catch((error: unknown) => error);
      assert.ok(lost instanceof StreamPublishError);
      assert.equal(lost.failure, "no-responders");
      publisher.close();
    } finally {
      await nats.connection.close();
    }
  });

  it("times out a publish nobody answers, with one timer for all of them, and rejects what is in flight on close", async () => {
    const server = await useNatsServer();
    const nats = await connectNats({ url: server.url, name: "test" }, logger);
    try {
      // A subscriber that takes the message but never acks: what a stream without a leader looks like to a client.
      nats.connection.subscribe("silent.>", { callback: () => undefined });
      await nats.connection.flush();
      const publisher = new StreamPublisher(nats.connection, { timeoutMs: 150 });
      const startedAtMs = performance.now();
      const results = await Promise.all([1, 2, 3].map((i) => publisher.publish(`silent.${i}`, bytes("x")).catch((error: unknown) => error)));
      const waitedMs = performance.now() - startedAtMs;
      for (const result of results) {
        assert.ok(result instanceof StreamPublishError);
        assert.equal(result.failure, "timeout");
      }
      assert.ok(waitedMs >= 140 && waitedMs < 2_000, `timed out after ${Math.round(waitedMs)} ms`);

      const pending = publisher.publish("silent.4", bytes("x")).catch((error: unknown) => error);
      publisher.close();
      const closed = await pending;
      assert.ok(closed instanceof StreamPublishError);
      assert.equal(closed.failure, "closed");
    } finally {
      await nats.connection.close();
    }
  });
});
