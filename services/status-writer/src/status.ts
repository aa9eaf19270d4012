// One status write, as upstream's updateStatefulSetStatus does it (RetryOnConflict, re-reading the set between
// tries) plus the fleet's guards: the set must be the incarnation the actor planned for (uid), the shard epoch
// must still be current, and a delayed write from an older turn or owner must not undo a newer one the fleet wrote.
// That ordering is judged against the fleet's own records, never against a value another client put in the
// object (ADR 0087): upstream overwrites whatever is stored whenever its computed status differs.
import { assertNever } from "#protocol";
import { RESOURCES, KubeApiError } from "../../common/src/kube.ts";
import type { ShardEpochView } from "../../common/src/shard-epochs.ts";
import type { StatefulSetStatus, StatusResult, StatusWrite } from "#protocol";
import { kubeErrorText } from "../../common/src/errors/kube.ts";
import type { ExecutorMetrics } from "../../common/src/executor/metrics.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";

interface StatefulSetObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; generation?: number };
  status?: Record<string, unknown>;
}

/**
 * The last write this status-writer made for one incarnation (uid) of a set: the fleet's own record, which decides
 * whether a later request is older (ADR 0087). Kept when the copy is dropped after a conflict.
 */
export interface OwnWrite {
  readonly uid: string;
  /** The shard epoch of the request that was written. */
  readonly epoch: number;
  readonly observedGeneration: number;
  /** The status as the API server answered the PUT: a stored status that differs was written by someone else. */
  readonly status: Record<string, unknown> | undefined;
}

interface WrittenEntry {
  /** The set as the PUT answered it, for a first try without GET; dropped after a conflict. */
  copy: StatefulSetObject | undefined;
  /** Undefined when this writer wrote only conditions of this set (they set no ordering floor). */
  readonly own: OwnWrite | undefined;
}

/**
 * The sets as this status-writer last wrote them (the PUT's answer), so the next write of a set skips the GET
 * (ADR 0085): upstream's controller writes status from its informer cache and re-reads only on a conflict. A set
 * another client changed since answers 409 Conflict, and that write falls back to GET and retry. Never used to
 * skip a write: "unchanged" is only concluded from a GET, so a status another client put there is always seen.
 * Also the writer's record of what it wrote last per set (OwnWrite), the floor of its ordering guards (ADR 0087).
 * Bounded: the set written longest ago is forgotten first, copy and record together.
 */
export class WrittenSets {
  private readonly sets = new Map<string, WrittenEntry>();
  private readonly capacity: number;

  constructor(capacity = 10_000) {
    this.capacity = capacity;
  }

  get(namespace: string, name: string, uid: string): StatefulSetObject | undefined {
    const set = this.sets.get(`${namespace}/${name}`)?.copy;
    return set?.metadata.uid === uid && set.metadata.resourceVersion !== undefined ? set : undefined;
  }

  /** What this writer last wrote for this incarnation of the set, if it still remembers. */
  lastWrite(namespace: string, name: string, uid: string): OwnWrite | undefined {
    const own = this.sets.get(`${namespace}/${name}`)?.own;
    return own?.uid === uid ? own : undefined;
  }

  /** `set` is the PUT's answer to a request of shard epoch `epoch`. */
  remember(set: StatefulSetObject, epoch: number): void {
    this.keep(set, { uid: set.metadata.uid ?? "", epoch, observedGeneration: observedGeneration(set.status), status: set.status });
  }

  /**
   * `set` is the PUT's answer to a conditions-only write: its copy is kept, the record of the last own write is not
   * moved. The counters that write left are someone else's, and must never become this writer's floor (a foreign
   * observedGeneration of 1000000 as a floor would refuse every later write, ADR 0087).
   */
  rememberCopy(set: StatefulSetObject): void {
    this.keep(set, this.lastWrite(set.metadata.namespace ?? "", set.metadata.name, set.metadata.uid ?? ""));
  }

  private keep(set: StatefulSetObject, own: OwnWrite | undefined): void {
    const key = `${set.metadata.namespace ?? ""}/${set.metadata.name}`;
    this.sets.delete(key);
    this.sets.set(key, { copy: set, own });
    // Oldest written first (Map order): a set not written for longest is forgotten first.
    if (this.sets.size > this.capacity) this.sets.delete(this.sets.keys().next().value ?? key);
  }

