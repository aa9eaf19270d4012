// How executors read a failed Kubernetes request: the text upstream would put in an Event (a Go StatusError
// prints the Status message), whether a retry can help, and the metric labels.
import { KubeApiError } from "../kube.ts";

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
