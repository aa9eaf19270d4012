// Plain-JSON helpers for the api module, plus the two renderings the apiserver uses in error messages:
// Go's `%q` (strconv.Quote) and Go's encoding/json. Inputs are untrusted decoded JSON, so every
// accessor tolerates any shape and keys such as "__proto__" are handled as plain data.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own property only: a key like "constructor" or "__proto__" never reaches the prototype. */
export function get(obj: unknown, key: string): unknown {
  return isObject(obj) && Object.hasOwn(obj, key) ? obj[key] : undefined;
}

export function getObject(obj: unknown, key: string): JsonObject | undefined {
  const value = get(obj, key);
  return isObject(value) ? value : undefined;
}

export function getArray(obj: unknown, key: string): unknown[] | undefined {
  const value = get(obj, key);
  return Array.isArray(value) ? value : undefined;
}

export function getString(obj: unknown, key: string): string | undefined {
  const value = get(obj, key);
  return typeof value === "string" ? value : undefined;
}

export function getNumber(obj: unknown, key: string): number | undefined {
  const value = get(obj, key);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Defines an own data property, so "__proto__" is stored as a key rather than changing the prototype. */
export function set(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

export function remove(obj: JsonObject, key: string): void {
  if (Object.hasOwn(obj, key)) Reflect.deleteProperty(obj, key);
}

/** Returns the object at `key`, creating (or replacing a non-object with) `{}`. */
export function ensureObject(obj: JsonObject, key: string): JsonObject {
  const existing = get(obj, key);
  if (isObject(existing)) return existing;
  const created: JsonObject = {};
  set(obj, key, created);
  return created;
}

/** Sets `key` only when it is absent (or null/undefined), the way Go defaulters test for nil / zero. */
export function setDefault(obj: JsonObject, key: string, value: unknown): void {
  const existing = get(obj, key);
  if (existing === undefined || existing === null) set(obj, key, value);
}

/** Sets `key` when it is absent or the empty string: Go string fields cannot tell the two apart. */
export function setDefaultString(obj: JsonObject, key: string, value: string): void {
  const existing = get(obj, key);
  if (existing === undefined || existing === null || existing === "") set(obj, key, value);
}

/** The elements of an array value, or none. */
export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** Objects inside an array, skipping anything else a client may have sent. */
export function objectsIn(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** Deep copy of decoded JSON. Non-JSON values (undefined, functions) are dropped, -0 becomes 0. */
export function cloneJson<T>(value: T): T {
  return cloneValue(value) as T;
}

function cloneValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : cloneValue(item)));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item !== undefined && typeof item !== "function") set(out, key, cloneValue(item));
    }
    return out;
  }
  if (typeof value === "number") return Object.is(value, -0) ? 0 : value;
  return value;
}

/** Keys of a JSON map in Go `sort.Strings` order (byte-wise for ASCII, code-unit order otherwise). */
export function sortedKeys(obj: JsonObject): string[] {
  return Object.keys(obj).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A copy of a map with its keys sorted, which is how Go's encoding/json writes a map. */
export function sortedMap(obj: unknown): JsonObject | null {
  if (!isObject(obj)) return null;
  const out: JsonObject = {};
  for (const key of sortedKeys(obj)) set(out, key, obj[key]);
  return out;
}

/** Strings of a JSON map, as Go decodes `map[string]string` (non-string values are skipped). */
export function stringMap(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObject(value)) return out;
  for (const key of sortedKeys(value)) {
    const item = value[key];
    if (typeof item === "string") out.set(key, item);
  }
  return out;
}

/** Length in UTF-8 bytes, which is what Go's `len(string)` measures. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u;
const NAMED_ESCAPES: Record<number, string> = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v" };

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}

/** The code points Go sees after decoding `text` as UTF-8. */
function* goRunes(text: string): Generator<number> {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    // A lone surrogate cannot survive Go's UTF-8 decoding; it arrives as U+FFFD.
    yield code >= 0xd800 && code <= 0xdfff ? 0xfffd : code;
  }
}

