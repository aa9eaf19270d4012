// The HTTP side of field management: the writer's manager name, the option checks the handlers run before a
// create, update or patch, and the apply body (YAML or JSON, as patch.go's applyPatcher decodes it).
import { CORE_SCHEMA, load as loadYaml } from "js-yaml";
import { StatusError, badRequest } from "../errors.ts";
import { APPLY_PATCH_CONTENT_TYPE, isApplyPatchContentType } from "../patch/index.ts";
import type { OptionCause } from "./options.ts";
import { managerOrUserAgent, validateFieldManager, validatePatchOptions } from "./options.ts";

export { APPLY_PATCH_CONTENT_TYPE, isApplyPatchContentType };

export type OptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions";

/** errors.NewInvalid for a meta.k8s.io options kind (the name is "", so it is left out of details). */
function invalidOptions(kind: OptionsKind, causes: readonly OptionCause[]): StatusError {
  const errors = causes.map((c) => `${c.field}: ${c.message}`);
  const aggregate = errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`;
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `${kind}.meta.k8s.io "" is invalid: ${aggregate}`,
    reason: "Invalid",
    details: { group: "meta.k8s.io", kind, causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })) },
    code: 422,
  });
}

/** The manager a write records, after the handler's option validation (422 as upstream). */
export function fieldManagerFor(kind: OptionsKind, params: URLSearchParams, userAgent: string | undefined, apply = false): string {
  const given = params.get("fieldManager") ?? "";
  const causes = kind === "PatchOptions" ? validatePatchOptions(apply, given, params.has("force")) : validateFieldManager(given);
  if (causes.length > 0) throw invalidOptions(kind, causes);
  return managerOrUserAgent(given, userAgent);
}

/** PatchOptions.force: a Go bool query parameter. */
export function forceParam(params: URLSearchParams): boolean {
  return ["1", "t", "T", "TRUE", "true", "True"].includes(params.get("force") ?? "");
}

/** The applied configuration: YAML (JSON is YAML) with plain scalars only, so nothing turns into a Date. */
export function parseApplyBody(raw: Buffer): unknown {
  let value: unknown;
  try {
    value = loadYaml(raw.toString("utf8"), { schema: CORE_SCHEMA });
  } catch (err) {
    throw badRequest(`error decoding YAML: ${err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err)}`);
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    const goType = Array.isArray(value) ? "array" : typeof value === "string" ? "string" : typeof value === "number" ? "number" : "bool";
    throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goType} into Go value of type map[string]interface {}`);
  }
  return value;
}
