// The shipped NATS users and permissions (deploy/base/nats/auth.conf) against a real nats-server running the
// shipped compose configuration: each service can do its job through the services' own NATS code (topology,
// intent log, PVC consumer, shard-epoch view), and is refused with a permissions violation when it publishes to
// another service's subjects or subscribes where it must not.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { PermissionViolationError, connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  BUCKETS,
  CONSUMERS,
  STREAMS,
  SAMPLE_MESSAGES,
  codecs,
  eventSubjects,
  intentReplicaSubjects,
  intentSubjects,
  liveObjectSubjects,
  memberKeys,
  objectSubjects,
  pokeSubjects,
  probeSubjects,
  pvcCommandSubjects,
  rereadSubjects,
  shard,
  shardKeys,
  statusSubjects,
} from "#protocol";
import { IntentLog, QuorumIntentLog } from "../../services/actor/src/runtime/intents.ts";
import { createLogger } from "../../services/common/src/logger.ts";
import { inboxPrefixFor } from "../../services/common/src/nats.ts";
import { watchShardEpochs } from "../../services/common/src/shard-epochs.ts";
import { StreamPublisher } from "../../services/common/src/stream-publish.ts";
import { provisionIntentLog, provisionTopology } from "../../services/common/src/topology.ts";
import { DEFAULT_PVC_SETTINGS } from "../../services/pvc-provisioner/src/config.ts";
import { ensureConsumer } from "../../services/pvc-provisioner/src/provisioner.ts";
import { NATS_SKIP, startShippedNatsServer } from "./nats-server.ts";
import type { ShippedNatsServer } from "./nats-server.ts";
import { SERVICES, passwordVariable, testPasswords } from "./support.ts";
import type { Service } from "./support.ts";

const SET = { namespace: "default", name: "web.data" };
const SHARD = shard(SET.namespace, SET.name);
const ADDRESS = { shard: SHARD, ...SET };
const VIOLATION_WAIT_MS = 3_000;

const silentLogger = createLogger({
  service: "test",
  instance: "test",
  level: "silent",
  format: "json",
  destination: new Writable({ write: (_chunk, _encoding, done) => done() }),
});

interface Client {
  readonly service: Service;
  readonly nc: NatsConnection;
  readonly violations: PermissionViolationError[];
}

/** Waits until the server reported a violation for `operation` on `subject`, then takes it off the list. */
async function violationFor(client: Client, operation: "publish" | "subscription", subject: string): Promise<PermissionViolationError> {
  const deadline = Date.now() + VIOLATION_WAIT_MS;
  while (Date.now() < deadline) {
    const index = client.violations.findIndex((v) => v.operation === operation && v.subject === subject);
    const found = client.violations[index];
    if (found) {
      client.violations.splice(index, 1);
      return found;
    }
    await sleep(10);
  }
  assert.fail(`${client.service}: no permissions violation for ${operation} to ${subject}; got ${client.violations.map((v) => v.message).join(" | ") || "none"}`);
}

async function refusedPublish(client: Client, subject: string): Promise<void> {
  client.nc.publish(subject, new Uint8Array([1]));
  await violationFor(client, "publish", subject);
}

async function refusedSubscribe(client: Client, subject: string, queue?: string): Promise<void> {
  const sub = client.nc.subscribe(subject, queue === undefined ? {} : { queue });
  const violation = await violationFor(client, "subscription", subject);
  assert.equal(violation.queue, queue);
  assert.ok(sub.isClosed(), "the refused subscription is closed");
}

/** Nothing this client did so far was refused (a flush round-trip orders the server's answers first). */
async function noViolations(client: Client): Promise<void> {
  await client.nc.flush();
  assert.deepEqual(client.violations.map((v) => v.message), [], `${client.service} was refused something it needs`);
}

