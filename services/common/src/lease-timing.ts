// When a lease holder renews (the actors' member records, the watcher's lease), from its retry period (ADR 0084). A
// renew deadline has to outlast the time since the last renew, the longest election of the bucket (9 s on nats-server
// 2.9 against the default profile's 10 s) and the first try after it.

/** A holder renews four times per retry period. */
export function renewIntervalMs(retryPeriodMs: number): number {
  return retryPeriodMs / 4;
}

/**
 * How long one renew waits for its answer: a retry period, and an eighth of one while renewals fail (250 ms with the
 * default profile: requests to a bucket without a leader go unanswered until the client's own timeout). An answer
 * that comes after the bound still counts.
 */
export function renewAnswerBoundMs(retryPeriodMs: number, failing: boolean): number {
  return failing ? failingRenewRetryMs(retryPeriodMs) : retryPeriodMs;
}

/** While renewals fail, the next try follows a failed one this soon: an eighth of the retry period. */
export function failingRenewRetryMs(retryPeriodMs: number): number {
  return retryPeriodMs / 8;
}
