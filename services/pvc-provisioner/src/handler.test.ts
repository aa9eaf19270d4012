// The command handler alone, with stores for Kubernetes, the shard epochs and the Event recorder: what becomes of
// each kind of delivery. The pull loop and a real nats-server are in command-consumer.test.ts and provisioner.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import { codecs, pvcCommandSubjects, shard as shardOf } from "#protocol";
import type { PvcCommand, PvcCreate, PvcUpdateOwnerRefs } from "#protocol";
import type { EventRecorder, RecordedEvent } from "../../common/src/events.ts";
import { DropReporter } from "../../common/src/executor/drops.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import { KubeApiError } from "../../common/src/kube.ts";
import type { ResourceRef } from "../../common/src/kube.ts";
import { createLogger } from "../../common/src/logger.ts";
import { createCommonMetrics } from "../../common/src/metrics.ts";
import type { CommandResult } from "./claims.ts";
import type { Delivery } from "./command-consumer.ts";
import { DEFAULT_PVC_SETTINGS } from "./config.ts";
import { CommandHandler, countedOutcome, disposition } from "./handler.ts";
import { createPvcMetrics } from "./metrics.ts";

const SET = { namespace: "default", name: "web", uid: "0b5f7a3e-0000-4000-8000-000000000001" };
const SHARD = shardOf("default", "web");
const SUBJECT = pvcCommandSubjects.build({ shard: SHARD, namespace: "default", name: "web" });
const SETTINGS = { ...DEFAULT_PVC_SETTINGS, maxDeliver: 3, retryBackoffMs: [50, 100] };

type Stored = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string } };

/** Claims by name; `failing` answers every write with that error instead. */
class ClaimStore {
  readonly claims = new Map<string, Stored>();
  failing: Error | undefined;
  private version = 0;
  readonly kube: KubeApi = {
    get: <T>(ref: ResourceRef) => {
      const claim = this.claims.get(ref.name ?? "");
      if (!claim) return Promise.reject(new KubeApiError({ status: 404, verb: "get", path: ref.name ?? "", body: { reason: "NotFound" } }));
      return Promise.resolve(claim as T);
    },
    create: <T>(_ref: ResourceRef, body: unknown) => {
      if (this.failing) return Promise.reject(this.failing);
      const claim = body as Stored;
      if (this.claims.has(claim.metadata.name)) {
        return Promise.reject(new KubeApiError({ status: 409, verb: "create", path: claim.metadata.name, body: { reason: "AlreadyExists" } }));
      }
      this.version += 1;
      const stored = { ...claim, metadata: { ...claim.metadata, uid: `uid-${this.version}`, resourceVersion: String(this.version) } };
      this.claims.set(claim.metadata.name, stored);
      return Promise.resolve(stored as T);
    },
    replace: <T>(ref: ResourceRef, body: unknown) => {
      if (this.failing) return Promise.reject(this.failing);
      this.claims.set(ref.name ?? "", body as Stored);
      return Promise.resolve(body as T);
    },
    patch: () => Promise.reject(new Error("claims are not patched")),
  };
}

class EventStore implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  record(event: RecordedEvent): void {
    this.events.push(event);
  }
}

function setup(currentEpoch = 5) {
  const claims = new ClaimStore();
  const events = new EventStore();
  const common = createCommonMetrics("pvc-provisioner", "test");
  const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });
  const handler = new CommandHandler(SETTINGS, {
    kube: claims.kube,
    epochs: { isStale: (_shard, epoch) => epoch < currentEpoch, epochOf: () => currentEpoch },
    events,
    metrics: createPvcMetrics(common),
    drops: new DropReporter(common, logger),
    logger,
    tracer: trace.getTracer("handler-test"),
  });
  const counted = async (name: string, labels: Record<string, string>) =>
    (await common.registry.getSingleMetricAsString(name)).split("\n").some((line) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)) && !line.endsWith(" 0"));
  return { claims, events, handler, counted };
}

const create = (epoch: number, claims = ["data-web-0"]): PvcCreate => ({
  type: "pvc.create",
  shard: SHARD,
  epoch,
  commandId: `${SET.uid}/${epoch}/1/claims/web-0`,
  issuedBy: "actor-0",
  set: SET,
  podName: "web-0",
  ordinal: 0,
  claims: claims.map((name) => ({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name }, spec: {} })),
});

const delivery = (command: PvcCommand | Uint8Array, deliveryCount = 1, subject = SUBJECT): Delivery => ({
  subject,
  data: command instanceof Uint8Array ? command : codecs.pvcCommand.encode(command),
  seq: 1,
  deliveryCount,
});

