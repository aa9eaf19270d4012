// Object messages the shard feed cannot read, against a real nats-server and a scripted watcher on svc.reread.>
// (ADR 0088). A stream message that does not decode, or is about another object than its subject names, changes
// nothing in the cache, is counted, and is the subject's last value: the subject is marked unreadable (the sets of
// its shard and namespace are incomplete when the cache holds no value of the object) and the watcher is asked to
// publish it again. The next readable message makes it known again. A live copy that cannot be read is only counted.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream } from "@nats-io/jetstream";
import type { JetStreamClient } from "@nats-io/jetstream";
import { connect, headers as natsHeaders } from "@nats-io/transport-node";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { HEADERS, codecs, formatPublicationVersion, liveObjectSubjects, objectSubjects, rereadSubjects, shard as shardOf } from "#protocol";
import type { ObjectEnvelope, ObjectReread, ObjectRereadOutcome } from "#protocol";
import { eventually } from "#test-support/executor-harness.ts";
import { startNatsServer } from "../../../../tools/lib/nats-server.ts";
import type { RunningNatsServer } from "../../../../tools/lib/nats-server.ts";
import { createLogger } from "../../../common/src/logger.ts";
import { provisionTopology } from "../../../common/src/topology.ts";
import { ObjectStore } from "../domain/object-store.ts";
import type { SubjectRef } from "../domain/object-store.ts";
import { ShardIntake, feedJetStream } from "./intake.ts";
import { ObjectRereads } from "./rereads.ts";

const NS = "ns";
const SHARD = shardOf(NS, "web");
const GARBAGE = [
  new Uint8Array([0xc1, 0x01, 0x02, 0x03]),
  new Uint8Array([0x95, 0xa3, 0x61, 0x62, 0x63]),
  new TextEncoder().encode("{}"),
  new Uint8Array([0x80]),
];

const owner = { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "uid-web", controller: true };

function put(kind: "StatefulSet" | "Pod", name: string, rv: string): ObjectEnvelope {
  const metadata = { name, namespace: NS, uid: `uid-${name}`, resourceVersion: rv, ...(kind === "Pod" ? { ownerReferences: [owner] } : {}) };
  const spec = kind === "StatefulSet" ? { selector: { matchLabels: { app: "web" } } } : {};
  return { type: "object.put", kind, namespace: NS, name, uid: metadata.uid, resourceVersion: rv, object: { apiVersion: "v1", kind, metadata, spec } };
}

const subjectOf = (kind: "sts" | "pod", name: string) => objectSubjects.build({ shard: SHARD, kind, namespace: NS, name });
const podRef = (name: string): SubjectRef => ({ shard: SHARD, kind: "Pod", namespace: NS, name });

