// metav1.LabelSelectorAsSelector and labels.Selector (Matches, String) for the checks validation needs
// and the selector string of the /scale subresource.

import { get, getArray, isObject, sortedKeys } from "./json.ts";
import { isQualifiedName, isValidLabelValue } from "./names.ts";

type Operator = "=" | "in" | "notin" | "exists" | "!";

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

/** `Nothing` (a nil selector) matches nothing; `Everything` (an empty one) matches all. */
export type Selector = { kind: "nothing" } | { kind: "everything" } | { kind: "requirements"; requirements: Requirement[] } | { kind: "error" };

const OPERATORS: Record<string, Operator> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

/** labels.NewRequirement's checks. */
function validRequirement(key: string, operator: Operator, values: string[]): boolean {
  if (isQualifiedName(key).length > 0) return false;
  if ((operator === "in" || operator === "notin") && values.length === 0) return false;
  if ((operator === "exists" || operator === "!") && values.length > 0) return false;
  if (operator === "=" && values.length !== 1) return false;
  return values.every((v) => isValidLabelValue(v).length === 0);
}

export function labelSelectorAsSelector(selector: unknown): Selector {
  if (selector === undefined || selector === null) return { kind: "nothing" };
  if (!isObject(selector)) return { kind: "error" };
  const matchLabels = get(selector, "matchLabels");
  const expressions = getArray(selector, "matchExpressions") ?? [];
  const labels = isObject(matchLabels) ? matchLabels : {};
  if (Object.keys(labels).length === 0 && expressions.length === 0) return { kind: "everything" };
  const requirements: Requirement[] = [];
  for (const key of sortedKeys(labels)) {
    const value = labels[key];
    if (typeof value !== "string" || !validRequirement(key, "=", [value])) return { kind: "error" };
    requirements.push({ key, operator: "=", values: [value] });
  }
  for (const expression of expressions) {
    if (!isObject(expression)) return { kind: "error" };
    const key = get(expression, "key");
    const operator = OPERATORS[String(get(expression, "operator"))];
    const rawValues = get(expression, "values") ?? [];
    if (typeof key !== "string" || operator === undefined || !Array.isArray(rawValues)) return { kind: "error" };
    const values = rawValues.filter((v): v is string => typeof v === "string");
    if (values.length !== rawValues.length || !validRequirement(key, operator, values)) return { kind: "error" };
    requirements.push({ key, operator, values: [...new Set(values)].sort() });
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { kind: "requirements", requirements };
}

export function selectorMatches(selector: Selector, labels: unknown): boolean {
  switch (selector.kind) {
    case "nothing":
    case "error":
      return false;
    case "everything":
      return true;
    case "requirements":
      return selector.requirements.every((req) => {
        const value = get(labels, req.key);
        const has = typeof value === "string";
        switch (req.operator) {
          case "=":
          case "in":
            return has && req.values.includes(value);
          case "notin":
            return !has || !req.values.includes(value);
          case "exists":
            return has;
          case "!":
            return !has;
        }
        return false;
      });
  }
}

/** `Selector.Empty()`: true only for Everything (Nothing is not empty). */
export function selectorEmpty(selector: Selector): boolean {
  return selector.kind === "everything";
}

/** `Selector.String()`: `app=web,tier in (a,b),!legacy`. */
export function selectorString(selector: Selector): string {
  if (selector.kind !== "requirements") return "";
  return selector.requirements
    .map((req) => {
      switch (req.operator) {
        case "=":
          return `${req.key}=${req.values[0] ?? ""}`;
        case "in":
        case "notin":
          return `${req.key} ${req.operator} (${req.values.join(",")})`;
        case "exists":
          return req.key;
        case "!":
          return `!${req.key}`;
      }
      return "";
    })
    .join(",");
}

/** The selector string of a StatefulSet's `spec.selector`, as the /scale subresource reports it. */
export function formatLabelSelector(selector: unknown): string {
  return selectorString(labelSelectorAsSelector(selector));
}
