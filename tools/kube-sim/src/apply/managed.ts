// metadata.managedFields as kube-apiserver keeps them (k8s.io/apimachinery pkg/util/managedfields/internal and
// sigs.k8s.io/structured-merge-diff merge/update.go): decoding and encoding entries, the field set an update
// takes, server-side apply with conflicts, and the scale subresource's translation. Pure: the caller passes
// the objects, the schema and `now`; nothing here reads a clock or does I/O.
import { goJsonString, goQuote } from "../api/json.ts";
import type { JsonObject, JsonValue } from "../patch/json.ts";
import { jsonEqual } from "../patch/json.ts";
import type { Path } from "./fieldpath.ts";
import { FieldSet, FieldsV1Error, field, pathString } from "./fieldpath.ts";
import type { Comparison, SsaType } from "./typed.ts";
import { TypedValueError, compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet } from "./typed.ts";

export type ManagedFieldsOperation = "Apply" | "Update";

/** One metadata.managedFields entry, in the order Go's encoding/json writes its fields. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time?: string;
  fieldsType: "FieldsV1";
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** A manager's fields, keyed elsewhere by its identifier (manager, operation, apiVersion for updates, subresource). */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  readonly applied: boolean;
}

/** Managers by identifier (BuildManagerIdentifier's JSON), with the time of each one's last change. */
export interface Managed {
  readonly fields: Map<string, VersionedSet>;
  readonly times: Map<string, string | undefined>;
}

/** managedFields that upstream's DecodeManagedFields rejects. */
export class ManagedFieldsError extends Error {
  override readonly name = "ManagedFieldsError";
  readonly index: number;
  constructor(index: number, why: string) {
    super(why);
    this.index = index;
  }
}

export interface Conflict {
  /** The manager identifier (JSON), as upstream's merge.Conflict carries it. */
  readonly manager: string;
  readonly path: Path;
}

/** Apply conflicts: the 409 the apiserver answers with (internal/conflict.go NewConflictError). */
export class ApplyConflictError extends Error {
  override readonly name = "ApplyConflictError";
  readonly conflicts: readonly Conflict[];
  constructor(conflicts: readonly Conflict[]) {
    super(conflictMessage(conflicts));
    this.conflicts = conflicts;
  }

