// Test support: the real OpenTelemetry Node SDK (AsyncLocalStorage context manager, W3C propagator) with a span
// processor that keeps every ended span in memory, so tests see what a service would export. One per test process:
// the SDK registers itself globally.
import { NodeSDK } from "@opentelemetry/sdk-node";
import type { NodeSDKConfiguration } from "@opentelemetry/sdk-node";

type SpanProcessor = NonNullable<NodeSDKConfiguration["spanProcessors"]>[number];
export type RecordedSpan = Parameters<SpanProcessor["onEnd"]>[0];

export interface SpanRecorder {
  readonly spans: RecordedSpan[];
  /** Ended spans with this name. */
  named(name: string): RecordedSpan[];
  /** The parent span id of a recorded span (undefined for a root). */
  parentOf(span: RecordedSpan): string | undefined;
  clear(): void;
  shutdown(): Promise<void>;
}

export function startSpanRecorder(): SpanRecorder {
  const spans: RecordedSpan[] = [];
  const processor: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => {
      spans.push(span);
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  // Env exporters stay off: the processor list replaces them, and metrics and logs are not configured here.
  const sdk = new NodeSDK({ spanProcessors: [processor], instrumentations: [], metricReaders: [], logRecordProcessors: [] });
  sdk.start();
  return {
    spans,
    named: (name) => spans.filter((span) => span.name === name),
    parentOf: (span) => span.parentSpanContext?.spanId,
    clear: () => {
      spans.length = 0;
    },
    shutdown: () => sdk.shutdown(),
  };
}