describe("NATS users and permissions (deploy/base/nats/auth.conf)", { skip: NATS_SKIP }, () => {
  const passwords = testPasswords();
  let server: ShippedNatsServer;
  const clients = new Map<Service, Client>();
  const client = (service: Service): Client => {
    const found = clients.get(service);
    assert.ok(found, service);
    return found;
  };

  before(async () => {
    server = await startShippedNatsServer(passwords);
    for (const service of SERVICES) {
      // The services' own client options: replies come to the user's inbox prefix (connectNats does the same).
      const nc = await connect({
        servers: server.url,
        user: service,
        pass: passwords[passwordVariable(service)],
        name: `test/${service}`,
        inboxPrefix: inboxPrefixFor(service),
      });
      const entry: Client = { service, nc, violations: [] };
      void (async () => {
        for await (const status of nc.status()) {
          if (status.type === "error" && status.error instanceof PermissionViolationError) entry.violations.push(status.error);
        }
      })();
      clients.set(service, entry);
    }
  });

  after(async () => {
    await Promise.all([...clients.values()].map((c) => c.nc.close()));
    await server?.stop();
  });

  it("refuses a wrong password, an unknown user and an anonymous connection", async () => {
    const attempts = [
      { user: "actor", pass: "not-the-password" },
      { user: "admin", pass: passwords[passwordVariable("actor")] },
      {},
    ];
    for (const credentials of attempts) {
      await assert.rejects(connect({ servers: server.url, ...credentials, reconnect: false, timeout: 3_000 }), /Authorization/i);
    }
  });

  it("lets every service provision or verify the streams and buckets, and none delete or purge what is not its own", async () => {
    for (const service of SERVICES) {
      const topology = await provisionTopology(client(service).nc, { replicas: 1 });
      assert.equal((await topology.jsm.streams.info(STREAMS.objects)).config.name, STREAMS.objects);
      await noViolations(client(service));
    }
    for (const service of SERVICES) {
      for (const stream of [STREAMS.objects, STREAMS.intents, STREAMS.commands, `KV_${BUCKETS.shards}`]) {
        await refusedPublish(client(service), `$JS.API.STREAM.DELETE.${stream}`);
      }
      await refusedPublish(client(service), "$JS.API.STREAM.CREATE.SOMETHING_ELSE");
    }
    for (const service of SERVICES.filter((s) => s !== "watcher")) await refusedPublish(client(service), `$JS.API.STREAM.PURGE.${STREAMS.objects}`);
  });

  it("watcher: publishes object snapshots, keeps its lease, rebuilds its index and purges tombstones", async () => {
    const watcher = client("watcher");
    const js = jetstream(watcher.nc);
    const subject = objectSubjects.build({ shard: SHARD, kind: "sts", ...SET });
    const ack = await js.publish(subject, codecs.objectEnvelope.encode(SAMPLE_MESSAGES["object.put"]), { msgID: "uid-1@1" });
    assert.equal(ack.stream, STREAMS.objects);
    watcher.nc.publish(liveObjectSubjects.fromObjectSubject(subject), codecs.objectEnvelope.encode(SAMPLE_MESSAGES["object.put"]));
    const leases = await new Kvm(watcher.nc).open(BUCKETS.leases);
    const revision = await leases.create("watcher", new TextEncoder().encode("watcher-0"));
    await leases.update("watcher", new TextEncoder().encode("watcher-0"), revision);
    assert.ok(await leases.get("watcher"));
    const jsm = await jetstreamManager(watcher.nc);
    assert.equal((await jsm.streams.getMessage(STREAMS.objects, { last_by_subj: subject }))?.seq, ack.seq);
    const index = await js.consumers.get(STREAMS.objects, { filter_subjects: objectSubjects.all, headers_only: true });
    assert.equal((await index.next({ expires: 2_000 }))?.subject, subject);
    await jsm.streams.purge(STREAMS.objects, { filter: objectSubjects.build({ shard: SHARD, kind: "pod", namespace: "default", name: "gone-0" }) });
    await noViolations(watcher);
  });

  it("watcher: may not append intents, command claims, write status, claim shards or read commands", async () => {
    const watcher = client("watcher");
    await refusedPublish(watcher, intentSubjects.build(ADDRESS));
    await refusedPublish(watcher, intentReplicaSubjects(0).build(ADDRESS));
    await refusedPublish(watcher, pvcCommandSubjects.build(ADDRESS));
    await refusedPublish(watcher, statusSubjects.build(ADDRESS));
    await refusedPublish(watcher, eventSubjects.build(ADDRESS));
    await refusedPublish(watcher, `$KV.${BUCKETS.shards}.${shardKeys.build(SHARD)}`);
    await refusedPublish(watcher, `$KV.${BUCKETS.members}.${memberKeys.build("actor-0")}`);
    await refusedPublish(watcher, `$JS.API.CONSUMER.CREATE.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}`);
    await refusedSubscribe(watcher, statusSubjects.all, CONSUMERS.statusWriter);
  });

  it("watcher answers the actors' re-read requests (ADR 0088); no other service may ask or answer them", async () => {
    const watcher = client("watcher");
    const actor = client("actor");
    const address = { shard: SHARD, kind: "pod" as const, namespace: "default", name: "web-0" };
    const requests = watcher.nc.subscribe(rereadSubjects.all, {
      callback: (error, message) => {
        if (error === null) message.respond(codecs.objectRereadResult.encode(SAMPLE_MESSAGES["object.reread.result"]));
      },
    });
    await watcher.nc.flush();
    const request = { ...SAMPLE_MESSAGES["object.reread"], shard: SHARD };
    const reply = await actor.nc.request(rereadSubjects.build(address), codecs.objectReread.encode(request), { timeout: 2_000 });
    assert.equal(codecs.objectRereadResult.decode(reply.data).type, "object.reread.result");
    requests.unsubscribe();
    await noViolations(watcher);
    await noViolations(actor);
    await refusedPublish(watcher, rereadSubjects.build(address));
    await refusedSubscribe(actor, rereadSubjects.all);
    for (const service of ["pvc-provisioner", "status-writer"] as const) {
      await refusedPublish(client(service), rereadSubjects.build(address));
      await refusedSubscribe(client(service), rereadSubjects.all);
    }
  });

  it("actor: reads its shard's objects, appends intents, owns shards, sends claim commands, status requests and events", async () => {
    const actor = client("actor");
    const js = jetstream(actor.nc);
    const jsm = await jetstreamManager(actor.nc);
    const feed = await js.consumers.get(STREAMS.objects, { filter_subjects: objectSubjects.shardFilter(SHARD), deliver_policy: DeliverPolicy.LastPerSubject });
    assert.equal((await feed.next({ expires: 2_000 }))?.subject, objectSubjects.build({ shard: SHARD, kind: "sts", ...SET }));

    const kvm = new Kvm(actor.nc);
    const members = await kvm.open(BUCKETS.members);
    const shards = await kvm.open(BUCKETS.shards);
    const member = SAMPLE_MESSAGES["member"];
    await members.create(memberKeys.build("actor-0"), codecs.memberRecord.encode({ ...member, name: "actor-0" }));
    const epoch = await shards.create(
      shardKeys.build(SHARD),
      codecs.shardRecord.encode({ type: "shard", shard: SHARD, owner: "actor-0", incarnation: member.incarnation, state: "owned" }),
    );
    const watch = await shards.watch({ key: "s.*" });
    for await (const entry of watch) {
      if (entry.key === shardKeys.build(SHARD)) break;
    }
    watch.stop();

    // Appends as the actor makes them: StreamPublisher's replies come to a subscription under the actor's inbox prefix.
    const appends = new StreamPublisher(actor.nc, { timeoutMs: 5_000, inboxPrefix: inboxPrefixFor("actor") });
    const intents = new IntentLog(appends, jsm);
    const seq = await intents.append(ADDRESS, { type: "intent.takeover", shard: SHARD, epoch, member: "actor-0", incarnation: member.incarnation });
    assert.ok(seq > 0);
    // The quorum intent log (ADR 0084): its streams, the layout record, appends to every replica.
    const placement = ["n0", "n1", "n2"];
    await provisionIntentLog({ jsm, members }, placement);
    const quorum = new QuorumIntentLog(placement.map((_, i) => new IntentLog(appends, jsm, { stream: `STS_INTENT_${i}`, subjects: intentReplicaSubjects(i) })));
    assert.equal(await quorum.append(ADDRESS, { type: "intent.takeover", shard: SHARD, epoch, member: "actor-0", incarnation: member.incarnation }), 2);
    const live = actor.nc.subscribe(liveObjectSubjects.shardFilter(SHARD));

    const command = { ...SAMPLE_MESSAGES["pvc.create"], shard: SHARD, epoch };
    const commandAck = await appends.publish(pvcCommandSubjects.build(ADDRESS), codecs.pvcCommand.encode(command), { msgId: `set-uid/${epoch}/${seq}` });
    assert.equal(commandAck.stream, STREAMS.commands);
    actor.nc.publish(eventSubjects.build(ADDRESS), codecs.eventRecord.encode(SAMPLE_MESSAGES["event.record"]));
    const pokes = actor.nc.subscribe(pokeSubjects.shardFilter(SHARD));
    const probes = actor.nc.subscribe(probeSubjects.build("actor-0"), {
      callback: (_error, message) => {
        message.respond(codecs.probeAck.encode(SAMPLE_MESSAGES["probe.ack"]));
      },
    });
    const reply = await actor.nc.request(probeSubjects.build("actor-0"), codecs.probe.encode(SAMPLE_MESSAGES["probe"]), { timeout: 2_000 });
    assert.equal(codecs.probeAck.decode(reply.data).type, "probe.ack");
    pokes.unsubscribe();
    probes.unsubscribe();
    live.unsubscribe();
    await noViolations(actor);
  });

  it("actor: may not forge cluster state, take status requests, touch the watcher's lease or the provisioner's consumer", async () => {
    const actor = client("actor");
    await refusedPublish(actor, objectSubjects.build({ shard: SHARD, kind: "pod", namespace: "default", name: "web-0" }));
    await refusedPublish(actor, liveObjectSubjects.build({ shard: SHARD, kind: "pod", namespace: "default", name: "web-0" }));
    await refusedPublish(actor, `$KV.${BUCKETS.leases}.watcher`);
    await refusedPublish(actor, `$JS.API.CONSUMER.CREATE.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}.${pvcCommandSubjects.all}`);
    await refusedPublish(actor, `$JS.ACK.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}.1.1.1.1.0`);
    await refusedPublish(actor, `$JS.API.STREAM.PURGE.${STREAMS.intents}`);
    await refusedSubscribe(actor, statusSubjects.all, CONSUMERS.statusWriter);
    await refusedSubscribe(actor, pvcCommandSubjects.all);
  });

  it("pvc-provisioner: runs its durable consumer, takes and acknowledges commands, reports events, watches shard epochs", async () => {
    const provisioner = client("pvc-provisioner");
    const jsm = await jetstreamManager(provisioner.nc);
    await ensureConsumer(jsm, DEFAULT_PVC_SETTINGS);
    await ensureConsumer(jsm, { ...DEFAULT_PVC_SETTINGS, maxAckPending: 64 });
    const consumer = await jetstream(provisioner.nc).consumers.get(STREAMS.commands, CONSUMERS.pvcProvisioner);
    assert.equal(consumer.info ? (await consumer.info()).config.ack_policy : AckPolicy.Explicit, AckPolicy.Explicit);
    const message = await consumer.next({ expires: 2_000 });
    assert.ok(message, "the actor's command arrives");
    assert.equal(codecs.pvcCommand.decode(message.data).type, "pvc.create");
    message.working();
    assert.ok(await message.ackAck());
    const advisories = provisioner.nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}`, {
      queue: CONSUMERS.pvcProvisioner,
    });
    provisioner.nc.publish(eventSubjects.build(ADDRESS), codecs.eventRecord.encode(SAMPLE_MESSAGES["event.record"]));
    const epochs = await watchShardEpochs(await new Kvm(provisioner.nc).open(BUCKETS.shards), silentLogger);
    const deadline = Date.now() + 3_000;
    while (epochs.epochOf(SHARD) === undefined && Date.now() < deadline) await sleep(10);
    assert.ok(epochs.epochOf(SHARD) !== undefined, "the shard-epoch view sees the actor's claim");
    epochs.stop();
    advisories.unsubscribe();
    await noViolations(provisioner);
  });

  it("pvc-provisioner: may not send commands, intents or status, claim shards, or read the objects stream", async () => {
    const provisioner = client("pvc-provisioner");
    await refusedPublish(provisioner, pvcCommandSubjects.build(ADDRESS));
    await refusedPublish(provisioner, intentSubjects.build(ADDRESS));
    await refusedPublish(provisioner, intentReplicaSubjects(1).build(ADDRESS));
    await refusedPublish(provisioner, statusSubjects.build(ADDRESS));
    await refusedPublish(provisioner, `$KV.${BUCKETS.shards}.${shardKeys.build(SHARD)}`);
    await refusedPublish(provisioner, `$JS.API.CONSUMER.CREATE.${STREAMS.objects}.peek.${objectSubjects.all}`);
    await refusedPublish(provisioner, `$JS.API.CONSUMER.DELETE.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}`);
    await refusedSubscribe(provisioner, liveObjectSubjects.all);
    // Dead-letter advisories only through its queue group.
    await refusedSubscribe(provisioner, `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}`);
  });

  it("status-writer: answers status requests and takes events in its queue groups, watches shard epochs", async () => {
    const writer = client("status-writer");
    const actor = client("actor");
    const requests = writer.nc.subscribe(statusSubjects.all, {
      queue: CONSUMERS.statusWriter,
      callback: (_error, message) => {
        message.respond(codecs.statusResult.encode(SAMPLE_MESSAGES["status.result"]));
      },
    });
    const events = writer.nc.subscribe(eventSubjects.all, { queue: CONSUMERS.eventWriter });
    await writer.nc.flush();
    const reply = await actor.nc.request(statusSubjects.build(ADDRESS), codecs.statusWrite.encode(SAMPLE_MESSAGES["status.write"]), { timeout: 2_000 });
    assert.equal(codecs.statusResult.decode(reply.data).type, "status.result");
    actor.nc.publish(eventSubjects.build(ADDRESS), codecs.eventRecord.encode(SAMPLE_MESSAGES["event.record"]));
    const event = await (async () => {
      for await (const message of events) return message;
      return undefined;
    })();
    assert.equal(event?.subject, eventSubjects.build(ADDRESS));
    const epochs = await watchShardEpochs(await new Kvm(writer.nc).open(BUCKETS.shards), silentLogger);
    epochs.stop();
    requests.unsubscribe();
    await noViolations(writer);
    await noViolations(actor);
  });

  it("status-writer: may not take requests outside its queue group, publish to inboxes unasked, or write anyone's subjects", async () => {
    const writer = client("status-writer");
    await refusedSubscribe(writer, statusSubjects.all);
    await refusedSubscribe(writer, statusSubjects.all, "other");
    await refusedPublish(writer, "_INBOX.unsolicited.reply");
    await refusedPublish(writer, objectSubjects.build({ shard: SHARD, kind: "sts", ...SET }));
    await refusedPublish(writer, intentSubjects.build(ADDRESS));
    await refusedPublish(writer, intentReplicaSubjects(2).build(ADDRESS));
    await refusedSubscribe(writer, liveObjectSubjects.all);
    await refusedPublish(writer, pvcCommandSubjects.build(ADDRESS));
    await refusedPublish(writer, eventSubjects.build(ADDRESS));
    await refusedPublish(writer, `$KV.${BUCKETS.members}.${memberKeys.build("actor-0")}`);
  });

  it("no service may read another's replies: each subscribes only under its own inbox prefix", async () => {
    for (const service of SERVICES) {
      const own = client(service);
      await refusedSubscribe(own, "_INBOX.>");
      for (const other of SERVICES.filter((s) => s !== service)) await refusedSubscribe(own, `${inboxPrefixFor(other)}.>`);
      const mine = own.nc.subscribe(`${inboxPrefixFor(service)}.check`);
      await noViolations(own);
      mine.unsubscribe();
    }
  });
});
