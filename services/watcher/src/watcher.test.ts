// The watcher in-process against a real nats-server (2.9) and the simulator over real HTTP: initial sync, live
// events with trace context, restart diffing, active/standby takeover, and relisting after 410 Gone.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { TraceFlags, context, trace } from "@opentelemetry/api";
import type { Context, Span, SpanOptions, Tracer, TracerProvider } from "@opentelemetry/api";
import type { Counter } from "prom-client";
import { shard } from "#protocol";
import {
  claimBody,
  createNamespace,
  eventually,
  natsClient,
  podBody,
  readStream,
  revisionBody,
  settle,
  startSim,
  startTestWatcher,
  statefulSet,
  summarize,
  useKubeSim,
  watcherConfig,
} from "#test-support/watcher-harness.ts";
import type { ObjectMeta, SimHandle, TestWatcher } from "#test-support/watcher-harness.ts";
import type { NatsConnection } from "@nats-io/transport-node";
import { useNatsServer } from "../../../test/support/nats.ts";
import { startNatsServer } from "../../../tools/lib/nats-server.ts";
import { RESOURCES } from "../../common/src/kube.ts";
import { INTERNAL_WRITE } from "../../../tools/kube-sim/src/registry/registry.ts";
import { mustFind } from "../../../tools/kube-sim/src/resources.ts";
import type { WatcherConfig } from "./config.ts";

/** Records spans with real ids, so trace propagation is observable without an SDK. */
class RecordingTracer implements Tracer {
  readonly spans: { name: string; traceId: string; spanId: string; parentSpanId: string | undefined }[] = [];

