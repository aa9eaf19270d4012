import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useNatsServer } from "../../../test/support/nats.ts";
import { createLogger } from "./logger.ts";
import { connectNats, ensureStream, jetstreamManager } from "./nats.ts";

describe("NATS helpers", () => {
  it("creates a stream, is idempotent, and refuses a server that drops requested fields", async () => {
    const server = await useNatsServer();
    const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
    const nats = await connectNats({ url: server.url, name: "test" }, logger);
    try {
      assert.equal(nats.isConnected(), true);
      const jsm = await jetstreamManager(nats.connection);
      const desired = { name: "T_OBJS", subjects: ["t.>"], max_msgs_per_subject: 1 };
      const first = await ensureStream(jsm, desired);
      assert.equal(first.config.max_msgs_per_subject, 1);
      await ensureStream(jsm, desired);
      // 2.10+ stream features: either the client refuses or the 2.9 server drops them; both must fail loudly.
      await assert.rejects(ensureStream(jsm, { ...desired, name: "T_META", subjects: ["m.>"], metadata: { owner: "x" } }));
      await assert.rejects(
        ensureStream(jsm, { ...desired, name: "T_FIRST", subjects: ["f.>"], first_seq: 100 }),
      );
    } finally {
      await nats.connection.close();
    }
  });
});
