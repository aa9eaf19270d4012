// The one place that binds the simulator to the api/ and patch/ modules, plus lookups the router needs.
import {
  RESOURCES,
  apiResourceList,
  canonicalQuantity,
  canonicalize,
  parseQuantity,
  convertEvent,
  decodeError,
  invalidStatus as apiInvalidStatus,
  needsClusterIP,
  prepareForCreate as apiPrepareForCreate,
  prepareForUpdate as apiPrepareForUpdate,
  scaleOf as apiScaleOf,
  validateCreate,
  validateUpdate,
} from "./api/index.ts";
import type { ResourceInfo } from "./api/index.ts";
import { PatchError, STRATEGIC_MERGE_STRUCTS, applyPatch, patchTypeFromContentType, unsupportedPatchMediaType } from "./patch/index.ts";
import type { Cause, KubeObject, Status } from "./types.ts";

export type { ResourceInfo };
export { RESOURCES, parseQuantity, PatchError, STRATEGIC_MERGE_STRUCTS, unsupportedPatchMediaType, apiResourceList, applyPatch, canonicalQuantity, canonicalize, decodeError, needsClusterIP, patchTypeFromContentType, validateCreate, validateUpdate };

// Thin adapters: api/ speaks plain JSON records; the registry works on KubeObject and Status.
export function prepareForCreate(info: ResourceInfo, obj: KubeObject): KubeObject {
  return apiPrepareForCreate(info, obj) as KubeObject;
}

export function prepareForUpdate(info: ResourceInfo, sub: string, newObj: KubeObject, oldObj: KubeObject): KubeObject {
  return apiPrepareForUpdate(info, sub, newObj, oldObj) as KubeObject;
}

export function invalidStatus(info: ResourceInfo, name: string, causes: readonly Cause[], sub = ""): Status {
  return apiInvalidStatus(info, name, causes.map((c) => ({ ...c, field: c.field ?? "" })) as Parameters<typeof apiInvalidStatus>[2], sub) as unknown as Status;
}

export function scaleOf(obj: KubeObject): KubeObject {
  return apiScaleOf(obj) as KubeObject;
}

export function categoriesOf(info: ResourceInfo): readonly string[] {
  return info.categories ?? [];
}

/** `group/version`, or `version` for the legacy core group. */
export function groupVersion(info: Pick<ResourceInfo, "group" | "version">): string {
  return info.group === "" ? info.version : `${info.group}/${info.version}`;
}

/** `resource.group` as the apiserver prints it in messages (`statefulsets.apps`, `pods`). */
export function qualifiedResource(info: Pick<ResourceInfo, "group" | "resource">): string {
  return info.group === "" ? info.resource : `${info.resource}.${info.group}`;
}

/**
 * Storage key: one bucket per group and resource (all versions share it). events.k8s.io Events are a
 * second view of core/v1 Events, so both share the core bucket and are stored in the core form.
 */
export function resourceKey(info: Pick<ResourceInfo, "group" | "resource">): string {
  if (info.group === "events.k8s.io" && info.resource === "events") return "/events";
  return `${info.group}/${info.resource}`;
}

/** Whether objects of this resource are stored in another group's form (and need converting). */
export function isEventsView(info: Pick<ResourceInfo, "group" | "resource">): boolean {
  return info.group === "events.k8s.io" && info.resource === "events";
}

/** The stored form of an object written through `info`. */
export function toStorage(info: Pick<ResourceInfo, "group" | "resource">, obj: KubeObject): KubeObject {
  return isEventsView(info) ? (convertEvent(obj, "") as unknown as KubeObject) : obj;
}

/** The served form, through `info`, of a stored object. */
export function toView(info: Pick<ResourceInfo, "group" | "resource">, obj: KubeObject): KubeObject {
  return isEventsView(info) ? (convertEvent(obj, "events.k8s.io") as unknown as KubeObject) : obj;
}

/** The served JSON of a stored entry: the stored bytes, converted only for the events.k8s.io view. */
export function viewJson(info: Pick<ResourceInfo, "group" | "resource">, json: string): string {
  return isEventsView(info) ? JSON.stringify(convertEvent(JSON.parse(json), "events.k8s.io")) : json;
}

/** Field selector labels of the events.k8s.io view, renamed to the stored core/v1 fields. */
export function storageFieldSelector(info: Pick<ResourceInfo, "group" | "resource">, selector: string): string {
  if (!isEventsView(info)) return selector;
  return selector.replace(/(^|,)\s*regarding\./g, "$1involvedObject.").replace(/(^|,)\s*reportingController(?=\s*[=!])/g, "$1reportingComponent");
}

const byPath = new Map<string, ResourceInfo>();
for (const info of RESOURCES) byPath.set(`${groupVersion(info)}/${info.resource}`, info);

export function findResource(gv: string, resource: string): ResourceInfo | undefined {
  return byPath.get(`${gv}/${resource}`);
}

export function findByKind(apiVersion: string, kind: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => groupVersion(r) === apiVersion && r.kind === kind);
}

export function mustFind(group: string, resource: string): ResourceInfo {
  const info = RESOURCES.find((r) => r.group === group && r.resource === resource);
  if (info === undefined) throw new Error(`kube-sim: resource ${resource}.${group} is not served`);
  return info;
}
