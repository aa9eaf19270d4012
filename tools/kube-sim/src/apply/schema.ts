// The structured-merge-diff schema of each served kind, built from the client-node type graph the OpenAPI
// documents come from (openapi/models.ts) and the list semantics the OpenAPI generator publishes
// (openapi/extensions.ts, itself the strategic merge table). Upstream's converter (kube-openapi schemaconv)
// reads `x-kubernetes-list-type` / `-list-map-keys` first, falls back to the patch strategy (merge with a key:
// a map list; merge without one: a set) and makes every other list atomic; that fallback is the table we
// already have, so only the `+listType`/`+listMapKey`, `+structType=atomic` and `+mapType=atomic` markers of
// k8s.io/api v1.32 that say something else are listed here.
import { listSemantics } from "../openapi/extensions.ts";
import type { FieldType } from "../openapi/models.ts";
import { modelAttributes, parseFieldType, rootModel } from "../openapi/models.ts";
import type { ResourceInfo } from "../resources.ts";
import type { JsonValue } from "../patch/json.ts";
import type { ListType, SsaType, StructType } from "./typed.ts";
import { SCALAR, UNTYPED } from "./typed.ts";

/** Go struct name and JSON field -> list semantics where the `+listType` markers differ from the patch tags. */
const LIST_OVERRIDES: Readonly<Record<string, { relationship: ListType["relationship"]; keys: readonly string[]; keyDefaults?: Readonly<Record<string, JsonValue>> }>> = {
  // +listType=map +listMapKey=containerPort +listMapKey=protocol; protocol has +default="TCP".
  "Container.ports": { relationship: "map", keys: ["containerPort", "protocol"], keyDefaults: { protocol: "TCP" } },
  "EphemeralContainer.ports": { relationship: "map", keys: ["containerPort", "protocol"], keyDefaults: { protocol: "TCP" } },
  // +listType=map +listMapKey=port +listMapKey=protocol; protocol has +default="TCP".
  "ServiceSpec.ports": { relationship: "map", keys: ["port", "protocol"], keyDefaults: { protocol: "TCP" } },
  // +listType=map +listMapKey=topologyKey +listMapKey=whenUnsatisfiable
  "PodSpec.topologySpreadConstraints": { relationship: "map", keys: ["topologyKey", "whenUnsatisfiable"] },
  "NodeStatus.conditions": { relationship: "map", keys: ["type"] },
  "NodeStatus.addresses": { relationship: "map", keys: ["type"] },
  "NodeSpec.podCIDRs": { relationship: "set", keys: [] },
};

/** Structs marked `+structType=atomic`: owned and replaced as one value. */
const ATOMIC_STRUCTS: ReadonlySet<string> = new Set([
  "LabelSelector",
  "LocalObjectReference",
  "ObjectReference",
  "OwnerReference",
  "TypedLocalObjectReference",
  "TypedObjectReference",
  "ConfigMapKeySelector",
  "SecretKeySelector",
  "ObjectFieldSelector",
  "ResourceFieldSelector",
  "NodeSelector",
  "NodeSelectorTerm",
  "TopologySelectorTerm",
]);

/** Maps marked `+mapType=atomic`. */
const ATOMIC_MAPS: ReadonlySet<string> = new Set(["PodSpec.nodeSelector", "ServiceSpec.selector"]);

/**
 * resource.Quantity fields (kube-openapi's converter makes Quantity an untyped scalar, so `cpu: 1` is as valid as
 * `cpu: "1"`); client-node types them as strings. Maps listed here hold quantities as values.
 */
