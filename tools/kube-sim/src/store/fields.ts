// Selectable fields per resource, as the apiserver registers them (GetAttrs / field label conversion funcs).
import type { KubeObject } from "../types.ts";
import { getPath } from "../types.ts";

const COMMON = ["metadata.name", "metadata.namespace"] as const;

const EXTRA: Record<string, readonly string[]> = {
  "/pods": [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "spec.hostNetwork",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  ],
  "/events": [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
  ],
  "events.k8s.io/events": [
    "regarding.kind",
    "regarding.namespace",
    "regarding.name",
    "regarding.uid",
    "regarding.apiVersion",
    "regarding.resourceVersion",
    "regarding.fieldPath",
    "reason",
    "reportingController",
    "type",
  ],
  "/namespaces": ["status.phase"],
  "/nodes": ["spec.unschedulable"],
  "/persistentvolumes": ["spec.storageClassName"],
};

const allowedCache = new Map<string, ReadonlySet<string>>();

export function selectableFields(resourceKey: string): ReadonlySet<string> {
  let set = allowedCache.get(resourceKey);
  if (set === undefined) {
    set = new Set([...COMMON, ...(EXTRA[resourceKey] ?? [])]);
    allowedCache.set(resourceKey, set);
  }
  return set;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

export function extractFields(resourceKey: string, obj: KubeObject): Record<string, string> {
  const out: Record<string, string> = {
    "metadata.name": obj.metadata.name ?? "",
    "metadata.namespace": obj.metadata.namespace ?? "",
  };
  for (const field of EXTRA[resourceKey] ?? []) {
    if (field === "source") {
      out[field] = text(getPath(obj, ["source", "component"]));
      continue;
    }
    out[field] = text(getPath(obj, field.split(".")));
  }
  if (resourceKey === "/pods" && out["spec.hostNetwork"] === "") out["spec.hostNetwork"] = "false";
  return out;
}
