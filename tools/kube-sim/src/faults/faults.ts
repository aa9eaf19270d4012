// Fault injection for tests and benchmarks: latency on every request, 500/429 on writes, 409 on
// conditional writes, and watch streams cut on a timer.
import type { StatusError } from "../errors.ts";
import { internalError, tooManyRequests } from "../errors.ts";

export interface FaultOptions {
  latencyMs: number;
  /** Probability (0..1) that a write fails with 500 or 429. */
  errorRate: number;
  /** Probability (0..1) that a write carrying a resourceVersion gets a 409 Conflict. */
  conflictRate: number;
  /** Close every open watch this often; 0 = never. */
  dropWatchesEveryMs: number;
  random?: () => number;
}

export const NO_FAULTS: FaultOptions = { latencyMs: 0, errorRate: 0, conflictRate: 0, dropWatchesEveryMs: 0 };

export class Faults {
  private readonly options: FaultOptions;
  private readonly random: () => number;

  constructor(options: FaultOptions) {
    for (const [name, rate] of [["errorRate", options.errorRate], ["conflictRate", options.conflictRate]] as const) {
      if (!(rate >= 0 && rate <= 1)) throw new RangeError(`${name} must be between 0 and 1, got ${rate}`);
    }
    if (!(options.latencyMs >= 0)) throw new RangeError(`latencyMs must be >= 0, got ${options.latencyMs}`);
    this.options = options;
    this.random = options.random ?? Math.random;
  }

  get latencyMs(): number {
    return this.options.latencyMs;
  }

  /** A 500 or a 429 (Retry-After: 1) for this write, or undefined to let it through. */
  writeFailure(): StatusError | undefined {
    if (this.options.errorRate <= 0 || this.random() >= this.options.errorRate) return undefined;
    return this.random() < 0.5 ? internalError("injected fault (kube-sim --error-rate)") : tooManyRequests(1);
  }

  injectConflict(): boolean {
    return this.options.conflictRate > 0 && this.random() < this.options.conflictRate;
  }

  /** Starts the watch dropper; returns its stop function. */
  startWatchDropper(closeAll: () => void): () => void {
    if (this.options.dropWatchesEveryMs <= 0) return () => undefined;
    const timer = setInterval(closeAll, this.options.dropWatchesEveryMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
