// Maps client-node model names to the OpenAPI definition names the apiserver publishes.
import { modelAttributes } from "./models.ts";

const META = new Set([
  "ObjectMeta",
  "ListMeta",
  "LabelSelector",
  "LabelSelectorRequirement",
  "OwnerReference",
  "ManagedFieldsEntry",
  "Status",
  "StatusDetails",
  "StatusCause",
  "DeleteOptions",
  "Preconditions",
  "WatchEvent",
  "Condition",
  "APIResource",
  "APIResourceList",
  "APIGroup",
  "APIGroupList",
  "APIVersions",
  "GroupVersionForDiscovery",
  "ServerAddressByClientCIDR",
  "FieldSelectorRequirement",
]);

const APPS = /^(StatefulSet|ControllerRevision|RollingUpdateStatefulSetStrategy|Deployment|DaemonSet|ReplicaSet|RollingUpdateDeployment|RollingUpdateDaemonSet)/;
const RBAC = /^(ClusterRole|ClusterRoleBinding|Role|RoleBinding)(List)?$|^(RoleRef|PolicyRule|AggregationRule)$/;
const NETWORKING = /^(NetworkPolicy|IPBlock)/;

/** `V1StatefulSet` -> `io.k8s.api.apps.v1.StatefulSet`. */
export function definitionName(model: string): string {
  if (model === "CoreV1Event" || model === "CoreV1EventList" || model === "CoreV1EventSeries") {
    return `io.k8s.api.core.v1.${model.slice("CoreV1".length)}`;
  }
  if (model.startsWith("EventsV1")) return `io.k8s.api.events.v1.${model.slice("EventsV1".length)}`;
  if (model === "RbacV1Subject") return "io.k8s.api.rbac.v1.Subject";
  const m = /^V(\d+(?:(?:alpha|beta)\d+)?)(.+)$/.exec(model);
  if (m === null) return `io.k8s.api.core.v1.${model}`;
  const version = `v${m[1] ?? "1"}`;
  const name = m[2] ?? model;
  if (META.has(name)) return `io.k8s.apimachinery.pkg.apis.meta.${version}.${name}`;
  if (name === "Scale" || name === "ScaleSpec" || name === "ScaleStatus") return `io.k8s.api.autoscaling.${version}.${name}`;
  if (name.startsWith("Lease")) return `io.k8s.api.coordination.${version}.${name}`;
  if (name === "Eviction" || name.startsWith("PodDisruptionBudget")) return `io.k8s.api.policy.${version}.${name}`;
  if (RBAC.test(name)) return `io.k8s.api.rbac.${version}.${name}`;
  if (NETWORKING.test(name)) return `io.k8s.api.networking.${version}.${name}`;
  if (APPS.test(name)) return `io.k8s.api.apps.${version}.${name}`;
  return `io.k8s.api.core.${version}.${name}`;
}

export function modelExists(model: string): boolean {
  return modelAttributes(model) !== undefined;
}
