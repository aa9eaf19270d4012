import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ROOT_CONTEXT, TraceFlags, createTraceState, trace } from "@opentelemetry/api";
import type { SpanContext } from "@opentelemetry/api";
import { connect, headers } from "@nats-io/transport-node";
import { useNatsServer } from "../../test/support/nats.ts";
import { extractSpanContext, extractTraceContext, injectTraceContext } from "./trace.ts";
import type { HeaderCarrier } from "./trace.ts";

const spanContext: SpanContext = {
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  traceFlags: TraceFlags.SAMPLED,
  traceState: createTraceState("stsfleet=shard88,congo=t61rcWkgMzE"),
};

class MapCarrier implements HeaderCarrier {
  readonly map = new Map<string, string>();
  get(key: string): string {
    return this.map.get(key) ?? "";
  }
  set(key: string, value: string): void {
    this.map.set(key, value);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  keys(): string[] {
    return [...this.map.keys()];
  }
}

describe("trace context over headers", () => {
  it("injects traceparent and tracestate and extracts them back", () => {
    const carrier = new MapCarrier();
    injectTraceContext(trace.setSpanContext(ROOT_CONTEXT, spanContext), carrier);
    assert.equal(carrier.get("traceparent"), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assert.equal(carrier.get("tracestate"), "stsfleet=shard88,congo=t61rcWkgMzE");
    const extracted = extractSpanContext(carrier);
    assert.equal(extracted?.traceId, spanContext.traceId);
    assert.equal(extracted?.isRemote, true);
  });

  it("injects nothing without a valid span and extracts nothing from empty or garbage headers", () => {
    const carrier = new MapCarrier();
    injectTraceContext(ROOT_CONTEXT, carrier);
    assert.equal(carrier.keys().length, 0);
    assert.equal(extractSpanContext(undefined), undefined);
    carrier.set("traceparent", "garbage");
    assert.equal(extractSpanContext(carrier), undefined);
    assert.equal(extractTraceContext(carrier), ROOT_CONTEXT);
  });

  it("carries the context from one NATS connection to another through a real server", async () => {
    const server = await useNatsServer({ jetstream: false });
    const producer = await connect({ servers: server.url, name: "producer" });
    const consumer = await connect({ servers: server.url, name: "consumer" });
    try {
      const subscription = consumer.subscribe("trace.test", { max: 1 });
      await consumer.flush();
      const h = headers();
      injectTraceContext(trace.setSpanContext(ROOT_CONTEXT, spanContext), h);
      producer.publish("trace.test", "payload", { headers: h });
      await producer.flush();

      let received: SpanContext | undefined;
      for await (const msg of subscription) received = extractSpanContext(msg.headers);
      assert.ok(received, "a span context arrived");
      assert.equal(received.traceId, spanContext.traceId);
      assert.equal(received.spanId, spanContext.spanId);
      assert.equal(received.traceFlags, TraceFlags.SAMPLED);
      assert.equal(received.isRemote, true);
      assert.equal(received.traceState?.get("stsfleet"), "shard88");
      assert.equal(received.traceState?.serialize(), spanContext.traceState?.serialize());
    } finally {
      await producer.close();
      await consumer.close();
    }
  });
});
