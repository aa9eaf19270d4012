// Events (svc.event.>, queue `events`, publish): a bounded queue in front of the EventCorrelator and the API
// server. Events are best effort, as in client-go: a full queue drops the newest, a fenced owner's Events are
// dropped, and on shutdown the retries stop (the Event is abandoned) instead of holding the process.
import { context as otelContext } from "@opentelemetry/api";
import { CONSUMERS, codecs, eventSubjects } from "#protocol";
import type { EventRecord } from "#protocol";
import type { DropReporter } from "../../common/src/executor/drops.ts";
import { readSetMessage } from "../../common/src/executor/intake.ts";
import type { Logger } from "../../common/src/logger.ts";
import { failSpan } from "../../common/src/messaging-trace.ts";
import type { ConsumerSpan } from "../../common/src/messaging-trace.ts";
import type { ShardEpochView } from "../../common/src/shard-epochs.ts";
import type { StatusWriterSettings } from "./config.ts";
import { recordEvent } from "./events.ts";
import type { EventOutcome, EventSinkDeps } from "./events.ts";
import type { StatusWriterMetrics } from "./metrics.ts";
import { consumerSpan, setSpanAttributes } from "./spans.ts";
import type { TakenMessage } from "./spans.ts";

export type EventQueueSettings = Pick<StatusWriterSettings, "eventConcurrency" | "eventQueueLimit" | "eventMaxTries" | "eventRetryDelayMs">;

export interface EventQueueDeps {
  /** Where an Event is correlated and written (recordEvent's dependencies). */
  readonly sink: EventSinkDeps;
  readonly epochs: Pick<ShardEpochView, "isStale">;
  readonly metrics: StatusWriterMetrics;
  readonly drops: DropReporter;
  readonly logger: Logger;
}

interface PendingEvent {
  readonly record: EventRecord;
  readonly trace: ConsumerSpan;
}

export class EventQueue {
  private readonly settings: EventQueueSettings;
  private readonly deps: EventQueueDeps;
  private readonly queue: PendingEvent[] = [];
  private readonly abort = new AbortController();
  private active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(settings: EventQueueSettings, deps: EventQueueDeps) {
    this.settings = settings;
    this.deps = deps;
  }

  /** Takes one Event: drops it (counted) or queues it for writing. */
  take(message: TakenMessage): void {
    const { span, context } = consumerSpan(eventSubjects, CONSUMERS.eventWriter, message);
    const settle = (outcome: string, failure?: string) => {
      span.setAttribute("stsfleet.event.outcome", outcome);
      if (failure !== undefined) failSpan(span, failure);
      span.end();
    };
    const intake = readSetMessage(eventSubjects, codecs.eventRecord, message.subject, message.data, (r) => ({
      shard: r.shard,
      namespace: r.regarding.namespace,
    }));
    if (!intake.ok) {
      this.deps.drops.drop(eventSubjects.template, intake.reason, intake.detail);
      settle("dropped", `dropped: ${intake.reason}`);
      return;
    }
    const record = intake.message;
    setSpanAttributes(span, record.regarding, record.epoch);
    span.setAttribute("stsfleet.event.reason", record.reason);
    if (this.deps.epochs.isStale(record.shard, record.epoch)) {
      this.deps.metrics.staleEpochRejected.inc({ subject: eventSubjects.template });
      this.deps.metrics.countEvent("stale-epoch");
      settle("stale-epoch");
      return;
    }
    if (this.queue.length >= this.settings.eventQueueLimit) {
      this.deps.drops.drop(eventSubjects.template, "overload", { queueLimit: this.settings.eventQueueLimit, reason: record.reason });
      settle("dropped", "dropped: overload");
      return;
    }
    this.queue.push({ record, trace: { span, context } });
    this.pump();
  }

  /** Stops retrying and resolves once no Event is queued or being written. */
  stop(): Promise<void> {
    this.abort.abort();
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.active < this.settings.eventConcurrency) {
      const pending = this.queue.shift();
      if (!pending) break;
      this.active += 1;
      void this.write(pending).then((outcome) => {
        const { span } = pending.trace;
        span.setAttribute("stsfleet.event.outcome", outcome);
        if (outcome === "failed") failSpan(span, "event not written");
        span.end();
        this.deps.metrics.countEvent(outcome);
        this.active -= 1;
        this.pump();
      });
    }
    this.deps.metrics.eventQueueLength.set(this.queue.length);
    if (this.active === 0 && this.queue.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private write(pending: PendingEvent): Promise<EventOutcome> {
    const settings = { maxTries: this.settings.eventMaxTries, retryDelayMs: this.settings.eventRetryDelayMs };
    return otelContext
      .with(pending.trace.context, () => recordEvent(pending.record, settings, this.deps.sink, this.abort.signal))
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, "unexpected error writing an event");
        return "failed" as const;
      });
  }
}
