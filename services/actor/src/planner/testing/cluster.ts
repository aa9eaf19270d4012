// An in-memory Kubernetes API for StatefulSet work: a store (not a call-recording mock) with resourceVersions,
// UIDs, graceful pod deletion, finalizers, garbage collection by owner references, a simulated clock and failure
// injection ("fail the Nth create of pods"). Pure: no I/O, the clock only moves when a test moves it.

import type { ControllerRevision, OwnerReference, PersistentVolumeClaim, Pod, Snapshot, StatefulSet, StatefulSetStatus } from "../types.ts";
import { deepCopy } from "../util.ts";

import { ApiError } from "./cluster-types.ts";
import type { ActiveRule, AnyObject, AuditEntry, ClusterOptions, Deletion, FailureRule, Kind, Verb } from "./cluster-types.ts";

export { ApiError } from "./cluster-types.ts";
export type { AuditEntry, ClusterOptions, Deletion, FailureRule, Kind, Verb } from "./cluster-types.ts";

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

function metaOf(object: AnyObject): NonNullable<AnyObject["metadata"]> {
  return (object.metadata ??= {});
}

export class FakeCluster {
  private clockMs: number;
  private rv = 0;
  private uidCounter = 0;
  private seq = 0;
  private readonly stores: Record<Kind, Map<string, AnyObject>> = {
    StatefulSet: new Map(),
    Pod: new Map(),
    PersistentVolumeClaim: new Map(),
    ControllerRevision: new Map(),
  };
  /** Exact `data` bytes of each ControllerRevision, as the API server stores RawExtension. */
  private readonly revisionRaw = new Map<string, string>();
  private rules: ActiveRule[] = [];
  readonly audit: AuditEntry[] = [];
  readonly deletions: Deletion[] = [];
  /** Calls per verb and kind, including failed ones. */
  readonly calls = new Map<string, number>();

  constructor(options: ClusterOptions = {}) {
    this.clockMs = options.startMs ?? Date.UTC(2026, 0, 1);
  }

  get nowMs(): number {
    return this.clockMs;
  }

  /** RFC3339 for the current simulated time. */
  timestamp(): string {
    return new Date(this.clockMs).toISOString();
  }

  advance(ms: number): void {
    this.clockMs += ms;
  }

  failOn(rule: FailureRule): void {
    this.rules.push({
      verb: rule.verb,
      kind: rule.kind,
      nth: rule.nth,
      times: rule.times ?? 1,
      error: rule.error ?? "Other",
      message: rule.message ?? `injected failure: ${rule.verb} ${rule.kind} #${rule.nth}`,
      seen: 0,
    });
  }

  clearFailures(): void {
    this.rules = [];
  }

  callCount(verb: Verb, kind: Kind): number {
    return this.calls.get(`${verb}/${kind}`) ?? 0;
  }

  private enter(verb: Verb, kind: Kind): void {
    const id = `${verb}/${kind}`;
    this.calls.set(id, (this.calls.get(id) ?? 0) + 1);
    for (const rule of this.rules) {
      if (rule.verb !== verb || rule.kind !== kind) continue;
      rule.seen++;
      if (rule.seen >= rule.nth && rule.seen < rule.nth + rule.times) throw new ApiError(rule.error, rule.message);
    }
  }

  private nextRv(): string {
    return String(++this.rv);
  }

  private record(verb: AuditEntry["verb"], kind: Kind, object: AnyObject): void {
    const meta = metaOf(object);
    this.audit.push({
      seq: ++this.seq,
      atMs: this.clockMs,
      verb,
      kind,
      namespace: meta.namespace ?? "",
      name: meta.name ?? "",
      object: deepCopy(object),
    });
  }

  // --- reads (always copies) ---------------------------------------------------------------------------------

  get<T extends AnyObject>(kind: Kind, namespace: string, name: string): T | undefined {
    const found = this.stores[kind].get(key(namespace, name));
    return found ? (deepCopy(found) as T) : undefined;
  }

  list<T extends AnyObject>(kind: Kind, namespace?: string): T[] {
    const out: T[] = [];
    for (const object of this.stores[kind].values()) {
      if (namespace === undefined || object.metadata?.namespace === namespace) out.push(deepCopy(object) as T);
    }
    return out.sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
  }

  /** Stored `data` bytes of a ControllerRevision. */
  revisionDataRaw(namespace: string, name: string): string | undefined {
    return this.revisionRaw.get(key(namespace, name));
  }

  /** What an informer-fed actor would hand the planner for one set. */
  snapshot(namespace: string, name: string): Snapshot {
    const set = this.get<StatefulSet>("StatefulSet", namespace, name);
    if (!set) throw new ApiError("NotFound", `statefulsets ${name} not found`);
    return {
      set,
      pods: this.list<Pod>("Pod", namespace),
      claims: this.list<PersistentVolumeClaim>("PersistentVolumeClaim", namespace),
      revisions: this.list<ControllerRevision>("ControllerRevision", namespace),
    };
  }

  // --- writes ------------------------------------------------------------------------------------------------