const QUANTITIES: ReadonlySet<string> = new Set([
  "ResourceRequirements.limits[]",
  "ResourceRequirements.requests[]",
  "VolumeResourceRequirements.limits[]",
  "VolumeResourceRequirements.requests[]",
  "PodSpec.overhead[]",
  "PodStatus.allocatedResources[]",
  "ContainerStatus.allocatedResources[]",
  "PersistentVolumeSpec.capacity[]",
  "PersistentVolumeClaimStatus.capacity[]",
  "PersistentVolumeClaimStatus.allocatedResources[]",
  "NodeStatus.capacity[]",
  "NodeStatus.allocatable[]",
  "EmptyDirVolumeSource.sizeLimit",
  "ResourceFieldSelector.divisor",
]);

/** Fields whose values are opaque to the schema (FieldsV1 is `__untyped_atomic_`). */
const ATOMIC_UNTYPED: ReadonlySet<string> = new Set(["ManagedFieldsEntry.fieldsV1"]);

/** client-node model name (`V1PodSpec`, `CoreV1Event`) -> Go struct name (`PodSpec`, `Event`). */
function goStruct(model: string): string {
  return model.replace(/^(CoreV1|EventsV1|V1)/, "");
}

const STRUCTS = new Map<string, StructType>();
const NUMERIC: SsaType = { kind: "scalar", scalar: "numeric" };
const STRING: SsaType = { kind: "scalar", scalar: "string" };
const BOOLEAN: SsaType = { kind: "scalar", scalar: "boolean" };

function structOf(model: string): StructType | undefined {
  const cached = STRUCTS.get(model);
  if (cached !== undefined) return cached;
  const attrs = modelAttributes(model);
  if (attrs === undefined) return undefined;
  const name = goStruct(model);
  const fields = new Map<string, SsaType>();
  // Registered before the fields are resolved, so a recursive model refers to itself.
  const struct: StructType = { kind: "struct", name, atomic: ATOMIC_STRUCTS.has(name), fields };
  STRUCTS.set(model, struct);
  for (const attr of attrs) {
    const key = `${name}.${attr.baseName}`;
    if (ATOMIC_UNTYPED.has(key)) {
      fields.set(attr.baseName, SCALAR);
      continue;
    }
    fields.set(attr.baseName, typeOf(parseFieldType(attr.type, attr.format), model, attr.baseName, key));
  }
  return struct;
}

function typeOf(type: FieldType, model: string, fieldName: string, key: string): SsaType {
  switch (type.kind) {
    case "primitive":
      switch (type.type) {
        case "any":
          return UNTYPED;
        case "int-or-string":
          return SCALAR;
        case "number":
          return NUMERIC;
        case "boolean":
          return BOOLEAN;
        case "string":
        case "date":
          return QUANTITIES.has(key) ? SCALAR : STRING;
      }
      return SCALAR;
    case "model":
      return structOf(type.model) ?? UNTYPED;
    case "map":
      return { kind: "map", atomic: ATOMIC_MAPS.has(key), values: typeOf(type.values, model, fieldName, `${key}[]`) };
    case "array": {
      const items = typeOf(type.items, model, fieldName, `${key}[]`);
      const override = LIST_OVERRIDES[key];
      if (override !== undefined) return { kind: "list", relationship: override.relationship, keys: override.keys, keyDefaults: override.keyDefaults ?? {}, items };
      const semantics = listSemantics(model, fieldName);
      if (semantics?.listType === "map") return { kind: "list", relationship: "map", keys: semantics.mapKeys ?? [], keyDefaults: {}, items };
      if (semantics?.listType === "set") return { kind: "list", relationship: "set", keys: [], keyDefaults: {}, items };
      return { kind: "list", relationship: "atomic", keys: [], keyDefaults: {}, items };
    }
  }
}

/** The schema of a served kind's objects; untyped (granular maps, atomic lists) for a kind without a model. */
export function schemaFor(info: Pick<ResourceInfo, "group" | "version" | "kind">): SsaType {
  const model = rootModel(info);
  return (model === undefined ? undefined : structOf(model)) ?? UNTYPED;
}

/** autoscaling/v1 Scale, for the scale subresource. */
export function scaleSchema(): SsaType {
  return structOf("V1Scale") ?? UNTYPED;
}
