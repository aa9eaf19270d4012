import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import fc from "fast-check";
import { useNatsServer } from "../../test/support/nats.ts";
import { fnv1a32 } from "./fnv.ts";
import { SHARD_COUNT, nameToToken, shard, tokenToName } from "./shard.ts";

const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
const dnsSubdomain = fc
  .array(dnsLabel, { minLength: 1, maxLength: 4 })
  .map((labels) => labels.join("."))
  .filter((name) => name.length <= 253);

describe("shard", () => {
  it("is FNV-1a 32 of namespace + name with dots as underscores, mod 256", () => {
    // Known value, read from nats-server 2.9.10's own partition() mapping of this key.
    assert.equal(shard("default", "web"), 88);
    assert.equal(fnv1a32(""), 0x811c9dc5);
    assert.equal(fnv1a32("a"), 0xe40c292c);
    assert.equal(shard("ns", "a.b"), fnv1a32("nsa_b") % SHARD_COUNT);
  });

  it("maps names to subject tokens reversibly", () => {
    fc.assert(
      fc.property(dnsSubdomain, (name) => {
        const token = nameToToken(name);
        assert.ok(!token.includes("."));
        assert.equal(tokenToName(token), name);
      }),
    );
  });

  it("equals nats-server's partition(256,1,2) mapping for random namespaces and names", async () => {
    const server = await useNatsServer({
      jetstream: false,
      mappings: { "shardin.*.*": "shardout.{{partition(256,1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}" },
    });
    const pairs = fc.sample(fc.tuple(dnsLabel, dnsSubdomain), { numRuns: 2000, seed: 4242 });
    pairs.push(["default", "web"], ["kube-system", "a.b.c"], ["x", "y"]);
    assert.ok(pairs.some(([, name]) => name.includes(".")), "the sample includes names with dots");

    const publisher = await connect({ servers: server.url });
    const subscriber = await connect({ servers: server.url });
    try {
      const serverShards = new Map<string, number>();
      const subscription = subscriber.subscribe("shardout.>", {
        callback: (error, msg) => {
          if (error) return;
          const [, partition, namespace, token] = msg.subject.split(".");
          serverShards.set(`${namespace}/${token}`, Number(partition));
        },
      });
      await subscriber.flush();
      for (const [namespace, name] of pairs) publisher.publish(`shardin.${namespace}.${nameToToken(name)}`);
      await publisher.flush();
      const expected = new Set(pairs.map(([namespace, name]) => `${namespace}/${nameToToken(name)}`));
      const deadline = Date.now() + 5000;
      while (serverShards.size < expected.size && Date.now() < deadline) await subscriber.flush();
      subscription.unsubscribe();

      assert.equal(serverShards.size, expected.size, "every message came back mapped");
      let compared = 0;
      for (const [namespace, name] of pairs) {
        assert.equal(shard(namespace, name), serverShards.get(`${namespace}/${nameToToken(name)}`), `${namespace}/${name}`);
        compared++;
      }
      assert.ok(compared >= 1000);
    } finally {
      await publisher.close();
      await subscriber.close();
    }
  });
});
