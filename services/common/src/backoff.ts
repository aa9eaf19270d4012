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
