// client-go's rate-limited work queue, the part of kube-controller-manager's architecture the baseline reproduces:
// a key waits at most once (dedup while queued), is processed by at most one worker at a time (a key added while
// it is processed is queued again on Done), and failed keys come back after the default controller rate limiter's
// delay: the larger of a per-key exponential back-off (5 ms doubling to 1000 s) and an overall token bucket
// (10 per second, burst 100). Semantics from client-go util/workqueue (queue.go, delaying_queue.go,
// default_rate_limiters.go); the code is ours.

export interface RateLimiter {
  /** How long the key should wait before it is processed again. */
  when(key: string): number;
  /** The key succeeded: reset its failure count. */
  forget(key: string): void;
  retries(key: string): number;
}

export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(baseDelayMs: number, maxDelayMs: number) {
    this.baseDelayMs = baseDelayMs;
    this.maxDelayMs = maxDelayMs;
  }

  when(key: string): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    return Math.min(this.baseDelayMs * 2 ** exp, this.maxDelayMs);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** golang.org/x/time/rate's Reserve().Delay(): one token per call, the wait until the bucket is back at zero. */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private lastMs: number;
  private readonly perSecond: number;
  private readonly burst: number;
  private readonly nowMs: () => number;

  constructor(perSecond: number, burst: number, nowMs: () => number = () => performance.now()) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.tokens = burst;
    this.nowMs = nowMs;
    this.lastMs = nowMs();
  }

  when(): number {
    const now = this.nowMs();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.lastMs) / 1000) * this.perSecond);
    this.lastMs = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.perSecond) * 1000;
  }

  forget(): void {
    // the bucket is shared by all keys
  }

  retries(): number {
    return 0;
  }
}

export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.limiters.map((limiter) => limiter.when(key)));
  }

  forget(key: string): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  retries(key: string): number {
    return Math.max(...this.limiters.map((limiter) => limiter.retries(key)));
  }
}

/** workqueue.DefaultControllerRateLimiter(). */
export function defaultControllerRateLimiter(nowMs?: () => number): RateLimiter {
  return new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(5, 1_000_000), new BucketRateLimiter(10, 100, nowMs));
}

export class QueueShutDownError extends Error {
  override readonly name = "QueueShutDownError";
  constructor() {
    super("the work queue is shut down");
  }
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly limiter: RateLimiter;
  private shuttingDown = false;
  /** Keys added (after dedup) since the start, for the report. */
  adds = 0;

  constructor(limiter: RateLimiter = defaultControllerRateLimiter()) {
    this.limiter = limiter;
  }

  get length(): number {
    return this.queue.length - this.head;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.adds += 1;
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** A dirty key that is not processing: straight to a waiting worker, else to the back of the queue. */
  private enqueue(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.add(key);
    }, delayMs);
    this.timers.add(timer);
  }

  addRateLimited(key: string): void {
    this.addAfter(key, this.limiter.when(key));
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  retries(key: string): number {
    return this.limiter.retries(key);
  }

  /** The next key, marked as processing; undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    if (this.length > 0) {
      const key = this.queue[this.head] as string;
      this.head += 1;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The worker finished the key; if it was added meanwhile it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.enqueue(key);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
