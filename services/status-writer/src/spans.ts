// The CONSUMER span each status request and each Event gets from arrival until it is answered or written,
// continuing the sender's trace; the Kubernetes calls made for it run in that span's context.
import type { Msg } from "@nats-io/transport-node";
import { trace } from "@opentelemetry/api";
import type { Span } from "@opentelemetry/api";
import { startConsumerSpan } from "../../common/src/messaging-trace.ts";
import type { ConsumerSpan } from "../../common/src/messaging-trace.ts";
import { subjectShard } from "../../common/src/executor/intake.ts";
import type { SetSubjectFamily } from "../../common/src/executor/intake.ts";

/** What the status-writer reads of a message it takes (a nats.js Msg); requests are answered through `respond`. */
export type TakenMessage = Pick<Msg, "subject" | "data" | "headers" | "reply" | "respond">;

const tracer = trace.getTracer("stsfleet-status-writer");

export function consumerSpan(family: SetSubjectFamily, group: string, message: TakenMessage): ConsumerSpan {
  const target = {
    template: family.template,
    subject: message.subject,
    shard: subjectShard(family, message.subject),
    consumerGroup: group,
    bodySize: message.data.length,
  };
  return startConsumerSpan(tracer, target, message.headers);
}

export function setSpanAttributes(span: Span, set: { readonly namespace: string; readonly name: string }, epoch: number): void {
  span.setAttributes({ "k8s.namespace.name": set.namespace, "k8s.statefulset.name": set.name, "stsfleet.epoch": epoch });
}
