// The status-writer in-process against a real nats-server and the simulator over real HTTP. Upstream reference:
// stateful_set_status_updater_test.go (TestStatefulSetUpdaterUpdatesSetStatus, ...ConflictFailure,
// ...GetErrorFailure) and client-go's events_cache_test.go for the Event side.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { SpanKind } from "@opentelemetry/api";
import { SAMPLE_MESSAGES, codecs, eventSubjects, shard as shardOf, statusSubjects } from "#protocol";
import type { EventRecord, StatefulSetStatus, StatusResult, StatusWrite } from "#protocol";
import { eventually, startExecutorHarness, statefulSetManifest } from "#test-support/executor-harness.ts";
import type { Harness } from "#test-support/executor-harness.ts";
import { RESOURCES } from "../../common/src/kube.ts";
import { Kubectl, findKubectl } from "../../../tools/kube-sim/src/testing/kubectl.ts";
import { startSpanRecorder } from "../../common/src/executor/span-recorder.ts";
import type { RecordedSpan, SpanRecorder } from "../../common/src/executor/span-recorder.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import { DEFAULT_STATUS_WRITER_SETTINGS } from "./config.ts";
import type { CoreEvent } from "./correlator.ts";
import { startStatusWriter } from "./writer.ts";
import type { StatusWriterHandle } from "./writer.ts";

const NAMESPACE = "default";

interface StoredSet {
  metadata: { name: string; uid: string; resourceVersion: string };
  status?: Record<string, unknown>;
}

function status(observedGeneration: number, extra: Partial<StatefulSetStatus> = {}): StatefulSetStatus {
  return { ...SAMPLE_MESSAGES["status.write"].status, observedGeneration, ...extra };
}

/** Holds every GET until opened, counting who waits: makes "a write is in flight" observable. */
class Gate {
  waiting = 0;
  private open = true;
  private release: (() => void)[] = [];
  close(): void {
    this.open = false;
  }
  openUp(): void {
    this.open = true;
    for (const resolve of this.release.splice(0)) resolve();
  }
  async pass(): Promise<void> {
    if (this.open) return;
    this.waiting += 1;
    await new Promise<void>((resolve) => this.release.push(resolve));
    this.waiting -= 1;
  }
}

