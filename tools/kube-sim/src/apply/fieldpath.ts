// Field paths and field sets as sigs.k8s.io/structured-merge-diff (v4, the version kube-apiserver 1.32 links)
// defines them: path elements, their total order, their string form (used in conflict messages) and the
// FieldsV1 encoding stored in metadata.managedFields. Pure: plain data in, plain data out.
import { goQuote } from "../api/json.ts";
import type { JsonValue } from "../patch/json.ts";

/** One key field of a list-map item (`k:{"name":"a"}`); a key's fields are sorted by name. */
export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

export type PathElement =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "key"; readonly fields: readonly KeyField[] }
  | { readonly kind: "value"; readonly value: JsonValue }
  | { readonly kind: "index"; readonly index: number };

export type Path = readonly PathElement[];

export const field = (name: string): PathElement => ({ kind: "field", name });

/** A FieldsV1 document that is not what the apiserver would store. */
export class FieldsV1Error extends Error {
  override readonly name = "FieldsV1Error";
  readonly token: string;
  constructor(token: string, why: string) {
    super(`error decoding set: ${why}`);
    this.token = token;
  }
}

// ---- values: order and string form (structured-merge-diff value.Compare / value.ToString) ----

type ValueClass = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/** float < int < string < bool < list < map < null, as value.Compare orders mixed types. */
function valueClass(v: JsonValue): ValueClass {
  if (typeof v === "number") return Number.isInteger(v) ? 1 : 0;
  if (typeof v === "string") return 2;
  if (typeof v === "boolean") return 3;
  if (Array.isArray(v)) return 4;
  if (v !== null) return 5;
  return 6;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareValues(a: JsonValue, b: JsonValue): number {
  const ca = valueClass(a);
  const cb = valueClass(b);
  // Floats and ints compare numerically with each other.
  if ((ca === 0 || ca === 1) && (cb === 0 || cb === 1)) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ca !== cb) return ca < cb ? -1 : 1;
  if (typeof a === "string") return compareStrings(a, b as string);
  if (typeof a === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) {
    const bl = b as JsonValue[];
    for (let i = 0; i < Math.min(a.length, bl.length); i++) {
      const c = compareValues(a[i] ?? null, bl[i] ?? null);
      if (c !== 0) return c;
    }
    return a.length - bl.length < 0 ? -1 : a.length > bl.length ? 1 : 0;
  }
  if (a !== null && typeof a === "object") {
    const bo = b as Record<string, JsonValue>;
    const ak = Object.keys(a).sort();
    const bk = Object.keys(bo).sort();
    for (let i = 0; i < Math.min(ak.length, bk.length); i++) {
      const c = compareStrings(ak[i] ?? "", bk[i] ?? "");
      if (c !== 0) return c;
      const v = compareValues(a[ak[i] ?? ""] ?? null, bo[bk[i] ?? ""] ?? null);
      if (v !== 0) return v;
    }
    return ak.length < bk.length ? -1 : ak.length > bk.length ? 1 : 0;
  }
  return 0;
}

