// Purges old tombstones from K8S_OBJS, and foreign messages no object replaces (ADR 0088): each subject by itself and
// only up to the held message's own sequence, so a message stored after it survives. One round at a time.
import type { JetStreamManager } from "@nats-io/jetstream";
import type { Logger } from "../../../common/src/logger.ts";
import type { Ledger } from "../domain/ledger.ts";
import type { WatcherMetrics } from "../metrics.ts";

export interface TombstonePurgerDeps {
  readonly jsm: JetStreamManager;
  readonly stream: string;
  readonly ledger: Pick<Ledger, "purgeCandidates" | "purged">;
  readonly metrics: Pick<WatcherMetrics, "tombstonesPurged">;
  readonly logger: Logger;
  readonly tombstoneTtlMs: number;
  /** Purges at most this many subjects per round. */
  readonly batch: number;
  readonly wallNow: () => number;
  /** True once the publisher is closed: no round starts, and one under way ends after its current subject. */
  readonly closed: () => boolean;
}

export class TombstonePurger {
  private readonly deps: TombstonePurgerDeps;
  private purging = false;

  constructor(deps: TombstonePurgerDeps) {
    this.deps = deps;
  }

  /** One purge round: tombstones older than the TTL, each purged by subject up to its own sequence. */
  async purge(): Promise<number> {
    const { jsm, stream, ledger, metrics, logger } = this.deps;
    if (this.purging || this.deps.closed()) return 0;
    this.purging = true;
    let purged = 0;
    try {
      const candidates = ledger.purgeCandidates(this.deps.wallNow(), this.deps.tombstoneTtlMs, this.deps.batch);
      for (const { subject, seq } of candidates) {
        if (this.deps.closed()) break;
        const response = await jsm.streams.purge(stream, { filter: subject, seq: seq + 1 });
        ledger.purged(subject, seq);
        purged += response.purged;
      }
      if (purged > 0) {
        metrics.tombstonesPurged.inc(purged);
        logger.debug({ purged }, "purged old tombstones");
      }
    } finally {
      this.purging = false;
    }
    return purged;
  }
}
