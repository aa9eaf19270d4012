// Strategic merge patch, applied the way kube-apiserver applies it: a port of StrategicMergeMapPatch from
// k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (mergeMap and the functions it calls, with
// MergeParallelList and IgnoreUnmatchedNulls set as the server sets them). Branches, their order and the error
// texts follow upstream so that kubectl sees the same answers; docs/adr/0030-strategic-merge-patch-is-a-port-of-the-server-path.md.
import { badRequest, rejectedRequest, serverError } from "./errors.ts";
import type { GoKind } from "./go.ts";
import {
  GO_MAP_TYPE,
  GO_SLICE_TYPE,
  goEqual,
  goFormatS,
  goFormatV,
  goHashKey,
  goKind,
  goPanic,
  goQuote,
  goSliceStable,
  goTypeString,
} from "./go.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { hasOwn, isJsonObject, jsonTypeName, setOwn } from "./json.ts";
import type { PatchMetaLookup, StructName } from "./strategic-schema.ts";
import { lookupPatchMeta } from "./strategic-schema.ts";

export const DIRECTIVE_MARKER = "$patch";
export const DELETE_DIRECTIVE = "delete";
export const REPLACE_DIRECTIVE = "replace";
export const MERGE_DIRECTIVE = "merge";
export const RETAIN_KEYS_DIRECTIVE = "$retainKeys";
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = "$deleteFromPrimitiveList";
export const SET_ELEMENT_ORDER_PREFIX = "$setElementOrder";

/** k8s.io/apimachinery/pkg/util/mergepatch sentinel errors. */
export const SMP_ERRORS = {
  noListOfLists: "lists of lists are not supported",
  badPatchFormatForPrimitiveList: "invalid patch format of primitive list",
  badPatchFormatForRetainKeys: "invalid patch format of retainKeys",
  badPatchFormatForSetElementOrderList: "invalid patch format of setElementOrder list",
} as const;

type TypeRef = StructName | undefined;

/**
 * Applies a decoded strategic merge patch to `original` (modified in place) for the Go struct `root`. Throws
 * PatchError with the status interpretStrategicMergePatchError gives each failure: 400 for a malformed
 * directive, 422 for a list of lists, 500 (no reason) for everything else, as upstream does.
 */
