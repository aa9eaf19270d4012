// metav1.Status bodies for the errors this module decides: 422 Invalid (apierrors.NewInvalid) and the
// 400 a body gets when it cannot be decoded into the Go type.

import { aggregateMessage, type Cause } from "./field.ts";
import { goQuote, isObject } from "./json.ts";
import { firstQuantityError } from "./quantities.ts";
import { qualifiedKind, resourceId, type ResourceInfo } from "./resources.ts";

/**
 * The Status of a 422, exactly as apierrors.NewInvalid builds it:
 * `StatefulSet.apps "web" is invalid: [spec.selector: Required value, ...]`. For the /scale subresource
 * (`sub` "scale") the kind is autoscaling's Scale.
 */
export function invalidStatus(info: ResourceInfo, name: string, causes: Cause[], sub = ""): Record<string, unknown> {
  const group = sub === "scale" ? "autoscaling" : info.group;
  const kind = sub === "scale" ? "Scale" : info.kind;
  const qualified = qualifiedKind({ group, kind });
  const message =
    causes.length === 0 ? `${qualified} ${goQuote(name)} is invalid` : `${qualified} ${goQuote(name)} is invalid: ${aggregateMessage(causes)}`;
  const details: Record<string, unknown> = {};
  if (name !== "") details["name"] = name;
  if (group !== "") details["group"] = group;
  details["kind"] = kind;
  if (causes.length > 0) details["causes"] = causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "Invalid", details, code: 422 };
}

/** A 400 BadRequest Status with the given message. */
export function badRequestStatus(message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason: "BadRequest", code: 400 };
}

/**
 * The message of the 400 kube-apiserver returns when a body cannot be decoded into the Go type
 * (`StatefulSet in version "v1" cannot be handled as a StatefulSet: quantities must match ...`), or
 * undefined when decoding would succeed. Only the checks this module knows (quantities, object shape).
 */
export function decodeError(info: ResourceInfo, obj: unknown): string | undefined {
  const prefix = `${info.kind} in version ${goQuote(info.version)} cannot be handled as a ${info.kind}: `;
  if (!isObject(obj)) return `${prefix}json: cannot unmarshal into Go value of type ${info.kind}`;
  const error = firstQuantityError(resourceId(info), obj);
  return error === undefined ? undefined : `${prefix}${error}`;
}
