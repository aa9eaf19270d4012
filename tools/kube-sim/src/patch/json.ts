// Plain JSON values and the few helpers every patch engine needs. Objects are ordinary `{}` objects, so keys
// such as "__proto__" or "constructor" must go through hasOwn/setOwn: a patch is untrusted input.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Deepest nesting accepted. Go's encoding/json allows 10000; real Kubernetes objects nest about 20 deep, and
 * staying far below the JS stack limit is what keeps "never throws anything but PatchError" true.
 */
export const MAX_JSON_DEPTH = 1000;

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function hasOwn(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

export function getOwn(object: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Assignment that creates an own property even for "__proto__" (plain assignment would change the prototype). */
export function setOwn(object: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}

/** Why a value is not plain JSON (a function, a cycle, NaN, ...). */
export class NotJsonError extends Error {
  override readonly name = "NotJsonError";
  readonly path: string;
  constructor(path: string, why: string) {
    super(`${path === "" ? "value" : path}: ${why}`);
    this.path = path;
  }
}

/**
 * Deep copy of a plain-JSON value, checked on the way. `undefined` object members are dropped and `undefined`
 * array elements become null, as JSON.stringify does, so objects built in TypeScript with optional fields work.
 */
export function cloneJson(value: unknown): JsonValue {
  return cloneAt(value, "", 0);
}

function cloneAt(value: unknown, path: string, depth: number): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new NotJsonError(path, `${value} is not a JSON number`);
    return value;
  }
  if (typeof value !== "object") throw new NotJsonError(path, `a ${typeof value} is not JSON`);
  if (depth >= MAX_JSON_DEPTH) throw new NotJsonError(path, `nesting deeper than ${MAX_JSON_DEPTH}`);
  if (Array.isArray(value)) {
    const out: JsonValue[] = new Array<JsonValue>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out[i] = item === undefined ? null : cloneAt(item, `${path}[${i}]`, depth + 1);
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new NotJsonError(path, `a ${describeObject(value)} is not a plain JSON object`);
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item !== undefined) setOwn(out, key, cloneAt(item, `${path}.${key}`, depth + 1));
  }
  return out;
}

function describeObject(value: object): string {
  const ctor: unknown = (value as { constructor?: unknown }).constructor;
  return typeof ctor === "function" && ctor.name !== "" ? ctor.name : "non-plain object";
}

/** Structural equality of JSON values: object member order does not matter, array order does. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (!jsonEqual(a[i] as JsonValue, b[i] as JsonValue)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) {
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key] as JsonValue, b[key] as JsonValue)) return false;
  }
  return true;
}

/** The JSON type name Go's encoding/json uses in "cannot unmarshal X into ..." messages. */
export function jsonTypeName(value: JsonValue): "object" | "array" | "string" | "number" | "bool" | "null" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  return "object";
}