export function applyStrategicMergePatch(original: JsonObject, patch: JsonValue, root: StructName): JsonObject {
  // sigs.k8s.io/json decodes the body into a map; null leaves a nil map, which merges as nothing.
  if (patch === null) return original;
  if (!isJsonObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`);
  }
  return mergeMap(original, patch, root);
}

function errNoMergeKey(map: JsonObject, mergeKey: string): Error {
  return serverError(`map: ${goFormatV(map)} does not contain declared merge key: ${mergeKey}`);
}

function errBadArgType(expected: string, actual: JsonValue): Error {
  return serverError(`expected a ${expected}, but received a ${goTypeString(actual)}`);
}

function errBadPatchType(directive: JsonValue, map: JsonObject): Error {
  return serverError(`unknown patch type: ${goFormatS(directive)} in map: ${goFormatV(map)}`);
}

function lookup(type: TypeRef, field: string): PatchMetaLookup {
  const meta = lookupPatchMeta(type, field);
  if (meta === undefined) {
    throw serverError(`unable to find api field in struct ${type ?? ""} for the json field ${goQuote(field)}`);
  }
  return meta;
}

function mergeMap(original: JsonObject, patch: JsonObject, type: TypeRef): JsonObject {
  if (hasOwn(patch, DIRECTIVE_MARKER)) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER] as JsonValue, patch);

  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, type);

  for (const patchKey of Object.keys(patch)) {
    const patchValue = patch[patchKey] as JsonValue;
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      isDeleteList = true;
      const listKey = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      if (listKey.length > 0) key = listKey;
    }

    // A null deletes the member; IgnoreUnmatchedNulls drops nulls for members that do not exist.
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const originalValue = hasOwn(original, key) ? (original[key] as JsonValue) : undefined;
    const kind = originalValue === undefined ? undefined : goKind(originalValue);
    if (kind === undefined || kind !== goKind(patchValue)) {
      // A new or retyped member takes the patch value without nulls and directives; a deletion list for a
      // list the object does not have is dropped.
      if (!isDeleteList) setWithoutDirectives(original, key, discardNullValues(patchValue));
      continue;
    }
    if (kind === "map") {
      setOwn(original, key, mergeMapHandler(originalValue as JsonObject, patchValue as JsonObject, lookup(type, key)));
    } else if (kind === "slice") {
      setOwn(
        original,
        key,
        mergeSliceHandler(originalValue as JsonValue[], patchValue as JsonValue[], lookup(type, key), isDeleteList),
      );
    } else {
      setOwn(original, key, patchValue);
    }
  }
  return original;
}

function handleDirectiveInMergeMap(directive: JsonValue, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    // The rest of the patch map is the new value as sent; nested directives are not interpreted.
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  // "merge" is only a directive inside a list; on a map upstream rejects it like any unknown value.
  throw errBadPatchType(directive, patch);
}

function mergeMapHandler(original: JsonObject, patch: JsonObject, meta: PatchMetaLookup): JsonObject {
  return meta.strategy === REPLACE_DIRECTIVE ? patch : mergeMap(original, patch, meta.type);
}

function mergeSliceHandler(
  original: JsonValue[],
  patch: JsonValue[],
  meta: PatchMetaLookup,
  isDeleteList: boolean,
): JsonValue[] {
  // A deletion list works on any list, whatever the field's strategy.
  return meta.strategy === MERGE_DIRECTIVE || isDeleteList ? mergeSlice(original, patch, meta, isDeleteList) : patch;
}

/** discardNullValuesFromPatch: drops null members of objects at any depth (nulls in lists stay). */
function discardNullValues(value: JsonValue): JsonValue {
  if (Array.isArray(value)) {
    for (const item of value) discardNullValues(item);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const item = value[key] as JsonValue;
      if (item === null) delete value[key];
      else discardNullValues(item);
    }
  }
  return value;
}

/**
 * removeDirectives: an object carrying `$patch` disappears (from its parent object or list) and the rest is
 * kept as sent. Returns undefined when the value itself is such an object.
 */
function removeDirectives(value: JsonValue): JsonValue | undefined {
  if (Array.isArray(value)) {
    const kept: JsonValue[] = [];
    for (const item of value) {
      const cleaned = removeDirectives(item);
      if (cleaned !== undefined) kept.push(cleaned);
    }
    return kept;
  }
  if (!isJsonObject(value)) return value;
  if (hasOwn(value, DIRECTIVE_MARKER)) return undefined;
  for (const key of Object.keys(value)) {
    const cleaned = removeDirectives(value[key] as JsonValue);
    if (cleaned === undefined) delete value[key];
    else setOwn(value, key, cleaned);
  }
  return value;
}

function setWithoutDirectives(object: JsonObject, key: string, value: JsonValue): void {
  const cleaned = removeDirectives(value);
  if (cleaned === undefined) delete object[key];
  else setOwn(object, key, cleaned);
}

/** "$setElementOrder/containers" -> "containers"; a bad prefix is a 400 for the two list directives. */
function extractKey(key: string, prefix: typeof DELETE_FROM_PRIMITIVE_LIST_PREFIX | typeof SET_ELEMENT_ORDER_PREFIX): string {
  const slash = key.indexOf("/");
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw badRequest(
      prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX
        ? SMP_ERRORS.badPatchFormatForPrimitiveList
        : SMP_ERRORS.badPatchFormatForSetElementOrderList,
    );
  }
  return key.slice(slash + 1);
}

/** $retainKeys: drop every member of original not listed; every non-null patch member must be listed. */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retainKeys = patch[RETAIN_KEYS_DIRECTIVE] as JsonValue;
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(retainKeys)) throw badRequest(SMP_ERRORS.badPatchFormatForRetainKeys);

  const retained = new Set(retainKeys.map(goHashKey));
  const isRetained = (key: string): boolean => retained.has(goHashKey(key));
  for (const key of Object.keys(patch)) {
    if (
      patch[key] === null ||
      key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) ||
      key.startsWith(SET_ELEMENT_ORDER_PREFIX)
    ) {
      continue;
    }
    if (!isRetained(key)) throw badRequest(SMP_ERRORS.badPatchFormatForRetainKeys);
  }
  for (const key of Object.keys(original)) {
    if (!isRetained(key)) delete original[key];
  }
}

/**
 * $setElementOrder/<list>: merges the list (if the patch has one) and then orders the result: $setElementOrder
 * first, then the patch list, then the live list. Processed lists leave the patch.
 */
function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, type: TypeRef): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER_PREFIX) || !hasOwn(patch, directiveKey)) continue;
    const setElementOrder = patch[directiveKey] as JsonValue;
    delete patch[directiveKey];
    if (!Array.isArray(setElementOrder)) throw errBadArgType(GO_SLICE_TYPE, setElementOrder);
    const listKey = extractKey(directiveKey, SET_ELEMENT_ORDER_PREFIX);

    const foundOriginal = hasOwn(original, listKey);
    const foundPatch = hasOwn(patch, listKey);
    const originalList = foundOriginal ? asList(original[listKey] as JsonValue) : [];
    const patchList = foundPatch ? asList(patch[listKey] as JsonValue) : [];
    const meta = lookup(type, listKey);
    validatePatchWithSetOrderList(patchList, setElementOrder, meta.mergeKey);

    let merged: JsonValue[];
    if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, meta, false);
    else if (foundOriginal) merged = originalList;
    else if (foundPatch) merged = removeDirectives(patchList) as JsonValue[];
    else continue;

    const { inList, notInList } =
      meta.mergeKey === ""
        ? partitionPrimitivesByPresentInList(merged, setElementOrder)
        : partitionMapsByPresentInList(merged, setElementOrder, meta.mergeKey);
    const kind = sliceElementType([originalList, patchList]);
    setOwn(
      original,
      listKey,
      normalizeElementOrder(inList, notInList, setElementOrder, originalList, meta.mergeKey, kind),
    );
    delete patch[listKey];
  }
}

function asList(value: JsonValue): JsonValue[] {
  if (!Array.isArray(value)) throw errBadArgType(GO_SLICE_TYPE, value);
  return value;
}

/** The patch list must be a subsequence of $setElementOrder (deletions and directives aside). */
function validatePatchWithSetOrderList(patchList: JsonValue[], setOrderList: JsonValue[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey.length > 0 ? extractToDeleteItems(patchList).nonDelete : patchList;
  let patchIndex = 0;
  let setOrderIndex = 0;
  while (patchIndex < nonDelete.length && setOrderIndex < setOrderList.length) {
    const item = nonDelete[patchIndex] as JsonValue;
    if (isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(item, setOrderList[setOrderIndex] as JsonValue, mergeKey)) patchIndex++;
    setOrderIndex++;
  }
  if (patchIndex < nonDelete.length && setOrderIndex >= setOrderList.length) {
    throw serverError(
      `The order in patch list:\n${goFormatV(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goFormatV(setOrderList)}\n`,
    );
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (mergeKey.length === 0) return goEqual(left, right);
  if (!isJsonObject(left)) throw errBadArgType(GO_MAP_TYPE, left);
  if (!isJsonObject(right)) throw errBadArgType(GO_MAP_TYPE, right);
  if (!hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return goEqual(left[mergeKey] as JsonValue, right[mergeKey] as JsonValue);
}

/**
 * A Go slice header over a backing array: upstream deletes list items in place (append(s[:i], s[i+1:]...)) and
 * appends into the room that frees, so the caller's view of the live list, still used as the "server order"
 * under $setElementOrder, sees shifted and appended items. The apiserver patches a deep copy of the cached
 * object, whose slices have no spare capacity, so appends only land in room made by deletions.
 */
interface GoSlice {
  backing: JsonValue[];
  len: number;
}

function view(slice: GoSlice): JsonValue[] {
  return slice.backing.slice(0, slice.len);
}

function goAppend(slice: GoSlice, item: JsonValue): void {
  if (slice.len < slice.backing.length) {
    slice.backing[slice.len] = item;
  } else {
    // growslice: a new backing array, no longer shared with anyone.
    slice.backing = [...view(slice), item];
  }
  slice.len++;
}

function mergeSlice(original: JsonValue[], patch: JsonValue[], meta: PatchMetaLookup, isDeleteList: boolean): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType([original, patch]);
  const mergeKey = meta.mergeKey;

  let serverOrder: JsonValue[];
  let patchOrder = patch;
  let merged: JsonValue[];
  if (kind !== "map") {
    if (isDeleteList) return deleteFromSlice(original, patch);
    // append(original, patch...) reuses original's array only when there is nothing to append.
    const both: GoSlice = patch.length === 0 ? { backing: original, len: original.length } : { backing: [...original, ...patch], len: original.length + patch.length };
    deduplicateScalars(both);
    merged = view(both);
    serverOrder = original;
  } else {
    if (mergeKey === "") {
      // Upstream names the Go kind of the element: merge lists without a key hold strings (finalizers), the
      // atomic lists a deletion list can reach hold structs.
      const elementKind = meta.strategy === MERGE_DIRECTIVE && meta.type === undefined ? "string" : "struct";
      throw serverError(`cannot merge lists without merge key for ${elementKind}`);
    }
    const special = mergeSliceWithSpecialElements({ backing: original, len: original.length }, patch, mergeKey);
    // The live order is the list after deletions; appends land beyond its length.
    serverOrder = view(special.original);
    patchOrder = special.patch;
    merged = mergeSliceWithoutSpecialElements(special.original, patchOrder, mergeKey, meta.type);
  }

  const { inList, notInList } =
    mergeKey === ""
      ? partitionPrimitivesByPresentInList(merged, patchOrder)
      : partitionMapsByPresentInList(merged, patchOrder, mergeKey);
  return normalizeElementOrder(inList, notInList, patchOrder, serverOrder, mergeKey, kind);
}

/** `$patch: delete` and `$patch: replace` elements of a merging list of maps. */
function mergeSliceWithSpecialElements(
  original: GoSlice,
  patch: JsonValue[],
  mergeKey: string,
): { original: GoSlice; patch: JsonValue[] } {
  const plain: JsonValue[] = [];
  let replace = false;
  for (const value of patch) {
    const item = value as JsonObject;
    if (!hasOwn(item, DIRECTIVE_MARKER)) {
      plain.push(item);
      continue;
    }
    const directive = item[DIRECTIVE_MARKER] as JsonValue;
    if (directive === DELETE_DIRECTIVE) {
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      deleteMatchingEntries(original, mergeKey, item[mergeKey] as JsonValue);
    } else if (directive === REPLACE_DIRECTIVE) {
      // Keep scanning so that every other directive element is still validated and dropped.
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw serverError("merging lists cannot yet be specified in the patch");
    } else {
      throw errBadPatchType(directive, item);
    }
  }
  return replace ? { original: { backing: plain, len: plain.length }, patch: [] } : { original, patch: plain };
}

/** Removes every item with the merge key value, shifting the rest down in the shared backing array. */
function deleteMatchingEntries(list: GoSlice, mergeKey: string, value: JsonValue): void {
  for (;;) {
    const hit = findMapInSliceBasedOnKeyValue(view(list), mergeKey, value);
    if (hit === undefined) return;
    list.backing.copyWithin(hit.index, hit.index + 1, list.len);
    list.len--;
  }
}

function mergeSliceWithoutSpecialElements(
  original: GoSlice,
  patch: JsonValue[],
  mergeKey: string,
  elementType: TypeRef,
): JsonValue[] {
  for (const value of patch) {
    const item = value as JsonObject;
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const hit = findMapInSliceBasedOnKeyValue(view(original), mergeKey, item[mergeKey] as JsonValue);
    if (hit === undefined) goAppend(original, item);
    else original.backing[hit.index] = mergeMap(hit.map, item, elementType);
  }
  return view(original);
}

function findMapInSliceBasedOnKeyValue(
  list: JsonValue[],
  key: string,
  value: JsonValue,
): { map: JsonObject; index: number } | undefined {
  for (let index = 0; index < list.length; index++) {
    const item = list[index] as JsonValue;
    if (!isJsonObject(item)) throw serverError(`value for key ${index} is not a map.`);
    if (hasOwn(item, key) && goEqual(item[key] as JsonValue, value)) return { map: item, index };
  }
  return undefined;
}

function deleteFromSlice(current: JsonValue[], toDelete: JsonValue[]): JsonValue[] {
  const deleted = new Set(toDelete.map(goHashKey));
  return current.filter((item) => !deleted.has(goHashKey(item)));
}

/** Upstream's in-place de-duplication, which moves the last element into each duplicate's slot. */
function deduplicateScalars(list: GoSlice): void {
  const s = list.backing;
  let length = list.len - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goEqual(s[i] as JsonValue, s[j] as JsonValue)) {
        s[j] = s[length] as JsonValue;
        length--;
        j--;
      }
    }
  }
  list.len = length + 1;
}

/** The Go type shared by every element, refusing lists of lists and mixed lists. */
function sliceElementType(slices: JsonValue[][]): Exclude<GoKind, "nil"> {
  let previous: GoKind | undefined;
  for (const slice of slices) {
    for (const item of slice) {
      const current = goKind(item);
      if (previous === undefined) {
        // reflect.TypeOf(nil).Kind() dereferences a nil interface upstream.
        if (current === "nil") throw goPanic("invalid memory address or nil pointer dereference");
        if (current === "slice") throw rejectedRequest(SMP_ERRORS.noListOfLists);
        previous = current;
      } else if (previous !== current) {
        throw serverError(`list element types are not identical: ${goFormatV(slices)}`);
      }
    }
  }
  if (previous === undefined || previous === "nil") throw serverError("no elements in any of the given slices");
  return previous;
}

function partitionPrimitivesByPresentInList(
  list: JsonValue[],
  partitionBy: JsonValue[],
): { inList: JsonValue[]; notInList: JsonValue[] } {
  const present = new Set(partitionBy.map(goHashKey));
  const inList: JsonValue[] = [];
  const notInList: JsonValue[] = [];
  for (const item of list) (present.has(goHashKey(item)) ? inList : notInList).push(item);
  return { inList, notInList };
}

function partitionMapsByPresentInList(
  list: JsonValue[],
  partitionBy: JsonValue[],
  mergeKey: string,
): { inList: JsonValue[]; notInList: JsonValue[] } {
  const inList: JsonValue[] = [];
  const notInList: JsonValue[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw errBadArgType(GO_MAP_TYPE, item);
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const found = findMapInSliceBasedOnKeyValue(partitionBy, mergeKey, item[mergeKey] as JsonValue) !== undefined;
    (found ? inList : notInList).push(item);
  }
  return { inList, notInList };
}

/**
 * Orders patch items by `patchOrder` and server-only items by `serverOrder`, then interleaves them keeping both
 * relative orders (mergeSortedSlice).
 */
function normalizeElementOrder(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: GoKind,
): JsonValue[] {
  const patchSorted = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const serverSorted = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(serverSorted, patchSorted, serverOrder, mergeKey, kind);
}

function normalizeSliceOrder(toSort: JsonValue[], order: JsonValue[], mergeKey: string, kind: GoKind): JsonValue[] {
  let items = toSort;
  let toDelete: JsonValue[] = [];
  if (kind === "map") {
    validateMergeKeyInLists(mergeKey, [toSort, order]);
    ({ nonDelete: items, toDelete } = extractToDeleteItems(toSort));
  }
  const sorted = items.slice();
  const indexOf = indexer(order, mergeKey, kind);
  // Not a strict weak order when an item is missing from `order`; upstream relies on SliceStable's behaviour.
  goSliceStable(sorted, (a, b) => {
    const ia = indexOf(a);
    if (ia >= 0) {
      const ib = indexOf(b);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...sorted, ...toDelete];
}

function validateMergeKeyInLists(mergeKey: string, lists: JsonValue[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) throw errBadArgType(GO_MAP_TYPE, item);
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

function extractToDeleteItems(list: JsonValue[]): { nonDelete: JsonValue[]; toDelete: JsonValue[] } {
  const nonDelete: JsonValue[] = [];
  const toDelete: JsonValue[] = [];
  for (const item of list) {
    if (!isJsonObject(item)) throw errBadArgType(GO_MAP_TYPE, item);
    const isDelete = hasOwn(item, DIRECTIVE_MARKER) && item[DIRECTIVE_MARKER] === DELETE_DIRECTIVE;
    (isDelete ? toDelete : nonDelete).push(item);
  }
  return { nonDelete, toDelete };
}

/**
 * Upstream's index(list, item, mergeKey, kind): the first position whose merge key (maps) or value (scalars)
 * equals the item's, -1 if none, with Go's == semantics. Built once per list so sorting stays O(n log n).
 */
function indexer(list: JsonValue[], mergeKey: string, kind: GoKind): (item: JsonValue) => number {
  const valueOf = (item: JsonValue): JsonValue =>
    kind === "map" ? (isJsonObject(item) && hasOwn(item, mergeKey) ? (item[mergeKey] as JsonValue) : null) : item;
  const first = new Map<string, number>();
  const firstUncomparable = new Map<GoKind, number>();
  list.forEach((item, index) => {
    const value = valueOf(item);
    const valueKind = goKind(value);
    if (valueKind === "map" || valueKind === "slice") {
      if (!firstUncomparable.has(valueKind)) firstUncomparable.set(valueKind, index);
    } else {
      const key = goHashKey(value);
      if (!first.has(key)) first.set(key, index);
    }
  });
  return (item) => {
    const value = valueOf(item);
    const valueKind = goKind(value);
    if (valueKind === "map" || valueKind === "slice") {
      // Go's == panics at the first element holding the same uncomparable type.
      if (firstUncomparable.has(valueKind)) goEqual(value, value);
      return -1;
    }
    return first.get(goHashKey(value)) ?? -1;
  };
}

function mergeSortedSlice(
  left: JsonValue[],
  right: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: GoKind,
): JsonValue[] {
  const indexOf = indexer(serverOrder, mergeKey, kind);
  const merged: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) merged.push(right[j++] as JsonValue);
    else if (j >= right.length) merged.push(left[i++] as JsonValue);
    else {
      const li = indexOf(left[i] as JsonValue);
      const ri = indexOf(right[j] as JsonValue);
      if (li >= 0 && ri >= 0 && li < ri) merged.push(left[i++] as JsonValue);
      else merged.push(right[j++] as JsonValue);
    }
  }
  return merged;
}
