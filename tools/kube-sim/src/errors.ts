// metav1.Status bodies with the exact reasons, codes and messages of k8s.io/apimachinery/pkg/api/errors.
import type { ResourceInfo } from "./resources.ts";
import { qualifiedResource } from "./resources.ts";
import type { Cause, Status, StatusDetails } from "./types.ts";

/** A request failure that the HTTP layer writes as the Status it carries. */
export class StatusError extends Error {
  readonly status: Status;
  readonly retryAfterSeconds: number | undefined;
  constructor(status: Status, retryAfterSeconds?: number) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`);
    this.name = "StatusError";
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function failure(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  if (details !== undefined) status.details = details;
  return status;
}

type ResourceRef = Pick<ResourceInfo, "group" | "resource">;

function details(info: ResourceRef, name: string, extra: Partial<StatusDetails> = {}): StatusDetails {
  const d: StatusDetails = { name };
  if (info.group !== "") d.group = info.group;
  d.kind = info.resource;
  return { ...d, ...extra };
}

export function notFound(info: ResourceRef, name: string): StatusError {
  return new StatusError(failure(404, "NotFound", `${qualifiedResource(info)} "${name}" not found`, details(info, name)));
}

export function alreadyExists(info: ResourceRef, name: string): StatusError {
  return new StatusError(
    failure(409, "AlreadyExists", `${qualifiedResource(info)} "${name}" already exists`, details(info, name)),
  );
}

export function conflict(info: ResourceRef, name: string, why: string): StatusError {
  return new StatusError(
    failure(409, "Conflict", `Operation cannot be fulfilled on ${qualifiedResource(info)} "${name}": ${why}`, details(info, name)),
  );
}

export const MODIFIED_CONFLICT = "the object has been modified; please apply your changes to the latest version and try again";

export function badRequest(message: string): StatusError {
  return new StatusError(failure(400, "BadRequest", message));
}

export function methodNotAllowed(message = "the server does not allow this method on the requested resource"): StatusError {
  return new StatusError(failure(405, "MethodNotAllowed", message));
}

/** The generic 404 for a path that names no resource (`the server could not find the requested resource`). */
export function pathNotFound(): StatusError {
  return new StatusError(failure(404, "NotFound", "the server could not find the requested resource", {}));
}

export function forbidden(info: ResourceRef, name: string, why: string, causes?: Cause[]): StatusError {
  const d = details(info, name);
  if (causes !== undefined) d.causes = causes;
  return new StatusError(failure(403, "Forbidden", `${qualifiedResource(info)} "${name}" is forbidden: ${why}`, d));
}

export function gone(message: string): StatusError {
  return new StatusError(failure(410, "Expired", message));
}

export function tooManyRequests(retryAfterSeconds: number): StatusError {
  return new StatusError(
    failure(429, "TooManyRequests", "the server has received too many requests and has asked us to try again later", {
      retryAfterSeconds,
    }),
    retryAfterSeconds,
  );
}

export function internalError(message: string): StatusError {
  return new StatusError(
    failure(500, "InternalError", `Internal error occurred: ${message}`, { causes: [{ reason: "UnexpectedServerResponse", message }] }),
  );
}

export function notAcceptable(): StatusError {
  return new StatusError(
    failure(406, "NotAcceptable", "only the following media types are accepted: application/json, application/yaml"),
  );
}
