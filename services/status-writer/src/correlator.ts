// client-go's EventCorrelator (tools/record/events_cache.go), which kube-controller-manager's legacy recorder runs
// before every Event write, with the same defaults and the same order of steps:
//   1. aggregate: the 10th distinct message with the same source, object, type and reason within 10 minutes
//      turns into one event "(combined from similar events): <message>", counted from then on;
//   2. observe: an event identical to one already written (same key including the message) becomes a count bump
//      (a strategic-merge PATCH of count, lastTimestamp and message on the existing object);
//   3. spam filter: a token bucket per source + object, burst 25, refilled one token every 5 minutes; an event
//      without a token is skipped (after steps 1 and 2 updated their caches, as upstream).
// Pure: time comes from the caller.

export interface ObjectReference {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  apiVersion: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** A core/v1 Event as the legacy recorder writes it. */
export interface CoreEvent {
  apiVersion: "v1";
  kind: "Event";
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: string;
  reportingComponent?: string;
  reportingInstance?: string;
}

export interface CountPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

export type Correlation =
  | { readonly kind: "skip" }
  | { readonly kind: "create"; readonly event: CoreEvent }
  | { readonly kind: "patch"; readonly event: CoreEvent; readonly patch: CountPatch };

export interface CorrelatorOptions {
  /** Events a source may write about one object at once (client-go: 25). */
  readonly burst: number;
  /** One token back per this many milliseconds (client-go: 1/300 qps = 300 000 ms). */
  readonly refillIntervalMs: number;
  /** Distinct messages per reason before aggregation (client-go: 10). */
  readonly aggregateMaxEvents: number;
  /** Window of the aggregation (client-go: 600 s). */
  readonly aggregateIntervalMs: number;
  /** Entries of each LRU cache (client-go: 4096). */
  readonly cacheSize: number;
}

export const CLIENT_GO_CORRELATOR: CorrelatorOptions = {
  burst: 25,
  refillIntervalMs: 300_000,
  aggregateMaxEvents: 10,
  aggregateIntervalMs: 600_000,
  cacheSize: 4096,
};

/** A Map in least-recently-used order with a fixed capacity. */
export class Lru<V> {
  private readonly capacity: number;
  private readonly map = new Map<string, V>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }

  get size(): number {
    return this.map.size;
  }
}

/** golang.org/x/time/rate semantics as client-go's token-bucket limiter uses them: starts full, refills continuously. */
export class TokenBucket {
  private tokens: number;
  private lastMs: number;
  private readonly burst: number;
  private readonly refillIntervalMs: number;

  constructor(burst: number, refillIntervalMs: number, nowMs: number) {
    this.burst = burst;
    this.refillIntervalMs = refillIntervalMs;
    this.tokens = burst;
    this.lastMs = nowMs;
  }

