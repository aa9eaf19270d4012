// Read-your-writes waits inside a turn: the executor waits here until the cache shows what it asked for (claims
// the pvc-provisioner creates) before the turn goes on. The intake settles the waiters after every change it
// applies to the store; a wait ends false after its timeout or when the shard's signal aborts.
import { isMet } from "../domain/expectations.ts";
import type { Expectation, Lookup } from "../domain/expectations.ts";

interface Waiter {
  readonly expectations: readonly Expectation[];
  resolve(met: boolean): void;
}

export class ExpectationWaiters {
  private readonly waiters = new Set<Waiter>();
  private readonly lookup: Lookup;

  constructor(lookup: Lookup) {
    this.lookup = lookup;
  }

  /** Resolves true once every expectation is met in the cache, false after timeoutMs or when `signal` aborts. */
  waitFor(expectations: readonly Expectation[], timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (this.allMet(expectations)) return resolve(true);
      const waiter: Waiter = {
        expectations,
        resolve: (met) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          resolve(met);
        },
      };
      const onAbort = () => {
        this.waiters.delete(waiter);
        waiter.resolve(false);
      };
      const timer = setTimeout(onAbort, timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** After a change to the cache: resolves every wait whose expectations the cache now meets. */
  settle(): void {
    for (const waiter of this.waiters) {
      if (this.allMet(waiter.expectations)) {
        this.waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  }

  /** Waits not ended yet. */
  get pending(): number {
    return this.waiters.size;
  }

  private allMet(expectations: readonly Expectation[]): boolean {
    return expectations.every((expectation) => isMet(expectation, this.lookup));
  }
}
