// Is another StatefulSet controller acting on this set? Decided at the start of every turn, before the planner,
// from who wrote the set's status: the managedFields entries of its status subresource (manager and time, as the
// watcher publishes them) compared with what this owner saw at its previous turn
// (docs/adr/0092-another-statefulset-controller.md). A set another controller acts on is left alone: no pod, claim,
// revision or counter is written until no foreign status write has been seen for the quiet period.
//
// The rule tells "another controller keeps writing" from "someone wrote once" (issue 16's `kubectl patch
// --subresource=status`, which the fleet overwrites and converges from, ADR 0087):
// - a status write by a manager that is known to be a StatefulSet controller (kube-controller-manager: in it only
//   the StatefulSet controller writes statefulsets/status) is enough;
// - any other manager must write the status again after the fleet overwrote its previous write, within the
//   rewrite window: what two controllers reasserting their own status do, and what a person patching once does not.
// Only writes seen while this owner holds the set count: the first look at a set (a new owner, a restart) takes the
// entries as they are, so the entries kube-controller-manager left before the switch to stsfleet never count.
// Pure: entries, the previous record and `now` in, a verdict and the next record out.
import { assertNever } from "#protocol";
import type { StatusManager } from "#protocol";

/** The condition on the set's status that says stsfleet stopped acting on it (and, False, that it acts again). */
export const FOREIGN_CONTROLLER_CONDITION = "ForeignController";
/** The Warning Event's reason, and the condition's reason while it is True. */
export const FOREIGN_CONTROLLER_DETECTED = "ForeignControllerDetected";
/** The Normal Event's reason, and the condition's reason once False. */
export const FOREIGN_CONTROLLER_GONE = "ForeignControllerGone";

export interface ForeignControllerOptions {
  /** Managers whose status writes are the fleet's own: the status-writer's User-Agent prefix. */
  readonly ownManagers: readonly string[];
  /** Managers that are another StatefulSet controller by name: one status write seen is enough. */
  readonly knownControllers: readonly string[];
  /** A second write of one manager counts when it follows an own overwrite within this long of its first. */
  readonly rewriteWindowMs: number;
  /** A stopped set is acted on again once no foreign status write has been seen for this long. */
  readonly quietPeriodMs: number;
}

export const DEFAULT_FOREIGN_CONTROLLER_OPTIONS: Omit<ForeignControllerOptions, "ownManagers"> = {
  /** Defaults to kube-controller-manager's field manager (its status updater's User-Agent prefix). */
  knownControllers: ["kube-controller-manager"],
  /** Defaults to 60 s: a controller reasserts its status within seconds of being overwritten. */
  rewriteWindowMs: 60_000,
  /** Defaults to 5 min: a controller that runs writes again at the set's next change; see the ADR. */
  quietPeriodMs: 300_000,
};

/**
 * Why a set is left alone: `known-controller` and `rewrote-after-overwrite` are the two rules above; `condition`
 * is a set whose ForeignController condition was True when this owner first looked at it (a previous owner stopped).
 */
export type ForeignControllerRule = "known-controller" | "rewrote-after-overwrite" | "condition";

export interface ForeignStop {
  /** The manager whose write decided it ("" for `condition`: the previous owner's reason is in the condition). */
  readonly manager: string;
  readonly rule: ForeignControllerRule;
  readonly sinceMs: number;
  /** When this owner last saw a foreign status write; the quiet period counts from here. */
  readonly lastForeignAtMs: number;
}

interface ForeignWrite {
  /** When this owner saw it (its own clock). */
  readonly atMs: number;
  /** An own status write followed it. */
  readonly overwritten: boolean;
}

/** What an owner remembers of one set between turns. Plain data. */
export interface StatusWritersRecord {
  /** The incarnation of the set it is about: another uid starts afresh. */
  readonly uid: string;
  /** The status entries at the previous look: manager -> time ("" when the entry has none). */
  readonly seen: ReadonlyMap<string, string>;
  /** Foreign managers whose write was seen within the rewrite window. */
  readonly foreign: ReadonlyMap<string, ForeignWrite>;
  readonly stopped: ForeignStop | null;
}

export interface ForeignControllerInput {
  readonly record: StatusWritersRecord | undefined;
  readonly uid: string;
  readonly entries: readonly StatusManager[];
  /** The status of the set's ForeignController condition as stored (undefined: there is none). */
  readonly condition: string | undefined;
  readonly nowMs: number;
  readonly options: ForeignControllerOptions;
}

export type ForeignControllerVerdict =
  /** Act on the set. `resumed`: it was stopped until this turn. `clearCondition`: the stored condition is True. */
  | { readonly type: "act"; readonly resumed: ForeignStop | null; readonly clearCondition: boolean }
  /**
   * Leave the set alone this turn. `detected`: it was acted on until this turn. `writeCondition`: the stored
   * condition is not True (not written yet, or another controller's status write dropped it).
   */
  | { readonly type: "stop"; readonly stop: ForeignStop; readonly detected: boolean; readonly writeCondition: boolean; readonly resumeAtMs: number };

