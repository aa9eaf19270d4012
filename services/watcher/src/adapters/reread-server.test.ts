// The watcher's answers to re-read requests (ADR 0088), in-process against a real nats-server (2.9) and the
// simulator over HTTP. Garbage published on an object subject by another client stays the subject's last value
// until an owner asks: then the active watcher reads the subject back, publishes the object again from its mirror
// (or purges a subject it knows no object for), and answers; a standby stays silent.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { errors, headers as natsHeaders } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Counter } from "prom-client";
import { DecodeError, HEADERS, STREAMS, codecs, objectSubjects, rereadSubjects, shard } from "#protocol";
import type { ObjectAddress, ObjectRereadResult } from "#protocol";
import { createNamespace, eventually, natsClient, podBody, settle, startSim, startTestWatcher, statefulSet, watcherConfig } from "#test-support/watcher-harness.ts";
import type { ObjectMeta, SimHandle, TestWatcher } from "#test-support/watcher-harness.ts";
import { startNatsServer } from "../../../../tools/lib/nats-server.ts";
import { RESOURCES } from "../../../common/src/kube.ts";

const NS = "reread";
const SHARD = shard(NS, "web");
const GARBAGE = [
  new Uint8Array([0xc1, 0x05, 0x06]),
  new Uint8Array([0x95, 0xa3, 0x61, 0x62, 0x63]),
  new TextEncoder().encode("{}"),
  new Uint8Array([0x80]),
];

async function total(counter: Counter<string>, labels: Record<string, string> = {}): Promise<number> {
  const data = await counter.get();
  return data.values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

describe("watcher: re-read requests", () => {
  let k: SimHandle;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;
  let active: TestWatcher;
  const cleanups: (() => Promise<void>)[] = [];
  const natsUrl = { value: "" };

  const address = (kind: ObjectAddress["kind"], name: string): ObjectAddress => ({ shard: SHARD, kind, namespace: NS, name });
  const ask = async (kind: ObjectAddress["kind"], name: string, body?: Uint8Array, timeoutMs = 2_000): Promise<ObjectRereadResult> => {
    const request = codecs.objectReread.encode({
      type: "object.reread",
      shard: SHARD,
      kind: kind === "pod" ? "Pod" : kind === "sts" ? "StatefulSet" : kind === "pvc" ? "PersistentVolumeClaim" : "ControllerRevision",
      namespace: NS,
      name,
      seq: 0,
      reason: "invalid",
      requestedBy: "actor-test",
    });
    const reply = await nc.request(rereadSubjects.build(address(kind, name)), body ?? request, { timeout: timeoutMs });
    return codecs.objectRereadResult.decode(reply.data);
  };
  /** The subject's last message decoded, or why it cannot be. */
  const lastOf = async (subject: string) => {
    const message = await jsm.streams.getMessage(STREAMS.objects, { last_by_subj: subject });
    if (message === null) return "empty";
    try {
      return codecs.objectEnvelope.decode(message.data);
    } catch (error) {
      if (error instanceof DecodeError) return `garbage (${error.reason})`;
      throw error;
    }
  };
  const poison = async (subject: string, h?: ReturnType<typeof natsHeaders>) => {
    for (const data of GARBAGE) await js.publish(subject, data, h ? { headers: h } : {});
  };

  before(async () => {
    const nats = await startNatsServer();
    natsUrl.value = nats.url;
    cleanups.push(() => nats.stop());
    const sim = await startSim();
    k = sim;
    cleanups.push(() => sim.stop());
    nc = await natsClient(nats.url);
    cleanups.push(() => nc.close());
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    await createNamespace(k.client, NS);
    const created = await k.client.create<ObjectMeta>({ ...RESOURCES.statefulsets, namespace: NS }, statefulSet("web"));
    await k.client.create({ ...RESOURCES.pods, namespace: NS }, podBody("web-0", { labels: { app: "web" }, owner: { name: "web", uid: created.metadata.uid } }));
    await settle(k.client, NS);
    active = await startTestWatcher(watcherConfig({ name: "w-active", natsUrl: nats.url, kubeconfig: k.kubeconfig, namespace: NS }));
    cleanups.push(() => active.stop());
    await eventually("the watcher is active and ready", () => active.isLeader() && active.isReady());
    assert.equal(await active.flush(8_000), true);
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("publishes a poisoned object again from its mirror, and says the subject is valid afterwards", async () => {
    const subject = objectSubjects.build(address("pod", "web-0"));
    await poison(subject);
    assert.equal(await lastOf(subject), "garbage (invalid)", "the empty map is the last value");
    assert.equal((await ask("pod", "web-0")).outcome, "republishing");
    await eventually("web-0 published again", async () => {
      const last = await lastOf(subject);
      return typeof last !== "string" && last.type === "object.put" && last.name === "web-0";
    });
    assert.equal((await ask("pod", "web-0")).outcome, "valid");
    assert.ok((await total(active.metrics.rereads, { outcome: "republishing" })) >= 1);
  });

  it("sees through garbage that carries the object's own headers: the payload decides", async () => {
    const subject = objectSubjects.build(address("sts", "web"));
    const message = await jsm.streams.getMessage(STREAMS.objects, { last_by_subj: subject });
    assert.ok(message);
    const forged = natsHeaders();
    for (const key of [HEADERS.uid, HEADERS.resourceVersion, HEADERS.op]) forged.set(key, message.header.get(key));
    await poison(subject, forged);
    assert.equal((await ask("sts", "web")).outcome, "republishing");
    await eventually("the set published again", async () => typeof (await lastOf(subject)) !== "string");
  });

  it("purges a poisoned subject it knows no object for, and answers absent", async () => {
    const subject = objectSubjects.build(address("pod", "ghost"));
    await poison(subject);
    const answer = await ask("pod", "ghost");
    assert.equal(answer.outcome, "absent");
    assert.equal(await lastOf(subject), "empty");
    assert.equal((await ask("pod", "ghost")).outcome, "absent");
  });

  it("counts and ignores a request it cannot read, and one whose body names another subject", async () => {
    const dropped = async (reason: string) => {
      const text = await active.registry.metrics();
      const line = text.split("\n").find((l) => l.startsWith("stsfleet_dropped_messages_total") && l.includes(`reason="${reason}"`) && l.includes("svc.reread"));
      return line === undefined ? 0 : Number(line.split(" ").at(-1));
    };
    for (const data of GARBAGE) await assert.rejects(ask("pod", "web-0", data, 300), errors.TimeoutError);
    const other = codecs.objectReread.encode({ type: "object.reread", shard: SHARD, kind: "Pod", namespace: NS, name: "web-9", seq: 0, reason: "invalid", requestedBy: "x" });
    await assert.rejects(ask("pod", "web-0", other, 300), errors.TimeoutError);
    assert.ok((await dropped("malformed")) + (await dropped("invalid")) >= 4, "garbage counted");
    assert.equal(await dropped("mismatch"), 1);
  });

  it("a standby never answers: only the active watcher does", async () => {
    const standby = await startTestWatcher(watcherConfig({ name: "w-standby", natsUrl: natsUrl.value, kubeconfig: k.kubeconfig, namespace: NS }));
    try {
      await eventually("the standby is ready", () => standby.isReady());
      assert.equal(standby.isLeader(), false);
      assert.equal((await ask("pod", "web-0")).outcome, "valid");
      await eventually("the standby saw the request", async () => (await total(standby.metrics.rereads, { outcome: "standby" })) >= 1);
      assert.equal(await total(standby.metrics.rereads, { outcome: "valid" }), 0);
    } finally {
      await standby.stop();
    }
  });
});