  tryAccept(nowMs: number): boolean {
    const elapsedMs = Math.max(0, nowMs - this.lastMs);
    this.tokens = Math.min(this.burst, this.tokens + elapsedMs / this.refillIntervalMs);
    this.lastMs = Math.max(this.lastMs, nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Kubernetes' metav1.Time wire format: RFC 3339 in UTC with whole seconds. */
export function rfc3339Seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** `<object name>.<unix nanoseconds in hex>`, the legacy recorder's naming. */
export function eventName(objectName: string, nanos: bigint): string {
  return `${objectName}.${nanos.toString(16)}`;
}

// Upstream joins the fields with ""; a separator keeps two different field lists from making the same key.
const SEPARATOR = "\u0000";

/** Source and object: client-go's spam key, and the start of the other two. */
function spamKey(event: CoreEvent): string {
  const o = event.involvedObject;
  return [event.source.component, event.source.host ?? "", o.kind, o.namespace, o.name, o.uid, o.apiVersion].join(SEPARATOR);
}

/** getEventKey: identical events (same field path, type, reason and message) share it. */
function eventKey(event: CoreEvent): string {
  return [spamKey(event), event.involvedObject.fieldPath ?? "", event.type, event.reason, event.message].join(SEPARATOR);
}

/** EventAggregatorByReasonFunc: events that differ only by message share it. */
function aggregateKey(event: CoreEvent): string {
  return [spamKey(event), event.type, event.reason, event.reportingComponent ?? "", event.reportingInstance ?? ""].join(SEPARATOR);
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastMs: number;
}

interface EventLog {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion: string | undefined;
}

export class EventCorrelator {
  private readonly options: CorrelatorOptions;
  private readonly aggregates: Lru<AggregateRecord>;
  private readonly observed: Lru<EventLog>;
  private readonly buckets: Lru<TokenBucket>;

  constructor(options: CorrelatorOptions = CLIENT_GO_CORRELATOR) {
    this.options = options;
    this.aggregates = new Lru(options.cacheSize);
    this.observed = new Lru(options.cacheSize);
    this.buckets = new Lru(options.cacheSize);
  }

  /** `nowMs` is the correlator's clock; `nowNanos` names an aggregate event created now. */
  correlate(newEvent: CoreEvent, nowMs: number, nowNanos: bigint): Correlation {
    const { event: aggregated, key } = this.aggregate(newEvent, nowMs, nowNanos);
    const observed = this.observe(aggregated, key);
    const bucketKey = spamKey(observed.event);
    let bucket = this.buckets.get(bucketKey);
    if (!bucket) bucket = new TokenBucket(this.options.burst, this.options.refillIntervalMs, nowMs);
    const accepted = bucket.tryAccept(nowMs);
    this.buckets.set(bucketKey, bucket);
    if (!accepted) return { kind: "skip" };
    return observed.patch ? { kind: "patch", event: observed.event, patch: observed.patch } : { kind: "create", event: observed.event };
  }

  /** Records what the server stored (its name and resourceVersion) so the next identical event patches it. */
  updateState(stored: CoreEvent): void {
    this.observed.set(eventKey(stored), {
      count: stored.count,
      firstTimestamp: stored.firstTimestamp,
      name: stored.metadata.name,
      resourceVersion: stored.metadata.resourceVersion,
    });
  }

  private aggregate(event: CoreEvent, nowMs: number, nowNanos: bigint): { event: CoreEvent; key: string } {
    const groupKey = aggregateKey(event);
    let record = this.aggregates.get(groupKey);
    if (!record || nowMs - record.lastMs > this.options.aggregateIntervalMs) record = { localKeys: new Set(), lastMs: nowMs };
    record.localKeys.add(event.message);
    record.lastMs = nowMs;
    this.aggregates.set(groupKey, record);
    if (record.localKeys.size < this.options.aggregateMaxEvents) return { event, key: eventKey(event) };
    // Keep the set at its maximum size (upstream pops an arbitrary member).
    const first = record.localKeys.values().next();
    if (!first.done) record.localKeys.delete(first.value);
    const now = rfc3339Seconds(nowMs);
    // Upstream builds the aggregate from scratch: no reporting fields, no involvedObject change.
    const combined: CoreEvent = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: eventName(event.involvedObject.name, nowNanos), namespace: event.metadata.namespace },
      involvedObject: event.involvedObject,
      reason: event.reason,
      message: `(combined from similar events): ${event.message}`,
      source: event.source,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: event.type,
    };
    return { event: combined, key: groupKey };
  }

  private observe(event: CoreEvent, key: string): { event: CoreEvent; patch?: CountPatch } {
    const last = this.observed.get(key);
    let result: { event: CoreEvent; patch?: CountPatch } = { event };
    if (last && last.count > 0) {
      const bumped: CoreEvent = {
        ...event,
        metadata: {
          ...event.metadata,
          name: last.name,
          ...(last.resourceVersion !== undefined ? { resourceVersion: last.resourceVersion } : {}),
        },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      result = { event: bumped, patch: { count: bumped.count, lastTimestamp: bumped.lastTimestamp, message: bumped.message } };
    }
    this.observed.set(key, {
      count: result.event.count,
      firstTimestamp: result.event.firstTimestamp,
      name: result.event.metadata.name,
      resourceVersion: result.event.metadata.resourceVersion,
    });
    return result;
  }
}