export interface ForeignControllerJudgement {
  readonly verdict: ForeignControllerVerdict;
  readonly record: StatusWritersRecord;
}

/** manager -> the newest time of its status entries (a manager may hold an Update and an Apply entry). */
function entryTimes(entries: readonly StatusManager[]): Map<string, string> {
  const times = new Map<string, string>();
  for (const entry of entries) {
    const time = entry.time ?? "";
    const known = times.get(entry.manager);
    if (known === undefined || timeMs(time) > timeMs(known)) times.set(entry.manager, time);
  }
  return times;
}

/** An entry without a parsable time sorts after every other: taken as the newest. */
function timeMs(time: string): number {
  const parsed = Date.parse(time);
  return Number.isNaN(parsed) ? Number.POSITIVE_INFINITY : parsed;
}

interface Write {
  readonly manager: string;
  readonly own: boolean;
  readonly timeMs: number;
}

/**
 * The status writes between the previous look and this one: an entry that is new, or whose time moved. In time
 * order; within one second (managedFields' precision) an own write is taken as the earlier, so a foreign write in
 * the same second counts as the later one, which is what a controller answering the fleet's write looks like.
 */
function writesSince(seen: ReadonlyMap<string, string>, current: ReadonlyMap<string, string>, own: readonly string[]): Write[] {
  const writes: Write[] = [];
  for (const [manager, time] of current) {
    if (seen.get(manager) !== time) writes.push({ manager, own: own.includes(manager), timeMs: timeMs(time) });
  }
  return writes.sort((a, b) => a.timeMs - b.timeMs || Number(a.own === false) - Number(b.own === false));
}

function act(record: StatusWritersRecord, resumed: ForeignStop | null, condition: string | undefined): ForeignControllerJudgement {
  return { verdict: { type: "act", resumed, clearCondition: condition === "True" }, record };
}

function stop(record: StatusWritersRecord & { stopped: ForeignStop }, detected: boolean, input: ForeignControllerInput): ForeignControllerJudgement {
  const { stopped } = record;
  return {
    verdict: {
      type: "stop",
      stop: stopped,
      detected,
      writeCondition: input.condition !== "True",
      resumeAtMs: stopped.lastForeignAtMs + input.options.quietPeriodMs,
    },
    record,
  };
}

/** The verdict for this turn and what to remember for the next. */
export function judgeStatusWriters(input: ForeignControllerInput): ForeignControllerJudgement {
  const { record: previous, uid, nowMs, options } = input;
  const current = entryTimes(input.entries);
  if (previous === undefined || previous.uid !== uid) {
    // The first look: nothing here was seen being written. A previous owner's stop stands, for a quiet period.
    const stopped: ForeignStop | null = input.condition === "True" ? { manager: "", rule: "condition", sinceMs: nowMs, lastForeignAtMs: nowMs } : null;
    const record = { uid, seen: current, foreign: new Map<string, ForeignWrite>(), stopped };
    return record.stopped ? stop({ ...record, stopped: record.stopped }, false, input) : act(record, null, input.condition);
  }

  const foreign = new Map<string, ForeignWrite>();
  for (const [manager, write] of previous.foreign) if (nowMs - write.atMs <= options.rewriteWindowMs) foreign.set(manager, write);
  let detected: { manager: string; rule: ForeignControllerRule } | undefined;
  let sawForeign = false;
  for (const write of writesSince(previous.seen, current, options.ownManagers)) {
    if (write.own) {
      for (const [manager, earlier] of foreign) foreign.set(manager, { ...earlier, overwritten: true });
      continue;
    }
    sawForeign = true;
    if (options.knownControllers.includes(write.manager)) detected ??= { manager: write.manager, rule: "known-controller" };
    else if (foreign.get(write.manager)?.overwritten === true) detected ??= { manager: write.manager, rule: "rewrote-after-overwrite" };
    foreign.set(write.manager, { atMs: nowMs, overwritten: false });
  }

  if (previous.stopped) {
    const stopped = sawForeign ? { ...previous.stopped, lastForeignAtMs: nowMs } : previous.stopped;
    if (nowMs - stopped.lastForeignAtMs >= options.quietPeriodMs) {
      // Quiet for the whole period: act again, and judge whatever comes next from a clean slate.
      return act({ uid, seen: current, foreign: new Map(), stopped: null }, stopped, input.condition);
    }
    return stop({ uid, seen: current, foreign, stopped }, false, input);
  }
  if (detected) {
    const stopped: ForeignStop = { ...detected, sinceMs: nowMs, lastForeignAtMs: nowMs };
    return stop({ uid, seen: current, foreign, stopped }, true, input);
  }
  return act({ uid, seen: current, foreign, stopped: null }, null, input.condition);
}

