// The shard feed's two paths against a real nats-server: the K8S_OBJS consumer and the live core-NATS copies. What
// must hold whatever order the copies arrive in: the cache shows the latest publication of every subject, a stale
// copy never takes it back (nor brings a deleted object back), and a live copy alone is enough while the stream is
// not taking publishes (its leader is being elected; ADR 0084).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream } from "@nats-io/jetstream";
import type { JetStreamClient } from "@nats-io/jetstream";
import { connect, headers as natsHeaders } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { HEADERS, codecs, formatPublicationVersion, liveObjectSubjects, objectSubjects } from "#protocol";
import type { ObjectEnvelope, PublicationVersion } from "#protocol";
import { useNatsServer } from "#test-support/nats.ts";
import { eventually } from "#test-support/executor-harness.ts";
import { createLogger } from "../../../common/src/logger.ts";
import { provisionTopology } from "../../../common/src/topology.ts";
import { ObjectStore } from "../domain/object-store.ts";
import { ShardIntake, feedJetStream } from "./intake.ts";

const SHARD = 3;
const NAMESPACE = "ns";

function pod(name: string, rv: string): ObjectEnvelope {
  return {
    type: "object.put",
    kind: "Pod",
    namespace: NAMESPACE,
    name,
    uid: `uid-${name}`,
    resourceVersion: rv,
    object: { apiVersion: "v1", kind: "Pod", metadata: { name, namespace: NAMESPACE, uid: `uid-${name}`, resourceVersion: rv } },
  };
}

function tombstone(name: string, rv: string): ObjectEnvelope {
  return { type: "object.delete", kind: "Pod", namespace: NAMESPACE, name, uid: `uid-${name}`, resourceVersion: rv };
}

