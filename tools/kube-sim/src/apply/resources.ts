// Per-kind facts the field manager needs for the served resources: the fields each endpoint's strategy resets
// (GetResetFields of pkg/registry/*/strategy.go), the Go zero object a create is compared with (what
// runtime.DefaultUnstructuredConverter makes of `&T{}`: value structs present, `json:"x"` slices null), and
// the fields a create's admission and REST storage set after the field manager ran (so nobody owns them).
import type { JsonObject } from "../patch/json.ts";
import type { ResourceInfo } from "../resources.ts";
import type { Path } from "./fieldpath.ts";
import { FieldSet, field } from "./fieldpath.ts";

type Kind = Pick<ResourceInfo, "group" | "resource">;

function key(info: Kind): string {
  return `${info.group}/${info.resource}`;
}

/** Resources whose main endpoint resets status and whose /status endpoint resets spec. */
const STATUS_SPLIT: ReadonlySet<string> = new Set([
  "/pods",
  "apps/statefulsets",
  "apps/deployments",
  "/persistentvolumeclaims",
  "/persistentvolumes",
  "/namespaces",
  "/services",
  "/nodes",
]);

const STATUS = FieldSet.of([field("status")]);
const SPEC = FieldSet.of([field("spec")]);
// podStatusStrategy.GetResetFields also resets these two metadata fields.
const POD_STATUS = FieldSet.of([field("spec")], [field("metadata"), field("deletionTimestamp")], [field("metadata"), field("ownerReferences")]);
const NOTHING = new FieldSet();

export function resetFields(info: Kind, subresource: string): FieldSet {
  if (!STATUS_SPLIT.has(key(info))) return NOTHING;
  if (subresource === "status") return key(info) === "/pods" ? POD_STATUS : SPEC;
  return STATUS;
}

const ZERO: Readonly<Record<string, JsonObject>> = {
  "/pods": { metadata: {}, spec: { containers: null }, status: {} },
  "apps/statefulsets": { metadata: {}, spec: { selector: null, template: { metadata: {}, spec: { containers: null } }, updateStrategy: {} }, status: {} },
  "/services": { metadata: {}, spec: {}, status: { loadBalancer: {} } },
  "/persistentvolumeclaims": { metadata: {}, spec: { resources: {} }, status: {} },
  "/persistentvolumes": { metadata: {}, spec: {}, status: {} },
  "/namespaces": { metadata: {}, spec: {}, status: {} },
  "/nodes": { metadata: {}, spec: {}, status: { daemonEndpoints: { kubeletEndpoint: {} }, nodeInfo: {} } },
  "/events": { metadata: {}, involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null },
  "events.k8s.io/events": { metadata: {}, eventTime: null, regarding: {}, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null },
  "coordination.k8s.io/leases": { metadata: {}, spec: {} },
  "apps/controllerrevisions": { metadata: {}, data: null },
  "apps/deployments": { metadata: {}, spec: { selector: null, template: { metadata: {}, spec: { containers: null } }, strategy: {} }, status: {} },
  "policy/poddisruptionbudgets": { metadata: {}, spec: {}, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } },
  "networking.k8s.io/networkpolicies": { metadata: {}, spec: { podSelector: {} } },
  "rbac.authorization.k8s.io/clusterroles": { metadata: {}, rules: null },
  "rbac.authorization.k8s.io/roles": { metadata: {}, rules: null },
  "rbac.authorization.k8s.io/clusterrolebindings": { metadata: {}, roleRef: { apiGroup: "", kind: "", name: "" } },
  "rbac.authorization.k8s.io/rolebindings": { metadata: {}, roleRef: { apiGroup: "", kind: "", name: "" } },
};

/** The object a create is compared with (a fresh copy: callers may keep it). */
export function zeroObject(info: Kind): JsonObject {
  return structuredClone(ZERO[key(info)] ?? { metadata: {} });
}

const path = (...names: string[]): Path => names.map(field);

/** Fields create-time admission or REST storage fills in when the request left them out. */
const SERVER_SET_ON_CREATE: Readonly<Record<string, readonly Path[]>> = {
  // DefaultTolerationSeconds and Priority admission.
  "/pods": [path("spec", "tolerations"), path("spec", "priority"), path("spec", "preemptionPolicy")],
  // The service REST storage allocates IPs and families.
  "/services": [path("spec", "clusterIP"), path("spec", "clusterIPs"), path("spec", "ipFamilies"), path("spec", "ipFamilyPolicy")],
  // StorageObjectInUseProtection admission.
  "/persistentvolumeclaims": [path("metadata", "finalizers")],
  "/persistentvolumes": [path("metadata", "finalizers")],
  // The namespace strategy's PrepareForCreate.
  "/namespaces": [path("spec", "finalizers")],
};

function has(obj: unknown, p: Path): boolean {
  let cur: unknown = obj;
  for (const pe of p) {
    if (pe.kind !== "field" || typeof cur !== "object" || cur === null || Array.isArray(cur) || !Object.hasOwn(cur, pe.name)) return false;
    cur = (cur as Record<string, unknown>)[pe.name];
  }
  return true;
}

/** What a create's writer does not own although the stored object has it: fields the request did not set. */
export function serverSetOnCreate(info: Kind, requestBody: unknown): FieldSet {
  const set = new FieldSet();
  for (const p of SERVER_SET_ON_CREATE[key(info)] ?? []) if (!has(requestBody, p)) set.insert(p);
  return set;
}
