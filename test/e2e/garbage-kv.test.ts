// Garbage in the fleet's KV buckets only: the four garbage payloads (random bytes, a truncated MessagePack array, `{}`,
// an empty MessagePack map; the last is what each key is left holding) on every key of `members`, `shards` and
// `leases` (tools/chaos/garbage.ts). The rules are in docs/adr/0088-garbage-is-absent-and-repaired.md: the actor
// re-joins under a new incarnation over its own record and writes the intent log's layout back, the desired owner
// claims every shard over its garbage, the active watcher takes its lease back. Every record is readable again
// within a few seconds, a scale and a new set converge, no service dies, and the actor, the executors and the watcher
// count what they dropped.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { KV } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, FLEET_KEYS, codecs } from "#protocol";
import { garbagePayloads, garbageTargets } from "../../tools/chaos/garbage.ts";
import { decodeLease } from "../../services/watcher/src/domain/lease.ts";
import { useStack, waitFor } from "../support/stack.ts";
import type { Sample } from "../support/stack.ts";
import { createSet, patchSet, waitForConverged } from "./helpers.ts";

const t = await useStack();
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
/**
 * Every record written again by whoever has the right to, after the last payload (about 0.5 s here). Below the test
 * stack's watcher lease duration (3 s, test/support/stack.ts): a holder that only stands by again, as standbys do,
 * fails it.
 */
const REPAIR_MS = 2_500;
const CONVERGE_MS = 20_000;

function dropped(samples: readonly Sample[], subjectPrefix: string): number {
  return samples
    .filter((s) => s.name === "stsfleet_dropped_messages_total" && (s.labels["subject"] ?? "").startsWith(subjectPrefix))
    .reduce((sum, s) => sum + s.value, 0);
}

/** Keys of `kv` whose last value does not decode as the record the fleet keeps there. */
async function unreadable(kv: KV, keys: readonly string[], decodes: (bytes: Uint8Array) => boolean): Promise<string[]> {
  const bad: string[] = [];
  for (const key of keys) {
    const entry = await kv.get(key);
    if (entry?.operation === "PUT" && !decodes(entry.value)) bad.push(key);
  }
  return bad;
}

function decodesWith(decode: (bytes: Uint8Array) => unknown): (bytes: Uint8Array) => boolean {
  return (bytes) => {
    try {
      decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
}

describe("garbage once on every key of the members, shards and leases buckets", () => {
  let nc: NatsConnection;
  const pids = new Map<string, number>();

  before(async () => {
    nc = await connect({ servers: t.stack.natsUrl, name: "e2e-garbage-kv" });
    for (const name of SERVICES) pids.set(name, t.stack.service(name).pid ?? -1);
  });
  after(async () => {
    await nc.drain();
  });

  it("every record is written again within seconds, a scale and a new set converge, nothing dies, drops are counted", async (test) => {
    const ns = "e2e-garbage-kv";
    const fresh = "e2e-garbage-kv-new";
    await t.createNamespace(ns);
    await t.createNamespace(fresh);
    await createSet(t.kube, ns, "base", { replicas: 2 });
    await waitForConverged(t.kube, ns, "base", 2);

    const kvm = new Kvm(nc);
    const members = await kvm.open(BUCKETS.members);
    const before = await members.get("m.actor-0");
    const incarnation = before ? codecs.memberRecord.decode(before.value).incarnation : undefined;

    const layout = `$KV.${BUCKETS.members}.${FLEET_KEYS.intentLog}`;
    const kv = (await garbageTargets(nc, [], ["actor-0"])).kv;
    assert.ok(kv.includes("$KV.leases.watcher") && kv.includes("$KV.members.m.actor-0") && kv.includes(layout) && kv.some((s) => s.startsWith("$KV.shards.s.")));
    const js = jetstream(nc);
    for (const { data } of garbagePayloads()) for (const subject of kv) await js.publish(subject, data);
    const poisonedAt = performance.now();

    const keysOf = (bucket: string) => kv.filter((s) => s.startsWith(`$KV.${bucket}.`)).map((s) => s.slice(`$KV.${bucket}.`.length));
    const memberRecordKeys = keysOf(BUCKETS.members).filter((key) => key !== FLEET_KEYS.intentLog);
    const checks: [KV, string[], (bytes: Uint8Array) => boolean][] = [
      [members, memberRecordKeys, decodesWith((b) => codecs.memberRecord.decode(b))],
      // The running actor writes its layout back (services/actor/src/runtime/layout-guard.ts).
      [members, [FLEET_KEYS.intentLog], decodesWith((b) => codecs.intentLogLayout.decode(b))],
      [await kvm.open(BUCKETS.shards), keysOf(BUCKETS.shards), decodesWith((b) => codecs.shardRecord.decode(b))],
      [await kvm.open(BUCKETS.leases), keysOf(BUCKETS.leases), (b) => decodeLease(b) !== undefined],
    ];
    await waitFor(
      "every poisoned record written again",
      async () => {
        const bad = (await Promise.all(checks.map(([bucket, keys, decodes]) => unreadable(bucket, keys, decodes)))).flat();
        return bad.length === 0 ? true : undefined;
      },
      {
        timeoutMs: REPAIR_MS,
        describeLast: async () => (await Promise.all(checks.map(([bucket, keys, decodes]) => unreadable(bucket, keys, decodes)))).flat(),
      },
    );
    const repairedMs = Math.round(performance.now() - poisonedAt);
    const rejoined = await members.get("m.actor-0");
    assert.ok(rejoined);
    const record = codecs.memberRecord.decode(rejoined.value);
    assert.equal(record.state, "alive");
    assert.notEqual(record.incarnation, incarnation, "re-joined under a new incarnation");

    await patchSet(t.kube, ns, "base", { spec: { replicas: 4 } });
    await createSet(t.kube, fresh, "web", { replicas: 2 });
    await waitForConverged(t.kube, ns, "base", 4, CONVERGE_MS);
    await waitForConverged(t.kube, fresh, "web", 2, Math.max(1_000, CONVERGE_MS - (performance.now() - poisonedAt)));

    test.diagnostic(`${kv.length} keys poisoned; all readable again after ${repairedMs} ms; converged after ${Math.round(performance.now() - poisonedAt)} ms`);
    for (const name of SERVICES) assert.equal(t.stack.service(name).pid, pids.get(name), `${name} was restarted (it died)`);
    // Each service counted the records it could not read: the actor its member and shard records and the intent log's
    // layout, the executors the shard records, the watcher its lease.
    const counted = async (service: string, prefix: string) => dropped(await t.metrics(service), prefix);
    assert.ok((await counted("actor-0", "$KV.members.m.")) >= 1, "actor: member records");
    assert.ok((await counted("actor-0", layout)) >= 1, "actor: the intent log's layout");
    assert.ok((await counted("actor-0", "$KV.shards.")) >= 1, "actor: shard records");
    assert.ok((await counted("pvc-provisioner", "$KV.shards.")) >= 1, "pvc-provisioner: shard records");
    assert.ok((await counted("watcher", "$KV.leases.")) >= 1, "watcher: its lease");
  });
});