/** value.ToString: strings in Go's %q, numbers and booleans as %v, lists in brackets. */
export function valueString(v: JsonValue): string {
  if (v === null) return "null";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(valueString).join(",")}]`;
  return Object.entries(v)
    .map(([k, x]) => `${k}=${valueString(x)}`)
    .join("");
}

// ---- path elements ----

/** PathElement.Compare: field names < keys < values < indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const rank = { field: 0, key: 1, value: 2, index: 3 } as const;
  if (a.kind !== b.kind) return rank[a.kind] < rank[b.kind] ? -1 : 1;
  switch (a.kind) {
    case "field":
      return compareStrings(a.name, (b as typeof a).name);
    case "key": {
      const bf = (b as typeof a).fields;
      for (let i = 0; ; i++) {
        const x = a.fields[i];
        const y = bf[i];
        if (x === undefined && y === undefined) return 0;
        if (x === undefined) return -1;
        if (y === undefined) return 1;
        const c = compareStrings(x.name, y.name) || compareValues(x.value, y.value);
        if (c !== 0) return c;
      }
    }
    case "value":
      return compareValues(a.value, (b as typeof a).value);
    case "index": {
      const bi = (b as typeof a).index;
      return a.index < bi ? -1 : a.index > bi ? 1 : 0;
    }
  }
}

/** JSON as Go's encoding/json (and jsoniter, which FieldsV1 uses) writes a value: no spaces, maps sorted by key. */
function goJson(v: JsonValue): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(",")}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${goJson(v[k] ?? null)}`)
    .join(",")}}`;
}

/** The FieldsV1 key of a path element: `f:name`, `k:{"name":"a"}`, `v:"x"`, `i:0`. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `f:${pe.name}`;
    case "key":
      return `k:{${pe.fields.map((f) => `${JSON.stringify(f.name)}:${goJson(f.value)}`).join(",")}}`;
    case "value":
      return `v:${goJson(pe.value)}`;
    case "index":
      return `i:${pe.index}`;
  }
}

export function deserializePathElement(token: string): PathElement | undefined {
  if (token.length < 2) throw new FieldsV1Error(token, "key must be 2 characters long:");
  if (token[1] !== ":") throw new FieldsV1Error(token, `missing colon: ${token}`);
  const body = token.slice(2);
  const type = token.charAt(0);
  switch (type) {
    case "f":
      return { kind: "field", name: body };
    case "v":
      return { kind: "value", value: parseJson(token, body) };
    case "k": {
      const parsed = parseJson(token, body);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new FieldsV1Error(token, `key is not an object: ${token}`);
      const fields = Object.keys(parsed)
        .sort()
        .map((name) => ({ name, value: parsed[name] ?? null }));
      return { kind: "key", fields };
    }
    case "i": {
      if (!/^-?\d+$/.test(body)) throw new FieldsV1Error(token, `strconv.Atoi: parsing ${JSON.stringify(body)}: invalid syntax`);
      return { kind: "index", index: Number(body) };
    }
    default:
      // A future path element type: dropped, as upstream drops what it does not understand.
      return undefined;
  }
}

function parseJson(token: string, text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new FieldsV1Error(token, error instanceof Error ? error.message : String(error));
  }
}

/** PathElement.String, as conflict messages and causes print it: `.spec`, `[name="a"]`, `[="x"]`, `[0]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case "field":
      return `.${pe.name}`;
    case "key":
      return `[${pe.fields.map((f) => `${f.name}=${valueString(f.value)}`).join(",")}]`;
    case "value":
      return `[=${valueString(pe.value)}]`;
    case "index":
      return `[${pe.index}]`;
  }
}

export function pathString(path: Path): string {
  return path.map(pathElementString).join("");
}

// ---- sets ----

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of paths as a tree: `members` are the paths that end here, `children` lead further. Both are keyed by
 * the element's FieldsV1 token, which identifies an element exactly (keys are sorted, values are Go JSON).
 */
