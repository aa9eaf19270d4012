// StatefulSet-shaped helpers for the end-to-end tests: manifests, reads, waits and audit-log ordering checks.
import assert from "node:assert/strict";
import type { KubeClient } from "../../services/common/src/kube.ts";
import { KubeApiError, RESOURCES } from "../../services/common/src/kube.ts";
import type { AuditEvent, AuditLog } from "../support/stack.ts";
import { waitFor } from "../support/stack.ts";

export const SIM_READY = "sim.stsfleet.dev/ready";
export const SIM_START_DELAY = "sim.stsfleet.dev/start-delay-ms";
export const IMAGE_A = "registry.k8s.io/nginx-slim:0.26";
export const IMAGE_B = "registry.k8s.io/nginx-slim:0.27";

export interface Meta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
}

export interface Pod {
  metadata: Meta;
  spec: { containers: { image: string }[] };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

export interface Claim {
  metadata: Meta;
  status?: { phase?: string };
}

export interface StatefulSet {
  metadata: Meta;
  spec: Record<string, unknown> & { replicas: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

export interface ControllerRevision {
  metadata: Meta;
  revision: number;
  data: unknown;
}

export interface CoreEvent {
  metadata: Meta;
  involvedObject: { kind?: string; name?: string; namespace?: string; uid?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  source?: { component?: string };
  reportingComponent?: string;
}

export interface SetOptions {
  readonly replicas: number;
  readonly podManagementPolicy?: "OrderedReady" | "Parallel";
  readonly updateStrategy?: Record<string, unknown>;
  readonly claims?: boolean;
  readonly retention?: { whenDeleted: "Retain" | "Delete"; whenScaled: "Retain" | "Delete" };
  /** Pod template annotations (simulated kubelet behaviour). */
  readonly annotations?: Record<string, string>;
  readonly image?: string;
}

export function statefulSet(namespace: string, name: string, options: SetOptions): Record<string, unknown> {
  const labels = { app: name };
  const spec: Record<string, unknown> = {
    serviceName: name,
    replicas: options.replicas,
    podManagementPolicy: options.podManagementPolicy ?? "OrderedReady",
    selector: { matchLabels: labels },
    template: {
      metadata: { labels, ...(options.annotations ? { annotations: options.annotations } : {}) },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          {
            name: "app",
            image: options.image ?? IMAGE_A,
            ...(options.claims === false ? {} : { volumeMounts: [{ name: "data", mountPath: "/data" }] }),
          },
        ],
      },
    },
  };
  if (options.updateStrategy) spec["updateStrategy"] = options.updateStrategy;
  if (options.claims !== false) {
    spec["volumeClaimTemplates"] = [
      { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
    ];
  }
  if (options.retention) spec["persistentVolumeClaimRetentionPolicy"] = options.retention;
  return { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name, namespace, labels }, spec };
}

export async function createSet(kube: KubeClient, namespace: string, name: string, options: SetOptions): Promise<StatefulSet> {
  return kube.create<StatefulSet>({ ...RESOURCES.statefulsets, namespace }, statefulSet(namespace, name, options));
}

export function getSet(kube: KubeClient, namespace: string, name: string): Promise<StatefulSet> {
  return kube.get<StatefulSet>({ ...RESOURCES.statefulsets, namespace, name });
}

export function patchSet(kube: KubeClient, namespace: string, name: string, patch: unknown): Promise<StatefulSet> {
  return kube.patch<StatefulSet>({ ...RESOURCES.statefulsets, namespace, name }, patch, "merge");
}

export async function listPods(kube: KubeClient, namespace: string, app: string): Promise<Pod[]> {
  const list = await kube.list<{ items: Pod[] }>({ ...RESOURCES.pods, namespace }, { labelSelector: `app=${app}` });
  return list.items.sort((a, b) => ordinal(a.metadata.name ?? "") - ordinal(b.metadata.name ?? ""));
}

export async function listClaims(kube: KubeClient, namespace: string): Promise<Claim[]> {
  const list = await kube.list<{ items: Claim[] }>({ ...RESOURCES.persistentvolumeclaims, namespace });
  return list.items.sort((a, b) => ordinal(a.metadata.name ?? "") - ordinal(b.metadata.name ?? ""));
}

export async function listRevisions(kube: KubeClient, namespace: string): Promise<ControllerRevision[]> {
  const list = await kube.list<{ items: ControllerRevision[] }>({ ...RESOURCES.controllerrevisions, namespace });
  return list.items.sort((a, b) => a.revision - b.revision);
}

export async function listEvents(kube: KubeClient, namespace: string): Promise<CoreEvent[]> {
  const list = await kube.list<{ items: CoreEvent[] }>({ group: "", version: "v1", resource: "events", namespace });
  return list.items;
}

export async function getPod(kube: KubeClient, namespace: string, name: string): Promise<Pod | undefined> {
  try {
    return await kube.get<Pod>({ ...RESOURCES.pods, namespace, name });
  } catch (error) {
    if (error instanceof KubeApiError && error.isNotFound) return undefined;
    throw error;
  }
}

export function patchPod(kube: KubeClient, namespace: string, name: string, patch: unknown): Promise<Pod> {
  return kube.patch<Pod>({ ...RESOURCES.pods, namespace, name }, patch, "merge");
}

export function ordinal(name: string): number {
  const match = /-(\d+)$/.exec(name);
  return match ? Number(match[1]) : -1;
}

export function isReady(pod: Pod): boolean {
  return (
    pod.status?.phase === "Running" &&
    pod.metadata.deletionTimestamp === undefined &&
    (pod.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

export function revisionOf(pod: Pod): string | undefined {
  return pod.metadata.labels?.["controller-revision-hash"];
}

export function names(objects: readonly { metadata: Meta }[]): string[] {
  return objects.map((o) => o.metadata.name ?? "");
}

/**
 * Waits until the set has converged: status observed the current generation, `replicas` pods all Ready and on the
 * update revision, current == update revision. Returns the final set and pods.
 */
export async function waitForConverged(
  kube: KubeClient,
  namespace: string,
  name: string,
  replicas: number,
  timeoutMs = 60_000,
): Promise<{ set: StatefulSet; pods: Pod[] }> {
  let last: unknown;
  return waitFor(
    `${namespace}/${name} to converge at ${replicas} Ready replicas`,
    async () => {
      const set = await getSet(kube, namespace, name);
      const pods = (await listPods(kube, namespace, name)).filter((p) => p.metadata.deletionTimestamp === undefined);
      const status = set.status ?? {};
      last = { status, pods: pods.map((p) => `${p.metadata.name}:${p.status?.phase}:${isReady(p)}:${revisionOf(p)}`) };
      const converged =
        status.observedGeneration === set.metadata.generation &&
        status.replicas === replicas &&
        status.readyReplicas === replicas &&
        status.updatedReplicas === replicas &&
        status.currentRevision === status.updateRevision &&
        pods.length === replicas &&
        pods.every((p) => isReady(p) && revisionOf(p) === status.updateRevision);
      return converged ? { set, pods } : undefined;
    },
    { timeoutMs, intervalMs: 150, describeLast: () => last },
  );
}

// --- audit-log assertions ---------------------------------------------------------------------------------------

/** Successful creates of pods (or claims) by stsfleet in a namespace, in the order the API server finished them. */
export function creates(audit: AuditLog, namespace: string, resource: "pods" | "persistentvolumeclaims" | "controllerrevisions"): AuditEvent[] {
  return audit
    .where({ verb: "create", resource, namespace, succeeded: true })
    .filter((e) => e.service !== undefined && e.service !== "stsfleet");
}

export function deletes(audit: AuditLog, namespace: string, resource: "pods" | "persistentvolumeclaims"): AuditEvent[] {
  return audit
    .where({ verb: "delete", resource, namespace, succeeded: true })
    .filter((e) => e.service !== undefined && e.service !== "stsfleet");
}

/** Asserts that no name occurs twice (no duplicate successful create), and returns the names in order. */
export function uniqueNames(events: readonly AuditEvent[], what: string): string[] {
  const seen = new Map<string, number>();
  for (const event of events) seen.set(event.name ?? "", (seen.get(event.name ?? "") ?? 0) + 1);
  const duplicates = [...seen].filter(([, count]) => count > 1);
  assert.deepEqual(duplicates, [], `duplicate successful ${what}: ${JSON.stringify(duplicates)}`);
  return events.map((e) => e.name ?? "");
}

/** Each claim `data-<pod>` was created (successfully) before its pod's create request arrived. */
export function assertClaimsBeforePods(audit: AuditLog, namespace: string): void {
  const claimCreates = new Map(creates(audit, namespace, "persistentvolumeclaims").map((e) => [e.name ?? "", e]));
  for (const pod of creates(audit, namespace, "pods")) {
    const claim = claimCreates.get(`data-${pod.name}`);
    assert.ok(claim, `claim data-${pod.name} was never created before pod ${pod.name}`);
    assert.ok(
      claim.completedUs <= pod.receivedUs,
      `claim data-${pod.name} finished at ${claim.completedUs} after pod ${pod.name} create began at ${pod.receivedUs}`,
    );
  }
}

/** The index of the audit log's last line: events after it are what a step caused. */
export function auditMark(audit: AuditLog): number {
  return audit.all().at(-1)?.index ?? -1;
}

export function since(mark: number, events: readonly AuditEvent[]): AuditEvent[] {
  return events.filter((event) => event.index > mark);
}

export function podNames(set: string, ordinals: readonly number[]): string[] {
  return ordinals.map((i) => `${set}-${i}`);
}

export function range(from: number, to: number): number[] {
  const out: number[] = [];
  if (from <= to) for (let i = from; i <= to; i++) out.push(i);
  else for (let i = from; i >= to; i--) out.push(i);
  return out;
}