  /** POST. Pods start Pending (the API server's default); sets start at generation 1 with an empty status. */
  create<T extends AnyObject>(kind: Kind, object: T, options: { rawData?: string } = {}): T {
    this.enter("create", kind);
    const copy = deepCopy(object);
    const meta = metaOf(copy);
    const namespace = meta.namespace ?? "";
    const name = meta.name ?? "";
    if (name === "") throw new ApiError("Invalid", `${kind}: metadata.name is required`);
    const store = this.stores[kind];
    if (store.has(key(namespace, name))) throw new ApiError("AlreadyExists", `${kind} ${name} already exists`);
    meta.uid = `uid-${++this.uidCounter}`;
    meta.resourceVersion = this.nextRv();
    meta.creationTimestamp = this.timestamp();
    delete meta.deletionTimestamp;
    if (kind === "Pod") {
      const pod = copy as Pod;
      pod.status = { phase: "Pending" };
    }
    if (kind === "StatefulSet") {
      meta.generation = 1;
      (copy as StatefulSet).status = {};
    }
    if (kind === "ControllerRevision") {
      const rawData = options.rawData ?? JSON.stringify((copy as ControllerRevision).data ?? null);
      this.revisionRaw.set(key(namespace, name), rawData);
      (copy as ControllerRevision).data = JSON.parse(rawData) as unknown;
    }
    store.set(key(namespace, name), copy);
    this.record("create", kind, copy);
    return deepCopy(copy);
  }

  private requireExisting(kind: Kind, namespace: string, name: string): AnyObject {
    const existing = this.stores[kind].get(key(namespace, name));
    if (!existing) throw new ApiError("NotFound", `${kind} ${name} not found`);
    return existing;
  }

