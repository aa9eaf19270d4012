// Writing Events the way kube-controller-manager's legacy recorder does (client-go tools/record): a core/v1
// Event about the object (involvedObject, source.component "statefulset-controller", first/lastTimestamp, count),
// named `<object>.<unix nanoseconds in hex>`, run through the EventCorrelator first; a count bump is a
// strategic-merge PATCH, and a PATCH that finds the event gone creates it again. Why core/v1 and not
// events.k8s.io/v1: docs/adr/0045-core-v1-events-like-the-legacy-recorder.md.
import { setTimeout as sleep } from "node:timers/promises";
import type { EventRecord } from "#protocol";
import { KubeApiError } from "../../common/src/kube.ts";
import type { Logger } from "../../common/src/logger.ts";
import { isTransientKubeError, kubeErrorText } from "../../common/src/errors/kube.ts";
import type { ExecutorMetrics } from "../../common/src/executor/metrics.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import { eventName, rfc3339Seconds } from "./correlator.ts";
import type { CoreEvent, CountPatch, EventCorrelator } from "./correlator.ts";

/** The StatefulSet controller's event source (kube-controller-manager's recorder for it). */
export const EVENT_SOURCE_COMPONENT = "statefulset-controller";

export type EventOutcome =
  | "created"
  | "patched"
  /** Skipped by the per-object rate limit. */
  | "spam-filtered"
  /** Refused by the API server for good (invalid, namespace terminating, already exists); not retried, as upstream. */
  | "rejected"
  /** Still failing after the last try. */
  | "failed"
  /** Dropped because the service is shutting down. */
  | "abandoned";

/** Unique `UnixNano` values for event names: milliseconds from the record, sub-millisecond part random. */
export class EventNanos {
  private last = 0n;
  private readonly random: () => number;

  constructor(random: () => number = Math.random) {
    this.random = random;
  }

  next(ms: number): bigint {
    let candidate = BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.floor(this.random() * 1_000_000));
    if (candidate <= this.last) candidate = this.last + 1n;
    this.last = candidate;
    return candidate;
  }
}

export function buildEvent(record: EventRecord, nanos: bigint): CoreEvent {
  const at = rfc3339Seconds(record.occurredAtMs);
  const regarding = record.regarding;
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: eventName(regarding.name, nanos), namespace: regarding.namespace },
    involvedObject: {
      kind: regarding.kind,
      namespace: regarding.namespace,
      name: regarding.name,
      uid: regarding.uid,
      apiVersion: regarding.apiVersion,
      ...(regarding.resourceVersion !== undefined ? { resourceVersion: regarding.resourceVersion } : {}),
    },
    reason: record.reason,
    message: record.note,
    source: { component: EVENT_SOURCE_COMPONENT },
    firstTimestamp: at,
    lastTimestamp: at,
    count: 1,
    type: record.eventType,
    reportingComponent: EVENT_SOURCE_COMPONENT,
    reportingInstance: "",
  };
}

export interface EventSinkSettings {
  /** Tries per event, as client-go's maxTriesPerEvent (12). */
  readonly maxTries: number;
  /** Pause between tries (client-go sleeps 10 s). */
  readonly retryDelayMs: number;
}

export interface EventSinkDeps {
  readonly kube: KubeApi;
  readonly correlator: EventCorrelator;
  readonly metrics: ExecutorMetrics;
  readonly logger: Logger;
  readonly nanos: EventNanos;
  /** Wall clock for the correlator (aggregation window, rate limit). */
  nowMs(): number;
}

/** core/v1 events (RESOURCES.events is the events.k8s.io/v1 view of the same objects). */
const CORE_EVENTS = { group: "", version: "v1", resource: "events" } as const;

function eventsRef(namespace: string, name?: string) {
  return { ...CORE_EVENTS, namespace, name };
}

/** upstream recordToSink's rule: the server's Status answers are final; only failures to reach it are retried. */
function isFinalRejection(error: unknown): boolean {
  return error instanceof KubeApiError && !isTransientKubeError(error);
}

async function writeOnce(event: CoreEvent, patch: CountPatch | undefined, deps: EventSinkDeps): Promise<"created" | "patched"> {
  if (patch) {
    try {
      const stored = await deps.kube.patch<CoreEvent>(eventsRef(event.metadata.namespace, event.metadata.name), patch, "strategic");
      deps.correlator.updateState(stored);
      return "patched";
    } catch (error) {
      deps.metrics.countKubeError("patch", "events", error);
      if (!(error instanceof KubeApiError && error.isNotFound)) throw error;
    }
  }
  const body: CoreEvent = { ...event, metadata: { name: event.metadata.name, namespace: event.metadata.namespace } };
  try {
    const stored = await deps.kube.create<CoreEvent>(eventsRef(body.metadata.namespace), body);
    deps.correlator.updateState(stored);
    return "created";
  } catch (error) {
    deps.metrics.countKubeError("create", "events", error);
    throw error;
  }
}

/** Correlates one record and writes the result, retrying unreachable-server failures. */
export async function recordEvent(
  record: EventRecord,
  settings: EventSinkSettings,
  deps: EventSinkDeps,
  signal?: AbortSignal,
): Promise<EventOutcome> {
  const nowMs = deps.nowMs();
  const correlation = deps.correlator.correlate(buildEvent(record, deps.nanos.next(record.occurredAtMs)), nowMs, deps.nanos.next(nowMs));
  if (correlation.kind === "skip") return "spam-filtered";
  const event = correlation.event;
  const patch = correlation.kind === "patch" ? correlation.patch : undefined;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await writeOnce(event, patch, deps);
    } catch (error) {
      const log = { reason: event.reason, event: event.metadata.name, attempt, error: kubeErrorText(error) };
      if (isFinalRejection(error)) {
        const quiet = error instanceof KubeApiError && (error.isAlreadyExists || isNamespaceTerminating(error));
        if (quiet) deps.logger.debug(log, "event not written");
        else deps.logger.warn(log, "the API server rejected an event; not retrying");
        return "rejected";
      }
      if (attempt >= settings.maxTries) {
        deps.logger.warn(log, "could not write an event; giving up");
        return "failed";
      }
      if (signal?.aborted) return "abandoned";
      try {
        await sleep(settings.retryDelayMs, undefined, signal ? { signal } : undefined);
      } catch {
        return "abandoned";
      }
    }
  }
}

function isNamespaceTerminating(error: KubeApiError): boolean {
  return (error.body?.details?.causes ?? []).some((cause) => cause.reason === "NamespaceTerminating");
}
