// JSON Patch (RFC 6902) with the semantics of gopkg.in/evanphx/json-patch.v4 v4.12.0, the library kube-apiserver
// vendors: including its departures from the RFC (docs/adr/0032-json-and-merge-patch-follow-evanphx-v4.md).
import { badRequest, rejectedRequest, tooManyOperations } from "./errors.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { cloneJson, getOwn, hasOwn, isJsonObject, jsonEqual, jsonTypeName, setOwn } from "./json.ts";

/** handlers/patch.go maxJSONPatchOperations. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** An operation that does not apply; the text is the library's, the apiserver answers a fixed 422. */
class OperationFailure extends Error {}

type Container = JsonObject | JsonValue[];

/**
 * Applies a decoded JSON patch to `doc` in place and returns it. Throws PatchError: 400 when the patch is not a
 * list of operation objects, 413 above 10000 operations, 422 when an operation does not apply.
 */
export function applyJsonPatch(doc: JsonObject, patch: JsonValue): JsonObject {
  const operations = decodeOperations(patch);
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw tooManyOperations(MAX_JSON_PATCH_OPERATIONS, operations.length);
  }
  try {
    for (const operation of operations) applyOperation(doc, operation);
  } catch (error) {
    if (error instanceof OperationFailure) throw rejectedRequest(error.message);
    throw error;
  }
  return doc;
}

/** jsonpatch.DecodePatch: json.Unmarshal into []map[string]*json.RawMessage. */
function decodeOperations(patch: JsonValue): (JsonObject | null)[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) {
    throw badRequest(`json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type jsonpatch.Patch`);
  }
  const operations: (JsonObject | null)[] = [];
  for (const item of patch) {
    if (item !== null && !isJsonObject(item)) {
      throw badRequest(`json: cannot unmarshal ${jsonTypeName(item)} into Go value of type jsonpatch.Operation`);
    }
    operations.push(item);
  }
  return operations;
}

function applyOperation(doc: JsonObject, operation: JsonObject | null): void {
  const op = operation ?? {};
  const kind = operationKind(op);
  switch (kind) {
    case "add":
      return add(doc, op);
    case "remove":
      return remove(doc, op);
    case "replace":
      return replace(doc, op);
    case "move":
      return move(doc, op);
    case "test":
      return test(doc, op);
    case "copy":
      return copy(doc, op);
    default:
      throw new OperationFailure(`Unexpected kind: ${kind}`);
  }
}

function operationKind(op: JsonObject): string {
  const value = getOwn(op, "op");
  return typeof value === "string" ? value : "unknown";
}

/** Reads "path" or "from": a missing or null member is an error, and so is one that is not a string. */
function stringMember(op: JsonObject, member: "path" | "from"): string {
  const value = getOwn(op, member);
  if (value === undefined || value === null) {
    throw new OperationFailure(
      member === "path" ? "operation missing path field: missing value" : "operation, missing from field: missing value",
    );
  }
  if (typeof value !== "string") {
    throw new OperationFailure(`json: cannot unmarshal ${jsonTypeName(value)} into Go value of type string`);
  }
  return value;
}

function decodeMember(op: JsonObject, member: "path" | "from", wrap: (cause: string) => string): string {
  try {
    return stringMember(op, member);
  } catch (error) {
    if (error instanceof OperationFailure) throw new OperationFailure(wrap(error.message));
    throw error;
  }
}

/** A missing "value" is added as null, like the library's nil node. */
function operationValue(op: JsonObject): JsonValue {
  return getOwn(op, "value") ?? null;
}

function add(doc: JsonObject, op: JsonObject): void {
  const path = decodeMember(op, "path", () => "add operation failed to decode path: missing value");
  const target = locate(doc, path, `add operation does not apply: doc is missing path: "${path}"`);
  wrapFailure(`error in add for path: '${path}'`, () => containerAdd(target.container, target.key, operationValue(op)));
}

function remove(doc: JsonObject, op: JsonObject): void {
  const path = decodeMember(op, "path", () => "remove operation failed to decode path: missing value");
  const target = locate(doc, path, `remove operation does not apply: doc is missing path: "${path}"`);
  wrapFailure(`error in remove for path: '${path}'`, () => containerRemove(target.container, target.key));
}