  private checkPreconditions(existing: AnyObject, preconditions: { uid?: string; resourceVersion?: string } | undefined): void {
    const meta = metaOf(existing);
    if (preconditions?.uid !== undefined && preconditions.uid !== meta.uid) {
      throw new ApiError("Conflict", `precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${meta.uid}`);
    }
    if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== meta.resourceVersion) {
      throw new ApiError("Conflict", `the object has been modified (resourceVersion ${preconditions.resourceVersion} != ${meta.resourceVersion})`);
    }
  }

  /** PUT of the main resource (status is kept); an empty resourceVersion is rejected like the API server does. */
  update<T extends AnyObject>(kind: Kind, object: T): T {
    this.enter("update", kind);
    const meta = metaOf(object);
    const existing = this.requireExisting(kind, meta.namespace ?? "", meta.name ?? "");
    if (!meta.resourceVersion) throw new ApiError("Invalid", "metadata.resourceVersion must be specified for an update");
    this.checkPreconditions(existing, { uid: meta.uid, resourceVersion: meta.resourceVersion });
    const copy = deepCopy(object);
    const newMeta = metaOf(copy);
    const oldMeta = metaOf(existing);
    newMeta.uid = oldMeta.uid;
    newMeta.creationTimestamp = oldMeta.creationTimestamp;
    newMeta.deletionTimestamp = oldMeta.deletionTimestamp;
    newMeta.resourceVersion = this.nextRv();
    if (kind === "Pod" || kind === "StatefulSet") (copy as Pod).status = deepCopy((existing as Pod).status);
    if (kind === "ControllerRevision") (copy as ControllerRevision).data = deepCopy((existing as ControllerRevision).data);
    if (kind === "StatefulSet") {
      const changed = JSON.stringify((existing as StatefulSet).spec) !== JSON.stringify((copy as StatefulSet).spec);
      newMeta.generation = (oldMeta.generation ?? 1) + (changed ? 1 : 0);
    }
    this.stores[kind].set(key(newMeta.namespace ?? "", newMeta.name ?? ""), copy);
    this.record("update", kind, copy);
    this.collectGarbageIfOwnersChanged(kind, copy);
    return deepCopy(copy);
  }

  /** A patch expressed as a mutation of the stored object, guarded like the API server guards patches. */
  patch<T extends AnyObject>(
    kind: Kind,
    namespace: string,
    name: string,
    mutate: (object: T) => void,
    preconditions?: { uid?: string; resourceVersion?: string },
  ): T {
    this.enter("patch", kind);
    const existing = this.requireExisting(kind, namespace, name);
    this.checkPreconditions(existing, preconditions);
    const copy = deepCopy(existing) as T;
    mutate(copy);
    const meta = metaOf(copy);
    meta.resourceVersion = this.nextRv();
    meta.uid = metaOf(existing).uid;
    this.stores[kind].set(key(namespace, name), copy);
    this.record("patch", kind, copy);
    this.collectGarbageIfOwnersChanged(kind, copy);
    return deepCopy(copy);
  }

  /** PUT /status of a StatefulSet. */
  updateStatus(namespace: string, name: string, status: StatefulSetStatus): StatefulSet {
    this.enter("updateStatus", "StatefulSet");
    const existing = this.requireExisting("StatefulSet", namespace, name) as StatefulSet;
    const copy = deepCopy(existing);
    copy.status = deepCopy(status);
    metaOf(copy).resourceVersion = this.nextRv();
    this.stores.StatefulSet.set(key(namespace, name), copy);
    this.record("updateStatus", "StatefulSet", copy);
    return deepCopy(copy);
  }

  /**
   * DELETE. Pods terminate gracefully (deletionTimestamp; the kubelet removes them); objects with finalizers
   * wait for them; everything else goes at once. Owners that disappear trigger garbage collection.
   */
  delete(kind: Kind, namespace: string, name: string, preconditions?: { uid?: string; resourceVersion?: string }): void {
    this.enter("delete", kind);
    const existing = this.requireExisting(kind, namespace, name);
    this.checkPreconditions(existing, preconditions);
    this.markDeleted(kind, existing, "api");
  }

  private markDeleted(kind: Kind, existing: AnyObject, by: "api" | "gc"): void {
    const meta = metaOf(existing);
    const graceful = kind === "Pod" || (meta.finalizers?.length ?? 0) > 0;
    if (graceful) {
      if (!meta.deletionTimestamp) {
        meta.deletionTimestamp = this.timestamp();
        meta.resourceVersion = this.nextRv();
        this.record(by === "api" ? "delete" : "gc", kind, existing);
      }
      this.finishDeletionIfReady(kind, existing, by);
      return;
    }
    this.remove(kind, existing, by);
  }

  /** Removes a terminating object once nothing holds it (finalizers; pods also wait for the kubelet). */
  private finishDeletionIfReady(kind: Kind, existing: AnyObject, by: "api" | "gc"): void {
    const meta = metaOf(existing);
    if (kind === "Pod" || (meta.finalizers?.length ?? 0) > 0) return;
    this.remove(kind, existing, by);
  }

  private remove(kind: Kind, existing: AnyObject, by: "api" | "gc"): void {
    const meta = metaOf(existing);
    const id = key(meta.namespace ?? "", meta.name ?? "");
    if (!this.stores[kind].delete(id)) return;
    if (kind === "ControllerRevision") this.revisionRaw.delete(id);
    this.deletions.push({ kind, namespace: meta.namespace ?? "", name: meta.name ?? "", uid: meta.uid ?? "", by, atMs: this.clockMs, object: deepCopy(existing) });
    if (!meta.deletionTimestamp) this.record(by === "api" ? "delete" : "gc", kind, existing);
    this.collectGarbage();
  }

  /** The kubelet's part of pod deletion: the pod is gone once its finalizers are. */
  finishPodTermination(namespace: string, name: string): boolean {
    const existing = this.stores.Pod.get(key(namespace, name));
    if (!existing?.metadata?.deletionTimestamp || (existing.metadata.finalizers?.length ?? 0) > 0) return false;
    this.remove("Pod", existing, "api");
    return true;
  }

  /** Direct state change by a test or the simulated kubelet (no failure injection, no preconditions). */
  mutate<T extends AnyObject>(kind: Kind, namespace: string, name: string, change: (object: T) => void, verb: AuditEntry["verb"] = "kubelet"): T {
    const existing = this.requireExisting(kind, namespace, name) as T;
    change(existing);
    metaOf(existing).resourceVersion = this.nextRv();
    this.record(verb, kind, existing);
    const meta = metaOf(existing);
    if (meta.deletionTimestamp && (meta.finalizers?.length ?? 0) === 0 && kind !== "Pod") this.remove(kind, existing, "api");
    else this.collectGarbageIfOwnersChanged(kind, existing);
    return deepCopy(existing);
  }

  /** `kubectl edit`-like spec change: bumps generation when the spec changed. */
  updateSet(namespace: string, name: string, change: (set: StatefulSet) => void): StatefulSet {
    const current = this.get<StatefulSet>("StatefulSet", namespace, name);
    if (!current) throw new ApiError("NotFound", `statefulsets ${name} not found`);
    change(current);
    return this.withoutFailures(() => this.update("StatefulSet", current));
  }

  private withoutFailures<T>(fn: () => T): T {
    const saved = this.rules;
    this.rules = [];
    try {
      return fn();
    } finally {
      this.rules = saved;
    }
  }

  private uids(): Set<string> {
    const all = new Set<string>();
    for (const store of Object.values(this.stores)) for (const object of store.values()) if (object.metadata?.uid) all.add(object.metadata.uid);
    return all;
  }

  private collectGarbageIfOwnersChanged(_kind: Kind, object: AnyObject): void {
    if ((object.metadata?.ownerReferences?.length ?? 0) > 0) this.collectGarbage();
  }

  /**
   * Background garbage collection: an object whose every owner reference points at a UID that no longer exists
   * is deleted (gracefully for pods). Foreign owners that still exist keep it alive.
   */
  collectGarbage(): void {
    for (let changed = true; changed; ) {
      changed = false;
      const uids = this.uids();
      for (const kind of Object.keys(this.stores) as Kind[]) {
        for (const object of [...this.stores[kind].values()]) {
          const refs: OwnerReference[] = object.metadata?.ownerReferences ?? [];
          if (refs.length === 0 || object.metadata?.deletionTimestamp) continue;
          if (refs.every((ref) => !uids.has(ref.uid ?? ""))) {
            this.markDeleted(kind, object, "gc");
            changed = true;
          }
        }
      }
    }
  }
}
