// A turn's status write, through the status-writer: one request-reply on status.<shard>.<ns>.<name> carrying the
// turn's epoch, answered with an outcome. statusOutcome says what each outcome means for the turn, the same for
// the full status write after a plan and for the conditions-only write of a set left alone
// (docs/adr/0092-another-statefulset-controller.md).
import { trace } from "@opentelemetry/api";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { assertNever, codecs, statusSubjects } from "#protocol";
import type { StatusResult, StatusWrite } from "#protocol";
import { withProducerSpan } from "../../../common/src/messaging-trace.ts";
import type { Expectation } from "../domain/expectations.ts";
import type { PlanResult } from "../planner/index.ts";
import type { TurnOutcome } from "./actor-system.ts";
import type { TurnContext } from "./executor.ts";
import type { TurnDeps } from "./turn.ts";

export class StatusWriteError extends Error {
  override readonly name = "StatusWriteError";
  readonly outcome: string;

  constructor(outcome: string, message: string | undefined) {
    super(`status write ${outcome}${message ? `: ${message}` : ""}`);
    this.outcome = outcome;
  }
}

/** What a status write's outcome means for the turn that asked for it. */
export type StatusStep =
  /** The turn goes on; a written status must show in the cache before the next plan (read-your-writes). */
  | { readonly type: "go-on"; readonly expectations: readonly Expectation[] }
  /** The write failed: the turn fails, and is retried with back-off. */
  | { readonly type: "failed"; readonly error: StatusWriteError; readonly message: string | undefined }
  /** The turn ends here; `fence`: the status-writer refused the turn's epoch, so the shard is given up at it. */
  | { readonly type: "end"; readonly outcome: TurnOutcome; readonly fence: boolean };

/** The set a status was written for, as the turn's snapshot had it. */
export interface StatusTarget {
  readonly namespace: string;
  readonly name: string;
  /** The set's resourceVersion before the write: a written status is expected to replace it. */
  readonly resourceVersion: string | undefined;
}

export function statusOutcome(result: StatusResult, target: StatusTarget): StatusStep {
  switch (result.outcome) {
    case "written": {
      const { namespace, name, resourceVersion } = target;
      return { type: "go-on", expectations: resourceVersion ? [{ type: "changed", kind: "StatefulSet", namespace, name, fromResourceVersion: resourceVersion }] : [] };
    }
    case "unchanged":
    case "superseded":
    case "stale-generation":
      return { type: "go-on", expectations: [] };
    case "stale-epoch":
      return { type: "end", outcome: { type: "not-owned" }, fence: true };
    case "not-found":
      return { type: "end", outcome: { type: "gone" }, fence: false };
    case "failed":
      return { type: "failed", error: new StatusWriteError(result.outcome, result.message), message: result.message };
    default:
      return assertNever(result.outcome, "status outcome");
  }
}

/** The status a plan computed, as the status-writer takes it. */
export function statusMessageOf(result: PlanResult): StatusWrite["status"] {
  const { conditions, ...counters } = result.status.value;
  return conditions ? { ...counters, conditions: conditions.map((condition) => ({ ...condition })) } : counters;
}

const tracer = trace.getTracer("stsfleet-actor");

/** Asks the status-writer; no answer, or one that does not decode, is a failed write. */
async function requestStatus(deps: TurnDeps, ctx: TurnContext, status: StatusWrite["status"], scope: NonNullable<StatusWrite["scope"]>): Promise<StatusResult> {
  const headers = natsHeaders();
  try {
    const subject = statusSubjects.build(ctx.address);
    const bytes = codecs.statusWrite.encode({
      type: "status.write",
      shard: ctx.address.shard,
      epoch: ctx.epoch,
      set: ctx.set,
      status,
      ...(scope === "conditions" ? { scope } : {}),
    });
    const target = { template: statusSubjects.template, subject, shard: ctx.address.shard, bodySize: bytes.length };
    const reply = await withProducerSpan(tracer, target, headers, () => deps.nats.request(subject, bytes, { timeout: deps.statusTimeoutMs, headers }));
    return codecs.statusResult.decode(reply.data);
  } catch (error) {
    return { type: "status.result", outcome: "failed", message: error instanceof Error ? error.message : String(error) };
  }
}

/** Writes `status` (all of it, or its conditions only), counts the outcome, and gives the shard up when fenced. */
export async function writeStatus(
  deps: TurnDeps,
  ctx: TurnContext,
  target: StatusTarget,
  status: StatusWrite["status"],
  scope: NonNullable<StatusWrite["scope"]>,
): Promise<StatusStep> {
  const result = await requestStatus(deps, ctx, status, scope);
  deps.metrics?.statusWrite?.(result.outcome);
  const step = statusOutcome(result, target);
  if (step.type === "end" && step.fence) deps.ownership.fenced(ctx.address.shard, ctx.epoch);
  return step;
}
