// The scenario table of docs/adr/0092-another-statefulset-controller.md: each scenario is one owner's successive
// looks at a set (the status entries of its managedFields at that turn) and the verdict each look must give.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_FOREIGN_CONTROLLER_OPTIONS,
  FOREIGN_CONTROLLER_CONDITION,
  foreignConditionStatus,
  foreignControllerGoneMessage,
  foreignControllerMessage,
  judgeStatusWriters,
} from "./foreign-controller.ts";
import type { StatusManager } from "#protocol";
import type { ForeignControllerOptions, ForeignControllerVerdict, StatusWritersRecord } from "./foreign-controller.ts";

const OPTIONS: ForeignControllerOptions = { ...DEFAULT_FOREIGN_CONTROLLER_OPTIONS, ownManagers: ["stsfleet-status-writer"] };
const OWN = "stsfleet-status-writer";
const KCM = "kube-controller-manager";
const PATCH = "kubectl-patch";
const T0 = Date.parse("2026-12-02T10:00:00Z");

/** A time `s` seconds after T0, as managedFields writes it. */
function at(s: number): string {
  return `${new Date(T0 + s * 1000).toISOString().slice(0, 19)}Z`;
}

interface Look {
  /** When the owner looks, in seconds after T0. */
  readonly s: number;
  /** Status entries: manager -> seconds after T0 of its time. */
  readonly entries: Readonly<Record<string, number>>;
  /** The stored ForeignController condition's status. */
  readonly condition?: string;
  readonly uid?: string;
  /**
   * act | act+clear (the stored condition is True) | resume (acted on again after the quiet period) |
   * STOP <rule> (detected at this look) | stop | stop+write (the condition must be written).
   */
  readonly expect: string;
}

function describeVerdict(verdict: ForeignControllerVerdict): string {
  if (verdict.type === "act") return verdict.resumed ? "resume" : verdict.clearCondition ? "act+clear" : "act";
  if (verdict.detected) return `STOP ${verdict.stop.rule}${verdict.stop.manager ? ` ${verdict.stop.manager}` : ""}`;
  return verdict.writeCondition ? "stop+write" : "stop";
}

function entriesOf(look: Look): StatusManager[] {
  return Object.entries(look.entries).map(([manager, s]) => ({ manager, operation: "Update", time: at(s) }));
}

function run(looks: readonly Look[], options = OPTIONS): string[] {
  let record: StatusWritersRecord | undefined;
  return looks.map((look) => {
    const judged = judgeStatusWriters({ record, uid: look.uid ?? "uid-1", entries: entriesOf(look), condition: look.condition, nowMs: T0 + look.s * 1000, options });
    record = judged.record;
    return describeVerdict(judged.verdict);
  });
}

const QUIET_S = OPTIONS.quietPeriodMs / 1000;

