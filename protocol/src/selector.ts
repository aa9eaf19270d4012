// metav1.LabelSelector semantics (LabelSelectorAsSelector + Matches), with the validation the API server applies
// to a StatefulSet's selector: non-empty, well-formed requirements, matching the template's labels. Shared by the
// actor's planner (which pods and revisions a set owns) and the watcher's routing (which sets an orphan belongs to).

import { assertNever } from "./assert.ts";

/** metav1.LabelSelectorRequirement as the API server returns it. */
export interface LabelSelectorRequirement {
  key?: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  operator?: string;
  values?: string[] | null;
}

/** metav1.LabelSelector as the API server returns it. */
export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

interface Requirement {
  readonly key: string;
  readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  readonly values: readonly string[];
}

export interface CompiledSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly requirements: readonly Requirement[];
  readonly empty: boolean;
}

export type SelectorResult = { ok: true; selector: CompiledSelector } | { ok: false; reason: string };

function isStringRecord(value: unknown): value is Record<string, string> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === "string");
}

/** Upstream LabelSelectorAsSelector (validation of operators and value counts); never throws. */
export function compileSelector(selector: LabelSelector | null | undefined): SelectorResult {
  if (selector === null || selector === undefined) return { ok: false, reason: "selector is missing" };
  const rawLabels = selector.matchLabels ?? {};
  if (!isStringRecord(rawLabels)) return { ok: false, reason: "selector.matchLabels must map strings to strings" };
  const requirements: Requirement[] = [];
  const expressions: unknown = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) return { ok: false, reason: "selector.matchExpressions must be a list" };
  for (const [index, expression] of (expressions as unknown[]).entries()) {
    const where = `selector.matchExpressions[${index}]`;
    if (expression === null || typeof expression !== "object") return { ok: false, reason: `${where} is not an object` };
    const { key, operator, values } = expression as { key?: unknown; operator?: unknown; values?: unknown };
    if (typeof key !== "string" || key === "") return { ok: false, reason: `${where}.key must be a non-empty string` };
    const list = values ?? [];
    if (!Array.isArray(list) || !list.every((v) => typeof v === "string")) {
      return { ok: false, reason: `${where}.values must be a list of strings` };
    }
    switch (operator) {
      case "In":
      case "NotIn":
        if (list.length === 0) return { ok: false, reason: `${where}: operator ${operator} needs values` };
        requirements.push({ key, operator, values: list });
        break;
      case "Exists":
      case "DoesNotExist":
        if (list.length > 0) return { ok: false, reason: `${where}: operator ${operator} takes no values` };
        requirements.push({ key, operator, values: [] });
        break;
      default:
        return { ok: false, reason: `${where}: ${JSON.stringify(operator)} is not a valid label selector operator` };
    }
  }
  const empty = Object.keys(rawLabels).length === 0 && requirements.length === 0;
  return { ok: true, selector: { matchLabels: rawLabels, requirements, empty } };
}

export function selectorMatches(
  selector: CompiledSelector,
  labels: Readonly<Record<string, string>> | null | undefined,
): boolean {
  const set = labels ?? {};
  for (const key in selector.matchLabels) {
    if (set[key] !== selector.matchLabels[key]) return false;
  }
  for (const requirement of selector.requirements) {
    const has = Object.prototype.hasOwnProperty.call(set, requirement.key);
    const value = set[requirement.key];
    switch (requirement.operator) {
      case "In":
        if (!has || value === undefined || !requirement.values.includes(value)) return false;
        break;
      case "NotIn":
        if (has && value !== undefined && requirement.values.includes(value)) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return assertNever(requirement.operator, "label selector operator");
    }
  }
  return true;
}
