// What winning and losing the lease do to the watcher. Becoming the active watcher: the publisher stamps every want
// with a clock whose epoch is the won lease revision, the stream's current content is read back (headers only,
// retried with backoff until it succeeds or the lease is gone) and handed to the ledger, which then owes only the
// differences. Standing by: the publisher stops stamping, the ledger forgets its view of the stream (only valid while
// active) and stops handing out publishes. A read that finishes after the lease was lost, or won again, is dropped.
import { setTimeout as sleep } from "node:timers/promises";
import { PublicationClock } from "#protocol";
import { backoffDelayMs } from "../../common/src/backoff.ts";
import type { BackoffPolicy } from "../../common/src/backoff.ts";
import type { Logger } from "../../common/src/logger.ts";
import type { LeaseCallbacks } from "./adapters/lease-elector.ts";
import type { Publisher } from "./adapters/publisher.ts";
import type { StreamIndex } from "./adapters/stream-index.ts";
import type { Ledger } from "./domain/ledger.ts";

export interface ActivationDeps {
  readonly ledger: Pick<Ledger, "activate" | "deactivate" | "pending">;
  readonly publisher: Pick<Publisher, "setPublicationClock" | "kick">;
  /** Reads what K8S_OBJS holds, last message per object subject (readStreamIndex); rejects when NATS cannot answer. */
  readonly readIndex: () => Promise<StreamIndex>;
  /** Whether the lease is still held when a read finishes (LeaseElector.isLeader). */
  readonly isLeader: () => boolean;
  readonly logger: Logger;
  /** Between failed reads of the stream index. */
  readonly backoff: BackoffPolicy;
  readonly random: () => number;
}

export class Activation implements LeaseCallbacks {
  private readonly deps: ActivationDeps;
  /** Bumped by every lease transition: a read of an earlier one is stale. */
  private generation = 0;
  private stopped = false;

  constructor(deps: ActivationDeps) {
    this.deps = deps;
  }

  onStartedLeading(revision: number): void {
    this.deps.publisher.setPublicationClock(new PublicationClock(revision));
    void this.rebuild(++this.generation);
  }

  onStoppedLeading(reason: "lost" | "renew-deadline" | "released"): void {
    this.generation++;
    this.deps.publisher.setPublicationClock(undefined);
    this.deps.ledger.deactivate();
    this.deps.logger.warn({ reason }, "no longer the active watcher; standing by");
    this.deps.publisher.kick();
  }

  /** Gives up a rebuild in progress (shutdown); the lease is released by its elector. */
  stop(): void {
    this.stopped = true;
  }

  /** Reads the stream index until it is read, the lease is lost or taken again, or the watcher stops. */
  private async rebuild(generation: number): Promise<void> {
    const { ledger, publisher, logger } = this.deps;
    for (let attempt = 0; this.current(generation); attempt++) {
      try {
        const index = await this.deps.readIndex();
        if (!this.current(generation) || !this.deps.isLeader()) return;
        if (!index.headersOnly) logger.warn("the server ignored headers_only; the stream index was read with payloads");
        const report = ledger.activate(index.entries);
        logger.info({ ...report, pending: ledger.pending }, "stream index rebuilt; publishing differences");
        publisher.kick();
        return;
      } catch (error) {
        logger.warn({ err: error, attempt }, "reading the stream index failed; retrying");
        await sleep(backoffDelayMs(this.deps.backoff, attempt, this.deps.random));
      }
    }
  }

  private current(generation: number): boolean {
    return generation === this.generation && !this.stopped;
  }
}
