// The scenarios of client-go's TestEventCorrelator and TestEventSpamFilter (tools/record/events_cache_test.go),
// replayed against our correlator with the same defaults and clock steps.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CLIENT_GO_CORRELATOR, EventCorrelator, Lru, TokenBucket, eventName, rfc3339Seconds } from "./correlator.ts";
import type { CoreEvent, Correlation, CountPatch } from "./correlator.ts";

const START_MS = Date.UTC(2026, 0, 1);

function makeEvent(reason: string, message: string, fieldPath?: string): CoreEvent {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `my-pod.${reason}`, namespace: "my-ns" },
    involvedObject: {
      kind: "Pod",
      namespace: "my-ns",
      name: "my-pod",
      uid: "uid-1",
      apiVersion: "v1",
      ...(fieldPath ? { fieldPath } : {}),
    },
    reason,
    message,
    source: { component: "statefulset-controller" },
    firstTimestamp: rfc3339Seconds(START_MS),
    lastTimestamp: rfc3339Seconds(START_MS),
    count: 1,
    type: "Normal",
    reportingComponent: "statefulset-controller",
    reportingInstance: "",
  };
}

/** Plays `previous` at `intervalMs` steps (storing what would be written), then `next`. */
function play(previous: readonly CoreEvent[], next: CoreEvent, intervalMs: number, correlator = new EventCorrelator()): Correlation {
  let nowMs = START_MS;
  let serverVersion = 0;
  const step = (event: CoreEvent): Correlation => {
    nowMs += intervalMs;
    const at = rfc3339Seconds(nowMs);
    const result = correlator.correlate({ ...event, firstTimestamp: at, lastTimestamp: at }, nowMs, BigInt(nowMs) * 1_000_000n);
    if (result.kind !== "skip") {
      serverVersion += 1;
      correlator.updateState({ ...result.event, metadata: { ...result.event.metadata, resourceVersion: String(serverVersion) } });
    }
    return result;
  };
  for (const event of previous) step(event);
  return step(next);
}

const times = (n: number, event: CoreEvent) => Array.from({ length: n }, () => event);
const similar = (n: number, event: CoreEvent) => Array.from({ length: n }, (_, i) => ({ ...event, message: `${event.message}${i}` }));

function created(result: Correlation): CoreEvent {
  if (result.kind !== "create") assert.fail(`expected a new event, got ${result.kind}`);
  return result.event;
}

function patched(result: Correlation): { event: CoreEvent; patch: CountPatch } {
  if (result.kind !== "patch") assert.fail(`expected a count bump, got ${result.kind}`);
  return result;
}

describe("EventCorrelator (client-go TestEventCorrelator scenarios)", () => {
  const first = makeEvent("first", "i am first");
  const duplicate = makeEvent("duplicate", "me again");
  const unique = makeEvent("unique", "snowflake");
  const similarEvent = makeEvent("similar", "similar message", "spec.containers{container1}");

  it("create-a-single-event", () => {
    assert.equal(created(play([], first, 5_000)).count, 1);
  });

  it("the-same-event-should-just-count: a PATCH of count, lastTimestamp and message on the first object", () => {
    const { event, patch } = patched(play(times(1, duplicate), duplicate, 5_000));
    assert.equal(event.count, 2);
    assert.equal(event.metadata.resourceVersion, "1", "the stored version of the first write");
    assert.equal(event.firstTimestamp, rfc3339Seconds(START_MS + 5_000), "firstTimestamp stays the first occurrence's");
    assert.deepEqual(patch, { count: 2, lastTimestamp: rfc3339Seconds(START_MS + 10_000), message: "me again" });
  });

  it("the-same-event-should-just-count-even-if-more-than-aggregate", () => {
    assert.equal(patched(play(times(10, duplicate), duplicate, 30_000)).event.count, 11);
  });

  it("the-same-event-is-spam-if-happens-too-frequently (burst 25 per source and object)", () => {
    assert.equal(play(times(26, duplicate), duplicate, 1_000).kind, "skip");
    assert.equal(patched(play(times(24, duplicate), duplicate, 1_000)).event.count, 25, "the 25th still passes");
  });

  it("create-many-unique-events", () => {
    // As upstream's makeUniqueEvents: each about another object.
    const many = Array.from({ length: 30 }, (_, i) => {
      const event = makeEvent(`reason-${i}`, `message-${i}`);
      return { ...event, involvedObject: { ...event.involvedObject, name: `pod-${i}`, namespace: `ns-${i}`, uid: `uid-${i}` } };
    });
    assert.equal(created(play(many, unique, 5_000)).count, 1);
  });

  it("similar-events-should-aggregate-event: the 10th distinct message of a reason is combined", () => {
    const event = created(play(similar(9, similarEvent), similarEvent, 5_000));
    assert.equal(event.message, "(combined from similar events): similar message");
    assert.equal(event.count, 1);
    assert.equal(event.reportingComponent, undefined, "upstream builds the aggregate without reporting fields");
    assert.equal(event.metadata.name, eventName("my-pod", BigInt(START_MS + 50_000) * 1_000_000n));
  });

  it("similar-events-many-times-should-count-the-aggregate", () => {
    const { event } = patched(play(similar(10, similarEvent), similarEvent, 5_000));
    assert.equal(event.count, 2);
    assert.equal(event.message, "(combined from similar events): similar message");
  });

  it("events-from-different-containers-do-not-aggregate", () => {
    const other = { ...similarEvent, involvedObject: { ...similarEvent.involvedObject, fieldPath: "spec.containers{container2}" } };
    assert.equal(created(play(times(1, other), similarEvent, 5_000)).count, 1);
  });

  it("similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate", () => {
    const event = created(play(similar(9, similarEvent), similarEvent, 600_001));
    assert.equal(event.message, "similar message");
  });
});

describe("spam filter (client-go TestEventSpamFilter, default key)", () => {
  it("limits per source and object, whatever the reason, and refills one event per 5 minutes", () => {
    const correlator = new EventCorrelator({ ...CLIENT_GO_CORRELATOR, burst: 1 });
    const original = makeEvent("original", "i am first");
    assert.equal(play([], original, 1_000, correlator).kind, "create");
    assert.equal(play([], makeEvent("duplicate", "me again"), 1_000, correlator).kind, "skip", "same object, other reason");
    const otherObject = { ...original, involvedObject: { ...original.involvedObject, name: "other", uid: "uid-2" } };
    assert.equal(play([], otherObject, 1_000, correlator).kind, "create", "another object has its own bucket");
  });

  it("TokenBucket starts full and refills continuously", () => {
    const bucket = new TokenBucket(2, 300_000, 0);
    assert.deepEqual([bucket.tryAccept(0), bucket.tryAccept(0), bucket.tryAccept(0)], [true, true, false]);
    assert.equal(bucket.tryAccept(299_999), false);
    assert.equal(bucket.tryAccept(300_000), true);
    assert.equal(bucket.tryAccept(300_001), false);
  });
});

describe("helpers", () => {
  it("Lru keeps the most recently used entries", () => {
    const lru = new Lru<number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.get("a");
    lru.set("c", 3);
    assert.deepEqual([lru.get("a"), lru.get("b"), lru.get("c"), lru.size], [1, undefined, 3, 2]);
  });

  it("timestamps and names have the legacy recorder's formats", () => {
    assert.equal(rfc3339Seconds(Date.UTC(2026, 4, 6, 7, 8, 9, 999)), "2026-05-06T07:08:09Z");
    assert.equal(eventName("web", 1_790_000_000_123_456_789n), "web.18d75b842b4ecd15");
  });
});
