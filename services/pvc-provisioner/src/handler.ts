// The pvc-provisioner's command handler: one delivered command to what becomes of it (the consumer settles it).
// Decisions per message:
//   undecodable / wrong subject / invalid claim body -> term, counted drop (redelivery cannot fix bytes)
//   epoch older than the shard's current owner       -> term, counted (the new owner re-derives what is needed)
//   done (created, exists, updated, unchanged, gone)  -> ack
//   stale claim (uid or resourceVersion moved), permanent Kubernetes failure -> term
//   transient failure, claim being deleted            -> nak with the retry backoff; term on the last delivery
// Every delivery gets a CONSUMER span continuing the actor's trace; the claim calls to Kubernetes are its children,
// and the Events they record join the same trace.
import type { Span, Tracer } from "@opentelemetry/api";
import { CONSUMERS, HEADERS, assertNever, codecs, pvcCommandSubjects } from "#protocol";
import type { PvcCommand } from "#protocol";
import { statefulSetRegarding } from "../../common/src/events.ts";
import type { EventRecorder, RecordedEvent } from "../../common/src/events.ts";
import type { DropReporter } from "../../common/src/executor/drops.ts";
import { readSetMessage, subjectShard } from "../../common/src/executor/intake.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import type { Logger } from "../../common/src/logger.ts";
import { failSpan, withConsumerSpan } from "../../common/src/messaging-trace.ts";
import type { ShardEpochView } from "../../common/src/shard-epochs.ts";
import { InvalidClaimError, checkClaims, executeCreate, executeUpdateOwnerRefs } from "./claims.ts";
import type { ClaimDeps, ClaimEvent, CommandOutcome, CommandResult } from "./claims.ts";
import type { Delivery, Disposition } from "./command-consumer.ts";
import type { PvcProvisionerSettings } from "./config.ts";
import type { PvcMetrics } from "./metrics.ts";

/** The settings that decide a retry: how often, and after how long. */
export type RetrySettings = Pick<PvcProvisionerSettings, "maxDeliver" | "retryBackoffMs">;

export interface CommandHandlerDeps {
  readonly kube: KubeApi;
  readonly epochs: Pick<ShardEpochView, "isStale" | "epochOf">;
  readonly events: EventRecorder;
  readonly metrics: PvcMetrics;
  readonly drops: DropReporter;
  readonly logger: Logger;
  readonly tracer: Tracer;
}

const TERM: Disposition = { kind: "term" };

/** What becomes of a command's message after a result on its `deliveryCount`-th delivery. */
export function disposition(result: CommandResult, deliveryCount: number, settings: RetrySettings): Disposition {
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
      return TERM;
    case "retry":
    case "terminating": {
      if (deliveryCount >= settings.maxDeliver) return TERM;
      const schedule = settings.retryBackoffMs;
      const planned = schedule[Math.min(deliveryCount - 1, schedule.length - 1)] ?? 1_000;
      return { kind: "nak", delayMs: Math.max(planned, result.retryAfterMs ?? 0) };
    }
    default:
      return assertNever(result.outcome, "command outcome");
  }
}

/** The outcome a result is counted and logged as: a retry given up on the last delivery is exhausted. */
export function countedOutcome(result: CommandResult, decided: Disposition): CommandOutcome {
  const retried = result.outcome === "retry" || result.outcome === "terminating";
  return decided.kind === "term" && retried ? "exhausted" : result.outcome;
}

/** A claim's Event as an Event about the command's StatefulSet (upstream records them on the set too). */
export function claimEvent(command: PvcCommand, event: ClaimEvent): RecordedEvent {
  return {
    set: { shard: command.shard, namespace: command.set.namespace, name: command.set.name },
    epoch: command.epoch,
    regarding: statefulSetRegarding(command.set),
    eventType: event.eventType,
    reason: event.reason,
    note: event.note,
    action: "Create",
  };
}

function setCommandAttributes(span: Span, command: PvcCommand): void {
  span.setAttributes({
    "stsfleet.command.type": command.type,
    "stsfleet.epoch": command.epoch,
    "k8s.namespace.name": command.set.namespace,
    "k8s.statefulset.name": command.set.name,
    "k8s.statefulset.uid": command.set.uid,
  });
}

export class CommandHandler {
  private readonly settings: RetrySettings;
  private readonly deps: CommandHandlerDeps;

  constructor(settings: RetrySettings, deps: CommandHandlerDeps) {
    this.settings = settings;
    this.deps = deps;
  }

