import type { Counter, Gauge, Histogram } from "prom-client";
import type { StatusOutcome } from "#protocol";
import type { CommonMetrics } from "../../common/src/metrics.ts";
import { counter, createExecutorMetrics, gauge, histogram } from "../../common/src/executor/metrics.ts";
import type { ExecutorMetrics } from "../../common/src/executor/metrics.ts";
import type { EventOutcome } from "./events.ts";

export interface StatusWriterMetrics extends ExecutorMetrics {
  readonly statusWrites: Counter<"outcome">;
  readonly statusWriteDuration: Histogram<"outcome">;
  readonly statusConflicts: Counter;
  readonly statusForeignOverwrites: Counter<"reason">;
  readonly statusPendingSets: Gauge;
  readonly events: Counter<"outcome">;
  readonly eventQueueLength: Gauge;
  countStatus(outcome: StatusOutcome, seconds: number): void;
  countEvent(outcome: EventOutcome | "stale-epoch"): void;
}

export function createStatusWriterMetrics(common: CommonMetrics): StatusWriterMetrics {
  const statusWrites = counter(common.registry, {
    name: "stsfleet_status_writes_total",
    help: "Status write requests answered, by outcome (written, unchanged, superseded, stale-epoch, stale-generation, not-found, failed).",
    labelNames: ["outcome"],
  });
  const statusWriteDuration = histogram(common.registry, {
    name: "stsfleet_status_write_duration_seconds",
    help: "Time from a status write request's arrival to its answer, by outcome.",
    labelNames: ["outcome"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  const events = counter(common.registry, {
    name: "stsfleet_events_total",
    help: "Event records handled, by outcome (created, patched, spam-filtered, rejected, failed, abandoned, stale-epoch).",
    labelNames: ["outcome"],
  });
  return {
    ...createExecutorMetrics(common),
    statusWrites,
    statusWriteDuration,
    statusConflicts: counter(common.registry, {
      name: "stsfleet_status_conflicts_total",
      help: "409 Conflict answers to /status writes (each is followed by a re-read and another try).",
    }),
    statusForeignOverwrites: counter(common.registry, {
      name: "stsfleet_status_foreign_overwrites_total",
      help: "/status writes that replaced a status this writer did not write, by reason (impossible-generation, not-own-write).",
      labelNames: ["reason"],
    }),
    statusPendingSets: gauge(common.registry, {
      name: "stsfleet_status_pending_sets",
      help: "StatefulSets with a status write running or waiting.",
    }),
    events,
    eventQueueLength: gauge(common.registry, {
      name: "stsfleet_event_queue_length",
      help: "Event records waiting to be written.",
    }),
    countStatus(outcome, seconds) {
      statusWrites.inc({ outcome });
      statusWriteDuration.observe({ outcome }, seconds);
    },
    countEvent(outcome) {
      events.inc({ outcome });
    },
  };
}
