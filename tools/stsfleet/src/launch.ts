// What every child of the local stack shares: the repository root it runs from, how a TypeScript entry point is
// launched under the pinned Node with tsx, the error startup fails with, and the tail of a log that goes into it.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { LaunchPlan } from "./supervisor.ts";
import type { ServiceKind } from "./state.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const TSX_LOADER = import.meta.resolve("tsx");

export function serviceEntryPoint(service: ServiceKind): string {
  return join(REPO_ROOT, "services", service, "src/main.ts");
}

export class StackStartError extends Error {
  override readonly name = "StackStartError";
  /** A hint for the user (how to install nats-server, how to stop the running stack). */
  readonly hint: string | undefined;

  constructor(message: string, options?: ErrorOptions & { hint?: string }) {
    super(message, options);
    this.hint = options?.hint;
  }
}

function childEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  // A child must not think it runs inside node:test (the runner passes this to its subprocesses).
  delete env["NODE_TEST_CONTEXT"];
  return env;
}

export function nodeCommand(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Pick<LaunchPlan, "command" | "args" | "env" | "cwd"> {
  return { command: process.execPath, args: ["--import", TSX_LOADER, script, ...args], env: childEnv(env), cwd: REPO_ROOT };
}

/** The last lines of a child's log, for an error that says what the child wrote before it failed. */
export function tail(path: string, lines = 15): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}
