import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "./logger.ts";

/** Exponential backoff with full jitter, capped. `attempt` starts at 0. */
export interface BackoffPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor?: number;
}

export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const factor = policy.factor ?? 2;
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * factor ** Math.max(0, attempt));
  // Half fixed, half jitter: never zero, still spreads retries of many clients.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Calls `call` until it succeeds, waiting `policy`'s backoff between failures and logging each one at warn. Used for
 * what a service cannot start without and has to wait out (NATS not reachable yet, a stream without a leader).
 * Rejects with the signal's reason once `signal` is aborted (shutdown during startup).
 */
export async function retryForever<T>(
  what: string,
  call: () => Promise<T>,
  options: { readonly policy: BackoffPolicy; readonly logger: Pick<Logger, "warn">; readonly signal: AbortSignal },
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    options.signal.throwIfAborted();
    try {
      return await call();
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      const delayMs = backoffDelayMs(options.policy, attempt);
      options.logger.warn({ err: error, attempt, delayMs }, `${what} failed; retrying`);
      // An abort while waiting rejects with the signal's reason, as an abort before a call does.
      await sleep(delayMs, undefined, { signal: options.signal }).catch(() => options.signal.throwIfAborted());
    }
  }
}
