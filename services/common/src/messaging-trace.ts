// Messaging spans over NATS, after the OpenTelemetry messaging semantic conventions (semconv 1.45): PRODUCER
// `send <subject template>` around a publish, whose context travels in the message headers; CONSUMER
// `process <subject template>` around the handling of a message, parented to the context it carried, so the
// handler's Kubernetes calls are children in the same trace. Span names use templates, never raw subjects.
// The attribute names are copied here rather than imported from the semconv incubating entry point, whose names
// may still change (opentelemetry-js #5182).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context as otelContext, trace } from "@opentelemetry/api";
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import { extractTraceContext, injectTraceContext } from "#protocol";
import type { HeaderCarrier } from "#protocol";

export const MESSAGING_ATTRIBUTES = {
  system: "messaging.system",
  operationName: "messaging.operation.name",
  operationType: "messaging.operation.type",
  destinationName: "messaging.destination.name",
  destinationTemplate: "messaging.destination.template",
  partitionId: "messaging.destination.partition.id",
  messageId: "messaging.message.id",
  consumerGroup: "messaging.consumer.group.name",
  bodySize: "messaging.message.body.size",
} as const;

/** NATS has no well-known `messaging.system` value; this is the one other NATS instrumentations use. */
export const MESSAGING_SYSTEM_NATS = "nats";

export type MessagingOperation = "send" | "process";

/** Where a message goes (producer) or came from (consumer). */
export interface MessagingTarget {
  /** The subject template, e.g. `cmd.pvc.{shard}.{namespace}.{name}`: the span name and a low-cardinality attribute. */
  readonly template: string;
  /** The concrete subject. */
  readonly subject: string;
  /** The shard token of the subject, when it parsed. */
  readonly shard?: number | undefined;
  /** `Nats-Msg-Id`, when the message has one. */
  readonly messageId?: string | undefined;
  /** The queue group or durable consumer that takes the message. */
  readonly consumerGroup?: string | undefined;
  readonly bodySize?: number | undefined;
}

export function messagingAttributes(operation: MessagingOperation, target: MessagingTarget): Attributes {
  const attributes: Attributes = {
    [MESSAGING_ATTRIBUTES.system]: MESSAGING_SYSTEM_NATS,
    [MESSAGING_ATTRIBUTES.operationName]: operation,
    [MESSAGING_ATTRIBUTES.operationType]: operation,
    [MESSAGING_ATTRIBUTES.destinationName]: target.subject,
    [MESSAGING_ATTRIBUTES.destinationTemplate]: target.template,
  };
  if (target.shard !== undefined) attributes[MESSAGING_ATTRIBUTES.partitionId] = String(target.shard);
  if (target.messageId !== undefined) attributes[MESSAGING_ATTRIBUTES.messageId] = target.messageId;
  if (target.consumerGroup !== undefined) attributes[MESSAGING_ATTRIBUTES.consumerGroup] = target.consumerGroup;
  if (target.bodySize !== undefined) attributes[MESSAGING_ATTRIBUTES.bodySize] = target.bodySize;
  return attributes;
}

function endWithError(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Runs `publish` inside a PRODUCER span `send <template>` (a child of the active context) after writing the span's
 * context into `headers`. A returned promise ends the span when it settles; a throw or rejection marks it failed.
 */
export function withProducerSpan<T>(tracer: Tracer, target: MessagingTarget, headers: HeaderCarrier, publish: () => T): T {
  const span = tracer.startSpan(`send ${target.template}`, { kind: SpanKind.PRODUCER, attributes: messagingAttributes("send", target) });
  const spanContext = trace.setSpan(otelContext.active(), span);
  injectTraceContext(spanContext, headers);
  let result: T;
  try {
    result = otelContext.with(spanContext, publish);
  } catch (error) {
    endWithError(span, error);
    throw error;
  }
  if (!isPromise(result)) {
    span.end();
    return result;
  }
  return result.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      endWithError(span, error);
      throw error;
    },
  ) as T;
}

export interface ConsumerSpan {
  readonly span: Span;
  /** The context to run the handler in (`context.with`), so its Kubernetes calls and logs belong to the span. */
  readonly context: Context;
}

/**
 * Starts a CONSUMER span `process <template>` for a message, parented to the trace context in its headers (a new
 * trace when it has none). The caller ends it: handling may outlive the callback that received the message.
 */
export function startConsumerSpan(tracer: Tracer, target: MessagingTarget, headers: HeaderCarrier | undefined): ConsumerSpan {
  const parent = extractTraceContext(headers, ROOT_CONTEXT);
  const span = tracer.startSpan(`process ${target.template}`, { kind: SpanKind.CONSUMER, attributes: messagingAttributes("process", target) }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs an async handler inside a CONSUMER span (see startConsumerSpan) and ends it when the handler settles. */
export async function withConsumerSpan<T>(
  tracer: Tracer,
  target: MessagingTarget,
  headers: HeaderCarrier | undefined,
  handle: (span: Span) => Promise<T>,
): Promise<T> {
  const { span, context } = startConsumerSpan(tracer, target, headers);
  try {
    const result = await otelContext.with(context, () => handle(span));
    span.end();
    return result;
  } catch (error) {
    endWithError(span, error);
    throw error;
  }
}

/** Marks a span failed with a short reason (an outcome that is not an exception). */
export function failSpan(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}
