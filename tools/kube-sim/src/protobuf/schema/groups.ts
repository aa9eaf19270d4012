// The smaller API groups of the simulator's protobuf schema, in the table form of ./types.ts: coordination/v1 (Lease),
// events/v1 (Event), autoscaling/v1 (Scale, the statefulsets/scale subresource), policy/v1 (Eviction, the
// pods/eviction subresource, and PodDisruptionBudget), networking/v1 (NetworkPolicy) and rbac/v1 (Role, ClusterRole
// and their bindings). Only the messages those kinds reach are listed (no HorizontalPodAutoscaler, Ingress or
// ServiceCIDR). Field numbers, types and repeated/map come from each group's `generated.proto`; JSON names and
// keepZero from the struct tags in its `types.go`. Read at kubernetes/api master of 2026-07-24 (commit 10b39a3, the
// v1.37 development line, after the v0.36.3 tag); networking/v1 and rbac/v1 at kubernetes/api 426b1b99, policy/v1's
// PodDisruptionBudget at kubernetes/kubernetes staging 054d429d plus `spec.unhealthyPodEvictionPolicy` (4, a pointer).
import type { SchemaTable } from "./types.ts";

export const COORDINATION_V1: SchemaTable = {
  "coordination.v1.Lease": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "coordination.v1.LeaseSpec" },
    ],
  },
  "coordination.v1.LeaseList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "coordination.v1.Lease", repeated: true },
    ],
  },
  "coordination.v1.LeaseSpec": {
    fields: [
      { json: "holderIdentity", no: 1, type: "string", keepZero: true },
      { json: "leaseDurationSeconds", no: 2, type: "int32", keepZero: true },
      { json: "acquireTime", no: 3, type: "meta.v1.MicroTime" },
      { json: "renewTime", no: 4, type: "meta.v1.MicroTime" },
      { json: "leaseTransitions", no: 5, type: "int32", keepZero: true },
      { json: "strategy", no: 6, type: "string", keepZero: true },
      { json: "preferredHolder", no: 7, type: "string", keepZero: true },
    ],
  },
};

export const EVENTS_V1: SchemaTable = {
  "events.v1.Event": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "eventTime", no: 2, type: "meta.v1.MicroTime" },
      { json: "series", no: 3, type: "events.v1.EventSeries" },
      { json: "reportingController", no: 4, type: "string" },
      { json: "reportingInstance", no: 5, type: "string" },
      { json: "action", no: 6, type: "string" },
      { json: "reason", no: 7, type: "string" },
      { json: "regarding", no: 8, type: "core.v1.ObjectReference" },
      { json: "related", no: 9, type: "core.v1.ObjectReference" },
      { json: "note", no: 10, type: "string" },
      { json: "type", no: 11, type: "string" },
      { json: "deprecatedSource", no: 12, type: "core.v1.EventSource" },
      { json: "deprecatedFirstTimestamp", no: 13, type: "meta.v1.Time" },
      { json: "deprecatedLastTimestamp", no: 14, type: "meta.v1.Time" },
      { json: "deprecatedCount", no: 15, type: "int32" },
    ],
  },
  "events.v1.EventList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "events.v1.Event", repeated: true },
    ],
  },
  "events.v1.EventSeries": {
    fields: [
      { json: "count", no: 1, type: "int32", keepZero: true },
      { json: "lastObservedTime", no: 2, type: "meta.v1.MicroTime" },
    ],
  },
};

export const AUTOSCALING_V1: SchemaTable = {
  "autoscaling.v1.Scale": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "autoscaling.v1.ScaleSpec" },
      { json: "status", no: 3, type: "autoscaling.v1.ScaleStatus" },
    ],
  },
  "autoscaling.v1.ScaleSpec": {
    // `replicas,omitempty` on a plain int32: Go's JSON drops a desired count of 0 (`"spec": {}`).
    fields: [{ json: "replicas", no: 1, type: "int32" }],
  },
  "autoscaling.v1.ScaleStatus": {
    fields: [
      { json: "replicas", no: 1, type: "int32", keepZero: true },
      { json: "selector", no: 2, type: "string" },
    ],
  },
};

export const POLICY_V1: SchemaTable = {
  "policy.v1.Eviction": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "deleteOptions", no: 2, type: "meta.v1.DeleteOptions" },
    ],
  },
  "policy.v1.PodDisruptionBudget": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "policy.v1.PodDisruptionBudgetSpec" },
      { json: "status", no: 3, type: "policy.v1.PodDisruptionBudgetStatus" },
    ],
  },
  "policy.v1.PodDisruptionBudgetList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "policy.v1.PodDisruptionBudget", repeated: true },
    ],
  },
  "policy.v1.PodDisruptionBudgetSpec": {
    fields: [
      { json: "minAvailable", no: 1, type: "intstr.IntOrString" },
      { json: "selector", no: 2, type: "meta.v1.LabelSelector" },
      { json: "maxUnavailable", no: 3, type: "intstr.IntOrString" },
      { json: "unhealthyPodEvictionPolicy", no: 4, type: "string", keepZero: true },
    ],
  },
  "policy.v1.PodDisruptionBudgetStatus": {
    fields: [
      { json: "observedGeneration", no: 1, type: "int64" },
      { json: "disruptedPods", no: 2, type: "meta.v1.Time", map: true },
      { json: "disruptionsAllowed", no: 3, type: "int32", keepZero: true },
      { json: "currentHealthy", no: 4, type: "int32", keepZero: true },
      { json: "desiredHealthy", no: 5, type: "int32", keepZero: true },
      { json: "expectedPods", no: 6, type: "int32", keepZero: true },
      { json: "conditions", no: 7, type: "meta.v1.Condition", repeated: true },
    ],
  },
};

