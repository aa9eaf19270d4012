// TEMPORARY stand-in for ../api (written in parallel by another engineer); removed once it lands.
import type { Cause, KubeObject, Status } from "../types.ts";

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
  categories: string[];
}

const ALL = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const r = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  shortNames: string[] = [],
  subresources: string[] = [],
  categories: string[] = [],
): ResourceInfo => ({
  group,
  version,
  resource,
  kind,
  namespaced,
  shortNames,
  singular: kind.toLowerCase(),
  verbs: resource === "namespaces" ? ALL.filter((v) => v !== "deletecollection") : ALL,
  subresources,
  categories,
});

export const RESOURCES: ResourceInfo[] = [
  r("", "v1", "namespaces", "Namespace", false, ["ns"], ["status", "finalize"]),
  r("", "v1", "pods", "Pod", true, ["po"], ["status", "log", "eviction"], ["all"]),
  r("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, ["pvc"], ["status"]),
  r("", "v1", "persistentvolumes", "PersistentVolume", false, ["pv"], ["status"]),
  r("", "v1", "services", "Service", true, ["svc"], ["status"], ["all"]),
  r("", "v1", "configmaps", "ConfigMap", true, ["cm"]),
  r("", "v1", "events", "Event", true, ["ev"]),
  r("", "v1", "nodes", "Node", false, ["no"], ["status"]),
  r("apps", "v1", "statefulsets", "StatefulSet", true, ["sts"], ["status", "scale"], ["all"]),
  r("apps", "v1", "controllerrevisions", "ControllerRevision", true),
  r("coordination.k8s.io", "v1", "leases", "Lease", true),
  r("events.k8s.io", "v1", "events", "Event", true, ["ev"]),
];

export function prepareForCreate(_info: ResourceInfo, obj: KubeObject): KubeObject {
  if (_info.resource === "statefulsets") obj.metadata.generation = 1;
  return obj;
}

export function prepareForUpdate(
  info: ResourceInfo,
  sub: string,
  newObj: KubeObject,
  oldObj: KubeObject,
): KubeObject {
  if (sub === "status") {
    if ("spec" in oldObj) newObj["spec"] = oldObj["spec"];
  } else if ("status" in oldObj) {
    newObj["status"] = oldObj["status"];
  }
  if (info.resource === "statefulsets") {
    const gen = oldObj.metadata.generation ?? 1;
    newObj.metadata.generation = JSON.stringify(newObj["spec"]) === JSON.stringify(oldObj["spec"]) ? gen : gen + 1;
  }
  return newObj;
}

export function validateCreate(info: ResourceInfo, obj: KubeObject): Cause[] {
  if (info.resource !== "statefulsets") return [];
  const sel = JSON.stringify((obj["spec"] as { selector?: { matchLabels?: unknown } }).selector?.matchLabels ?? {});
  const labels = (obj["spec"] as { template?: { metadata?: { labels?: Record<string, string> } } }).template?.metadata?.labels ?? {};
  const want = JSON.parse(sel) as Record<string, string>;
  for (const [k, v] of Object.entries(want)) {
    if (labels[k] !== v) {
      return [
        {
          reason: "FieldValueInvalid",
          message: `Invalid value: map[string]string{${Object.entries(labels).map(([a, b]) => `"${a}":"${b}"`).join(", ")}}: \`selector\` does not match template \`labels\``,
          field: "spec.template.metadata.labels",
        },
      ];
    }
  }
  return [];
}

export function validateUpdate(info: ResourceInfo, sub: string, newObj: KubeObject, oldObj: KubeObject): Cause[] {
  if (info.resource === "statefulsets" && sub === "") {
    const strip = (o: KubeObject) => {
      const s = { ...(o["spec"] as Record<string, unknown>) };
      delete s["replicas"];
      delete s["template"];
      delete s["updateStrategy"];
      delete s["persistentVolumeClaimRetentionPolicy"];
      delete s["minReadySeconds"];
      delete s["ordinals"];
      delete s["revisionHistoryLimit"];
      return JSON.stringify(s);
    };
    if (strip(newObj) !== strip(oldObj)) {
      return [
        {
          reason: "FieldValueForbidden",
          message:
            "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
          field: "spec",
        },
      ];
    }
  }
  return validateCreate(info, newObj);
}

export function invalidStatus(info: ResourceInfo, name: string, causes: Cause[]): Status {
  const gk = info.group === "" ? info.kind : `${info.kind}.${info.group}`;
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `${gk} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}`,
    reason: "Invalid",
    details: { name, group: info.group, kind: info.kind, causes },
    code: 422,
  };
}

export function canonicalQuantity(q: string): string {
  return q;
}
