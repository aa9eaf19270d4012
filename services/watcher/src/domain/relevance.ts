// Which changes of an object the owners can act on (docs/adr/0090-quiet-changes-are-not-published.md). A pod is
// bound to a node and a claim to a volume between the changes the StatefulSet controller reads: upstream's
// controller reads neither `spec.nodeName` nor a claim's binding, and neither do the actor's planner or executors,
// so publishing those versions costs a stream store, a delivery, a decode and a turn for a plan that comes out the
// same. Such a change is "quiet": the mirror keeps the new version (a later publish, or a re-read, sends it) and the
// subject keeps the last version that differed in what owners read.
//
// The rule is a short list of fields that are known not to matter, not a list of the fields that do: a field this
// list does not name always counts as a change, so a planner that starts reading a new field stays correct.
// Pure: plain data in, a boolean out.
import { assertNever } from "#protocol";
import type { WatchedKind } from "./objects.ts";

type Body = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Structural equality of JSON values (objects compared by keys, not by key order). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false;
  }
  return true;
}

/** `record` without `omit`'s keys (a missing record reads as empty). */
function without(record: unknown, omit: readonly string[]): Record<string, unknown> {
  if (!isRecord(record)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) if (!omit.includes(key)) out[key] = value;
  return out;
}

/** Every resourceVersion moves; managedFields are stripped before the mirror (objects.ts), listed here for a body that kept them. */
const METADATA_NOISE = ["resourceVersion", "managedFields"] as const;

/** What of a pod the owners read: everything but the binding and the kubelet's status beyond phase and Ready. */
function podProjection(body: Body): unknown {
  const status = isRecord(body["status"]) ? body["status"] : {};
  const conditions = Array.isArray(status["conditions"]) ? status["conditions"] : [];
  const ready = conditions.find((condition): condition is Record<string, unknown> => isRecord(condition) && condition["type"] === "Ready");
  return {
    ...without(body, ["metadata", "spec", "status"]),
    metadata: without(body["metadata"], METADATA_NOISE),
    // The scheduler's binding: the controller never reads where a pod runs.
    spec: without(body["spec"], ["nodeName"]),
    // Upstream reads the phase (created, running, failed, succeeded) and the Ready condition (its status and, for
    // minReadySeconds, when it last changed); the kubelet's addresses, container statuses and other conditions are
    // for other readers.
    status: { phase: status["phase"], ready: ready ? { status: ready["status"], lastTransitionTime: ready["lastTransitionTime"] } : undefined },
  };
}

/** Annotation prefixes the volume binder and provisioners write on a claim as it binds. */
const BINDING_ANNOTATION_PREFIXES = ["pv.kubernetes.io/", "volume.kubernetes.io/", "volume.beta.kubernetes.io/"] as const;

/** What of a claim the owners read: everything but its binding (volume name, status, the binder's annotations). */
function claimProjection(body: Body): unknown {
  const metadata = without(body["metadata"], METADATA_NOISE);
  if (isRecord(metadata["annotations"])) {
    const kept = Object.entries(metadata["annotations"]).filter(([key]) => !BINDING_ANNOTATION_PREFIXES.some((prefix) => key.startsWith(prefix)));
    // The binder's annotations may be a claim's only ones: none left reads as none at all.
    if (kept.length > 0) metadata["annotations"] = Object.fromEntries(kept);
    else delete metadata["annotations"];
  }
  return {
    ...without(body, ["metadata", "spec", "status"]),
    metadata,
    spec: without(body["spec"], ["volumeName"]),
  };
}

/**
 * True when `next` differs from `previous` only in what no owner reads: publishing it would change no decision.
 * StatefulSets and ControllerRevisions always count (the status-writer's and the planner's inputs are all over them).
 */
export function sameForOwners(kind: WatchedKind, previous: Body, next: Body): boolean {
  switch (kind) {
    case "pod":
      return jsonEqual(podProjection(previous), podProjection(next));
    case "pvc":
      return jsonEqual(claimProjection(previous), claimProjection(next));
    case "sts":
    case "rev":
      return false;
    default:
      return assertNever(kind, "watched kind");
  }
}
