// Strategic merge patch metadata for every kind kube-sim serves: the `patchStrategy` / `patchMergeKey` struct
// tags of the Go API types, and the struct-typed fields that lead to them.
//
// Source (transcribed, not invented; checked against kubectl v1.32 `kubectl patch --local`, see vectors/):
//   k8s.io/api/core/v1/types.go                       Pod, PodSpec, Container, EphemeralContainer(Common), PodStatus,
//                                                     ContainerStatus, Service*, PersistentVolumeClaim*, Namespace*
//   k8s.io/api/core/v1/types.go (cont.)               ServiceAccount (secrets merge by name)
//   k8s.io/api/apps/v1/types.go                       StatefulSet, StatefulSetSpec, StatefulSetStatus, Deployment,
//                                                     DeploymentSpec (strategy retainKeys), DeploymentStatus
//   k8s.io/api/policy/v1/types.go                     PodDisruptionBudget, its Spec (selector replace) and Status
//   k8s.io/apimachinery/pkg/apis/meta/v1/types.go     ObjectMeta
//   k8s.io/apimachinery/pkg/runtime/types.go          RawExtension (ControllerRevision.data)
//
// A field that is not listed behaves as an untagged Go field: a list is replaced whole (that includes every
// `+listType=atomic` list such as tolerations, envFrom, volumeClaimTemplates, Namespace spec.finalizers and
// the container status lists) and an object is merged member by member. Structs marked `closed` reject
// members they do not declare, as forkedjson.LookupPatchMetadata does (docs/adr/0033-strategic-merge-metadata-table.md).

export type PatchStrategy = "merge" | "replace";

export interface FieldPatchMeta {
  /**
   * The Go struct of the field, or of each element for a list (a key of STRATEGIC_MERGE_STRUCTS); only given
   * where it leads to more metadata.
   */
  readonly type?: string;
  readonly strategy?: PatchStrategy;
  /** `patchStrategy:"merge,retainKeys"` (or "retainKeys" alone). Only diffs use it; applying ignores it. */
  readonly retainKeys?: true;
  readonly mergeKey?: string;
}

export interface StructPatchMeta {
  readonly fields: Readonly<Record<string, FieldPatchMeta>>;
  /** The Go struct has no other JSON fields, so patching an existing member it lacks fails. */
  readonly closed?: true;
}

const MERGE_BY_NAME = { strategy: "merge", mergeKey: "name" } as const;
const CONDITIONS = { strategy: "merge", mergeKey: "type" } as const;
const CONTAINER_LISTS = {
  ports: { strategy: "merge", mergeKey: "containerPort" },
  env: MERGE_BY_NAME,
  volumeMounts: { strategy: "merge", mergeKey: "mountPath" },
  volumeDevices: { strategy: "merge", mergeKey: "devicePath" },
} as const;

export const STRATEGIC_MERGE_STRUCTS = {
  // meta/v1
  ObjectMeta: {
    fields: {
      finalizers: { strategy: "merge" },
      ownerReferences: { strategy: "merge", mergeKey: "uid" },
    },
  },
  // runtime: Raw []byte `json:"-"` and Object `json:"-"`, so no JSON field at all.
  RawExtension: { fields: {}, closed: true },

  // core/v1
  Pod: { fields: { metadata: { type: "ObjectMeta" }, spec: { type: "PodSpec" }, status: { type: "PodStatus" } } },
  PodTemplate: { fields: { metadata: { type: "ObjectMeta" }, template: { type: "PodTemplateSpec" } } },
  PodTemplateSpec: { fields: { metadata: { type: "ObjectMeta" }, spec: { type: "PodSpec" } } },
  PodSpec: {
    fields: {
      volumes: { strategy: "merge", retainKeys: true, mergeKey: "name" },
      initContainers: { ...MERGE_BY_NAME, type: "Container" },
      containers: { ...MERGE_BY_NAME, type: "Container" },
      ephemeralContainers: { ...MERGE_BY_NAME, type: "EphemeralContainer" },
      imagePullSecrets: MERGE_BY_NAME,
      hostAliases: { strategy: "merge", mergeKey: "ip" },
      topologySpreadConstraints: { strategy: "merge", mergeKey: "topologyKey" },
      schedulingGates: MERGE_BY_NAME,
      resourceClaims: { strategy: "merge", retainKeys: true, mergeKey: "name" },
    },
  },
  Container: { fields: CONTAINER_LISTS },
  // EphemeralContainerCommon is inlined into EphemeralContainer and carries the same tags as Container.
  EphemeralContainer: { fields: CONTAINER_LISTS },
  PodStatus: {
    fields: {
      conditions: CONDITIONS,
      podIPs: { strategy: "merge", mergeKey: "ip" },
      hostIPs: { strategy: "merge", mergeKey: "ip" },
      resourceClaimStatuses: { strategy: "merge", retainKeys: true, mergeKey: "name" },
      // The status lists themselves are atomic, so this metadata is only reachable through $setElementOrder.
      containerStatuses: { type: "ContainerStatus" },
      initContainerStatuses: { type: "ContainerStatus" },
      ephemeralContainerStatuses: { type: "ContainerStatus" },
    },
  },
  ContainerStatus: { fields: { allocatedResourcesStatus: MERGE_BY_NAME } },
  Service: { fields: { metadata: { type: "ObjectMeta" }, spec: { type: "ServiceSpec" }, status: { type: "ServiceStatus" } } },
  // +listMapKey=port +listMapKey=protocol is for server-side apply; the strategic merge key is port alone.
  ServiceSpec: { fields: { ports: { strategy: "merge", mergeKey: "port" } } },
  ServiceStatus: { fields: { conditions: CONDITIONS } },
  PersistentVolumeClaim: {
    fields: { metadata: { type: "ObjectMeta" }, status: { type: "PersistentVolumeClaimStatus" } },
  },
  PersistentVolumeClaimStatus: { fields: { conditions: CONDITIONS } },
  Namespace: { fields: { metadata: { type: "ObjectMeta" }, status: { type: "NamespaceStatus" } } },
  NamespaceStatus: { fields: { conditions: CONDITIONS } },
  // Kinds whose only tagged fields are in metadata.
  ObjectWithMetadata: { fields: { metadata: { type: "ObjectMeta" } } },

  // apps/v1
  StatefulSet: {
    fields: { metadata: { type: "ObjectMeta" }, spec: { type: "StatefulSetSpec" }, status: { type: "StatefulSetStatus" } },
  },
  StatefulSetSpec: { fields: { template: { type: "PodTemplateSpec" } } },
  StatefulSetStatus: { fields: { conditions: CONDITIONS } },
  ControllerRevision: { fields: { metadata: { type: "ObjectMeta" }, data: { type: "RawExtension" } } },
  Deployment: {
    fields: { metadata: { type: "ObjectMeta" }, spec: { type: "DeploymentSpec" }, status: { type: "DeploymentStatus" } },
  },
  DeploymentSpec: { fields: { template: { type: "PodTemplateSpec" }, strategy: { retainKeys: true } } },
  DeploymentStatus: { fields: { conditions: CONDITIONS } },

  // core/v1 (cont.)
  ServiceAccount: { fields: { metadata: { type: "ObjectMeta" }, secrets: MERGE_BY_NAME } },

  // policy/v1
  PodDisruptionBudget: {
    fields: { metadata: { type: "ObjectMeta" }, spec: { type: "PodDisruptionBudgetSpec" }, status: { type: "PodDisruptionBudgetStatus" } },
  },
  PodDisruptionBudgetSpec: { fields: { selector: { strategy: "replace" } } },
  PodDisruptionBudgetStatus: { fields: { conditions: CONDITIONS } },
} as const satisfies Record<string, StructPatchMeta>;

