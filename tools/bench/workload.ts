// The StatefulSets a run creates and changes, sent by the harness (User-Agent `stsfleet-bench/<v> (harness)`,
// which the analysis leaves out of the controllers' request counts).
import { KubeApiError, RESOURCES } from "../../services/common/src/kube.ts";
import type { KubeClient } from "../../services/common/src/kube.ts";

export type PodManagementPolicy = "Parallel" | "OrderedReady";

export const ROLLOUT_ANNOTATION = "bench.stsfleet.dev/rollout";
const START_DELAY_ANNOTATION = "sim.stsfleet.dev/start-delay-ms";

export interface WorkloadOptions {
  readonly sets: number;
  readonly replicas: number;
  readonly policy: PodManagementPolicy;
  /** Per-pod start delay for this workload (the simulated kubelet's annotation), e.g. to make a rollout last. */
  readonly startDelayMs?: number;
}

export function setNames(count: number): string[] {
  const width = String(Math.max(1, count - 1)).length;
  return Array.from({ length: count }, (_, i) => `s${String(i).padStart(width, "0")}`);
}

export function setManifest(name: string, options: WorkloadOptions): Record<string, unknown> {
  const annotations = options.startDelayMs !== undefined ? { [START_DELAY_ANNOTATION]: String(options.startDelayMs) } : undefined;
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: options.replicas,
      selector: { matchLabels: { app: name } },
      serviceName: name,
      podManagementPolicy: options.policy,
      template: {
        metadata: { labels: { app: name }, ...(annotations ? { annotations } : {}) },
        spec: { containers: [{ name: "app", image: "registry.k8s.io/pause:3.10", volumeMounts: [{ name: "data", mountPath: "/data" }] }] },
      },
      volumeClaimTemplates: [
        { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
      ],
    },
  };
}

/** Runs `work` over `items` with at most `limit` in flight; rejects with the first error after all settled. */
export async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= error;
      }
    }
  });
  await Promise.all(lanes);
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure));
}

/** Concurrent requests the harness keeps in flight when creating or changing sets "at once". */
export const HARNESS_CONCURRENCY = 64;

export async function createNamespace(kube: KubeClient, name: string): Promise<void> {
  try {
    await kube.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.isAlreadyExists)) throw error;
  }
}

export async function createSets(kube: KubeClient, namespace: string, names: readonly string[], options: WorkloadOptions): Promise<void> {
  await pool(names, HARNESS_CONCURRENCY, (name) => kube.create({ ...RESOURCES.statefulsets, namespace }, setManifest(name, options)).then(() => undefined));
}

/** A template change on every set (generation + 1), which starts a rolling update. */
export async function changeTemplates(kube: KubeClient, namespace: string, names: readonly string[], round: number): Promise<void> {
  const patch = { spec: { template: { metadata: { annotations: { [ROLLOUT_ANNOTATION]: String(round) } } } } };
  await pool(names, HARNESS_CONCURRENCY, (name) =>
    kube.patch({ ...RESOURCES.statefulsets, namespace, name }, patch, "merge").then(() => undefined),
  );
}
