// W3C trace context (traceparent, tracestate) carried in NATS message headers, never in the body.
// Works without an OpenTelemetry SDK: the propagator is used directly, not through the global API.

import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import type { Context, SpanContext, TextMapGetter, TextMapSetter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

/** The part of nats.js `MsgHdrs` that propagation needs; MsgHdrs satisfies it structurally. */
export interface HeaderCarrier {
  get(key: string): string;
  set(key: string, value: string): void;
  has(key: string): boolean;
  keys(): string[];
}

export const TRACE_HEADERS = { traceparent: "traceparent", tracestate: "tracestate" } as const;

const propagator = new W3CTraceContextPropagator();

const setter: TextMapSetter<HeaderCarrier> = {
  set(carrier, key, value) {
    carrier.set(key, value);
  },
};

const getter: TextMapGetter<HeaderCarrier | undefined> = {
  get(carrier, key) {
    if (carrier === undefined || !carrier.has(key)) return undefined;
    return carrier.get(key);
  },
  keys(carrier) {
    return carrier?.keys() ?? [];
  },
};

/** Writes the span context of `context` (if any, and valid) into the headers. */
export function injectTraceContext(context: Context, headers: HeaderCarrier): void {
  propagator.inject(context, headers, setter);
}

/** Reads a remote span context from the headers into `base` (ROOT_CONTEXT by default). */
export function extractTraceContext(headers: HeaderCarrier | undefined, base: Context = ROOT_CONTEXT): Context {
  return propagator.extract(base, headers, getter);
}

/** The remote span context in the headers, for span links (a coalesced turn links to every event). */
export function extractSpanContext(headers: HeaderCarrier | undefined): SpanContext | undefined {
  return trace.getSpanContext(extractTraceContext(headers));
}
