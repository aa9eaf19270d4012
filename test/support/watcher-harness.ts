// Shared helpers of the watcher's integration tests: a simulator over real HTTP, a config for an in-process watcher
// and the watcher itself on the shell's dependencies, and a reader of what K8S_OBJS holds for one namespace.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after } from "node:test";
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Registry } from "prom-client";
import { HEADERS, STREAMS, codecs } from "#protocol";
import type { ObjectEnvelope } from "#protocol";
import { KubeClient, RESOURCES, loadKubeConfig } from "../../services/common/src/kube.ts";
import { createLogger } from "../../services/common/src/logger.ts";
import { createCommonMetrics } from "../../services/common/src/metrics.ts";
import { openServiceDeps } from "../../services/common/src/service.ts";
import { parseWatcherConfig } from "../../services/watcher/src/config.ts";
import type { WatcherConfig } from "../../services/watcher/src/config.ts";
import { startWatcher } from "../../services/watcher/src/watcher.ts";
import type { Watcher, WatcherDeps } from "../../services/watcher/src/watcher.ts";
import { startKubeSim } from "../../tools/kube-sim/src/main.ts";
import type { KubeSim, KubeSimOptions } from "../../tools/kube-sim/src/main.ts";

export interface SimHandle {
  readonly sim: KubeSim;
  readonly kubeconfig: string;
  readonly client: KubeClient;
}

