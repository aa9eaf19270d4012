// The part of a turn that comes before planning when another StatefulSet controller may act on the set
// (docs/adr/0092-another-statefulset-controller.md): judge who writes the set's status; a set left alone gets no
// plan, only its ForeignController condition, a Warning Event when it is first detected, and a turn again when the
// quiet period is over; a set acted on again gets a Normal Event and the condition set False before it is planned.
import type { Logger } from "../../../common/src/logger.ts";
import type { Expectation } from "../domain/expectations.ts";
import { FOREIGN_CONTROLLER_DETECTED, FOREIGN_CONTROLLER_GONE, foreignConditionStatus, foreignControllerCondition, foreignControllerGoneMessage, foreignControllerMessage } from "../domain/foreign-controller.ts";
import type { ForeignControllerVerdict } from "../domain/foreign-controller.ts";
import { readStatus } from "../planner/index.ts";
import type { TurnOutcome } from "./actor-system.ts";
import type { TurnContext } from "./executor.ts";
import type { TurnDeps, TurnInput } from "./turn.ts";
import { writeStatus } from "./turn-status.ts";

/** Whether another controller acts on the set; undefined when the turn judges no set that way. */
export function judgeForeignController(deps: TurnDeps, input: TurnInput): ForeignControllerVerdict | undefined {
  if (!deps.foreignControllers) return undefined;
  const cached = deps.store.get("StatefulSet", input.namespace, input.name);
  return deps.foreignControllers.judge(input.key, {
    uid: input.snapshot.set.metadata?.uid ?? "",
    entries: cached?.statusManagers ?? [],
    condition: foreignConditionStatus(input.snapshot.set.status),
    nowMs: Date.now(),
  });
}

/**
 * Writes the ForeignController condition, and only it (ADR 0092): the counters stay whatever the other controller
 * wrote, so this write gives it no reason to write again. Returns the outcome that ends the turn, if one does (a
 * failed write is retried with back-off before anything else is done), and the expectation of a written condition.
 */
async function writeCondition(
  deps: TurnDeps,
  ctx: TurnContext,
  input: TurnInput,
  verdict: ForeignControllerVerdict,
  log: Logger,
): Promise<{ readonly end?: TurnOutcome; readonly expectations: readonly Expectation[] }> {
  const options = deps.foreignControllers?.options;
  if (!options) return { expectations: [] };
  const { conditions: _stored, ...counters } = readStatus(input.snapshot.set);
  const condition = foreignControllerCondition(verdict, options, Date.now());
  const target = { namespace: input.namespace, name: input.name, resourceVersion: input.snapshot.set.metadata?.resourceVersion };
  const step = await writeStatus(deps, ctx, target, { ...counters, conditions: [{ ...condition }] }, "conditions");
  switch (step.type) {
    case "go-on":
      return { expectations: step.expectations };
    case "end":
      return { end: step.outcome, expectations: [] };
    case "failed":
      // The turn is retried with back-off, as after a failed status write: it writes nothing else meanwhile.
      log.info({ message: step.message }, "could not write the ForeignController condition");
      return { end: { type: "failed", error: step.error, expectations: [] }, expectations: [] };
  }
}

/** Another controller acts on the set: no plan, no pod, claim, revision or counter write; say why, wait. */
export async function leaveAlone(
  deps: TurnDeps,
  ctx: TurnContext,
  input: TurnInput,
  verdict: Extract<ForeignControllerVerdict, { type: "stop" }>,
  log: Logger,
): Promise<TurnOutcome> {
  const options = deps.foreignControllers?.options;
  if (verdict.detected && options) {
    const message = foreignControllerMessage(verdict.stop, options);
    log.warn({ manager: verdict.stop.manager, rule: verdict.stop.rule }, "another controller writes the set's status; leaving the set alone");
    deps.metrics?.foreignController?.("detected", verdict.stop.rule);
    deps.executor.recordEvent({ type: "Warning", reason: FOREIGN_CONTROLLER_DETECTED, message, action: "Reconcile" }, ctx);
  }
  const written = verdict.writeCondition ? await writeCondition(deps, ctx, input, verdict, log) : { expectations: [] };
  if (written.end) return written.end;
  return { type: "done", requeueAfterMs: Math.max(0, verdict.resumeAtMs - Date.now()), expectations: written.expectations };
}

/** The set is acted on again (or its condition still says otherwise): set the condition False before planning. */
export async function actAgain(
  deps: TurnDeps,
  ctx: TurnContext,
  input: TurnInput,
  verdict: Extract<ForeignControllerVerdict, { type: "act" }>,
  log: Logger,
): Promise<TurnOutcome | undefined> {
  const options = deps.foreignControllers?.options;
  if (verdict.resumed !== null && options) {
    log.info({ manager: verdict.resumed.manager, rule: verdict.resumed.rule }, "no foreign status write for the quiet period; acting on the set again");
    deps.metrics?.foreignController?.("resumed", verdict.resumed.rule);
    deps.executor.recordEvent({ type: "Normal", reason: FOREIGN_CONTROLLER_GONE, message: foreignControllerGoneMessage(verdict.resumed, options), action: "Reconcile" }, ctx);
  }
  return (await writeCondition(deps, ctx, input, verdict, log)).end;
}