  startSpan(name: string, _options?: SpanOptions, ctx = context.active()): Span {
    const parent = trace.getSpanContext(ctx);
    const traceId = parent?.traceId ?? randomBytes(16).toString("hex");
    const spanId = randomBytes(8).toString("hex");
    this.spans.push({ name, traceId, spanId, parentSpanId: parent?.spanId });
    return trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.pop() as F;
    const [options, ctx] = rest as [SpanOptions | undefined, Context | undefined];
    const parent = ctx ?? context.active();
    const span = this.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}
const tracer = new RecordingTracer();
const provider: TracerProvider = { getTracer: () => tracer };
trace.setGlobalTracerProvider(provider);

async function total(counter: Counter<string>, labels: Record<string, string> = {}): Promise<number> {
  const data = await counter.get();
  return data.values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

async function readyWatcher(config: Readonly<WatcherConfig>): Promise<TestWatcher> {
  const watcher = await startTestWatcher(config);
  await eventually(`${config.name} ready`, () => watcher.isReady());
  return watcher;
}

async function flushed(watcher: TestWatcher): Promise<void> {
  assert.equal(await watcher.flush(8_000), true, `${watcher.name} did not finish publishing`);
}

const at = (set: string, namespace: string) => shard(namespace, set);

describe("watcher against nats-server 2.9 and kube-sim", () => {
  let natsUrl = "";
  let k: SimHandle;

  let nc: NatsConnection;
  const cleanups: (() => Promise<void>)[] = [];

  before(async () => {
    const nats = await startNatsServer();
    natsUrl = nats.url;
    cleanups.push(() => nats.stop());
    const sim = await startSim();
    k = sim;
    cleanups.push(() => sim.stop());
    nc = await natsClient(natsUrl);
    cleanups.push(() => nc.close());
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function createSet(namespace: string, name: string, templates: string[] = []): Promise<{ name: string; uid: string }> {
    const created = await k.client.create<ObjectMeta>({ ...RESOURCES.statefulsets, namespace }, statefulSet(name, templates));
    return { name, uid: created.metadata.uid };
  }

  it("publishes every object of the initial lists on its owning set's subject, managedFields stripped", async () => {
    const ns = "sync";
    await createNamespace(k.client, ns);
    const web = await createSet(ns, "web", ["data"]);
    const db = await createSet(ns, "db");
    const pods = { ...RESOURCES.pods, namespace: ns };
    await k.client.create(pods, podBody("web-0", { labels: { app: "web" }, owner: web }));
    await k.client.create(pods, podBody("web-1", { labels: { app: "web" } }));
    await k.client.create(pods, podBody("loner"));
    await k.client.create(pods, podBody("db-0", { labels: { app: "db" }, owner: db }));
    await k.client.create({ ...RESOURCES.persistentvolumeclaims, namespace: ns }, claimBody("data-web-0"));
    await k.client.create({ ...RESOURCES.persistentvolumeclaims, namespace: ns }, claimBody("unrelated"));
    await k.client.create({ ...RESOURCES.controllerrevisions, namespace: ns }, revisionBody("web-7c9f", web));
    await settle(k.client, ns);

    const watcher = await readyWatcher(watcherConfig({ name: "w-sync", natsUrl, kubeconfig: k.kubeconfig, namespace: ns }));
    try {
      // Ready includes standby: the lone watcher wins the lease right after (a loaded full suite saw it not yet).
      await eventually("the lone watcher is active", () => watcher.isLeader());
      await flushed(watcher);
      const stream = await readStream(nc, ns);
      const w = at("web", ns);
      const d = at("db", ns);
      assert.deepEqual(summarize(stream), [
        `PUT pod db-0@${d}`,
        `PUT pod web-0@${w}`,
        `PUT pod web-1@${w}`,
        `PUT pvc data-web-0@${w}`,
        `PUT rev web-7c9f@${w}`,
        `PUT sts db@${d}`,
        `PUT sts web@${w}`,
      ].sort());
      for (const entry of stream.values()) {
        assert.equal(entry.envelope.type, "object.put");
        if (entry.envelope.type !== "object.put") continue;
        const metadata = entry.envelope.object.metadata as Record<string, unknown>;
        assert.equal(metadata["managedFields"], undefined);
        assert.equal(entry.uid, metadata["uid"]);
        assert.equal(entry.rv, metadata["resourceVersion"]);
        assert.ok(entry.msgId.startsWith(`${entry.uid}@${entry.rv}/`), entry.msgId);
        assert.ok(entry.envelope.object.apiVersion && entry.envelope.object.kind, "TypeMeta filled in for list items");
      }
      assert.equal(await total(watcher.metrics.publishedTombstones), 0);
      const metrics = await watcher.registry.metrics();
      assert.match(metrics, /stsfleet_watcher_leader\{[^}]*\} 1/);
      assert.match(metrics, /stsfleet_watcher_relists_total\{[^}]*kind="pod",reason="initial"[^}]*\} 1/);
      for (const [name, check] of watcher.readiness) assert.equal(check(), true, `readiness ${name}`);
    } finally {
      await watcher.stop();
    }
  });

  it("follows watch events: updates, adoption, set creation and deletion, with the event's trace on each message", async () => {
    const ns = "live";
    await createNamespace(k.client, ns);
    const watcher = await readyWatcher(watcherConfig({ name: "w-live", natsUrl, kubeconfig: k.kubeconfig, namespace: ns }));
    const w = at("web", ns);
    const pods = { ...RESOURCES.pods, namespace: ns };
    try {
      // An orphan pod before its set: routed nowhere, then to the set once it exists.
      await k.client.create(pods, podBody("web-0", { labels: { app: "web" } }));
      await k.client.create({ ...RESOURCES.persistentvolumeclaims, namespace: ns }, claimBody("data-web-0"));
      await flushed(watcher);
      assert.deepEqual(summarize(await readStream(nc, ns)), []);
      const web = await createSet(ns, "web", ["data"]);
      await eventually("orphans routed to the new set", async () =>
        summarize(await readStream(nc, ns)).join() === [`PUT pod web-0@${w}`, `PUT pvc data-web-0@${w}`, `PUT sts web@${w}`].join(),
      );

      // Adoption and an update: the newest resourceVersion wins, with the trace of the event that produced it.
      const adopted = await k.client.patch<ObjectMeta>(
        { ...pods, name: "web-0" },
        { metadata: { ownerReferences: (podBody("x", { owner: web })["metadata"] as { ownerReferences: unknown[] }).ownerReferences } },
        "merge",
      );
      const entry = await eventually("adopted pod published", async () => {
        const e = (await readStream(nc, ns)).get(`k8s.${w}.pod.${ns}.web-0`);
        return e && BigInt(e.rv) >= BigInt(adopted.metadata.resourceVersion) ? e : undefined;
      });
      assert.ok(entry.traceparent, "traceparent header");
      const [, traceId, spanId] = entry.traceparent.split("-");
      const send = tracer.spans.find((s) => s.spanId === spanId);
      assert.equal(send?.name, "send k8s.{shard}.{kind}.{namespace}.{name}");
      const processed = tracer.spans.find((s) => s.spanId === send?.parentSpanId);
      assert.equal(processed?.name, "process k8s.watch.pod", "the publish continues the watch event's trace");
      assert.equal(processed?.traceId, traceId);

      // Deleting the claim publishes a tombstone; deleting the set tombstones it and its name-routed claim.
      await k.client.create({ ...RESOURCES.persistentvolumeclaims, namespace: ns }, claimBody("data-web-1"));
      await eventually("second claim", async () => (await readStream(nc, ns)).get(`k8s.${w}.pvc.${ns}.data-web-1`)?.op === "PUT");
      await k.client.delete({ ...RESOURCES.persistentvolumeclaims, namespace: ns, name: "data-web-1" });
      const tombstone = await eventually("claim tombstone", async () => {
        const e = (await readStream(nc, ns)).get(`k8s.${w}.pvc.${ns}.data-web-1`);
        return e?.op === "DEL" ? e : undefined;
      });
      assert.equal(tombstone.envelope.type, "object.delete");
      assert.ok(tombstone.msgId.endsWith("/del"));
      await k.client.delete({ ...RESOURCES.statefulsets, namespace: ns, name: "web" }, { propagationPolicy: "Orphan" });
      await eventually("set and its name-routed claim tombstoned", async () => {
        const s = await readStream(nc, ns);
        return s.get(`k8s.${w}.sts.${ns}.web`)?.op === "DEL" && s.get(`k8s.${w}.pvc.${ns}.data-web-0`)?.op === "DEL";
      });
    } finally {
      await watcher.stop();
    }
  });

  it("after a restart publishes only what changed while it was down, and tombstones what vanished", async () => {
    const ns = "restart";
    await createNamespace(k.client, ns);
    const web = await createSet(ns, "web", ["data"]);
    const pods = { ...RESOURCES.pods, namespace: ns };
    const claims = { ...RESOURCES.persistentvolumeclaims, namespace: ns };
    for (const i of [0, 1, 2]) await k.client.create(pods, podBody(`web-${i}`, { labels: { app: "web" }, owner: web }));
    for (const i of [0, 1]) await k.client.create(claims, claimBody(`data-web-${i}`));
    await k.client.create({ ...RESOURCES.controllerrevisions, namespace: ns }, revisionBody("web-1a2b", web));
    await settle(k.client, ns);
    const config = watcherConfig({ name: "w-restart", natsUrl, kubeconfig: k.kubeconfig, namespace: ns });
    const first = await readyWatcher(config);
    await flushed(first);
    assert.equal(await total(first.metrics.publishedObjects), 7);
    await first.stop();

    await k.client.delete({ ...pods, name: "web-2" }, { gracePeriodSeconds: 0 });
    await k.client.delete({ ...claims, name: "data-web-1" });
    await k.client.patch({ ...pods, name: "web-0" }, { metadata: { annotations: { touched: "yes" } } }, "merge");
    await k.client.create(claims, claimBody("data-web-2"));
    await eventually("deletions done", async () => {
      const listed = await k.client.list<{ items: ObjectMeta[] }>(pods);
      const claimList = await k.client.list<{ items: ObjectMeta[] }>(claims);
      return listed.items.length === 2 && claimList.items.length === 2;
    });
    await settle(k.client, ns);

    const second = await readyWatcher(config);
    try {
      // Ready means the lease was decided, active or standby; this one takes over the released lease.
      await eventually("the restarted watcher is active", () => second.isLeader());
      await flushed(second);
      assert.equal(await total(second.metrics.publishedObjects), 2, "web-0 (annotated) and data-web-2 (new) only");
      assert.equal(await total(second.metrics.publishedTombstones), 2, "web-2 and data-web-1");
      const w = at("web", ns);
      assert.deepEqual(summarize(await readStream(nc, ns)), [
        `DEL pod web-2@${w}`,
        `DEL pvc data-web-1@${w}`,
        `PUT pod web-0@${w}`,
        `PUT pod web-1@${w}`,
        `PUT pvc data-web-0@${w}`,
        `PUT pvc data-web-2@${w}`,
        `PUT rev web-1a2b@${w}`,
        `PUT sts web@${w}`,
      ].sort());
    } finally {
      await second.stop();
    }
  });

  it("runs two replicas as active and standby: only the active publishes, the standby takes over when it dies", async () => {
    const ns = "pair";
    await createNamespace(k.client, ns);
    const web = await createSet(ns, "web");
    const pods = { ...RESOURCES.pods, namespace: ns };
    await k.client.create(pods, podBody("web-0", { labels: { app: "web" }, owner: web }));
    await settle(k.client, ns);
    const a = await readyWatcher(watcherConfig({ name: "w-a", natsUrl, kubeconfig: k.kubeconfig, namespace: ns }));
    const b = await readyWatcher(watcherConfig({ name: "w-b", natsUrl, kubeconfig: k.kubeconfig, namespace: ns }));
    try {
      await eventually("one active watcher", () => a.isLeader() !== b.isLeader());
      const [active, standby] = a.isLeader() ? [a, b] : [b, a];
      await flushed(active);
      await k.client.create(pods, podBody("web-1", { labels: { app: "web" }, owner: web }));
      await settle(k.client, ns);
      await eventually("web-1 in the stream", async () => (await active.metrics.publishedObjects.get()).values.some((v) => v.labels["kind"] === "pod" && v.value >= 2));
      await flushed(active);
      assert.ok((await total(active.metrics.publishedObjects)) >= 3);
      assert.equal(await total(standby.metrics.publishedObjects), 0, "the standby never publishes");
      assert.equal(standby.isReady(), true, "a synced standby is ready");
      assert.equal(standby.state.count("pod"), 2, "the standby keeps its mirror warm");

      await active.stop({ releaseLease: false });
      await k.client.create(pods, podBody("web-2", { labels: { app: "web" }, owner: web }));
      await eventually("takeover after the lease expired", () => standby.isLeader() && standby.isReady(), 5_000);
      await flushed(standby);
      const w = at("web", ns);
      assert.deepEqual(summarize(await readStream(nc, ns)), [
        `PUT pod web-0@${w}`,
        `PUT pod web-1@${w}`,
        `PUT pod web-2@${w}`,
        `PUT sts web@${w}`,
      ]);
      assert.equal(await total(standby.metrics.publishedTombstones), 0);
      assert.ok((await total(standby.metrics.publishedObjects, { kind: "sts" })) === 0, "unchanged objects are not re-published");
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});

describe("watcher and 410 Gone", () => {
  it("relists when its resourceVersion left the history window, without spurious tombstones", async () => {
    const natsUrl = (await useNatsServer()).url;
    const k = await useKubeSim({ historyWindow: 5 });
    const ns = "gone";
    await createNamespace(k.client, ns);
    const set = await k.client.create<ObjectMeta>({ ...RESOURCES.statefulsets, namespace: ns }, statefulSet("web"));
    const owner = { name: "web", uid: set.metadata.uid };
    for (const i of [0, 1, 2]) await k.client.create({ ...RESOURCES.pods, namespace: ns }, podBody(`web-${i}`, { labels: { app: "web" }, owner }));
    await settle(k.client, ns);
    const watcher = await readyWatcher(watcherConfig({ name: "w-gone", natsUrl, kubeconfig: k.kubeconfig, namespace: ns }));
    try {
      await flushed(watcher);
      const podInfo = mustFind("", "pods");
      // Close every watch and, before any can resume, push more events than the window keeps.
      k.sim.dropWatches();
      for (let i = 3; i < 12; i++) k.sim.registry.create(podInfo, ns, podBody(`web-${i}`, { labels: { app: "web" }, owner }), INTERNAL_WRITE);
      await eventually("a relist after 410 Gone", async () => (await total(watcher.metrics.relists, { kind: "pod", reason: "gone" })) >= 1);
      await settle(k.client, ns);
      await eventually("all pods mirrored", () => watcher.state.count("pod") === 12);
      await flushed(watcher);
      assert.equal(await total(watcher.metrics.publishedTombstones), 0, "a relist is a diff, not a wipe");
      const nc = await natsClient(natsUrl);
      const stream = await readStream(nc, ns);
      await nc.close();
      assert.equal([...stream.values()].filter((e) => e.op === "PUT").length, 13);
      assert.ok((await total(watcher.metrics.watchGone, { kind: "pod" })) >= 1);
    } finally {
      await watcher.stop();
    }
  });
});
