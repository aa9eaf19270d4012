// The one place that binds the simulator to the api/ and patch/ modules, plus lookups the router needs.
import {
  RESOURCES,
  canonicalQuantity,
  invalidStatus,
  prepareForCreate,
  prepareForUpdate,
  validateCreate,
  validateUpdate,
} from "./shim/api.ts";
import type { ResourceInfo } from "./shim/api.ts";
import { PatchError, applyPatch, patchTypeFromContentType } from "./shim/patch.ts";

export type { ResourceInfo };
export {
  RESOURCES,
  PatchError,
  applyPatch,
  canonicalQuantity,
  invalidStatus,
  patchTypeFromContentType,
  prepareForCreate,
  prepareForUpdate,
  validateCreate,
  validateUpdate,
};

/** `group/version`, or `version` for the legacy core group. */
export function groupVersion(info: Pick<ResourceInfo, "group" | "version">): string {
  return info.group === "" ? info.version : `${info.group}/${info.version}`;
}

/** `resource.group` as the apiserver prints it in messages (`statefulsets.apps`, `pods`). */
export function qualifiedResource(info: Pick<ResourceInfo, "group" | "resource">): string {
  return info.group === "" ? info.resource : `${info.resource}.${info.group}`;
}

/** Storage key: one bucket per group and resource (all versions share it). */
export function resourceKey(info: Pick<ResourceInfo, "group" | "resource">): string {
  return `${info.group}/${info.resource}`;
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
