// Flags both executors add to the common ones, and parsers for their values.
import { InvalidArgumentError, Option } from "commander";
import type { Command } from "commander";
import { z } from "zod";
import { ConfigError, integerOption, parseConfig } from "../config.ts";

/** "1000,5000,30000" -> [1000, 5000, 30000]; "" -> []. */
export function millisecondsListOption(value: string): number[] {
  const trimmed = value.trim();
  if (trimmed === "") return [];
  return trimmed.split(",").map((part) => {
    const text = part.trim();
    if (!/^[0-9]+$/.test(text)) throw new InvalidArgumentError(`expected comma-separated milliseconds, got ${JSON.stringify(part)}`);
    return Number(text);
  });
}

export function addExecutorOptions(command: Command): Command {
  return command.addOption(
    new Option("--nats-replicas <n>", "replicas of the streams and buckets this service creates if missing (3 in production)")
      .env("NATS_REPLICAS")
      .argParser(integerOption)
      .default(1),
  );
}

export const ExecutorConfigSchema = z.object({ natsReplicas: z.number().int().min(1).max(5) });

/**
 * Parses argv for a service binary; on invalid input prints every problem and exits with status 2 (commander
 * itself exits for --help and --version).
 */
export function parseConfigOrExit<S extends z.ZodType>(command: Command, schema: S, argv: readonly string[]): Readonly<z.infer<S>> {
  try {
    return parseConfig(command, schema, argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