/** A simulator on a random port with a kubeconfig in a temp dir; `stop()` removes both. */
export async function startSim(options: KubeSimOptions = {}): Promise<SimHandle & { stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "stsfleet-watcher-"));
  const kubeconfig = join(dir, "kubeconfig");
  const sim = await startKubeSim({
    kubeconfigOut: kubeconfig,
    kubelet: { startDelayMs: 10, terminationDelayMs: 10, bindDelayMs: 1 },
    ...options,
  });
  const client = new KubeClient(loadKubeConfig(kubeconfig, "stsfleet-watcher-test"), { requestTimeoutMs: 4_000 });
  return {
    sim,
    kubeconfig,
    client,
    async stop() {
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** startSim, stopped after the enclosing test or suite (call it from a test, not from a hook). */
export async function useKubeSim(options: KubeSimOptions = {}): Promise<SimHandle> {
  const handle = await startSim(options);
  after(() => handle.stop());
  return handle;
}

export function watcherConfig(init: { name: string; natsUrl: string; kubeconfig: string; namespace: string }, extra: string[] = []): WatcherConfig {
  return parseWatcherConfig([
    "--name", init.name,
    "--nats-url", init.natsUrl,
    "--kubeconfig", init.kubeconfig,
    "--namespace", init.namespace,
    "--metrics-bind-address", "127.0.0.1:0",
    "--health-probe-bind-address", "127.0.0.1:0",
    "--log-level", process.env["WATCHER_TEST_LOG_LEVEL"] ?? "silent",
    "--lease-duration-ms", "800",
    "--lease-renew-deadline-ms", "500",
    "--lease-retry-period-ms", "100",
    "--backoff-initial-ms", "20",
    "--backoff-max-ms", "200",
    "--shutdown-timeout-ms", "4000",
    ...extra,
  ]);
}

/** An in-process watcher with its own registry and NATS connection (named `watcher/<name>`), as the shell runs it. */
export interface TestWatcher extends Watcher {
  /** The common and the watcher's series, as /metrics would show them. */
  readonly registry: Registry;
}

/** startWatcher on dependencies from openServiceDeps; `stop()` stops the watcher, then drains its connection. */
export async function startTestWatcher(
  config: Readonly<WatcherConfig>,
  injections: Pick<WatcherDeps, "sources" | "random" | "incarnation"> = {},
): Promise<TestWatcher> {
  const logger = createLogger({ service: "watcher", instance: config.name, level: config.logLevel, format: config.logFormat });
  const metrics = createCommonMetrics("watcher", config.name);
  const startup = new AbortController();
  const deps = await openServiceDeps("watcher", config, { logger, metrics, signal: startup.signal });
  const watcher = await startWatcher(config, { ...deps, ...injections });
  const connection = deps.nats.connection;
  return {
    ...watcher,
    registry: metrics.registry,
    async stop(options) {
      startup.abort();
      await watcher.stop(options);
      if (!connection.isClosed()) await connection.drain().catch(() => undefined);
    },
  };
}

export async function eventually<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

export interface StreamEntry {
  readonly op: string;
  readonly uid: string;
  readonly rv: string;
  readonly msgId: string;
  readonly traceparent: string | undefined;
  readonly seq: number;
  readonly envelope: ObjectEnvelope;
}

/** The last message of every K8S_OBJS subject of `namespace`. */
export async function readStream(nc: NatsConnection, namespace: string): Promise<Map<string, StreamEntry>> {
  const js = jetstream(nc);
  const consumer = await js.consumers.get(STREAMS.objects, {
    filter_subjects: `k8s.*.*.${namespace}.*`,
    deliver_policy: DeliverPolicy.LastPerSubject,
  });
  const out = new Map<string, StreamEntry>();
  try {
    if ((await consumer.info(true)).num_pending === 0) return out;
    for (;;) {
      const batch = await consumer.fetch({ max_messages: 512, expires: 1_000 });
      let received = 0;
      let pending = 1;
      for await (const m of batch) {
        received++;
        const h = m.headers;
        out.set(m.subject, {
          op: h?.get(HEADERS.op) ?? "",
          uid: h?.get(HEADERS.uid) ?? "",
          rv: h?.get(HEADERS.resourceVersion) ?? "",
          msgId: h?.get(HEADERS.msgId) ?? "",
          traceparent: h?.has("traceparent") ? h.get("traceparent") : undefined,
          seq: m.seq,
          envelope: codecs.objectEnvelope.decode(m.data),
        });
        pending = m.info.pending;
        if (pending === 0) break;
      }
      if (received === 0 || pending === 0) break;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return out;
}

/** `<op> <kind> <name>@<shard>` for each subject, sorted: compact and readable in assertion diffs. */
export function summarize(entries: Map<string, StreamEntry>): string[] {
  return [...entries].map(([subject, e]) => {
    const [, shard, kind, , name] = subject.split(".");
    return `${e.op} ${kind} ${name}@${shard}`;
  }).sort();
}

export async function natsClient(url: string): Promise<NatsConnection> {
  return connect({ servers: url });
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
}

/** A valid StatefulSet body (selector app=<name>, optional claim templates). */
export function statefulSet(name: string, templates: string[] = []): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      replicas: 0,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] } },
      volumeClaimTemplates: templates.map((t) => ({
        metadata: { name: t },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      })),
    },
  };
}

export function podBody(name: string, init: { labels?: Record<string, string>; owner?: { name: string; uid: string } } = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      ...(init.labels ? { labels: init.labels } : {}),
      ...(init.owner
        ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: init.owner.name, uid: init.owner.uid, controller: true, blockOwnerDeletion: true }] }
        : {}),
    },
    spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] },
  };
}

export function claimBody(name: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  };
}

export function revisionBody(name: string, owner: { name: string; uid: string }): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name,
      labels: { app: owner.name },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true }],
    },
    data: { spec: { template: {} } },
    revision: 1,
  };
}

interface Meta {
  metadata: { uid: string; resourceVersion: string; name: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

/** Waits until the kubelet and binder are done with the namespace: pods Running and Ready, claims Bound. */
export async function settle(client: KubeClient, namespace: string): Promise<void> {
  await eventually(`pods and claims of ${namespace} to settle`, async () => {
    const pods = await client.list<{ items: Meta[] }>({ ...RESOURCES.pods, namespace });
    const claims = await client.list<{ items: Meta[] }>({ ...RESOURCES.persistentvolumeclaims, namespace });
    const podsReady = pods.items.every(
      (p) => p.status?.phase === "Running" && p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
    );
    return podsReady && claims.items.every((c) => c.status?.phase === "Bound");
  });
}

export type { Meta as ObjectMeta };
