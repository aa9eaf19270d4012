// The field manager of a write and the validation of `fieldManager` / `force`, as the apiserver's handlers
// do them (handlers/rest.go managerOrUserAgent, apis/meta/v1/validation ValidatePatchOptions and
// ValidateFieldManager). Pure.
import { utf8Length } from "../api/json.ts";

/** validation.FieldManagerMaxLength. */
export const FIELD_MANAGER_MAX_BYTES = 128;

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function isPrint(char: string): boolean {
  return PRINTABLE.test(char);
}

/** prefixFromUserAgent: the User-Agent up to its first "/", printable runes only, at most 128 bytes. */
export function prefixFromUserAgent(userAgent: string): string {
  const head = userAgent.split("/")[0] ?? "";
  let out = "";
  let bytes = 0;
  for (const char of head) {
    if (!isPrint(char)) continue;
    const size = utf8Length(char);
    if (bytes + size > FIELD_MANAGER_MAX_BYTES) break;
    out += char;
    bytes += size;
  }
  return out;
}

/** managerOrUserAgent: the `fieldManager` parameter, else the User-Agent's prefix. */
export function managerOrUserAgent(fieldManager: string, userAgent: string | undefined): string {
  return fieldManager !== "" ? fieldManager : prefixFromUserAgent(userAgent ?? "");
}

export interface OptionCause {
  readonly reason: "FieldValueRequired" | "FieldValueForbidden" | "FieldValueTooLong" | "FieldValueInvalid";
  readonly message: string;
  readonly field: string;
}

/** ValidateFieldManager: at most 128 bytes, printable characters only. */
export function validateFieldManager(fieldManager: string): OptionCause[] {
  const causes: OptionCause[] = [];
  if (utf8Length(fieldManager) > FIELD_MANAGER_MAX_BYTES) {
    causes.push({ reason: "FieldValueTooLong", message: `Too long: may not be more than ${FIELD_MANAGER_MAX_BYTES} bytes`, field: "fieldManager" });
  }
  let index = 0;
  for (const char of fieldManager) {
    if (!isPrint(char)) causes.push({ reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(fieldManager)}: invalid characters at index ${index}`, field: "fieldManager" });
    index += utf8Length(char);
  }
  return causes;
}

/** ValidatePatchOptions: `force` only with apply, `fieldManager` required for apply. */
export function validatePatchOptions(apply: boolean, fieldManager: string, forceGiven: boolean): OptionCause[] {
  const causes: OptionCause[] = [];
  if (!apply && forceGiven) causes.push({ reason: "FieldValueForbidden", message: "Forbidden: may not be specified for non-apply patch", field: "force" });
  // kubectl defaults it to "kubectl"; controllers have to set it.
  if (apply && fieldManager === "") causes.push({ reason: "FieldValueRequired", message: "Required value: is required for apply patch", field: "fieldManager" });
  return [...causes, ...validateFieldManager(fieldManager)];
}
