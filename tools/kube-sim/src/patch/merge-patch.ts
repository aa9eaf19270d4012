// JSON Merge Patch (RFC 7386) as gopkg.in/evanphx/json-patch.v4 MergePatch applies it for kube-apiserver, and
// the matching diff (CreateMergePatch). The v4 difference from the RFC: a value that is stored rather than
// merged has its null members pruned, also inside objects in arrays (docs/adr/0032-json-and-merge-patch-follow-evanphx-v4.md).
import { badRequest } from "./errors.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { getOwn, hasOwn, isJsonObject, jsonEqual, setOwn } from "./json.ts";

/** jsonpatch.ErrBadJSONPatch, which the apiserver answers with 400. */
export const BAD_MERGE_PATCH_MESSAGE = "Invalid JSON Patch";

/**
 * Applies a decoded merge patch to `doc` (modified in place). A patch that is an array replaces the whole
 * document, as in the library; null or a scalar patch is a 400.
 */
export function applyMergePatch(doc: JsonObject, patch: JsonValue): JsonValue {
  if (patch === null || typeof patch !== "object") throw badRequest(BAD_MERGE_PATCH_MESSAGE);
  if (Array.isArray(patch)) return pruneArrayNulls(patch);
  mergeObjects(doc, patch);
  return doc;
}

function mergeObjects(doc: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    if (value === null) {
      delete doc[key];
      continue;
    }
    const current = getOwn(doc, key);
    if (current === undefined || current === null) {
      setOwn(doc, key, pruneNulls(value));
    } else {
      setOwn(doc, key, mergeValue(current, value));
    }
  }
}

function mergeValue(current: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(current)) {
    return pruneNulls(patch);
  }
  // An object replaced by a non-object keeps the patch value as sent, nulls and all.
  if (!isJsonObject(patch)) return patch;
  mergeObjects(current, patch);
  return current;
}

function pruneNulls(value: JsonValue): JsonValue {
  if (isJsonObject(value)) {
    pruneObjectNulls(value);
    return value;
  }
  if (Array.isArray(value)) return pruneArrayNulls(value);
  return value;
}

function pruneObjectNulls(object: JsonObject): void {
  for (const key of Object.keys(object)) {
    const value = object[key] as JsonValue;
    if (value === null) delete object[key];
    else setOwn(object, key, pruneNulls(value));
  }
}

/** v4.12 keeps null elements of an array and prunes inside the others. */
function pruneArrayNulls(array: JsonValue[]): JsonValue[] {
  return array.map((item) => (item === null ? null : pruneNulls(item)));
}

/**
 * The merge patch that turns `original` into `modified` (jsonpatch.CreateMergePatch): changed and added members
 * with their new value, removed members as null, objects recursively, everything else replaced whole.
 */
export function createMergePatch(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(modified)) {
    const next = modified[key] as JsonValue;
    if (!hasOwn(original, key)) {
      setOwn(patch, key, next);
      continue;
    }
    const previous = original[key] as JsonValue;
    if (isJsonObject(previous) && isJsonObject(next)) {
      const nested = createMergePatch(previous, next);
      if (Object.keys(nested).length > 0) setOwn(patch, key, nested);
    } else if (!jsonEqual(previous, next)) {
      setOwn(patch, key, next);
    }
  }
  for (const key of Object.keys(original)) {
    if (!hasOwn(modified, key)) setOwn(patch, key, null);
  }
  return patch;
}
