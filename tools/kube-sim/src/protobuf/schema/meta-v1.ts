// The meta/v1 part of the simulator's protobuf schema (package k8s.io.apimachinery.pkg.apis.meta.v1), in the table
// form of ./types.ts: object and list metadata, Status, the option bodies clients may send (delete, create, update,
// patch, apply, get, list), WatchEvent, metav1.List and PartialObjectMetadata(List) (the `as=PartialObjectMetadata`
// responses of metadata-only clients), Condition and the selector types. Field numbers, types and repeated/map come
// from apimachinery's pkg/apis/meta/v1/generated.proto; JSON names and keepZero from the struct tags in the same
// package's types.go and watch.go. Read at kubernetes/apimachinery master of 2026-07-23 (commit eed236c, the v1.37
// development line, after the v0.36.3 tag).
//
// Not here: Time, MicroTime, Duration and FieldsV1 (special types of ./types.ts); the discovery messages (APIGroup,
// APIResource...: their `Verbs` is a message on the wire but a bare array in JSON, which the table form cannot say);
// GroupKind/GroupVersion and friends, Timestamp, Patch, RootPaths and TableOptions (never request or response bodies
// of the served API).
//
// TypeMeta (kind, apiVersion) is a message of its own, but no object message carries it as a field: on the wire it
// travels in the runtime.Unknown envelope around the object.
import type { SchemaTable } from "./types.ts";

