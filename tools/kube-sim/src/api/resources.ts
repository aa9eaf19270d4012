// The served resources, as discovery (`/api/v1`, `/apis/<group>/<version>`) describes them.

export interface ResourceInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  singular: string;
  verbs: string[];
  subresources: string[];
  categories?: string[];
}

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function info(
  group: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  extra: { shortNames?: string[]; subresources?: string[]; categories?: string[]; verbs?: string[] } = {},
): ResourceInfo {
  return {
    group,
    version: "v1",
    resource,
    kind,
    namespaced,
    shortNames: extra.shortNames ?? [],
    singular: kind.toLowerCase(),
    verbs: extra.verbs ?? ALL_VERBS,
    subresources: extra.subresources ?? [],
    categories: extra.categories ?? [],
  };
}

export const RESOURCES: readonly ResourceInfo[] = [
  info("", "namespaces", "Namespace", false, {
    shortNames: ["ns"],
    subresources: ["finalize", "status"],
    verbs: ALL_VERBS.filter((verb) => verb !== "deletecollection"),
  }),
  info("", "nodes", "Node", false, { shortNames: ["no"], subresources: ["status"] }),
  info("", "pods", "Pod", true, { shortNames: ["po"], subresources: ["eviction", "log", "status"], categories: ["all"] }),
  info("", "persistentvolumeclaims", "PersistentVolumeClaim", true, { shortNames: ["pvc"], subresources: ["status"] }),
  info("", "persistentvolumes", "PersistentVolume", false, { shortNames: ["pv"], subresources: ["status"] }),
  info("", "services", "Service", true, { shortNames: ["svc"], subresources: ["status"], categories: ["all"] }),
  info("", "configmaps", "ConfigMap", true, { shortNames: ["cm"] }),
  info("", "events", "Event", true, { shortNames: ["ev"] }),
  info("", "secrets", "Secret", true),
  info("", "serviceaccounts", "ServiceAccount", true, { shortNames: ["sa"] }),
  info("apps", "statefulsets", "StatefulSet", true, { shortNames: ["sts"], subresources: ["scale", "status"], categories: ["all"] }),
  info("apps", "controllerrevisions", "ControllerRevision", true),
  // What a deployment of stsfleet itself holds (deploy/), served so that `kubectl apply -k` works on an empty
  // simulator (ADR 0091): Deployments and Secrets with their defaults and validation, the other kinds generically.
  // No controller acts on them (a Deployment makes no pods); a Deployment's /scale is not served.
  info("apps", "deployments", "Deployment", true, { shortNames: ["deploy"], subresources: ["status"], categories: ["all"] }),
  info("coordination.k8s.io", "leases", "Lease", true),
  info("events.k8s.io", "events", "Event", true, { shortNames: ["ev"] }),
  info("networking.k8s.io", "networkpolicies", "NetworkPolicy", true, { shortNames: ["netpol"] }),
  info("policy", "poddisruptionbudgets", "PodDisruptionBudget", true, { shortNames: ["pdb"] }),
  info("rbac.authorization.k8s.io", "clusterrolebindings", "ClusterRoleBinding", false),
  info("rbac.authorization.k8s.io", "clusterroles", "ClusterRole", false),
  info("rbac.authorization.k8s.io", "rolebindings", "RoleBinding", true),
  info("rbac.authorization.k8s.io", "roles", "Role", true),
];

/** `group/version`, or just the version for the legacy core group. */
export function groupVersionOf(resource: Pick<ResourceInfo, "group" | "version">): string {
  return resource.group === "" ? resource.version : `${resource.group}/${resource.version}`;
}

/** `GroupKind.String()`: `StatefulSet.apps`, or `Pod` for the core group. */
export function qualifiedKind(resource: Pick<ResourceInfo, "group" | "kind">): string {
  return resource.group === "" ? resource.kind : `${resource.kind}.${resource.group}`;
}

export type ResourceId =
  | "namespaces"
  | "nodes"
  | "pods"
  | "persistentvolumeclaims"
  | "persistentvolumes"
  | "services"
  | "configmaps"
  | "events"
  | "statefulsets"
  | "controllerrevisions"
  | "leases"
  | "secrets"
  | "deployments"
  | "unknown";

/** Which served type a ResourceInfo denotes (both Event APIs are one type with two views). */
export function resourceId(resource: Pick<ResourceInfo, "group" | "resource">): ResourceId {
  const known: Record<string, ResourceId> = {
    "/namespaces": "namespaces",
    "/nodes": "nodes",
    "/pods": "pods",
    "/persistentvolumeclaims": "persistentvolumeclaims",
    "/persistentvolumes": "persistentvolumes",
    "/services": "services",
    "/configmaps": "configmaps",
    "/events": "events",
    "events.k8s.io/events": "events",
    "apps/statefulsets": "statefulsets",
    "apps/controllerrevisions": "controllerrevisions",
    "coordination.k8s.io/leases": "leases",
    "/secrets": "secrets",
    "apps/deployments": "deployments",
  };
  return known[`${resource.group}/${resource.resource}`] ?? "unknown";
}

/** The served resource with this group and plural name (`""` is the core group), if any. */
export function findResource(group: string, resource: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => r.group === group && r.resource === resource);
}

/** Subresource entries of an APIResourceList (`pods/status`, `statefulsets/scale`). */
function subresourceEntry(parent: ResourceInfo, sub: string): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: `${parent.resource}/${sub}`, singularName: "", namespaced: parent.namespaced };
  switch (sub) {
    case "scale":
      return { ...entry, group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] };
    case "eviction":
      return { ...entry, group: "policy", version: "v1", kind: "Eviction", verbs: ["create"] };
    case "log":
      return { ...entry, kind: "Pod", verbs: ["get"] };
    case "finalize":
      return { ...entry, kind: parent.kind, verbs: ["update"] };
    default:
      return { ...entry, kind: parent.kind, verbs: ["get", "patch", "update"] };
  }
}

/** `metav1.APIResourceList` for one group/version, main resources followed by their subresources. */
export function apiResourceList(groupVersion: string): Record<string, unknown> {
  const resources: Record<string, unknown>[] = [];
  for (const resource of RESOURCES.filter((r) => groupVersionOf(r) === groupVersion)) {
    const entry: Record<string, unknown> = {
      name: resource.resource,
      singularName: resource.singular,
      namespaced: resource.namespaced,
      kind: resource.kind,
      verbs: resource.verbs,
    };
    if (resource.shortNames.length > 0) entry["shortNames"] = resource.shortNames;
    if (resource.categories !== undefined && resource.categories.length > 0) entry["categories"] = resource.categories;
    resources.push(entry);
    for (const sub of resource.subresources) resources.push(subresourceEntry(resource, sub));
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion, resources };
}
