// The Event recorder port: how a service records "this happened to that object" (upstream's record.EventRecorder,
// client-go tools/record), and its one implementation, which publishes an EventRecord on the set's
// svc.event.{shard}.{namespace}.{name} subject for the status-writer to write to Kubernetes. The actor executor and
// the pvc-provisioner record through it; the status-writer is the only one that talks to the Events API.
import { headers as natsHeaders } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Tracer } from "@opentelemetry/api";
import { codecs, eventSubjects } from "#protocol";
import type { EventRecord, SetAddress, SetRef } from "#protocol";
import type { Logger } from "./logger.ts";
import { withProducerSpan } from "./messaging-trace.ts";

/** The object an Event is about (the Event's involvedObject). */
export type EventRegarding = EventRecord["regarding"];

/** One Event to record, in the wire record's words (`eventType`, `reason`, `note`, `action`). */
export interface RecordedEvent {
  /** The StatefulSet the Event belongs to: its subject, and the shard the status-writer fences on. */
  readonly set: SetAddress;
  /** The epoch of the shard owner the Event comes from; the status-writer drops Events of a fenced owner. */
  readonly epoch: number;
  readonly regarding: EventRegarding;
  readonly eventType: EventRecord["eventType"];
  readonly reason: string;
  /** Cut to the record's 1024 characters. */
  readonly note: string;
  /** Cut to the record's 128 characters; must not be empty. */
  readonly action: string;
}

/**
 * Records Events, as upstream's record.EventRecorder (Eventf(regarding, eventtype, reason, messageFmt)).
 * Contract: fire and forget, like client-go's recorder. record() never throws and never waits; an Event that cannot
 * be sent is logged and lost (Events are best effort). The active trace context travels with the Event, so its
 * write joins the trace of the work that recorded it. The time of the Event is the recorder's clock at record().
 */
export interface EventRecorder {
  record(event: RecordedEvent): void;
}

/** A StatefulSet as the object of an Event. */
export function statefulSetRegarding(set: SetRef): EventRegarding {
  return { apiVersion: "apps/v1", kind: "StatefulSet", namespace: set.namespace, name: set.name, uid: set.uid };
}

export interface NatsEventRecorderDeps {
  readonly nats: Pick<NatsConnection, "publish">;
  /** The recording service's tracer: the PRODUCER span `send svc.event.…` is the service's. */
  readonly tracer: Tracer;
  readonly logger: Logger;
  /** Wall clock for occurredAtMs. */
  readonly nowMs: () => number;
}

/** Publishes each Event as an EventRecord (core NATS, no ack: the status-writer's queue group takes it). */
export class NatsEventRecorder implements EventRecorder {
  private readonly deps: NatsEventRecorderDeps;

  constructor(deps: NatsEventRecorderDeps) {
    this.deps = deps;
  }

  record(event: RecordedEvent): void {
    const record: EventRecord = {
      type: "event.record",
      shard: event.set.shard,
      epoch: event.epoch,
      regarding: event.regarding,
      eventType: event.eventType,
      reason: event.reason,
      note: event.note.slice(0, 1024),
      action: event.action.slice(0, 128),
      occurredAtMs: this.deps.nowMs(),
    };
    const subject = eventSubjects.build(event.set);
    const headers = natsHeaders();
    try {
      const bytes = codecs.eventRecord.encode(record);
      const target = { template: eventSubjects.template, subject, shard: event.set.shard, bodySize: bytes.length };
      withProducerSpan(this.deps.tracer, target, headers, () => this.deps.nats.publish(subject, bytes, { headers }));
    } catch (error) {
      // A closed connection must not fail the work that recorded the Event.
      this.deps.logger.warn({ err: error, reason: event.reason }, "could not publish an event");
    }
  }
}