export type StructName = keyof typeof STRATEGIC_MERGE_STRUCTS;

/** apiVersion + "/" + kind -> the Go struct the apiserver passes to StrategicMergeMapPatch. */
export const STRATEGIC_MERGE_KINDS: Readonly<Record<string, StructName>> = {
  "v1/Pod": "Pod",
  "v1/PodTemplate": "PodTemplate",
  "v1/Service": "Service",
  "v1/PersistentVolumeClaim": "PersistentVolumeClaim",
  "v1/PersistentVolume": "ObjectWithMetadata",
  "v1/Namespace": "Namespace",
  "v1/ConfigMap": "ObjectWithMetadata",
  "v1/Event": "ObjectWithMetadata",
  "events.k8s.io/v1/Event": "ObjectWithMetadata",
  "coordination.k8s.io/v1/Lease": "ObjectWithMetadata",
  "autoscaling/v1/Scale": "ObjectWithMetadata",
  "apps/v1/StatefulSet": "StatefulSet",
  "apps/v1/ControllerRevision": "ControllerRevision",
  "apps/v1/Deployment": "Deployment",
  "v1/Secret": "ObjectWithMetadata",
  "v1/ServiceAccount": "ServiceAccount",
  "policy/v1/PodDisruptionBudget": "PodDisruptionBudget",
  "networking.k8s.io/v1/NetworkPolicy": "ObjectWithMetadata",
  "rbac.authorization.k8s.io/v1/ClusterRole": "ObjectWithMetadata",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "ObjectWithMetadata",
  "rbac.authorization.k8s.io/v1/Role": "ObjectWithMetadata",
  "rbac.authorization.k8s.io/v1/RoleBinding": "ObjectWithMetadata",
};

/** The struct for a kind; a kind not in the table still gets ObjectMeta semantics for metadata. */
export function structForKind(kind: { apiVersion: string; kind: string }): StructName {
  return STRATEGIC_MERGE_KINDS[`${kind.apiVersion}/${kind.kind}`] ?? "ObjectWithMetadata";
}

/** What forkedjson.LookupPatchMetadata reports for one JSON field. */
export interface PatchMetaLookup {
  readonly type: StructName | undefined;
  readonly strategy: PatchStrategy | "";
  readonly mergeKey: string;
}

export const NO_PATCH_META: PatchMetaLookup = { type: undefined, strategy: "", mergeKey: "" };

/** undefined when the struct is closed and has no such field (the Go lookup fails). */
export function lookupPatchMeta(struct: StructName | undefined, field: string): PatchMetaLookup | undefined {
  if (struct === undefined) return NO_PATCH_META;
  const meta: StructPatchMeta = STRATEGIC_MERGE_STRUCTS[struct];
  const fieldMeta = Object.hasOwn(meta.fields, field) ? meta.fields[field] : undefined;
  if (fieldMeta === undefined) return meta.closed === true ? undefined : NO_PATCH_META;
  const type = fieldMeta.type !== undefined && isStructName(fieldMeta.type) ? fieldMeta.type : undefined;
  return { type, strategy: fieldMeta.strategy ?? "", mergeKey: fieldMeta.mergeKey ?? "" };
}

export function isStructName(name: string): name is StructName {
  return Object.hasOwn(STRATEGIC_MERGE_STRUCTS, name);
}
