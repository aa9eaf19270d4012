// The pvc-provisioner: a durable pull consumer on STS_CMD (work-queue retention) shared by every replica,
// at-least-once and idempotent, with bounded concurrency. Decisions per message:
//   undecodable / wrong subject / invalid claim body -> term, counted drop (redelivery cannot fix bytes)
//   epoch older than the shard's current owner       -> term, counted (the new owner re-derives what is needed)
//   done (created, exists, updated, unchanged, gone)  -> ack
//   stale claim (uid or resourceVersion moved), permanent Kubernetes failure -> term
//   transient failure, claim being deleted            -> nak with the retry backoff; term on the last delivery
import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { ConsumerConfig, ConsumerMessages, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { headers as natsHeaders, nanos } from "@nats-io/transport-node";
import { setTimeout as sleep } from "node:timers/promises";
import { trace } from "@opentelemetry/api";
import type { Span } from "@opentelemetry/api";
import { CONSUMERS, HEADERS, STREAMS, assertNever, codecs, eventSubjects, pvcCommandSubjects } from "#protocol";
import type { EventRecord, PvcCommand } from "#protocol";
import { backoffDelayMs } from "../../common/src/backoff.ts";
import { failSpan, withConsumerSpan, withProducerSpan } from "../../common/src/messaging-trace.ts";
import { NatsFeatureError } from "../../common/src/nats.ts";
import type { ReadinessCheck } from "../../common/src/ops-server.ts";
import { PULL_EXPIRES_MS } from "../../common/src/pull.ts";
import { InvalidClaimError, checkClaims, executeCreate, executeUpdateOwnerRefs } from "./claims.ts";
import type { ClaimDeps, ClaimEvent, CommandOutcome, CommandResult } from "./claims.ts";
import { DropReporter } from "../../common/src/executor/drops.ts";
import { readSetMessage, subjectShard } from "../../common/src/executor/intake.ts";
import type { ExecutorDeps, ExecutorHandle } from "../../common/src/executor/process.ts";
import type { PvcProvisionerSettings } from "./config.ts";
import { createPvcMetrics } from "./metrics.ts";
import type { PvcMetrics } from "./metrics.ts";
import { Semaphore } from "../../common/src/semaphore.ts";

export interface PvcProvisionerHandle extends ExecutorHandle {
  readonly metrics: PvcMetrics;
}

export interface PvcProvisionerOptions {
  /** Wall clock for Event timestamps; tests inject it. */
  readonly nowMs?: () => number;
}

type Disposition = { kind: "ack" } | { kind: "term" } | { kind: "nak"; delayMs: number };

const tracer = trace.getTracer("stsfleet-pvc-provisioner");

/** The consumer every replica shares. nats-server 2.9 replaces ack_wait with backoff[0] when a backoff is set. */
export function desiredConsumer(settings: PvcProvisionerSettings): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: CONSUMERS.pvcProvisioner,
    filter_subject: pvcCommandSubjects.all,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(settings.ackWaitMs),
    max_deliver: settings.maxDeliver,
    max_ack_pending: settings.maxAckPending,
    ...(settings.redeliveryBackoffMs.length > 0 ? { backoff: settings.redeliveryBackoffMs.map((ms) => nanos(ms)) } : {}),
  };
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && (/not found/i.test(error.message) || (error as { code?: unknown }).code === 404);
}

/**
 * What the server must report back for our consumer; a 2.9 server silently drops fields it does not know (ADR
 * 0002), and with a backoff it reports backoff[0] as the ack wait.
 */
function consumerMismatch(config: ConsumerConfig, desired: ReturnType<typeof desiredConsumer>): [string, unknown, unknown] | undefined {
  const backoff = desired.backoff ?? [];
  const checks: [string, unknown, unknown][] = [
    ["filter_subject", desired.filter_subject, config.filter_subject],
    ["max_deliver", desired.max_deliver, config.max_deliver],
    ["max_ack_pending", desired.max_ack_pending, config.max_ack_pending],
    ["backoff", backoff, config.backoff ?? []],
    ["ack_wait", backoff[0] ?? desired.ack_wait, config.ack_wait],
  ];
  return checks.find(([, wanted, got]) => JSON.stringify(wanted) !== JSON.stringify(got));
}

