import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { executionOrder, outcomeEvents } from "./execution.ts";
import type { PlanResult, PlanStep, StepPhase } from "./types.ts";

function result(phases: readonly StepPhase[], statusWrite: boolean): PlanResult {
  const steps: PlanStep[] = phases.map((phase) => ({ phase, blocking: false, actions: [] }));
  return { steps, status: { write: statusWrite }, requeueAfterMs: null, syncError: null } as unknown as PlanResult;
}

/** Drives the order, failing the steps at `failAt` (indexes), and lists the moves as "phase#index" and "status". */
function drive(plan: PlanResult, failAt: readonly number[]): string[] {
  const moves: string[] = [];
  const order = executionOrder(plan);
  for (let move = order.next(); !move.done; ) {
    if (move.value.type === "status") {
      moves.push("status");
      move = order.next();
      continue;
    }
    moves.push(`${move.value.step.phase}#${move.value.index}`);
    move = order.next(!failAt.includes(move.value.index));
  }
  return moves;
}

describe("executionOrder (the executor contract's items 1-3)", () => {
  const rows: { name: string; phases: StepPhase[]; status: boolean; failAt: number[]; moves: string[] }[] = [
    { name: "every step in order, status after the pods", phases: ["adoption", "revision", "pods", "pods"], status: true, failAt: [], moves: ["adoption#0", "revision#1", "pods#2", "pods#3", "status"] },
    { name: "status before the first history step", phases: ["revision", "pods", "history", "history"], status: true, failAt: [], moves: ["revision#0", "pods#1", "status", "history#2", "history#3"] },
    { name: "no status move when the plan writes none", phases: ["pods", "history"], status: false, failAt: [], moves: ["pods#0", "history#1"] },
    { name: "a failed adoption step ends the turn: no status", phases: ["adoption", "revision", "pods"], status: true, failAt: [0], moves: ["adoption#0"] },
    { name: "a failed revision step ends the turn: no status, no history", phases: ["revision", "pods", "history"], status: true, failAt: [0], moves: ["revision#0"] },
    { name: "a failed pod step skips the other pod steps; status and history still run", phases: ["pods", "pods", "pods", "history"], status: true, failAt: [0], moves: ["pods#0", "status", "history#3"] },
    { name: "a failed history step changes nothing after it", phases: ["pods", "history", "history"], status: true, failAt: [1], moves: ["pods#0", "status", "history#1", "history#2"] },
    { name: "an empty plan only writes its status", phases: [], status: true, failAt: [], moves: ["status"] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(drive(result(row.phases, row.status), row.failAt), row.moves);
    });
  }
});

describe("outcomeEvents (the executor contract's item 4)", () => {
  const events = {
    onSuccess: [{ type: "Normal" as const, reason: "SuccessfulCreate", message: "create Pod web-0 in StatefulSet web successful", action: "Create" }],
    onFailure: [
      { type: "Warning" as const, reason: "FailedCreate", messagePrefix: "create Pod web-0 in StatefulSet web failed error: ", action: "Create", suppressOn: ["AlreadyExists" as const] },
    ],
  };

  it("records onSuccess on success", () => {
    assert.deepEqual(outcomeEvents(events, undefined), events.onSuccess);
  });

  it("records onFailure with the error text appended", () => {
    assert.deepEqual(outcomeEvents(events, { kind: "Invalid", text: "bad" }), [
      { type: "Warning", reason: "FailedCreate", message: "create Pod web-0 in StatefulSet web failed error: bad", action: "Create" },
    ]);
  });

  it("records nothing for a suppressed kind", () => {
    assert.deepEqual(outcomeEvents(events, { kind: "AlreadyExists", text: "exists" }), []);
  });
});
