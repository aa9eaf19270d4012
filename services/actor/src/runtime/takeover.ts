// Taking over a newly owned shard once its cache is rebuilt: fence the previous owner on every set it may have been
// working on (a takeover intent each), then mark the shard synced and start a turn for every set in it. A newer owner
// in the log (FencedError) means the shard may not be served at this epoch: give it up (ownership claims it again
// at a newer epoch if it is still ours). Any other failure (NATS unavailable, a quorum intent
// log short of a majority, contention with the former owner's last appends) is retried while the shard stays ours at
// the same epoch: giving the shard up would leave it owned and unserved until it changed hands again.
import { setTimeout as sleep } from "node:timers/promises";
import type { SetKey } from "../domain/object-store.ts";
import { FencedError } from "./intents.ts";

export interface TakeoverDeps {
  epochOf(shard: number): number | undefined;
  setsInShard(shard: number): SetKey[];
  /** Appends the takeover intent for one set; rejects with FencedError when a newer owner fenced us. */
  appendTakeover(shard: number, key: SetKey, epoch: number): Promise<unknown>;
  markSynced(shard: number): void;
  /** The log fenced the takeover at `epoch`: stop serving the shard at that epoch (ownership.giveUp). */
  giveUp(shard: number, epoch: number, reason: unknown): void;
  notify(key: SetKey, reason: string): void;
  /** A takeover that failed without a fence is tried again after this long (default 500 ms). */
  readonly retryDelayMs?: number;
}

export type TakeoverOutcome = "synced" | "fenced" | "not-owned";

const RETRY_DELAY_MS = 500;

export async function takeOverShard(shard: number, deps: TakeoverDeps): Promise<TakeoverOutcome> {
  const epoch = deps.epochOf(shard);
  if (epoch === undefined) return "not-owned";
  let pending = deps.setsInShard(shard);
  const appended = new Set<SetKey>();
  for (;;) {
    const results = await Promise.allSettled(pending.map((key) => deps.appendTakeover(shard, key, epoch)));
    const fenced = results.find((r) => r.status === "rejected" && r.reason instanceof FencedError);
    if (fenced?.status === "rejected") {
      deps.giveUp(shard, epoch, fenced.reason);
      return "fenced";
    }
    // Lost (or lost and regained) while appending: the newer gain runs its own takeover.
    if (deps.epochOf(shard) !== epoch) return "not-owned";
    pending.forEach((key, i) => {
      if (results[i]?.status === "fulfilled") appended.add(key);
    });
    if (pending.every((key) => appended.has(key))) break;
    await sleep(deps.retryDelayMs ?? RETRY_DELAY_MS);
    if (deps.epochOf(shard) !== epoch) return "not-owned";
    // Sets that appeared meanwhile are appended to as well: the shard is not synced yet, so they have had no turn.
    pending = deps.setsInShard(shard).filter((key) => !appended.has(key));
  }
  deps.markSynced(shard);
  // Every set in the shard now, not only those the intents went to: a set that arrived while the intents were being
  // appended had its turn refused (shard not synced yet) and would otherwise wait for the next resync.
  for (const key of deps.setsInShard(shard)) deps.notify(key, "takeover");
  return "synced";
}
