// Where the served types hold resource.Quantity values. One walker feeds both canonicalization (what the
// apiserver stores) and decode errors (what it rejects with 400 before validation runs).

import { get, getArray, getObject, objectsIn, set, sortedKeys, type JsonObject } from "./json.ts";
import { ERR_FORMAT_WRONG, canonicalQuantity, canonicalQuantityExact, parseQuantity, quantityText } from "./quantity.ts";
import type { ResourceId } from "./resources.ts";

/** `list`: an entry of a ResourceList (rounded up to milli-units); `exact`: a lone Quantity field. */
export type QuantityKind = "list" | "exact";

export type QuantityVisitor = (holder: JsonObject, key: string, kind: QuantityKind) => void;

function visitList(holder: JsonObject | undefined, visit: QuantityVisitor): void {
  if (holder === undefined) return;
  for (const name of sortedKeys(holder)) visit(holder, name, "list");
}

function visitResourceLists(requirements: JsonObject | undefined, visit: QuantityVisitor): void {
  visitList(getObject(requirements, "limits"), visit);
  visitList(getObject(requirements, "requests"), visit);
}

function visitDownwardItems(items: unknown, visit: QuantityVisitor): void {
  for (const item of objectsIn(items)) {
    const ref = getObject(item, "resourceFieldRef");
    if (ref !== undefined && get(ref, "divisor") !== undefined) visit(ref, "divisor", "exact");
  }
}

const CONTAINER_LISTS = ["initContainers", "containers", "ephemeralContainers"] as const;

/** Quantities inside a PodSpec (pods and every pod template). */
export function visitPodSpecQuantities(spec: JsonObject | undefined, visit: QuantityVisitor): void {
  if (spec === undefined) return;
  for (const listName of CONTAINER_LISTS) {
    for (const container of objectsIn(get(spec, listName))) {
      visitResourceLists(getObject(container, "resources"), visit);
      for (const env of objectsIn(get(container, "env"))) {
        visitDownwardItems([getObject(env, "valueFrom") ?? {}], visit);
      }
    }
  }
  for (const volume of objectsIn(get(spec, "volumes"))) {
    const emptyDir = getObject(volume, "emptyDir");
    if (emptyDir !== undefined && get(emptyDir, "sizeLimit") !== undefined) visit(emptyDir, "sizeLimit", "exact");
    visitDownwardItems(get(getObject(volume, "downwardAPI"), "items"), visit);
    for (const source of objectsIn(get(getObject(volume, "projected"), "sources"))) {
      visitDownwardItems(get(getObject(source, "downwardAPI"), "items"), visit);
    }
    const claimTemplate = getObject(getObject(volume, "ephemeral"), "volumeClaimTemplate");
    visitResourceLists(getObject(getObject(claimTemplate, "spec"), "resources"), visit);
  }
  visitList(getObject(spec, "overhead"), visit);
  visitResourceLists(getObject(spec, "resources"), visit);
}

function visitClaimQuantities(claim: JsonObject | undefined, visit: QuantityVisitor): void {
  visitResourceLists(getObject(getObject(claim, "spec"), "resources"), visit);
  const status = getObject(claim, "status");
  visitList(getObject(status, "capacity"), visit);
  visitList(getObject(status, "allocatedResources"), visit);
}

/** Every Quantity of a served object. */
export function visitQuantities(resource: ResourceId, obj: JsonObject, visit: QuantityVisitor): void {
  switch (resource) {
    case "pods": {
      visitPodSpecQuantities(getObject(obj, "spec"), visit);
      const status = getObject(obj, "status");
      for (const listName of ["initContainerStatuses", "containerStatuses", "ephemeralContainerStatuses"]) {
        for (const containerStatus of objectsIn(get(status, listName))) {
          visitList(getObject(containerStatus, "allocatedResources"), visit);
          visitResourceLists(getObject(containerStatus, "resources"), visit);
        }
      }
      return;
    }
    case "deployments":
      visitPodSpecQuantities(getObject(getObject(getObject(obj, "spec"), "template"), "spec"), visit);
      return;
    case "statefulsets": {
      const spec = getObject(obj, "spec");
      visitPodSpecQuantities(getObject(getObject(spec, "template"), "spec"), visit);
      for (const claim of objectsIn(getArray(spec, "volumeClaimTemplates"))) visitClaimQuantities(claim, visit);
      return;
    }
    case "persistentvolumeclaims":
      visitClaimQuantities(obj, visit);
      return;
    case "persistentvolumes":
      visitList(getObject(getObject(obj, "spec"), "capacity"), visit);
      return;
    case "nodes": {
      const status = getObject(obj, "status");
      visitList(getObject(status, "capacity"), visit);
      visitList(getObject(status, "allocatable"), visit);
      return;
    }
    case "namespaces":
    case "services":
    case "configmaps":
    case "events":
    case "controllerrevisions":
    case "leases":
    case "secrets":
    case "unknown":
      return;
  }
}

/** Rewrites every quantity the way the apiserver stores it; JSON null decodes to a zero Quantity. */
export function canonicalizeQuantities(resource: ResourceId, obj: JsonObject): void {
  visitQuantities(resource, obj, (holder, key, kind) => {
    const value = get(holder, key);
    if (value === null) {
      set(holder, key, "0");
      return;
    }
    const text = quantityText(value);
    if (text === undefined) return;
    set(holder, key, kind === "list" ? canonicalQuantity(text) : canonicalQuantityExact(text));
  });
}

/** The first quantity Go's decoder would reject, as its error text. */
export function firstQuantityError(resource: ResourceId, obj: JsonObject): string | undefined {
  let error: string | undefined;
  visitQuantities(resource, obj, (holder, key) => {
    if (error !== undefined) return;
    const value = get(holder, key);
    if (value === null) return;
    const text = quantityText(value);
    if (text === undefined) {
      // UnmarshalJSON hands the raw JSON (`true`, `{}`) to ParseQuantity, which rejects its format.
      error = ERR_FORMAT_WRONG;
      return;
    }
    const parsed = parseQuantity(text);
    if (!parsed.ok) error = parsed.error;
  });
  return error;
}