/** Creates the durable consumer, or updates it when this replica's flags differ from what the server has. */
export async function ensureConsumer(jsm: JetStreamManager, settings: PvcProvisionerSettings): Promise<void> {
  const desired = desiredConsumer(settings);
  let info;
  try {
    info = await jsm.consumers.info(STREAMS.commands, desired.durable_name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    info = await jsm.consumers.add(STREAMS.commands, desired);
  }
  if (consumerMismatch(info.config, desired)) {
    info = await jsm.consumers.update(STREAMS.commands, desired.durable_name, {
      ack_wait: desired.ack_wait,
      max_deliver: desired.max_deliver,
      max_ack_pending: desired.max_ack_pending,
      filter_subject: desired.filter_subject,
      backoff: desired.backoff ?? [],
    });
  }
  const mismatch = consumerMismatch(info.config, desired);
  if (mismatch) throw new NatsFeatureError(`${STREAMS.commands}/${desired.durable_name}`, ...mismatch);
}

function disposition(result: CommandResult, deliveryCount: number, settings: PvcProvisionerSettings): Disposition {
  switch (result.outcome) {
    case "created":
    case "exists":
    case "updated":
    case "unchanged":
    case "gone":
      return { kind: "ack" };
    case "stale":
    case "stale-epoch":
    case "failed":
    case "exhausted":
      return { kind: "term" };
    case "retry":
    case "terminating": {
      if (deliveryCount >= settings.maxDeliver) return { kind: "term" };
      const schedule = settings.retryBackoffMs;
      const planned = schedule[Math.min(deliveryCount - 1, schedule.length - 1)] ?? 1_000;
      return { kind: "nak", delayMs: Math.max(planned, result.retryAfterMs ?? 0) };
    }
    default:
      return assertNever(result.outcome, "command outcome");
  }
}

export async function startPvcProvisioner(
  settings: PvcProvisionerSettings,
  deps: ExecutorDeps,
  options: PvcProvisionerOptions = {},
): Promise<PvcProvisionerHandle> {
  const logger = deps.logger.child({ component: "pvc-provisioner" });
  const metrics = createPvcMetrics(deps.metrics);
  const drops = new DropReporter(deps.metrics, logger);
  const nowMs = options.nowMs ?? (() => Date.now());
  const jsm = await jetstreamManager(deps.nats);
  const js = jetstream(deps.nats);
  const slots = new Semaphore(settings.concurrency);
  const inFlight = new Set<Promise<void>>();
  const effectiveAckWaitMs = Math.min(settings.ackWaitMs, ...settings.redeliveryBackoffMs);
  const workingIntervalMs = Math.max(100, Math.floor(effectiveAckWaitMs / 3));
  let stopping = false;
  const stopSignal = new AbortController();
  let bound = false;
  let lastConsumeError: string | undefined;
  let messages: ConsumerMessages | undefined;

  const publishEvent = (command: PvcCommand, event: ClaimEvent) => {
    const record: EventRecord = {
      type: "event.record",
      shard: command.shard,
      epoch: command.epoch,
      regarding: {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        namespace: command.set.namespace,
        name: command.set.name,
        uid: command.set.uid,
      },
      eventType: event.eventType,
      reason: event.reason,
      note: event.note.slice(0, 1024),
      action: "Create",
      occurredAtMs: nowMs(),
    };
    const address = { shard: command.shard, namespace: command.set.namespace, name: command.set.name };
    const subject = eventSubjects.build(address);
    const bytes = codecs.eventRecord.encode(record);
    const headers = natsHeaders();
    try {
      // Inside the command's span: the status-writer's work on the event joins the same trace.
      withProducerSpan(tracer, { template: eventSubjects.template, subject, shard: command.shard, bodySize: bytes.length }, headers, () =>
        deps.nats.publish(subject, bytes, { headers }),
      );
    } catch (error) {
      // Events are best effort, as in client-go; a closed connection must not fail the command.
      logger.warn({ err: error, reason: event.reason }, "could not publish an event");
    }
  };

  const execute = async (command: PvcCommand): Promise<CommandResult> => {
    const claimDeps: ClaimDeps = { kube: deps.kube, metrics, recordEvent: (event) => publishEvent(command, event) };
    switch (command.type) {
      case "pvc.create":
        return executeCreate(command, claimDeps);
      case "pvc.updateOwnerRefs":
        return executeUpdateOwnerRefs(command, claimDeps);
      default:
        return assertNever(command, "pvc command");
    }
  };

  // One CONSUMER span per delivery, continuing the actor's trace; the claim calls to Kubernetes are its children.
  const handle = (m: JsMsg): Promise<void> =>
    withConsumerSpan(
      tracer,
      {
        template: pvcCommandSubjects.template,
        subject: m.subject,
        shard: subjectShard(pvcCommandSubjects, m.subject),
        messageId: m.headers?.has(HEADERS.msgId) ? m.headers.get(HEADERS.msgId) : undefined,
        consumerGroup: CONSUMERS.pvcProvisioner,
        bodySize: m.data.length,
      },
      m.headers,
      (span) => handleCommand(m, span),
    );

  const handleCommand = async (m: JsMsg, span: Span): Promise<void> => {
    span.setAttribute("stsfleet.delivery", m.info.deliveryCount);
    const intake = readSetMessage(pvcCommandSubjects, codecs.pvcCommand, m.subject, m.data, (c) => ({
      shard: c.shard,
      namespace: c.set.namespace,
      name: c.set.name,
    }));
    if (!intake.ok) {
      drops.drop(pvcCommandSubjects.template, intake.reason, { ...intake.detail, streamSequence: m.seq });
      failSpan(span, `dropped: ${intake.reason}`);
      m.term();
      return;
    }
    const command = intake.message;
    span.setAttributes({
      "stsfleet.command.type": command.type,
      "stsfleet.epoch": command.epoch,
      "k8s.namespace.name": command.set.namespace,
      "k8s.statefulset.name": command.set.name,
      "k8s.statefulset.uid": command.set.uid,
    });
    const endTimer = metrics.commandDuration.startTimer({ type: command.type });
    const log = logger.child({
      command: command.type,
      commandId: command.commandId,
      set: `${command.set.namespace}/${command.set.name}`,
      shard: command.shard,
      epoch: command.epoch,
      delivery: m.info.deliveryCount,
    });
    if (deps.epochs.isStale(command.shard, command.epoch)) {
      metrics.staleEpochRejected.inc({ subject: pvcCommandSubjects.template });
      metrics.countCommand(command.type, "stale-epoch");
      log.info({ currentEpoch: deps.epochs.epochOf(command.shard) }, "rejected a command from a stale epoch");
      span.setAttribute("stsfleet.command.outcome", "stale-epoch");
      m.term();
      endTimer();
      return;
    }
    if (command.type === "pvc.create") {
      try {
        checkClaims(command);
      } catch (error) {
        if (!(error instanceof InvalidClaimError)) throw error;
        drops.drop(pvcCommandSubjects.template, "invalid", { natsSubject: m.subject, problem: error.message });
        failSpan(span, "dropped: invalid");
        m.term();
        endTimer();
        return;
      }
    }
    const heartbeat = setInterval(() => m.working(), workingIntervalMs);
    let result: CommandResult;
    try {
      result = await execute(command);
    } catch (error) {
      result = { outcome: "retry", detail: error instanceof Error ? error.message : String(error) };
    } finally {
      clearInterval(heartbeat);
    }
    const decided = disposition(result, m.info.deliveryCount, settings);
    const outcome: CommandOutcome =
      decided.kind === "term" && (result.outcome === "retry" || result.outcome === "terminating") ? "exhausted" : result.outcome;
    metrics.countCommand(command.type, outcome);
    span.setAttribute("stsfleet.command.outcome", outcome);
    if (outcome === "failed" || outcome === "exhausted" || outcome === "retry") failSpan(span, `${outcome}: ${result.detail ?? ""}`);
    switch (decided.kind) {
      case "ack":
        m.ack();
        break;
      case "term":
        m.term();
        break;
      case "nak":
        m.nak(decided.delayMs);
        break;
      default:
        assertNever(decided, "disposition");
    }
    endTimer();
    const fields = { outcome, detail: result.detail, ...(decided.kind === "nak" ? { retryInMs: decided.delayMs } : {}) };
    if (outcome === "created" || outcome === "updated") log.info(fields, "command done");
    else if (outcome === "exists" || outcome === "unchanged" || outcome === "gone") log.debug(fields, "command done");
    else log.warn(fields, "command not done");
  };

  const track = (m: JsMsg) => {
    metrics.inFlight.inc();
    const running = handle(m)
      .catch((error: unknown) => {
        // handle() maps every expected failure; this is a bug, and the message is retried after a pause.
        logger.error({ err: error, natsSubject: m.subject }, "unexpected error handling a command");
        m.nak(settings.retryBackoffMs[0] ?? 1_000);
      })
      .finally(() => {
        metrics.inFlight.dec();
        slots.release();
        inFlight.delete(running);
      });
    inFlight.add(running);
  };

  const consumeLoop = async () => {
    for (let failures = 0; !stopping; ) {
      try {
        await ensureConsumer(jsm, settings);
        const consumer = await js.consumers.get(STREAMS.commands, CONSUMERS.pvcProvisioner);
        const current = await consumer.consume({ max_messages: settings.concurrency, expires: PULL_EXPIRES_MS });
        messages = current;
        bound = true;
        lastConsumeError = undefined;
        failures = 0;
        void (async () => {
          for await (const status of current.status()) {
            if (status.type === "consumer_deleted" || status.type === "consumer_not_found" || status.type === "stream_not_found") {
              logger.warn({ status: status.type }, "consumer lost; recreating it");
              current.stop();
            }
          }
        })().catch(() => undefined);
        if (stopping) current.stop();
        for await (const m of current) {
          await slots.acquire();
          if (stopping) {
            // Hand it straight back so another replica takes it instead of waiting out ack_wait.
            m.nak();
            slots.release();
            continue;
          }
          track(m);
        }
      } catch (error) {
        lastConsumeError = error instanceof Error ? error.message : String(error);
        if (!stopping) logger.warn({ err: error }, "consuming commands failed");
      }
      bound = false;
      if (stopping) break;
      const delayMs = backoffDelayMs({ initialDelayMs: 250, maxDelayMs: 10_000 }, failures);
      failures += 1;
      await sleep(delayMs, undefined, { signal: stopSignal.signal }).catch(() => undefined);
    }
  };

  // A dead-letter count for commands that kept timing out (a crash loop on one command), then removal: a
  // work-queue stream would otherwise keep the message forever.
  const advisories = deps.nats.subscribe(
    `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}`,
    {
      queue: CONSUMERS.pvcProvisioner,
      callback: (error, message) => {
        if (error) return;
        metrics.deadLetters.inc();
        let streamSequence: number | undefined;
        try {
          const advisory = JSON.parse(new TextDecoder().decode(message.data)) as { stream_seq?: unknown };
          if (typeof advisory.stream_seq === "number") streamSequence = advisory.stream_seq;
        } catch {
          // Counted anyway; nothing to remove.
        }
        logger.warn({ streamSequence }, "a claim command exhausted its deliveries");
        if (streamSequence !== undefined) {
          jsm.streams.deleteMessage(STREAMS.commands, streamSequence, false).catch(() => undefined);
        }
      },
    },
  );

  // Fencing needs the current epochs: commands wait until the shard view has loaded.
  while (!deps.epochs.ready() && !stopping) await sleep(20);
  const loop = consumeLoop();

  let stopped: Promise<void> | undefined;
  const readiness = new Map<string, ReadinessCheck>([["consumer", () => bound || `not bound to the pvc consumer${lastConsumeError ? `: ${lastConsumeError}` : ""}`]]);
  return {
    metrics,
    readiness,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        stopSignal.abort();
        messages?.stop();
        advisories.unsubscribe();
        await loop;
        await Promise.allSettled([...inFlight]);
      })();
      return stopped;
    },
  };
}
