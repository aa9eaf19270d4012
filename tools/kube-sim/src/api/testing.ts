// Helpers shared by this module's tests (not exported from index.ts).

import { findResource, type ResourceInfo } from "./resources.ts";

/** The served resource, or a test failure naming what is missing. */
export function served(group: string, resource: string): ResourceInfo {
  const found = findResource(group, resource);
  if (found === undefined) throw new Error(`${group}/${resource} is not served`);
  return found;
}

export const PODS = served("", "pods");
export const CLAIMS = served("", "persistentvolumeclaims");
export const VOLUMES = served("", "persistentvolumes");
export const SERVICES = served("", "services");
export const NAMESPACES = served("", "namespaces");
export const CONFIGMAPS = served("", "configmaps");
export const CORE_EVENTS = served("", "events");
export const EVENTS_V1 = served("events.k8s.io", "events");
export const STATEFULSETS = served("apps", "statefulsets");
export const REVISIONS = served("apps", "controllerrevisions");
export const LEASES = served("coordination.k8s.io", "leases");
