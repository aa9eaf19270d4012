// EventQueue alone, with a store of core/v1 Events whose creates may wait at a gate or fail: what is written,
// what is dropped (garbage, a fenced owner, a full queue), and that stop() abandons retries. Over NATS: writer.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SAMPLE_MESSAGES, codecs, eventSubjects } from "#protocol";
import type { EventRecord } from "#protocol";
import { DropReporter } from "../../common/src/executor/drops.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import { KubeApiError } from "../../common/src/kube.ts";
import { createLogger } from "../../common/src/logger.ts";
import { createCommonMetrics } from "../../common/src/metrics.ts";
import { DEFAULT_STATUS_WRITER_SETTINGS } from "./config.ts";
import { CLIENT_GO_CORRELATOR, EventCorrelator } from "./correlator.ts";
import type { CoreEvent } from "./correlator.ts";
import { EventQueue } from "./event-queue.ts";
import type { EventQueueSettings } from "./event-queue.ts";
import { EventNanos } from "./events.ts";
import { createStatusWriterMetrics } from "./metrics.ts";
import type { TakenMessage } from "./spans.ts";

const SAMPLE = SAMPLE_MESSAGES["event.record"];
const SUBJECT = eventSubjects.build({ shard: SAMPLE.shard, namespace: "default", name: "web" });

const message = (record: EventRecord | Uint8Array): TakenMessage => ({
  subject: SUBJECT,
  data: record instanceof Uint8Array ? record : codecs.eventRecord.encode(record),
  headers: undefined,
  reply: undefined,
  respond: () => false,
});

/** Events by name; creates wait at the gate, and fail with `failing` when it is set. */
class EventStore {
  readonly events = new Map<string, CoreEvent>();
  failing: Error | undefined;
  private gate: Promise<void> = Promise.resolve();
  private opening: (() => void) | undefined;
  close(): void {
    this.gate = new Promise((resolve) => (this.opening = resolve));
  }
  open(): void {
    this.opening?.();
  }
  readonly kube: KubeApi = {
    get: () => Promise.reject(new Error("not used")),
    create: async <T>(_ref: unknown, body: unknown) => {
      await this.gate;
      if (this.failing) throw this.failing;
      const event = body as CoreEvent;
      this.events.set(event.metadata.name, event);
      return event as T;
    },
    replace: () => Promise.reject(new Error("not used")),
    patch: () => Promise.reject(new Error("not used")),
  };
}

function setup(settings: Partial<EventQueueSettings> = {}, currentEpoch = SAMPLE.epoch) {
  const store = new EventStore();
  const common = createCommonMetrics("status-writer", "test");
  const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
  const metrics = createStatusWriterMetrics(common);
  const sink = { kube: store.kube, correlator: new EventCorrelator(CLIENT_GO_CORRELATOR), metrics, logger, nanos: new EventNanos(), nowMs: () => SAMPLE.occurredAtMs };
  const queue = new EventQueue(
    { ...DEFAULT_STATUS_WRITER_SETTINGS, ...settings },
    { sink, epochs: { isStale: (_shard, epoch) => epoch < currentEpoch }, metrics, drops: new DropReporter(common, logger), logger },
  );
  const counted = async (name: string, label: string) => {
    const metric = await common.registry.getSingleMetric(name)?.get();
    return metric?.values.find((v) => Object.values(v.labels).includes(label))?.value ?? 0;
  };
  return { store, queue, counted };
}

describe("EventQueue", () => {
  it("writes an Event about the record's object, as the legacy recorder would", async () => {
    const { store, queue, counted } = setup();
    queue.take(message(SAMPLE));
    await queue.stop();
    const [written] = store.events.values();
    assert.equal(written?.reason, "SuccessfulCreate");
    assert.equal(written?.involvedObject.name, "web");
    assert.equal(written?.message, SAMPLE.note);
    assert.equal(await counted("stsfleet_events_total", "created"), 1);
  });

  it("drops garbage and a fenced owner's Events, and the newest when the queue is full", async () => {
    const { store, queue, counted } = setup({ eventConcurrency: 1, eventQueueLimit: 1 }, SAMPLE.epoch + 1);
    queue.take(message(new TextEncoder().encode("{not msgpack")));
    queue.take(message(SAMPLE));
    assert.equal(await counted("stsfleet_dropped_messages_total", "malformed"), 1);
    assert.equal(await counted("stsfleet_events_total", "stale-epoch"), 1);
    store.close();
    const current = { ...SAMPLE, epoch: SAMPLE.epoch + 1 };
    queue.take(message({ ...current, reason: "First" }));
    queue.take(message({ ...current, reason: "Second" }));
    queue.take(message({ ...current, reason: "Third" }));
    assert.equal(await counted("stsfleet_dropped_messages_total", "overload"), 1);
    store.open();
    await queue.stop();
    assert.deepEqual([...store.events.values()].map((e) => e.reason).sort(), ["First", "Second"]);
  });

  it("stops retrying on stop(): an Event the server keeps failing is abandoned", async () => {
    const { store, queue, counted } = setup({ eventMaxTries: 12, eventRetryDelayMs: 60_000 });
    store.failing = new KubeApiError({ status: 503, verb: "create", path: "events", body: { reason: "ServiceUnavailable" } });
    queue.take(message(SAMPLE));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    await queue.stop();
    assert.ok(performance.now() - started < 1_000, "stop() does not wait out the retry delay");
    assert.equal(await counted("stsfleet_events_total", "abandoned"), 1);
    assert.equal(store.events.size, 0);
  });
});
