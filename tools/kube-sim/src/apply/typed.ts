// Typed operations of structured-merge-diff (typed/tofieldset.go, compare.go, merge.go, remove.go) over plain
// JSON objects: the field set of a value, the comparison of two values, the merge of an applied configuration
// into a live object and the removal of a field set. Pure: plain data in, plain data out.
import type { JsonObject, JsonValue } from "../patch/json.ts";
import { jsonEqual } from "../patch/json.ts";
import type { KeyField, Path, PathElement } from "./fieldpath.ts";
import { FieldSet, field, pathString, serializePathElement } from "./fieldpath.ts";

export interface StructType {
  readonly kind: "struct";
  /** The Go struct, for messages and tests. */
  readonly name: string;
  /** `+structType=atomic`: owned and replaced as one value. */
  readonly atomic: boolean;
  readonly fields: ReadonlyMap<string, SsaType>;
}

export interface MapType {
  readonly kind: "map";
  readonly atomic: boolean;
  readonly values: SsaType;
}

export interface ListType {
  readonly kind: "list";
  readonly relationship: "atomic" | "set" | "map";
  /** The list-map keys (`x-kubernetes-list-map-keys`), for relationship "map". */
  readonly keys: readonly string[];
  /** Defaults of key fields an item may omit (container port protocol: TCP). */
  readonly keyDefaults: Readonly<Record<string, JsonValue>>;
  readonly items: SsaType;
}

/** Scalar kinds of upstream's schema; "any" is its untyped scalar (IntOrString, Quantity). */
export type ScalarKind = "numeric" | "string" | "boolean" | "any";

/** `untyped` is upstream's deduced type: maps are granular, lists atomic, anything else a scalar. */
export type SsaType = { readonly kind: "scalar"; readonly scalar: ScalarKind } | { readonly kind: "untyped" } | StructType | MapType | ListType;

export const SCALAR: SsaType = { kind: "scalar", scalar: "any" };
export const UNTYPED: SsaType = { kind: "untyped" };
const UNTYPED_MAP: MapType = { kind: "map", atomic: false, values: UNTYPED };
const ATOMIC_LIST: ListType = { kind: "list", relationship: "atomic", keys: [], keyDefaults: {}, items: UNTYPED };

