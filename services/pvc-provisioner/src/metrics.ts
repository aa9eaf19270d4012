import type { Counter, Gauge, Histogram } from "prom-client";
import type { CommonMetrics } from "../../common/src/metrics.ts";
import type { PvcCommand } from "#protocol";
import type { CommandOutcome } from "./claims.ts";
import { counter, createExecutorMetrics, gauge, histogram } from "../../common/src/executor/metrics.ts";
import type { ExecutorMetrics } from "../../common/src/executor/metrics.ts";

export interface PvcMetrics extends ExecutorMetrics {
  readonly commands: Counter<"type" | "outcome">;
  readonly commandDuration: Histogram<"type">;
  readonly inFlight: Gauge;
  readonly deadLetters: Counter;
  countCommand(type: PvcCommand["type"], outcome: CommandOutcome): void;
}

export function createPvcMetrics(common: CommonMetrics): PvcMetrics {
  const commands = counter(common.registry, {
    name: "stsfleet_pvc_commands_total",
    help: "Claim commands processed, by type (pvc.create, pvc.updateOwnerRefs) and outcome.",
    labelNames: ["type", "outcome"],
  });
  return {
    ...createExecutorMetrics(common),
    commands,
    commandDuration: histogram(common.registry, {
      name: "stsfleet_pvc_command_duration_seconds",
      help: "Time to process one claim command, from delivery to ack/nak/term, by type.",
      labelNames: ["type"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
    inFlight: gauge(common.registry, {
      name: "stsfleet_pvc_commands_in_flight",
      help: "Claim commands being processed now.",
    }),
    deadLetters: counter(common.registry, {
      name: "stsfleet_pvc_dead_letters_total",
      help: "Claim commands the server stopped redelivering after max_deliver unacknowledged deliveries (advisory).",
    }),
    countCommand(type, outcome) {
      commands.inc({ type, outcome });
    },
  };
}
