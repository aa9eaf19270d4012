// StatefulSets for chaos runs: small sets with claims, created, scaled, re-templated and deleted through the API,
// plus a churn loop that keeps a group of sets changing (scale and template changes at random).
import { KubeApiError, RESOURCES } from "../../services/common/src/kube.ts";
import type { KubeClient } from "../../services/common/src/kube.ts";

export interface SetSpec {
  readonly replicas: number;
  readonly podManagementPolicy?: "OrderedReady" | "Parallel";
  readonly partition?: number;
  readonly claims?: boolean;
  /** Pod template annotations (the simulated kubelet reads `sim.stsfleet.dev/*`). */
  readonly annotations?: Readonly<Record<string, string>>;
  readonly image?: string;
}

export const IMAGES = ["registry.k8s.io/nginx-slim:0.26", "registry.k8s.io/nginx-slim:0.27"] as const;
/** Template annotation bumped by template changes (a new revision each time). */
export const GENERATION_ANNOTATION = "chaos.stsfleet.dev/template";

export function setManifest(namespace: string, name: string, spec: SetSpec): Record<string, unknown> {
  const labels = { app: name };
  const claims = spec.claims ?? true;
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace, labels },
    spec: {
      serviceName: name,
      replicas: spec.replicas,
      podManagementPolicy: spec.podManagementPolicy ?? "OrderedReady",
      selector: { matchLabels: labels },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: spec.partition ?? 0 } },
      template: {
        metadata: { labels, annotations: { [GENERATION_ANNOTATION]: "0", ...spec.annotations } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            { name: "app", image: spec.image ?? IMAGES[0], ...(claims ? { volumeMounts: [{ name: "data", mountPath: "/data" }] } : {}) },
          ],
        },
      },
      ...(claims
        ? { volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }] }
        : {}),
    },
  };
}

export interface SetRefName {
  readonly namespace: string;
  readonly name: string;
}

export class Workload {
  private readonly kube: KubeClient;
  private templateCounter = 0;

  constructor(kube: KubeClient) {
    this.kube = kube;
  }

  async createNamespace(namespace: string): Promise<void> {
    try {
      await this.kube.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.isAlreadyExists)) throw error;
    }
  }

  async createSet(namespace: string, name: string, spec: SetSpec): Promise<void> {
    await this.kube.create({ ...RESOURCES.statefulsets, namespace }, setManifest(namespace, name, spec));
  }

  async scale(set: SetRefName, replicas: number): Promise<void> {
    await this.kube.patch({ ...RESOURCES.statefulsets, ...set }, { spec: { replicas } }, "merge");
  }

  /** A template change: a new revision and a rolling update. */
  async changeTemplate(set: SetRefName): Promise<void> {
    this.templateCounter += 1;
    await this.kube.patch(
      { ...RESOURCES.statefulsets, ...set },
      { spec: { template: { metadata: { annotations: { [GENERATION_ANNOTATION]: `${Date.now()}-${this.templateCounter}` } } } } },
      "merge",
    );
  }

  async setPartition(set: SetRefName, partition: number): Promise<void> {
    await this.kube.patch({ ...RESOURCES.statefulsets, ...set }, { spec: { updateStrategy: { rollingUpdate: { partition } } } }, "merge");
  }

  async deleteSet(set: SetRefName): Promise<void> {
    try {
      await this.kube.delete({ ...RESOURCES.statefulsets, ...set }, { propagationPolicy: "Background" });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.isNotFound)) throw error;
    }
  }

  async exists(set: SetRefName): Promise<boolean> {
    try {
      await this.kube.get({ ...RESOURCES.statefulsets, ...set });
      return true;
    } catch (error) {
      if (error instanceof KubeApiError && error.isNotFound) return false;
      throw error;
    }
  }

  /**
   * Until `signal` aborts: every `everyMs`, one random set of `sets` is scaled to a random size in [1, maxReplicas]
   * or gets a template change. Returns how many changes were made. API errors (conflicts) are counted, not thrown.
   */
  async churn(options: {
    sets: readonly SetRefName[];
    everyMs: number;
    maxReplicas: number;
    signal: AbortSignal;
    random?: () => number;
  }): Promise<{ scales: number; templates: number; errors: number }> {
    const random = options.random ?? Math.random;
    const counts = { scales: 0, templates: 0, errors: 0 };
    while (!options.signal.aborted) {
      const set = options.sets[Math.floor(random() * options.sets.length)];
      if (set) {
        try {
          if (random() < 0.5) {
            await this.scale(set, 1 + Math.floor(random() * options.maxReplicas));
            counts.scales++;
          } else {
            await this.changeTemplate(set);
            counts.templates++;
          }
        } catch {
          counts.errors++;
        }
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.everyMs);
        options.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        }, { once: true });
      });
    }
    return counts;
  }
}
