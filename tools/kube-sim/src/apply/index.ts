// Server-side apply and managedFields for kube-sim: what the registry calls on every tracked write.
// The decisions are in managed.ts and typed.ts (pure); this file binds them to the served resources.
// See docs/adr/0086-server-side-apply-in-kube-sim.md.
import type { JsonObject } from "../patch/json.ts";
import type { ResourceInfo } from "../resources.ts";
import type { ApplyResult, ManagedFieldsEntry } from "./managed.ts";
import { applyConfiguration, scaleManagedFields, updateManagedFields } from "./managed.ts";
import { resetFields, serverSetOnCreate, zeroObject } from "./resources.ts";
import { schemaFor } from "./schema.ts";

type Info = Pick<ResourceInfo, "group" | "version" | "resource" | "kind">;
type ObjectWithMeta = { metadata: Record<string, unknown> } & Record<string, unknown>;

function groupVersion(info: Info): string {
  return info.group === "" ? info.version : `${info.group}/${info.version}`;
}

/** Stores `entries` as the object's managedFields (none: the field is absent, as Go's omitempty leaves it). */
export function setManagedFields(obj: ObjectWithMeta, entries: readonly ManagedFieldsEntry[] | undefined): void {
  if (entries === undefined || entries.length === 0) delete obj.metadata["managedFields"];
  else obj.metadata["managedFields"] = entries;
}

/** The managedFields a request sent (before the Go round trip, which drops an empty list: `[]` asks for a reset). */
function sentEntries(requestBody: unknown): unknown {
  const metadata = typeof requestBody === "object" && requestBody !== null ? (requestBody as { metadata?: unknown }).metadata : undefined;
  return typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>)["managedFields"] : undefined;
}

/** managedFields of a create by `manager`: compared with the kind's zero object. */
export function trackCreate(info: Info, requestBody: unknown, prepared: ObjectWithMeta, manager: string, now: string): void {
  const entries = updateManagedFields({
    schema: schemaFor(info),
    apiVersion: groupVersion(info),
    subresource: "",
    resetFields: resetFields(info, "").union(serverSetOnCreate(info, requestBody)),
    live: zeroObject(info),
    next: prepared as unknown as JsonObject,
    sentEntries: sentEntries(requestBody),
    liveEntries: undefined,
    manager,
    now,
  });
  setManagedFields(prepared, entries);
}

/** managedFields of an update or non-apply patch of the main resource or /status; `request` is the object as sent (or patched). */
export function trackUpdate(info: Info, subresource: string, current: ObjectWithMeta, request: unknown, prepared: ObjectWithMeta, manager: string, now: string): void {
  const entries = updateManagedFields({
    schema: schemaFor(info),
    apiVersion: groupVersion(info),
    subresource,
    resetFields: resetFields(info, subresource),
    live: current as unknown as JsonObject,
    next: prepared as unknown as JsonObject,
    sentEntries: sentEntries(request),
    liveEntries: current.metadata["managedFields"],
    manager,
    now,
  });
  setManagedFields(prepared, entries);
}

/** managedFields of the parent after a write to /scale. */
export function trackScale(info: Info, current: ObjectWithMeta, next: ObjectWithMeta, manager: string, now: string): void {
  const replicas = (o: ObjectWithMeta) => (o["spec"] as Record<string, unknown> | undefined)?.["replicas"] as number | undefined;
  setManagedFields(next, scaleManagedFields({ liveEntries: current.metadata["managedFields"], apiVersion: groupVersion(info), oldReplicas: replicas(current), newReplicas: replicas(next), manager, now }));
}

/** `config` applied by `manager` to `live` (undefined: the apply creates the object). */
export function applyToObject(info: Info, subresource: string, live: ObjectWithMeta | undefined, config: JsonObject, manager: string, force: boolean, now: string): ApplyResult {
  const meta = (config["metadata"] ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return applyConfiguration({
    schema: schemaFor(info),
    apiVersion: groupVersion(info),
    subresource,
    resetFields: resetFields(info, subresource),
    live: live === undefined ? zeroObject(info) : (live as unknown as JsonObject),
    liveEntries: live?.metadata["managedFields"],
    config,
    manager,
    force,
    now,
    objectRef: `${text(meta["namespace"])}/${text(meta["name"])}; ${info.group}/${info.version}, Kind=${info.kind}`,
  });
}

export { ApplyConflictError, ApplyTypeError, ManagedFieldsError } from "./managed.ts";
export type { ApplyResult, ManagedFieldsEntry } from "./managed.ts";
export { managerOrUserAgent, validateFieldManager, validatePatchOptions } from "./options.ts";
export type { OptionCause } from "./options.ts";
