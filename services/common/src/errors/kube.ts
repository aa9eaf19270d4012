// How stsfleet reads a failed Kubernetes request: the API server's Status (code, reason, message) carried by
// KubeApiError, never the error's text; what a retry can help; the text upstream puts in an Event; metric labels.

export interface KubeStatusBody {
  readonly kind?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: { readonly causes?: readonly { reason?: string; message?: string; field?: string }[] };
}

/** A non-2xx answer from the API server (or a transport failure, with status 0). */
export class KubeApiError extends Error {
  override readonly name = "KubeApiError";
  readonly status: number;
  readonly reason: string;
  readonly verb: string;
  readonly path: string;
  readonly body: KubeStatusBody | undefined;
  /** From Retry-After on 429/5xx answers. */
  readonly retryAfterMs: number | undefined;

  constructor(init: {
    status: number;
    verb: string;
    path: string;
    body?: KubeStatusBody | undefined;
    retryAfterMs?: number | undefined;
    message?: string;
    cause?: unknown;
  }) {
    const reason = init.body?.reason ?? (init.status === 0 ? "Transport" : "Unknown");
    super(init.message ?? `${init.verb} ${init.path}: ${init.status} ${reason}: ${init.body?.message ?? ""}`.trim(), {
      cause: init.cause,
    });
    this.status = init.status;
    this.reason = reason;
    this.verb = init.verb;
    this.path = init.path;
    this.body = init.body;
    this.retryAfterMs = init.retryAfterMs;
  }

  get isNotFound(): boolean {
    return this.status === 404;
  }
  get isConflict(): boolean {
    return this.status === 409 && this.reason === "Conflict";
  }
  get isAlreadyExists(): boolean {
    return this.status === 409 && this.reason === "AlreadyExists";
  }
  get isGone(): boolean {
    return this.status === 410;
  }
  /** Worth retrying as is: throttling, server errors, transport failures. */
  get isTransient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** A request that `mayWrite` stopped before any of it was sent. */
export class WriteFencedError extends Error {
  readonly verb: string;
  readonly path: string;
  constructor(fields: { verb: string; path: string }) {
    super(`${fields.verb} ${fields.path}: not sent, the writer lost its right to write`);
    this.name = "WriteFencedError";
    this.verb = fields.verb;
    this.path = fields.path;
  }
}

/** The error text as client-go's StatusError.Error() prints it: the API server's Status message. */
export function kubeErrorText(error: unknown): string {
  if (error instanceof KubeApiError) {
    const message = error.body?.message;
    if (typeof message === "string" && message.length > 0) return message;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Throttling, server errors and transport failures can pass on a retry; other answers will not change. */
export function isTransientKubeError(error: unknown): boolean {
  if (error instanceof KubeApiError) return error.isTransient;
  return true;
}

/** The server's Retry-After, if it sent one. */
export function retryAfterMs(error: unknown): number | undefined {
  return error instanceof KubeApiError ? error.retryAfterMs : undefined;
}

export function kubeErrorLabels(error: unknown): { code: string; reason: string } {
  if (error instanceof KubeApiError) return { code: String(error.status || "error"), reason: error.reason };
  return { code: "error", reason: "Unknown" };
}
