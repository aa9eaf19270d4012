// The core/v1 part of the simulator's protobuf schema: every message of package k8s.io.api.core.v1 (not only the ones
// reachable from the kinds served today, so a newly served core kind needs no schema work), in the table form of
// ./types.ts. Field numbers, types and repeated/map come from upstream's core/v1 `generated.proto`; JSON names and
// keepZero (the Go field is a pointer, or its json tag has no omitempty) come from the Go struct tags in core/v1
// `types.go`. Both were read at kubernetes/api master of 2026-07-24 (commit 10b39a3, the v1.37 development line,
// after the v0.36.3 tag).
//
// One convention beyond ./types.ts: `json: ""` marks an embedded Go struct whose JSON fields are inlined into the
// enclosing object (Go's `json:",inline"` or an empty tag name). On the wire it is an ordinary nested message; in JSON
// its fields sit beside the enclosing message's own. Cases: Volume.volumeSource (VolumeSource), PersistentVolumeSpec
// .persistentVolumeSource (PersistentVolumeSource), Probe.handler (ProbeHandler), EphemeralContainer
// .ephemeralContainerCommon (EphemeralContainerCommon), and the LocalObjectReference ({name}) of ConfigMap/Secret key
// selectors, env sources, projections and ConfigMapVolumeSource.
import type { SchemaTable } from "./types.ts";

