// The baseline: the StatefulSet controller as kube-controller-manager structures it, driving the same planner the
// actors use. One process; informers feed one cache; event handlers enqueue set keys (StatefulSet and Pod events
// only, as upstream: PVC and revision events do not enqueue); N workers (default 5,
// --concurrent-statefulset-syncs) take keys from a rate-limited work queue; a sync refuses to run on a cache
// older than its own last writes (StaleControllerConsistencyStatefulSet, on in 1.36+), plans, executes the steps
// directly against the API server, writes status like updateStatefulSetStatus (PUT with the cached object, retry
// on conflict with the cache's newer copy) and returns an error for a rate-limited requeue.
import { setTimeout as sleep } from "node:timers/promises";
import type { ObjectEnvelope, ObjectKind } from "#protocol";
import { ObjectStore, splitSetKey } from "../../../services/actor/src/domain/object-store.ts";
import type { SetKey } from "../../../services/actor/src/domain/object-store.ts";
import { DEFAULT_PLAN_OPTIONS, plan } from "../../../services/actor/src/planner/index.ts";
import type { PlanOptions, PlanResult, StatefulSet } from "../../../services/actor/src/planner/index.ts";
import { KubeApiError, RESOURCES } from "../../../services/common/src/kube.ts";
import type { KubeClient } from "../../../services/common/src/kube.ts";
import { DirectExecutor } from "./executor.ts";
import type { RecordEvent, Written } from "./executor.ts";
import { WorkQueue } from "./queue.ts";

/** Kinds the consistency check covers (upstream: StatefulSets, Pods, PVCs; revisions not yet). */
const CONSISTENCY_KINDS: readonly ObjectKind[] = ["StatefulSet", "Pod", "PersistentVolumeClaim"];

export class ConsistencyError extends Error {
  override readonly name = "ConsistencyError";
  readonly kind: ObjectKind;
  constructor(key: string, kind: ObjectKind, wanted: number, seen: number) {
    super(`${key}: the ${kind} cache is at resourceVersion ${seen}, older than our write at ${wanted}`);
    this.kind = kind;
  }
}

export class SyncError extends Error {
  override readonly name = "SyncError";
  readonly errors: readonly unknown[];
  constructor(key: string, errors: readonly unknown[]) {
    super(`${key}: ${errors.map((e) => (e instanceof Error ? e.message : String(e))).join("; ")}`, { cause: errors[0] });
    this.errors = errors;
  }
}

export interface ControllerStats {
  syncs: number;
  failedSyncs: number;
  consistencyErrors: number;
  statusConflicts: number;
}

export interface ControllerOptions {
  readonly kube: KubeClient;
  readonly workers: number;
  readonly recordEvent: RecordEvent;
  /** The informers' view of how far each kind's cache has come. */
  readonly lastResourceVersion: (kind: ObjectKind) => number;
  readonly planOptions?: Partial<PlanOptions>;
  readonly onSyncError?: (key: string, error: unknown) => void;
}

export class WorkqueueController {
  readonly store = new ObjectStore();
  readonly queue = new WorkQueue();
  readonly stats: ControllerStats = { syncs: 0, failedSyncs: 0, consistencyErrors: 0, statusConflicts: 0 };
  private readonly options: ControllerOptions;
  private readonly executor: DirectExecutor;
  /** Per set, the newest resourceVersion this controller wrote, by kind (upstream's consistency store). */
  private readonly written = new Map<SetKey, Map<ObjectKind, number>>();
  private workers: Promise<void>[] = [];

  constructor(options: ControllerOptions) {
    this.options = options;
    this.executor = new DirectExecutor(options.kube, options.recordEvent);
  }

  /** Informer event handler. */
  onChange(envelope: ObjectEnvelope): void {
    const { affected } = this.store.apply(0, envelope);
    if (envelope.kind !== "StatefulSet" && envelope.kind !== "Pod") return;
    for (const key of affected) this.queue.add(key);
  }

