// The status-writer: two core-NATS queue groups (no persistence needed: status writes are latest-wins and the
// actor retries; Events are best effort, as in client-go). This file only wires them:
//   svc.status.> (queue `status`, request-reply) -> StatusRequests (status-requests.ts)
//   svc.event.>  (queue `events`, publish)       -> EventQueue (event-queue.ts), the EventCorrelator, the API server
// Every message gets a CONSUMER span from arrival until it is answered or written (spans.ts).
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { CONSUMERS, eventSubjects, statusSubjects } from "#protocol";
import { DropReporter } from "../../common/src/executor/drops.ts";
import type { ExecutorDeps, ExecutorHandle } from "../../common/src/executor/process.ts";
import type { Logger } from "../../common/src/logger.ts";
import type { ReadinessCheck } from "../../common/src/ops-server.ts";
import type { StatusWriterSettings } from "./config.ts";
import { EventCorrelator } from "./correlator.ts";
import { EventQueue } from "./event-queue.ts";
import { EventNanos } from "./events.ts";
import { createStatusWriterMetrics } from "./metrics.ts";
import type { StatusWriterMetrics } from "./metrics.ts";
import { StatusRequests } from "./status-requests.ts";

export interface StatusWriterHandle extends ExecutorHandle {
  readonly metrics: StatusWriterMetrics;
}

export interface StatusWriterOptions {
  /** Wall clock of the event correlator (rate limit, aggregation window); tests inject it. */
  readonly nowMs?: () => number;
}

/** A queue-group subscription whose handler may not end it: a throw is logged (intake maps bad input to drops). */
function subscribeQueue(nats: NatsConnection, subject: string, queue: string, handler: (message: Msg) => void, logger: Logger): Subscription {
  return nats.subscribe(subject, {
    queue,
    callback: (error, message) => {
      if (error) {
        logger.warn({ err: error, subject }, "subscription error");
        return;
      }
      try {
        handler(message);
      } catch (thrown) {
        logger.error({ err: thrown, natsSubject: message.subject }, "unexpected error taking a message");
      }
    },
  });
}

export async function startStatusWriter(
  settings: StatusWriterSettings,
  deps: ExecutorDeps,
  options: StatusWriterOptions = {},
): Promise<StatusWriterHandle> {
  const logger = deps.logger.child({ component: "status-writer" });
  const metrics = createStatusWriterMetrics(deps.metrics);
  const drops = new DropReporter(deps.metrics, logger);
  const statusRequests = new StatusRequests(settings, { kube: deps.kube, epochs: deps.epochs, metrics, drops, logger });
  const correlator = new EventCorrelator({
    burst: settings.eventBurst,
    refillIntervalMs: settings.eventRefillIntervalMs,
    aggregateMaxEvents: settings.eventAggregateMax,
    aggregateIntervalMs: settings.eventAggregateIntervalMs,
    cacheSize: settings.eventCacheSize,
  });
  const sink = { kube: deps.kube, correlator, metrics, logger, nanos: new EventNanos(), nowMs: options.nowMs ?? (() => Date.now()) };
  const events = new EventQueue(settings, { sink, epochs: deps.epochs, metrics, drops, logger });

  const statusSubscription = subscribeQueue(deps.nats, statusSubjects.all, CONSUMERS.statusWriter, (m) => statusRequests.take(m), logger);
  const eventSubscription = subscribeQueue(deps.nats, eventSubjects.all, CONSUMERS.eventWriter, (m) => events.take(m), logger);
  // The subscriptions exist on the server once this round trip returns: ready means requests will be taken.
  await deps.nats.flush();

  let stopped: Promise<void> | undefined;
  return {
    metrics,
    readiness: new Map<string, ReadinessCheck>([
      ["status-subscription", () => !statusSubscription.isClosed() || "not subscribed"],
      ["event-subscription", () => !eventSubscription.isClosed() || "not subscribed"],
    ]),
    stop() {
      stopped ??= (async () => {
        // Take what the server already sent us, then stop; finish writes; stop retrying events.
        await Promise.allSettled([statusSubscription.drain(), eventSubscription.drain()]);
        await statusRequests.stop();
        await events.stop();
      })();
      return stopped;
    },
  };
}