export const NETWORKING_V1: SchemaTable = {
  "networking.v1.NetworkPolicy": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "networking.v1.NetworkPolicySpec" },
    ],
  },
  "networking.v1.NetworkPolicyList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "networking.v1.NetworkPolicy", repeated: true },
    ],
  },
  "networking.v1.NetworkPolicySpec": {
    fields: [
      { json: "podSelector", no: 1, type: "meta.v1.LabelSelector" },
      { json: "ingress", no: 2, type: "networking.v1.NetworkPolicyIngressRule", repeated: true },
      { json: "egress", no: 3, type: "networking.v1.NetworkPolicyEgressRule", repeated: true },
      { json: "policyTypes", no: 4, type: "string", repeated: true },
    ],
  },
  "networking.v1.NetworkPolicyIngressRule": {
    fields: [
      { json: "ports", no: 1, type: "networking.v1.NetworkPolicyPort", repeated: true },
      { json: "from", no: 2, type: "networking.v1.NetworkPolicyPeer", repeated: true },
    ],
  },
  "networking.v1.NetworkPolicyEgressRule": {
    fields: [
      { json: "ports", no: 1, type: "networking.v1.NetworkPolicyPort", repeated: true },
      { json: "to", no: 2, type: "networking.v1.NetworkPolicyPeer", repeated: true },
    ],
  },
  "networking.v1.NetworkPolicyPeer": {
    fields: [
      { json: "podSelector", no: 1, type: "meta.v1.LabelSelector" },
      { json: "namespaceSelector", no: 2, type: "meta.v1.LabelSelector" },
      { json: "ipBlock", no: 3, type: "networking.v1.IPBlock" },
    ],
  },
  "networking.v1.NetworkPolicyPort": {
    fields: [
      { json: "protocol", no: 1, type: "string", keepZero: true },
      { json: "port", no: 2, type: "intstr.IntOrString" },
      { json: "endPort", no: 3, type: "int32", keepZero: true },
    ],
  },
  "networking.v1.IPBlock": {
    fields: [
      { json: "cidr", no: 1, type: "string", keepZero: true },
      { json: "except", no: 2, type: "string", repeated: true },
    ],
  },
};

export const RBAC_V1: SchemaTable = {
  "rbac.v1.ClusterRole": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "rules", no: 2, type: "rbac.v1.PolicyRule", repeated: true },
      { json: "aggregationRule", no: 3, type: "rbac.v1.AggregationRule" },
    ],
  },
  "rbac.v1.ClusterRoleList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "rbac.v1.ClusterRole", repeated: true },
    ],
  },
  "rbac.v1.ClusterRoleBinding": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "subjects", no: 2, type: "rbac.v1.Subject", repeated: true },
      { json: "roleRef", no: 3, type: "rbac.v1.RoleRef" },
    ],
  },
  "rbac.v1.ClusterRoleBindingList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "rbac.v1.ClusterRoleBinding", repeated: true },
    ],
  },
  "rbac.v1.Role": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "rules", no: 2, type: "rbac.v1.PolicyRule", repeated: true },
    ],
  },
  "rbac.v1.RoleList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "rbac.v1.Role", repeated: true },
    ],
  },
  "rbac.v1.RoleBinding": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "subjects", no: 2, type: "rbac.v1.Subject", repeated: true },
      { json: "roleRef", no: 3, type: "rbac.v1.RoleRef" },
    ],
  },
  "rbac.v1.RoleBindingList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "rbac.v1.RoleBinding", repeated: true },
    ],
  },
  "rbac.v1.AggregationRule": {
    fields: [{ json: "clusterRoleSelectors", no: 1, type: "meta.v1.LabelSelector", repeated: true }],
  },
  "rbac.v1.PolicyRule": {
    fields: [
      { json: "verbs", no: 1, type: "string", repeated: true },
      { json: "apiGroups", no: 2, type: "string", repeated: true },
      { json: "resources", no: 3, type: "string", repeated: true },
      { json: "resourceNames", no: 4, type: "string", repeated: true },
      { json: "nonResourceURLs", no: 5, type: "string", repeated: true },
    ],
  },
  "rbac.v1.RoleRef": {
    fields: [
      { json: "apiGroup", no: 1, type: "string", keepZero: true },
      { json: "kind", no: 2, type: "string", keepZero: true },
      { json: "name", no: 3, type: "string", keepZero: true },
    ],
  },
  "rbac.v1.Subject": {
    fields: [
      { json: "kind", no: 1, type: "string", keepZero: true },
      { json: "apiGroup", no: 2, type: "string" },
      { json: "name", no: 3, type: "string", keepZero: true },
      { json: "namespace", no: 4, type: "string" },
    ],
  },
};
