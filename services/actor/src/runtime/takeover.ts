// Taking over a newly owned shard once its cache is rebuilt: fence the previous owner on every set it may have been
// working on (a takeover intent each), then mark the shard synced and start a turn for every set in it.
import type { SetKey } from "../domain/object-store.ts";

export interface TakeoverDeps {
  epochOf(shard: number): number | undefined;
  setsInShard(shard: number): SetKey[];
  /** Appends the takeover intent for one set; rejects when a newer owner fenced us. */
  appendTakeover(shard: number, key: SetKey, epoch: number): Promise<unknown>;
  markSynced(shard: number): void;
  giveUp(shard: number, reason: unknown): void;
  notify(key: SetKey, reason: string): void;
}

export type TakeoverOutcome = "synced" | "fenced" | "not-owned";

export async function takeOverShard(shard: number, deps: TakeoverDeps): Promise<TakeoverOutcome> {
  const epoch = deps.epochOf(shard);
  if (epoch === undefined) return "not-owned";
  const results = await Promise.allSettled(deps.setsInShard(shard).map((key) => deps.appendTakeover(shard, key, epoch)));
  const fenced = results.find((r) => r.status === "rejected");
  if (fenced) {
    deps.giveUp(shard, fenced.reason);
    return "fenced";
  }
  // Lost (or lost and regained) while appending: the newer gain runs its own takeover.
  if (deps.epochOf(shard) !== epoch) return "not-owned";
  deps.markSynced(shard);
  // Every set in the shard now, not only those the intents went to: a set that arrived while the intents were being
  // appended had its turn refused (shard not synced yet) and would otherwise wait for the next resync.
  for (const key of deps.setsInShard(shard)) deps.notify(key, "takeover");
  return "synced";
}