  start(): void {
    for (let i = 0; i < this.options.workers; i++) this.workers.push(this.worker());
  }

  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.workers);
    this.workers = [];
  }

  private async worker(): Promise<void> {
    for (let key = await this.queue.get(); key !== undefined; key = await this.queue.get()) {
      try {
        const requeueAfterMs = await this.sync(key);
        this.queue.forget(key);
        if (requeueAfterMs !== null) this.queue.addAfter(key, requeueAfterMs);
      } catch (error) {
        this.stats.failedSyncs += 1;
        if (error instanceof ConsistencyError) this.stats.consistencyErrors += 1;
        this.options.onSyncError?.(key, error);
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private ensureConsistent(key: SetKey): void {
    const written = this.written.get(key);
    if (!written) return;
    for (const kind of CONSISTENCY_KINDS) {
      const wanted = written.get(kind) ?? 0;
      const seen = this.options.lastResourceVersion(kind);
      if (wanted > seen) throw new ConsistencyError(key, kind, wanted, seen);
    }
  }

  private remember(key: SetKey, writes: readonly Written[]): void {
    if (writes.length === 0) return;
    let map = this.written.get(key);
    if (!map) {
      map = new Map();
      this.written.set(key, map);
    }
    for (const { kind, resourceVersion } of writes) map.set(kind, Math.max(map.get(kind) ?? 0, resourceVersion));
  }

  /** One sync; resolves with the requeue delay the plan asks for, rejects for a rate-limited requeue. */
  async sync(key: SetKey): Promise<number | null> {
    this.stats.syncs += 1;
    this.ensureConsistent(key);
    const snapshot = this.store.snapshot(key);
    if (!snapshot) {
      this.written.delete(key);
      return null;
    }
    const { namespace, name } = splitSetKey(key);
    const set = { namespace, name, uid: snapshot.set.metadata?.uid ?? "" };
    const result = plan(snapshot, Date.now(), { ...DEFAULT_PLAN_OPTIONS, ...this.options.planOptions });
    const errors: unknown[] = [];
    let podsFailed = false;
    let statusDone = false;
    for (const step of result.steps) {
      if (step.phase === "history" && !statusDone) {
        statusDone = true;
        await this.writeStatus(key, result, errors);
      }
      if (step.phase === "pods" && podsFailed) continue;
      const outcome = await this.executor.executeStep(step, set);
      this.remember(key, outcome.written);
      if (outcome.errors.length === 0) continue;
      errors.push(...outcome.errors);
      if (step.phase === "adoption" || step.phase === "revision") throw new SyncError(key, errors);
      if (step.phase === "pods") podsFailed = true;
    }
    if (!statusDone) await this.writeStatus(key, result, errors);
    if (result.syncError !== null) errors.unshift(new Error(result.syncError));
    if (errors.length > 0) throw new SyncError(key, errors);
    return result.requeueAfterMs;
  }

  /** updateStatefulSetStatus: PUT the cached set with the new status; on conflict retry with the cache's copy. */
  private async writeStatus(key: SetKey, result: PlanResult, errors: unknown[]): Promise<void> {
    if (!result.status.write) return;
    const { namespace, name } = splitSetKey(key);
    // retry.DefaultRetry: 5 tries, 10 ms apart (jitter 0.1).
    for (let attempt = 1; ; attempt++) {
      const cached = this.store.get("StatefulSet", namespace, name);
      if (!cached) return;
      try {
        const stored = await this.options.kube.replace<StatefulSet>(
          { ...RESOURCES.statefulsets, namespace, name, subresource: "status" },
          { ...(cached.object as StatefulSet), status: result.status.value },
        );
        const rv = Number(stored.metadata?.resourceVersion);
        if (Number.isFinite(rv)) this.remember(key, [{ kind: "StatefulSet", resourceVersion: rv }]);
        return;
      } catch (error) {
        if (!(error instanceof KubeApiError && error.isConflict) || attempt >= 5) {
          errors.push(error);
          return;
        }
        this.stats.statusConflicts += 1;
        await sleep(10 + Math.random() * 1);
      }
    }
  }
}