function replace(doc: JsonObject, op: JsonObject): void {
  const path = decodeMember(op, "path", (cause) => `replace operation failed to decode path: ${cause}`);
  const target = locate(doc, path, `replace operation does not apply: doc is missing path: ${path}`);
  // An object member that does not exist is "found" (as nil), so v4 replace adds it; arrays check the index.
  try {
    containerGet(target.container, target.key);
  } catch (error) {
    if (error instanceof OperationFailure) {
      throw new OperationFailure(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    }
    throw error;
  }
  wrapFailure(`error in remove for path: '${path}'`, () => containerSet(target.container, target.key, operationValue(op)));
}

function move(doc: JsonObject, op: JsonObject): void {
  const from = decodeMember(op, "from", (cause) => `move operation failed to decode from: ${cause}`);
  const source = locate(doc, from, `move operation does not apply: doc is missing from path: ${from}`);
  const value = wrapFailure(`error in move for path: '${source.key}'`, () => containerGet(source.container, source.key));
  wrapFailure(`error in move for path: '${source.key}'`, () => containerRemove(source.container, source.key));
  const path = decodeMember(op, "path", (cause) => `move operation failed to decode path: ${cause}`);
  const target = locate(doc, path, `move operation does not apply: doc is missing destination path: ${path}`);
  wrapFailure(`error in move for path: '${path}'`, () => containerAdd(target.container, target.key, value ?? null));
}

function test(doc: JsonObject, op: JsonObject): void {
  const path = decodeMember(op, "path", (cause) => `test operation failed to decode path: ${cause}`);
  const target = locate(doc, path, `test operation does not apply: is missing path: ${path}`);
  const actual = wrapFailure(`error in test for path: '${path}'`, () => containerGet(target.container, target.key));
  const expected = getOwn(op, "value");
  // A missing or null member and an explicit null are the same nil node to the library. Without a "value"
  // member v4.12 dereferences nil and panics; here that is simply a failed test.
  const passed =
    actual === undefined || actual === null
      ? expected === null
      : expected !== undefined && expected !== null && jsonEqual(actual, expected);
  if (!passed) throw new OperationFailure(`testing value ${path} failed: test failed`);
}

function copy(doc: JsonObject, op: JsonObject): void {
  const from = decodeMember(op, "from", (cause) => `copy operation failed to decode from: ${cause}`);
  const source = locate(doc, from, `copy operation does not apply: doc is missing from path: ${from}`);
  const value = wrapFailure(`error in copy for from: '${from}'`, () => containerGet(source.container, source.key));
  const path = decodeMember(op, "path", () => "copy operation failed to decode path: missing value");
  const target = locate(doc, path, `copy operation does not apply: doc is missing destination path: ${path}`);
  // Copying a member that does not exist copies the library's nil node: the destination becomes null.
  const copied = value === undefined ? null : cloneJson(value);
  wrapFailure("error while adding value during copy", () => containerAdd(target.container, target.key, copied));
}

/** findObject, failing with the library's "does not apply" text when the path is not there. */
function locate(doc: JsonObject, path: string, missing: string): { container: Container; key: string } {
  const target = findObject(doc, path);
  if (target === undefined) throw new OperationFailure(`${missing}: missing value`);
  return target;
}

function wrapFailure<T>(prefix: string, action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof OperationFailure) throw new OperationFailure(`${prefix}: ${error.message}`);
    throw error;
  }
}

/** RFC 6901 unescaping in one pass (~1 then ~0), as strings.NewReplacer does it. */
function decodeKey(token: string): string {
  return token.replace(/~[01]/g, (escape) => (escape === "~1" ? "/" : "~"));
}

/**
 * The container holding the last token of `path`, or undefined when any step is missing, null or a scalar.
 * Like the library, everything before the first "/" is ignored, so "a/b" addresses member "b" of the root.
 */
function findObject(doc: JsonObject, path: string): { container: Container; key: string } | undefined {
  const tokens = path.split("/");
  if (tokens.length < 2) return undefined;
  let current: Container = doc;
  for (const token of tokens.slice(1, -1)) {
    let next: JsonValue | undefined;
    try {
      next = containerGet(current, decodeKey(token));
    } catch (error) {
      if (error instanceof OperationFailure) return undefined;
      throw error;
    }
    if (Array.isArray(next) || isJsonObject(next)) current = next;
    else return undefined;
  }
  return { container: current, key: decodeKey(tokens[tokens.length - 1] ?? "") };
}

/** strconv.Atoi: optional sign, decimal digits, int64 range. */
function atoi(token: string): number {
  if (!/^[+-]?[0-9]+$/.test(token)) throw new OperationFailure(`strconv.Atoi: parsing ${JSON.stringify(token)}: invalid syntax`);
  const value = BigInt(token);
  if (value > 9223372036854775807n || value < -9223372036854775808n) {
    throw new OperationFailure(`strconv.Atoi: parsing ${JSON.stringify(token)}: value out of range`);
  }
  return Number(value);
}

function invalidIndex(index: number): OperationFailure {
  return new OperationFailure(`Unable to access invalid index: ${index}: invalid index referenced`);
}

/** Index into an array of `length`, negative counting from the end (SupportNegativeIndices). */
function resolveIndex(token: string, length: number): number {
  const index = atoi(token);
  if (index >= length || index < -length) throw invalidIndex(index);
  return index < 0 ? index + length : index;
}

/** undefined: an object member that does not exist (the library's nil, never an error for objects). */
function containerGet(container: Container, key: string): JsonValue | undefined {
  if (!Array.isArray(container)) return getOwn(container, key);
  return container[resolveIndex(key, container.length)];
}

function containerSet(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  container[resolveIndex(key, container.length)] = value;
}

function containerAdd(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  if (key === "-") {
    container.push(value);
    return;
  }
  let index: number;
  try {
    index = atoi(key);
  } catch (error) {
    if (error instanceof OperationFailure) {
      throw new OperationFailure(`value was not a proper array index: '${key}': ${error.message}`);
    }
    throw error;
  }
  const size = container.length + 1;
  if (index >= size || index < -size) throw invalidIndex(index);
  container.splice(index < 0 ? index + size : index, 0, value);
}

function containerRemove(container: Container, key: string): void {
  if (!Array.isArray(container)) {
    if (!hasOwn(container, key)) throw new OperationFailure(`Unable to remove nonexistent key: ${key}: missing value`);
    delete container[key];
    return;
  }
  container.splice(resolveIndex(key, container.length), 1);
}
