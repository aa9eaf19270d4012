// The pvc-provisioner in-process against a real nats-server and the simulator over HTTP. Upstream reference:
// stateful_pod_control_test.go (TestStatefulPodControlCreatesPods, TestStatefulPodControlCreatePodPVCGetFailure,
// TestStatefulPodControlCreatePodPVCDeleting) for what claim creation does and which events it records.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import type { JetStreamClient } from "@nats-io/jetstream";
import { headers as natsHeaders, nanos } from "@nats-io/transport-node";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { Subscription } from "@nats-io/transport-node";
import { STREAMS, SAMPLE_MESSAGES, codecs, eventSubjects, pvcCommandSubjects, shard as shardOf } from "#protocol";
import type { EventRecord, PvcCreate, PvcUpdateOwnerRefs } from "#protocol";
import { eventually, startExecutorHarness, statefulSetManifest } from "#test-support/executor-harness.ts";
import type { Harness } from "#test-support/executor-harness.ts";
import { RESOURCES } from "../../common/src/kube.ts";
import { DEFAULT_PVC_SETTINGS } from "./config.ts";
import { startSpanRecorder } from "../../common/src/executor/span-recorder.ts";
import type { SpanRecorder } from "../../common/src/executor/span-recorder.ts";
import { ensureConsumer, startPvcProvisioner } from "./provisioner.ts";
import type { PvcProvisionerHandle } from "./provisioner.ts";

const NAMESPACE = "default";
const SET = { namespace: NAMESPACE, name: "web", uid: "0b5f7a3e-0000-4000-8000-000000000001" };
const SHARD = shardOf(NAMESPACE, "web");
const subject = pvcCommandSubjects.build({ shard: SHARD, namespace: NAMESPACE, name: "web" });

interface Claim {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    ownerReferences?: { uid: string; controller?: boolean }[];
    labels?: Record<string, string>;
  };
  spec: { resources: { requests: { storage: string } } };
}

function claimBody(name: string) {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name, labels: { app: "web" } },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  };
}

let sequence = 0;
function createCommand(epoch: number, podName: string, claimNames: string[]): PvcCreate {
  sequence += 1;
  return {
    type: "pvc.create",
    shard: SHARD,
    epoch,
    commandId: `${SET.uid}/${epoch}/${sequence}`,
    issuedBy: "actor-0",
    set: SET,
    podName,
    ordinal: Number(podName.split("-").pop()),
    claims: claimNames.map(claimBody),
  };
}

