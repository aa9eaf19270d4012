// The status-writer: two core-NATS queue groups (no persistence needed: status writes are latest-wins and the
// actor retries; Events are best effort, as in client-go).
//   svc.status.> (queue `status`, request-reply): one write per set at a time, a newer request replaces a waiting
//     one (which is answered `superseded`), then writeStatus() and a StatusResult reply.
//   svc.event.>  (queue `events`, publish): a bounded queue in front of the EventCorrelator and the API server.
// Requests from a fenced (stale-epoch) owner are refused at intake, so they can never displace a current write.
// Every message gets a CONSUMER span from arrival until it is answered or written, continuing the sender's trace;
// the Kubernetes calls made for it run in that span's context.
import type { Msg, Subscription } from "@nats-io/transport-node";
import { context as otelContext, trace } from "@opentelemetry/api";
import type { Span } from "@opentelemetry/api";
import { CONSUMERS, assertNever, codecs, eventSubjects, statusSubjects } from "#protocol";
import type { EventRecord, StatusResult, StatusWrite } from "#protocol";
import { failSpan, startConsumerSpan } from "../../common/src/messaging-trace.ts";
import type { ConsumerSpan } from "../../common/src/messaging-trace.ts";
import type { ReadinessCheck } from "../../common/src/ops-server.ts";
import { DropReporter } from "../../common/src/executor/drops.ts";
import { readSetMessage, subjectShard } from "../../common/src/executor/intake.ts";
import type { SetSubjectFamily } from "../../common/src/executor/intake.ts";
import type { ExecutorDeps, ExecutorHandle } from "../../common/src/executor/process.ts";
import type { StatusWriterSettings } from "./config.ts";
import { EventCorrelator } from "./correlator.ts";
import { EventNanos, recordEvent } from "./events.ts";
import type { EventSinkDeps } from "./events.ts";
import { LatestWins } from "./latest-wins.ts";
import { createStatusWriterMetrics } from "./metrics.ts";
import type { StatusWriterMetrics } from "./metrics.ts";
import { WrittenSets, writeStatus } from "./status.ts";
import type { ForeignStatusReason } from "./status.ts";

export interface StatusWriterHandle extends ExecutorHandle {
  readonly metrics: StatusWriterMetrics;
}

export interface StatusWriterOptions {
  /** Wall clock of the event correlator (rate limit, aggregation window); tests inject it. */
  readonly nowMs?: () => number;
}

/** A status request from arrival until it is answered. */
interface Request {
  readonly message: Msg;
  readonly arrivedAtMs: number;
  readonly trace: ConsumerSpan;
}

interface PendingWrite extends Request {
  readonly write: StatusWrite;
}

interface PendingEvent {
  readonly record: EventRecord;
  readonly trace: ConsumerSpan;
}

const tracer = trace.getTracer("stsfleet-status-writer");

function consumerSpan(family: SetSubjectFamily, group: string, message: Msg): ConsumerSpan {
  const target = {
    template: family.template,
    subject: message.subject,
    shard: subjectShard(family, message.subject),
    consumerGroup: group,
    bodySize: message.data.length,
  };
  return startConsumerSpan(tracer, target, message.headers);
}

function setSpanAttributes(span: Span, set: { readonly namespace: string; readonly name: string }, epoch: number): void {
  span.setAttributes({ "k8s.namespace.name": set.namespace, "k8s.statefulset.name": set.name, "stsfleet.epoch": epoch });
}

function overwriteLogLevel(reason: ForeignStatusReason): "info" | "debug" {
  switch (reason) {
    case "impossible-generation":
      return "info";
    case "not-own-write":
      return "debug";
    default:
      return assertNever(reason, "foreign status reason");
  }
}