describe("status-writer", () => {
  let h: Harness;
  let writer: StatusWriterHandle;
  const gate = new Gate();
  let conflictsLeft = 0;
  const epochs = new Map<number, number>();
  let spans: SpanRecorder;

  const createSet = async (name: string) =>
    h.kube.create<StoredSet>({ ...RESOURCES.statefulsets, namespace: NAMESPACE }, statefulSetManifest(name, NAMESPACE));
  const getSet = (name: string) => h.kube.get<StoredSet>({ ...RESOURCES.statefulsets, namespace: NAMESPACE, name });
  const shardEpoch = async (name: string) => {
    const shard = shardOf(NAMESPACE, name);
    let epoch = epochs.get(shard);
    if (epoch === undefined) {
      epoch = await h.claimShard(shard, "actor-0");
      epochs.set(shard, epoch);
    }
    return { shard, epoch };
  };
  const writeFor = async (set: StoredSet, s: StatefulSetStatus, overrides: Partial<StatusWrite> = {}): Promise<StatusWrite> => ({
    type: "status.write",
    ...(await shardEpoch(set.metadata.name)),
    set: { namespace: NAMESPACE, name: set.metadata.name, uid: set.metadata.uid },
    status: s,
    ...overrides,
  });
  const request = async (write: StatusWrite): Promise<StatusResult> => {
    const reply = await h.nats.request(
      statusSubjects.build({ shard: write.shard, namespace: write.set.namespace, name: write.set.name }),
      codecs.statusWrite.encode(write),
      { timeout: 5_000 },
    );
    return codecs.statusResult.decode(reply.data);
  };

  before(async () => {
    spans = startSpanRecorder();
    h = await startExecutorHarness({
      service: "status-writer",
      sim: { faults: { conflictRate: 1, random: () => (conflictsLeft-- > 0 ? 0 : 1) } },
    });
    const kube: KubeApi = {
      get: async (ref, options) => {
        await gate.pass();
        return h.kube.get(ref, options);
      },
      create: (ref, body, options) => h.kube.create(ref, body, options),
      replace: async (ref, body, options) => {
        // Gated too: a write from the writer's own copy of the set starts with the PUT (no GET).
        await gate.pass();
        return h.kube.replace(ref, body, options);
      },
      patch: (ref, body, type, options) => h.kube.patch(ref, body, type, options),
    };
    writer = await startStatusWriter({ ...DEFAULT_STATUS_WRITER_SETTINGS, eventRetryDelayMs: 20 }, { ...h.deps(), kube });
  });

  after(async () => {
    await writer.stop();
    await h.close();
    await spans.shutdown();
  });

  it("writes /status and answers with the new resourceVersion; the same status again is `unchanged`", async () => {
    const set = await createSet("web");
    const result = await request(await writeFor(set, status(1)));
    assert.equal(result.outcome, "written");
    const stored = await getSet("web");
    assert.equal(result.resourceVersion, stored.metadata.resourceVersion);
    assert.equal(stored.status?.["observedGeneration"], 1);
    assert.equal(stored.status?.["updateRevision"], "web-6b8d6b8f76");

    const again = await request(await writeFor(set, status(1)));
    assert.deepEqual(again, { type: "status.result", outcome: "unchanged", resourceVersion: stored.metadata.resourceVersion });
  });

  it("never lets observedGeneration go backwards", async () => {
    const set = await getSet("web");
    assert.equal((await request(await writeFor(set, status(3, { readyReplicas: 3 })))).outcome, "written");
    const older = await request(await writeFor(set, status(2, { readyReplicas: 0 })));
    assert.equal(older.outcome, "stale-generation");
    const stored = await getSet("web");
    assert.equal(stored.status?.["observedGeneration"], 3);
    assert.equal(stored.status?.["readyReplicas"], 3);
  });

  it("answers not-found for a missing set and for another incarnation (uid)", async () => {
    const set = await getSet("web");
    assert.equal((await request(await writeFor(set, status(4), { set: { namespace: NAMESPACE, name: "web", uid: "other" } }))).outcome, "not-found");
    assert.equal((await request(await writeFor({ ...set, metadata: { ...set.metadata, name: "nope" } }, status(1)))).outcome, "not-found");
  });

  it("re-reads and retries on 409 Conflict, and gives up after the bounded retries (TestStatefulSetStatusUpdaterUpdateReplicasConflict)", async () => {
    const set = await getSet("web");
    const conflictsBefore = await h.metricValue("stsfleet_status_conflicts_total");
    conflictsLeft = 2;
    assert.equal((await request(await writeFor(set, status(5)))).outcome, "written");
    assert.equal(await h.metricValue("stsfleet_status_conflicts_total"), conflictsBefore + 2);

    conflictsLeft = 100;
    const failed = await request(await writeFor(set, status(6)));
    conflictsLeft = 0;
    assert.equal(failed.outcome, "failed");
    assert.match(failed.message ?? "", /gave up after 5 conflicting writes/);
    assert.equal((await getSet("web")).status?.["observedGeneration"], 5);
  });

  it("coalesces per set: a newer write replaces a waiting one (superseded), the latest is written", async () => {
    const set = await getSet("web");
    gate.close();
    const first = request(await writeFor(set, status(7)));
    await eventually(() => gate.waiting === 1, "first write in flight");
    const second = request(await writeFor(set, status(8)));
    const secondResult = await (async () => {
      const third = request(await writeFor(set, status(9, { availableReplicas: 1 })));
      const r = await second;
      gate.openUp();
      return { second: r, third: await third };
    })();
    assert.equal(secondResult.second.outcome, "superseded");
    assert.equal(secondResult.third.outcome, "written", JSON.stringify(secondResult.third));
    assert.equal((await first).outcome, "written");
    assert.equal(secondResult.third.outcome, "written");
    const stored = await getSet("web");
    assert.equal(stored.status?.["observedGeneration"], 9);
    assert.equal(stored.status?.["availableReplicas"], 1);
  });

  it("answers stale-epoch to a fenced owner, counted, and writes nothing", async () => {
    const set = await getSet("web");
    const { shard, epoch } = await shardEpoch("web");
    const newEpoch = await h.claimShard(shard, "actor-1");
    epochs.set(shard, newEpoch);
    const before = await h.metricValue("stsfleet_stale_epoch_rejected_total", { subject: statusSubjects.template });
    const result = await request(await writeFor(set, status(10), { epoch }));
    assert.equal(result.outcome, "stale-epoch");
    assert.equal(await h.metricValue("stsfleet_stale_epoch_rejected_total", { subject: statusSubjects.template }), before + 1);
    assert.equal((await getSet("web")).status?.["observedGeneration"], 9);
    assert.equal((await request(await writeFor(set, status(10)))).outcome, "written", "the new owner's epoch is fine");
  });

  it("drops garbage, truncated and wrongly typed requests with a `failed` answer, counted by reason", async () => {
    const set = await getSet("web");
    const valid = codecs.statusWrite.encode(await writeFor(set, status(11)));
    const subject = statusSubjects.build({ shard: shardOf(NAMESPACE, "web"), namespace: NAMESPACE, name: "web" });
    const ask = async (on: string, data: Uint8Array) => codecs.statusResult.decode((await h.nats.request(on, data, { timeout: 5_000 })).data);
    const dropped = (reason: string) => h.metricValue("stsfleet_dropped_messages_total", { subject: statusSubjects.template, reason });
    for (const [data, on] of [
      [new Uint8Array(), subject],
      [new Uint8Array([0xc1, 0x00]), subject],
      [valid.slice(0, valid.length - 3), subject],
      [codecs.pvcCommand.encode(SAMPLE_MESSAGES["pvc.create"]), subject],
      [valid, "svc.status.1.Default.web"],
      [valid, statusSubjects.build({ shard: (shardOf(NAMESPACE, "web") + 1) % 256, namespace: NAMESPACE, name: "web" })],
    ] as const) {
      const answer = await ask(on, data);
      assert.equal(answer.outcome, "failed");
      assert.match(answer.message ?? "", /^dropped: /);
    }
    h.nats.publish(subject, new Uint8Array([0xff]));
    await eventually(async () => (await dropped("malformed")) + (await dropped("invalid")) === 4, "malformed and invalid counted");
    assert.equal(await dropped("empty"), 1);
    assert.equal(await dropped("subject"), 1);
    assert.equal(await dropped("mismatch"), 1);
    assert.equal((await request(await writeFor(set, status(11)))).outcome, "written", "still serving");
  });

  describe("events", () => {
    const record = async (set: StoredSet, reason: string, note: string, overrides: Partial<EventRecord> = {}): Promise<void> => {
      const { shard, epoch } = await shardEpoch(set.metadata.name);
      const message: EventRecord = {
        type: "event.record",
        shard,
        epoch,
        regarding: { apiVersion: "apps/v1", kind: "StatefulSet", namespace: NAMESPACE, name: set.metadata.name, uid: set.metadata.uid },
        eventType: reason.startsWith("Failed") ? "Warning" : "Normal",
        reason,
        note,
        action: "Create",
        occurredAtMs: Date.now(),
        ...overrides,
      };
      h.nats.publish(eventSubjects.build({ shard, namespace: NAMESPACE, name: set.metadata.name }), codecs.eventRecord.encode(message));
    };
    // What kubectl describe asks for (searchEvents: involvedObject name, namespace, kind and uid).
    const eventsOf = async (set: StoredSet): Promise<CoreEvent[]> => {
      const fieldSelector = [
        `involvedObject.name=${set.metadata.name}`,
        `involvedObject.namespace=${NAMESPACE}`,
        "involvedObject.kind=StatefulSet",
        `involvedObject.uid=${set.metadata.uid}`,
      ].join(",");
      return (await h.kube.list<{ items: CoreEvent[] }>({ group: "", version: "v1", resource: "events", namespace: NAMESPACE }, { fieldSelector })).items;
    };
    const eventOutcomes = (outcome: string) => h.metricValue("stsfleet_events_total", { outcome });

    it("writes core/v1 Events as the legacy recorder does, and counts identical ones up with a PATCH", async () => {
      const set = await getSet("web");
      await record(set, "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful");
      await eventually(async () => (await eventsOf(set)).length === 1, "event written");
      const [event] = await eventsOf(set);
      assert.ok(event);
      assert.match(event.metadata.name, /^web\.[0-9a-f]+$/);
      assert.deepEqual(event.involvedObject, { kind: "StatefulSet", namespace: NAMESPACE, name: "web", uid: set.metadata.uid, apiVersion: "apps/v1" });
      assert.deepEqual(
        [event.type, event.reason, event.message, event.source, event.count, event.reportingComponent],
        ["Normal", "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful", { component: "statefulset-controller" }, 1, "statefulset-controller"],
      );
      assert.match(event.firstTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

      await record(set, "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful");
      await record(set, "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful");
      await eventually(async () => (await eventsOf(set))[0]?.count === 3, "count bumped");
      assert.equal((await eventsOf(set)).length, 1, "no new objects for identical events");
      assert.equal(await eventOutcomes("patched"), 2);
    });

    it("rate-limits per object: 25 at once, the rest skipped (client-go spam filter)", async () => {
      const set = await createSet("db");
      for (let i = 0; i < 30; i += 1) await record(set, `Reason${i}`, `note ${i}`);
      await eventually(async () => (await eventOutcomes("spam-filtered")) === 5, "five filtered");
      assert.equal((await eventsOf(set)).length, 25);
    });

    it("combines the 10th distinct message of one reason (client-go aggregation)", async () => {
      const set = await createSet("cache");
      for (let i = 0; i < 10; i += 1) await record(set, "FailedCreate", `create Pod cache-${i} in StatefulSet cache failed error: boom`);
      await eventually(async () => (await eventsOf(set)).length === 10, "ten objects");
      const combined = (await eventsOf(set)).filter((e) => e.message.startsWith("(combined from similar events): "));
      assert.equal(combined.length, 1);
      assert.equal(combined[0]?.type, "Warning");
    });

    it("drops events from a stale epoch and garbage on svc.event.>, counted", async () => {
      const set = await createSet("queue");
      const { shard, epoch } = await shardEpoch("queue");
      epochs.set(shard, await h.claimShard(shard, "actor-1"));
      await record(set, "SuccessfulCreate", "stale", { epoch });
      await eventually(async () => (await eventOutcomes("stale-epoch")) === 1, "stale event dropped");
      const subject = eventSubjects.build({ shard, namespace: NAMESPACE, name: "queue" });
      h.nats.publish(subject, new Uint8Array());
      h.nats.publish(subject, new Uint8Array([0x92, 0x01]));
      h.nats.publish(subject, codecs.statusWrite.encode(SAMPLE_MESSAGES["status.write"]));
      h.nats.publish("svc.event.x.default.queue", codecs.eventRecord.encode(SAMPLE_MESSAGES["event.record"]));
      const dropped = (reason: string) => h.metricValue("stsfleet_dropped_messages_total", { subject: eventSubjects.template, reason });
      await eventually(
        async () => (await dropped("empty")) === 1 && (await dropped("malformed")) + (await dropped("invalid")) === 2 && (await dropped("subject")) === 1,
        "drops counted",
      );
      await record(set, "SuccessfulCreate", "fresh");
      await eventually(async () => (await eventsOf(set)).some((e) => e.message === "fresh"), "still writing events");
      assert.ok(!(await eventsOf(set)).some((e) => e.message === "stale"));
    });

    const kubectlBinary = findKubectl();
    it("shows in kubectl describe sts", { skip: kubectlBinary ? false : "kubectl is not on the PATH" }, async () => {
      const kubectl = new Kubectl(kubectlBinary ?? "kubectl", h.kubeconfigPath);
      try {
        const out = await kubectl.ok(["describe", "statefulset", "web"]);
        assert.match(out, /Events:\s*\n\s*Type\s+Reason\s+Age\s+From\s+Message/);
        assert.match(out, /Normal\s+SuccessfulCreate\s+.*\(x3 over .*\)\s+statefulset-controller\s+create Pod web-0 in StatefulSet web successful/);
      } finally {
        kubectl.cleanup();
      }
    });
  });

  describe("tracing", () => {
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const senderSpanId = "b7ad6b7169203331";
    const traced = () => {
      const headers = natsHeaders();
      headers.set("traceparent", `00-${traceId}-${senderSpanId}-01`);
      return headers;
    };
    const processSpan = async (template: string): Promise<RecordedSpan> => {
      const find = () => spans.named(`process ${template}`).find((span) => span.spanContext().traceId === traceId);
      await eventually(() => find() !== undefined, `a process span for ${template} in the sender's trace`);
      const span = find();
      assert.ok(span);
      return span;
    };
    const clientChildren = (parent: RecordedSpan) =>
      spans.spans.filter((span) => span.kind === SpanKind.CLIENT && spans.parentOf(span) === parent.spanContext().spanId).map((span) => span.name);

    it("a status request: CONSUMER span in the sender's trace, the read and the /status write inside, logs carry its ids", async () => {
      spans.clear();
      const set = await createSet("traced");
      const write = await writeFor(set, status(1));
      const subject = statusSubjects.build({ shard: write.shard, namespace: NAMESPACE, name: "traced" });
      const reply = await h.nats.request(subject, codecs.statusWrite.encode(write), { timeout: 5_000, headers: traced() });
      assert.equal(codecs.statusResult.decode(reply.data).outcome, "written");
      const span = await processSpan(statusSubjects.template);
      assert.equal(span.kind, SpanKind.CONSUMER);
      assert.equal(spans.parentOf(span), senderSpanId);
      assert.deepEqual(
        [
          span.attributes["messaging.system"],
          span.attributes["messaging.destination.name"],
          span.attributes["messaging.destination.template"],
          span.attributes["messaging.destination.partition.id"],
          span.attributes["messaging.consumer.group.name"],
          span.attributes["stsfleet.status.outcome"],
        ],
        ["nats", subject, "svc.status.{shard}.{namespace}.{name}", String(write.shard), "status", "written"],
      );
      const calls = clientChildren(span);
      assert.ok(calls.includes("GET statefulsets") && calls.some((name) => /^(PUT|PATCH) statefulsets/.test(name)), `children: ${calls.join(", ")}`);
      const logged = h.logLines.find((line) => line["msg"] === "status write answered" && line["set"] === `${NAMESPACE}/traced`);
      assert.deepEqual([logged?.["trace_id"], logged?.["span_id"]], [traceId, span.spanContext().spanId]);
    });

    it("an event: CONSUMER span in the sender's trace with the Event create inside", async () => {
      spans.clear();
      const set = await getSet("traced");
      const { shard, epoch } = await shardEpoch("traced");
      const record: EventRecord = {
        type: "event.record",
        shard,
        epoch,
        regarding: { apiVersion: "apps/v1", kind: "StatefulSet", namespace: NAMESPACE, name: "traced", uid: set.metadata.uid },
        eventType: "Normal",
        reason: "SuccessfulCreate",
        note: "create Pod traced-0 in StatefulSet traced successful",
        action: "Create",
        occurredAtMs: Date.now(),
      };
      h.nats.publish(eventSubjects.build({ shard, namespace: NAMESPACE, name: "traced" }), codecs.eventRecord.encode(record), { headers: traced() });
      const span = await processSpan(eventSubjects.template);
      assert.equal(spans.parentOf(span), senderSpanId);
      assert.equal(span.attributes["messaging.consumer.group.name"], "events");
      assert.equal(span.attributes["stsfleet.event.outcome"], "created");
      assert.deepEqual(clientChildren(span), ["POST events"]);
    });
  });
});
