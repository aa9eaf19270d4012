// Measurements shared by the soak (soak.ts) and the failover benchmark (failover.bench.ts): who owned what before
// a fault, when every one of those shards had a new acting owner (from the `shards` bucket's write times), the
// first accepted Kubernetes write of a new owner (from the simulator's audit log and its epoch annotation), and
// percentiles. Method: docs/adr/0075-failover-measurement.md.
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { succeeded } from "./facts.ts";
import type { AuditWrite } from "./facts.ts";
import type { ChaosStack } from "./harness.ts";

/** A small seeded generator (mulberry32), so a run's fault sequence can be repeated with --seed. */
export { prng as seededRandom } from "../kube-sim/src/patch/vectors/fuzz.ts";

/** What a member held just before a fault. */
export interface OwnerSnapshot {
  readonly member: string;
  readonly incarnation: string | undefined;
  /** Shard -> epoch (claim revision) held by the member. */
  readonly epochs: ReadonlyMap<number, number>;
}

export function snapshotOwner(chaos: ChaosStack, member: string): OwnerSnapshot {
  const epochs = new Map<number, number>();
  const shards = chaos.ownership.shards();
  for (const shard of chaos.shardsOwnedBy(member)) {
    const revision = shards.get(shard)?.revision;
    if (revision !== undefined) epochs.set(shard, revision);
  }
  return { member, incarnation: chaos.ownership.members().get(member)?.incarnation, epochs };
}

export interface TakeoverResult {
  /** Every shard of the snapshot was claimed by another incarnation (or member) with an acting owner. */
  readonly complete: boolean;
  /** From `fromMs` to the newest of those claims' KV write times (undefined when not complete). */
  readonly takeoverMs: number | undefined;
  /** Shards still with the snapshot's owner (or none) at the end. */
  readonly remaining: number;
}

/** True when the shard has an acting owner other than the snapshot's incarnation, at a newer epoch. */
function takenOver(chaos: ChaosStack, snapshot: OwnerSnapshot, shard: number, epoch: number): boolean {
  const current = chaos.ownership.shards().get(shard);
  if (!current || current.revision <= epoch || chaos.ownership.ownerOf(shard) === undefined) return false;
  return !(current.record.owner === snapshot.member && current.record.incarnation === snapshot.incarnation);
}

/**
 * Waits until every shard of `snapshot` has been claimed by another incarnation, or `until()` is true, or the
 * timeout. With `until` a paused member that resumes before anyone took over is seen as "no takeover".
 */
export async function waitTakeover(
  chaos: ChaosStack,
  snapshot: OwnerSnapshot,
  fromMs: number,
  options: { timeoutMs: number; until?: () => boolean },
): Promise<TakeoverResult> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const remaining = [...snapshot.epochs].filter(([shard, epoch]) => !takenOver(chaos, snapshot, shard, epoch));
    if (remaining.length === 0) {
      const shards = chaos.ownership.shards();
      const newest = Math.max(fromMs, ...[...snapshot.epochs.keys()].map((s) => shards.get(s)?.atMs ?? fromMs));
      return { complete: true, takeoverMs: newest - fromMs, remaining: 0 };
    }
    if (performance.now() > deadline || options.until?.()) return { complete: false, takeoverMs: undefined, remaining: remaining.length };
    await sleep(50);
  }
}

/**
 * The first accepted actor write after `fromMs` on one of the snapshot's shards by a writer other than the
 * snapshot's owner at an epoch newer than the one it held (the new owner's first write), with its delay.
 */
export function firstNewOwnerWrite(
  audit: readonly AuditWrite[],
  snapshot: OwnerSnapshot,
  fromMs: number,
): { write: AuditWrite; delayMs: number } | undefined {
  let first: AuditWrite | undefined;
  for (const w of audit) {
    const epoch = w.epoch;
    if (!epoch || !succeeded(w) || w.receivedUs < fromMs * 1000) continue;
    const held = snapshot.epochs.get(epoch.shard);
    if (held === undefined || epoch.epoch <= held) continue;
    if (!first || w.receivedUs < first.receivedUs) first = w;
  }
  return first ? { write: first, delayMs: first.receivedUs / 1000 - fromMs } : undefined;
}

/** Nearest-rank percentile of `values` (0 < p <= 100); undefined for no values. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export interface Distribution {
  readonly n: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly maxMs: number | undefined;
}

export function distribution(values: readonly number[]): Distribution {
  return { n: values.length, p50Ms: percentile(values, 50), p99Ms: percentile(values, 99), maxMs: percentile(values, 100) };
}

export function formatMs(value: number | undefined): string {
  return value === undefined ? "-" : `${Math.round(value)} ms`;
}

export function formatDistribution(d: Distribution): string {
  return `n=${d.n} p50 ${formatMs(d.p50Ms)}, p99 ${formatMs(d.p99Ms)}, max ${formatMs(d.maxMs)}`;
}

/** `1.23 4.56 7.89` (1, 5 and 15 minutes). */
export function loadAverage(): string {
  return loadavg()
    .map((v) => v.toFixed(2))
    .join(" ");
}