describe("shard intake: messages it cannot read", () => {
  let server: RunningNatsServer;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let intake: ShardIntake;
  let rereads: ObjectRereads;
  let watcher: Subscription;
  const store = new ObjectStore();
  const dropped: string[] = [];
  const changed: string[] = [];
  const synced: number[] = [];
  const requests: ObjectReread[] = [];
  /** What the scripted watcher answers per object name ("republishing" when not set). */
  const answers = new Map<string, ObjectRereadOutcome>();
  let version = 0;

  const headersFor = (envelope: ObjectEnvelope) => {
    const h = natsHeaders();
    h.set(HEADERS.uid, envelope.uid);
    h.set(HEADERS.resourceVersion, envelope.resourceVersion);
    h.set(HEADERS.publication, formatPublicationVersion({ epoch: 1, counter: version++ }));
    return h;
  };
  const publish = (subject: string, envelope: ObjectEnvelope) => js.publish(subject, codecs.objectEnvelope.encode(envelope), { headers: headersFor(envelope) });
  const poison = async (subject: string) => {
    let seq = 0;
    for (const data of GARBAGE) seq = (await js.publish(subject, data)).seq;
    return seq;
  };

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const topology = await provisionTopology(nc, { replicas: 1 });
    js = jetstream(nc);
    watcher = nc.subscribe(rereadSubjects.all, {
      callback: (error, message) => {
        if (error !== null) return;
        const request = codecs.objectReread.decode(message.data);
        requests.push(request);
        const outcome = answers.get(request.name) ?? "republishing";
        message.respond(codecs.objectRereadResult.encode({ type: "object.reread.result", outcome, seq: request.seq }));
      },
    });
    // The replay of a new owner finds web-1's subject holding garbage, after valid copies of the set and web-0.
    await publish(subjectOf("sts", "web"), put("StatefulSet", "web", "1"));
    await publish(subjectOf("pod", "web-0"), put("Pod", "web-0", "2"));
    await publish(subjectOf("pod", "web-1"), put("Pod", "web-1", "3"));
    await poison(subjectOf("pod", "web-1"));
    const logger = createLogger({ service: "actor", instance: "test", level: "silent", format: "json" });
    rereads = new ObjectRereads({
      nats: nc,
      member: "actor-0",
      logger,
      absent: (ref) => {
        for (const key of store.markReadable(ref).unblocked) changed.push(`${key}:readable`);
      },
      options: { retryMs: 200 },
    });
    intake = new ShardIntake({
      js: feedJetStream(nc),
      jsm: topology.jsm,
      store,
      logger,
      live: nc,
      rereads,
      listener: {
        changed: (key, reason) => changed.push(`${key}:${reason}`),
        synced: (shard) => synced.push(shard),
        dropped: (reason, source) => dropped.push(`${source}:${reason}`),
      },
    });
    await intake.open(SHARD);
    await eventually(() => synced.includes(SHARD), "the shard is synced");
  });
  after(async () => {
    rereads.close();
    await intake.closeAll();
    watcher.unsubscribe();
    await nc.close();
    // After the client: a server stopped first leaves the client writing to a closed socket.
    await server.stop();
  });

  it("replay: a pod whose subject holds garbage is unknown, its set incomplete, and the watcher is asked until it publishes the pod", async () => {
    assert.equal(store.get("Pod", NS, "web-1"), undefined);
    assert.ok(store.get("Pod", NS, "web-0"));
    assert.equal(store.isIncomplete("ns/web"), true);
    assert.deepEqual(dropped, ["stream:invalid"], "only the last value is replayed: the empty map");
    await eventually(() => requests.length >= 2, "asked, and asked again while nothing readable came", 3_000);
    assert.deepEqual(
      requests.map((r) => `${r.kind} ${r.namespace}/${r.name} ${r.reason}`),
      requests.map(() => "Pod ns/web-1 invalid"),
    );
    // The watcher publishes web-1 again from its mirror.
    changed.length = 0;
    await publish(subjectOf("pod", "web-1"), put("Pod", "web-1", "3"));
    await eventually(() => !store.isIncomplete("ns/web"), "known again");
    assert.equal(store.get("Pod", NS, "web-1")?.resourceVersion, "3");
    assert.ok(changed.includes("ns/web:Pod"), `the set is told: ${changed.join(", ")}`);
    const asked = requests.length;
    await sleep(500);
    assert.equal(requests.length, asked, "not asked again");
    assert.equal(rereads.size, 0);
  });

  it("following: garbage after a valid copy keeps the cached object, blocks nothing, and is repaired all the same", async () => {
    requests.length = 0;
    dropped.length = 0;
    await poison(subjectOf("pod", "web-0"));
    await eventually(() => dropped.length >= 4 && requests.length >= 1, "four drops, one request", 10_000);
    assert.equal(dropped.length, 4, dropped.join(", "));
    assert.ok(dropped.every((d) => d === "stream:malformed" || d === "stream:invalid"), dropped.join(", "));
    assert.equal(store.get("Pod", NS, "web-0")?.resourceVersion, "2", "the last value stands");
    assert.equal(store.isIncomplete("ns/web"), false);
    assert.deepEqual(new Set(requests.map((r) => r.name)), new Set(["web-0"]), "one subject, deduplicated");
    await publish(subjectOf("pod", "web-0"), put("Pod", "web-0", "2"));
    await eventually(() => store.unreadableCount() === 0, "repaired");
  });

  it("takes an envelope about another object than its subject names as unreadable", async () => {
    requests.length = 0;
    dropped.length = 0;
    await publish(subjectOf("pod", "web-2"), put("Pod", "web-7", "9"));
    await eventually(() => requests.length >= 1, "a request for web-2");
    assert.deepEqual(dropped, ["stream:mismatch"]);
    assert.equal(store.get("Pod", NS, "web-7"), undefined, "not applied under the name it claims");
    assert.equal(requests[0]?.name, "web-2");
    assert.equal(store.isIncomplete("ns/web"), true);
    // The watcher knows no web-2: it purges the subject and says so; the set is complete again.
    answers.set("web-2", "absent");
    changed.length = 0;
    await eventually(() => !store.isIncomplete("ns/web"), "the absent answer makes the subject known", 3_000);
    assert.ok(changed.includes("ns/web:readable"), changed.join(", "));
    assert.equal(store.markReadable(podRef("web-2")).wasUnreadable, false);
  });

  it("takes the stream's copy of a publication whose live copy came first as readable, unless it is garbage with a copied header", async () => {
    requests.length = 0;
    const envelope = put("Pod", "web-3", "30");
    const h = headersFor(envelope);
    const subject = subjectOf("pod", "web-3");
    nc.publish(liveObjectSubjects.fromObjectSubject(subject), codecs.objectEnvelope.encode(envelope), { headers: h });
    await eventually(() => store.get("Pod", NS, "web-3") !== undefined, "the live copy applied");
    // Garbage lands in the stream before the watcher's own publish of the same version, which is then stale.
    await poison(subject);
    await eventually(() => store.isUnreadable(podRef("web-3")), "marked");
    await js.publish(subject, new Uint8Array([0xc1]), { headers: h });
    await sleep(200);
    assert.equal(store.isUnreadable(podRef("web-3")), true, "garbage under a stale version header is still garbage");
    await js.publish(subject, codecs.objectEnvelope.encode(envelope), { headers: h });
    await eventually(() => !store.isUnreadable(podRef("web-3")), "the stale but readable copy makes the subject known");
    assert.equal(rereads.size, 0);
  });

  it("only counts a live copy it cannot read: the stream's copy of the subject is what the next owner replays", async () => {
    requests.length = 0;
    dropped.length = 0;
    const live = liveObjectSubjects.fromObjectSubject(subjectOf("pod", "web-0"));
    const h = natsHeaders();
    h.set(HEADERS.publication, formatPublicationVersion({ epoch: 1, counter: version++ }));
    for (const data of GARBAGE) nc.publish(live, data, { headers: h });
    for (const data of GARBAGE) nc.publish(live, data);
    await eventually(() => dropped.length === 8, "every copy counted");
    assert.equal(dropped.filter((d) => d === "live:unversioned").length, 4);
    assert.ok(dropped.every((d) => d.startsWith("live:")), dropped.join(", "));
    await sleep(300);
    assert.equal(requests.length, 0);
    assert.equal(store.unreadableCount(), 0);
    assert.equal(store.get("Pod", NS, "web-0")?.resourceVersion, "2");
  });
});
