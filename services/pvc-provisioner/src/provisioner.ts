// The pvc-provisioner: a durable pull consumer on STS_CMD (work-queue retention) shared by every replica,
// at-least-once and idempotent, with bounded concurrency. This file only wires its units: the shared consumer
// (consumer-config.ts), the pull loop that settles each message (command-consumer.ts), the command handler that
// decides what becomes of it (handler.ts, with the decision table), the Event recorder its claim Events go through
// (common/src/events.ts), and the dead-letter count (dead-letters.ts).
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { trace } from "@opentelemetry/api";
import { CONSUMERS, STREAMS } from "#protocol";
import { NatsEventRecorder } from "../../common/src/events.ts";
import { DropReporter } from "../../common/src/executor/drops.ts";
import type { ExecutorDeps, ExecutorHandle } from "../../common/src/executor/process.ts";
import type { ReadinessCheck } from "../../common/src/ops-server.ts";
import { PULL_EXPIRES_MS } from "../../common/src/pull.ts";
import { CommandConsumer } from "./command-consumer.ts";
import type { PvcProvisionerSettings } from "./config.ts";
import { ensureConsumer } from "./consumer-config.ts";
import { watchDeadLetters } from "./dead-letters.ts";
import { CommandHandler } from "./handler.ts";
import { createPvcMetrics } from "./metrics.ts";
import type { PvcMetrics } from "./metrics.ts";

export { desiredConsumer, ensureConsumer } from "./consumer-config.ts";

export interface PvcProvisionerHandle extends ExecutorHandle {
  readonly metrics: PvcMetrics;
}

export interface PvcProvisionerOptions {
  /** Wall clock for Event timestamps; tests inject it. */
  readonly nowMs?: () => number;
}

const tracer = trace.getTracer("stsfleet-pvc-provisioner");

/** How often a running command is marked in progress: three times per (effective) ack wait, at most every 100 ms. */
function workingIntervalMs(settings: PvcProvisionerSettings): number {
  const effectiveAckWaitMs = Math.min(settings.ackWaitMs, ...settings.redeliveryBackoffMs);
  return Math.max(100, Math.floor(effectiveAckWaitMs / 3));
}

export async function startPvcProvisioner(
  settings: PvcProvisionerSettings,
  deps: ExecutorDeps,
  options: PvcProvisionerOptions = {},
): Promise<PvcProvisionerHandle> {
  const logger = deps.logger.child({ component: "pvc-provisioner" });
  const metrics = createPvcMetrics(deps.metrics);
  const jsm = await jetstreamManager(deps.nats);
  const js = jetstream(deps.nats);
  const events = new NatsEventRecorder({ nats: deps.nats, tracer, logger, nowMs: options.nowMs ?? (() => Date.now()) });
  const handler = new CommandHandler(settings, {
    kube: deps.kube,
    epochs: deps.epochs,
    events,
    metrics,
    drops: new DropReporter(deps.metrics, logger),
    logger,
    tracer,
  });
  const consumer = new CommandConsumer(
    {
      consumer: CONSUMERS.pvcProvisioner,
      concurrency: settings.concurrency,
      workingIntervalMs: workingIntervalMs(settings),
      unexpectedErrorDelayMs: settings.retryBackoffMs[0] ?? 1_000,
    },
    {
      bind: async () => {
        await ensureConsumer(jsm, settings);
        const durable = await js.consumers.get(STREAMS.commands, CONSUMERS.pvcProvisioner);
        return durable.consume({ max_messages: settings.concurrency, expires: PULL_EXPIRES_MS });
      },
      handle: (delivery) => handler.handle(delivery),
      inFlight: metrics.inFlight,
      logger,
    },
  );
  const deadLetters = watchDeadLetters({ nats: deps.nats, jsm, deadLetters: metrics.deadLetters, logger });

  // Fencing needs the current epochs: commands wait until the shard view has loaded.
  while (!deps.epochs.ready()) await sleep(20);
  consumer.start();

  let stopped: Promise<void> | undefined;
  return {
    metrics,
    readiness: new Map<string, ReadinessCheck>([["consumer", () => consumer.readiness()]]),
    stop() {
      stopped ??= (async () => {
        const consumerStopped = consumer.stop();
        deadLetters.unsubscribe();
        await consumerStopped;
      })();
      return stopped;
    },
  };
}
