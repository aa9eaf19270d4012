// The smaller API groups of the simulator's protobuf schema, in the table form of ./types.ts: coordination/v1 (Lease),
// events/v1 (Event), autoscaling/v1 (Scale, the statefulsets/scale subresource) and policy/v1 (Eviction, the
// pods/eviction subresource). Only the messages those kinds reach are listed (no HorizontalPodAutoscaler or
// PodDisruptionBudget). Field numbers, types and repeated/map come from each group's `generated.proto`; JSON names
// and keepZero from the struct tags in its `types.go`. Read at kubernetes/api master of 2026-07-24 (commit 10b39a3,
// the v1.37 development line, after the v0.36.3 tag).
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
};