export class FieldSet {
  readonly members = new Map<string, PathElement>();
  readonly children = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    let node = this as FieldSet;
    for (let i = 0; i < path.length; i++) {
      const pe = path[i] as PathElement;
      const token = serializePathElement(pe);
      if (i === path.length - 1) {
        node.members.set(token, pe);
        return;
      }
      node = node.descend(token, pe);
    }
  }

  /** The child set for `pe`, created when missing. */
  descend(token: string, pe: PathElement): FieldSet {
    let child = this.children.get(token);
    if (child === undefined) {
      child = { pe, set: new FieldSet() };
      this.children.set(token, child);
    }
    return child.set;
  }

  has(path: Path): boolean {
    let node = this as FieldSet | undefined;
    for (let i = 0; i < path.length && node !== undefined; i++) {
      const token = serializePathElement(path[i] as PathElement);
      if (i === path.length - 1) return node.members.has(token);
      node = node.children.get(token)?.set;
    }
    return false;
  }

  /** The subtree under `pe` (empty when there is none). */
  withPrefix(token: string): FieldSet | undefined {
    return this.children.get(token)?.set;
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    out.addAll(other);
    return out;
  }

  /** Adds every path of `other` into this set (in place). */
  addAll(other: FieldSet): void {
    for (const [token, pe] of other.members) this.members.set(token, pe);
    for (const [token, child] of other.children) this.descend(token, child.pe).addAll(child.set);
  }

  /** Paths of this set that are not paths of `other` (exact paths; a member does not cover its children). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [token, pe] of this.members) if (!other.members.has(token)) out.members.set(token, pe);
    for (const [token, child] of this.children) {
      const theirs = other.children.get(token);
      const rest = theirs === undefined ? child.set.copy() : child.set.difference(theirs.set);
      if (!rest.isEmpty()) out.children.set(token, { pe: child.pe, set: rest });
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [token, pe] of this.members) if (other.members.has(token)) out.members.set(token, pe);
    for (const [token, child] of this.children) {
      const theirs = other.children.get(token);
      if (theirs === undefined) continue;
      const both = child.set.intersection(theirs.set);
      if (!both.isEmpty()) out.children.set(token, { pe: child.pe, set: both });
    }
    return out;
  }

  /** This set without `prefixes` and everything under them (Set.RecursiveDifference). */
  recursiveDifference(prefixes: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [token, pe] of this.members) if (!prefixes.members.has(token)) out.members.set(token, pe);
    for (const [token, child] of this.children) {
      if (prefixes.members.has(token)) continue;
      const theirs = prefixes.children.get(token);
      const rest = theirs === undefined ? child.set.copy() : child.set.recursiveDifference(theirs.set);
      if (!rest.isEmpty()) out.children.set(token, { pe: child.pe, set: rest });
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const [token, pe] of this.members) out.members.set(token, pe);
    for (const [token, child] of this.children) out.children.set(token, { pe: child.pe, set: child.set.copy() });
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.members.size !== other.members.size || this.children.size !== other.children.size) return false;
    for (const token of this.members.keys()) if (!other.members.has(token)) return false;
    for (const [token, child] of this.children) {
      const theirs = other.children.get(token);
      if (theirs === undefined || !child.set.equals(theirs.set)) return false;
    }
    return true;
  }

  /** Every path, in the set's sorted order (Set.Iterate). */
  paths(): Path[] {
    const out: Path[] = [];
    this.collect([], out);
    return out;
  }

  private collect(prefix: PathElement[], out: Path[]): void {
    for (const { pe, kind, child } of this.sortedEntries()) {
      if (kind !== "child") out.push([...prefix, pe]);
      if (kind !== "member" && child !== undefined) child.collect([...prefix, pe], out);
    }
  }

  /** Members and children merged in path-element order; an element in both comes once. */
  sortedEntries(): { token: string; pe: PathElement; kind: "member" | "child" | "both"; child?: FieldSet }[] {
    const byToken = new Map<string, { token: string; pe: PathElement; kind: "member" | "child" | "both"; child?: FieldSet }>();
    for (const [token, pe] of this.members) byToken.set(token, { token, pe, kind: "member" });
    for (const [token, c] of this.children) {
      const seen = byToken.get(token);
      byToken.set(token, { token, pe: c.pe, kind: seen === undefined ? "child" : "both", child: c.set });
    }
    return [...byToken.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  /** FieldsV1 as JSON text, byte for byte what Set.ToJSON writes (the `.` entry first, then sorted elements). */
  toJson(): string {
    return `{${this.emit(false)}}`;
  }

  private emit(includeSelf: boolean): string {
    const parts: string[] = [];
    if (includeSelf && !this.isEmpty()) parts.push('".":{}');
    for (const entry of this.sortedEntries()) {
      const key = JSON.stringify(entry.token);
      if (entry.kind === "member") parts.push(`${key}:{}`);
      else parts.push(`${key}:{${entry.child?.emit(entry.kind === "both") ?? ""}}`);
    }
    return parts.join(",");
  }

  /** FieldsV1 as the JSON object stored in managedFields[].fieldsV1. */
  toFieldsV1(): Record<string, unknown> {
    return JSON.parse(this.toJson()) as Record<string, unknown>;
  }

  /** Reads a FieldsV1 object; throws FieldsV1Error where upstream's FieldsToSet fails. */
  static fromFieldsV1(value: unknown): FieldSet {
    if (value === null || value === undefined) return new FieldSet();
    if (typeof value !== "object" || Array.isArray(value)) throw new FieldsV1Error("", "FieldsV1 is not a JSON object");
    return FieldSet.read(value as Record<string, unknown>).set ?? new FieldSet();
  }

  private static read(object: Record<string, unknown>): { set: FieldSet | undefined; member: boolean } {
    let set: FieldSet | undefined;
    let member = false;
    for (const [token, inner] of Object.entries(object)) {
      if (token === ".") {
        member = true;
        continue;
      }
      const pe = deserializePathElement(token);
      if (pe === undefined) continue;
      if (inner === null || typeof inner !== "object" || Array.isArray(inner)) throw new FieldsV1Error(token, `parsing key as path element: ${token} is not followed by an object`);
      const sub = FieldSet.read(inner as Record<string, unknown>);
      set ??= new FieldSet();
      const normal = serializePathElement(pe);
      if (sub.member) set.members.set(normal, pe);
      if (sub.set !== undefined) set.children.set(normal, { pe, set: sub.set });
    }
    // An empty object is a member with nothing below it.
    if (set === undefined) member = true;
    return { set, member };
  }
}
