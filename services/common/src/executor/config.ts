// What both executors' flags share beyond the common ones: a parser for millisecond lists and parse-or-exit.
import { InvalidArgumentError } from "commander";
import type { Command } from "commander";
import type { z } from "zod";
import { ConfigError, parseConfig } from "../config.ts";

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
