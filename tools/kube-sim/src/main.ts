// Composition root: store (restored from its data dir, if any), registry, controllers (GC, namespaces, kubelet, PV
// binder), HTTP server.
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { AuditLog } from "./audit/audit.ts";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import { Faults, NO_FAULTS } from "./faults/faults.ts";
import type { FaultOptions } from "./faults/faults.ts";
import { GarbageCollector } from "./gc/gc.ts";
import { createHandler } from "./http/server.ts";
import { WatchSet } from "./http/watch.ts";
import { Kubelet, DEFAULT_KUBELET } from "./kubelet/kubelet.ts";
import type { KubeletOptions } from "./kubelet/kubelet.ts";
import { generateOpenApi } from "./openapi/generate.ts";
import { Registry, SYSTEM_NAMESPACES, INTERNAL_WRITE } from "./registry/registry.ts";
import { mustFind } from "./resources.ts";
import { DataDir } from "./store/data-dir.ts";
import { extractFields } from "./store/fields.ts";
import { Store } from "./store/store.ts";

export interface KubeSimOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  kubeconfigOut?: string;
  auditLog?: string;
  /** Events kept per resource for watch resumption; older resourceVersions get 410 Gone. */
  historyWindow?: number;
  faults?: Partial<FaultOptions>;
  kubelet?: Partial<KubeletOptions>;
  bookmarkIntervalMs?: number;
  /** Minimum spacing of one watcher's writes during a burst of events. */
  watchCoalesceMs?: number;
  clock?: Clock;
  /**
   * Objects to start with, stored as another API server stored them (Registry.seed: resourceVersions, uids,
   * timestamps, status kept); loaded after the system namespaces and the node, before the server listens, and seen by
   * the simulator's controllers as they would see new objects. For tests that take over a recorded cluster.
   */
  seed?: readonly unknown[];
  /**
   * Keep the objects in this directory (ADR 0095): every write is durable before its answer is sent, and a
   * simulator started on the same directory resumes with the same objects, uids and resourceVersions. `seed` is
   * only applied when the directory held nothing.
   */
  dataDir?: string;
}

export interface KubeSim {
  url: string;
  kubeconfigPath?: string;
  registry: Registry;
  /** What the data dir held at start (objects restored and the resourceVersion they ended at); undefined without one. */
  restored?: { readonly objects: number; readonly resourceVersion: number; readonly dataDir: string };
  /** Ends every open watch stream now, as `--drop-watches-every-ms` does on a timer. */
  dropWatches(): void;
  stop(): Promise<void>;
}

export const DEFAULT_HISTORY_WINDOW = 10_000;
export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
export const DEFAULT_WATCH_COALESCE_MS = 25;
/** The bearer token in the kubeconfig the simulator writes; it maps to user kubernetes-admin. */
export const ADMIN_TOKEN = "kube-sim-admin-token";

export function kubeconfigYaml(url: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    "- name: kube-sim",
    "  cluster:",
    `    server: ${url}`,
    // client-node refuses plain http unless TLS verification is off; kubectl ignores it for http.
    "    insecure-skip-tls-verify: true",
    "contexts:",
    "- name: kube-sim",
    "  context:",
    "    cluster: kube-sim",
    "    user: kube-sim-admin",
    "    namespace: default",
    "current-context: kube-sim",
    "preferences: {}",
    "users:",
    "- name: kube-sim-admin",
    "  user:",
    `    token: ${ADMIN_TOKEN}`,
    "",
  ].join("\n");
}

export async function startKubeSim(options: KubeSimOptions = {}): Promise<KubeSim> {
  const clock = options.clock ?? systemClock;
  const faults = new Faults({ ...NO_FAULTS, ...options.faults });
  const store = new Store({ historyWindow: options.historyWindow ?? DEFAULT_HISTORY_WINDOW, fields: extractFields });
  const dataDir = options.dataDir === undefined ? undefined : DataDir.open(options.dataDir);
  if (dataDir !== undefined) {
    store.restore(dataDir.loaded);
    dataDir.attach(() => store.snapshotSource());
    store.attachJournal(dataDir);
  }
  const registry = new Registry(store, clock, { injectConflict: () => faults.injectConflict() });
  const nsInfo = mustFind("", "namespaces");
  for (const name of SYSTEM_NAMESPACES) {
    if (registry.tryGet(nsInfo, "", name) !== undefined) continue;
    registry.create(nsInfo, "", { apiVersion: "v1", kind: "Namespace", metadata: { name } }, INTERNAL_WRITE);
  }
  const gc = new GarbageCollector(registry);
  const kubelet = new Kubelet(registry, { ...DEFAULT_KUBELET, ...options.kubelet });
  // The restored objects reach the controllers as the seed's do: a pod that was Pending gets started.
  store.announceRestored();
  if (options.seed !== undefined && (dataDir?.loaded.objects.length ?? 0) === 0) {
    try {
      registry.seed(options.seed);
    } catch (err) {
      kubelet.stop();
      gc.stop();
      dataDir?.close();
      throw err;
    }
  }
  const audit = options.auditLog === undefined ? undefined : new AuditLog(options.auditLog);
  const syncWrites = dataDir === undefined ? undefined : () => dataDir.sync();
  const watches = new WatchSet(syncWrites);
  let address = "";
  const server: Server = createServer(
    { keepAliveTimeout: 65_000 },
    createHandler({
      registry,
      openapi: generateOpenApi(),
      faults,
      audit,
      watch: {
        bookmarkIntervalMs: options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS,
        defaultTimeoutSeconds: 1800 + Math.floor(Math.random() * 1800),
        maxBufferedBytes: 64 * 1024 * 1024,
        coalesceMs: options.watchCoalesceMs ?? DEFAULT_WATCH_COALESCE_MS,
      },
      watches,
      serverAddress: () => address,
      adminToken: ADMIN_TOKEN,
      podLogs: (uid, container) => kubelet.logs(uid, container),
      ...(syncWrites !== undefined ? { syncWrites } : {}),
    }),
  );
  const stopDropper = faults.startWatchDropper(() => watches.closeAll());
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => {
      dataDir?.close();
      reject(err);
    });
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `${host}:${port}`;
  const url = `http://${address}`;
  let kubeconfigPath: string | undefined;
  if (options.kubeconfigOut !== undefined) {
    mkdirSync(dirname(options.kubeconfigOut), { recursive: true });
    writeFileSync(options.kubeconfigOut, kubeconfigYaml(url), { mode: 0o600 });
    kubeconfigPath = options.kubeconfigOut;
  }
  let stopped = false;
  const sim: KubeSim = {
    url,
    registry,
    dropWatches: () => watches.closeAll(),
    async stop() {
      if (stopped) return;
      stopped = true;
      stopDropper();
      kubelet.stop();
      gc.stop();
      watches.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      dataDir?.close();
      await audit?.close();
    },
  };
  if (kubeconfigPath !== undefined) sim.kubeconfigPath = kubeconfigPath;
  if (dataDir !== undefined) sim.restored = { objects: dataDir.loaded.objects.length, resourceVersion: dataDir.loaded.rv, dataDir: dataDir.dir };
  return sim;
}