export const META_V1: SchemaTable = {
  "meta.v1.TypeMeta": {
    fields: [
      { json: "kind", no: 1, type: "string" },
      { json: "apiVersion", no: 2, type: "string" },
    ],
  },
  "meta.v1.ObjectMeta": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "generateName", no: 2, type: "string" },
      { json: "namespace", no: 3, type: "string" },
      { json: "selfLink", no: 4, type: "string" },
      { json: "uid", no: 5, type: "string" },
      { json: "resourceVersion", no: 6, type: "string" },
      { json: "generation", no: 7, type: "int64" },
      { json: "creationTimestamp", no: 8, type: "meta.v1.Time" },
      { json: "deletionTimestamp", no: 9, type: "meta.v1.Time" },
      { json: "deletionGracePeriodSeconds", no: 10, type: "int64", keepZero: true },
      { json: "labels", no: 11, type: "string", map: true },
      { json: "annotations", no: 12, type: "string", map: true },
      { json: "ownerReferences", no: 13, type: "meta.v1.OwnerReference", repeated: true },
      { json: "finalizers", no: 14, type: "string", repeated: true },
      { json: "managedFields", no: 17, type: "meta.v1.ManagedFieldsEntry", repeated: true },
    ],
  },
  "meta.v1.ListMeta": {
    fields: [
      { json: "selfLink", no: 1, type: "string" },
      { json: "resourceVersion", no: 2, type: "string" },
      { json: "continue", no: 3, type: "string" },
      { json: "remainingItemCount", no: 4, type: "int64", keepZero: true },
      { json: "shardInfo", no: 5, type: "meta.v1.ShardInfo" },
    ],
  },
  "meta.v1.ShardInfo": {
    fields: [{ json: "selector", no: 1, type: "string", keepZero: true }],
  },
  "meta.v1.OwnerReference": {
    fields: [
      { json: "kind", no: 1, type: "string", keepZero: true },
      { json: "name", no: 3, type: "string", keepZero: true },
      { json: "uid", no: 4, type: "string", keepZero: true },
      { json: "apiVersion", no: 5, type: "string", keepZero: true },
      { json: "controller", no: 6, type: "bool", keepZero: true },
      { json: "blockOwnerDeletion", no: 7, type: "bool", keepZero: true },
    ],
  },
  "meta.v1.ManagedFieldsEntry": {
    fields: [
      { json: "manager", no: 1, type: "string" },
      { json: "operation", no: 2, type: "string" },
      { json: "apiVersion", no: 3, type: "string" },
      { json: "time", no: 4, type: "meta.v1.Time" },
      { json: "fieldsType", no: 6, type: "string" },
      { json: "fieldsV1", no: 7, type: "meta.v1.FieldsV1" },
      { json: "subresource", no: 8, type: "string" },
    ],
  },
  "meta.v1.LabelSelector": {
    fields: [
      { json: "matchLabels", no: 1, type: "string", map: true },
      { json: "matchExpressions", no: 2, type: "meta.v1.LabelSelectorRequirement", repeated: true },
    ],
  },
  "meta.v1.LabelSelectorRequirement": {
    fields: [
      { json: "key", no: 1, type: "string", keepZero: true },
      { json: "operator", no: 2, type: "string", keepZero: true },
      { json: "values", no: 3, type: "string", repeated: true },
    ],
  },
  "meta.v1.FieldSelectorRequirement": {
    fields: [
      { json: "key", no: 1, type: "string", keepZero: true },
      { json: "operator", no: 2, type: "string", keepZero: true },
      { json: "values", no: 3, type: "string", repeated: true },
    ],
  },
  "meta.v1.Status": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "status", no: 2, type: "string" },
      { json: "message", no: 3, type: "string" },
      { json: "reason", no: 4, type: "string" },
      { json: "details", no: 5, type: "meta.v1.StatusDetails" },
      { json: "code", no: 6, type: "int32" },
    ],
  },
  "meta.v1.StatusDetails": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "group", no: 2, type: "string" },
      { json: "kind", no: 3, type: "string" },
      { json: "causes", no: 4, type: "meta.v1.StatusCause", repeated: true },
      { json: "retryAfterSeconds", no: 5, type: "int32" },
      { json: "uid", no: 6, type: "string" },
    ],
  },
  "meta.v1.StatusCause": {
    fields: [
      // The Go field is `Type`; its json (and proto) name is `reason`.
      { json: "reason", no: 1, type: "string" },
      { json: "message", no: 2, type: "string" },
      { json: "field", no: 3, type: "string" },
    ],
  },
  "meta.v1.DeleteOptions": {
    fields: [
      { json: "gracePeriodSeconds", no: 1, type: "int64", keepZero: true },
      { json: "preconditions", no: 2, type: "meta.v1.Preconditions" },
      { json: "orphanDependents", no: 3, type: "bool", keepZero: true },
      { json: "propagationPolicy", no: 4, type: "string", keepZero: true },
      { json: "dryRun", no: 5, type: "string", repeated: true },
      { json: "ignoreStoreReadErrorWithClusterBreakingPotential", no: 6, type: "bool", keepZero: true },
    ],
  },
  "meta.v1.Preconditions": {
    fields: [
      { json: "uid", no: 1, type: "string", keepZero: true },
      { json: "resourceVersion", no: 2, type: "string", keepZero: true },
    ],
  },
  "meta.v1.CreateOptions": {
    fields: [
      { json: "dryRun", no: 1, type: "string", repeated: true },
      { json: "fieldManager", no: 3, type: "string" },
      { json: "fieldValidation", no: 4, type: "string" },
    ],
  },
  "meta.v1.UpdateOptions": {
    fields: [
      { json: "dryRun", no: 1, type: "string", repeated: true },
      { json: "fieldManager", no: 2, type: "string" },
      { json: "fieldValidation", no: 3, type: "string" },
    ],
  },
  "meta.v1.PatchOptions": {
    fields: [
      { json: "dryRun", no: 1, type: "string", repeated: true },
      { json: "force", no: 2, type: "bool", keepZero: true },
      { json: "fieldManager", no: 3, type: "string" },
      { json: "fieldValidation", no: 4, type: "string" },
    ],
  },
  "meta.v1.ApplyOptions": {
    fields: [
      { json: "dryRun", no: 1, type: "string", repeated: true },
      { json: "force", no: 2, type: "bool", keepZero: true },
      { json: "fieldManager", no: 3, type: "string", keepZero: true },
    ],
  },
  "meta.v1.GetOptions": {
    fields: [{ json: "resourceVersion", no: 1, type: "string" }],
  },
  "meta.v1.ListOptions": {
    fields: [
      { json: "labelSelector", no: 1, type: "string" },
      { json: "fieldSelector", no: 2, type: "string" },
      { json: "watch", no: 3, type: "bool" },
      { json: "resourceVersion", no: 4, type: "string" },
      { json: "timeoutSeconds", no: 5, type: "int64", keepZero: true },
      { json: "limit", no: 7, type: "int64" },
      { json: "continue", no: 8, type: "string" },
      { json: "allowWatchBookmarks", no: 9, type: "bool" },
      { json: "resourceVersionMatch", no: 10, type: "string" },
      { json: "sendInitialEvents", no: 11, type: "bool", keepZero: true },
      { json: "shardSelector", no: 15, type: "string" },
    ],
  },
  "meta.v1.WatchEvent": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "object", no: 2, type: "runtime.RawExtension" },
    ],
  },
  "meta.v1.List": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "runtime.RawExtension", repeated: true },
    ],
  },
  "meta.v1.PartialObjectMetadata": {
    fields: [{ json: "metadata", no: 1, type: "meta.v1.ObjectMeta" }],
  },
  "meta.v1.PartialObjectMetadataList": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ListMeta" },
      { json: "items", no: 2, type: "meta.v1.PartialObjectMetadata", repeated: true },
    ],
  },
  "meta.v1.Condition": {
    fields: [
      { json: "type", no: 1, type: "string", keepZero: true },
      { json: "status", no: 2, type: "string", keepZero: true },
      { json: "observedGeneration", no: 3, type: "int64" },
      { json: "lastTransitionTime", no: 4, type: "meta.v1.Time" },
      { json: "reason", no: 5, type: "string", keepZero: true },
      { json: "message", no: 6, type: "string", keepZero: true },
    ],
  },
};
