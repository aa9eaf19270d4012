// Bad input (docs/RELIABILITY.md): messages of several MiB on every subject the fleet uses. The fleet's NATS servers take
// MAX_PAYLOAD_BYTES (4 MiB, protocol/src/limits.ts) because a Kubernetes object may be above 1 MiB; so anyone may
// publish 3 MiB of garbage on every subject and key a running fleet reads (tools/chaos/garbage.ts lists them: the
// set's object, intent-log and PVC-command subjects, every key of the members, shards and leases buckets, the live
// copies and the services' request subjects). 3 MiB of bytes no MessagePack decoder accepts go to each, then a
// 3 MiB MessagePack bin (it decodes, and is no message of ours) to each but the 256 shard keys. Every service must
// keep running and count what it drops; a 5 MiB publish must be refused by the server (`-ERR 'Maximum Payload Violation'`, the connection
// closed), as must one the nats.js client is asked to send; afterwards a scale of the poisoned set and a new set
// converge within 30 s.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { connect, errors } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, MAX_PAYLOAD_BYTES } from "#protocol";
import { garbageTargets } from "../../tools/chaos/garbage.ts";
import { useStack } from "../support/stack.ts";
import type { Sample } from "../support/stack.ts";
import { createSet, patchSet, waitForConverged } from "./helpers.ts";
import { RawNats } from "./raw-nats.ts";

const t = await useStack();
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
const CONVERGE_MS = 30_000;
const MIB = 1024 * 1024;
const NS = "e2e-large-messages";
const FRESH = "e2e-large-messages-new";

/** 3 MiB starting with 0xc1, a byte MessagePack never uses. */
function undecodable(size: number): Uint8Array {
  const data = new Uint8Array(size);
  data.set(randomBytes(Math.min(size, 64 * 1024)));
  data[0] = 0xc1;
  return data;
}

/** A MessagePack bin 32 of `size` bytes in all: it decodes (to bytes), and is no message of ours. */
function validBin(size: number): Uint8Array {
  const data = new Uint8Array(size);
  data[0] = 0xc6;
  new DataView(data.buffer).setUint32(1, size - 5);
  return data;
}

function dropped(samples: readonly Sample[]): number {
  return samples.filter((s) => s.name === "stsfleet_dropped_messages_total").reduce((sum, s) => sum + s.value, 0);
}

describe("messages of several MiB on every subject the fleet uses", () => {
  let nc: NatsConnection;

  before(async () => {
    nc = await connect({ servers: t.stack.natsUrl, name: "e2e-large-messages" });
  });
  after(async () => {
    await nc.drain();
  });

  it("3 MiB of garbage everywhere is dropped and counted, 5 MiB is refused by the server; a scale and a new set converge within 30 s", async (test) => {
    const pids = new Map(SERVICES.map((name) => [name, t.stack.service(name).pid ?? -1]));
    await t.createNamespace(NS);
    await t.createNamespace(FRESH);
    await createSet(t.kube, NS, "base", { replicas: 2 });
    await waitForConverged(t.kube, NS, "base", 2);
    assert.equal(nc.info?.max_payload, MAX_PAYLOAD_BYTES, "the stack's server takes 4 MiB messages");

    const before = new Map<string, number>();
    for (const name of SERVICES) before.set(name, dropped(await t.metrics(name)));

    const targets = await garbageTargets(nc, [{ namespace: NS, name: "base" }], ["actor-0"]);
    assert.ok(targets.stream.length >= 5, JSON.stringify(targets.stream));
    assert.ok(targets.kv.includes("$KV.leases.watcher") && targets.kv.includes("$KV.members.m.actor-0"), JSON.stringify(targets.kv.slice(0, 10)));
    const js = jetstream(nc, { timeout: 30_000 });
    // The bin goes to every key but those of the shards bucket (256 keys, read by the same decoder as the bytes
    // before it): 3 MiB to each of them fans out to every actor and executor, and twice would double the test.
    const shardKeys = `$KV.${BUCKETS.shards}.`;
    const rounds = [
      { label: "undecodable", data: undecodable(3 * MIB), kv: targets.kv },
      { label: "bin", data: validBin(3 * MIB), kv: targets.kv.filter((subject) => !subject.startsWith(shardKeys)) },
    ];
    const startedAt = performance.now();
    let published = 0;
    const timings: string[] = [];
    for (const round of rounds) {
      const at = performance.now();
      for (const subject of [...targets.stream, ...round.kv]) {
        await js.publish(subject, round.data);
        published++;
      }
      for (const subject of targets.core) {
        nc.publish(subject, round.data);
        published++;
      }
      await nc.flush();
      timings.push(`${round.label}: ${targets.stream.length} stream subjects, ${round.kv.length} keys, ${targets.core.length} core subjects in ${Math.round(performance.now() - at)} ms`);
    }
    const publishedMs = Math.round(performance.now() - startedAt);
    test.diagnostic(timings.join("; "));
    test.diagnostic(`${published} messages of 3 MiB (${((published * 3) / 1024).toFixed(1)} GiB) published in ${publishedMs} ms`);

    // Above max_payload: the server refuses it, whether plain or with headers, and drops the connection.
    const stream = targets.stream[0] ?? "";
    const core = targets.core.find((subject) => subject.startsWith("svc.status.")) ?? "";
    for (const [subject, headers] of [
      [stream, undefined],
      [core, undefined],
      [core, "traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"],
    ] as const) {
      const raw = await RawNats.connect(t.stack.natsUrl);
      const { errors: answer, closed } = await raw.publishOversized(subject, 5 * MIB, headers === undefined ? undefined : `NATS/1.0\r\n${headers}\r\n\r\n`);
      raw.close();
      assert.match(answer.join(" | "), /Maximum Payload Violation/i, `5 MiB on ${subject}`);
      assert.ok(closed, "the server closes the connection");
    }
    assert.throws(() => nc.publish(core, new Uint8Array(5 * MIB)), (error: unknown) => error instanceof errors.InvalidArgumentError && /max_payload/.test(error.message));

    // The poisoned set scales, a new set in another namespace converges.
    const scaledAt = performance.now();
    await patchSet(t.kube, NS, "base", { spec: { replicas: 4 } });
    await createSet(t.kube, FRESH, "web", { replicas: 2 });
    await waitForConverged(t.kube, NS, "base", 4, CONVERGE_MS);
    await waitForConverged(t.kube, FRESH, "web", 2, Math.max(1_000, CONVERGE_MS - (performance.now() - scaledAt)));
    test.diagnostic(`the scale and the new set converged ${Math.round(performance.now() - scaledAt)} ms after the garbage`);

    for (const name of SERVICES) {
      const samples = await t.metrics(name);
      const now = dropped(samples);
      assert.ok(now > (before.get(name) ?? 0), `${name} counted the garbage it dropped (${before.get(name)} -> ${now})`);
      const trouble = samples.filter((s) => s.name === "stsfleet_nats_errors_total" && ["disconnect", "slow-consumer"].includes(s.labels["operation"] ?? "") && s.value > 0);
      assert.deepEqual(trouble.map((s) => `${s.labels["operation"]}: ${s.value}`), [], `${name} kept its NATS connection`);
    }
    for (const name of SERVICES) assert.equal(t.stack.service(name).pid, pids.get(name), `${name} was restarted (it died)`);
  });
});