describe("disposition (a command result on a delivery)", () => {
  const cases: [CommandResult, number, string][] = [
    [{ outcome: "created" }, 1, "ack"],
    [{ outcome: "exists" }, 3, "ack"],
    [{ outcome: "gone" }, 1, "ack"],
    [{ outcome: "stale" }, 1, "term"],
    [{ outcome: "failed" }, 1, "term"],
    [{ outcome: "retry" }, 1, "nak 50"],
    [{ outcome: "retry" }, 2, "nak 100"],
    [{ outcome: "terminating" }, 2, "nak 100"],
    [{ outcome: "retry", retryAfterMs: 2_000 }, 1, "nak 2000"],
    [{ outcome: "retry" }, 3, "term"],
  ];
  for (const [result, deliveryCount, expected] of cases) {
    it(`${result.outcome}${result.retryAfterMs ? ` (Retry-After ${result.retryAfterMs} ms)` : ""} on delivery ${deliveryCount}: ${expected}`, () => {
      const decided = disposition(result, deliveryCount, SETTINGS);
      assert.equal(decided.kind === "nak" ? `nak ${decided.delayMs}` : decided.kind, expected);
    });
  }

  it("counts a retry given up on the last delivery as exhausted", () => {
    assert.equal(countedOutcome({ outcome: "retry" }, { kind: "term" }), "exhausted");
    assert.equal(countedOutcome({ outcome: "terminating" }, { kind: "term" }), "exhausted");
    assert.equal(countedOutcome({ outcome: "stale" }, { kind: "term" }), "stale");
    assert.equal(countedOutcome({ outcome: "retry" }, { kind: "nak", delayMs: 50 }), "retry");
  });
});

describe("CommandHandler", () => {
  it("creates the claims, acks, and records SuccessfulCreate about the set under the command's epoch", async () => {
    const { claims, events, handler } = setup();
    assert.deepEqual(await handler.handle(delivery(create(5))), { kind: "ack" });
    assert.ok(claims.claims.has("data-web-0"));
    assert.equal(events.events.length, 1);
    const [event] = events.events;
    assert.deepEqual(event && { ...event, note: undefined }, {
      set: { shard: SHARD, namespace: "default", name: "web" },
      epoch: 5,
      regarding: { apiVersion: "apps/v1", kind: "StatefulSet", namespace: "default", name: "web", uid: SET.uid },
      eventType: "Normal",
      reason: "SuccessfulCreate",
      note: undefined,
      action: "Create",
    });
    assert.deepEqual(await handler.handle(delivery(create(5), 2)), { kind: "ack" }, "a redelivery finds it exists");
    assert.equal(events.events.length, 1, "no Event for a claim that exists");
  });

  it("terminates what a redelivery cannot fix: garbage, a body for another set, invalid claims, a fenced epoch", async () => {
    const { claims, events, handler, counted } = setup();
    assert.deepEqual(await handler.handle(delivery(new TextEncoder().encode("{not msgpack"))), { kind: "term" });
    assert.ok(await counted("stsfleet_dropped_messages_total", { reason: "malformed" }));
    const elsewhere = pvcCommandSubjects.build({ shard: SHARD, namespace: "default", name: "db" });
    assert.deepEqual(await handler.handle(delivery(create(5), 1, elsewhere)), { kind: "term" });
    assert.ok(await counted("stsfleet_dropped_messages_total", { reason: "mismatch" }));
    assert.deepEqual(await handler.handle(delivery(create(5, ["data-web-0", "data-web-0"]))), { kind: "term" });
    assert.ok(await counted("stsfleet_dropped_messages_total", { reason: "invalid" }));
    assert.deepEqual(await handler.handle(delivery(create(4))), { kind: "term" });
    assert.ok(await counted("stsfleet_pvc_commands_total", { outcome: "stale-epoch" }));
    assert.equal(claims.claims.size, 0);
    assert.equal(events.events.length, 0);
  });

  it("naks a transient failure with the backoff and terminates it on the last delivery, with FailedCreate each time", async () => {
    const { claims, events, handler, counted } = setup();
    claims.failing = new KubeApiError({ status: 500, verb: "create", path: "x", body: { reason: "InternalError", message: "etcd is down" } });
    assert.deepEqual(await handler.handle(delivery(create(5), 1)), { kind: "nak", delayMs: 50 });
    assert.deepEqual(await handler.handle(delivery(create(5), 3)), { kind: "term" });
    assert.ok(await counted("stsfleet_pvc_commands_total", { outcome: "exhausted" }));
    assert.deepEqual(events.events.map((e) => [e.eventType, e.reason]), [["Warning", "FailedCreate"], ["Warning", "FailedCreate"]]);
    assert.match(events.events[0]?.note ?? "", /^create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: etcd is down$/);
  });

  it("terminates an owner-reference update on a claim that changed since the actor planned", async () => {
    const { claims, handler } = setup();
    await handler.handle(delivery(create(5)));
    const stored = claims.claims.get("data-web-0");
    const update: PvcUpdateOwnerRefs = {
      type: "pvc.updateOwnerRefs",
      shard: SHARD,
      epoch: 5,
      commandId: `${SET.uid}/5/2/refs/data-web-0/1`,
      issuedBy: "actor-0",
      set: SET,
      claimName: "data-web-0",
      claimUid: "another-uid",
      resourceVersion: stored?.metadata.resourceVersion ?? "",
      ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: SET.uid }],
    };
    assert.deepEqual(await handler.handle(delivery(update)), { kind: "term" });
    assert.deepEqual(await handler.handle(delivery({ ...update, claimUid: stored?.metadata.uid ?? "" })), { kind: "ack" });
  });
});
