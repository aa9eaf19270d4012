// The watcher's view of a Kubernetes object: just enough typed metadata to route it, plus the object itself as the
// API server sent it (managedFields stripped) to publish, and for a StatefulSet who wrote its status (the managers
// and times of its status entries, ADR 0092). Pure: no I/O.
import { OBJECT_KINDS, SubjectError, objectSubjects } from "#protocol";
import type { ObjectKind, ObjectKindToken, StatusManager } from "#protocol";

/** The four kinds the watcher mirrors, by subject token. */
export const WATCHED_KINDS = ["sts", "pod", "pvc", "rev"] as const satisfies readonly ObjectKindToken[];
export type WatchedKind = (typeof WATCHED_KINDS)[number];

/** apiVersion of each kind; list items come without TypeMeta, so the watcher fills it in. */
export const API_VERSIONS: Readonly<Record<WatchedKind, string>> = {
  sts: "apps/v1",
  pod: "v1",
  pvc: "v1",
  rev: "apps/v1",
};

export function kindName(kind: WatchedKind): ObjectKind {
  return OBJECT_KINDS[kind];
}

export interface OwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller: boolean;
}

/** A validated object: identity, routing inputs and the publishable body. */
export interface WatchedObject {
  readonly kind: WatchedKind;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly ownerReferences: readonly OwnerRef[];
  /** The object with managedFields removed and apiVersion/kind set. */
  readonly body: Readonly<Record<string, unknown>>;
  /** A StatefulSet's managedFields entries of subresource `status`, without their field sets; empty for other kinds. */
  readonly statusManagers: readonly StatusManager[];
}

/** `<kind>/<namespace>/<name>`: one subject per shard carries this key. */
export type ObjectKey = string;

export function objectKey(kind: WatchedKind, namespace: string, name: string): ObjectKey {
  return `${kind}/${namespace}/${name}`;
}

export interface ParsedKey {
  readonly kind: WatchedKind;
  readonly namespace: string;
  readonly name: string;
}

export function parseObjectKey(key: ObjectKey): ParsedKey {
  const [kind, namespace, name] = key.split("/");
  if (!isWatchedKind(kind) || !namespace || !name) throw new Error(`malformed object key ${JSON.stringify(key)}`);
  return { kind, namespace, name };
}

export function isWatchedKind(value: unknown): value is WatchedKind {
  return typeof value === "string" && (WATCHED_KINDS as readonly string[]).includes(value);
}

/** Why an object from the API server was not mirrored; also a metrics label. */
export type RejectReason = "not-an-object" | "no-metadata" | "no-name" | "no-namespace" | "no-uid" | "no-resource-version" | "unroutable-name";

export type ParseResult =
  | { readonly ok: true; readonly object: WatchedObject }
  | { readonly ok: false; readonly reason: RejectReason; readonly detail: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!isRecord(value)) return {};
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) if (typeof entry === "string") out[key] = entry;
  return out;
}

function ownerRefs(value: unknown): OwnerRef[] {
  if (!Array.isArray(value)) return [];
  const out: OwnerRef[] = [];
  for (const ref of value as unknown[]) {
    if (!isRecord(ref) || !nonEmptyString(ref["kind"]) || !nonEmptyString(ref["name"])) continue;
    out.push({
      apiVersion: typeof ref["apiVersion"] === "string" ? ref["apiVersion"] : "",
      kind: ref["kind"],
      name: ref["name"],
      uid: typeof ref["uid"] === "string" ? ref["uid"] : "",
      controller: ref["controller"] === true,
    });
  }
  return out;
}

/** Bounds of what is kept of an entry (the field manager's own limit is 128 bytes, apimachinery's validation). */
const MAX_STATUS_MANAGERS = 64;

/**
 * Who wrote the object's status: the entries with subresource `status`, as manager, operation and time only. Their
 * field sets stay behind with the rest of managedFields (a StatefulSet's would double its message).
 */
function statusManagersOf(managedFields: unknown): StatusManager[] {
  if (!Array.isArray(managedFields)) return [];
  const out: StatusManager[] = [];
  for (const entry of managedFields as unknown[]) {
    if (!isRecord(entry) || entry["subresource"] !== "status" || typeof entry["manager"] !== "string") continue;
    out.push({
      manager: entry["manager"].slice(0, 128),
      ...(typeof entry["operation"] === "string" ? { operation: entry["operation"].slice(0, 16) } : {}),
      ...(typeof entry["time"] === "string" ? { time: entry["time"].slice(0, 64) } : {}),
    });
    if (out.length === MAX_STATUS_MANAGERS) break;
  }
  return out;
}

/**
 * Validates an object from a list or watch event and prepares it for publishing. Never throws: a bad object is
 * reported with a reason so the caller can count and log it.
 */
export function parseWatchedObject(kind: WatchedKind, raw: unknown): ParseResult {
  if (!isRecord(raw)) return { ok: false, reason: "not-an-object", detail: typeof raw };
  const metadata = raw["metadata"];
  if (!isRecord(metadata)) return { ok: false, reason: "no-metadata", detail: "metadata is missing" };
  const { name, namespace, uid, resourceVersion } = metadata;
  if (!nonEmptyString(name)) return { ok: false, reason: "no-name", detail: "metadata.name is missing" };
  if (!nonEmptyString(namespace)) return { ok: false, reason: "no-namespace", detail: `${name}: metadata.namespace is missing` };
  if (!nonEmptyString(uid)) return { ok: false, reason: "no-uid", detail: `${namespace}/${name}: metadata.uid is missing` };
  if (!nonEmptyString(resourceVersion)) {
    return { ok: false, reason: "no-resource-version", detail: `${namespace}/${name}: metadata.resourceVersion is missing` };
  }
  try {
    objectSubjects.build({ shard: 0, kind, namespace, name });
  } catch (error) {
    if (!(error instanceof SubjectError)) throw error;
    return { ok: false, reason: "unroutable-name", detail: error.problem };
  }
  const { managedFields: _dropped, ...keptMetadata } = metadata;
  const body: Record<string, unknown> = {
    ...raw,
    apiVersion: nonEmptyString(raw["apiVersion"]) ? raw["apiVersion"] : API_VERSIONS[kind],
    kind: nonEmptyString(raw["kind"]) ? raw["kind"] : kindName(kind),
    metadata: keptMetadata,
  };
  return {
    ok: true,
    object: {
      kind,
      namespace,
      name,
      uid,
      resourceVersion,
      labels: stringRecord(metadata["labels"]),
      ownerReferences: ownerRefs(metadata["ownerReferences"]),
      body,
      statusManagers: kind === "sts" ? statusManagersOf(metadata["managedFields"]) : [],
    },
  };
}

/** Upstream `metav1.GetControllerOf`: the first owner reference marked as controller. */
export function controllerOf(object: WatchedObject): OwnerRef | undefined {
  return object.ownerReferences.find((ref) => ref.controller);
}
