// Messaging spans with the real SDK: a producer span's own context travels in the headers, a consumer continues it,
// failures mark spans, and log lines written inside a span carry its ids (the pino mixin).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Writable } from "node:stream";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { startSpanRecorder } from "./executor/span-recorder.ts";
import type { SpanRecorder } from "./executor/span-recorder.ts";
import { createLogger } from "./logger.ts";
import { messagingAttributes, startConsumerSpan, withConsumerSpan, withProducerSpan } from "./messaging-trace.ts";

const tracer = trace.getTracer("test");
const target = { template: "svc.event.{shard}.{namespace}.{name}", subject: "svc.event.7.default.web", shard: 7 };

describe("messaging spans", () => {
  let spans: SpanRecorder;
  before(() => {
    spans = startSpanRecorder();
  });
  after(() => spans.shutdown());

  it("names spans by template and sets the messaging attributes (only those known)", () => {
    assert.deepEqual(messagingAttributes("send", { ...target, messageId: "m-1", consumerGroup: "events", bodySize: 12 }), {
      "messaging.system": "nats",
      "messaging.operation.name": "send",
      "messaging.operation.type": "send",
      "messaging.destination.name": "svc.event.7.default.web",
      "messaging.destination.template": "svc.event.{shard}.{namespace}.{name}",
      "messaging.destination.partition.id": "7",
      "messaging.message.id": "m-1",
      "messaging.consumer.group.name": "events",
      "messaging.message.body.size": 12,
    });
    assert.equal(Object.keys(messagingAttributes("process", { template: "a.{x}", subject: "a.b" })).length, 5);
  });

  it("a PRODUCER span puts its own context in the headers; the CONSUMER span continues it", async () => {
    spans.clear();
    const headers = natsHeaders();
    const sent = await withProducerSpan(tracer, target, headers, () => Promise.resolve("acked"));
    assert.equal(sent, "acked");
    const [producer] = spans.named(`send ${target.template}`);
    assert.equal(producer?.kind, SpanKind.PRODUCER);
    assert.equal(headers.get("traceparent"), `00-${producer.spanContext().traceId}-${producer.spanContext().spanId}-01`);

    const handled = await withConsumerSpan(tracer, target, headers, () => Promise.resolve(42));
    assert.equal(handled, 42);
    const [consumer] = spans.named(`process ${target.template}`);
    assert.equal(consumer?.kind, SpanKind.CONSUMER);
    assert.equal(consumer.spanContext().traceId, producer.spanContext().traceId);
    assert.equal(spans.parentOf(consumer), producer.spanContext().spanId);
  });

  it("marks a span failed when the publish throws or rejects, or the handler rejects; errors pass through", async () => {
    spans.clear();
    assert.throws(() => withProducerSpan(tracer, target, natsHeaders(), () => {
      throw new Error("closed");
    }), /closed/);
    await assert.rejects(withProducerSpan(tracer, target, natsHeaders(), () => Promise.reject(new Error("timeout"))), /timeout/);
    await assert.rejects(withConsumerSpan(tracer, target, undefined, () => Promise.reject(new Error("boom"))), /boom/);
    assert.deepEqual(
      spans.spans.map((span) => [span.name.split(" ")[0], span.status.code, span.status.message]),
      [
        ["send", SpanStatusCode.ERROR, "closed"],
        ["send", SpanStatusCode.ERROR, "timeout"],
        ["process", SpanStatusCode.ERROR, "boom"],
      ],
    );
  });

  it("a message without trace headers starts a new trace", () => {
    spans.clear();
    const { span } = startConsumerSpan(tracer, target, natsHeaders());
    span.end();
    assert.equal(spans.parentOf(spans.spans[0] ?? assert.fail("no span")), undefined);
  });

  it("log lines written inside the handler carry trace_id and span_id, also after an await", async () => {
    spans.clear();
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString("utf8")) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger({ service: "test", instance: "t", level: "info", format: "json", destination });
    logger.info("outside");
    await withConsumerSpan(tracer, target, undefined, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.info("inside");
    });
    const [consumer] = spans.spans;
    assert.deepEqual(
      lines.map((line) => [line["msg"], line["trace_id"], line["span_id"]]),
      [
        ["outside", undefined, undefined],
        ["inside", consumer?.spanContext().traceId, consumer?.spanContext().spanId],
      ],
    );
  });
});
