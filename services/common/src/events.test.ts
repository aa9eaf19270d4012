import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { MsgHdrs, NatsConnection } from "@nats-io/transport-node";
import { SpanKind, context as otelContext, trace } from "@opentelemetry/api";
import { codecs, eventSubjects, extractSpanContext, shard as shardOf } from "#protocol";
import { startSpanRecorder } from "./executor/span-recorder.ts";
import { NatsEventRecorder, statefulSetRegarding } from "./events.ts";
import type { RecordedEvent } from "./events.ts";
import { createLogger } from "./logger.ts";

const spans = startSpanRecorder();
after(() => spans.shutdown());

interface Published {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: MsgHdrs | undefined;
}

/** A connection that keeps what was published, or refuses every publish once closed. */
class PublishedStore {
  readonly messages: Published[] = [];
  closed = false;
  readonly nats: Pick<NatsConnection, "publish"> = {
    publish: (subject, payload, options) => {
      if (this.closed) throw new Error("connection closed");
      this.messages.push({ subject, data: payload as Uint8Array, headers: options?.headers });
    },
  };
}

const SET = { namespace: "default", name: "web", uid: "0b5f7a3e-0000-4000-8000-000000000001" };
const ADDRESS = { shard: shardOf("default", "web"), namespace: "default", name: "web" };
const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
const tracer = trace.getTracer("events-test");

function event(overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    set: ADDRESS,
    epoch: 7,
    regarding: statefulSetRegarding(SET),
    eventType: "Normal",
    reason: "SuccessfulCreate",
    note: "create Pod web-0 in StatefulSet web successful",
    action: "Create",
    ...overrides,
  };
}

describe("NatsEventRecorder", () => {
  it("publishes one EventRecord on the set's event subject, stamped with the recorder's clock", () => {
    const store = new PublishedStore();
    new NatsEventRecorder({ nats: store.nats, tracer, logger, nowMs: () => 1_700_000_000_000 }).record(event());
    assert.equal(store.messages.length, 1);
    const [message] = store.messages;
    assert.equal(message?.subject, eventSubjects.build(ADDRESS));
    assert.deepEqual(codecs.eventRecord.decode(message?.data ?? new Uint8Array()), {
      type: "event.record",
      shard: ADDRESS.shard,
      epoch: 7,
      regarding: { apiVersion: "apps/v1", kind: "StatefulSet", namespace: "default", name: "web", uid: SET.uid },
      eventType: "Normal",
      reason: "SuccessfulCreate",
      note: "create Pod web-0 in StatefulSet web successful",
      action: "Create",
      occurredAtMs: 1_700_000_000_000,
    });
  });

  it("keeps the note and the action within the record's limits", () => {
    const store = new PublishedStore();
    new NatsEventRecorder({ nats: store.nats, tracer, logger, nowMs: () => 1 }).record(event({ note: "x".repeat(5_000), action: "a".repeat(300) }));
    const record = codecs.eventRecord.decode(store.messages[0]?.data ?? new Uint8Array());
    assert.equal(record.note.length, 1024);
    assert.equal(record.action.length, 128);
  });

  it("carries the caller's trace: a PRODUCER span under the active one, whose context is in the headers", () => {
    spans.clear();
    const store = new PublishedStore();
    const recorder = new NatsEventRecorder({ nats: store.nats, tracer, logger, nowMs: () => 1 });
    const parent = tracer.startSpan("turn");
    otelContext.with(trace.setSpan(otelContext.active(), parent), () => recorder.record(event()));
    parent.end();
    const [send] = spans.named(`send ${eventSubjects.template}`);
    assert.ok(send, "a send span");
    assert.equal(send.kind, SpanKind.PRODUCER);
    assert.equal(spans.parentOf(send), parent.spanContext().spanId);
    assert.equal(extractSpanContext(store.messages[0]?.headers)?.spanId, send.spanContext().spanId);
  });

  it("never throws: an Event that cannot be sent is lost", () => {
    const store = new PublishedStore();
    store.closed = true;
    assert.doesNotThrow(() => new NatsEventRecorder({ nats: store.nats, tracer, logger, nowMs: () => 1 }).record(event()));
    assert.equal(store.messages.length, 0);
  });
});