const SCENARIOS: readonly { readonly name: string; readonly looks: readonly Look[] }[] = [
  {
    name: "only stsfleet writes the status: always acts",
    looks: [
      { s: 0, entries: {}, expect: "act" },
      { s: 1, entries: { [OWN]: 1 }, expect: "act" },
      { s: 5, entries: { [OWN]: 5 }, expect: "act" },
    ],
  },
  {
    name: "issue 16: kubectl patch once, overwritten by the fleet, never again: acts throughout",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 2, entries: { [OWN]: 0, [PATCH]: 2 }, expect: "act" },
      { s: 3, entries: { [OWN]: 3 }, expect: "act" },
      { s: 50, entries: { [OWN]: 50 }, expect: "act" },
    ],
  },
  {
    name: "the same manager writes twice with no overwrite between: nobody fights, acts",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 2, entries: { [OWN]: 0, [PATCH]: 2 }, expect: "act" },
      { s: 4, entries: { [OWN]: 0, [PATCH]: 4 }, expect: "act" },
    ],
  },
  {
    name: "a manager writes again after the fleet overwrote it, within the window: stops",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 2, entries: { [OWN]: 0, [PATCH]: 2 }, expect: "act" },
      { s: 3, entries: { [OWN]: 3 }, expect: "act" },
      { s: 4, entries: { [OWN]: 3, [PATCH]: 4 }, expect: `STOP rewrote-after-overwrite ${PATCH}` },
      { s: 5, entries: { [OWN]: 5, [PATCH]: 4 }, expect: "stop+write" },
      { s: 6, entries: { [OWN]: 5, [PATCH]: 4 }, condition: "True", expect: "stop" },
    ],
  },
  {
    name: "the second write comes after the window: one write each time, acts",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 2, entries: { [OWN]: 0, [PATCH]: 2 }, expect: "act" },
      { s: 3, entries: { [OWN]: 3 }, expect: "act" },
      { s: 90, entries: { [OWN]: 3, [PATCH]: 90 }, expect: "act" },
    ],
  },
  {
    name: "two managers write once each: neither wrote again, acts",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 2, entries: { [OWN]: 0, [PATCH]: 2 }, expect: "act" },
      { s: 3, entries: { [OWN]: 3 }, expect: "act" },
      { s: 4, entries: { [OWN]: 3, "kubectl-edit": 4 }, expect: "act" },
    ],
  },
  {
    name: "overwrite and rewrite seen in one look, in the same second: the foreign write is the later one, stops",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 2, entries: { [OWN]: 0, [PATCH]: 2 }, expect: "act" },
      { s: 3, entries: { [OWN]: 3, [PATCH]: 3 }, expect: `STOP rewrote-after-overwrite ${PATCH}` },
    ],
  },
  {
    name: "kube-controller-manager writes the status while the fleet owns the set: stops at once",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 1, entries: { [OWN]: 0, [KCM]: 1 }, expect: `STOP known-controller ${KCM}` },
    ],
  },
  {
    name: "the takeover: kube-controller-manager's entries from before the switch never count",
    looks: [
      { s: 0, entries: { [KCM]: -600 }, expect: "act" },
      { s: 1, entries: { [KCM]: -600, [OWN]: 1 }, expect: "act" },
      { s: 2, entries: { [OWN]: 1 }, expect: "act" },
    ],
  },
  {
    name: "stopped: each foreign write restarts the quiet period; quiet for the whole period, acts again",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 1, entries: { [OWN]: 0, [KCM]: 1 }, expect: `STOP known-controller ${KCM}` },
      { s: 2, entries: { [OWN]: 2, [KCM]: 1 }, condition: "True", expect: "stop" },
      { s: 100, entries: { [KCM]: 100 }, expect: "stop+write" },
      { s: 101, entries: { [OWN]: 101, [KCM]: 100 }, condition: "True", expect: "stop" },
      { s: 100 + QUIET_S - 1, entries: { [OWN]: 101, [KCM]: 100 }, condition: "True", expect: "stop" },
      { s: 100 + QUIET_S, entries: { [OWN]: 101, [KCM]: 100 }, condition: "True", expect: "resume" },
      { s: 100 + QUIET_S + 1, entries: { [OWN]: 100 + QUIET_S }, condition: "False", expect: "act" },
      { s: 100 + QUIET_S + 2, entries: { [OWN]: 100 + QUIET_S, [KCM]: 100 + QUIET_S + 2 }, condition: "False", expect: `STOP known-controller ${KCM}` },
    ],
  },
  {
    name: "a new owner finds the condition True: stops without an Event, for a quiet period",
    looks: [
      { s: 0, entries: { [OWN]: 0, [KCM]: 0 }, condition: "True", expect: "stop" },
      { s: QUIET_S, entries: { [OWN]: 0, [KCM]: 0 }, condition: "True", expect: "resume" },
    ],
  },
  {
    name: "the condition still True while acting (the False write has not landed): acts and clears it",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 1, entries: { [OWN]: 0 }, condition: "True", expect: "act+clear" },
    ],
  },
  {
    name: "another incarnation of the set is a first look",
    looks: [
      { s: 0, entries: { [OWN]: 0 }, expect: "act" },
      { s: 1, entries: { [KCM]: 1 }, uid: "uid-2", expect: "act" },
    ],
  },
];

describe("judgeStatusWriters (another StatefulSet controller, ADR 0092)", () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, () => {
      assert.deepEqual(run(scenario.looks), scenario.looks.map((look) => look.expect));
    });
  }

  it("reads a manager's newest entry (an Update and an Apply), and entries without a time", () => {
    const first = judgeStatusWriters({ record: undefined, uid: "u", entries: [{ manager: OWN, time: at(0) }], condition: undefined, nowMs: T0, options: OPTIONS });
    const entries = [
      { manager: KCM, operation: "Apply", time: at(-10) },
      { manager: KCM, operation: "Update" },
      { manager: OWN, time: at(0) },
    ];
    const second = judgeStatusWriters({ record: first.record, uid: "u", entries, condition: undefined, nowMs: T0 + 1000, options: OPTIONS });
    assert.equal(describeVerdict(second.verdict), `STOP known-controller ${KCM}`);
  });

  it("asks to resume no earlier than a quiet period after the last foreign write it saw", () => {
    const first = judgeStatusWriters({ record: undefined, uid: "u", entries: [], condition: undefined, nowMs: T0, options: OPTIONS });
    const second = judgeStatusWriters({ record: first.record, uid: "u", entries: [{ manager: KCM, time: at(1) }], condition: undefined, nowMs: T0 + 1000, options: OPTIONS });
    assert.equal(second.verdict.type === "stop" ? second.verdict.resumeAtMs : undefined, T0 + 1000 + OPTIONS.quietPeriodMs);
  });

  it("finds the condition in a status, and says why in stable text under the Event note's limit", () => {
    assert.equal(foreignConditionStatus({ conditions: [{ type: "Progressing", status: "True" }, { type: FOREIGN_CONTROLLER_CONDITION, status: "False" }] }), "False");
    assert.equal(foreignConditionStatus({ replicas: 1 }), undefined);
    assert.equal(foreignConditionStatus(undefined), undefined);
    for (const rule of ["known-controller", "rewrote-after-overwrite", "condition"] as const) {
      const stop = { manager: KCM, rule, sinceMs: T0, lastForeignAtMs: T0 };
      const message = foreignControllerMessage(stop, OPTIONS);
      assert.equal(message, foreignControllerMessage({ ...stop, sinceMs: T0 + 5, lastForeignAtMs: T0 + 5 }, OPTIONS), "no times in the text");
      assert.ok(message.length < 1024, message);
    }
    assert.match(foreignControllerGoneMessage(null, OPTIONS), /^no other field manager has written this StatefulSet's status for 300 s/);
  });
});
