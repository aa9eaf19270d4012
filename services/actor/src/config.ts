import { Option } from "commander";
import { z } from "zod";
import { MAX_INTENT_LOG_REPLICAS } from "#protocol";
import { CommonConfigSchema, integerOption, serviceCommand } from "../../common/src/config.ts";
import { DEFAULT_FOREIGN_CONTROLLER_OPTIONS } from "./domain/foreign-controller.ts";

/** A comma-separated list, blanks dropped. */
function listOption(value: string): string[] {
  return value
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
}

export function actorCommand() {
  return serviceCommand("stsfleet-actor", "StatefulSet actors: own shards, reconcile each set with the upstream planner")
    .addOption(
      new Option("--max-concurrent-turns <n>", "reconcile turns running at once (kube-controller-manager uses 5 workers)")
        .env("MAX_CONCURRENT_TURNS")
        .argParser(integerOption)
        .default(32),
    )
    .addOption(
      new Option("--lease-profile <profile>", "lease timings: default (15s/10s/2s, as kube-controller-manager) or fast (8s/5s/1s)")
        .choices(["default", "fast"])
        .env("LEASE_PROFILE")
        .default("default"),
    )
    .addOption(
      new Option(
        "--intent-log-placement <tags>",
        "comma-separated NATS server tags, one per replica of the intent log: each replica is a single-replica stream on the server with that tag and an append counts once a majority took it, so losing one NATS server stalls no write (ADR 0084); an odd number from 3. Empty: one stream STS_INTENT with --nats-replicas replicas. Every actor of a fleet must use the same list",
      )
        .env("INTENT_LOG_PLACEMENT")
        .argParser(listOption)
        .default([]),
    )
    .addOption(new Option("--status-timeout-ms <ms>", "how long to wait for the status-writer").env("STATUS_TIMEOUT_MS").argParser(integerOption).default(5_000))
    .addOption(new Option("--claim-wait-timeout-ms <ms>", "how long a turn waits for requested claims to appear").env("CLAIM_WAIT_TIMEOUT_MS").argParser(integerOption).default(10_000))
    .addOption(
      new Option("--expectation-timeout-ms <ms>", "how long an actor waits for its cache to show its own writes before planning anyway")
        .env("EXPECTATION_TIMEOUT_MS")
        .argParser(integerOption)
        .default(15_000),
    )
    .addOption(new Option("--resync-period-ms <ms>", "jittered periodic turn for every set (0 disables)").env("RESYNC_PERIOD_MS").argParser(integerOption).default(600_000))
    .addOption(new Option("--passivate-after-ms <ms>", "idle time after which an actor is dropped from memory").env("PASSIVATE_AFTER_MS").argParser(integerOption).default(300_000))
    .addOption(new Option("--backoff-initial-ms <ms>", "first retry delay after a failed turn").env("BACKOFF_INITIAL_MS").argParser(integerOption).default(5))
    .addOption(new Option("--backoff-max-ms <ms>", "maximum retry delay after failed turns").env("BACKOFF_MAX_MS").argParser(integerOption).default(300_000))
    .addOption(
      new Option(
        "--foreign-controller-managers <names>",
        "comma-separated field managers that are another StatefulSet controller: one status write of theirs seen while stsfleet owns a set leaves the set alone (ADR 0092)",
      )
        .env("FOREIGN_CONTROLLER_MANAGERS")
        .argParser(listOption)
        .default([...DEFAULT_FOREIGN_CONTROLLER_OPTIONS.knownControllers]),
    )
    .addOption(
      new Option("--foreign-rewrite-window-ms <ms>", "another field manager that writes a set's status again within this long after stsfleet overwrote it leaves the set alone")
        .env("FOREIGN_REWRITE_WINDOW_MS")
        .argParser(integerOption)
        .default(DEFAULT_FOREIGN_CONTROLLER_OPTIONS.rewriteWindowMs),
    )
    .addOption(
      new Option("--foreign-quiet-period-ms <ms>", "a set left alone is acted on again once no other field manager has written its status for this long")
        .env("FOREIGN_QUIET_PERIOD_MS")
        .argParser(integerOption)
        .default(DEFAULT_FOREIGN_CONTROLLER_OPTIONS.quietPeriodMs),
    );
}

export const ActorConfigSchema = CommonConfigSchema.extend({
  maxConcurrentTurns: z.number().int().min(1).max(10_000),
  leaseProfile: z.enum(["default", "fast"]),
  intentLogPlacement: z
    .array(z.string().min(1))
    .max(MAX_INTENT_LOG_REPLICAS, `at most ${MAX_INTENT_LOG_REPLICAS} tags`)
    .refine((tags) => tags.length === 0 || (tags.length >= 3 && tags.length % 2 === 1), "an odd number of tags from 3 (a majority must survive the loss of one), or none")
    .refine((tags) => new Set(tags).size === tags.length, "each tag once (two replicas on one server fail together)"),
  statusTimeoutMs: z.number().int().positive(),
  claimWaitTimeoutMs: z.number().int().positive(),
  expectationTimeoutMs: z.number().int().positive(),
  resyncPeriodMs: z.number().int().nonnegative(),
  passivateAfterMs: z.number().int().positive(),
  backoffInitialMs: z.number().int().positive(),
  backoffMaxMs: z.number().int().positive(),
  foreignControllerManagers: z.array(z.string().min(1).max(128)),
  foreignRewriteWindowMs: z.number().int().nonnegative(),
  foreignQuietPeriodMs: z.number().int().positive(),
});
export type ActorConfig = z.infer<typeof ActorConfigSchema>;