export const CORE_V1: SchemaTable = {
  "core.v1.AWSElasticBlockStoreVolumeSource": {
    fields: [
      { json: "volumeID", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "partition", no: 3, type: "int32" },
      { json: "readOnly", no: 4, type: "bool" },
    ],
  },
  "core.v1.Affinity": {
    fields: [
      { json: "nodeAffinity", no: 1, type: "core.v1.NodeAffinity" },
      { json: "podAffinity", no: 2, type: "core.v1.PodAffinity" },
      { json: "podAntiAffinity", no: 3, type: "core.v1.PodAntiAffinity" },
    ],
  },
  "core.v1.AppArmorProfile": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "localhostProfile", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.AttachedVolume": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "devicePath", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.AvoidPods": {
    fields: [
      { json: "preferAvoidPods", no: 1, type: "core.v1.PreferAvoidPodsEntry", repeated: true },
    ],
  },
  "core.v1.AzureDiskVolumeSource": {
    fields: [
      { json: "diskName", no: 1, type: "string", keepZero: true },
      { json: "diskURI", no: 2, type: "string", keepZero: true },
      { json: "cachingMode", no: 3, type: "string", keepZero: true },
      { json: "fsType", no: 4, type: "string", keepZero: true },
      { json: "readOnly", no: 5, type: "bool", keepZero: true },
      { json: "kind", no: 6, type: "string", keepZero: true },
    ],
  },
  "core.v1.AzureFilePersistentVolumeSource": {
    fields: [
      { json: "secretName", no: 1, type: "string", keepZero: true },
      { json: "shareName", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
      { json: "secretNamespace", no: 4, type: "string", keepZero: true },
    ],
  },
  "core.v1.AzureFileVolumeSource": {
    fields: [
      { json: "secretName", no: 1, type: "string", keepZero: true },
      { json: "shareName", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
    ],
  },
  "core.v1.Binding": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "target", no: 2, type: "core.v1.ObjectReference" },
    ],
  },
  "core.v1.CSIPersistentVolumeSource": {
    fields: [
      { json: "driver", no: 1, type: "string", keepZero: true },
      { json: "volumeHandle", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
      { json: "fsType", no: 4, type: "string" },
      { json: "volumeAttributes", no: 5, type: "string", map: true },
      { json: "controllerPublishSecretRef", no: 6, type: "core.v1.SecretReference" },
      { json: "nodeStageSecretRef", no: 7, type: "core.v1.SecretReference" },
      { json: "nodePublishSecretRef", no: 8, type: "core.v1.SecretReference" },
      { json: "controllerExpandSecretRef", no: 9, type: "core.v1.SecretReference" },
      { json: "nodeExpandSecretRef", no: 10, type: "core.v1.SecretReference" },
    ],
  },
  "core.v1.CSIVolumeSource": {
    fields: [
      { json: "driver", no: 1, type: "string", keepZero: true },
      { json: "readOnly", no: 2, type: "bool", keepZero: true },
      { json: "fsType", no: 3, type: "string", keepZero: true },
      { json: "volumeAttributes", no: 4, type: "string", map: true },
      { json: "nodePublishSecretRef", no: 5, type: "core.v1.LocalObjectReference" },
    ],
  },
  "core.v1.Capabilities": {
    fields: [
      { json: "add", no: 1, type: "string", repeated: true },
      { json: "drop", no: 2, type: "string", repeated: true },
    ],
  },
  "core.v1.CephFSPersistentVolumeSource": {
    fields: [
      { json: "monitors", no: 1, type: "string", repeated: true },
      { json: "path", no: 2, type: "string" },
      { json: "user", no: 3, type: "string" },
      { json: "secretFile", no: 4, type: "string" },
      { json: "secretRef", no: 5, type: "core.v1.SecretReference" },
      { json: "readOnly", no: 6, type: "bool" },
    ],
  },
  "core.v1.CephFSVolumeSource": {
    fields: [
      { json: "monitors", no: 1, type: "string", repeated: true },
      { json: "path", no: 2, type: "string" },
      { json: "user", no: 3, type: "string" },
      { json: "secretFile", no: 4, type: "string" },
      { json: "secretRef", no: 5, type: "core.v1.LocalObjectReference" },
      { json: "readOnly", no: 6, type: "bool" },
    ],
  },
  "core.v1.CinderPersistentVolumeSource": {
    fields: [
      { json: "volumeID", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "readOnly", no: 3, type: "bool" },
      { json: "secretRef", no: 4, type: "core.v1.SecretReference" },
    ],
  },
  "core.v1.CinderVolumeSource": {
    fields: [
      { json: "volumeID", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "readOnly", no: 3, type: "bool" },
      { json: "secretRef", no: 4, type: "core.v1.LocalObjectReference" },
    ],
  },
  "core.v1.ClientIPConfig": {
    fields: [
      { json: "timeoutSeconds", no: 1, type: "int32", keepZero: true },
    ],
  },
  "core.v1.ClusterTrustBundleProjection": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "signerName", no: 2, type: "string", keepZero: true },
      { json: "labelSelector", no: 3, type: "meta.v1.LabelSelector" },
      { json: "optional", no: 5, type: "bool", keepZero: true },
      { json: "path", no: 4, type: "string", keepZero: true },
      { json: "user", no: 6, type: "int64", keepZero: true },
    ],
  },
  "core.v1.ComponentCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "message", no: 3, type: "string" },
      { json: "error", no: 4, type: "string" },
    ],
  },
  "core.v1.ComponentStatus": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "conditions", no: 2, type: "core.v1.ComponentCondition", repeated: true },
    ],
  },
  "core.v1.ComponentStatusList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.ComponentStatus", repeated: true },
    ],
  },
  "core.v1.ConfigMap": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "immutable", no: 4, type: "bool", keepZero: true },
      { json: "data", no: 2, type: "string", map: true },
      { json: "binaryData", no: 3, type: "bytes", map: true },
    ],
  },
  "core.v1.ConfigMapEnvSource": {
    fields: [
      { json: "", no: 1, type: "core.v1.LocalObjectReference" },
      { json: "optional", no: 2, type: "bool", keepZero: true },
    ],
  },
  "core.v1.ConfigMapKeySelector": {
    fields: [
      { json: "", no: 1, type: "core.v1.LocalObjectReference" },
      { json: "key", no: 2, type: "string", keepZero: true },
      { json: "optional", no: 3, type: "bool", keepZero: true },
    ],
  },
  "core.v1.ConfigMapList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.ConfigMap", repeated: true },
    ],
  },
  "core.v1.ConfigMapNodeConfigSource": {
    fields: [
      { json: "namespace", no: 1, type: "string", keepZero: true },
      { json: "name", no: 2, type: "string", keepZero: true },
      { json: "uid", no: 3, type: "string" },
      { json: "resourceVersion", no: 4, type: "string" },
      { json: "kubeletConfigKey", no: 5, type: "string", keepZero: true },
    ],
  },
  "core.v1.ConfigMapProjection": {
    fields: [
      { json: "", no: 1, type: "core.v1.LocalObjectReference" },
      { json: "items", no: 2, type: "core.v1.KeyToPath", repeated: true },
      { json: "optional", no: 4, type: "bool", keepZero: true },
    ],
  },
  "core.v1.ConfigMapVolumeSource": {
    fields: [
      { json: "", no: 1, type: "core.v1.LocalObjectReference" },
      { json: "items", no: 2, type: "core.v1.KeyToPath", repeated: true },
      { json: "defaultMode", no: 3, type: "int32", keepZero: true },
      { json: "optional", no: 4, type: "bool", keepZero: true },
      { json: "defaultUser", no: 5, type: "int64", keepZero: true },
    ],
  },
  "core.v1.Container": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "image", no: 2, type: "string" },
      { json: "command", no: 3, type: "string", repeated: true },
      { json: "args", no: 4, type: "string", repeated: true },
      { json: "workingDir", no: 5, type: "string" },
      { json: "ports", no: 6, type: "core.v1.ContainerPort", repeated: true },
      { json: "envFrom", no: 19, type: "core.v1.EnvFromSource", repeated: true },
      { json: "env", no: 7, type: "core.v1.EnvVar", repeated: true },
      { json: "resources", no: 8, type: "core.v1.ResourceRequirements" },
      { json: "resizePolicy", no: 23, type: "core.v1.ContainerResizePolicy", repeated: true },
      { json: "restartPolicy", no: 24, type: "string", keepZero: true },
      { json: "restartPolicyRules", no: 25, type: "core.v1.ContainerRestartRule", repeated: true },
      { json: "volumeMounts", no: 9, type: "core.v1.VolumeMount", repeated: true },
      { json: "volumeDevices", no: 21, type: "core.v1.VolumeDevice", repeated: true },
      { json: "livenessProbe", no: 10, type: "core.v1.Probe" },
      { json: "readinessProbe", no: 11, type: "core.v1.Probe" },
      { json: "startupProbe", no: 22, type: "core.v1.Probe" },
      { json: "lifecycle", no: 12, type: "core.v1.Lifecycle" },
      { json: "terminationMessagePath", no: 13, type: "string" },
      { json: "terminationMessagePolicy", no: 20, type: "string" },
      { json: "imagePullPolicy", no: 14, type: "string" },
      { json: "securityContext", no: 15, type: "core.v1.SecurityContext" },
      { json: "stdin", no: 16, type: "bool" },
      { json: "stdinOnce", no: 17, type: "bool" },
      { json: "tty", no: 18, type: "bool" },
    ],
  },
  "core.v1.ContainerExtendedResourceRequest": {
    fields: [
      { json: "containerName", no: 1, type: "string", keepZero: true },
      { json: "resourceName", no: 2, type: "string", keepZero: true },
      { json: "requestName", no: 3, type: "string", keepZero: true },
    ],
  },
  "core.v1.ContainerImage": {
    fields: [
      { json: "names", no: 1, type: "string", repeated: true },
      { json: "sizeBytes", no: 2, type: "int64" },
    ],
  },
  "core.v1.ContainerPort": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "hostPort", no: 2, type: "int32" },
      { json: "containerPort", no: 3, type: "int32", keepZero: true },
      { json: "protocol", no: 4, type: "string" },
      { json: "hostIP", no: 5, type: "string" },
    ],
  },
  "core.v1.ContainerResizePolicy": {
    fields: [
      { json: "resourceName", no: 1, type: "string", keepZero: true },
      { json: "restartPolicy", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.ContainerRestartRule": {
    fields: [
      { json: "action", no: 1, type: "string" },
      { json: "exitCodes", no: 2, type: "core.v1.ContainerRestartRuleOnExitCodes" },
    ],
  },
  "core.v1.ContainerRestartRuleOnExitCodes": {
    fields: [
      { json: "operator", no: 1, type: "string" },
      { json: "values", no: 2, type: "int32", repeated: true },
    ],
  },
  "core.v1.ContainerState": {
    fields: [
      { json: "waiting", no: 1, type: "core.v1.ContainerStateWaiting" },
      { json: "running", no: 2, type: "core.v1.ContainerStateRunning" },
      { json: "terminated", no: 3, type: "core.v1.ContainerStateTerminated" },
    ],
  },
  "core.v1.ContainerStateRunning": {
    fields: [
      { json: "startedAt", no: 1, type: "meta.v1.Time" },
    ],
  },
  "core.v1.ContainerStateTerminated": {
    fields: [
      { json: "exitCode", no: 1, type: "int32", keepZero: true },
      { json: "signal", no: 2, type: "int32" },
      { json: "reason", no: 3, type: "string" },
      { json: "message", no: 4, type: "string" },
      { json: "startedAt", no: 5, type: "meta.v1.Time" },
      { json: "finishedAt", no: 6, type: "meta.v1.Time" },
      { json: "containerID", no: 7, type: "string" },
    ],
  },
  "core.v1.ContainerStateWaiting": {
    fields: [
      { json: "reason", no: 1, type: "string" },
      { json: "message", no: 2, type: "string" },
    ],
  },
  "core.v1.ContainerStatus": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "state", no: 2, type: "core.v1.ContainerState" },
      { json: "lastState", no: 3, type: "core.v1.ContainerState" },
      { json: "ready", no: 4, type: "bool", keepZero: true },
      { json: "restartCount", no: 5, type: "int32", keepZero: true },
      { json: "image", no: 6, type: "string", keepZero: true },
      { json: "imageID", no: 7, type: "string", keepZero: true },
      { json: "containerID", no: 8, type: "string" },
      { json: "started", no: 9, type: "bool", keepZero: true },
      { json: "allocatedResources", no: 10, type: "resource.Quantity", map: true },
      { json: "resources", no: 11, type: "core.v1.ResourceRequirements" },
      { json: "volumeMounts", no: 12, type: "core.v1.VolumeMountStatus", repeated: true },
      { json: "user", no: 13, type: "core.v1.ContainerUser" },
      { json: "allocatedResourcesStatus", no: 14, type: "core.v1.ResourceStatus", repeated: true },
      { json: "stopSignal", no: 15, type: "string", keepZero: true },
    ],
  },
  "core.v1.ContainerUser": {
    fields: [
      { json: "linux", no: 1, type: "core.v1.LinuxContainerUser" },
    ],
  },
  "core.v1.DaemonEndpoint": {
    fields: [
      { json: "Port", no: 1, type: "int32", keepZero: true },
    ],
  },
  "core.v1.DownwardAPIProjection": {
    fields: [
      { json: "items", no: 1, type: "core.v1.DownwardAPIVolumeFile", repeated: true },
    ],
  },
  "core.v1.DownwardAPIVolumeFile": {
    fields: [
      { json: "path", no: 1, type: "string", keepZero: true },
      { json: "fieldRef", no: 2, type: "core.v1.ObjectFieldSelector" },
      { json: "resourceFieldRef", no: 3, type: "core.v1.ResourceFieldSelector" },
      { json: "mode", no: 4, type: "int32", keepZero: true },
      { json: "user", no: 5, type: "int64", keepZero: true },
    ],
  },
  "core.v1.DownwardAPIVolumeSource": {
    fields: [
      { json: "items", no: 1, type: "core.v1.DownwardAPIVolumeFile", repeated: true },
      { json: "defaultMode", no: 2, type: "int32", keepZero: true },
      { json: "defaultUser", no: 3, type: "int64", keepZero: true },
    ],
  },
  "core.v1.EmptyDirVolumeSource": {
    fields: [
      { json: "medium", no: 1, type: "string" },
      { json: "sizeLimit", no: 2, type: "resource.Quantity" },
      { json: "mode", no: 3, type: "int32", keepZero: true },
    ],
  },
  "core.v1.EndpointAddress": {
    fields: [
      { json: "ip", no: 1, type: "string", keepZero: true },
      { json: "hostname", no: 3, type: "string" },
      { json: "nodeName", no: 4, type: "string", keepZero: true },
      { json: "targetRef", no: 2, type: "core.v1.ObjectReference" },
    ],
  },
  "core.v1.EndpointPort": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "port", no: 2, type: "int32", keepZero: true },
      { json: "protocol", no: 3, type: "string" },
      { json: "appProtocol", no: 4, type: "string", keepZero: true },
    ],
  },
  "core.v1.EndpointSubset": {
    fields: [
      { json: "addresses", no: 1, type: "core.v1.EndpointAddress", repeated: true },
      { json: "notReadyAddresses", no: 2, type: "core.v1.EndpointAddress", repeated: true },
      { json: "ports", no: 3, type: "core.v1.EndpointPort", repeated: true },
    ],
  },
  "core.v1.Endpoints": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "subsets", no: 2, type: "core.v1.EndpointSubset", repeated: true },
    ],
  },
  "core.v1.EndpointsList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.Endpoints", repeated: true },
    ],
  },
  "core.v1.EnvFromSource": {
    fields: [
      { json: "prefix", no: 1, type: "string" },
      { json: "configMapRef", no: 2, type: "core.v1.ConfigMapEnvSource" },
      { json: "secretRef", no: 3, type: "core.v1.SecretEnvSource" },
    ],
  },
  "core.v1.EnvVar": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "value", no: 2, type: "string" },
      { json: "valueFrom", no: 3, type: "core.v1.EnvVarSource" },
    ],
  },
  "core.v1.EnvVarSource": {
    fields: [
      { json: "fieldRef", no: 1, type: "core.v1.ObjectFieldSelector" },
      { json: "resourceFieldRef", no: 2, type: "core.v1.ResourceFieldSelector" },
      { json: "configMapKeyRef", no: 3, type: "core.v1.ConfigMapKeySelector" },
      { json: "secretKeyRef", no: 4, type: "core.v1.SecretKeySelector" },
      { json: "fileKeyRef", no: 5, type: "core.v1.FileKeySelector" },
    ],
  },
  "core.v1.EphemeralContainer": {
    fields: [
      { json: "", no: 1, type: "core.v1.EphemeralContainerCommon" },
      { json: "targetContainerName", no: 2, type: "string" },
    ],
  },
  "core.v1.EphemeralContainerCommon": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "image", no: 2, type: "string" },
      { json: "command", no: 3, type: "string", repeated: true },
      { json: "args", no: 4, type: "string", repeated: true },
      { json: "workingDir", no: 5, type: "string" },
      { json: "ports", no: 6, type: "core.v1.ContainerPort", repeated: true },
      { json: "envFrom", no: 19, type: "core.v1.EnvFromSource", repeated: true },
      { json: "env", no: 7, type: "core.v1.EnvVar", repeated: true },
      { json: "resources", no: 8, type: "core.v1.ResourceRequirements" },
      { json: "resizePolicy", no: 23, type: "core.v1.ContainerResizePolicy", repeated: true },
      { json: "restartPolicy", no: 24, type: "string", keepZero: true },
      { json: "restartPolicyRules", no: 25, type: "core.v1.ContainerRestartRule", repeated: true },
      { json: "volumeMounts", no: 9, type: "core.v1.VolumeMount", repeated: true },
      { json: "volumeDevices", no: 21, type: "core.v1.VolumeDevice", repeated: true },
      { json: "livenessProbe", no: 10, type: "core.v1.Probe" },
      { json: "readinessProbe", no: 11, type: "core.v1.Probe" },
      { json: "startupProbe", no: 22, type: "core.v1.Probe" },
      { json: "lifecycle", no: 12, type: "core.v1.Lifecycle" },
      { json: "terminationMessagePath", no: 13, type: "string" },
      { json: "terminationMessagePolicy", no: 20, type: "string" },
      { json: "imagePullPolicy", no: 14, type: "string" },
      { json: "securityContext", no: 15, type: "core.v1.SecurityContext" },
      { json: "stdin", no: 16, type: "bool" },
      { json: "stdinOnce", no: 17, type: "bool" },
      { json: "tty", no: 18, type: "bool" },
    ],
  },
  "core.v1.EphemeralVolumeSource": {
    fields: [
      { json: "volumeClaimTemplate", no: 1, type: "core.v1.PersistentVolumeClaimTemplate" },
    ],
  },
  "core.v1.Event": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "involvedObject", no: 2, type: "core.v1.ObjectReference" },
      { json: "reason", no: 3, type: "string" },
      { json: "message", no: 4, type: "string" },
      { json: "source", no: 5, type: "core.v1.EventSource" },
      { json: "firstTimestamp", no: 6, type: "meta.v1.Time" },
      { json: "lastTimestamp", no: 7, type: "meta.v1.Time" },
      { json: "count", no: 8, type: "int32" },
      { json: "type", no: 9, type: "string" },
      { json: "eventTime", no: 10, type: "meta.v1.MicroTime" },
      { json: "series", no: 11, type: "core.v1.EventSeries" },
      { json: "action", no: 12, type: "string" },
      { json: "related", no: 13, type: "core.v1.ObjectReference" },
      { json: "reportingComponent", no: 14, type: "string", keepZero: true },
      { json: "reportingInstance", no: 15, type: "string", keepZero: true },
    ],
  },
  "core.v1.EventList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.Event", repeated: true },
    ],
  },
  "core.v1.EventSeries": {
    fields: [
      { json: "count", no: 1, type: "int32" },
      { json: "lastObservedTime", no: 2, type: "meta.v1.MicroTime" },
    ],
  },
  "core.v1.EventSource": {
    fields: [
      { json: "component", no: 1, type: "string" },
      { json: "host", no: 2, type: "string" },
    ],
  },
  "core.v1.EvictionResponder": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "priority", no: 2, type: "int32", keepZero: true },
    ],
  },
  "core.v1.ExecAction": {
    fields: [
      { json: "command", no: 1, type: "string", repeated: true },
    ],
  },
  "core.v1.FCVolumeSource": {
    fields: [
      { json: "targetWWNs", no: 1, type: "string", repeated: true },
      { json: "lun", no: 2, type: "int32", keepZero: true },
      { json: "fsType", no: 3, type: "string" },
      { json: "readOnly", no: 4, type: "bool" },
      { json: "wwids", no: 5, type: "string", repeated: true },
    ],
  },
  "core.v1.FileKeySelector": {
    fields: [
      { json: "volumeName", no: 1, type: "string", keepZero: true },
      { json: "path", no: 2, type: "string", keepZero: true },
      { json: "key", no: 3, type: "string", keepZero: true },
      { json: "optional", no: 4, type: "bool", keepZero: true },
    ],
  },
  "core.v1.FlexPersistentVolumeSource": {
    fields: [
      { json: "driver", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "secretRef", no: 3, type: "core.v1.SecretReference" },
      { json: "readOnly", no: 4, type: "bool" },
      { json: "options", no: 5, type: "string", map: true },
    ],
  },
  "core.v1.FlexVolumeSource": {
    fields: [
      { json: "driver", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "secretRef", no: 3, type: "core.v1.LocalObjectReference" },
      { json: "readOnly", no: 4, type: "bool" },
      { json: "options", no: 5, type: "string", map: true },
    ],
  },
  "core.v1.FlockerVolumeSource": {
    fields: [
      { json: "datasetName", no: 1, type: "string" },
      { json: "datasetUUID", no: 2, type: "string" },
    ],
  },
  "core.v1.GCEPersistentDiskVolumeSource": {
    fields: [
      { json: "pdName", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "partition", no: 3, type: "int32" },
      { json: "readOnly", no: 4, type: "bool" },
    ],
  },
  "core.v1.GRPCAction": {
    fields: [
      { json: "port", no: 1, type: "int32", keepZero: true },
      { json: "service", no: 2, type: "string", keepZero: true },
      { json: "mode", no: 3, type: "string", keepZero: true },
    ],
  },
  "core.v1.GitRepoVolumeSource": {
    fields: [
      { json: "repository", no: 1, type: "string", keepZero: true },
      { json: "revision", no: 2, type: "string" },
      { json: "directory", no: 3, type: "string" },
    ],
  },
  "core.v1.GlusterfsPersistentVolumeSource": {
    fields: [
      { json: "endpoints", no: 1, type: "string", keepZero: true },
      { json: "path", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
      { json: "endpointsNamespace", no: 4, type: "string", keepZero: true },
    ],
  },
  "core.v1.GlusterfsVolumeSource": {
    fields: [
      { json: "endpoints", no: 1, type: "string", keepZero: true },
      { json: "path", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
    ],
  },
  "core.v1.HTTPGetAction": {
    fields: [
      { json: "path", no: 1, type: "string" },
      { json: "port", no: 2, type: "intstr.IntOrString" },
      { json: "host", no: 3, type: "string" },
      { json: "scheme", no: 4, type: "string" },
      { json: "httpHeaders", no: 5, type: "core.v1.HTTPHeader", repeated: true },
      { json: "protocol", no: 6, type: "string", keepZero: true },
    ],
  },
  "core.v1.HTTPHeader": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "value", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.HostAlias": {
    fields: [
      { json: "ip", no: 1, type: "string", keepZero: true },
      { json: "hostnames", no: 2, type: "string", repeated: true },
    ],
  },
  "core.v1.HostIP": {
    fields: [
      { json: "ip", no: 1, type: "string", keepZero: true },
    ],
  },
  "core.v1.HostPathVolumeSource": {
    fields: [
      { json: "path", no: 1, type: "string", keepZero: true },
      { json: "type", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.ISCSIPersistentVolumeSource": {
    fields: [
      { json: "targetPortal", no: 1, type: "string", keepZero: true },
      { json: "iqn", no: 2, type: "string", keepZero: true },
      { json: "lun", no: 3, type: "int32", keepZero: true },
      { json: "iscsiInterface", no: 4, type: "string" },
      { json: "fsType", no: 5, type: "string" },
      { json: "readOnly", no: 6, type: "bool" },
      { json: "portals", no: 7, type: "string", repeated: true },
      { json: "chapAuthDiscovery", no: 8, type: "bool" },
      { json: "chapAuthSession", no: 11, type: "bool" },
      { json: "secretRef", no: 10, type: "core.v1.SecretReference" },
      { json: "initiatorName", no: 12, type: "string", keepZero: true },
    ],
  },
  "core.v1.ISCSIVolumeSource": {
    fields: [
      { json: "targetPortal", no: 1, type: "string", keepZero: true },
      { json: "iqn", no: 2, type: "string", keepZero: true },
      { json: "lun", no: 3, type: "int32", keepZero: true },
      { json: "iscsiInterface", no: 4, type: "string" },
      { json: "fsType", no: 5, type: "string" },
      { json: "readOnly", no: 6, type: "bool" },
      { json: "portals", no: 7, type: "string", repeated: true },
      { json: "chapAuthDiscovery", no: 8, type: "bool" },
      { json: "chapAuthSession", no: 11, type: "bool" },
      { json: "secretRef", no: 10, type: "core.v1.LocalObjectReference" },
      { json: "initiatorName", no: 12, type: "string", keepZero: true },
    ],
  },
  "core.v1.ImageVolumeSource": {
    fields: [
      { json: "reference", no: 1, type: "string" },
      { json: "pullPolicy", no: 2, type: "string" },
    ],
  },
  "core.v1.ImageVolumeStatus": {
    fields: [
      { json: "imageRef", no: 1, type: "string" },
    ],
  },
  "core.v1.KeyToPath": {
    fields: [
      { json: "key", no: 1, type: "string", keepZero: true },
      { json: "path", no: 2, type: "string", keepZero: true },
      { json: "mode", no: 3, type: "int32", keepZero: true },
      { json: "user", no: 4, type: "int64", keepZero: true },
    ],
  },
  "core.v1.Lifecycle": {
    fields: [
      { json: "postStart", no: 1, type: "core.v1.LifecycleHandler" },
      { json: "preStop", no: 2, type: "core.v1.LifecycleHandler" },
      { json: "stopSignal", no: 3, type: "string", keepZero: true },
    ],
  },
  "core.v1.LifecycleHandler": {
    fields: [
      { json: "exec", no: 1, type: "core.v1.ExecAction" },
      { json: "httpGet", no: 2, type: "core.v1.HTTPGetAction" },
      { json: "tcpSocket", no: 3, type: "core.v1.TCPSocketAction" },
      { json: "sleep", no: 4, type: "core.v1.SleepAction" },
    ],
  },
  "core.v1.LimitRange": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.LimitRangeSpec" },
    ],
  },
  "core.v1.LimitRangeItem": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "max", no: 2, type: "resource.Quantity", map: true },
      { json: "min", no: 3, type: "resource.Quantity", map: true },
      { json: "default", no: 4, type: "resource.Quantity", map: true },
      { json: "defaultRequest", no: 5, type: "resource.Quantity", map: true },
      { json: "maxLimitRequestRatio", no: 6, type: "resource.Quantity", map: true },
    ],
  },
  "core.v1.LimitRangeList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.LimitRange", repeated: true },
    ],
  },
  "core.v1.LimitRangeSpec": {
    fields: [
      { json: "limits", no: 1, type: "core.v1.LimitRangeItem", repeated: true },
    ],
  },
  "core.v1.LinuxContainerUser": {
    fields: [
      { json: "uid", no: 1, type: "int64", keepZero: true },
      { json: "gid", no: 2, type: "int64", keepZero: true },
      { json: "supplementalGroups", no: 3, type: "int64", repeated: true },
    ],
  },
  "core.v1.List": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "runtime.RawExtension", repeated: true },
    ],
  },
  "core.v1.LoadBalancerIngress": {
    fields: [
      { json: "ip", no: 1, type: "string" },
      { json: "hostname", no: 2, type: "string" },
      { json: "ipMode", no: 3, type: "string", keepZero: true },
      { json: "ports", no: 4, type: "core.v1.PortStatus", repeated: true },
    ],
  },
  "core.v1.LoadBalancerStatus": {
    fields: [
      { json: "ingress", no: 1, type: "core.v1.LoadBalancerIngress", repeated: true },
    ],
  },
  "core.v1.LocalObjectReference": {
    fields: [
      { json: "name", no: 1, type: "string" },
    ],
  },
  "core.v1.LocalVolumeSource": {
    fields: [
      { json: "path", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.ModifyVolumeStatus": {
    fields: [
      { json: "targetVolumeAttributesClassName", no: 1, type: "string" },
      { json: "status", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.NFSVolumeSource": {
    fields: [
      { json: "server", no: 1, type: "string", keepZero: true },
      { json: "path", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
    ],
  },
  "core.v1.Namespace": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.NamespaceSpec" },
      { json: "status", no: 3, type: "core.v1.NamespaceStatus" },
    ],
  },
  "core.v1.NamespaceCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "lastTransitionTime", no: 4, type: "meta.v1.Time" },
      { json: "reason", no: 5, type: "string" },
      { json: "message", no: 6, type: "string" },
    ],
  },
  "core.v1.NamespaceList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.Namespace", repeated: true },
    ],
  },
  "core.v1.NamespaceSpec": {
    fields: [
      { json: "finalizers", no: 1, type: "string", repeated: true },
    ],
  },
  "core.v1.NamespaceStatus": {
    fields: [
      { json: "phase", no: 1, type: "string" },
      { json: "conditions", no: 2, type: "core.v1.NamespaceCondition", repeated: true },
    ],
  },
  "core.v1.Node": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.NodeSpec" },
      { json: "status", no: 3, type: "core.v1.NodeStatus" },
    ],
  },
  "core.v1.NodeAddress": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "address", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.NodeAffinity": {
    fields: [
      { json: "requiredDuringSchedulingIgnoredDuringExecution", no: 1, type: "core.v1.NodeSelector" },
      { json: "preferredDuringSchedulingIgnoredDuringExecution", no: 2, type: "core.v1.PreferredSchedulingTerm", repeated: true },
    ],
  },
  "core.v1.NodeAllocatableMappedResources": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "quantity", no: 2, type: "resource.Quantity" },
    ],
  },
  "core.v1.NodeAllocatableOverheadResources": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "perPod", no: 2, type: "resource.Quantity" },
      { json: "perContainer", no: 3, type: "resource.Quantity" },
    ],
  },
  "core.v1.NodeAllocatableResourceClaimStatus": {
    fields: [
      { json: "resourceClaimName", no: 1, type: "string", keepZero: true },
      { json: "containers", no: 2, type: "string", repeated: true },
      // v1.36 had this map at 3; master replaced it with mapping (4) and overhead (5). Kept so 1.36 clients decode.
      { json: "resources", no: 3, type: "resource.Quantity", map: true },
      { json: "mapping", no: 4, type: "core.v1.NodeAllocatableMappedResources", repeated: true },
      { json: "overhead", no: 5, type: "core.v1.NodeAllocatableOverheadResources", repeated: true },
    ],
  },
  "core.v1.NodeCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "lastHeartbeatTime", no: 3, type: "meta.v1.Time" },
      { json: "lastTransitionTime", no: 4, type: "meta.v1.Time" },
      { json: "reason", no: 5, type: "string" },
      { json: "message", no: 6, type: "string" },
    ],
  },
  "core.v1.NodeConfigSource": {
    fields: [
      { json: "configMap", no: 2, type: "core.v1.ConfigMapNodeConfigSource" },
    ],
  },
  "core.v1.NodeConfigStatus": {
    fields: [
      { json: "assigned", no: 1, type: "core.v1.NodeConfigSource" },
      { json: "active", no: 2, type: "core.v1.NodeConfigSource" },
      { json: "lastKnownGood", no: 3, type: "core.v1.NodeConfigSource" },
      { json: "error", no: 4, type: "string" },
    ],
  },
  "core.v1.NodeDaemonEndpoints": {
    fields: [
      { json: "kubeletEndpoint", no: 1, type: "core.v1.DaemonEndpoint" },
    ],
  },
  "core.v1.NodeFeatures": {
    fields: [
      { json: "supplementalGroupsPolicy", no: 1, type: "bool", keepZero: true },
    ],
  },
  "core.v1.NodeList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.Node", repeated: true },
    ],
  },
  "core.v1.NodePodPreemptionPolicy": {
    fields: [
      { json: "disableResizePreemption", no: 1, type: "string", repeated: true },
    ],
  },
  "core.v1.NodeProxyOptions": {
    fields: [
      { json: "path", no: 1, type: "string" },
    ],
  },
  "core.v1.NodeRuntimeHandler": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "features", no: 2, type: "core.v1.NodeRuntimeHandlerFeatures" },
    ],
  },
  "core.v1.NodeRuntimeHandlerFeatures": {
    fields: [
      { json: "recursiveReadOnlyMounts", no: 1, type: "bool", keepZero: true },
      { json: "userNamespaces", no: 2, type: "bool", keepZero: true },
    ],
  },
  "core.v1.NodeSelector": {
    fields: [
      { json: "nodeSelectorTerms", no: 1, type: "core.v1.NodeSelectorTerm", repeated: true },
    ],
  },
  "core.v1.NodeSelectorRequirement": {
    fields: [
      { json: "key", no: 1, type: "string", keepZero: true },
      { json: "operator", no: 2, type: "string", keepZero: true },
      { json: "values", no: 3, type: "string", repeated: true },
    ],
  },
  "core.v1.NodeSelectorTerm": {
    fields: [
      { json: "matchExpressions", no: 1, type: "core.v1.NodeSelectorRequirement", repeated: true },
      { json: "matchFields", no: 2, type: "core.v1.NodeSelectorRequirement", repeated: true },
    ],
  },
  "core.v1.NodeSpec": {
    fields: [
      { json: "podCIDR", no: 1, type: "string" },
      { json: "podCIDRs", no: 7, type: "string", repeated: true },
      { json: "providerID", no: 3, type: "string" },
      { json: "unschedulable", no: 4, type: "bool" },
      { json: "taints", no: 5, type: "core.v1.Taint", repeated: true },
      { json: "configSource", no: 6, type: "core.v1.NodeConfigSource" },
      { json: "externalID", no: 2, type: "string" },
      { json: "podPreemptionPolicy", no: 8, type: "core.v1.NodePodPreemptionPolicy" },
    ],
  },
  "core.v1.NodeStatus": {
    fields: [
      { json: "capacity", no: 1, type: "resource.Quantity", map: true },
      { json: "allocatable", no: 2, type: "resource.Quantity", map: true },
      { json: "phase", no: 3, type: "string" },
      { json: "conditions", no: 4, type: "core.v1.NodeCondition", repeated: true },
      { json: "addresses", no: 5, type: "core.v1.NodeAddress", repeated: true },
      { json: "daemonEndpoints", no: 6, type: "core.v1.NodeDaemonEndpoints" },
      { json: "nodeInfo", no: 7, type: "core.v1.NodeSystemInfo" },
      { json: "images", no: 8, type: "core.v1.ContainerImage", repeated: true },
      { json: "volumesInUse", no: 9, type: "string", repeated: true },
      { json: "volumesAttached", no: 10, type: "core.v1.AttachedVolume", repeated: true },
      { json: "config", no: 11, type: "core.v1.NodeConfigStatus" },
      { json: "runtimeHandlers", no: 12, type: "core.v1.NodeRuntimeHandler", repeated: true },
      { json: "features", no: 13, type: "core.v1.NodeFeatures" },
      { json: "declaredFeatures", no: 14, type: "string", repeated: true },
    ],
  },
  "core.v1.NodeSwapStatus": {
    fields: [
      { json: "capacity", no: 1, type: "int64", keepZero: true },
    ],
  },
  "core.v1.NodeSystemInfo": {
    fields: [
      { json: "machineID", no: 1, type: "string", keepZero: true },
      { json: "systemUUID", no: 2, type: "string", keepZero: true },
      { json: "bootID", no: 3, type: "string", keepZero: true },
      { json: "kernelVersion", no: 4, type: "string", keepZero: true },
      { json: "osImage", no: 5, type: "string", keepZero: true },
      { json: "containerRuntimeVersion", no: 6, type: "string", keepZero: true },
      { json: "kubeletVersion", no: 7, type: "string", keepZero: true },
      { json: "kubeProxyVersion", no: 8, type: "string", keepZero: true },
      { json: "operatingSystem", no: 9, type: "string", keepZero: true },
      { json: "architecture", no: 10, type: "string", keepZero: true },
      { json: "swap", no: 11, type: "core.v1.NodeSwapStatus" },
    ],
  },
  "core.v1.ObjectFieldSelector": {
    fields: [
      { json: "apiVersion", no: 1, type: "string" },
      { json: "fieldPath", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.ObjectReference": {
    fields: [
      { json: "kind", no: 1, type: "string" },
      { json: "namespace", no: 2, type: "string" },
      { json: "name", no: 3, type: "string" },
      { json: "uid", no: 4, type: "string" },
      { json: "apiVersion", no: 5, type: "string" },
      { json: "resourceVersion", no: 6, type: "string" },
      { json: "fieldPath", no: 7, type: "string" },
    ],
  },
  "core.v1.PersistentVolume": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.PersistentVolumeSpec" },
      { json: "status", no: 3, type: "core.v1.PersistentVolumeStatus" },
    ],
  },
  "core.v1.PersistentVolumeClaim": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.PersistentVolumeClaimSpec" },
      { json: "status", no: 3, type: "core.v1.PersistentVolumeClaimStatus" },
    ],
  },
  "core.v1.PersistentVolumeClaimCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "lastProbeTime", no: 3, type: "meta.v1.Time" },
      { json: "lastTransitionTime", no: 4, type: "meta.v1.Time" },
      { json: "reason", no: 5, type: "string" },
      { json: "message", no: 6, type: "string" },
    ],
  },
  "core.v1.PersistentVolumeClaimList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.PersistentVolumeClaim", repeated: true },
    ],
  },
  "core.v1.PersistentVolumeClaimSpec": {
    fields: [
      { json: "accessModes", no: 1, type: "string", repeated: true },
      { json: "selector", no: 4, type: "meta.v1.LabelSelector" },
      { json: "resources", no: 2, type: "core.v1.VolumeResourceRequirements" },
      { json: "volumeName", no: 3, type: "string" },
      { json: "storageClassName", no: 5, type: "string", keepZero: true },
      { json: "volumeMode", no: 6, type: "string", keepZero: true },
      { json: "dataSource", no: 7, type: "core.v1.TypedLocalObjectReference" },
      { json: "dataSourceRef", no: 8, type: "core.v1.TypedObjectReference" },
      { json: "volumeAttributesClassName", no: 9, type: "string", keepZero: true },
    ],
  },
  "core.v1.PersistentVolumeClaimStatus": {
    fields: [
      { json: "phase", no: 1, type: "string" },
      { json: "accessModes", no: 2, type: "string", repeated: true },
      { json: "capacity", no: 3, type: "resource.Quantity", map: true },
      { json: "conditions", no: 4, type: "core.v1.PersistentVolumeClaimCondition", repeated: true },
      { json: "allocatedResources", no: 5, type: "resource.Quantity", map: true },
      { json: "allocatedResourceStatuses", no: 7, type: "string", map: true },
      { json: "currentVolumeAttributesClassName", no: 8, type: "string", keepZero: true },
      { json: "modifyVolumeStatus", no: 9, type: "core.v1.ModifyVolumeStatus" },
      { json: "healthStatus", no: 10, type: "core.v1.VolumeHealthStatus" },
    ],
  },
  "core.v1.PersistentVolumeClaimTemplate": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.PersistentVolumeClaimSpec" },
    ],
  },
  "core.v1.PersistentVolumeClaimVolumeSource": {
    fields: [
      { json: "claimName", no: 1, type: "string", keepZero: true },
      { json: "readOnly", no: 2, type: "bool" },
    ],
  },
  "core.v1.PersistentVolumeList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.PersistentVolume", repeated: true },
    ],
  },
  "core.v1.PersistentVolumeSource": {
    fields: [
      { json: "gcePersistentDisk", no: 1, type: "core.v1.GCEPersistentDiskVolumeSource" },
      { json: "awsElasticBlockStore", no: 2, type: "core.v1.AWSElasticBlockStoreVolumeSource" },
      { json: "hostPath", no: 3, type: "core.v1.HostPathVolumeSource" },
      { json: "glusterfs", no: 4, type: "core.v1.GlusterfsPersistentVolumeSource" },
      { json: "nfs", no: 5, type: "core.v1.NFSVolumeSource" },
      { json: "rbd", no: 6, type: "core.v1.RBDPersistentVolumeSource" },
      { json: "iscsi", no: 7, type: "core.v1.ISCSIPersistentVolumeSource" },
      { json: "cinder", no: 8, type: "core.v1.CinderPersistentVolumeSource" },
      { json: "cephfs", no: 9, type: "core.v1.CephFSPersistentVolumeSource" },
      { json: "fc", no: 10, type: "core.v1.FCVolumeSource" },
      { json: "flocker", no: 11, type: "core.v1.FlockerVolumeSource" },
      { json: "flexVolume", no: 12, type: "core.v1.FlexPersistentVolumeSource" },
      { json: "azureFile", no: 13, type: "core.v1.AzureFilePersistentVolumeSource" },
      { json: "vsphereVolume", no: 14, type: "core.v1.VsphereVirtualDiskVolumeSource" },
      { json: "quobyte", no: 15, type: "core.v1.QuobyteVolumeSource" },
      { json: "azureDisk", no: 16, type: "core.v1.AzureDiskVolumeSource" },
      { json: "photonPersistentDisk", no: 17, type: "core.v1.PhotonPersistentDiskVolumeSource" },
      { json: "portworxVolume", no: 18, type: "core.v1.PortworxVolumeSource" },
      { json: "scaleIO", no: 19, type: "core.v1.ScaleIOPersistentVolumeSource" },
      { json: "local", no: 20, type: "core.v1.LocalVolumeSource" },
      { json: "storageos", no: 21, type: "core.v1.StorageOSPersistentVolumeSource" },
      { json: "csi", no: 22, type: "core.v1.CSIPersistentVolumeSource" },
    ],
  },
  "core.v1.PersistentVolumeSpec": {
    fields: [
      { json: "capacity", no: 1, type: "resource.Quantity", map: true },
      { json: "", no: 2, type: "core.v1.PersistentVolumeSource" },
      { json: "accessModes", no: 3, type: "string", repeated: true },
      { json: "claimRef", no: 4, type: "core.v1.ObjectReference" },
      { json: "persistentVolumeReclaimPolicy", no: 5, type: "string" },
      { json: "storageClassName", no: 6, type: "string" },
      { json: "mountOptions", no: 7, type: "string", repeated: true },
      { json: "volumeMode", no: 8, type: "string", keepZero: true },
      { json: "nodeAffinity", no: 9, type: "core.v1.VolumeNodeAffinity" },
      { json: "volumeAttributesClassName", no: 10, type: "string", keepZero: true },
    ],
  },
  "core.v1.PersistentVolumeStatus": {
    fields: [
      { json: "phase", no: 1, type: "string" },
      { json: "message", no: 2, type: "string" },
      { json: "reason", no: 3, type: "string" },
      { json: "lastPhaseTransitionTime", no: 4, type: "meta.v1.Time" },
    ],
  },
  "core.v1.PhotonPersistentDiskVolumeSource": {
    fields: [
      { json: "pdID", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
    ],
  },
  "core.v1.Pod": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.PodSpec" },
      { json: "status", no: 3, type: "core.v1.PodStatus" },
    ],
  },
  "core.v1.PodAffinity": {
    fields: [
      { json: "requiredDuringSchedulingIgnoredDuringExecution", no: 1, type: "core.v1.PodAffinityTerm", repeated: true },
      { json: "preferredDuringSchedulingIgnoredDuringExecution", no: 2, type: "core.v1.WeightedPodAffinityTerm", repeated: true },
    ],
  },
  "core.v1.PodAffinityTerm": {
    fields: [
      { json: "labelSelector", no: 1, type: "meta.v1.LabelSelector" },
      { json: "namespaces", no: 2, type: "string", repeated: true },
      { json: "topologyKey", no: 3, type: "string", keepZero: true },
      { json: "namespaceSelector", no: 4, type: "meta.v1.LabelSelector" },
      { json: "matchLabelKeys", no: 5, type: "string", repeated: true },
      { json: "mismatchLabelKeys", no: 6, type: "string", repeated: true },
    ],
  },
  "core.v1.PodAntiAffinity": {
    fields: [
      { json: "requiredDuringSchedulingIgnoredDuringExecution", no: 1, type: "core.v1.PodAffinityTerm", repeated: true },
      { json: "preferredDuringSchedulingIgnoredDuringExecution", no: 2, type: "core.v1.WeightedPodAffinityTerm", repeated: true },
    ],
  },
  "core.v1.PodAttachOptions": {
    fields: [
      { json: "stdin", no: 1, type: "bool" },
      { json: "stdout", no: 2, type: "bool" },
      { json: "stderr", no: 3, type: "bool" },
      { json: "tty", no: 4, type: "bool" },
      { json: "container", no: 5, type: "string" },
    ],
  },
  "core.v1.PodCertificateProjection": {
    fields: [
      { json: "signerName", no: 1, type: "string" },
      { json: "keyType", no: 2, type: "string" },
      { json: "maxExpirationSeconds", no: 3, type: "int32", keepZero: true },
      { json: "credentialBundlePath", no: 4, type: "string" },
      { json: "keyPath", no: 5, type: "string" },
      { json: "certificateChainPath", no: 6, type: "string" },
      { json: "userAnnotations", no: 7, type: "string", map: true },
      { json: "user", no: 8, type: "int64", keepZero: true },
    ],
  },
  "core.v1.PodCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "observedGeneration", no: 7, type: "int64" },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "lastProbeTime", no: 3, type: "meta.v1.Time" },
      { json: "lastTransitionTime", no: 4, type: "meta.v1.Time" },
      { json: "reason", no: 5, type: "string" },
      { json: "message", no: 6, type: "string" },
    ],
  },
  "core.v1.PodDNSConfig": {
    fields: [
      { json: "nameservers", no: 1, type: "string", repeated: true },
      { json: "searches", no: 2, type: "string", repeated: true },
      { json: "options", no: 3, type: "core.v1.PodDNSConfigOption", repeated: true },
    ],
  },
  "core.v1.PodDNSConfigOption": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "value", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodExecOptions": {
    fields: [
      { json: "stdin", no: 1, type: "bool" },
      { json: "stdout", no: 2, type: "bool" },
      { json: "stderr", no: 3, type: "bool" },
      { json: "tty", no: 4, type: "bool" },
      { json: "container", no: 5, type: "string" },
      { json: "command", no: 6, type: "string", repeated: true },
    ],
  },
  "core.v1.PodExtendedResourceClaimStatus": {
    fields: [
      { json: "requestMappings", no: 1, type: "core.v1.ContainerExtendedResourceRequest", repeated: true },
      { json: "resourceClaimName", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodIP": {
    fields: [
      { json: "ip", no: 1, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.Pod", repeated: true },
    ],
  },
  "core.v1.PodLogOptions": {
    fields: [
      { json: "container", no: 1, type: "string" },
      { json: "follow", no: 2, type: "bool" },
      { json: "previous", no: 3, type: "bool" },
      { json: "sinceSeconds", no: 4, type: "int64", keepZero: true },
      { json: "sinceTime", no: 5, type: "meta.v1.Time" },
      { json: "timestamps", no: 6, type: "bool" },
      { json: "tailLines", no: 7, type: "int64", keepZero: true },
      { json: "limitBytes", no: 8, type: "int64", keepZero: true },
      { json: "insecureSkipTLSVerifyBackend", no: 9, type: "bool" },
      { json: "stream", no: 10, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodOS": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodPortForwardOptions": {
    fields: [
      { json: "ports", no: 1, type: "int32", repeated: true },
    ],
  },
  "core.v1.PodProxyOptions": {
    fields: [
      { json: "path", no: 1, type: "string" },
    ],
  },
  "core.v1.PodReadinessGate": {
    fields: [
      { json: "conditionType", no: 1, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodResourceClaim": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "resourceClaimName", no: 3, type: "string", keepZero: true },
      { json: "resourceClaimTemplateName", no: 4, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodResourceClaimStatus": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "resourceClaimName", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodSchedulingGate": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodSchedulingGroup": {
    fields: [
      { json: "podGroupName", no: 1, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodSecurityContext": {
    fields: [
      { json: "seLinuxOptions", no: 1, type: "core.v1.SELinuxOptions" },
      { json: "windowsOptions", no: 8, type: "core.v1.WindowsSecurityContextOptions" },
      { json: "runAsUser", no: 2, type: "int64", keepZero: true },
      { json: "runAsGroup", no: 6, type: "int64", keepZero: true },
      { json: "runAsNonRoot", no: 3, type: "bool", keepZero: true },
      { json: "supplementalGroups", no: 4, type: "int64", repeated: true },
      { json: "supplementalGroupsPolicy", no: 12, type: "string", keepZero: true },
      { json: "fsGroup", no: 5, type: "int64", keepZero: true },
      { json: "sysctls", no: 7, type: "core.v1.Sysctl", repeated: true },
      { json: "fsGroupChangePolicy", no: 9, type: "string", keepZero: true },
      { json: "seccompProfile", no: 10, type: "core.v1.SeccompProfile" },
      { json: "appArmorProfile", no: 11, type: "core.v1.AppArmorProfile" },
      { json: "seLinuxChangePolicy", no: 13, type: "string", keepZero: true },
    ],
  },
  "core.v1.PodSignature": {
    fields: [
      { json: "podController", no: 1, type: "meta.v1.OwnerReference" },
    ],
  },
  "core.v1.PodSpec": {
    fields: [
      { json: "volumes", no: 1, type: "core.v1.Volume", repeated: true },
      { json: "initContainers", no: 20, type: "core.v1.Container", repeated: true },
      { json: "containers", no: 2, type: "core.v1.Container", repeated: true },
      { json: "ephemeralContainers", no: 34, type: "core.v1.EphemeralContainer", repeated: true },
      { json: "restartPolicy", no: 3, type: "string" },
      { json: "terminationGracePeriodSeconds", no: 4, type: "int64", keepZero: true },
      { json: "activeDeadlineSeconds", no: 5, type: "int64", keepZero: true },
      { json: "dnsPolicy", no: 6, type: "string" },
      { json: "nodeSelector", no: 7, type: "string", map: true },
      { json: "serviceAccountName", no: 8, type: "string" },
      { json: "serviceAccount", no: 9, type: "string" },
      { json: "automountServiceAccountToken", no: 21, type: "bool", keepZero: true },
      { json: "nodeName", no: 10, type: "string" },
      { json: "hostNetwork", no: 11, type: "bool" },
      { json: "hostPID", no: 12, type: "bool" },
      { json: "hostIPC", no: 13, type: "bool" },
      { json: "shareProcessNamespace", no: 27, type: "bool", keepZero: true },
      { json: "securityContext", no: 14, type: "core.v1.PodSecurityContext" },
      { json: "imagePullSecrets", no: 15, type: "core.v1.LocalObjectReference", repeated: true },
      { json: "hostname", no: 16, type: "string" },
      { json: "subdomain", no: 17, type: "string" },
      { json: "affinity", no: 18, type: "core.v1.Affinity" },
      { json: "schedulerName", no: 19, type: "string" },
      { json: "tolerations", no: 22, type: "core.v1.Toleration", repeated: true },
      { json: "hostAliases", no: 23, type: "core.v1.HostAlias", repeated: true },
      { json: "priorityClassName", no: 24, type: "string" },
      { json: "priority", no: 25, type: "int32", keepZero: true },
      { json: "dnsConfig", no: 26, type: "core.v1.PodDNSConfig" },
      { json: "readinessGates", no: 28, type: "core.v1.PodReadinessGate", repeated: true },
      { json: "runtimeClassName", no: 29, type: "string", keepZero: true },
      { json: "enableServiceLinks", no: 30, type: "bool", keepZero: true },
      { json: "preemptionPolicy", no: 31, type: "string", keepZero: true },
      { json: "overhead", no: 32, type: "resource.Quantity", map: true },
      { json: "topologySpreadConstraints", no: 33, type: "core.v1.TopologySpreadConstraint", repeated: true },
      { json: "setHostnameAsFQDN", no: 35, type: "bool", keepZero: true },
      { json: "os", no: 36, type: "core.v1.PodOS" },
      { json: "hostUsers", no: 37, type: "bool", keepZero: true },
      { json: "schedulingGates", no: 38, type: "core.v1.PodSchedulingGate", repeated: true },
      { json: "resourceClaims", no: 39, type: "core.v1.PodResourceClaim", repeated: true },
      { json: "resources", no: 40, type: "core.v1.ResourceRequirements" },
      { json: "hostnameOverride", no: 41, type: "string", keepZero: true },
      { json: "schedulingGroup", no: 43, type: "core.v1.PodSchedulingGroup" },
      { json: "evictionResponders", no: 44, type: "core.v1.EvictionResponder", repeated: true },
    ],
  },
  "core.v1.PodStatus": {
    fields: [
      { json: "observedGeneration", no: 17, type: "int64" },
      { json: "phase", no: 1, type: "string" },
      { json: "conditions", no: 2, type: "core.v1.PodCondition", repeated: true },
      { json: "message", no: 3, type: "string" },
      { json: "reason", no: 4, type: "string" },
      { json: "nominatedNodeName", no: 11, type: "string" },
      { json: "hostIP", no: 5, type: "string" },
      { json: "hostIPs", no: 16, type: "core.v1.HostIP", repeated: true },
      { json: "podIP", no: 6, type: "string" },
      { json: "podIPs", no: 12, type: "core.v1.PodIP", repeated: true },
      { json: "startTime", no: 7, type: "meta.v1.Time" },
      { json: "initContainerStatuses", no: 10, type: "core.v1.ContainerStatus", repeated: true },
      { json: "containerStatuses", no: 8, type: "core.v1.ContainerStatus", repeated: true },
      { json: "qosClass", no: 9, type: "string" },
      { json: "ephemeralContainerStatuses", no: 13, type: "core.v1.ContainerStatus", repeated: true },
      { json: "resize", no: 14, type: "string" },
      { json: "resourceClaimStatuses", no: 15, type: "core.v1.PodResourceClaimStatus", repeated: true },
      { json: "extendedResourceClaimStatus", no: 18, type: "core.v1.PodExtendedResourceClaimStatus" },
      { json: "allocatedResources", no: 19, type: "resource.Quantity", map: true },
      { json: "resources", no: 20, type: "core.v1.ResourceRequirements" },
      { json: "nodeAllocatableResourceClaimStatuses", no: 21, type: "core.v1.NodeAllocatableResourceClaimStatus", repeated: true },
      { json: "volumeHealth", no: 22, type: "core.v1.PodVolumeHealth", repeated: true },
    ],
  },
  "core.v1.PodTemplate": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "template", no: 2, type: "core.v1.PodTemplateSpec" },
    ],
  },
  "core.v1.PodTemplateList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.PodTemplate", repeated: true },
    ],
  },
  "core.v1.PodTemplateSpec": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.PodSpec" },
    ],
  },
  "core.v1.PodVolumeHealth": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "healthConditions", no: 2, type: "core.v1.VolumeHealthCondition", repeated: true },
      { json: "lastTransitionTime", no: 3, type: "meta.v1.Time" },
    ],
  },
  "core.v1.PortStatus": {
    fields: [
      { json: "port", no: 1, type: "int32", keepZero: true },
      { json: "protocol", no: 2, type: "string", keepZero: true },
      { json: "error", no: 3, type: "string", keepZero: true },
    ],
  },
  "core.v1.PortworxVolumeSource": {
    fields: [
      { json: "volumeID", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "readOnly", no: 3, type: "bool" },
    ],
  },
  "core.v1.Preconditions": {
    fields: [
      { json: "uid", no: 1, type: "string", keepZero: true },
    ],
  },
  "core.v1.PreferAvoidPodsEntry": {
    fields: [
      { json: "podSignature", no: 1, type: "core.v1.PodSignature" },
      { json: "evictionTime", no: 2, type: "meta.v1.Time" },
      { json: "reason", no: 3, type: "string" },
      { json: "message", no: 4, type: "string" },
    ],
  },
  "core.v1.PreferredSchedulingTerm": {
    fields: [
      { json: "weight", no: 1, type: "int32", keepZero: true },
      { json: "preference", no: 2, type: "core.v1.NodeSelectorTerm" },
    ],
  },
  "core.v1.Probe": {
    fields: [
      { json: "", no: 1, type: "core.v1.ProbeHandler" },
      { json: "initialDelaySeconds", no: 2, type: "int32" },
      { json: "timeoutSeconds", no: 3, type: "int32" },
      { json: "periodSeconds", no: 4, type: "int32" },
      { json: "successThreshold", no: 5, type: "int32" },
      { json: "failureThreshold", no: 6, type: "int32" },
      { json: "terminationGracePeriodSeconds", no: 7, type: "int64", keepZero: true },
    ],
  },
  "core.v1.ProbeHandler": {
    fields: [
      { json: "exec", no: 1, type: "core.v1.ExecAction" },
      { json: "httpGet", no: 2, type: "core.v1.HTTPGetAction" },
      { json: "tcpSocket", no: 3, type: "core.v1.TCPSocketAction" },
      { json: "grpc", no: 4, type: "core.v1.GRPCAction" },
    ],
  },
  "core.v1.ProjectedVolumeSource": {
    fields: [
      { json: "sources", no: 1, type: "core.v1.VolumeProjection", repeated: true },
      { json: "defaultMode", no: 2, type: "int32", keepZero: true },
      { json: "defaultUser", no: 3, type: "int64", keepZero: true },
    ],
  },
  "core.v1.QuobyteVolumeSource": {
    fields: [
      { json: "registry", no: 1, type: "string", keepZero: true },
      { json: "volume", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
      { json: "user", no: 4, type: "string" },
      { json: "group", no: 5, type: "string" },
      { json: "tenant", no: 6, type: "string" },
    ],
  },
  "core.v1.RBDPersistentVolumeSource": {
    fields: [
      { json: "monitors", no: 1, type: "string", repeated: true },
      { json: "image", no: 2, type: "string", keepZero: true },
      { json: "fsType", no: 3, type: "string" },
      { json: "pool", no: 4, type: "string" },
      { json: "user", no: 5, type: "string" },
      { json: "keyring", no: 6, type: "string" },
      { json: "secretRef", no: 7, type: "core.v1.SecretReference" },
      { json: "readOnly", no: 8, type: "bool" },
    ],
  },
  "core.v1.RBDVolumeSource": {
    fields: [
      { json: "monitors", no: 1, type: "string", repeated: true },
      { json: "image", no: 2, type: "string", keepZero: true },
      { json: "fsType", no: 3, type: "string" },
      { json: "pool", no: 4, type: "string" },
      { json: "user", no: 5, type: "string" },
      { json: "keyring", no: 6, type: "string" },
      { json: "secretRef", no: 7, type: "core.v1.LocalObjectReference" },
      { json: "readOnly", no: 8, type: "bool" },
    ],
  },
  "core.v1.RangeAllocation": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "range", no: 2, type: "string", keepZero: true },
      { json: "data", no: 3, type: "bytes", keepZero: true },
    ],
  },
  "core.v1.ReplicationController": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.ReplicationControllerSpec" },
      { json: "status", no: 3, type: "core.v1.ReplicationControllerStatus" },
    ],
  },
  "core.v1.ReplicationControllerCondition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "lastTransitionTime", no: 3, type: "meta.v1.Time" },
      { json: "reason", no: 4, type: "string" },
      { json: "message", no: 5, type: "string" },
    ],
  },
  "core.v1.ReplicationControllerList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.ReplicationController", repeated: true },
    ],
  },
  "core.v1.ReplicationControllerSpec": {
    fields: [
      { json: "replicas", no: 1, type: "int32", keepZero: true },
      { json: "minReadySeconds", no: 4, type: "int32" },
      { json: "selector", no: 2, type: "string", map: true },
      { json: "template", no: 3, type: "core.v1.PodTemplateSpec" },
    ],
  },
  "core.v1.ReplicationControllerStatus": {
    fields: [
      { json: "replicas", no: 1, type: "int32", keepZero: true },
      { json: "fullyLabeledReplicas", no: 2, type: "int32" },
      { json: "readyReplicas", no: 4, type: "int32" },
      { json: "availableReplicas", no: 5, type: "int32" },
      { json: "observedGeneration", no: 3, type: "int64" },
      { json: "conditions", no: 6, type: "core.v1.ReplicationControllerCondition", repeated: true },
    ],
  },
  "core.v1.ResourceClaim": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "request", no: 2, type: "string" },
    ],
  },
  "core.v1.ResourceFieldSelector": {
    fields: [
      { json: "containerName", no: 1, type: "string" },
      { json: "resource", no: 2, type: "string", keepZero: true },
      { json: "divisor", no: 3, type: "resource.Quantity" },
    ],
  },
  "core.v1.ResourceHealth": {
    fields: [
      { json: "resourceID", no: 1, type: "string", keepZero: true },
      { json: "health", no: 2, type: "string" },
      { json: "message", no: 6, type: "string", keepZero: true },
    ],
  },
  "core.v1.ResourceQuota": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.ResourceQuotaSpec" },
      { json: "status", no: 3, type: "core.v1.ResourceQuotaStatus" },
    ],
  },
  "core.v1.ResourceQuotaList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.ResourceQuota", repeated: true },
    ],
  },
  "core.v1.ResourceQuotaSpec": {
    fields: [
      { json: "hard", no: 1, type: "resource.Quantity", map: true },
      { json: "scopes", no: 2, type: "string", repeated: true },
      { json: "scopeSelector", no: 3, type: "core.v1.ScopeSelector" },
    ],
  },
  "core.v1.ResourceQuotaStatus": {
    fields: [
      { json: "hard", no: 1, type: "resource.Quantity", map: true },
      { json: "used", no: 2, type: "resource.Quantity", map: true },
    ],
  },
  "core.v1.ResourceRequirements": {
    fields: [
      { json: "limits", no: 1, type: "resource.Quantity", map: true },
      { json: "requests", no: 2, type: "resource.Quantity", map: true },
      { json: "claims", no: 3, type: "core.v1.ResourceClaim", repeated: true },
    ],
  },
  "core.v1.ResourceStatus": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "resources", no: 2, type: "core.v1.ResourceHealth", repeated: true },
    ],
  },
  "core.v1.SELinuxOptions": {
    fields: [
      { json: "user", no: 1, type: "string" },
      { json: "role", no: 2, type: "string" },
      { json: "type", no: 3, type: "string" },
      { json: "level", no: 4, type: "string" },
    ],
  },
  "core.v1.ScaleIOPersistentVolumeSource": {
    fields: [
      { json: "gateway", no: 1, type: "string", keepZero: true },
      { json: "system", no: 2, type: "string", keepZero: true },
      { json: "secretRef", no: 3, type: "core.v1.SecretReference" },
      { json: "sslEnabled", no: 4, type: "bool" },
      { json: "protectionDomain", no: 5, type: "string" },
      { json: "storagePool", no: 6, type: "string" },
      { json: "storageMode", no: 7, type: "string" },
      { json: "volumeName", no: 8, type: "string" },
      { json: "fsType", no: 9, type: "string" },
      { json: "readOnly", no: 10, type: "bool" },
    ],
  },
  "core.v1.ScaleIOVolumeSource": {
    fields: [
      { json: "gateway", no: 1, type: "string", keepZero: true },
      { json: "system", no: 2, type: "string", keepZero: true },
      { json: "secretRef", no: 3, type: "core.v1.LocalObjectReference" },
      { json: "sslEnabled", no: 4, type: "bool" },
      { json: "protectionDomain", no: 5, type: "string" },
      { json: "storagePool", no: 6, type: "string" },
      { json: "storageMode", no: 7, type: "string" },
      { json: "volumeName", no: 8, type: "string" },
      { json: "fsType", no: 9, type: "string" },
      { json: "readOnly", no: 10, type: "bool" },
    ],
  },
  "core.v1.ScopeSelector": {
    fields: [
      { json: "matchExpressions", no: 1, type: "core.v1.ScopedResourceSelectorRequirement", repeated: true },
    ],
  },
  "core.v1.ScopedResourceSelectorRequirement": {
    fields: [
      { json: "scopeName", no: 1, type: "string", keepZero: true },
      { json: "operator", no: 2, type: "string", keepZero: true },
      { json: "values", no: 3, type: "string", repeated: true },
    ],
  },
  "core.v1.SeccompProfile": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "localhostProfile", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.Secret": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "immutable", no: 5, type: "bool", keepZero: true },
      { json: "data", no: 2, type: "bytes", map: true },
      { json: "stringData", no: 4, type: "string", map: true },
      { json: "type", no: 3, type: "string" },
    ],
  },
  "core.v1.SecretEnvSource": {
    fields: [
      { json: "", no: 1, type: "core.v1.LocalObjectReference" },
      { json: "optional", no: 2, type: "bool", keepZero: true },
    ],
  },
  "core.v1.SecretKeySelector": {
    fields: [
      { json: "", no: 1, type: "core.v1.LocalObjectReference" },
      { json: "key", no: 2, type: "string", keepZero: true },
      { json: "optional", no: 3, type: "bool", keepZero: true },
    ],
  },
  "core.v1.SecretList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.Secret", repeated: true },
    ],
  },
  "core.v1.SecretProjection": {
    fields: [
      { json: "", no: 1, type: "core.v1.LocalObjectReference" },
      { json: "items", no: 2, type: "core.v1.KeyToPath", repeated: true },
      { json: "optional", no: 4, type: "bool", keepZero: true },
    ],
  },
  "core.v1.SecretReference": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "namespace", no: 2, type: "string" },
    ],
  },
  "core.v1.SecretVolumeSource": {
    fields: [
      { json: "secretName", no: 1, type: "string" },
      { json: "items", no: 2, type: "core.v1.KeyToPath", repeated: true },
      { json: "defaultMode", no: 3, type: "int32", keepZero: true },
      { json: "optional", no: 4, type: "bool", keepZero: true },
      { json: "defaultUser", no: 5, type: "int64", keepZero: true },
    ],
  },
  "core.v1.SecurityContext": {
    fields: [
      { json: "capabilities", no: 1, type: "core.v1.Capabilities" },
      { json: "privileged", no: 2, type: "bool", keepZero: true },
      { json: "seLinuxOptions", no: 3, type: "core.v1.SELinuxOptions" },
      { json: "windowsOptions", no: 10, type: "core.v1.WindowsSecurityContextOptions" },
      { json: "runAsUser", no: 4, type: "int64", keepZero: true },
      { json: "runAsGroup", no: 8, type: "int64", keepZero: true },
      { json: "runAsNonRoot", no: 5, type: "bool", keepZero: true },
      { json: "readOnlyRootFilesystem", no: 6, type: "bool", keepZero: true },
      { json: "allowPrivilegeEscalation", no: 7, type: "bool", keepZero: true },
      { json: "procMount", no: 9, type: "string", keepZero: true },
      { json: "seccompProfile", no: 11, type: "core.v1.SeccompProfile" },
      { json: "appArmorProfile", no: 12, type: "core.v1.AppArmorProfile" },
    ],
  },
  "core.v1.SerializedReference": {
    fields: [
      { json: "reference", no: 1, type: "core.v1.ObjectReference" },
    ],
  },
  "core.v1.Service": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "core.v1.ServiceSpec" },
      { json: "status", no: 3, type: "core.v1.ServiceStatus" },
    ],
  },
  "core.v1.ServiceAccount": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "secrets", no: 2, type: "core.v1.ObjectReference", repeated: true },
      { json: "imagePullSecrets", no: 3, type: "core.v1.LocalObjectReference", repeated: true },
      { json: "automountServiceAccountToken", no: 4, type: "bool", keepZero: true },
    ],
  },
  "core.v1.ServiceAccountList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.ServiceAccount", repeated: true },
    ],
  },
  "core.v1.ServiceAccountTokenProjection": {
    fields: [
      { json: "audience", no: 1, type: "string" },
      { json: "expirationSeconds", no: 2, type: "int64", keepZero: true },
      { json: "path", no: 3, type: "string", keepZero: true },
      { json: "user", no: 4, type: "int64", keepZero: true },
    ],
  },
  "core.v1.ServiceList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "core.v1.Service", repeated: true },
    ],
  },
  "core.v1.ServicePort": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "protocol", no: 2, type: "string" },
      { json: "appProtocol", no: 6, type: "string", keepZero: true },
      { json: "port", no: 3, type: "int32", keepZero: true },
      { json: "targetPort", no: 4, type: "intstr.IntOrString" },
      { json: "nodePort", no: 5, type: "int32" },
    ],
  },
  "core.v1.ServiceProxyOptions": {
    fields: [
      { json: "path", no: 1, type: "string" },
    ],
  },
  "core.v1.ServiceSpec": {
    fields: [
      { json: "ports", no: 1, type: "core.v1.ServicePort", repeated: true },
      { json: "selector", no: 2, type: "string", map: true },
      { json: "clusterIP", no: 3, type: "string" },
      { json: "clusterIPs", no: 18, type: "string", repeated: true },
      { json: "type", no: 4, type: "string" },
      { json: "externalIPs", no: 5, type: "string", repeated: true },
      { json: "sessionAffinity", no: 7, type: "string" },
      { json: "loadBalancerIP", no: 8, type: "string" },
      { json: "loadBalancerSourceRanges", no: 9, type: "string", repeated: true },
      { json: "externalName", no: 10, type: "string" },
      { json: "externalTrafficPolicy", no: 11, type: "string" },
      { json: "healthCheckNodePort", no: 12, type: "int32" },
      { json: "publishNotReadyAddresses", no: 13, type: "bool" },
      { json: "sessionAffinityConfig", no: 14, type: "core.v1.SessionAffinityConfig" },
      { json: "ipFamilies", no: 19, type: "string", repeated: true },
      { json: "ipFamilyPolicy", no: 17, type: "string", keepZero: true },
      { json: "allocateLoadBalancerNodePorts", no: 20, type: "bool", keepZero: true },
      { json: "loadBalancerClass", no: 21, type: "string", keepZero: true },
      { json: "internalTrafficPolicy", no: 22, type: "string", keepZero: true },
      { json: "trafficDistribution", no: 23, type: "string", keepZero: true },
    ],
  },
  "core.v1.ServiceStatus": {
    fields: [
      { json: "loadBalancer", no: 1, type: "core.v1.LoadBalancerStatus" },
      { json: "conditions", no: 2, type: "meta.v1.Condition", repeated: true },
    ],
  },
  "core.v1.SessionAffinityConfig": {
    fields: [
      { json: "clientIP", no: 1, type: "core.v1.ClientIPConfig" },
    ],
  },
  "core.v1.SleepAction": {
    fields: [
      { json: "seconds", no: 1, type: "int64", keepZero: true },
    ],
  },
  "core.v1.StorageOSPersistentVolumeSource": {
    fields: [
      { json: "volumeName", no: 1, type: "string" },
      { json: "volumeNamespace", no: 2, type: "string" },
      { json: "fsType", no: 3, type: "string" },
      { json: "readOnly", no: 4, type: "bool" },
      { json: "secretRef", no: 5, type: "core.v1.ObjectReference" },
    ],
  },
  "core.v1.StorageOSVolumeSource": {
    fields: [
      { json: "volumeName", no: 1, type: "string" },
      { json: "volumeNamespace", no: 2, type: "string" },
      { json: "fsType", no: 3, type: "string" },
      { json: "readOnly", no: 4, type: "bool" },
      { json: "secretRef", no: 5, type: "core.v1.LocalObjectReference" },
    ],
  },
  "core.v1.Sysctl": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "value", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.TCPSocketAction": {
    fields: [
      { json: "port", no: 1, type: "intstr.IntOrString" },
      { json: "host", no: 2, type: "string" },
    ],
  },
  "core.v1.Taint": {
    fields: [
      { json: "key", no: 1, type: "string", keepZero: true },
      { json: "value", no: 2, type: "string" },
      { json: "effect", no: 3, type: "string", keepZero: true },
      { json: "timeAdded", no: 4, type: "meta.v1.Time" },
    ],
  },
  "core.v1.Toleration": {
    fields: [
      { json: "key", no: 1, type: "string" },
      { json: "operator", no: 2, type: "string" },
      { json: "value", no: 3, type: "string" },
      { json: "effect", no: 4, type: "string" },
      { json: "tolerationSeconds", no: 5, type: "int64", keepZero: true },
    ],
  },
  "core.v1.TopologySelectorLabelRequirement": {
    fields: [
      { json: "key", no: 1, type: "string", keepZero: true },
      { json: "values", no: 2, type: "string", repeated: true },
    ],
  },
  "core.v1.TopologySelectorTerm": {
    fields: [
      { json: "matchLabelExpressions", no: 1, type: "core.v1.TopologySelectorLabelRequirement", repeated: true },
    ],
  },
  "core.v1.TopologySpreadConstraint": {
    fields: [
      { json: "maxSkew", no: 1, type: "int32", keepZero: true },
      { json: "topologyKey", no: 2, type: "string", keepZero: true },
      { json: "whenUnsatisfiable", no: 3, type: "string", keepZero: true },
      { json: "labelSelector", no: 4, type: "meta.v1.LabelSelector" },
      { json: "minDomains", no: 5, type: "int32", keepZero: true },
      { json: "nodeAffinityPolicy", no: 6, type: "string", keepZero: true },
      { json: "nodeTaintsPolicy", no: 7, type: "string", keepZero: true },
      { json: "matchLabelKeys", no: 8, type: "string", repeated: true },
    ],
  },
  "core.v1.TypedLocalObjectReference": {
    fields: [
      { json: "apiGroup", no: 1, type: "string", keepZero: true },
      { json: "kind", no: 2, type: "string", keepZero: true },
      { json: "name", no: 3, type: "string", keepZero: true },
    ],
  },
  "core.v1.TypedObjectReference": {
    fields: [
      { json: "apiGroup", no: 1, type: "string", keepZero: true },
      { json: "kind", no: 2, type: "string", keepZero: true },
      { json: "name", no: 3, type: "string", keepZero: true },
      { json: "namespace", no: 4, type: "string", keepZero: true },
    ],
  },
  "core.v1.Volume": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "", no: 2, type: "core.v1.VolumeSource" },
    ],
  },
  "core.v1.VolumeDevice": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "devicePath", no: 2, type: "string", keepZero: true },
    ],
  },
  "core.v1.VolumeHealthCondition": {
    fields: [
      { json: "status", no: 1, type: "string", keepZero: true },
      { json: "reason", no: 2, type: "string", keepZero: true },
      { json: "message", no: 3, type: "string" },
    ],
  },
  "core.v1.VolumeHealthStatus": {
    fields: [
      { json: "healthConditions", no: 1, type: "core.v1.VolumeHealthCondition", repeated: true },
      { json: "lastTransitionTime", no: 2, type: "meta.v1.Time" },
    ],
  },
  "core.v1.VolumeMount": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "readOnly", no: 2, type: "bool" },
      { json: "recursiveReadOnly", no: 7, type: "string", keepZero: true },
      { json: "mountPath", no: 3, type: "string", keepZero: true },
      { json: "subPath", no: 4, type: "string" },
      { json: "mountPropagation", no: 5, type: "string", keepZero: true },
      { json: "subPathExpr", no: 6, type: "string" },
      { json: "bindMountOptions", no: 8, type: "string", repeated: true },
    ],
  },
  "core.v1.VolumeMountStatus": {
    fields: [
      { json: "name", no: 1, type: "string", keepZero: true },
      { json: "mountPath", no: 2, type: "string", keepZero: true },
      { json: "readOnly", no: 3, type: "bool" },
      { json: "recursiveReadOnly", no: 4, type: "string", keepZero: true },
      { json: "volumeStatus", no: 5, type: "core.v1.VolumeStatus" },
    ],
  },
  "core.v1.VolumeNodeAffinity": {
    fields: [
      { json: "required", no: 1, type: "core.v1.NodeSelector" },
    ],
  },
  "core.v1.VolumeProjection": {
    fields: [
      { json: "secret", no: 1, type: "core.v1.SecretProjection" },
      { json: "downwardAPI", no: 2, type: "core.v1.DownwardAPIProjection" },
      { json: "configMap", no: 3, type: "core.v1.ConfigMapProjection" },
      { json: "serviceAccountToken", no: 4, type: "core.v1.ServiceAccountTokenProjection" },
      { json: "clusterTrustBundle", no: 5, type: "core.v1.ClusterTrustBundleProjection" },
      { json: "podCertificate", no: 6, type: "core.v1.PodCertificateProjection" },
    ],
  },
  "core.v1.VolumeResourceRequirements": {
    fields: [
      { json: "limits", no: 1, type: "resource.Quantity", map: true },
      { json: "requests", no: 2, type: "resource.Quantity", map: true },
    ],
  },
  "core.v1.VolumeSource": {
    fields: [
      { json: "hostPath", no: 1, type: "core.v1.HostPathVolumeSource" },
      { json: "emptyDir", no: 2, type: "core.v1.EmptyDirVolumeSource" },
      { json: "gcePersistentDisk", no: 3, type: "core.v1.GCEPersistentDiskVolumeSource" },
      { json: "awsElasticBlockStore", no: 4, type: "core.v1.AWSElasticBlockStoreVolumeSource" },
      { json: "gitRepo", no: 5, type: "core.v1.GitRepoVolumeSource" },
      { json: "secret", no: 6, type: "core.v1.SecretVolumeSource" },
      { json: "nfs", no: 7, type: "core.v1.NFSVolumeSource" },
      { json: "iscsi", no: 8, type: "core.v1.ISCSIVolumeSource" },
      { json: "glusterfs", no: 9, type: "core.v1.GlusterfsVolumeSource" },
      { json: "persistentVolumeClaim", no: 10, type: "core.v1.PersistentVolumeClaimVolumeSource" },
      { json: "rbd", no: 11, type: "core.v1.RBDVolumeSource" },
      { json: "flexVolume", no: 12, type: "core.v1.FlexVolumeSource" },
      { json: "cinder", no: 13, type: "core.v1.CinderVolumeSource" },
      { json: "cephfs", no: 14, type: "core.v1.CephFSVolumeSource" },
      { json: "flocker", no: 15, type: "core.v1.FlockerVolumeSource" },
      { json: "downwardAPI", no: 16, type: "core.v1.DownwardAPIVolumeSource" },
      { json: "fc", no: 17, type: "core.v1.FCVolumeSource" },
      { json: "azureFile", no: 18, type: "core.v1.AzureFileVolumeSource" },
      { json: "configMap", no: 19, type: "core.v1.ConfigMapVolumeSource" },
      { json: "vsphereVolume", no: 20, type: "core.v1.VsphereVirtualDiskVolumeSource" },
      { json: "quobyte", no: 21, type: "core.v1.QuobyteVolumeSource" },
      { json: "azureDisk", no: 22, type: "core.v1.AzureDiskVolumeSource" },
      { json: "photonPersistentDisk", no: 23, type: "core.v1.PhotonPersistentDiskVolumeSource" },
      { json: "projected", no: 26, type: "core.v1.ProjectedVolumeSource" },
      { json: "portworxVolume", no: 24, type: "core.v1.PortworxVolumeSource" },
      { json: "scaleIO", no: 25, type: "core.v1.ScaleIOVolumeSource" },
      { json: "storageos", no: 27, type: "core.v1.StorageOSVolumeSource" },
      { json: "csi", no: 28, type: "core.v1.CSIVolumeSource" },
      { json: "ephemeral", no: 29, type: "core.v1.EphemeralVolumeSource" },
      { json: "image", no: 30, type: "core.v1.ImageVolumeSource" },
    ],
  },
  "core.v1.VolumeStatus": {
    fields: [
      { json: "image", no: 1, type: "core.v1.ImageVolumeStatus" },
    ],
  },
  "core.v1.VsphereVirtualDiskVolumeSource": {
    fields: [
      { json: "volumePath", no: 1, type: "string", keepZero: true },
      { json: "fsType", no: 2, type: "string" },
      { json: "storagePolicyName", no: 3, type: "string" },
      { json: "storagePolicyID", no: 4, type: "string" },
    ],
  },
  "core.v1.WeightedPodAffinityTerm": {
    fields: [
      { json: "weight", no: 1, type: "int32", keepZero: true },
      { json: "podAffinityTerm", no: 2, type: "core.v1.PodAffinityTerm" },
    ],
  },
  "core.v1.WindowsSecurityContextOptions": {
    fields: [
      { json: "gmsaCredentialSpecName", no: 1, type: "string", keepZero: true },
      { json: "gmsaCredentialSpec", no: 2, type: "string", keepZero: true },
      { json: "runAsUserName", no: 3, type: "string", keepZero: true },
      { json: "hostProcess", no: 4, type: "bool", keepZero: true },
    ],
  },
};
