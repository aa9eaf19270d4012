// Turning upstream's call sequence into ordered steps. One upstream `processReplica`/`processCondemned` call is a
// Unit: its actions fall into sub-steps in the order upstream issues them (claims before the pod that uses them,
// claim owner refs after a pod create and before a pod repair). Units processed together (one slow-start batch)
// share sub-steps, so the batch's creates run concurrently.

import type { PlanAction, PlanStep, StepPhase } from "./types.ts";

export interface Unit {
  /** Planner-decided Events and claim creates: first, like upstream (the warning precedes the write). */
  readonly first: PlanAction[];
  /** Pod creates and deletes. */
  readonly podWrites: PlanAction[];
  /** Claim owner-reference rewrites. */
  readonly claimRefs: PlanAction[];
  /** Pod repairs (PUT), after the claims they point at are fixed. */
  readonly podUpdates: PlanAction[];
}

export function newUnit(): Unit {
  return { first: [], podWrites: [], claimRefs: [], podUpdates: [] };
}

function isEmpty(unit: Unit): boolean {
  return unit.first.length === 0 && unit.podWrites.length === 0 && unit.claimRefs.length === 0 && unit.podUpdates.length === 0;
}

const BUCKETS: readonly (keyof Unit)[] = ["first", "podWrites", "claimRefs", "podUpdates"];

export class StepList {
  readonly steps: PlanStep[] = [];

  add(phase: StepPhase, actions: PlanAction[], blocking = false): void {
    if (actions.length > 0) this.steps.push({ phase, blocking, actions });
  }

  /**
   * Emits a unit's actions (one call, or one slow-start batch sharing the unit) as up to four ordered steps and
   * empties the unit for reuse; returns how many steps were added.
   */
  flush(unit: Unit): number {
    if (isEmpty(unit)) return 0;
    const before = this.steps.length;
    for (const bucket of BUCKETS) {
      this.add("pods", [...unit[bucket]]);
      unit[bucket].length = 0;
    }
    return this.steps.length - before;
  }

  /** Marks the last step of the given phase blocking (no-op when the phase emitted nothing). */
  blockAfterLast(phase: StepPhase): void {
    for (let i = this.steps.length - 1; i >= 0; i--) {
      const step = this.steps[i];
      if (step?.phase === phase) {
        step.blocking = true;
        return;
      }
    }
  }
}

/** Upstream `slowStartBatch` batch sizes over `count` items: 1, 2, 4, … capped at `maxBatchSize`. */
export function slowStartBatches(count: number, maxBatchSize: number): number[] {
  const sizes: number[] = [];
  let remaining = count;
  for (let size = Math.min(remaining, 1); size > 0; size = Math.min(2 * size, remaining, maxBatchSize)) {
    sizes.push(size);
    remaining -= size;
  }
  return sizes;
}
