// The patch engine of kube-sim: JSON patch, JSON merge patch and strategic merge patch applied as
// kube-apiserver applies them, as pure functions over plain JSON. See README.md.
import { assertNever } from "#protocol";
import { PatchError, badRequest, invalidPatch, serverError, unsupportedMediaType } from "./errors.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { NotJsonError, cloneJson, isJsonObject } from "./json.ts";
import { applyJsonPatch } from "./json-patch.ts";
import { applyMergePatch } from "./merge-patch.ts";
import { applyStrategicMergePatch } from "./strategic-merge.ts";
import { structForKind } from "./strategic-schema.ts";

export type PatchType = "json" | "merge" | "strategic";

/** The Content-Type of each patch type (k8s.io/apimachinery/pkg/types.PatchType). */
export const PATCH_CONTENT_TYPES = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
} as const satisfies Record<PatchType, string>;

/**
 * Server-side apply (types.ApplyYAMLPatchType). Not a PatchType of this engine: an apply is a structured merge
 * with field ownership, done by apply/ (the registry routes it there).
 */
export const APPLY_PATCH_CONTENT_TYPE = "application/apply-patch+yaml";

/** Accepted patch media types, in the order the apiserver lists them in its 415 message. */
export const SUPPORTED_PATCH_CONTENT_TYPES: readonly string[] = [
  PATCH_CONTENT_TYPES.json,
  PATCH_CONTENT_TYPES.merge,
  PATCH_CONTENT_TYPES.strategic,
  APPLY_PATCH_CONTENT_TYPE,
];

/** Whether a request Content-Type is the apply patch type (cut at ";", compared exactly, like patchTypeFromContentType). */
export function isApplyPatchContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(";");
  return (semicolon > 0 ? contentType.slice(0, semicolon) : contentType) === APPLY_PATCH_CONTENT_TYPE;
}

/**
 * Maps a request Content-Type (ignoring parameters like charset) to a PatchType, or undefined if unsupported.
 * Like the apiserver it cuts at the first ";" and compares exactly (no trimming, case-sensitive).
 */
export function patchTypeFromContentType(contentType: string | undefined): PatchType | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(";");
  const mediaType = semicolon > 0 ? contentType.slice(0, semicolon) : contentType;
  switch (mediaType) {
    case PATCH_CONTENT_TYPES.json:
      return "json";
    case PATCH_CONTENT_TYPES.merge:
      return "merge";
    case PATCH_CONTENT_TYPES.strategic:
      return "strategic";
    default:
      return undefined;
  }
}

/** The 415 a PATCH with an unsupported Content-Type gets. */
export function unsupportedPatchMediaType(): PatchError {
  return unsupportedMediaType(SUPPORTED_PATCH_CONTENT_TYPES);
}

/**
 * Applies `patch` (already JSON-parsed) to `target` (a plain JSON Kubernetes object, not mutated) and returns
 * the new object. `kind` is the object's `apiVersion`+`kind` pair, used to find strategic-merge metadata.
 * Throws PatchError, never anything else, with the HTTP status, reason and message a real kube-apiserver
 * returns; `error.toStatus()` is the response body.
 */
export function applyPatch(
  type: PatchType,
  target: unknown,
  patch: unknown,
  kind: { apiVersion: string; kind: string },
): unknown {
  try {
    const result = applyTo(type, cloneTarget(target), clonePatch(patch), kind);
    if (!isJsonObject(result)) {
      // Only a merge patch that is an array gets here; the apiserver then fails to decode the object.
      const json = JSON.stringify(result);
      throw invalidPatch(
        json,
        'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
      );
    }
    return result;
  } catch (error) {
    if (error instanceof PatchError) throw error;
    // A bug here must still surface as a Status, like a recovered panic in the apiserver.
    throw serverError(`patch engine failure: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function applyTo(type: PatchType, doc: JsonObject, patch: JsonValue, kind: { apiVersion: string; kind: string }): JsonValue {
  switch (type) {
    case "json":
      return applyJsonPatch(doc, patch);
    case "merge":
      return applyMergePatch(doc, patch);
    case "strategic":
      return applyStrategicMergePatch(doc, patch, structForKind(kind));
    default:
      return assertNever(type, "patch type");
  }
}

function cloneTarget(target: unknown): JsonObject {
  let value: JsonValue;
  try {
    value = cloneJson(target);
  } catch (error) {
    if (error instanceof NotJsonError) throw serverError(`the object to patch is not JSON: ${error.message}`);
    throw error;
  }
  if (!isJsonObject(value)) throw serverError("the object to patch is not a JSON object");
  return value;
}

function clonePatch(patch: unknown): JsonValue {
  try {
    return cloneJson(patch);
  } catch (error) {
    if (error instanceof NotJsonError) throw badRequest(`invalid patch: ${error.message}`);
    throw error;
  }
}

export { PatchError } from "./errors.ts";
export type { PatchErrorReason, PatchStatus, PatchStatusCause, PatchStatusDetails } from "./errors.ts";
export type { JsonObject, JsonValue } from "./json.ts";
export { MAX_JSON_PATCH_OPERATIONS } from "./json-patch.ts";
export { createMergePatch } from "./merge-patch.ts";
export {
  STRATEGIC_MERGE_KINDS,
  STRATEGIC_MERGE_STRUCTS,
  lookupPatchMeta,
  structForKind,
} from "./strategic-schema.ts";
export type { FieldPatchMeta, PatchMetaLookup, PatchStrategy, StructName, StructPatchMeta } from "./strategic-schema.ts";