describe("pvc-provisioner", () => {
  let h: Harness;
  let js: JetStreamClient;
  let provisioner: PvcProvisionerHandle;
  let epoch: number;
  const events: EventRecord[] = [];
  let eventSubscription: Subscription;
  let spans: SpanRecorder;

  const publish = async (command: PvcCreate | PvcUpdateOwnerRefs, on = subject) => {
    await js.publish(on, codecs.pvcCommand.encode(command), { msgID: `${command.commandId}#${Math.random()}` });
  };
  const getClaim = (name: string) => h.kube.get<Claim>({ ...RESOURCES.persistentvolumeclaims, namespace: NAMESPACE, name });
  const claimExists = async (name: string) => {
    try {
      await getClaim(name);
      return true;
    } catch {
      return false;
    }
  };
  const commands = (type: string, outcome: string) => h.metricValue("stsfleet_pvc_commands_total", { type, outcome });
  const streamEmpty = async () => (await h.topology.jsm.streams.info(STREAMS.commands)).state.messages === 0;

  // Scripted fault injection: each write consumes two values (fail?, 500 or 429?); 0 and 0 make it a 500.
  const faultScript: number[] = [];
  const failNextWrites = (n: number) => faultScript.push(...Array.from({ length: 2 * n }, () => 0));

  before(async () => {
    spans = startSpanRecorder();
    h = await startExecutorHarness({
      service: "pvc-provisioner",
      sim: { faults: { errorRate: 1, random: () => faultScript.shift() ?? 1 } },
    });
    js = jetstream(h.nats);
    epoch = await h.claimShard(SHARD, "actor-0");
    eventSubscription = h.nats.subscribe(eventSubjects.all, {
      callback: (_error, message) => {
        events.push(codecs.eventRecord.decode(message.data));
      },
    });
    provisioner = await startPvcProvisioner(
      { ...DEFAULT_PVC_SETTINGS, ackWaitMs: 2_000, retryBackoffMs: [50, 100], maxDeliver: 4 },
      h.deps(),
    );
    await eventually(() => provisioner.readiness.get("consumer")?.() === true, "consumer bound");
  });

  after(async () => {
    eventSubscription.unsubscribe();
    await provisioner.stop();
    await h.close();
    await spans.shutdown();
  });

  it("creates each claim once with SuccessfulCreate; the same command again is a no-op (idempotent redelivery)", async () => {
    const command = createCommand(epoch, "web-0", ["data-web-0", "logs-web-0"]);
    await publish(command);
    await eventually(async () => (await commands("pvc.create", "created")) === 1, "first delivery created");
    await publish({ ...command, commandId: `${command.commandId}-again` });
    await eventually(async () => (await commands("pvc.create", "exists")) === 1, "second delivery found the claims");

    const claim = await getClaim("data-web-0");
    assert.equal(claim.metadata.labels?.["app"], "web");
    assert.equal(claim.spec.resources.requests.storage, "1Gi");
    assert.equal(claim.metadata.ownerReferences, undefined, "no owner references at creation (upstream)");
    assert.ok(await claimExists("logs-web-0"));
    const list = await h.kube.list<{ items: Claim[] }>({ ...RESOURCES.persistentvolumeclaims, namespace: NAMESPACE });
    assert.equal(list.items.filter((c) => c.metadata.name === "data-web-0").length, 1);

    await eventually(() => events.length >= 2, "two events published");
    assert.deepEqual(
      events.map((e) => [e.eventType, e.reason, e.note]),
      [
        ["Normal", "SuccessfulCreate", "create Claim data-web-0 Pod web-0 in StatefulSet web success"],
        ["Normal", "SuccessfulCreate", "create Claim logs-web-0 Pod web-0 in StatefulSet web success"],
      ],
      "AlreadyExists records no event",
    );
    assert.deepEqual(events[0]?.regarding, { apiVersion: "apps/v1", kind: "StatefulSet", ...SET });
    assert.equal(events[0]?.epoch, epoch);
    assert.ok(await streamEmpty(), "acknowledged commands leave the work queue");
  });

  it("terminates a command from a stale epoch, counts it, and writes nothing", async () => {
    const before = await h.metricValue("stsfleet_stale_epoch_rejected_total");
    const newEpoch = await h.claimShard(SHARD, "actor-1");
    await publish(createCommand(epoch, "web-1", ["data-web-1"]));
    await eventually(async () => (await commands("pvc.create", "stale-epoch")) === 1, "stale command rejected");
    assert.equal(await h.metricValue("stsfleet_stale_epoch_rejected_total"), before + 1);
    assert.equal(await claimExists("data-web-1"), false);
    assert.ok(await streamEmpty(), "a terminated command leaves the work queue");

    epoch = newEpoch;
    await publish(createCommand(epoch, "web-1", ["data-web-1"]));
    await eventually(() => claimExists("data-web-1"), "the new owner's command is carried out");
  });

  it("retries a claim that is being deleted and creates it once it is gone", async () => {
    await h.kube.create({ ...RESOURCES.persistentvolumeclaims, namespace: NAMESPACE }, {
      ...claimBody("data-web-2"),
      metadata: { name: "data-web-2", finalizers: ["example.com/hold"] },
    });
    await h.kube.delete({ ...RESOURCES.persistentvolumeclaims, namespace: NAMESPACE, name: "data-web-2" });
    const old = await getClaim("data-web-2");
    assert.ok(old.metadata.deletionTimestamp);

    await publish(createCommand(epoch, "web-2", ["data-web-2"]));
    await eventually(async () => (await commands("pvc.create", "terminating")) >= 1, "terminating claim reported");
    await h.kube.patch({ ...RESOURCES.persistentvolumeclaims, namespace: NAMESPACE, name: "data-web-2" }, { metadata: { finalizers: null } }, "merge");
    await eventually(async () => (await getClaim("data-web-2").catch(() => old)).metadata.uid !== old.metadata.uid, "claim recreated");
    await eventually(async () => (await commands("pvc.create", "created")) >= 3, "counted as created");
  });

  it("retries transient API failures with backoff, and terminates on the last delivery", async () => {
    failNextWrites(1);
    await publish(createCommand(epoch, "web-4", ["data-web-4"]));
    await eventually(() => claimExists("data-web-4"), "created on the second delivery");
    assert.equal(await commands("pvc.create", "retry"), 1);
    const transient = events.find((e) => e.note.startsWith("create Claim data-web-4"));
    assert.equal(transient?.reason, "FailedCreate", "each failed attempt records FailedCreate, as each failed sync upstream");
    assert.match(transient?.note ?? "", /failed error: .*injected fault/);

    failNextWrites(4);
    await publish(createCommand(epoch, "web-5", ["data-web-5"]));
    await eventually(async () => (await commands("pvc.create", "exhausted")) === 1, "gave up after max_deliver");
    assert.equal(await claimExists("data-web-5"), false);
    assert.equal(await commands("pvc.create", "retry"), 4, "three naks before the last delivery");
    assert.ok(await streamEmpty(), "the exhausted command was terminated");
  });

  it("terminates permanent API failures with FailedCreate", async () => {
    // A namespace that does not exist is a permanent failure (404), reported as FailedCreate and terminated.
    const otherSet = { ...SET, namespace: "missing" };
    const command = { ...createCommand(epoch, "web-0", ["data-web-0"]), set: otherSet, shard: shardOf("missing", "web") };
    await h.claimShard(command.shard, "actor-1").then((e) => (command.epoch = e));
    const failedBefore = await commands("pvc.create", "failed");
    await publish(command, pvcCommandSubjects.build({ shard: command.shard, namespace: "missing", name: "web" }));
    await eventually(async () => (await commands("pvc.create", "failed")) === failedBefore + 1, "permanent failure terminated");
    const isIt = (e: EventRecord) => e.reason === "FailedCreate" && e.regarding.namespace === "missing";
    await eventually(() => events.some(isIt), "FailedCreate published");
    const failed = events.find(isIt);
    assert.equal(failed?.eventType, "Warning");
    assert.match(failed?.note ?? "", /^create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: .*namespaces? "missing" not found/);
  });

  it("sets owner references guarded by uid and resourceVersion", async () => {
    const claim = await getClaim("data-web-0");
    // A real owner: the simulator's garbage collector deletes a claim whose owner does not exist.
    const owner = await h.kube.create<{ metadata: { uid: string } }>(
      { ...RESOURCES.statefulsets, namespace: NAMESPACE },
      statefulSetManifest("web", NAMESPACE),
    );
    const refs = [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }];
    const update = (overrides: Partial<PvcUpdateOwnerRefs>): PvcUpdateOwnerRefs => {
      sequence += 1;
      return {
        type: "pvc.updateOwnerRefs",
        shard: SHARD,
        epoch,
        commandId: `${SET.uid}/${epoch}/${sequence}`,
        issuedBy: "actor-1",
        set: SET,
        claimName: "data-web-0",
        claimUid: claim.metadata.uid,
        resourceVersion: claim.metadata.resourceVersion,
        ownerReferences: refs,
        ...overrides,
      };
    };
    const outcome = (o: string) => commands("pvc.updateOwnerRefs", o);

    await publish(update({}));
    await eventually(async () => (await outcome("updated")) === 1, "owner references set");
    const updated = await getClaim("data-web-0");
    assert.deepEqual(updated.metadata.ownerReferences?.map((r) => [r.uid, r.controller]), [[owner.metadata.uid, true]]);

    await publish(update({}));
    await eventually(async () => (await outcome("unchanged")) === 1, "redelivery is a no-op");

    await publish(update({ ownerReferences: [], resourceVersion: claim.metadata.resourceVersion }));
    await eventually(async () => (await outcome("stale")) === 1, "an older resourceVersion is stale");
    await publish(update({ claimUid: "someone-else", ownerReferences: [] }));
    await eventually(async () => (await outcome("stale")) === 2, "another incarnation is stale");
    await publish(update({ claimName: "data-web-404" }));
    await eventually(async () => (await outcome("gone")) === 1, "a missing claim is done");
    assert.deepEqual((await getClaim("data-web-0")).metadata.ownerReferences?.map((r) => r.uid), [owner.metadata.uid], "stale commands wrote nothing");
    // ADR 0090: an older resourceVersion whose owners are still the ones the actor planned from (the claim only moved
    // by what the actor does not read) is updated from the current version; owners that moved are stale.
    await publish(update({ ownerReferences: [], resourceVersion: claim.metadata.resourceVersion, fromOwnerReferences: [] }));
    await eventually(async () => (await outcome("stale")) === 3, "owners other than the ones planned from are stale");
    await publish(update({ ownerReferences: [], resourceVersion: claim.metadata.resourceVersion, fromOwnerReferences: refs }));
    await eventually(async () => (await outcome("updated")) === 2, "owners as planned: updated from the current version");
    assert.deepEqual((await getClaim("data-web-0")).metadata.ownerReferences ?? [], []);
    assert.ok(await streamEmpty());
  });

  it("drops garbage, truncated and wrongly typed messages on cmd.pvc.>, counted by reason and logged once per reason", async () => {
    const dropped = (reason: string) =>
      h.metricValue("stsfleet_dropped_messages_total", { subject: pvcCommandSubjects.template, reason });
    const valid = codecs.pvcCommand.encode(createCommand(epoch, "web-3", ["data-web-3"]));
    const raw = (data: Uint8Array, on = subject) => js.publish(on, data, { msgID: `raw-${Math.random()}` });
    await raw(new Uint8Array());
    await raw(new Uint8Array([0xc1, 0xff, 0x00]));
    await raw(new Uint8Array([0xc1]));
    await raw(valid.slice(0, Math.floor(valid.length / 2)));
    await raw(codecs.statusWrite.encode(SAMPLE_MESSAGES["status.write"]));
    await raw(valid, "cmd.pvc.999.default.web");
    await raw(valid, pvcCommandSubjects.build({ shard: (SHARD + 1) % 256, namespace: NAMESPACE, name: "web" }));
    await raw(codecs.pvcCommand.encode({ ...createCommand(epoch, "web-3", ["data-web-3"]), claims: [{ ...claimBody("x"), kind: "Pod" }] }));

    await eventually(async () => (await dropped("empty")) === 1, "empty counted");
    await eventually(async () => (await dropped("malformed")) + (await dropped("invalid")) === 5, "malformed and invalid counted");
    await eventually(async () => (await dropped("subject")) === 1, "bad subject counted");
    await eventually(async () => (await dropped("mismatch")) === 1, "mismatch counted");
    await eventually(streamEmpty, "every dropped message was terminated");
    const dropLogs = h.logLines.filter((line) => line["msg"] === "dropped a message");
    const perReason = new Map<string, number>();
    for (const line of dropLogs) perReason.set(String(line["reason"]), (perReason.get(String(line["reason"])) ?? 0) + 1);
    assert.ok([...perReason.values()].every((n) => n === 1), `one log line per reason: ${JSON.stringify([...perReason])}`);

    await raw(valid);
    await eventually(() => claimExists("data-web-3"), "still processing valid commands");
  });

  it("keeps the durable consumer in line with its flags; nats-server 2.9 takes backoff[0] as the ack wait", async () => {
    const settings = { ...DEFAULT_PVC_SETTINGS, ackWaitMs: 2_000, retryBackoffMs: [50, 100], maxDeliver: 4 };
    await ensureConsumer(h.topology.jsm, { ...settings, redeliveryBackoffMs: [1_500, 3_000] });
    let info = await h.topology.jsm.consumers.info(STREAMS.commands, "pvc");
    assert.deepEqual(info.config.backoff, [nanos(1_500), nanos(3_000)]);
    assert.equal(info.config.ack_wait, nanos(1_500), "the server replaced ack_wait with the first backoff value");
    await ensureConsumer(h.topology.jsm, settings);
    info = await h.topology.jsm.consumers.info(STREAMS.commands, "pvc");
    assert.deepEqual([info.config.backoff ?? [], info.config.ack_wait, info.config.max_deliver], [[], nanos(2_000), 4]);
  });

  it("continues the sender's trace: a CONSUMER span per command, with the claim calls and the event's PRODUCER span inside", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const senderSpanId = "00f067aa0ba902b7";
    const traceparents: string[] = [];
    const watch = h.nats.subscribe(eventSubjects.all, {
      callback: (_error, message) => {
        if (message.headers?.has("traceparent")) traceparents.push(message.headers.get("traceparent"));
      },
    });
    const command = createCommand(epoch, "web-7", ["data-web-7"]);
    const headers = natsHeaders();
    headers.set("traceparent", `00-${traceId}-${senderSpanId}-01`);
    await js.publish(subject, codecs.pvcCommand.encode(command), { msgID: command.commandId, headers });

    const name = `process ${pvcCommandSubjects.template}`;
    const ofTrace = () => spans.named(name).find((span) => span.spanContext().traceId === traceId);
    await eventually(() => ofTrace() !== undefined, "the command's span ended");
    const processed = ofTrace();
    assert.ok(processed);
    assert.equal(processed.kind, SpanKind.CONSUMER);
    assert.equal(spans.parentOf(processed), senderSpanId, "parented to the context in the headers");
    assert.deepEqual(
      {
        system: processed.attributes["messaging.system"],
        operation: processed.attributes["messaging.operation.type"],
        destination: processed.attributes["messaging.destination.name"],
        template: processed.attributes["messaging.destination.template"],
        partition: processed.attributes["messaging.destination.partition.id"],
        id: processed.attributes["messaging.message.id"],
        group: processed.attributes["messaging.consumer.group.name"],
        outcome: processed.attributes["stsfleet.command.outcome"],
      },
      {
        system: "nats",
        operation: "process",
        destination: subject,
        template: "cmd.pvc.{shard}.{namespace}.{name}",
        partition: String(SHARD),
        id: command.commandId,
        group: "pvc",
        outcome: "created",
      },
    );
    const processedId = processed.spanContext().spanId;
    const children = spans.spans.filter((span) => spans.parentOf(span) === processedId);
    const create = children.find((span) => span.name === "POST persistentvolumeclaims");
    assert.equal(create?.kind, SpanKind.CLIENT, `the claim create is a child; children: ${children.map((s) => s.name).join(", ")}`);
    const send = children.find((span) => span.name === `send ${eventSubjects.template}`);
    assert.equal(send?.kind, SpanKind.PRODUCER);
    assert.equal(send.attributes["messaging.destination.partition.id"], String(SHARD));
    await eventually(() => traceparents.includes(`00-${traceId}-${send.spanContext().spanId}-01`), "the event carries the send span's context");
    watch.unsubscribe();

    const logged = h.logLines.find((line) => line["msg"] === "command done" && line["commandId"] === command.commandId);
    assert.equal(logged?.["trace_id"], traceId, "logs inside the span carry its trace id");
    assert.equal(logged["span_id"], processedId);
  });

  it("marks the span of a dropped message as an error, in a trace of its own", async () => {
    spans.clear();
    h.nats.publish(subject, new Uint8Array([0xc1]));
    const name = `process ${pvcCommandSubjects.template}`;
    await eventually(() => spans.named(name).length > 0, "the dropped message's span ended");
    const dropped = spans.named(name)[0];
    assert.equal(dropped?.status.code, SpanStatusCode.ERROR);
    assert.match(dropped.status.message ?? "", /^dropped: /);
    assert.equal(spans.parentOf(dropped), undefined);
  });
});
