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

/**
 * The sets as this status-writer last wrote them (the PUT's answer), so the next write of a set skips the GET
 * (ADR 0085): upstream's controller writes status from its informer cache and re-reads only on a conflict. A set
 * another client changed since answers 409 Conflict, and that write falls back to GET and retry. Never used to
 * skip a write: "unchanged" is only concluded from a GET, so a status another client put there is always seen.
 */
export class WrittenSets {
  private readonly sets = new Map<string, StatefulSetObject>();
  private readonly capacity: number;

  constructor(capacity = 10_000) {
    this.capacity = capacity;
  }

  get(namespace: string, name: string, uid: string): StatefulSetObject | undefined {
    const set = this.sets.get(`${namespace}/${name}`);
    return set?.metadata.uid === uid && set.metadata.resourceVersion !== undefined ? set : undefined;
  }

  remember(set: StatefulSetObject): void {
    const key = `${set.metadata.namespace ?? ""}/${set.metadata.name}`;
    this.sets.delete(key);
    this.sets.set(key, set);
    // Oldest written first (Map order): a set not written for longest is forgotten first.
    if (this.sets.size > this.capacity) this.sets.delete(this.sets.keys().next().value ?? key);
  }

  forget(namespace: string, name: string): void {
    this.sets.delete(`${namespace}/${name}`);
  }
}

export interface StatusWriteDeps {
  readonly kube: KubeApi;
  /** Sets this writer wrote before: the first try of a write goes without a GET (see WrittenSets). */
  readonly written?: WrittenSets;
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

/**
 * Whether a write may go straight over this writer's own last copy of the set: only when it would change that copy
 * and keep its observedGeneration or raise it. Otherwise the GET decides ("unchanged" and "stale-generation" are
 * never concluded from the copy, which does not see other clients' writes).
 */
function canWriteOver(known: StatefulSetObject, write: StatusWrite): boolean {
  if (write.status.observedGeneration < observedGeneration(known.status)) return false;
  return !sameStatus(known.status, mergeStatus(known.status, write.status));
}

export async function writeStatus(write: StatusWrite, deps: StatusWriteDeps): Promise<StatusResult> {
  const ref = { ...RESOURCES.statefulsets, namespace: write.set.namespace, name: write.set.name };
  const result = (outcome: StatusResult["outcome"], extra: { resourceVersion?: string | undefined; message?: string } = {}): StatusResult => ({
    type: "status.result",
    outcome,
    ...(extra.resourceVersion !== undefined ? { resourceVersion: extra.resourceVersion } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
  });
  let mayUseCopy = true;
  for (let attempt = 0; attempt <= deps.maxConflictRetries; attempt += 1) {
    // Checked on every try: a write that waited behind others may have lost its shard meanwhile.
    if (deps.epochs.isStale(write.shard, write.epoch)) return result("stale-epoch");
    let current: StatefulSetObject;
    // The first try may start from this writer's own last write, as upstream's first try starts from its informer
    // cache (and counts as one of its retries); a retry after a conflict always re-reads.
    const known = mayUseCopy ? deps.written?.get(write.set.namespace, write.set.name, write.set.uid) : undefined;
    mayUseCopy = false;
    const fromCache = known !== undefined && canWriteOver(known, write);
    try {
      current = fromCache ? known : await deps.kube.get<StatefulSetObject>(ref);
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
      deps.written?.remember(written);
      return result("written", { resourceVersion: written.metadata.resourceVersion });
    } catch (error) {
      deps.written?.forget(write.set.namespace, write.set.name);
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
