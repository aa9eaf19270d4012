/**
 * A counting semaphore: at most `permits` holders at once. Waiters are served in arrival order, urgent ones before
 * the others.
 */
export class Semaphore {
  private available: number;
  private readonly urgent: (() => void)[] = [];
  private readonly waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.available = permits;
  }

  async acquire(options: { urgent?: boolean } = {}): Promise<void> {
    if (this.available > 0) {
      this.available -= 1;
      return;
    }
    await new Promise<void>((resolve) => (options.urgent ? this.urgent : this.waiters).push(resolve));
  }

  /** `work` while holding a permit, released however it ends. */
  async run<T>(work: () => Promise<T>, options: { urgent?: boolean } = {}): Promise<T> {
    await this.acquire(options);
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  release(): void {
    const next = this.urgent.shift() ?? this.waiters.shift();
    if (next) next();
    else this.available += 1;
  }
}