/** Go's strconv.Quote, which `%q` uses: printable runes stay, the rest are escaped. */
export function goQuote(text: string): string {
  let out = '"';
  for (const code of goRunes(text)) {
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += "\\\\";
    else if (code === 0x20 || (code > 0x7e && PRINTABLE.test(String.fromCodePoint(code))) || (code > 0x20 && code < 0x7f))
      out += String.fromCodePoint(code);
    else if (NAMED_ESCAPES[code] !== undefined) out += NAMED_ESCAPES[code];
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

/** A JSON string as Go's encoding/json writes it: HTML-safe, with U+2028/U+2029 escaped. */
export function goJsonString(text: string): string {
  let out = '"';
  for (const code of goRunes(text)) {
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += "\\\\";
    else if (code === 0x0a) out += "\\n";
    else if (code === 0x0d) out += "\\r";
    else if (code === 0x09) out += "\\t";
    else if (code === 0x08) out += "\\b";
    else if (code === 0x0c) out += "\\f";
    else if (code < 0x20 || code === 0x3c || code === 0x3e || code === 0x26 || code === 0x2028 || code === 0x2029)
      out += `\\u${hex(code, 4)}`;
    else out += String.fromCodePoint(code);
  }
  return `${out}"`;
}

/** Go's encoding/json float64 format (ES number formatting with a two-digit-free exponent). */
function goJsonNumber(value: number): string {
  if (!Number.isFinite(value)) return "null";
  return String(value);
}

/** Go's encoding/json: object keys in the order given (callers sort maps with `sortedMap`). */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return goJsonString(value);
  if (typeof value === "number") return goJsonNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return `[${value.map((item) => goJson(item)).join(",")}]`;
  if (isObject(value)) {
    const parts: string[] = [];
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item !== undefined) parts.push(`${goJsonString(key)}:${goJson(item)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return "null";
}

/** Go's `%v` for a number: integers (the int fields) plainly, other floats as shortest %g. */
export function goFormatNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "NaN" : value > 0 ? "+Inf" : "-Inf";
  const exponential = value.toExponential();
  const match = /^(-?[\d.]+)e([+-])(\d+)$/.exec(exponential);
  if (match === null) return String(value);
  const exponent = Number(`${match[2]}${match[3]}`);
  // strconv formatDigits: shortest %g switches to %e below 1e-4 and from 1e6 ("eprec = 6").
  if (exponent < -4 || exponent >= 6) return `${match[1]}e${match[2]}${(match[3] ?? "").padStart(2, "0")}`;
  return String(value);
}

function isEmptyValue(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === "" ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    (isObject(value) && Object.keys(value).length === 0)
  );
}

/**
 * apiequality.Semantic.DeepEqual for decoded JSON: absent, null and zero values compare equal (Go cannot
 * tell them apart once decoded), and quantities compare by value (`quantityEqual` decides per string pair).
 */
export function semanticEqual(
  a: unknown,
  b: unknown,
  quantityEqual: (x: string, y: string) => boolean = (x, y) => x === y,
): boolean {
  return equalAt(a, b, quantityEqual, "plain");
}

type EqualMode = "plain" | "quantityMap" | "quantity";

function equalAt(a: unknown, b: unknown, quantityEqual: (x: string, y: string) => boolean, mode: EqualMode): boolean {
  if (isEmptyValue(a) && isEmptyValue(b)) return true;
  if (typeof a === "string" && typeof b === "string") return a === b || (mode === "quantity" && quantityEqual(a, b));
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => equalAt(item, b[i], quantityEqual, "plain"));
  }
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const childMode: EqualMode =
        mode === "quantityMap" ? "quantity" : QUANTITY_MAPS.has(key) ? "quantityMap" : QUANTITY_FIELDS.has(key) ? "quantity" : "plain";
      if (!equalAt(get(a, key), get(b, key), quantityEqual, childMode)) return false;
    }
    return true;
  }
  return a === b;
}

/** Map fields whose values are resource.Quantity (ResourceList and friends). */
const QUANTITY_MAPS = new Set(["requests", "limits", "capacity", "allocatable", "allocatedResources", "overhead", "hard", "used"]);
/** Scalar fields holding one resource.Quantity. */
const QUANTITY_FIELDS = new Set(["sizeLimit", "divisor"]);
