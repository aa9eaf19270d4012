// How stsfleet reads a failed NATS call: by JetStream's `err_code` (nats.js JetStreamApiError and its classes, or
// the code our StreamPublisher reads from an ack), never by the error's text, which the server is free to reword.
// After nats.js jetstream/src/jserrors.ts: the codes as const, a class per failure, one front door.
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { errors } from "@nats-io/transport-node";

export const STREAM_PUBLISH_FAILURES = ["timeout", "no-responders", "api", "closed"] as const;
export type StreamPublishFailure = (typeof STREAM_PUBLISH_FAILURES)[number];

/** Why a StreamPublisher publish got no ack. `apiCode` is JetStream's err_code for `api` failures. */
export class StreamPublishError extends Error {
  override readonly name = "StreamPublishError";
  readonly failure: StreamPublishFailure;
  readonly subject: string;
  readonly apiCode: number | undefined;

  constructor(failure: StreamPublishFailure, subject: string, detail: string, apiCode?: number) {
    super(`publish to ${subject}: ${failure}: ${detail}`);
    this.failure = failure;
    this.subject = subject;
    this.apiCode = apiCode;
  }

  /** The compare-and-set on the subject's last sequence failed (see isWrongLastSequence). */
  get isWrongLastSequence(): boolean {
    return isWrongLastSequence(this);
  }
}

/** JetStream's err_code of a failed call (nats.js or StreamPublisher), or undefined when it is no API answer. */
export function jetStreamApiCode(error: unknown): number | undefined {
  if (error instanceof JetStreamApiError) return error.code;
  if (error instanceof StreamPublishError && error.failure === "api") return error.apiCode;
  return undefined;
}

/**
 * A compare-and-set on a subject's last sequence failed: a StreamPublisher publish, or a nats.js KV/JetStream call.
 * JetStream has two codes for it: 10071 when the subject has a last sequence, 10164 when the server cannot tell.
 */
export function isWrongLastSequence(error: unknown): boolean {
  const code = jetStreamApiCode(error);
  return code === JetStreamApiCodes.StreamWrongLastSequence || code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
}

/** The stream does not exist (10059; nats.js throws its StreamNotFoundError, a JetStreamApiError). */
export function isStreamNotFound(error: unknown): boolean {
  return jetStreamApiCode(error) === JetStreamApiCodes.StreamNotFound;
}

/** The consumer does not exist (10014; nats.js throws its ConsumerNotFoundError, a JetStreamApiError). */
export function isConsumerNotFound(error: unknown): boolean {
  return jetStreamApiCode(error) === JetStreamApiCodes.ConsumerNotFound;
}

export type NatsFailureKind = "timeout" | "unavailable" | "error";

/** nats-server's JSNotEnabledErr (JetStream off on the server); nats.js's code table lists only the account's. */
const JETSTREAM_NOT_ENABLED = 10076;

function isJetStreamOff(code: number | undefined): boolean {
  return code === JETSTREAM_NOT_ENABLED || code === JetStreamApiCodes.JetStreamNotEnabledForAccount;
}

/**
 * What kind of failure a NATS call met, by error class and code: no answer in time; nobody to answer (no
 * responders, a closed connection, JetStream off or without a leader: status 503); anything else.
 */
export function natsFailureKind(error: unknown): NatsFailureKind {
  if (error instanceof StreamPublishError) {
    if (error.failure === "timeout") return "timeout";
    if (error.failure === "no-responders" || error.failure === "closed") return "unavailable";
    return isJetStreamOff(error.apiCode) ? "unavailable" : "error";
  }
  if (error instanceof errors.TimeoutError) return "timeout";
  if (error instanceof errors.NoRespondersError || error instanceof errors.ClosedConnectionError) return "unavailable";
  if (error instanceof JetStreamApiError) return error.status === 503 || isJetStreamOff(error.code) ? "unavailable" : "error";
  return "error";
}
