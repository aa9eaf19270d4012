// Garbage in the intent log only: the four garbage payloads (random bytes, a truncated MessagePack array, `{}`, an empty
// MessagePack map; the last is what the subject is left holding) on a converged set's intent-log subject. The rule is
// docs/adr/0089-garbage-in-the-intent-log.md: the owner's next append finds its own record as the newest one that
// decodes and appends over the garbage; before it, the owner took the garbage for a newer owner, dropped the shard and
// never served it again. A scale of the set converges within 30 s, the log's last entry is a record of the owner again,
// and no service died.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { DecodeError, STREAMS, codecs, intentSubjects, shard } from "#protocol";
import type { Intent } from "#protocol";
import { useStack } from "../support/stack.ts";
import { createSet, patchSet, waitForConverged } from "./helpers.ts";

const t = await useStack();
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
const CONVERGE_MS = 30_000;

const GARBAGE: readonly Uint8Array[] = [
  new Uint8Array([0xc1, 0x07, 0x5e, 0x99, 0x00, 0xff]),
  new Uint8Array([0x95, 0xa3, 0x61, 0x62, 0x63]),
  new TextEncoder().encode("{}"),
  new Uint8Array([0x80]),
];

function decoded(data: Uint8Array): Intent | undefined {
  try {
    return codecs.intent.decode(data);
  } catch (error) {
    if (error instanceof DecodeError) return undefined;
    throw error;
  }
}

describe("garbage on a converged set's intent log", () => {
  let nc: NatsConnection;
  const pids = new Map<string, number>();

  before(async () => {
    nc = await connect({ servers: t.stack.natsUrl, name: "e2e-garbage-intents" });
    for (const name of SERVICES) pids.set(name, t.stack.service(name).pid ?? -1);
  });
  after(async () => {
    await nc.drain();
  });

  it("a scale converges within 30 s and the owner appends over the garbage", async () => {
    const namespace = "e2e-garbage-intents";
    const name = "base";
    await t.createNamespace(namespace);
    await createSet(t.kube, namespace, name, { replicas: 2 });
    await waitForConverged(t.kube, namespace, name, 2);

    const subject = intentSubjects.build({ shard: shard(namespace, name), namespace, name });
    const jsm = await jetstreamManager(nc);
    const before = await jsm.streams.getMessage(STREAMS.intents, { last_by_subj: subject });
    const owner = before && decoded(before.data);
    assert.ok(owner, `the converged set has a record in ${STREAMS.intents} (${subject})`);
    const js = jetstream(nc);
    for (const data of GARBAGE) await js.publish(subject, data);
    const poisoned = await jsm.streams.getMessage(STREAMS.intents, { last_by_subj: subject });
    assert.ok(poisoned && decoded(poisoned.data) === undefined, "the subject's last entry is garbage");

    await patchSet(t.kube, namespace, name, { spec: { replicas: 4 } });
    await waitForConverged(t.kube, namespace, name, 4, CONVERGE_MS);

    const last = await jsm.streams.getMessage(STREAMS.intents, { last_by_subj: subject });
    const record = last && decoded(last.data);
    assert.ok(last && record && last.seq > poisoned.seq, "the owner appended over the garbage");
    assert.equal(record.member, owner.member);
    assert.ok(record.epoch >= owner.epoch, `epoch ${record.epoch} after ${owner.epoch}`);
    for (const service of SERVICES) assert.equal(t.stack.service(service).pid, pids.get(service), `${service} was restarted (it died)`);
  });
});