/** A value the schema rejects, with upstream's path prefix (`.spec.foo: field not declared in schema`). */
export class TypedValueError extends Error {
  override readonly name = "TypedValueError";
  readonly path: string;
  readonly why: string;
  constructor(path: Path, why: string) {
    super(`${pathString(path)}: ${why}`);
    this.path = pathString(path);
    this.why = why;
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The effective type of `value`: untyped is resolved by the value's shape. */
function resolve(type: SsaType, value: JsonValue | undefined): SsaType {
  if (type.kind !== "untyped") return type;
  if (isObject(value)) return UNTYPED_MAP;
  if (Array.isArray(value)) return ATOMIC_LIST;
  return SCALAR;
}

function childType(type: StructType | MapType, key: string): SsaType | undefined {
  return type.kind === "struct" ? type.fields.get(key) : type.values;
}

/** The path element of a list item (typed/helpers.go listItemToPathElement). */
export function itemPathElement(list: ListType, item: JsonValue): PathElement {
  if (list.keys.length > 0) {
    if (item === null) throw new Error("associative list with keys may not have a null element");
    if (!isObject(item)) throw new Error("associative list with keys may not have non-map elements");
    const fields: KeyField[] = [];
    for (const name of list.keys) {
      const value = Object.hasOwn(item, name) ? item[name] : list.keyDefaults[name];
      if (value === undefined) throw new Error(`associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`);
      fields.push({ name, value });
    }
    fields.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { kind: "key", fields };
  }
  if (isObject(item)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new Error("not supported: associative list with lists as elements");
  if (item === null) throw new Error("associative list without keys has an element that's an explicit null");
  return { kind: "value", value: item };
}

// ---- field sets (tofieldset.go) ----

export interface FieldSetOptions {
  /**
   * Strict (the applied configuration): undeclared fields and duplicate list keys are errors, as upstream's
   * conversion of the patch object. Lenient (live objects): undeclared fields are owned as leaves.
   */
  readonly strict: boolean;
}

/** Every field `value` sets, as its owner would own it. */
export function toFieldSet(value: JsonValue, type: SsaType, opts: FieldSetOptions = { strict: false }): FieldSet {
  const set = new FieldSet();
  walkFieldSet(value, type, [], set, opts);
  return set;
}

/** Go's %T of a decoded JSON value. */
function goType(value: JsonValue): string {
  if (value === null) return "<nil>";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  return Array.isArray(value) ? "[]interface {}" : "map[string]interface {}";
}

/** Go's %v of a decoded JSON scalar (composite values approximated as JSON). */
function goValue(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** typed/validate.go validateScalar: null is any scalar; otherwise the value's type must be the schema's. */
function scalarError(kind: ScalarKind, value: JsonValue): string | undefined {
  if (value === null) return undefined;
  switch (kind) {
    case "numeric":
      return typeof value === "number" ? undefined : `expected numeric (int or float), got ${goType(value)}`;
    case "string":
      // %#v of the value.Value wrapper upstream prints.
      return typeof value === "string" ? undefined : `expected string, got &value.valueUnstructured{Value:${goValue(value)}}`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `expected boolean, got &{${goValue(value)}}`;
    case "any":
      return typeof value === "object" ? `expected any scalar, got &{${goValue(value)}}` : undefined;
  }
}

function walkFieldSet(value: JsonValue, declared: SsaType, path: PathElement[], set: FieldSet, opts: FieldSetOptions): void {
  const type = resolve(declared, value);
  switch (type.kind) {
    case "scalar": {
      const why = opts.strict ? scalarError(type.scalar, value) : undefined;
      if (why !== undefined) throw new TypedValueError(path, why);
      set.insert(path);
      return;
    }
    case "untyped":
      set.insert(path);
      return;
    case "list": {
      if (type.relationship === "atomic") {
        set.insert(path);
        return;
      }
      if (!Array.isArray(value)) {
        if (opts.strict && value !== null) throw new TypedValueError(path, `expected list, got ${JSON.stringify(value)}`);
        return;
      }
      const seen = new Set<string>();
      for (const item of value) {
        let pe: PathElement;
        try {
          pe = itemPathElement(type, item);
        } catch (error) {
          if (opts.strict) throw new TypedValueError(path, error instanceof Error ? error.message : String(error));
          continue;
        }
        const token = serializePathElement(pe);
        if (seen.has(token) && opts.strict) throw new TypedValueError(path, `duplicate entries for key ${pathString([pe])}`);
        seen.add(token);
        path.push(pe);
        walkFieldSet(item, type.items, path, set, opts);
        set.insert(path);
        path.pop();
      }
      return;
    }
    case "struct":
    case "map": {
      if (type.atomic) {
        set.insert(path);
        return;
      }
      if (!isObject(value)) {
        if (opts.strict && value !== null) throw new TypedValueError(path, `expected map, got ${JSON.stringify(value)}`);
        return;
      }
      for (const key of Object.keys(value)) {
        const child = value[key] as JsonValue;
        let fieldType = childType(type, key);
        const declaredField = type.kind === "struct" && fieldType !== undefined;
        if (fieldType === undefined) {
          path.push(field(key));
          if (opts.strict) throw new TypedValueError(path, "field not declared in schema");
          fieldType = UNTYPED;
          path.pop();
        }
        path.push(field(key));
        walkFieldSet(child, fieldType, path, set, opts);
        if (child === null || (isObject(child) && Object.keys(child).length === 0) || !declaredField) set.insert(path);
        path.pop();
      }
      return;
    }
  }
}

// ---- comparison (compare.go) ----

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/**
 * What changed from `lhs` to `rhs` (undefined: absent). A leaf (scalar, atomic value, or a map or list empty on
 * both sides) is added, removed or modified as a whole; a granular map or list that appears or disappears is
 * itself added or removed as well as everything in it.
 */
export function compare(lhs: JsonValue | undefined, rhs: JsonValue | undefined, type: SsaType): Comparison {
  const out: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, type, [], out);
  return out;
}

function leaf(lhs: JsonValue | undefined, rhs: JsonValue | undefined, path: PathElement[], out: Comparison): void {
  if (lhs === undefined) out.added.insert(path);
  else if (rhs === undefined) out.removed.insert(path);
  else if (!jsonEqual(lhs, rhs)) out.modified.insert(path);
}

function walkCompare(lhs: JsonValue | undefined, rhs: JsonValue | undefined, declared: SsaType, path: PathElement[], out: Comparison): void {
  const ltype = resolve(declared, lhs);
  const rtype = resolve(declared, rhs);
  // A value whose shape changed under an untyped field is one leaf that changed.
  const type = rhs === undefined ? ltype : rtype;
  if (lhs !== undefined && rhs !== undefined && ltype.kind !== rtype.kind) {
    leaf(lhs, rhs, path, out);
    return;
  }
  let inLeaf = false;
  switch (type.kind) {
    case "scalar":
    case "untyped":
      leaf(lhs, rhs, path, out);
      inLeaf = true;
      break;
    case "list": {
      const l = Array.isArray(lhs) ? lhs : undefined;
      const r = Array.isArray(rhs) ? rhs : undefined;
      if (type.relationship === "atomic" || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) {
        leaf(lhs, rhs, path, out);
        inLeaf = true;
        break;
      }
      compareItems(type, l ?? [], r ?? [], path, out);
      break;
    }
    case "struct":
    case "map": {
      const l = isObject(lhs) ? lhs : undefined;
      const r = isObject(rhs) ? rhs : undefined;
      const lEmpty = l === undefined || Object.keys(l).length === 0;
      const rEmpty = r === undefined || Object.keys(r).length === 0;
      if (type.atomic || (lEmpty && rEmpty)) {
        leaf(lhs, rhs, path, out);
        inLeaf = true;
        break;
      }
      const keys = new Set<string>([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
      for (const key of keys) {
        const lv = l !== undefined && Object.hasOwn(l, key) ? l[key] : undefined;
        const rv = r !== undefined && Object.hasOwn(r, key) ? r[key] : undefined;
        // Identical subtrees cannot add anything: skip them (the common case on every update).
        if (lv !== undefined && rv !== undefined && (lv === rv || jsonEqual(lv, rv))) continue;
        path.push(field(key));
        walkCompare(lv, rv, childType(type, key) ?? UNTYPED, path, out);
        path.pop();
      }
      break;
    }
  }
  if (!inLeaf) {
    if (lhs === undefined) out.added.insert(path);
    else if (rhs === undefined) out.removed.insert(path);
  }
}

/** Items grouped by their path element, in first-seen order; items whose element cannot be built are skipped. */
function indexItems(type: ListType, items: readonly JsonValue[]): Map<string, { pe: PathElement; values: JsonValue[] }> {
  const index = new Map<string, { pe: PathElement; values: JsonValue[] }>();
  for (const item of items) {
    let pe: PathElement;
    try {
      pe = itemPathElement(type, item);
    } catch {
      continue;
    }
    const token = serializePathElement(pe);
    const seen = index.get(token);
    if (seen === undefined) index.set(token, { pe, values: [item] });
    else seen.values.push(item);
  }
  return index;
}

function compareItems(type: ListType, lhs: readonly JsonValue[], rhs: readonly JsonValue[], path: PathElement[], out: Comparison): void {
  const l = indexItems(type, lhs);
  const r = indexItems(type, rhs);
  const tokens = new Set<string>([...l.keys(), ...r.keys()]);
  for (const token of tokens) {
    const left = l.get(token);
    const right = r.get(token);
    const pe = (left ?? right)?.pe;
    if (pe === undefined) continue;
    const ln = left?.values.length ?? 0;
    const rn = right?.values.length ?? 0;
    path.push(pe);
    if (ln <= 1 && rn <= 1) {
      const lv = left?.values[0];
      const rv = right?.values[0];
      if (!(lv !== undefined && rv !== undefined && jsonEqual(lv, rv))) walkCompare(lv, rv, type.items, path, out);
    } else if (ln >= 2 && rn >= 2) {
      // Duplicated items are compared as one list.
      if (!jsonEqual(left?.values ?? [], right?.values ?? [])) out.modified.insert(path);
    } else if (ln >= 2) {
      if (rn !== 0) walkCompare(undefined, right?.values[0], type.items, path, out);
      out.removed.insert(path);
    } else {
      if (ln !== 0) walkCompare(left?.values[0], undefined, type.items, path, out);
      out.added.insert(path);
    }
    path.pop();
  }
}

// ---- merge (merge.go with the apply rule: the applied value wins) ----

/** `rhs` (an applied configuration) merged into `lhs` (the live object). */
export function merge(lhs: JsonValue | undefined, rhs: JsonValue | undefined, declared: SsaType): JsonValue | undefined {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const type = resolve(declared, rhs);
  if (resolve(declared, lhs).kind !== type.kind) return rhs;
  switch (type.kind) {
    case "scalar":
    case "untyped":
      return rhs;
    case "list": {
      const l = Array.isArray(lhs) ? lhs : [];
      const r = Array.isArray(rhs) ? rhs : [];
      if (type.relationship === "atomic" || (l.length === 0 && r.length === 0)) return rhs;
      const merged = mergeItems(type, l, r);
      return merged.length > 0 ? merged : undefined;
    }
    case "struct":
    case "map": {
      const l = isObject(lhs) ? lhs : {};
      const r = isObject(rhs) ? rhs : {};
      if (type.atomic || (Object.keys(l).length === 0 && Object.keys(r).length === 0)) return rhs;
      const out: JsonObject = {};
      for (const key of Object.keys(l)) {
        const value = merge(l[key], Object.hasOwn(r, key) ? r[key] : undefined, childType(type, key) ?? UNTYPED);
        if (value !== undefined) out[key] = value;
      }
      for (const key of Object.keys(r)) {
        if (Object.hasOwn(l, key)) continue;
        const value = r[key];
        if (value !== undefined) out[key] = value;
      }
      return Object.keys(out).length > 0 ? out : undefined;
    }
  }
}

interface Indexed {
  readonly token: string;
  readonly pe: PathElement;
}

function uniqueElements(type: ListType, items: readonly JsonValue[]): { order: Indexed[]; values: Map<string, JsonValue> } {
  const order: Indexed[] = [];
  const values = new Map<string, JsonValue>();
  for (const item of items) {
    const pe = itemPathElement(type, item);
    const token = serializePathElement(pe);
    if (values.has(token)) continue;
    values.set(token, item);
    order.push({ token, pe });
  }
  return { order, values };
}

/**
 * Merged items in upstream's order: live items keep their place, applied items are placed in the applied
 * order, and live items the configuration does not mention stay next to the live items they followed.
 */
function mergeItems(type: ListType, lhs: readonly JsonValue[], rhs: readonly JsonValue[]): JsonValue[] {
  const r = uniqueElements(type, rhs);
  const l = uniqueElements(type, lhs);
  const shared = r.order.filter((e) => l.values.has(e.token));
  let sharedAt = 0;
  let nextShared: Indexed | undefined = shared[sharedAt++];
  const out: JsonValue[] = [];
  const placed = new Set<string>();
  const mergeOne = (token: string): void => {
    const value = merge(l.values.get(token), r.values.get(token), type.items);
    if (value !== undefined) out.push(value);
  };
  let li = 0;
  let ri = 0;
  while (li < l.order.length || ri < r.order.length) {
    const lEl = l.order[li];
    const rEl = r.order[ri];
    if (lEl !== undefined && rEl !== undefined) {
      if (lEl.token === rEl.token) {
        placed.add(lEl.token);
        mergeOne(lEl.token);
        li++;
        ri++;
        nextShared = shared[sharedAt++];
        continue;
      }
      if (r.values.has(lEl.token) && nextShared !== undefined && nextShared.token !== lEl.token) {
        li++;
        continue;
      }
    }
    if (lEl !== undefined) {
      if (!r.values.has(lEl.token)) {
        mergeOne(lEl.token);
        li++;
        continue;
      } else if (placed.has(lEl.token)) {
        li++;
      }
    }
    if (rEl !== undefined) {
      placed.add(rEl.token);
      mergeOne(rEl.token);
      ri++;
      if (nextShared !== undefined && nextShared.token === rEl.token) nextShared = shared[sharedAt++];
    }
  }
  return out;
}

// ---- removal (remove.go) ----

/** `value` without the fields in `set` (a member goes with everything under it). */
export function removeItems(value: JsonValue, set: FieldSet, declared: SsaType): JsonValue | undefined {
  if (set.isEmpty()) return value;
  const type = resolve(declared, value);
  switch (type.kind) {
    case "scalar":
    case "untyped":
      return value;
    case "list": {
      if (type.relationship === "atomic" || !Array.isArray(value)) return value;
      const out: JsonValue[] = [];
      for (const item of value) {
        let token: string;
        try {
          token = serializePathElement(itemPathElement(type, item));
        } catch {
          out.push(item);
          continue;
        }
        if (set.members.has(token)) continue;
        const sub = set.withPrefix(token);
        const kept = sub === undefined ? item : removeItems(item, sub, type.items);
        if (kept !== undefined) out.push(kept);
      }
      return out.length > 0 ? out : undefined;
    }
    case "struct":
    case "map": {
      if (type.atomic || !isObject(value)) return value;
      const out: JsonObject = {};
      for (const key of Object.keys(value)) {
        const token = `f:${key}`;
        if (set.members.has(token)) continue;
        const sub = set.withPrefix(token);
        const child = value[key] as JsonValue;
        const kept = sub === undefined ? child : removeItems(child, sub, childType(type, key) ?? UNTYPED);
        if (kept !== undefined) out[key] = kept;
      }
      return Object.keys(out).length > 0 ? out : undefined;
    }
  }
}

/** The set with every struct field on its paths made a member too (Set.EnsureNamedFieldsAreMembers). */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: SsaType): FieldSet {
  const out = new FieldSet();
  for (const [token, pe] of set.members) out.members.set(token, pe);
  const t = type.kind === "untyped" ? UNTYPED_MAP : type;
  for (const [token, child] of set.children) {
    let inner: SsaType = UNTYPED;
    if (t.kind === "struct") {
      const declared = child.pe.kind === "field" ? t.fields.get(child.pe.name) : undefined;
      if (declared !== undefined) {
        out.members.set(token, child.pe);
        inner = declared;
      }
    } else if (t.kind === "map") {
      inner = t.values;
    } else if (t.kind === "list") {
      inner = t.items;
    }
    out.children.set(token, { pe: child.pe, set: ensureNamedFieldsAreMembers(child.set, inner) });
  }
  return out;
}
