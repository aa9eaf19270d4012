// Field errors rendered the way apimachinery's `field.Error` does (util/validation/field/errors.go):
// `Cause.message` is `ErrorBody()` and `field: message` is `Error()`, which the 422 message aggregates.

import { goFormatNumber, goJson, goQuote } from "./json.ts";

/** `metav1.CauseType` values that field validation produces. */
export type CauseReason =
  | "FieldValueInvalid"
  | "FieldValueRequired"
  | "FieldValueForbidden"
  | "FieldValueNotSupported"
  | "FieldValueDuplicate"
  | "FieldValueTooLong"
  | "FieldValueTypeInvalid"
  | "FieldValueNotFound"
  | "FieldValueTooMany"
  | "FieldValueTooShort"
  | "FieldValueTooFew"
  | "InternalError";

/** One `details.causes[]` entry of a 422 Status. */
export interface Cause {
  reason: CauseReason;
  message: string;
  field: string;
}

/**
 * How Go rendered the bad value. `"auto"` follows the type switch in `ErrorBody`: a plain Go `string`
 * prints with `%q`, numbers and booleans with `%v`, anything else (structs, maps, named string types
 * such as `RestartPolicy`) through encoding/json.
 */
export type ValueStyle = "auto" | "json";

/** `Path.Child`: `a.b`; the root is the empty path. */
export function child(path: string, ...names: string[]): string {
  let out = path;
  for (const name of names) out = out === "" ? name : `${out}.${name}`;
  return out;
}

/** `Path.Index`: `a[3]`. */
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** `Path.Key`: `a[key]`, unquoted as upstream prints it. */
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

function renderValue(value: unknown, style: ValueStyle): string {
  if (style === "auto") {
    if (typeof value === "string") return goQuote(value);
    if (typeof value === "number") return goFormatNumber(value);
    if (typeof value === "boolean") return value ? "true" : "false";
  }
  return goJson(value);
}

function withDetail(body: string, detail: string): string {
  return detail === "" ? body : `${body}: ${detail}`;
}

export function invalid(field: string, value: unknown, detail: string, style: ValueStyle = "auto"): Cause {
  return { reason: "FieldValueInvalid", field, message: withDetail(`Invalid value: ${renderValue(value, style)}`, detail) };
}

export function required(field: string, detail = ""): Cause {
  return { reason: "FieldValueRequired", field, message: withDetail("Required value", detail) };
}

export function forbidden(field: string, detail: string): Cause {
  return { reason: "FieldValueForbidden", field, message: withDetail("Forbidden", detail) };
}

export function duplicate(field: string, value: unknown, style: ValueStyle = "auto"): Cause {
  return { reason: "FieldValueDuplicate", field, message: `Duplicate value: ${renderValue(value, style)}` };
}

export function notFound(field: string, value: unknown, detail = ""): Cause {
  return { reason: "FieldValueNotFound", field, message: withDetail(`Not found: ${renderValue(value, "auto")}`, detail) };
}

/** `field.NotSupported`: the valid values are quoted with strconv.Quote and listed. */
export function notSupported(field: string, value: unknown, validValues: readonly string[], style: ValueStyle = "json"): Cause {
  const detail = validValues.length === 0 ? "" : `supported values: ${validValues.map((v) => goQuote(v)).join(", ")}`;
  return { reason: "FieldValueNotSupported", field, message: withDetail(`Unsupported value: ${renderValue(value, style)}`, detail) };
}

/** `field.TooLong` with a byte limit; the value itself is never printed. */
export function tooLong(field: string, maxBytes: number): Cause {
  const unit = maxBytes === 1 ? "byte" : "bytes";
  return { reason: "FieldValueTooLong", field, message: `Too long: may not be more than ${maxBytes} ${unit}` };
}

/** `field.Error.Error()`: `spec.selector: Required value`. */
export function errorString(cause: Cause): string {
  return `${cause.field}: ${cause.message}`;
}

/** `ErrorList.ToAggregate().Error()`: one message alone, several as `[a, b]`, repeats listed once. */
export function aggregateMessage(causes: readonly Cause[]): string {
  const seen = new Set<string>();
  const messages: string[] = [];
  for (const cause of causes) {
    const text = errorString(cause);
    if (seen.has(text)) continue;
    seen.add(text);
    messages.push(text);
  }
  if (messages.length === 1) return messages[0] ?? "";
  return `[${messages.join(", ")}]`;
}

/** Prefix every message (strings from the `Is*` checks) into `Invalid` causes. */
export function invalidEach(field: string, value: unknown, messages: readonly string[], style: ValueStyle = "auto"): Cause[] {
  return messages.map((message) => invalid(field, value, message, style));
}

export const IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0";
export const FIELD_IMMUTABLE_ERROR_MSG = "field is immutable";

/** `ValidateNonnegativeField`. */
export function nonNegative(field: string, value: unknown): Cause[] {
  return typeof value === "number" && value < 0 ? [invalid(field, value, IS_NEGATIVE_ERROR_MSG)] : [];
}