  /** One CONSUMER span per delivery, continuing the actor's trace. */
  handle(delivery: Delivery): Promise<Disposition> {
    const target = {
      template: pvcCommandSubjects.template,
      subject: delivery.subject,
      shard: subjectShard(pvcCommandSubjects, delivery.subject),
      messageId: delivery.headers?.has(HEADERS.msgId) ? delivery.headers.get(HEADERS.msgId) : undefined,
      consumerGroup: CONSUMERS.pvcProvisioner,
      bodySize: delivery.data.length,
    };
    return withConsumerSpan(this.deps.tracer, target, delivery.headers, (span) => this.process(delivery, span));
  }

  private async process(delivery: Delivery, span: Span): Promise<Disposition> {
    span.setAttribute("stsfleet.delivery", delivery.deliveryCount);
    const intake = readSetMessage(pvcCommandSubjects, codecs.pvcCommand, delivery.subject, delivery.data, (c) => ({
      shard: c.shard,
      namespace: c.set.namespace,
      name: c.set.name,
    }));
    if (!intake.ok) {
      this.deps.drops.drop(pvcCommandSubjects.template, intake.reason, { ...intake.detail, streamSequence: delivery.seq });
      failSpan(span, `dropped: ${intake.reason}`);
      return TERM;
    }
    const command = intake.message;
    setCommandAttributes(span, command);
    const endTimer = this.deps.metrics.commandDuration.startTimer({ type: command.type });
    try {
      return await this.run(command, delivery, span);
    } finally {
      endTimer();
    }
  }

  private async run(command: PvcCommand, delivery: Delivery, span: Span): Promise<Disposition> {
    const { metrics } = this.deps;
    const log = this.deps.logger.child({
      command: command.type,
      commandId: command.commandId,
      set: `${command.set.namespace}/${command.set.name}`,
      shard: command.shard,
      epoch: command.epoch,
      delivery: delivery.deliveryCount,
    });
    if (this.deps.epochs.isStale(command.shard, command.epoch)) {
      metrics.staleEpochRejected.inc({ subject: pvcCommandSubjects.template });
      metrics.countCommand(command.type, "stale-epoch");
      log.info({ currentEpoch: this.deps.epochs.epochOf(command.shard) }, "rejected a command from a stale epoch");
      span.setAttribute("stsfleet.command.outcome", "stale-epoch");
      return TERM;
    }
    if (command.type === "pvc.create" && !this.claimsValid(command, delivery, span)) return TERM;
    const result = await this.execute(command);
    const decided = disposition(result, delivery.deliveryCount, this.settings);
    const outcome = countedOutcome(result, decided);
    metrics.countCommand(command.type, outcome);
    span.setAttribute("stsfleet.command.outcome", outcome);
    if (outcome === "failed" || outcome === "exhausted" || outcome === "retry") failSpan(span, `${outcome}: ${result.detail ?? ""}`);
    const fields = { outcome, detail: result.detail, ...(decided.kind === "nak" ? { retryInMs: decided.delayMs } : {}) };
    if (outcome === "created" || outcome === "updated") log.info(fields, "command done");
    else if (outcome === "exists" || outcome === "unchanged" || outcome === "gone") log.debug(fields, "command done");
    else log.warn(fields, "command not done");
    return decided;
  }

  /** Claim bodies the provisioner must not write are a drop: a redelivery carries the same bytes. */
  private claimsValid(command: Extract<PvcCommand, { type: "pvc.create" }>, delivery: Delivery, span: Span): boolean {
    try {
      checkClaims(command);
      return true;
    } catch (error) {
      if (!(error instanceof InvalidClaimError)) throw error;
      this.deps.drops.drop(pvcCommandSubjects.template, "invalid", { natsSubject: delivery.subject, problem: error.message });
      failSpan(span, "dropped: invalid");
      return false;
    }
  }

  /** The command's Kubernetes calls; a throw is a failure a later delivery may not see. */
  private async execute(command: PvcCommand): Promise<CommandResult> {
    const claimDeps: ClaimDeps = {
      kube: this.deps.kube,
      metrics: this.deps.metrics,
      recordEvent: (event) => this.deps.events.record(claimEvent(command, event)),
    };
    try {
      switch (command.type) {
        case "pvc.create":
          return await executeCreate(command, claimDeps);
        case "pvc.updateOwnerRefs":
          return await executeUpdateOwnerRefs(command, claimDeps);
        default:
          return assertNever(command, "pvc command");
      }
    } catch (error) {
      return { outcome: "retry", detail: error instanceof Error ? error.message : String(error) };
    }
  }
}
