// Flags of the pvc-provisioner (on top of the common flags), parsed once in main.ts.
import { Option } from "commander";
import type { Command } from "commander";
import { z } from "zod";
import { CommonConfigSchema, integerOption, serviceCommand } from "../../common/src/config.ts";
import { millisecondsListOption } from "../../common/src/executor/config.ts";

export function pvcProvisionerCommand(): Command {
  return serviceCommand(
    "pvc-provisioner",
    "Creates PersistentVolumeClaims and sets their retention-policy owner references, from the commands actors " +
      "put on the STS_CMD work queue (durable consumer `pvc`, at-least-once, idempotent, fenced by shard epoch).",
  )
    .addOption(
      new Option("--concurrency <n>", "commands processed at the same time").env("PVC_CONCURRENCY").argParser(integerOption).default(32),
    )
    .addOption(
      new Option("--ack-wait-ms <ms>", "how long a delivered command may stay unacknowledged before it is redelivered")
        .env("PVC_ACK_WAIT_MS")
        .argParser(integerOption)
        .default(30_000),
    )
    .addOption(
      new Option("--max-deliver <n>", "deliveries of one command before it is given up").env("PVC_MAX_DELIVER").argParser(integerOption).default(5),
    )
    .addOption(
      new Option(
        "--redelivery-backoff-ms <list>",
        "the consumer's server-side backoff for unacknowledged commands, comma-separated; empty: --ack-wait-ms " +
          "every time. nats-server uses the first value as the ack wait (verified on 2.9.10)",
      )
        .env("PVC_REDELIVERY_BACKOFF_MS")
        .argParser(millisecondsListOption)
        .default([], '""'),
    )
    .addOption(
      new Option("--retry-backoff-ms <list>", "delay before retrying a command that failed, by delivery attempt, comma-separated")
        .env("PVC_RETRY_BACKOFF_MS")
        .argParser(millisecondsListOption)
        .default([1_000, 5_000, 30_000], '"1000,5000,30000"'),
    )
    .addOption(
      new Option("--max-ack-pending <n>", "commands delivered and not yet acknowledged, across all replicas")
        .env("PVC_MAX_ACK_PENDING")
        .argParser(integerOption)
        .default(256),
    );
}

export const PvcProvisionerSettingsSchema = z
  .object({
    concurrency: z.number().int().min(1).max(256),
    ackWaitMs: z.number().int().min(100),
    maxDeliver: z.number().int().min(1),
    redeliveryBackoffMs: z.array(z.number().int().min(100)),
    retryBackoffMs: z.array(z.number().int().nonnegative()).min(1),
    maxAckPending: z.number().int().min(1),
  })
  .refine((s) => s.redeliveryBackoffMs.length === 0 || s.maxDeliver > s.redeliveryBackoffMs.length, {
    message: "--max-deliver must be greater than the number of --redelivery-backoff-ms values (a nats-server rule)",
    path: ["maxDeliver"],
  });
export type PvcProvisionerSettings = z.infer<typeof PvcProvisionerSettingsSchema>;

export const PvcProvisionerConfigSchema = z.intersection(
  CommonConfigSchema,
  PvcProvisionerSettingsSchema,
);
export type PvcProvisionerConfig = z.infer<typeof PvcProvisionerConfigSchema>;

export const DEFAULT_PVC_SETTINGS: PvcProvisionerSettings = {
  concurrency: 32,
  ackWaitMs: 30_000,
  maxDeliver: 5,
  redeliveryBackoffMs: [],
  retryBackoffMs: [1_000, 5_000, 30_000],
  maxAckPending: 256,
};
