import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StatusResult } from "#protocol";
import { StatusWriteError, statusOutcome } from "./turn-status.ts";
import type { StatusStep } from "./turn-status.ts";

const web = { namespace: "ns", name: "web", resourceVersion: "41" };
const result = (outcome: StatusResult["outcome"], message?: string): StatusResult => ({ type: "status.result", outcome, ...(message ? { message } : {}) });

describe("statusOutcome: what a status write's outcome means for the turn", () => {
  const table: [StatusResult["outcome"], StatusStep][] = [
    ["written", { type: "go-on", expectations: [{ type: "changed", kind: "StatefulSet", namespace: "ns", name: "web", fromResourceVersion: "41" }] }],
    ["unchanged", { type: "go-on", expectations: [] }],
    ["superseded", { type: "go-on", expectations: [] }],
    ["stale-generation", { type: "go-on", expectations: [] }],
    ["stale-epoch", { type: "end", outcome: { type: "not-owned" }, fence: true }],
    ["not-found", { type: "end", outcome: { type: "gone" }, fence: false }],
  ];
  for (const [outcome, step] of table) {
    it(`${outcome} -> ${step.type}${step.type === "end" ? ` ${step.outcome.type}` : ""}`, () => {
      assert.deepEqual(statusOutcome(result(outcome), web), step);
    });
  }

  it("failed -> the turn fails with a StatusWriteError carrying the writer's message", () => {
    const step = statusOutcome(result("failed", "timeout"), web);
    assert.equal(step.type, "failed");
    assert.ok(step.type === "failed" && step.error instanceof StatusWriteError);
    assert.equal(step.error.message, "status write failed: timeout");
    assert.equal(step.message, "timeout");
  });

  it("expects nothing of a written status when the snapshot had no resourceVersion", () => {
    assert.deepEqual(statusOutcome(result("written"), { ...web, resourceVersion: undefined }), { type: "go-on", expectations: [] });
  });
});