/** The status of the set's ForeignController condition, if it has one. */
export function foreignConditionStatus(status: unknown): string | undefined {
  if (status === null || typeof status !== "object") return undefined;
  const conditions = (status as { conditions?: unknown }).conditions;
  if (!Array.isArray(conditions)) return undefined;
  for (const condition of conditions as unknown[]) {
    if (condition !== null && typeof condition === "object" && (condition as { type?: unknown }).type === FOREIGN_CONTROLLER_CONDITION) {
      const value = (condition as { status?: unknown }).status;
      return typeof value === "string" ? value : undefined;
    }
  }
  return undefined;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

/** Why the set is left alone, for the Event and the condition: stable text, so writing it again changes nothing. */
export function foreignControllerMessage(stop: ForeignStop, options: ForeignControllerOptions): string {
  const resume = `stsfleet acts on it again once no other field manager has written its status for ${seconds(options.quietPeriodMs)}`;
  switch (stop.rule) {
    case "known-controller":
      return `${stop.manager} wrote this StatefulSet's status while stsfleet controls it: another StatefulSet controller is running (switch kube-controller-manager's off with --controllers=*,-statefulset-controller). stsfleet stopped acting on the set; ${resume}`;
    case "rewrote-after-overwrite":
      return `${stop.manager} wrote this StatefulSet's status again after stsfleet overwrote it: another controller acts on the set. stsfleet stopped acting on it; ${resume}`;
    case "condition":
      return `the ${FOREIGN_CONTROLLER_CONDITION} condition was True when this stsfleet member took the set over; ${resume}`;
    default:
      return assertNever(stop.rule, "foreign controller rule");
  }
}

/** The message once the set is acted on again. */
export function foreignControllerGoneMessage(resumed: ForeignStop | null, options: ForeignControllerOptions): string {
  const who = resumed?.manager ? `${resumed.manager} has not` : "no other field manager has";
  return `${who} written this StatefulSet's status for ${seconds(options.quietPeriodMs)}: stsfleet acts on the set again`;
}

/** A condition of the set's status, as the status-writer sets it by type. */
export interface ForeignControllerCondition {
  readonly type: typeof FOREIGN_CONTROLLER_CONDITION;
  readonly status: "True" | "False";
  readonly reason: string;
  readonly message: string;
  /** metav1.Time: RFC 3339, second precision. */
  readonly lastTransitionTime: string;
}

function conditionTime(nowMs: number): string {
  return `${new Date(nowMs).toISOString().slice(0, 19)}Z`;
}

/** True while the set is left alone; False once it is acted on again. */
export function foreignControllerCondition(verdict: ForeignControllerVerdict, options: ForeignControllerOptions, nowMs: number): ForeignControllerCondition {
  return verdict.type === "stop"
    ? { type: FOREIGN_CONTROLLER_CONDITION, status: "True", reason: FOREIGN_CONTROLLER_DETECTED, message: foreignControllerMessage(verdict.stop, options), lastTransitionTime: conditionTime(nowMs) }
    : { type: FOREIGN_CONTROLLER_CONDITION, status: "False", reason: FOREIGN_CONTROLLER_GONE, message: foreignControllerGoneMessage(verdict.resumed, options), lastTransitionTime: conditionTime(nowMs) };
}

/**
 * One owner's records of the sets it holds, judged turn by turn. Plain data: the caller forgets the sets it no
 * longer owns (a new owner starts with a first look).
 */
export class ForeignControllers {
  readonly options: ForeignControllerOptions;
  private readonly records = new Map<string, StatusWritersRecord>();

  constructor(options: ForeignControllerOptions) {
    this.options = options;
  }

  judge(key: string, input: Omit<ForeignControllerInput, "record" | "options">): ForeignControllerVerdict {
    const { verdict, record } = judgeStatusWriters({ ...input, record: this.records.get(key), options: this.options });
    this.records.set(key, record);
    return verdict;
  }

  forget(keys: Iterable<string>): void {
    for (const key of keys) this.records.delete(key);
  }

  /** The sets left alone now, with why. */
  stopped(): { readonly key: string; readonly stop: ForeignStop }[] {
    const out: { key: string; stop: ForeignStop }[] = [];
    for (const [key, record] of this.records) if (record.stopped) out.push({ key, stop: record.stopped });
    return out;
  }
}

/** The /readyz detail of the sets left alone (true: none), naming a few. */
export function leftAloneDetail(stopped: readonly { readonly key: string; readonly stop: ForeignStop }[]): true | string {
  if (stopped.length === 0) return true;
  const named = stopped.slice(0, 5).map(({ key, stop }) => `${key}${stop.manager ? ` (${stop.manager})` : ""}`);
  const more = stopped.length > named.length ? ` and ${stopped.length - named.length} more` : "";
  return `another controller writes the status of ${named.join(", ")}${more}; stsfleet leaves ${stopped.length === 1 ? "it" : "them"} alone`;
}
