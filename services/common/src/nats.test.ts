import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useNatsServer } from "../../../test/support/nats.ts";
import { createLogger } from "./logger.ts";
import { connectNats, ensureStream, inboxPrefixFor, jetstreamManager, natsOptionsFrom } from "./nats.ts";

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

  it("uses the user's inbox prefix for replies, so permissions can confine each user to its own inboxes", async () => {
    assert.equal(inboxPrefixFor("pvc-provisioner"), "_INBOX.pvc-provisioner");
    assert.equal(inboxPrefixFor("a.b *>c"), "_INBOX.a_b___c", "no token separators or wildcards from a user name");
    const server = await useNatsServer();
    const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
    // A server without authorization accepts any credentials: only the client side is under test here.
    const responder = await connectNats({ url: server.url, name: "responder" }, logger);
    const requester = await connectNats({ url: server.url, name: "requester", user: "actor", pass: "x" }, logger);
    try {
      responder.connection.subscribe("echo", {
        callback: (_error, message) => {
          message.respond(new TextEncoder().encode(message.reply ?? ""));
        },
      });
      await responder.connection.flush();
      const reply = await requester.connection.request("echo", new Uint8Array(), { timeout: 2_000 });
      assert.match(new TextDecoder().decode(reply.data), /^_INBOX\.actor\./);
    } finally {
      await Promise.all([responder.connection.close(), requester.connection.close()]);
    }
  });

  it("takes TLS files from the common flags only when one is given", () => {
    const base = { natsUrl: "nats://127.0.0.1:4222", natsUser: "actor", natsPassword: "pw", natsTlsCa: undefined, natsTlsCert: undefined, natsTlsKey: undefined };
    assert.deepEqual(natsOptionsFrom(base, "actor/actor-0"), { url: base.natsUrl, name: "actor/actor-0", user: "actor", pass: "pw" });
    assert.deepEqual(natsOptionsFrom({ ...base, natsTlsCa: "/ca.crt" }, "n").tls, { caFile: "/ca.crt", certFile: undefined, keyFile: undefined });
  });
});
