// When a member claims again a shard it gave up (its feed could not be opened, or the intent log fenced it): at once
// the first time, since the re-claim at a newer epoch is what repairs a fence (ShardOwnership.giveUp), and with a
// growing delay after repeated give-ups, so that a feed that keeps failing does not become a tight loop of KV
// writes (docs/adr/0094-ownership-as-a-pure-plan.md). The count starts over once the shard was held for
// resetAfterMs before its give-up (it was served, so the failure is a new one), or when the last give-up's retry
// time is that long ago. Pure; the runtime keeps the records.
import { backoffDelayMs } from "../../../common/src/backoff.ts";
import type { BackoffPolicy } from "../../../common/src/backoff.ts";

export interface GiveUp {
  /** The epoch given up: a record of ours at or below it is written again, never taken back as it is. */
  readonly epoch: number;
  /** Give-ups in a row, each after the shard was held less than resetAfterMs. */
  readonly count: number;
  /** The shard is not claimed again before this time (monotonic ms). */
  readonly retryAtMs: number;
}

export interface GiveUpTimings {
  readonly backoff: BackoffPolicy;
  /** A give-up after the shard was held this long, or this long after the last one's retry time, starts the count over. */
  readonly resetAfterMs: number;
}

export const DEFAULT_GIVE_UP_TIMINGS: GiveUpTimings = {
  backoff: { initialDelayMs: 250, maxDelayMs: 30_000 },
  resetAfterMs: 60_000,
};

/**
 * The record of a give-up at `nowMs` of a shard held since `heldSinceMs` (undefined: not known, counted as just
 * claimed). `random` is the backoff's jitter in [0, 1).
 */
export function recordGiveUp(
  previous: GiveUp | undefined,
  event: { readonly epoch: number; readonly nowMs: number; readonly heldSinceMs: number | undefined },
  timings: GiveUpTimings,
  random: () => number,
): GiveUp {
  const heldForMs = event.heldSinceMs === undefined ? 0 : event.nowMs - event.heldSinceMs;
  const fresh = previous === undefined || heldForMs >= timings.resetAfterMs || event.nowMs - previous.retryAtMs >= timings.resetAfterMs;
  const count = fresh ? 1 : previous.count + 1;
  const delayMs = count === 1 ? 0 : backoffDelayMs(timings.backoff, count - 2, random);
  return { epoch: event.epoch, count, retryAtMs: event.nowMs + delayMs };
}
