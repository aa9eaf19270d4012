// One status write, as upstream's updateStatefulSetStatus does it (RetryOnConflict, re-reading the set between
// tries) plus the fleet's guards: the set must be the incarnation the actor planned for (uid), the shard epoch
// must still be current, and status.observedGeneration never goes backwards (a delayed write from an older turn
// must not undo a newer one).
import { RESOURCES, KubeApiError } from "../../common/src/kube.ts";
import type { ShardEpochView } from "../../common/src/shard-epochs.ts";
import type { StatefulSetStatus, StatusResult, StatusWrite } from "#protocol";
import { kubeErrorText } from "../../common/src/executor/kube-errors.ts";
import type { ExecutorMetrics } from "../../common/src/executor/metrics.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";

interface StatefulSetObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; generation?: number };
  status?: Record<string, unknown>;
}

export interface StatusWriteDeps {
  readonly kube: KubeApi;
  readonly epochs: Pick<ShardEpochView, "isStale">;
  readonly metrics: ExecutorMetrics;
  /** Conflicts retried before giving up (upstream's retry.DefaultRetry allows 5 tries). */
  readonly maxConflictRetries: number;
  onConflict?(): void;
}

const COUNTS = ["observedGeneration", "replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas", "collisionCount"];
const STRINGS = ["currentRevision", "updateRevision"];

/**
 * The status to store: the actor's status over what is there, so fields this build does not know survive; absent
 * conditions leave the stored ones alone.
 */
export function mergeStatus(current: Record<string, unknown> | undefined, wanted: StatefulSetStatus): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(wanted)) {
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** The API server omits zero counts and empty strings (omitempty); compare with those filled in. */
function normalize(status: Record<string, unknown> | undefined): string {
  const filled: Record<string, unknown> = { ...(status ?? {}) };
  for (const key of COUNTS) filled[key] ??= 0;
  for (const key of STRINGS) filled[key] ??= "";
  if (filled["conditions"] === undefined || (Array.isArray(filled["conditions"]) && filled["conditions"].length === 0)) {
    delete filled["conditions"];
  }
  return JSON.stringify(canonical(filled));
}

export function sameStatus(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  return normalize(a) === normalize(b);
}

function observedGeneration(status: Record<string, unknown> | undefined): number {
  const value = status?.["observedGeneration"];
  return typeof value === "number" ? value : 0;
}

export async function writeStatus(write: StatusWrite, deps: StatusWriteDeps): Promise<StatusResult> {
  const ref = { ...RESOURCES.statefulsets, namespace: write.set.namespace, name: write.set.name };
  const result = (outcome: StatusResult["outcome"], extra: { resourceVersion?: string | undefined; message?: string } = {}): StatusResult => ({
    type: "status.result",
    outcome,
    ...(extra.resourceVersion !== undefined ? { resourceVersion: extra.resourceVersion } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
  });
  for (let attempt = 0; attempt <= deps.maxConflictRetries; attempt += 1) {
    // Checked on every try: a write that waited behind others may have lost its shard meanwhile.
    if (deps.epochs.isStale(write.shard, write.epoch)) return result("stale-epoch");
    let current: StatefulSetObject;
    try {
      current = await deps.kube.get<StatefulSetObject>(ref);
    } catch (error) {
      deps.metrics.countKubeError("get", "statefulsets", error);
      if (error instanceof KubeApiError && error.isNotFound) return result("not-found", { message: kubeErrorText(error) });
      return result("failed", { message: kubeErrorText(error) });
    }
    if (current.metadata.uid !== write.set.uid) {
      return result("not-found", { message: `StatefulSet ${write.set.namespace}/${write.set.name} now has uid ${current.metadata.uid ?? "unset"}` });
    }
    const storedGeneration = observedGeneration(current.status);
    if (write.status.observedGeneration < storedGeneration) {
      return result("stale-generation", {
        message: `stored observedGeneration ${storedGeneration} is newer than ${write.status.observedGeneration}`,
      });
    }
    const desired = mergeStatus(current.status, write.status);
    if (sameStatus(current.status, desired)) return result("unchanged", { resourceVersion: current.metadata.resourceVersion });
    try {
      // The GET's resourceVersion travels in the body: the API server refuses the PUT if anything changed since.
      const written = await deps.kube.replace<StatefulSetObject>({ ...ref, subresource: "status" }, { ...current, status: desired });
      return result("written", { resourceVersion: written.metadata.resourceVersion });
    } catch (error) {
      deps.metrics.countKubeError("update-status", "statefulsets", error);
      if (error instanceof KubeApiError && error.isConflict) {
        deps.onConflict?.();
        continue;
      }
      if (error instanceof KubeApiError && error.isNotFound) return result("not-found", { message: kubeErrorText(error) });
      return result("failed", { message: kubeErrorText(error) });
    }
  }
  return result("failed", { message: `gave up after ${deps.maxConflictRetries + 1} conflicting writes` });
}
