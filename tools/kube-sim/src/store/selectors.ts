// Label and field selectors with the grammar and error messages of k8s.io/apimachinery/pkg/labels and
// pkg/fields. Parsing happens once per request; matching is a tight loop over precomputed maps.
import { assertNever } from "#protocol";

export type LabelOp = "=" | "!=" | "in" | "notin" | "exists" | "!exists" | "gt" | "lt";

export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SelectorParseError";
  }
}

const KEY_RE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(input: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of input) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function checkKey(key: string): string {
  if (!KEY_RE.test(key) || key.length > 317) {
    throw new SelectorParseError(`unable to parse requirement: invalid label key "${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
  return key;
}

function checkValue(value: string): string {
  if (!VALUE_RE.test(value) || value.length > 63) {
    throw new SelectorParseError(`unable to parse requirement: invalid label value: "${value}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`);
  }
  return value;
}

export function parseLabelSelector(input: string): LabelRequirement[] {
  const trimmed = input.trim();
  if (trimmed === "") return [];
  const reqs: LabelRequirement[] = [];
  for (const raw of splitTopLevel(trimmed)) {
    const part = raw.trim();
    if (part === "") throw new SelectorParseError(`found '', expected: identifier`);
    const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (setMatch !== null) {
      const values = (setMatch[3] ?? "")
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== "");
      reqs.push({ key: checkKey(setMatch[1] ?? ""), op: setMatch[2] === "in" ? "in" : "notin", values: values.map(checkValue) });
      continue;
    }
    if (part.startsWith("!")) {
      reqs.push({ key: checkKey(part.slice(1).trim()), op: "!exists", values: [] });
      continue;
    }
    const opMatch = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/.exec(part);
    if (opMatch !== null) {
      const key = checkKey(opMatch[1] ?? "");
      const value = (opMatch[3] ?? "").trim();
      const sym = opMatch[2];
      if (sym === ">" || sym === "<") {
        if (!/^-?\d+$/.test(value)) throw new SelectorParseError(`unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer`);
        reqs.push({ key, op: sym === ">" ? "gt" : "lt", values: [value] });
      } else {
        reqs.push({ key, op: sym === "!=" ? "!=" : "=", values: [checkValue(value)] });
      }
      continue;
    }
    if (/\s/.test(part)) throw new SelectorParseError(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
    reqs.push({ key: checkKey(part), op: "exists", values: [] });
  }
  return reqs;
}

export function matchesLabels(reqs: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const req of reqs) {
    const value = labels?.[req.key];
    switch (req.op) {
      case "=":
        if (value !== req.values[0]) return false;
        break;
      case "!=":
        if (value === req.values[0]) return false;
        break;
      case "in":
        if (value === undefined || !req.values.includes(value)) return false;
        break;
      case "notin":
        if (value !== undefined && req.values.includes(value)) return false;
        break;
      case "exists":
        if (value === undefined) return false;
        break;
      case "!exists":
        if (value !== undefined) return false;
        break;
      case "gt":
      case "lt": {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const n = Number(value);
        const bound = Number(req.values[0]);
        if (req.op === "gt" ? !(n > bound) : !(n < bound)) return false;
        break;
      }
      default:
        return assertNever(req.op, "op");
    }
  }
  return true;
}

/** Converts a metav1.LabelSelector (matchLabels + matchExpressions) into requirements. */
export function labelSelectorToRequirements(selector: unknown): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  if (typeof selector !== "object" || selector === null) return reqs;
  const sel = selector as {
    matchLabels?: Record<string, string>;
    matchExpressions?: { key: string; operator: string; values?: string[] }[];
  };
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key, op: "=", values: [value] });
  for (const expr of sel.matchExpressions ?? []) {
    const op: LabelOp | undefined = (
      { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!exists" } as Record<string, LabelOp>
    )[expr.operator];
    if (op !== undefined) reqs.push({ key: expr.key, op, values: expr.values ?? [] });
  }
  return reqs;
}

/** The `key=value,key in (a,b)` string form kubectl and the Scale subresource use. */
export function requirementsToString(reqs: readonly LabelRequirement[]): string {
  return reqs
    .map((r) => {
      switch (r.op) {
        case "=":
          return `${r.key}=${r.values[0] ?? ""}`;
        case "!=":
          return `${r.key}!=${r.values[0] ?? ""}`;
        case "in":
          return `${r.key} in (${[...r.values].sort().join(",")})`;
        case "notin":
          return `${r.key} notin (${[...r.values].sort().join(",")})`;
        case "exists":
          return r.key;
        case "!exists":
          return `!${r.key}`;
        case "gt":
          return `${r.key}>${r.values[0] ?? ""}`;
        case "lt":
          return `${r.key}<${r.values[0] ?? ""}`;
        default:
          return assertNever(r.op, "op");
      }
    })
    .sort()
    .join(",");
}

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
}

function splitEscaped(input: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] ?? "";
    if (ch === "\\" && i + 1 < input.length) {
      cur += ch + (input[i + 1] ?? "");
      i++;
    } else if (ch === sep) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function unescapeField(value: string): string {
  return value.replace(/\\(.)/g, "$1");
}

export function parseFieldSelector(input: string, allowed: ReadonlySet<string>): FieldRequirement[] {
  const trimmed = input.trim();
  if (trimmed === "") return [];
  const reqs: FieldRequirement[] = [];
  for (const part of splitEscaped(trimmed, ",")) {
    const m = /^([^=!]+)(==|=|!=)(.*)$/.exec(part);
    if (m === null) throw new SelectorParseError(`invalid selector: '${input}'; can't understand '${part}'`);
    const field = (m[1] ?? "").trim();
    if (!allowed.has(field)) throw new SelectorParseError(`field label not supported: ${field}`);
    reqs.push({ field, op: m[2] === "!=" ? "!=" : "=", value: unescapeField(m[3] ?? "") });
  }
  return reqs;
}

export function matchesFields(reqs: readonly FieldRequirement[], fields: Readonly<Record<string, string>>): boolean {
  for (const req of reqs) {
    const value = fields[req.field] ?? "";
    if (req.op === "=" ? value !== req.value : value === req.value) return false;
  }
  return true;
}
