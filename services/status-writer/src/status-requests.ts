// Status requests (svc.status.>, queue `status`, request-reply): one write per set at a time, a newer request
// replaces a waiting one (which is answered `superseded`), then writeStatus() and a StatusResult reply. Requests
// from a fenced (stale-epoch) owner are refused at intake, so they can never displace a current write.
import { context as otelContext } from "@opentelemetry/api";
import { CONSUMERS, assertNever, codecs, statusSubjects } from "#protocol";
import type { StatusResult, StatusWrite } from "#protocol";
import type { DropReporter } from "../../common/src/executor/drops.ts";
import { readSetMessage } from "../../common/src/executor/intake.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import type { Logger } from "../../common/src/logger.ts";
import { failSpan } from "../../common/src/messaging-trace.ts";
import type { ConsumerSpan } from "../../common/src/messaging-trace.ts";
import type { ShardEpochView } from "../../common/src/shard-epochs.ts";
import type { StatusWriterSettings } from "./config.ts";
import { LatestWins } from "./latest-wins.ts";
import type { StatusWriterMetrics } from "./metrics.ts";
import { consumerSpan, setSpanAttributes } from "./spans.ts";
import type { TakenMessage } from "./spans.ts";
import { WrittenSets, writeStatus } from "./status.ts";
import type { ForeignOverwrite, ForeignStatusReason } from "./status.ts";

export type StatusRequestSettings = Pick<StatusWriterSettings, "statusConcurrency" | "statusConflictRetries">;

export interface StatusRequestDeps {
  readonly kube: KubeApi;
  readonly epochs: Pick<ShardEpochView, "isStale">;
  readonly metrics: StatusWriterMetrics;
  readonly drops: DropReporter;
  readonly logger: Logger;
}

/** A status request from arrival until it is answered. */
interface Request {
  readonly message: TakenMessage;
  readonly arrivedAtMs: number;
  readonly trace: ConsumerSpan;
}

interface PendingWrite extends Request {
  readonly write: StatusWrite;
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

const failed = (message: string): StatusResult => ({ type: "status.result", outcome: "failed", message });

export class StatusRequests {
  private readonly settings: StatusRequestSettings;
  private readonly deps: StatusRequestDeps;
  private readonly written = new WrittenSets();
  private readonly writes: LatestWins<PendingWrite>;
  private stopping = false;

  constructor(settings: StatusRequestSettings, deps: StatusRequestDeps) {
    this.settings = settings;
    this.deps = deps;
    this.writes = new LatestWins<PendingWrite>({
      concurrency: settings.statusConcurrency,
      run: (_key, pending) => otelContext.with(pending.trace.context, () => this.runWrite(pending)),
      superseded: (pending) => this.answer(pending, { type: "status.result", outcome: "superseded", message: "a newer write for this set arrived" }),
    });
  }

  /** Takes one request: answers it at once when it cannot be written, or queues its write. */
  take(message: TakenMessage): void {
    const request: Request = { message, arrivedAtMs: performance.now(), trace: consumerSpan(statusSubjects, CONSUMERS.statusWriter, message) };
    const intake = readSetMessage(statusSubjects, codecs.statusWrite, message.subject, message.data, (w) => ({
      shard: w.shard,
      namespace: w.set.namespace,
      name: w.set.name,
    }));
    if (!intake.ok) {
      this.deps.drops.drop(statusSubjects.template, intake.reason, intake.detail);
      this.answer(request, failed(`dropped: ${intake.reason}`));
      return;
    }
    const write = intake.message;
    setSpanAttributes(request.trace.span, write.set, write.epoch);
    if (this.stopping) {
      this.answer(request, failed("status-writer is shutting down"));
      return;
    }
    if (this.deps.epochs.isStale(write.shard, write.epoch)) {
      this.deps.metrics.staleEpochRejected.inc({ subject: statusSubjects.template });
      this.answer(request, { type: "status.result", outcome: "stale-epoch" });
      return;
    }
    this.writes.submit(`${write.set.namespace}/${write.set.name}`, { ...request, write });
    this.deps.metrics.statusPendingSets.set(this.writes.size);
  }

  /** Refuses new requests and resolves once every queued write is answered. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.writes.idle();
  }

  private answer({ message, arrivedAtMs, trace: { span } }: Request, result: StatusResult): void {
    this.deps.metrics.countStatus(result.outcome, (performance.now() - arrivedAtMs) / 1000);
    span.setAttribute("stsfleet.status.outcome", result.outcome);
    if (result.outcome === "failed") failSpan(span, result.message ?? "failed");
    try {
      if (message.reply) message.respond(codecs.statusResult.encode(result));
    } catch (error) {
      this.deps.logger.debug({ err: error }, "could not answer a status request");
    } finally {
      span.end();
    }
  }

  private async runWrite(pending: PendingWrite): Promise<void> {
    const { metrics } = this.deps;
    let result: StatusResult;
    try {
      result = await writeStatus(pending.write, {
        kube: this.deps.kube,
        written: this.written,
        epochs: this.deps.epochs,
        metrics,
        maxConflictRetries: this.settings.statusConflictRetries,
        onConflict: () => metrics.statusConflicts.inc(),
        onForeignOverwrite: (overwrite) => this.foreignOverwrite(pending.write, overwrite),
      });
    } catch (error) {
      result = failed(error instanceof Error ? error.message : String(error));
    }
    if (result.outcome === "stale-epoch") metrics.staleEpochRejected.inc({ subject: statusSubjects.template });
    const level = result.outcome === "failed" ? "warn" : "debug";
    this.deps.logger[level](
      { set: `${pending.write.set.namespace}/${pending.write.set.name}`, outcome: result.outcome, message: result.message },
      "status write answered",
    );
    this.answer(pending, result);
    metrics.statusPendingSets.set(this.writes.size);
  }

  private foreignOverwrite(write: StatusWrite, { reason, storedObservedGeneration, generation }: ForeignOverwrite): void {
    this.deps.metrics.statusForeignOverwrites.inc({ reason });
    // Upstream overwrites such a status silently. A value no controller could have written is worth a line;
    // "not what this writer wrote" is routine with several status-writer replicas (ADR 0087).
    this.deps.logger[overwriteLogLevel(reason)](
      { set: `${write.set.namespace}/${write.set.name}`, reason, storedObservedGeneration, generation },
      "overwrote a status this writer did not write",
    );
  }
}
