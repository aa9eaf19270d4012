// Counting and logging of messages an executor cannot use. Every drop is counted; the log gets the first drop of
// each (subject template, reason) at once and then at most one line per interval with the number suppressed, so
// a flood of garbage cannot flood the log too.
import type { CommonMetrics } from "../metrics.ts";
import type { Logger } from "../logger.ts";

/** Why a message was dropped: a DecodeFailure or one of the executors' own reasons. */
export type DropReason =
  | "empty"
  | "malformed"
  | "invalid"
  /** The subject does not parse (wrong shard token, bad name, …). */
  | "subject"
  /** The body names another shard or set than the subject it was published on. */
  | "mismatch"
  /** The executor's queue is full. */
  | "overload";

export interface DropReporterOptions {
  readonly logIntervalMs?: number;
  /** Monotonic milliseconds; injected by tests. */
  readonly nowMs?: () => number;
}

interface LogState {
  lastLoggedAtMs: number;
  suppressed: number;
}

export class DropReporter {
  private readonly metrics: CommonMetrics;
  private readonly logger: Logger;
  private readonly logIntervalMs: number;
  private readonly nowMs: () => number;
  private readonly logged = new Map<string, LogState>();

  constructor(metrics: CommonMetrics, logger: Logger, options: DropReporterOptions = {}) {
    this.metrics = metrics;
    this.logger = logger;
    this.logIntervalMs = options.logIntervalMs ?? 60_000;
    this.nowMs = options.nowMs ?? (() => performance.now());
  }

  drop(template: string, reason: DropReason, detail: Readonly<Record<string, unknown>>): void {
    this.metrics.droppedMessages.inc({ subject: template, reason });
    const key = `${template}\u0000${reason}`;
    const now = this.nowMs();
    const state = this.logged.get(key);
    if (state && now - state.lastLoggedAtMs < this.logIntervalMs) {
      state.suppressed += 1;
      return;
    }
    const suppressed = state?.suppressed ?? 0;
    this.logged.set(key, { lastLoggedAtMs: now, suppressed: 0 });
    this.logger.warn(
      { subject: template, reason, ...detail, ...(suppressed > 0 ? { suppressedSinceLastLog: suppressed } : {}) },
      "dropped a message",
    );
  }
}
