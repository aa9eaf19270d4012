// Flags of the status-writer (on top of the common flags), parsed once in main.ts.
import type { Command } from "commander";
import { z } from "zod";
import { CommonConfigSchema, integerFlag as intOption, serviceCommand } from "../../common/src/config.ts";

export function statusWriterCommand(): Command {
  return serviceCommand(
    "status-writer",
    "Writes StatefulSet /status (latest wins per set, resourceVersion preconditions, conflict retry, " +
      "observedGeneration never backwards) and Kubernetes Events (client-go's rate limit and aggregation) " +
      "for the actors, over NATS (queue groups `status` and `events`).",
  )
    .addOption(intOption("--status-concurrency <n>", "StatefulSets whose status is written at the same time", "STATUS_CONCURRENCY", 16))
    .addOption(intOption("--status-conflict-retries <n>", "re-reads after a 409 Conflict before a write fails", "STATUS_CONFLICT_RETRIES", 4))
    .addOption(intOption("--event-concurrency <n>", "Events written at the same time", "EVENT_CONCURRENCY", 4))
    .addOption(intOption("--event-queue-limit <n>", "Events waiting to be written before new ones are dropped", "EVENT_QUEUE_LIMIT", 10_000))
    .addOption(intOption("--event-burst <n>", "Events one object may get at once (client-go: 25)", "EVENT_BURST", 25))
    .addOption(
      intOption(
        "--event-refill-interval-ms <ms>",
        "one more Event per object allowed after this long (client-go: 5 minutes)",
        "EVENT_REFILL_INTERVAL_MS",
        300_000,
      ),
    )
    .addOption(
      intOption(
        "--event-aggregate-max <n>",
        "distinct messages with one reason before they are combined (client-go: 10)",
        "EVENT_AGGREGATE_MAX",
        10,
      ),
    )
    .addOption(
      intOption("--event-aggregate-interval-ms <ms>", "window of that count (client-go: 10 minutes)", "EVENT_AGGREGATE_INTERVAL_MS", 600_000),
    )
    .addOption(intOption("--event-cache-size <n>", "entries of each event cache (client-go: 4096)", "EVENT_CACHE_SIZE", 4096))
    .addOption(intOption("--event-max-tries <n>", "tries to reach the API server per Event (client-go: 12)", "EVENT_MAX_TRIES", 12))
    .addOption(intOption("--event-retry-delay-ms <ms>", "pause between those tries (client-go: 10 s)", "EVENT_RETRY_DELAY_MS", 10_000));
}

const positive = z.number().int().positive();

export const StatusWriterSettingsSchema = z.object({
  statusConcurrency: positive.max(1024),
  statusConflictRetries: z.number().int().min(0).max(100),
  eventConcurrency: positive.max(256),
  eventQueueLimit: positive,
  eventBurst: positive,
  eventRefillIntervalMs: positive,
  eventAggregateMax: positive,
  eventAggregateIntervalMs: positive,
  eventCacheSize: positive,
  eventMaxTries: positive,
  eventRetryDelayMs: z.number().int().nonnegative(),
});
export type StatusWriterSettings = z.infer<typeof StatusWriterSettingsSchema>;

export const StatusWriterConfigSchema = CommonConfigSchema.extend(StatusWriterSettingsSchema.shape);
export type StatusWriterConfig = z.infer<typeof StatusWriterConfigSchema>;

export const DEFAULT_STATUS_WRITER_SETTINGS: StatusWriterSettings = {
  statusConcurrency: 16,
  statusConflictRetries: 4,
  eventConcurrency: 4,
  eventQueueLimit: 10_000,
  eventBurst: 25,
  eventRefillIntervalMs: 300_000,
  eventAggregateMax: 10,
  eventAggregateIntervalMs: 600_000,
  eventCacheSize: 4096,
  eventMaxTries: 12,
  eventRetryDelayMs: 10_000,
};
