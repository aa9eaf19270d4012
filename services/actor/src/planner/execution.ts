// The executor contract (README.md, "Executor contract") as code both executors run: the reference executor over the
// fake cluster (testing/executor.ts) and the actor's turn. `executionOrder` decides what comes next from what has
// failed so far (items 1-3: steps in order, the turn ends after a failed adoption or revision step, the pod steps
// after a failed one are skipped, the status goes after the pods and before the history); `outcomeEvents` decides
// which Events an action's outcome records (item 4). Both are pure; the executors only carry out the moves.
import type { ActionEvents, ApiErrorKind, EventSpec, PlanResult, PlanStep } from "./types.ts";

/** What the executor does next: run a step (and answer whether it succeeded), or write the planned status. */
export type ExecutionMove =
  | { readonly type: "step"; readonly step: PlanStep; readonly index: number }
  | { readonly type: "status" };

/**
 * The moves of one turn, in order. Drive it with `next(ok)`: after a `step` move pass whether every action of the
 * step succeeded; after a `status` move the answer is ignored (a failed status write ends nothing upstream either:
 * history is still truncated). The generator returns when the turn is over.
 */
export function* executionOrder(result: PlanResult): Generator<ExecutionMove, void, boolean | undefined> {
  let podsFailed = false;
  let statusDone = false;
  for (const [index, step] of result.steps.entries()) {
    if (step.phase === "history" && !statusDone) {
      statusDone = true;
      if (result.status.write) yield { type: "status" };
    }
    if (podsFailed && step.phase === "pods") continue;
    const ok = yield { type: "step", step, index };
    if (ok !== false) continue;
    if (step.phase === "adoption" || step.phase === "revision") return;
    if (step.phase === "pods") podsFailed = true;
  }
  if (!statusDone && result.status.write) yield { type: "status" };
}

/** How an action failed, as the contract's Events need it. */
export interface ActionFailure {
  readonly kind: ApiErrorKind;
  /** The API server's message (or the error's), appended to each failure Event's `messagePrefix`. */
  readonly text: string;
}

/** The Events an action's outcome records: `onSuccess` on success, else `onFailure` less those suppressed for its kind. */
export function outcomeEvents(events: ActionEvents, failure: ActionFailure | undefined): EventSpec[] {
  if (!failure) return [...events.onSuccess];
  return events.onFailure
    .filter((event) => !event.suppressOn?.includes(failure.kind))
    .map((event) => ({ type: event.type, reason: event.reason, action: event.action, message: `${event.messagePrefix}${failure.text}` }));
}
