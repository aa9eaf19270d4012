// Repeatedly plans and executes against FakeCluster, checking invariants after every executed step, with the
// simulated kubelet moving pods between turns. The reference executor loop for tests and benchmarks.

import { plan } from "../plan.ts";
import { allActions, describePlan } from "../describe.ts";
import type { PlanOptions, PlanResult, Pod, Snapshot, StatefulSet } from "../types.ts";
import type { FakeCluster } from "./cluster.ts";
import { executePlan } from "./executor.ts";
import type { ExecutionReport, RecordedEvent } from "./executor.ts";
import { STANDARD_INVARIANTS, podsOfSet } from "./invariants.ts";
import type { Invariant } from "./invariants.ts";
import { SimulatedKubelet } from "./kubelet.ts";

export class InvariantViolation extends Error {
  override readonly name = "InvariantViolation";
  readonly violations: readonly string[];

  constructor(violations: readonly string[], context: string) {
    super(`${violations.join("; ")}\n${context}`);
    this.violations = violations;
  }
}

export class NoConvergence extends Error {
  override readonly name = "NoConvergence";
  readonly turns: number;

  constructor(turns: number, lastPlan: string) {
    super(`not stable after ${turns} turns; last plan:\n${lastPlan}`);
    this.turns = turns;
  }
}

export interface DriverOptions {
  namespace: string;
  name: string;
  planOptions?: Partial<PlanOptions>;
  kubelet?: SimulatedKubelet;
  invariants?: readonly Invariant[];
  /** Simulated time per kubelet tick (default 1000 ms). */
  tickMs?: number;
  /** Rewrites the snapshot before planning, e.g. to model a stale cache. */
  snapshotHook?: (snapshot: Snapshot) => Snapshot;
}

export interface TurnReport {
  plan: PlanResult;
  execution: ExecutionReport;
  /** Writes were attempted (any action but a lone Event, or a status write). */
  wrote: boolean;
}

export class Driver {
  readonly cluster: FakeCluster;
  readonly kubelet: SimulatedKubelet;
  readonly events: RecordedEvent[] = [];
  readonly turns: TurnReport[] = [];
  private readonly options: DriverOptions;
  private readonly invariants: readonly Invariant[];
  private deletionsSeen = 0;
  /** The set as of the last turn, to judge garbage collection after the set itself is gone. */
  private lastSet: StatefulSet | undefined;

  constructor(cluster: FakeCluster, options: DriverOptions) {
    this.cluster = cluster;
    this.options = options;
    this.kubelet = options.kubelet ?? new SimulatedKubelet(cluster);
    this.invariants = options.invariants ?? STANDARD_INVARIANTS;
  }

  get set(): StatefulSet | undefined {
    return this.cluster.get<StatefulSet>("StatefulSet", this.options.namespace, this.options.name);
  }

  pods(): Pod[] {
    return podsOfSet(this.cluster.list<Pod>("Pod", this.options.namespace), this.options.name);
  }

  /** One reconcile turn: snapshot, plan, execute with invariant checks. */
  turn(): TurnReport {
    const { namespace, name } = this.options;
    let snapshot = this.cluster.snapshot(namespace, name);
    if (this.options.snapshotHook) snapshot = this.options.snapshotHook(snapshot);
    const set = snapshot.set;
    this.lastSet = set;
    const result = plan(snapshot, this.cluster.nowMs, this.options.planOptions);
    let podsBefore: Pod[] = [];
    const execution = executePlan(this.cluster, { namespace, name }, result, {
      events: this.events,
      beforeStep: () => {
        podsBefore = this.pods();
      },
      afterStep: (step) => {
        const deletions = this.cluster.deletions.slice(this.deletionsSeen).filter((d) => d.kind === "PersistentVolumeClaim");
        this.deletionsSeen = this.cluster.deletions.length;
        const context = { cluster: this.cluster, namespace, name, plan: result, step, podsBefore, set, claimDeletions: deletions };
        const violations = this.invariants.flatMap((invariant) => invariant(context));
        if (violations.length > 0) throw new InvariantViolation(violations, describePlan(result));
      },
    });
    const wrote = allActions(result).some((a) => a.type !== "recordEvent") || execution.statusWritten || execution.statusError !== undefined;
    const report = { plan: result, execution, wrote };
    this.turns.push(report);
    return report;
  }