  /** Drops the copy (the next write reads the set first); the record of the last write stays. */
  forget(namespace: string, name: string): void {
    const entry = this.sets.get(`${namespace}/${name}`);
    if (entry) entry.copy = undefined;
  }
}

/** Why a stored status counts as written by someone other than this writer. */
export const FOREIGN_STATUS_REASONS = [
  /** status.observedGeneration above metadata.generation: no controller computed it from this object. */
  "impossible-generation",
  /** The stored status is not what this writer last wrote (another client, or another status-writer replica). */
  "not-own-write",
] as const;
export type ForeignStatusReason = (typeof FOREIGN_STATUS_REASONS)[number];

export interface ForeignOverwrite {
  readonly reason: ForeignStatusReason;
  readonly storedObservedGeneration: number;
  readonly generation: number | undefined;
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
  /** The write replaced a status this writer did not write (ADR 0087). */
  onForeignOverwrite?(overwrite: ForeignOverwrite): void;
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * apimachinery's meta.SetStatusCondition for each wanted condition: a new type is appended; an existing one takes
 * the wanted status, reason and message, and the wanted lastTransitionTime only when its status changes.
 */
export function setConditions(current: unknown, wanted: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const conditions = (Array.isArray(current) ? current : []).filter(isRecord).map((condition) => ({ ...condition }));
  for (const condition of wanted) {
    const existing = conditions.find((c) => c["type"] === condition["type"]);
    if (!existing) {
      conditions.push({ ...condition });
      continue;
    }
    if (existing["status"] !== condition["status"]) {
      existing["status"] = condition["status"];
      existing["lastTransitionTime"] = condition["lastTransitionTime"];
    }
    existing["reason"] = condition["reason"];
    existing["message"] = condition["message"];
  }
  return conditions;
}

function observedGeneration(status: Record<string, unknown> | undefined): number {
  const value = status?.["observedGeneration"];
  return typeof value === "number" ? value : 0;
}

export interface StatusDecisionInput {
  readonly write: Pick<StatusWrite, "epoch" | "status" | "scope">;
  /** The set as read: its metadata.generation (undefined when the server sent none) and stored status. */
  readonly current: { readonly generation: number | undefined; readonly status: Record<string, unknown> | undefined };
  /** This writer's last write for the same incarnation (uid) of the set, if it remembers one. */
  readonly own: OwnWrite | undefined;
}

export type StatusDecision =
  | { readonly type: "write"; readonly status: Record<string, unknown>; readonly overwrites: ForeignStatusReason | null }
  | { readonly type: "unchanged" }
  /** Older than the fleet's own last write (`own-write`), or than a stored value a controller could have written. */
  | { readonly type: "stale-generation"; readonly floor: number; readonly floorFrom: "own-write" | "stored" }
  /** This writer already wrote for a newer owner of the shard than the request's. */
  | { readonly type: "stale-epoch"; readonly ownEpoch: number };

/**
 * What to do with a request, given the set as read and the fleet's own last write (ADR 0087). Pure.
 * - The fleet's own last write is always a floor: a request from an older epoch is `stale-epoch`, one with a lower
 *   observedGeneration `stale-generation` (a delayed write from an older turn or owner never undoes a newer one).
 * - The stored observedGeneration is a floor only when a controller could have computed it from this object
 *   (`<= metadata.generation`): it may be another status-writer replica's write, or this writer's before a
 *   restart. A value above metadata.generation was put there by someone else and is overwritten, as upstream's
 *   updateStatefulSetStatus overwrites any stored status that differs from the one it computed. A stored value at
 *   or below metadata.generation cannot block convergence: a request computed from the current object carries
 *   observedGeneration == metadata.generation.
 * - Otherwise the merged status is written unless it equals the stored one.
 */
export function decideStatusWrite({ write, current, own }: StatusDecisionInput): StatusDecision {
  const requested = write.status.observedGeneration;
  if (own !== undefined && write.epoch < own.epoch) return { type: "stale-epoch", ownEpoch: own.epoch };
  if (write.scope === "conditions") {
    // Only conditions, over whatever is stored: no counter is written, so no ordering floor is at stake.
    const desired = { ...(current.status ?? {}), conditions: setConditions(current.status?.["conditions"], write.status.conditions ?? []) };
    return sameStatus(current.status, desired) ? { type: "unchanged" } : { type: "write", status: desired, overwrites: null };
  }
  if (own !== undefined && requested < own.observedGeneration) {
    return { type: "stale-generation", floor: own.observedGeneration, floorFrom: "own-write" };
  }
  const stored = observedGeneration(current.status);
  const impossible = current.generation !== undefined && stored > current.generation;
  if (!impossible && requested < stored) return { type: "stale-generation", floor: stored, floorFrom: "stored" };
  const desired = mergeStatus(current.status, write.status);
  if (sameStatus(current.status, desired)) return { type: "unchanged" };
  const ours = own !== undefined && sameStatus(own.status, current.status);
  const overwrites: ForeignStatusReason | null = ours ? null : impossible ? "impossible-generation" : own !== undefined ? "not-own-write" : null;
  return { type: "write", status: desired, overwrites };
}

/**
 * Whether a write may go straight over this writer's own last copy of the set: only when the decision over that
 * copy is to write. Otherwise the GET decides ("unchanged" and "stale-generation" are never concluded from the
 * copy, which does not see other clients' writes).
 */
function canWriteOver(known: StatefulSetObject, write: StatusWrite, own: OwnWrite | undefined): boolean {
  return decideStatusWrite({ write, current: { generation: known.metadata.generation, status: known.status }, own }).type === "write";
}

export async function writeStatus(write: StatusWrite, deps: StatusWriteDeps): Promise<StatusResult> {
  const ref = { ...RESOURCES.statefulsets, namespace: write.set.namespace, name: write.set.name };
  const result = (outcome: StatusResult["outcome"], extra: { resourceVersion?: string | undefined; message?: string } = {}): StatusResult => ({
    type: "status.result",
    outcome,
    ...(extra.resourceVersion !== undefined ? { resourceVersion: extra.resourceVersion } : {}),
    ...(extra.message !== undefined ? { message: extra.message } : {}),
  });
  // One write per set runs at a time in this writer (LatestWins), so its own last write cannot change meanwhile.
  const own = deps.written?.lastWrite(write.set.namespace, write.set.name, write.set.uid);
  let mayUseCopy = true;
  for (let attempt = 0; attempt <= deps.maxConflictRetries; attempt += 1) {
    // Checked on every try: a write that waited behind others may have lost its shard meanwhile.
    if (deps.epochs.isStale(write.shard, write.epoch)) return result("stale-epoch");
    let current: StatefulSetObject;
    // The first try may start from this writer's own last write, as upstream's first try starts from its informer
    // cache (and counts as one of its retries); a retry after a conflict always re-reads.
    const known = mayUseCopy ? deps.written?.get(write.set.namespace, write.set.name, write.set.uid) : undefined;
    mayUseCopy = false;
    const fromCache = known !== undefined && canWriteOver(known, write, own);
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
    const decision = decideStatusWrite({ write, current: { generation: current.metadata.generation, status: current.status }, own });
    switch (decision.type) {
      case "stale-epoch":
        return result("stale-epoch", { message: `this writer already wrote for shard epoch ${decision.ownEpoch}` });
      case "stale-generation":
        return result("stale-generation", {
          message:
            decision.floorFrom === "own-write"
              ? `this writer already wrote observedGeneration ${decision.floor}, newer than ${write.status.observedGeneration}`
              : `stored observedGeneration ${decision.floor} is newer than ${write.status.observedGeneration}`,
        });
      case "unchanged":
        return result("unchanged", { resourceVersion: current.metadata.resourceVersion });
      case "write":
        break;
      default:
        return assertNever(decision, "status decision");
    }
    try {
      // The GET's resourceVersion travels in the body: the API server refuses the PUT if anything changed since.
      const written = await deps.kube.replace<StatefulSetObject>({ ...ref, subresource: "status" }, { ...current, status: decision.status });
      if (write.scope === "conditions") deps.written?.rememberCopy(written);
      else deps.written?.remember(written, write.epoch);
      if (decision.overwrites !== null) {
        deps.onForeignOverwrite?.({
          reason: decision.overwrites,
          storedObservedGeneration: observedGeneration(current.status),
          generation: current.metadata.generation,
        });
      }
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
