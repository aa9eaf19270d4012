// core/v1 Event and events.k8s.io/v1 Event are two encodings of one stored type (pkg/apis/events/v1
// conversion.go). Both views are written the way Go encodes them: zero times as null, structs present.

import { get, isObject, set, type JsonObject } from "./json.ts";

/** core field <- events.k8s.io field, for the fields that only change name. */
const RENAMES: readonly (readonly [string, string])[] = [
  ["involvedObject", "regarding"],
  ["message", "note"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
  ["reportingComponent", "reportingController"],
];
const SAME_NAME = ["metadata", "eventTime", "series", "action", "reason", "related", "type", "reportingInstance"];

function copyDefined(from: JsonObject, fromKey: string, to: JsonObject, toKey: string): void {
  const value = get(from, fromKey);
  if (value !== undefined) set(to, toKey, value);
}

/** events.k8s.io/v1 -> core/v1 (unknown fields are dropped, as a decode would). */
export function toCoreEvent(event: unknown): JsonObject {
  const source = isObject(event) ? event : {};
  const out: JsonObject = { apiVersion: "v1", kind: "Event" };
  for (const key of SAME_NAME) copyDefined(source, key, out, key);
  for (const [core, v1] of RENAMES) copyDefined(source, v1, out, core);
  return out;
}

/** core/v1 -> events.k8s.io/v1, with Go's encoding of the events.k8s.io struct. */
export function toEventsV1Event(event: unknown): JsonObject {
  const source = isObject(event) ? event : {};
  const out: JsonObject = { apiVersion: "events.k8s.io/v1", kind: "Event" };
  for (const key of SAME_NAME) copyDefined(source, key, out, key);
  for (const [core, v1] of RENAMES) copyDefined(source, core, out, v1);
  // eventTime has no omitempty in events.k8s.io/v1; the other zero values are omitted.
  if (get(out, "eventTime") === undefined) set(out, "eventTime", null);
  for (const key of ["reportingController", "reportingInstance", "action", "reason", "note", "type"]) {
    if (get(out, key) === "" || get(out, key) === null) Reflect.deleteProperty(out, key);
  }
  if (get(out, "deprecatedCount") === 0 || get(out, "deprecatedCount") === null) Reflect.deleteProperty(out, "deprecatedCount");
  if (!isObject(get(out, "regarding"))) set(out, "regarding", {});
  if (!isObject(get(out, "deprecatedSource"))) set(out, "deprecatedSource", {});
  for (const key of ["deprecatedFirstTimestamp", "deprecatedLastTimestamp"]) if (get(out, key) === undefined) set(out, key, null);
  return out;
}

/** Converts an Event between the two API groups (`""` for core/v1, `events.k8s.io`). */
export function convertEvent(event: unknown, group: string): JsonObject {
  return group === "events.k8s.io" ? toEventsV1Event(event) : toCoreEvent(event);
}
