// What a failed action's error means: the planner's ApiErrorKind (read from the HTTP status, never from the text),
// the text an Event quotes, and which cached copy a refused write shows to be stale. The executor's own errors too.
import { assertNever } from "#protocol";
import type { ObjectKind } from "#protocol";
import { KubeApiError } from "../../../common/src/kube.ts";
import type { ApiErrorKind, CreateClaimAction, PlanAction } from "../planner/index.ts";

export class ClaimsNotReadyError extends Error {
  override readonly name = "ClaimsNotReadyError";
  readonly claims: readonly string[];

  constructor(claims: readonly string[], timeoutMs: number) {
    super(`claims ${claims.join(", ")} were not visible as requested in the cache within ${timeoutMs} ms`);
    this.claims = claims;
  }
}

export class AdoptionRefusedError extends Error {
  override readonly name = "AdoptionRefusedError";
  constructor(message: string) {
    super(message);
  }
}

export function errorKind(error: unknown): ApiErrorKind {
  if (!(error instanceof KubeApiError)) return "Other";
  if (error.isAlreadyExists) return "AlreadyExists";
  if (error.isNotFound) return "NotFound";
  if (error.status === 409) return "Conflict";
  if (error.status === 422) return "Invalid";
  return "Other";
}

export function errorText(error: unknown): string {
  if (error instanceof KubeApiError) return error.body?.message ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

/** The object whose cached copy `error` shows to be stale, for an action written from a copy. */
export function staleCopyOf(action: Exclude<PlanAction, CreateClaimAction>, error: unknown): { kind: ObjectKind; name: string } | undefined {
  const conflict = errorKind(error) === "Conflict";
  switch (action.type) {
    case "deletePod":
    case "updatePod":
    case "adoptPod":
    case "releasePod":
      return conflict ? { kind: "Pod", name: action.name } : undefined;
    case "updateClaimOwnerRefs":
      // The provisioner leaves a claim it finds stale as it is: the wait for the change times out.
      return conflict || error instanceof ClaimsNotReadyError ? { kind: "PersistentVolumeClaim", name: action.name } : undefined;
    case "updateRevision":
    case "adoptRevision":
    case "deleteRevision":
      return conflict ? { kind: "ControllerRevision", name: action.name } : undefined;
    case "createRevision":
    case "verifySetForAdoption":
    case "createPod":
    case "recordEvent":
      return undefined;
    default:
      return assertNever(action, "plan action");
  }
}
