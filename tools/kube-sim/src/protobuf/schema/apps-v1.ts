// The apps/v1 part of the simulator's protobuf schema (package k8s.io.api.apps.v1), in the table form of ./types.ts:
// the served kinds StatefulSet, ControllerRevision and Deployment, their lists and everything they hold. The pod
// template and claim templates are core/v1 messages (./core-v1.ts). Field numbers, types and repeated/map come from
// apps/v1 `generated.proto`; JSON names and keepZero from the struct tags in apps/v1 `types.go`. Read at
// kubernetes/api master of 2026-07-24 (commit 10b39a3, the v1.37 development line, after the v0.36.3 tag); the
// Deployment messages from staging/src/k8s.io/api/apps/v1/generated.proto of kubernetes/kubernetes (commit
// 0122c43a), less the alpha `spec.podReplacementPolicy` (10), which client-node's models do not have yet.
//
// DaemonSets and ReplicaSets are not served, so their messages are left out.
import type { SchemaTable } from "./types.ts";

export const APPS_V1: SchemaTable = {
  "apps.v1.StatefulSet": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "apps.v1.StatefulSetSpec" },
      { json: "status", no: 3, type: "apps.v1.StatefulSetStatus" },
    ],
  },
  "apps.v1.StatefulSetList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "apps.v1.StatefulSet", repeated: true },
    ],
  },
  "apps.v1.StatefulSetSpec": {
    fields: [
      { json: "replicas", no: 1, type: "int32", keepZero: true },
      { json: "selector", no: 2, type: "meta.v1.LabelSelector" },
      { json: "template", no: 3, type: "core.v1.PodTemplateSpec" },
      { json: "volumeClaimTemplates", no: 4, type: "core.v1.PersistentVolumeClaim", repeated: true },
      { json: "serviceName", no: 5, type: "string", keepZero: true },
      { json: "podManagementPolicy", no: 6, type: "string" },
      { json: "updateStrategy", no: 7, type: "apps.v1.StatefulSetUpdateStrategy" },
      { json: "revisionHistoryLimit", no: 8, type: "int32", keepZero: true },
      { json: "minReadySeconds", no: 9, type: "int32" },
      {
        json: "persistentVolumeClaimRetentionPolicy",
        no: 10,
        type: "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
      },
      { json: "ordinals", no: 11, type: "apps.v1.StatefulSetOrdinals" },
    ],
  },
  "apps.v1.StatefulSetStatus": {
    fields: [
      { json: "observedGeneration", no: 1, type: "int64" },
      { json: "replicas", no: 2, type: "int32", keepZero: true },
      { json: "readyReplicas", no: 3, type: "int32" },
      { json: "currentReplicas", no: 4, type: "int32" },
      { json: "updatedReplicas", no: 5, type: "int32" },
      { json: "currentRevision", no: 6, type: "string" },
      { json: "updateRevision", no: 7, type: "string" },
      // 8 is unused upstream.
      { json: "collisionCount", no: 9, type: "int32", keepZero: true },
      { json: "conditions", no: 10, type: "apps.v1.StatefulSetCondition", repeated: true },
      { json: "availableReplicas", no: 11, type: "int32", keepZero: true },
    ],
  },
  "apps.v1.StatefulSetCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "lastTransitionTime", no: 3, type: "meta.v1.Time" },
      { json: "reason", no: 4, type: "string" },
      { json: "message", no: 5, type: "string" },
    ],
  },
  "apps.v1.StatefulSetUpdateStrategy": {
    fields: [
      { json: "type", no: 1, type: "string" },
      { json: "rollingUpdate", no: 2, type: "apps.v1.RollingUpdateStatefulSetStrategy" },
    ],
  },
  "apps.v1.RollingUpdateStatefulSetStrategy": {
    fields: [
      { json: "partition", no: 1, type: "int32", keepZero: true },
      { json: "maxUnavailable", no: 2, type: "intstr.IntOrString" },
    ],
  },
  "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy": {
    fields: [
      { json: "whenDeleted", no: 1, type: "string" },
      { json: "whenScaled", no: 2, type: "string" },
    ],
  },
  "apps.v1.StatefulSetOrdinals": {
    fields: [{ json: "start", no: 1, type: "int32", keepZero: true }],
  },
  "apps.v1.ControllerRevision": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "data", no: 2, type: "runtime.RawExtension" },
      { json: "revision", no: 3, type: "int64", keepZero: true },
    ],
  },
  "apps.v1.ControllerRevisionList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "apps.v1.ControllerRevision", repeated: true },
    ],
  },
  "apps.v1.Deployment": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "apps.v1.DeploymentSpec" },
      { json: "status", no: 3, type: "apps.v1.DeploymentStatus" },
    ],
  },
  "apps.v1.DeploymentList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "apps.v1.Deployment", repeated: true },
    ],
  },
  "apps.v1.DeploymentSpec": {
    fields: [
      { json: "replicas", no: 1, type: "int32", keepZero: true },
      { json: "selector", no: 2, type: "meta.v1.LabelSelector" },
      { json: "template", no: 3, type: "core.v1.PodTemplateSpec" },
      { json: "strategy", no: 4, type: "apps.v1.DeploymentStrategy" },
      { json: "minReadySeconds", no: 5, type: "int32" },
      { json: "revisionHistoryLimit", no: 6, type: "int32", keepZero: true },
      { json: "paused", no: 7, type: "bool" },
      { json: "progressDeadlineSeconds", no: 9, type: "int32", keepZero: true },
    ],
  },
  "apps.v1.DeploymentStrategy": {
    fields: [
      { json: "type", no: 1, type: "string" },
      { json: "rollingUpdate", no: 2, type: "apps.v1.RollingUpdateDeployment" },
    ],
  },
  "apps.v1.RollingUpdateDeployment": {
    fields: [
      { json: "maxUnavailable", no: 1, type: "intstr.IntOrString" },
      { json: "maxSurge", no: 2, type: "intstr.IntOrString" },
    ],
  },
  "apps.v1.DeploymentStatus": {
    fields: [
      { json: "observedGeneration", no: 1, type: "int64" },
      { json: "replicas", no: 2, type: "int32" },
      { json: "updatedReplicas", no: 3, type: "int32" },
      { json: "readyReplicas", no: 7, type: "int32" },
      { json: "availableReplicas", no: 4, type: "int32" },
      { json: "unavailableReplicas", no: 5, type: "int32" },
      { json: "terminatingReplicas", no: 9, type: "int32", keepZero: true },
      { json: "conditions", no: 6, type: "apps.v1.DeploymentCondition", repeated: true },
      { json: "collisionCount", no: 8, type: "int32", keepZero: true },
    ],
  },
  "apps.v1.DeploymentCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "lastUpdateTime", no: 6, type: "meta.v1.Time" },
      { json: "lastTransitionTime", no: 7, type: "meta.v1.Time" },
      { json: "reason", no: 4, type: "string" },
      { json: "message", no: 5, type: "string" },
    ],
  },
};