  /** Lets the kubelet act once and time pass; returns whether any pod changed. */
  tick(): boolean {
    const changed = this.kubelet.tick();
    this.cluster.advance(this.options.tickMs ?? 1000);
    this.checkClaimsAfterGc();
    return changed;
  }

  private checkClaimsAfterGc(): void {
    const set = this.set ?? this.lastSet;
    if (!set) return;
    const deletions = this.cluster.deletions.slice(this.deletionsSeen).filter((d) => d.kind === "PersistentVolumeClaim");
    this.deletionsSeen = this.cluster.deletions.length;
    if (deletions.length === 0) return;
    const emptyPlan = plan({ set, pods: [], claims: [], revisions: [] }, this.cluster.nowMs, this.options.planOptions);
    const step = { step: { phase: "pods" as const, blocking: false, actions: [] }, index: -1, failures: [] };
    const context = { cluster: this.cluster, namespace: this.options.namespace, name: this.options.name, plan: emptyPlan, step, podsBefore: [], set, claimDeletions: deletions };
    const violations = this.invariants.flatMap((invariant) => invariant(context));
    if (violations.length > 0) throw new InvariantViolation(violations, "after garbage collection");
  }

  /**
   * Turns until nothing changes: re-plan right after a turn that wrote; otherwise let the kubelet tick; when the
   * kubelet is idle too, honour requeueAfterMs by moving the clock; stop when all are idle. A failed turn is
   * retried after a kubelet tick (the world moves on while the controller backs off).
   */
  converge(maxTurns = 500): TurnReport {
    let last: TurnReport | undefined;
    for (let i = 0; i < maxTurns; i++) {
      last = this.turn();
      const failed = last.execution.failed !== undefined || last.plan.syncError !== null;
      if (last.wrote && !failed) continue;
      if (this.tick() || failed) continue;
      if (last.plan.requeueAfterMs !== null) {
        this.cluster.advance(last.plan.requeueAfterMs);
        continue;
      }
      return last;
    }
    throw new NoConvergence(maxTurns, last ? describePlan(last.plan) : "(none)");
  }

  /** Turns (with kubelet ticks when idle) until the predicate holds. */
  runUntil(predicate: () => boolean, maxTurns = 500): void {
    for (let i = 0; i < maxTurns; i++) {
      if (predicate()) return;
      const report = this.turn();
      if (predicate()) return;
      if (!report.wrote) {
        if (!this.tick() && report.plan.requeueAfterMs !== null) this.cluster.advance(report.plan.requeueAfterMs);
      }
    }
    throw new NoConvergence(maxTurns, this.turns.length > 0 ? describePlan(this.turns[this.turns.length - 1]?.plan ?? ({} as PlanResult)) : "(none)");
  }
}

export interface Harness {
  cluster: FakeCluster;
  kubelet: SimulatedKubelet;
  driver: Driver;
  namespace: string;
  name: string;
}

/** A cluster holding one StatefulSet, its kubelet and driver. */
export function createHarness(
  cluster: FakeCluster,
  set: StatefulSet,
  options: Omit<DriverOptions, "namespace" | "name"> = {},
): Harness {
  const created = cluster.create<StatefulSet>("StatefulSet", set);
  const namespace = created.metadata?.namespace ?? "default";
  const name = created.metadata?.name ?? "";
  const driver = new Driver(cluster, { ...options, namespace, name });
  return { cluster, kubelet: driver.kubelet, driver, namespace, name };
}