export async function startStatusWriter(
  settings: StatusWriterSettings,
  deps: ExecutorDeps,
  options: StatusWriterOptions = {},
): Promise<StatusWriterHandle> {
  const logger = deps.logger.child({ component: "status-writer" });
  const metrics = createStatusWriterMetrics(deps.metrics);
  const drops = new DropReporter(deps.metrics, logger);
  const nowMs = options.nowMs ?? (() => Date.now());
  let stopping = false;

  const answer = ({ message, arrivedAtMs, trace: { span } }: Request, result: StatusResult) => {
    metrics.countStatus(result.outcome, (performance.now() - arrivedAtMs) / 1000);
    span.setAttribute("stsfleet.status.outcome", result.outcome);
    if (result.outcome === "failed") failSpan(span, result.message ?? "failed");
    try {
      if (message.reply) message.respond(codecs.statusResult.encode(result));
    } catch (error) {
      logger.debug({ err: error }, "could not answer a status request");
    } finally {
      span.end();
    }
  };

  const written = new WrittenSets();
  const writes = new LatestWins<PendingWrite>({
    concurrency: settings.statusConcurrency,
    run: (_key, pending) => otelContext.with(pending.trace.context, () => runWrite(pending)),
    superseded: (pending) => answer(pending, { type: "status.result", outcome: "superseded", message: "a newer write for this set arrived" }),
  });

  async function runWrite(pending: PendingWrite): Promise<void> {
    let result: StatusResult;
    try {
      result = await writeStatus(pending.write, {
        kube: deps.kube,
        written,
        epochs: deps.epochs,
        metrics,
        maxConflictRetries: settings.statusConflictRetries,
        onConflict: () => metrics.statusConflicts.inc(),
        onForeignOverwrite: ({ reason, storedObservedGeneration, generation }) => {
          metrics.statusForeignOverwrites.inc({ reason });
          // Upstream overwrites such a status silently. A value no controller could have written is worth a line;
          // "not what this writer wrote" is routine with several status-writer replicas (ADR 0087).
          const level = overwriteLogLevel(reason);
          logger[level](
            { set: `${pending.write.set.namespace}/${pending.write.set.name}`, reason, storedObservedGeneration, generation },
            "overwrote a status this writer did not write",
          );
        },
      });
    } catch (error) {
      result = { type: "status.result", outcome: "failed", message: error instanceof Error ? error.message : String(error) };
    }
    if (result.outcome === "stale-epoch") metrics.staleEpochRejected.inc({ subject: statusSubjects.template });
    const level = result.outcome === "failed" ? "warn" : "debug";
    logger[level](
      { set: `${pending.write.set.namespace}/${pending.write.set.name}`, outcome: result.outcome, message: result.message },
      "status write answered",
    );
    answer(pending, result);
    metrics.statusPendingSets.set(writes.size);
  }

  const onStatus = (message: Msg) => {
    const request: Request = { message, arrivedAtMs: performance.now(), trace: consumerSpan(statusSubjects, CONSUMERS.statusWriter, message) };
    const intake = readSetMessage(statusSubjects, codecs.statusWrite, message.subject, message.data, (w) => ({
      shard: w.shard,
      namespace: w.set.namespace,
      name: w.set.name,
    }));
    if (!intake.ok) {
      drops.drop(statusSubjects.template, intake.reason, intake.detail);
      answer(request, { type: "status.result", outcome: "failed", message: `dropped: ${intake.reason}` });
      return;
    }
    const write = intake.message;
    setSpanAttributes(request.trace.span, write.set, write.epoch);
    if (stopping) {
      answer(request, { type: "status.result", outcome: "failed", message: "status-writer is shutting down" });
      return;
    }
    if (deps.epochs.isStale(write.shard, write.epoch)) {
      metrics.staleEpochRejected.inc({ subject: statusSubjects.template });
      answer(request, { type: "status.result", outcome: "stale-epoch" });
      return;
    }
    writes.submit(`${write.set.namespace}/${write.set.name}`, { ...request, write });
    metrics.statusPendingSets.set(writes.size);
  };

  // --- events -------------------------------------------------------------------------------------------------
  const abort = new AbortController();
  const sinkDeps: EventSinkDeps = {
    kube: deps.kube,
    correlator: new EventCorrelator({
      burst: settings.eventBurst,
      refillIntervalMs: settings.eventRefillIntervalMs,
      aggregateMaxEvents: settings.eventAggregateMax,
      aggregateIntervalMs: settings.eventAggregateIntervalMs,
      cacheSize: settings.eventCacheSize,
    }),
    metrics,
    logger,
    nanos: new EventNanos(),
    nowMs,
  };
  const queue: PendingEvent[] = [];
  let activeEvents = 0;
  let eventsIdle: (() => void)[] = [];

  const pumpEvents = () => {
    while (activeEvents < settings.eventConcurrency) {
      const pending = queue.shift();
      if (!pending) break;
      activeEvents += 1;
      const { span, context } = pending.trace;
      void otelContext
        .with(context, () =>
          recordEvent(pending.record, { maxTries: settings.eventMaxTries, retryDelayMs: settings.eventRetryDelayMs }, sinkDeps, abort.signal),
        )
        .catch((error: unknown) => {
          logger.error({ err: error }, "unexpected error writing an event");
          return "failed" as const;
        })
        .then((outcome) => {
          span.setAttribute("stsfleet.event.outcome", outcome);
          if (outcome === "failed") failSpan(span, "event not written");
          span.end();
          metrics.countEvent(outcome);
          activeEvents -= 1;
          pumpEvents();
        });
    }
    metrics.eventQueueLength.set(queue.length);
    if (activeEvents === 0 && queue.length === 0) {
      const waiters = eventsIdle;
      eventsIdle = [];
      for (const resolve of waiters) resolve();
    }
  };

  const onEvent = (message: Msg) => {
    const eventTrace = consumerSpan(eventSubjects, CONSUMERS.eventWriter, message);
    const { span } = eventTrace;
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
      drops.drop(eventSubjects.template, intake.reason, intake.detail);
      settle("dropped", `dropped: ${intake.reason}`);
      return;
    }
    const record = intake.message;
    setSpanAttributes(span, record.regarding, record.epoch);
    span.setAttribute("stsfleet.event.reason", record.reason);
    if (deps.epochs.isStale(record.shard, record.epoch)) {
      metrics.staleEpochRejected.inc({ subject: eventSubjects.template });
      metrics.countEvent("stale-epoch");
      settle("stale-epoch");
      return;
    }
    if (queue.length >= settings.eventQueueLimit) {
      drops.drop(eventSubjects.template, "overload", { queueLimit: settings.eventQueueLimit, reason: record.reason });
      settle("dropped", "dropped: overload");
      return;
    }
    queue.push({ record, trace: eventTrace });
    pumpEvents();
  };

  const subscribe = (subject: string, queueGroup: string, handler: (message: Msg) => void): Subscription =>
    deps.nats.subscribe(subject, {
      queue: queueGroup,
      callback: (error, message) => {
        if (error) {
          logger.warn({ err: error, subject }, "subscription error");
          return;
        }
        try {
          handler(message);
        } catch (thrown) {
          // Intake maps every bad input to a drop; reaching here is a bug, and it must not end the subscription.
          logger.error({ err: thrown, natsSubject: message.subject }, "unexpected error taking a message");
        }
      },
    });

  const statusSubscription = subscribe(statusSubjects.all, CONSUMERS.statusWriter, onStatus);
  const eventSubscription = subscribe(eventSubjects.all, CONSUMERS.eventWriter, onEvent);
  // The subscriptions exist on the server once this round trip returns: ready means requests will be taken.
  await deps.nats.flush();

  let stopped: Promise<void> | undefined;
  const readiness = new Map<string, ReadinessCheck>([
    ["status-subscription", () => !statusSubscription.isClosed() || "not subscribed"],
    ["event-subscription", () => !eventSubscription.isClosed() || "not subscribed"],
  ]);
  return {
    metrics,
    readiness,
    stop() {
      stopped ??= (async () => {
        // Take what the server already sent us, then stop; finish writes; stop retrying events.
        await Promise.allSettled([statusSubscription.drain(), eventSubscription.drain()]);
        stopping = true;
        await writes.idle();
        abort.abort();
        if (activeEvents > 0 || queue.length > 0) await new Promise<void>((resolve) => eventsIdle.push(resolve));
      })();
      return stopped;
    },
  };
}