  /** details.causes: one FieldManagerConflict per conflicting field (StatusCause.Type is JSON "reason"). */
  causes(): { reason: "FieldManagerConflict"; message: string; field: string }[] {
    return this.conflicts.map((c) => ({ reason: "FieldManagerConflict", message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  }
}

/** The applied configuration cannot be read against the schema (upstream answers 500 with this text). */
export class ApplyTypeError extends Error {
  override readonly name = "ApplyTypeError";
  readonly typed: TypedValueError;
  constructor(object: string, typed: TypedValueError) {
    super(`failed to create typed patch object (${object}): ${typed.message}`);
    this.typed = typed;
  }
}

// ---- identifiers and printing ----

export interface ManagerInfo {
  readonly manager: string;
  readonly operation: ManagedFieldsOperation;
  readonly apiVersion: string;
  readonly subresource: string;
}

/** BuildManagerIdentifier: the entry without time and fields, and without apiVersion for appliers. */
export function managerIdentifier(info: ManagerInfo): string {
  const id: Record<string, string> = {};
  if (info.manager !== "") id["manager"] = info.manager;
  id["operation"] = info.operation;
  if (info.operation === "Update" && info.apiVersion !== "") id["apiVersion"] = info.apiVersion;
  if (info.subresource !== "") id["subresource"] = info.subresource;
  return JSON.stringify(id);
}

function parseIdentifier(id: string): Partial<Record<"manager" | "operation" | "apiVersion" | "subresource", string>> {
  try {
    const parsed = JSON.parse(id) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed) : {};
  } catch {
    return {};
  }
}

/** printManager: `"kubectl"`, `"kubectl" with subresource "scale" using apps/v1`. */
export function printManager(id: string): string {
  const info = parseIdentifier(id);
  if (info.operation === undefined) return goQuote(id);
  let out = goQuote(info.manager ?? "");
  if (info.subresource !== undefined && info.subresource !== "") out += ` with subresource ${goQuote(info.subresource)}`;
  // Identifiers never carry a time, so upstream's "at <time>" form does not occur.
  if (info.operation === "Update") out += ` using ${info.apiVersion ?? ""}`;
  return out;
}

/** getConflictMessage: one conflict inline, several grouped by manager (managers sorted). */
export function conflictMessage(conflicts: readonly Conflict[]): string {
  const [first] = conflicts;
  if (conflicts.length === 1 && first !== undefined) return `Apply failed with 1 conflict: conflict with ${printManager(first.manager)}: ${pathString(first.path)}`;
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const p of byManager.get(manager) ?? []) lines.push(`- ${pathString(p)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}

// ---- decode / encode ----

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/** DecodeManagedFields: entries to managers; throws ManagedFieldsError for what upstream rejects. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError(-1, "managedFields is not a list");
  entries.forEach((entry: unknown, i) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new ManagedFieldsError(i, `managed fields entry ${i} is not an object`);
    const e = entry as Record<string, unknown>;
    const operation = e["operation"];
    if (operation !== "Apply" && operation !== "Update") throw new ManagedFieldsError(i, "operation must be `Apply` or `Update`");
    const apiVersion = typeof e["apiVersion"] === "string" ? e["apiVersion"] : "";
    if (apiVersion.length < 1) throw new ManagedFieldsError(i, "apiVersion must not be empty");
    const fieldsType = e["fieldsType"];
    if (fieldsType === undefined || fieldsType === "") throw new ManagedFieldsError(i, `missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== "FieldsV1") throw new ManagedFieldsError(i, `invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const manager = typeof e["manager"] === "string" ? e["manager"] : "";
    const subresource = typeof e["subresource"] === "string" ? e["subresource"] : "";
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e["fieldsV1"]);
    } catch (error) {
      if (error instanceof FieldsV1Error) throw new ManagedFieldsError(i, `error decoding versioned set: ${error.message}`);
      throw error;
    }
    const id = managerIdentifier({ manager, operation, apiVersion, subresource });
    managed.fields.set(id, { set, apiVersion, applied: operation === "Apply" });
    managed.times.set(id, typeof e["time"] === "string" ? e["time"] : undefined);
  });
  return managed;
}

/** Seconds since the epoch of an RFC 3339 time, as metav1.Time.Unix() sorts them (0 when absent). */
function unixSeconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** encodeManagedFields: the entries sorted by operation, time, manager, apiVersion, subresource. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const info = parseIdentifier(id);
    const time = managed.times.get(id);
    // Key order as Go's encoding/json writes metav1.ManagedFieldsEntry; empty fields are omitted.
    const entry: ManagedFieldsEntry = {
      ...(info.manager !== undefined && info.manager !== "" ? { manager: info.manager } : {}),
      operation: vs.applied ? "Apply" : "Update",
      apiVersion: vs.apiVersion,
      ...(time !== undefined ? { time } : {}),
      fieldsType: "FieldsV1",
      fieldsV1: vs.set.toFieldsV1(),
      ...(info.subresource !== undefined && info.subresource !== "" ? { subresource: info.subresource } : {}),
    };
    entries.push(entry);
  }
  entries.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const ps = unixSeconds(p.time);
    const qs = unixSeconds(q.time);
    if (ps !== qs) return ps - qs;
    const pm = p.manager ?? "";
    const qm = q.manager ?? "";
    if (pm !== qm) return pm < qm ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    const pr = p.subresource ?? "";
    const qr = q.subresource ?? "";
    return pr < qr ? -1 : pr > qr ? 1 : 0;
  });
  return entries;
}

/** isResetManagedFields: `[]` or `[{}]` asks the server to forget every manager. */
export function isResetManagedFields(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  const [only] = entries as unknown[];
  return entries.length === 1 && typeof only === "object" && only !== null && !Array.isArray(only) && Object.keys(only).length === 0;
}

/**
 * decodeLiveOrNew: a subresource write keeps the live managers; otherwise a reset starts empty, valid managers
 * the client sent replace the live ones, and missing, empty or invalid ones fall back to the live managers
 * (so a client that does not know about managedFields cannot drop them). Undecodable live managers: empty.
 */
export function managersForUpdate(liveEntries: unknown, newEntries: unknown, subresource: string): Managed {
  const live = (): Managed => {
    try {
      return decodeManagedFields(liveEntries);
    } catch (error) {
      if (error instanceof ManagedFieldsError) return emptyManaged();
      throw error;
    }
  };
  if (subresource !== "") return live();
  if (isResetManagedFields(newEntries)) return emptyManaged();
  try {
    const sent = decodeManagedFields(newEntries);
    return sent.fields.size === 0 ? live() : sent;
  } catch (error) {
    if (error instanceof ManagedFieldsError) return live();
    throw error;
  }
}

// ---- the algorithms ----

/** Paths never owned by anyone (stripmeta.go). */
const STRIPPED = FieldSet.of(
  [field("apiVersion")],
  [field("kind")],
  [field("metadata")],
  [field("metadata"), field("name")],
  [field("metadata"), field("namespace")],
  [field("metadata"), field("creationTimestamp")],
  [field("metadata"), field("selfLink")],
  [field("metadata"), field("uid")],
  [field("metadata"), field("clusterName")],
  [field("metadata"), field("generation")],
  [field("metadata"), field("managedFields")],
  [field("metadata"), field("resourceVersion")],
);

/** Update entries kept before the oldest are merged into "ancient-changes" (DefaultMaxUpdateManagers). */
export const MAX_UPDATE_MANAGERS = 10;

export interface WriteTarget {
  /** The kind's schema. */
  readonly schema: SsaType;
  /** The group/version written through, e.g. "apps/v1". */
  readonly apiVersion: string;
  /** "" or "status" (scale has its own function). */
  readonly subresource: string;
  /** Fields the endpoint's strategy resets (status on the main resource, spec on /status): never owned there. */
  readonly resetFields: FieldSet;
}

function withoutManagedFields(obj: JsonObject): JsonObject {
  const metadata = obj["metadata"];
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata) || !Object.hasOwn(metadata, "managedFields")) return obj;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...obj, metadata: rest };
}

function filtered(c: Comparison, reset: FieldSet): Comparison {
  if (reset.isEmpty()) return c;
  return { added: c.added.recursiveDifference(reset), modified: c.modified.recursiveDifference(reset), removed: c.removed.recursiveDifference(reset) };
}

/**
 * merge/update.go `update`: every manager but `skip` loses the fields this write removed, and, when `force`,
 * the fields it changed; without force those are the conflicts.
 */
function takeFromOthers(managed: Managed, c: Comparison, skip: string, force: boolean): Conflict[] {
  const changed = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  const taken = new Map<string, FieldSet>();
  for (const [id, vs] of managed.fields) {
    if (id === skip) continue;
    const mine = vs.set.intersection(changed);
    if (!mine.isEmpty()) {
      taken.set(id, mine);
      for (const path of mine.paths()) conflicts.push({ manager: id, path });
    }
  }
  if (!force && conflicts.length > 0) return conflicts;
  for (const [id, vs] of managed.fields) {
    if (id === skip) continue;
    let set = vs.set;
    const mine = taken.get(id);
    if (mine !== undefined) set = set.difference(mine);
    if (!c.removed.isEmpty()) set = set.difference(c.removed);
    if (set.isEmpty()) {
      managed.fields.delete(id);
      managed.times.delete(id);
    } else if (set !== vs.set) {
      managed.fields.set(id, { ...vs, set });
    }
  }
  return [];
}

/** capmanagers.go: the oldest update entries beyond MAX_UPDATE_MANAGERS merge into one bucket per version. */
function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.fields.entries()].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  updaters.sort((a, b) => {
    const d = unixSeconds(managed.times.get(a)) - unixSeconds(managed.times.get(b));
    return d !== 0 ? d : a < b ? -1 : a > b ? 1 : 0;
  });
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (const id of updaters) {
    if (length <= MAX_UPDATE_MANAGERS) break;
    const vs = managed.fields.get(id);
    if (vs === undefined) continue;
    const bucket = managerIdentifier({ manager: "ancient-changes", operation: "Update", apiVersion: vs.apiVersion, subresource: "" });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      const moved = managed.fields.get(first);
      if (moved !== undefined) managed.fields.set(bucket, moved);
      managed.fields.delete(first);
      managed.times.delete(first);
    }
    const merged = managed.fields.get(bucket)?.set ?? new FieldSet();
    managed.fields.set(bucket, { set: vs.set.union(merged), apiVersion: vs.apiVersion, applied: false });
    managed.times.set(bucket, managed.times.get(id));
    managed.fields.delete(id);
    managed.times.delete(id);
    length--;
  }
}

export interface UpdateInput extends WriteTarget {
  /** The stored object, or the kind's zero object (zeroObject()) for a create. */
  readonly live: JsonObject;
  /** The object about to be stored (defaulted, strategy applied). */
  readonly next: JsonObject;
  /** The managedFields the client sent (undefined: none). */
  readonly sentEntries: unknown;
  /** The live object's managedFields (undefined on create). */
  readonly liveEntries: unknown;
  readonly manager: string;
  /** RFC 3339, seconds precision, UTC. */
  readonly now: string;
}

/**
 * The managedFields after a create, update or non-apply patch (FieldManager.Update with the default managers):
 * the writer takes the fields it changed, the others lose them and whatever the write removed, empty entries go.
 */
export function updateManagedFields(input: UpdateInput): ManagedFieldsEntry[] | undefined {
  const managed = managersForUpdate(input.liveEntries, input.sentEntries, input.subresource);
  let c: Comparison;
  try {
    c = filtered(compare(withoutManagedFields(input.live), withoutManagedFields(input.next), input.schema), input.resetFields);
  } catch (error) {
    // UpdateNoErrors: a comparison that fails keeps the live managers.
    if (error instanceof TypedValueError) return liveOrNothing(input.liveEntries);
    throw error;
  }
  const id = managerIdentifier({ manager: input.manager === "" ? "unknown" : input.manager, operation: "Update", apiVersion: input.apiVersion, subresource: input.subresource });
  // managedfieldsupdater.go: the write is a temporary manager; only if it took something is it merged into the
  // writer's entry and the entry's time set.
  takeFromOthers(managed, c, "", true);
  const took = c.modified.union(c.added).difference(STRIPPED);
  if (!took.isEmpty()) {
    const previous = managed.fields.get(id);
    managed.fields.set(id, { set: previous === undefined ? took : took.union(previous.set), apiVersion: input.apiVersion, applied: false });
    managed.times.set(id, input.now);
  }
  capUpdateManagers(managed);
  return encodeManagedFields(managed);
}

function liveOrNothing(entries: unknown): ManagedFieldsEntry[] | undefined {
  return Array.isArray(entries) && entries.length > 0 ? (entries as ManagedFieldsEntry[]) : undefined;
}

export interface ApplyInput extends WriteTarget {
  /** The stored object without changes, or the kind's zero object when the apply creates it. */
  readonly live: JsonObject;
  readonly liveEntries: unknown;
  /** The applied configuration (metadata.managedFields must be absent). */
  readonly config: JsonObject;
  readonly manager: string;
  readonly force: boolean;
  readonly now: string;
  /** `namespace/name; group/version, Kind=kind`, for the typed-conversion error. */
  readonly objectRef: string;
}

export interface ApplyResult {
  /** The merged object (not defaulted), without managedFields. */
  readonly object: JsonObject;
  readonly managedFields: ManagedFieldsEntry[] | undefined;
  /** False when the apply changed nothing in the object (the entry's time is then kept). */
  readonly changed: boolean;
}

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * Server-side apply (FieldManager.Apply with the default managers, Updater.Apply): merge, prune what this
 * manager applied before and nobody owns now, detect conflicts with other managers, take ownership.
 * Throws ApplyConflictError (409) or ApplyTypeError (500).
 */
export function applyConfiguration(input: ApplyInput): ApplyResult {
  const first = applyOnce(input, input.force);
  if (!(first instanceof ApplyConflictError)) return first;
  // lastappliedmanager.go: `kubectl apply --server-side` over a client-side applied object may take the fields
  // its last-applied annotation lists.
  if (input.manager === "kubectl") {
    const allowed = lastAppliedFields(input.live, input.schema, input.apiVersion);
    if (allowed !== undefined && first.conflicts.every((c) => allowed.has(c.path))) {
      const forced = applyOnce(input, true);
      if (!(forced instanceof ApplyConflictError)) return forced;
    } else if (allowed !== undefined) {
      throw new ApplyConflictError(first.conflicts.filter((c) => !allowed.has(c.path)));
    }
  }
  throw first;
}

/**
 * allowedConflictsFromLastApplied: the fields of the last-applied annotation (of the same apiVersion) whose value
 * the live object still has; undefined when there is no usable annotation (the conflicts then stand).
 */
function lastAppliedFields(live: JsonObject, schema: SsaType, apiVersion: string): FieldSet | undefined {
  const annotations = (live["metadata"] as JsonObject | undefined)?.["annotations"];
  const text = typeof annotations === "object" && annotations !== null && !Array.isArray(annotations) ? annotations[LAST_APPLIED] : undefined;
  if (typeof text !== "string" || text === "") return undefined;
  try {
    const parsed = JSON.parse(text) as JsonValue;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || parsed["apiVersion"] !== apiVersion) return undefined;
    const differ = compare(parsed, withoutManagedFields(live), schema);
    return toFieldSet(parsed, schema, { strict: true }).difference(differ.modified).difference(differ.added).difference(differ.removed);
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypedValueError) return undefined;
    throw error;
  }
}

function applyOnce(input: ApplyInput, force: boolean): ApplyResult | ApplyConflictError {
  const managed = (() => {
    try {
      return decodeManagedFields(input.liveEntries);
    } catch (error) {
      if (error instanceof ManagedFieldsError) return emptyManaged();
      throw error;
    }
  })();
  const live = withoutManagedFields(input.live);
  const schema = input.schema;
  let set: FieldSet;
  try {
    set = toFieldSet(input.config, schema, { strict: true });
  } catch (error) {
    if (error instanceof TypedValueError) throw new ApplyTypeError(input.objectRef, error);
    throw error;
  }
  let merged = merge(live, input.config, schema) as JsonObject;
  const id = managerIdentifier({ manager: input.manager, operation: "Apply", apiVersion: input.apiVersion, subresource: input.subresource });
  const last = managed.fields.get(id);
  set = set.recursiveDifference(input.resetFields);
  managed.fields.set(id, { set, apiVersion: input.apiVersion, applied: true });
  if (last !== undefined && !last.set.isEmpty()) merged = prune(merged, managed, last.set, schema);
  const c = filtered(compare(live, merged, schema), input.resetFields);
  const conflicts = takeFromOthers(managed, c, id, force);
  if (conflicts.length > 0) return new ApplyConflictError(sortConflicts(conflicts));
  // stripmeta.go: the applier never owns identity and server-set metadata.
  const mine = managed.fields.get(id);
  if (mine !== undefined) {
    const kept = mine.set.difference(STRIPPED);
    if (kept.isEmpty()) {
      managed.fields.delete(id);
      managed.times.delete(id);
    } else {
      managed.fields.set(id, { ...mine, set: kept });
    }
  }
  const changed = !jsonEqual(live, merged);
  if (changed && managed.fields.has(id)) managed.times.set(id, input.now);
  if (input.manager === "kubectl") merged = syncLastApplied(merged, input.config);
  return { object: merged, managedFields: encodeManagedFields(managed), changed };
}

/** Conflicts in a stable order: by manager identifier, then path (upstream iterates a Go map). */
function sortConflicts(conflicts: Conflict[]): Conflict[] {
  return conflicts.sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
}

/**
 * merge/update.go prune with addBackOwnedItems and addBackDanglingItems: remove what the applier owned last time
 * and no manager (the applier's new configuration included) owns now; fields only set by defaulting stay.
 */
function prune(merged: JsonObject, managed: Managed, lastSet: FieldSet, schema: SsaType): JsonObject {
  const last = ensureNamedFieldsAreMembers(lastSet, schema);
  const pruned1 = (removeItems(merged, last, schema) ?? {}) as JsonObject;
  let owned = new FieldSet();
  for (const vs of managed.fields.values()) owned = owned.union(vs.set);
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, schema), schema);
  const pruned1Set = ensureNamedFieldsAreMembers(toFieldSet(pruned1, schema), schema);
  const ownedE = ensureNamedFieldsAreMembers(owned, schema);
  const pruned2 = (removeItems(merged, mergedSet.difference(pruned1Set.union(ownedE)), schema) ?? {}) as JsonObject;
  const pruned2Set = ensureNamedFieldsAreMembers(toFieldSet(pruned2, schema), schema);
  return (removeItems(merged, mergedSet.difference(pruned2Set).intersection(last), schema) ?? {}) as JsonObject;
}

/** lastappliedupdater.go: kubectl's apply keeps an existing last-applied annotation in step with the configuration. */
function syncLastApplied(obj: JsonObject, config: JsonObject): JsonObject {
  const metadata = obj["metadata"] as JsonObject | undefined;
  const annotations = metadata?.["annotations"];
  if (metadata === undefined || typeof annotations !== "object" || annotations === null || Array.isArray(annotations) || typeof annotations[LAST_APPLIED] !== "string") return obj;
  const configMeta = (config["metadata"] ?? {}) as JsonObject;
  let stripped = config;
  const given = configMeta["annotations"];
  if (typeof given === "object" && given !== null && !Array.isArray(given)) {
    const configAnnotations = { ...given };
    delete configAnnotations[LAST_APPLIED];
    stripped = { ...config, metadata: { ...configMeta, annotations: configAnnotations } };
  }
  return { ...obj, metadata: { ...metadata, annotations: { ...annotations, [LAST_APPLIED]: `${sortedJson(stripped)}\n` } } };
}

/** JSON as Go's json.Encoder writes an unstructured object: maps sorted by key, HTML-safe strings. */
function sortedJson(value: JsonValue): string {
  if (typeof value === "string") return goJsonString(value);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${goJsonString(k)}:${sortedJson(value[k] ?? null)}`)
    .join(",")}}`;
}

// ---- scale (managedfields/scalehandler.go) ----

const REPLICAS: Path = [field("spec"), field("replicas")];

export interface ScaleInput {
  readonly liveEntries: unknown;
  /** The parent's group/version ("apps/v1"). */
  readonly apiVersion: string;
  readonly oldReplicas: JsonValue | undefined;
  readonly newReplicas: JsonValue | undefined;
  readonly manager: string;
  readonly now: string;
}

/**
 * The parent's managedFields after a write to /scale: ToSubresource, the Scale update, ToParent. Only
 * `.spec.replicas` moves; the manager that changed it owns it with subresource "scale" in the parent's version.
 * As upstream's ToParent does, a scale entry keeps the time the parent had for it (none for a new entry).
 */
export function scaleManagedFields(input: ScaleInput): ManagedFieldsEntry[] | undefined {
  let parent: Managed;
  try {
    parent = decodeManagedFields(input.liveEntries);
  } catch (error) {
    if (error instanceof ManagedFieldsError) return liveOrNothing(input.liveEntries);
    throw error;
  }
  // ToSubresource: the managers of replicas, as Scale managers.
  const scale = emptyManaged();
  for (const [id, vs] of parent.fields) {
    if (vs.apiVersion === input.apiVersion && vs.set.has(REPLICAS)) {
      scale.fields.set(id, { set: FieldSet.of(REPLICAS), apiVersion: "autoscaling/v1", applied: vs.applied });
      scale.times.set(id, parent.times.get(id));
    }
  }
  // The Scale update.
  const changed = !(input.oldReplicas !== undefined && input.newReplicas !== undefined && jsonEqual(input.oldReplicas, input.newReplicas));
  if (changed) {
    const c: Comparison = { added: new FieldSet(), modified: FieldSet.of(REPLICAS), removed: new FieldSet() };
    takeFromOthers(scale, c, "", true);
    const id = managerIdentifier({ manager: input.manager === "" ? "unknown" : input.manager, operation: "Update", apiVersion: "autoscaling/v1", subresource: "scale" });
    scale.fields.set(id, { set: FieldSet.of(REPLICAS), apiVersion: "autoscaling/v1", applied: false });
    scale.times.set(id, input.now);
  }
  capUpdateManagers(scale);
  // ToParent.
  const out = emptyManaged();
  const scaleLeft = new Map(scale.fields);
  for (const [id, vs] of parent.fields) {
    if (vs.apiVersion !== input.apiVersion || !vs.set.has(REPLICAS)) {
      out.fields.set(id, vs);
      out.times.set(id, parent.times.get(id));
      continue;
    }
    if (!scaleLeft.has(id)) {
      const rest = vs.set.difference(FieldSet.of(REPLICAS));
      if (!rest.isEmpty()) {
        out.fields.set(id, { ...vs, set: rest });
        out.times.set(id, parent.times.get(id));
      }
    } else {
      out.fields.set(id, vs);
      out.times.set(id, parent.times.get(id));
      scaleLeft.delete(id);
    }
  }
  for (const [id, vs] of scaleLeft) {
    if (!vs.set.has(REPLICAS)) continue;
    const info = parseIdentifier(id);
    const parentId = managerIdentifier({ manager: info.manager ?? "", operation: vs.applied ? "Apply" : "Update", apiVersion: input.apiVersion, subresource: info.subresource ?? "" });
    out.fields.set(parentId, { set: FieldSet.of(REPLICAS), apiVersion: input.apiVersion, applied: vs.applied });
    out.times.set(parentId, parent.times.get(id));
  }
  return encodeManagedFields(out);
}
