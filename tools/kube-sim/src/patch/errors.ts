// PatchError carries the metav1.Status a real kube-apiserver answers for a failed PATCH, built the way
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go builds it (see docs/adr/0031-patch-errors-carry-the-apiserver-status.md).

/**
 * metav1.StatusReason values a patch can fail with. "" is metav1.StatusReasonUnknown: the apiserver sends a plain
 * Go error (most strategic-merge-patch failures) as HTTP 500 with no reason, and kubectl prints it as
 * `Error from server: <message>`.
 */
export type PatchErrorReason = "BadRequest" | "Invalid" | "UnsupportedMediaType" | "Conflict" | "RequestEntityTooLarge" | "";

export interface PatchStatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface PatchStatusDetails {
  causes?: PatchStatusCause[];
}

/** The metav1.Status body to send, field for field. */
export interface PatchStatus {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason?: string;
  details?: PatchStatusDetails;
  code: number;
}

export interface PatchErrorInit {
  httpStatus: number;
  reason: PatchErrorReason;
  /** Status.message exactly as the apiserver sends it. */
  message: string;
  /** The patch library's own error text when the apiserver does not send it (JSON patch failures); else message. */
  detail?: string;
  details?: PatchStatusDetails;
}

export class PatchError extends Error {
  override readonly name = "PatchError";
  readonly httpStatus: number;
  readonly reason: PatchErrorReason;
  /** What went wrong, for logs and tests; may say more than `message`, which is what clients see. */
  readonly detail: string;
  readonly details: PatchStatusDetails | undefined;

  constructor(init: PatchErrorInit) {
    super(init.message);
    this.httpStatus = init.httpStatus;
    this.reason = init.reason;
    this.detail = init.detail ?? init.message;
    this.details = init.details;
  }

  /** The response body: a metav1.Status with the apiserver's field order and omitempty behaviour. */
  toStatus(): PatchStatus {
    const status: PatchStatus = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      code: this.httpStatus,
    };
    if (this.reason !== "") status.reason = this.reason;
    if (this.details !== undefined) {
      const details: PatchStatusDetails = {};
      if (this.details.causes !== undefined) details.causes = this.details.causes.map((cause) => ({ ...cause }));
      status.details = details;
    }
    // Re-insert code last, where the apiserver writes it.
    const { code, ...rest } = status;
    return { ...rest, code };
  }
}

/** errors.NewBadRequest: 400 with the error text as the message. */
export function badRequest(message: string): PatchError {
  return new PatchError({ httpStatus: 400, reason: "BadRequest", message });
}

/**
 * errors.NewGenericServerResponse(422, ..., isUnexpectedResponse=false), which the apiserver uses for a JSON patch
 * that does not apply and for two strategic-merge-patch errors: a fixed message, empty details, and the library
 * error dropped (kept here as `detail`).
 */
export function rejectedRequest(detail: string): PatchError {
  return new PatchError({
    httpStatus: 422,
    reason: "Invalid",
    message: "the server rejected our request due to an error in our request",
    detail,
    details: {},
  });
}

/** A plain Go error returned from the handler: 500, no reason, the error text as the message. */
export function serverError(message: string): PatchError {
  return new PatchError({ httpStatus: 500, reason: "", message });
}

/** errors.NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), value, why)). */
export function invalidPatch(value: string, why: string): PatchError {
  const body = `Invalid value: ${JSON.stringify(value)}: ${why}`;
  return new PatchError({
    httpStatus: 422,
    reason: "Invalid",
    message: ` "" is invalid: patch: ${body}`,
    details: { causes: [{ reason: "FieldValueInvalid", message: body, field: "patch" }] },
  });
}

/** errors.NewRequestEntityTooLargeError for a JSON patch with too many operations. */
export function tooManyOperations(maxOperations: number, got: number): PatchError {
  return new PatchError({
    httpStatus: 413,
    reason: "RequestEntityTooLarge",
    message: `Request entity too large: The allowed maximum operations in a JSON patch is ${maxOperations}, got ${got}`,
  });
}

/** negotiation.NewUnsupportedMediaTypeError for a PATCH whose Content-Type is not a patch type. */
export function unsupportedMediaType(accepted: readonly string[]): PatchError {
  return new PatchError({
    httpStatus: 415,
    reason: "UnsupportedMediaType",
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
  });
}
