// The watcher's flags (each with an environment fallback) on top of the shared ones. Parsed once, in main.ts.
import { Option } from "commander";
import type { Command } from "commander";
import { z } from "zod";
import { CommonConfigSchema, integerFlag, parseConfig, serviceCommand } from "../../common/src/config.ts";

export function watcherCommand(): Command {
  const int = integerFlag;
  return serviceCommand(
    "stsfleet-watcher",
    "Lists and watches StatefulSets, Pods, PersistentVolumeClaims and ControllerRevisions and publishes each object, " +
      "as the last value per object, to the K8S_OBJS stream on the subject of its owning StatefulSet's shard.",
  )
    .addOption(new Option("--namespace <ns>", "watch only this namespace (default: all namespaces)").env("WATCH_NAMESPACE"))
    .addOption(int("--list-page-size <n>", "items per page of each list request (limit)", "LIST_PAGE_SIZE", 500))
    .addOption(
      int(
        "--watch-timeout-seconds <s>",
        "server-side watch timeout floor; each watch asks for a random value between it and twice it",
        "WATCH_TIMEOUT_SECONDS",
        300,
      ),
    )
    .addOption(
      int(
        "--watch-stall-timeout-ms <ms>",
        "restart a watch that has delivered no event and no bookmark for this long",
        "WATCH_STALL_TIMEOUT_MS",
        180_000,
      ),
    )
    .addOption(
      int(
        "--relist-period-ms <ms>",
        "relist every kind at a random moment between this period and 1.5 times it (0 disables)",
        "RELIST_PERIOD_MS",
        1_800_000,
      ),
    )
    .addOption(int("--backoff-initial-ms <ms>", "first delay before retrying a failed list or watch", "WATCH_BACKOFF_INITIAL_MS", 500))
    .addOption(int("--backoff-max-ms <ms>", "longest delay between list/watch/publish retries", "WATCH_BACKOFF_MAX_MS", 30_000))
    .addOption(
      int("--lease-duration-ms <ms>", "how long a standby waits on an unchanged lease before taking over", "LEASE_DURATION_MS", 15_000),
    )
    .addOption(
      int(
        "--lease-renew-deadline-ms <ms>",
        "the active watcher stops publishing when it has not renewed its lease for this long",
        "LEASE_RENEW_DEADLINE_MS",
        10_000,
      ),
    )
    .addOption(int("--lease-retry-period-ms <ms>", "how often the lease is renewed or checked", "LEASE_RETRY_PERIOD_MS", 2_000))
    .addOption(
      int("--tombstone-ttl-ms <ms>", "purge tombstones from the stream once they are this old", "TOMBSTONE_TTL_MS", 3_600_000),
    )
    .addOption(
      int("--tombstone-purge-interval-ms <ms>", "how often old tombstones are looked for", "TOMBSTONE_PURGE_INTERVAL_MS", 60_000),
    )
    .addOption(int("--publish-concurrency <n>", "publishes awaiting a JetStream ack at once", "PUBLISH_CONCURRENCY", 64))
    .addOption(int("--publish-timeout-ms <ms>", "how long to wait for a JetStream ack", "PUBLISH_TIMEOUT_MS", 5_000))
    .addOption(
      int(
        "--live-copy-delay-ms <ms>",
        "send an object's live copy only if the stream has not acked it within this long (0: always, at once)",
        "LIVE_COPY_DELAY_MS",
        50,
      ),
    );
}

const positive = z.number().int().positive();

export const WatcherConfigSchema = CommonConfigSchema.extend({
  namespace: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a namespace name (DNS label)")
    .max(63)
    .optional(),
  listPageSize: positive.max(100_000),
  watchTimeoutSeconds: positive,
  watchStallTimeoutMs: positive,
  relistPeriodMs: z.number().int().nonnegative(),
  backoffInitialMs: positive,
  backoffMaxMs: positive,
  leaseDurationMs: positive,
  leaseRenewDeadlineMs: positive,
  leaseRetryPeriodMs: positive,
  tombstoneTtlMs: positive,
  tombstonePurgeIntervalMs: positive,
  publishConcurrency: positive.max(10_000),
  publishTimeoutMs: positive,
  liveCopyDelayMs: z.number().int().nonnegative().max(60_000),
})
  .refine((c) => c.leaseRenewDeadlineMs < c.leaseDurationMs, {
    path: ["leaseRenewDeadlineMs"],
    message: "must be shorter than --lease-duration-ms, or a deposed watcher could still publish after a takeover",
  })
  .refine((c) => c.leaseRetryPeriodMs < c.leaseRenewDeadlineMs, {
    path: ["leaseRetryPeriodMs"],
    message: "must be shorter than --lease-renew-deadline-ms",
  })
  .refine((c) => c.backoffInitialMs <= c.backoffMaxMs, {
    path: ["backoffInitialMs"],
    message: "must not exceed --backoff-max-ms",
  });

export type WatcherConfig = z.infer<typeof WatcherConfigSchema>;

export function parseWatcherConfig(argv: readonly string[]): Readonly<WatcherConfig> {
  return parseConfig(watcherCommand(), WatcherConfigSchema, argv);
}