describe("shard intake: stream and live copies", async () => {
  const server = await useNatsServer();
  let nc: NatsConnection;
  let js: JetStreamClient;
  let intake: ShardIntake;
  const store = new ObjectStore();
  const received: string[] = [];
  const dropped: string[] = [];
  const synced: number[] = [];

  before(async () => {
    nc = await connect({ servers: server.url });
    const topology = await provisionTopology(nc, { replicas: 1 });
    js = jetstream(nc);
    intake = new ShardIntake({
      js: feedJetStream(nc),
      jsm: topology.jsm,
      store,
      logger: createLogger({ service: "actor", instance: "test", level: "silent", format: "json" }),
      live: nc,
      listener: {
        changed: () => undefined,
        synced: (shard) => synced.push(shard),
        dropped: (reason) => dropped.push(reason),
        received: (source, outcome) => received.push(`${source}:${outcome}`),
      },
    });
    await intake.open(SHARD);
    await eventually(() => synced.includes(SHARD), "the empty shard is synced");
  });
  after(async () => {
    await intake.closeAll();
    await nc.close();
  });

  const subjectOf = (name: string) => objectSubjects.build({ shard: SHARD, kind: "pod", namespace: NAMESPACE, name });
  const headersFor = (envelope: ObjectEnvelope, version: PublicationVersion | undefined) => {
    const h = natsHeaders();
    h.set(HEADERS.uid, envelope.uid);
    h.set(HEADERS.resourceVersion, envelope.resourceVersion);
    if (version) h.set(HEADERS.publication, formatPublicationVersion(version));
    return h;
  };
  const sendLive = (envelope: ObjectEnvelope, version: PublicationVersion | undefined) =>
    nc.publish(liveObjectSubjects.fromObjectSubject(subjectOf(envelope.name)), codecs.objectEnvelope.encode(envelope), { headers: headersFor(envelope, version) });
  const sendStream = (envelope: ObjectEnvelope, version: PublicationVersion | undefined) =>
    js.publish(subjectOf(envelope.name), codecs.objectEnvelope.encode(envelope), { headers: headersFor(envelope, version) });
  const rvOf = (name: string) => store.get("Pod", NAMESPACE, name)?.resourceVersion;

  it("applies the first copy of a publication and skips the second without decoding it", async () => {
    received.length = 0;
    sendLive(pod("web-0", "10"), { epoch: 1, counter: 1 });
    await sendStream(pod("web-0", "10"), { epoch: 1, counter: 1 });
    await eventually(() => received.length === 2, "both copies arrived");
    assert.deepEqual(received, ["live:applied", "stream:stale"]);
    assert.equal(rvOf("web-0"), "10");
  });

  it("follows live copies alone while the stream takes no publishes, and keeps them over the stream's late copies", async () => {
    // The stream missed 11 and 12 (no leader), then the watcher's retry stored 12 after the live copy of 13 arrived.
    sendLive(pod("web-0", "11"), { epoch: 1, counter: 2 });
    await eventually(() => rvOf("web-0") === "11", "the live copy of rv 11 is cached");
    sendLive(pod("web-0", "13"), { epoch: 1, counter: 4 });
    await eventually(() => rvOf("web-0") === "13", "the live copy of rv 13 is cached");
    received.length = 0;
    await sendStream(pod("web-0", "12"), { epoch: 1, counter: 3 });
    await eventually(() => received.length === 1, "the stream's copy of rv 12 arrived");
    assert.deepEqual(received, ["stream:stale"]);
    assert.equal(rvOf("web-0"), "13", "an older stream copy must not take the cache back");
  });

  it("never brings a deleted object back from an older copy", async () => {
    sendLive(tombstone("web-0", "14"), { epoch: 1, counter: 5 });
    await eventually(() => store.get("Pod", NAMESPACE, "web-0") === undefined, "the tombstone applied");
    received.length = 0;
    await sendStream(pod("web-0", "13"), { epoch: 1, counter: 4 });
    sendLive(pod("web-0", "13"), { epoch: 1, counter: 4 });
    await eventually(() => received.length === 2, "both late copies arrived");
    // Either may arrive first: the stream's ack says it stored the copy, not that the feed delivered it yet.
    assert.deepEqual([...received].sort(), ["live:stale", "stream:stale"]);
    assert.equal(store.get("Pod", NAMESPACE, "web-0"), undefined);
    // A new pod of the same name comes with a later publication and is cached again.
    sendLive(pod("web-0", "20"), { epoch: 2, counter: 0 });
    await eventually(() => rvOf("web-0") === "20", "the re-created pod is cached");
  });

  it("orders by the stream alone for unversioned stream messages, and drops unversioned live copies", async () => {
    await sendStream(pod("web-1", "30"), undefined);
    await eventually(() => rvOf("web-1") === "30", "the unversioned stream message applied");
    sendLive(pod("web-1", "31"), undefined);
    await eventually(() => dropped.includes("unversioned"), "the unversioned live copy was dropped");
    assert.equal(rvOf("web-1"), "30");
    sendLive(pod("web-1", "32"), { epoch: 2, counter: 1 });
    await eventually(() => rvOf("web-1") === "32", "a versioned copy follows an unversioned message");
  });

  it("counts a malformed live copy and keeps going", async () => {
    nc.publish(liveObjectSubjects.fromObjectSubject(subjectOf("web-2")), new TextEncoder().encode("not msgpack"), {
      headers: headersFor(pod("web-2", "1"), { epoch: 2, counter: 2 }),
    });
    sendLive(pod("web-2", "40"), { epoch: 2, counter: 3 });
    await eventually(() => rvOf("web-2") === "40", "the valid copy after the malformed one is cached");
    assert.ok(dropped.some((reason) => reason !== "unversioned"), `dropped: ${dropped.join(", ")}`);
  });

  it("stops taking live copies when the shard is closed", async () => {
    await intake.close(SHARD);
    received.length = 0;
    sendLive(pod("web-3", "50"), { epoch: 2, counter: 4 });
    await nc.flush();
    await sleep(50);
    assert.deepEqual(received, []);
    assert.equal(store.get("Pod", NAMESPACE, "web-3"), undefined);
  });
});
