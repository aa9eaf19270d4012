// Helpers for the packaging tests: locating external tools (they are optional; tests skip with the reason when one
// is missing), running them, reading YAML, and the facts every packaging test shares.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadAll } from "js-yaml";
import { onPath } from "../../tools/stsfleet/src/which.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The four services, as named in the launcher, NATS users, ServiceAccounts and Secret keys. */
export const SERVICES = ["watcher", "actor", "pvc-provisioner", "status-writer"] as const;
export type Service = (typeof SERVICES)[number];

/** `$STSFLEET_NATS_<SERVICE>_PASSWORD`: how auth.conf and docker-compose.yml read each password. */
export function passwordVariable(service: Service): string {
  return `STSFLEET_NATS_${service.toUpperCase().replaceAll("-", "_")}_PASSWORD`;
}

export function repoPath(...parts: string[]): string {
  return join(REPO_ROOT, ...parts);
}

export function readRepoFile(...parts: string[]): string {
  return readFileSync(repoPath(...parts), "utf8");
}

/** A temp dir inside the repository (gitignored `.tmp/`): bundles there resolve packages from node_modules. */
export function repoTempDir(prefix: string): string {
  mkdirSync(join(REPO_ROOT, ".tmp"), { recursive: true });
  return mkdtempSync(join(REPO_ROOT, ".tmp", prefix));
}

/** The absolute path of `name` on the PATH, or undefined. */
export const findExecutable = onPath;

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
}

/** Runs a command to completion (killed after `timeoutMs`) and collects its output. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? REPO_ROOT, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every document of a YAML stream, as plain objects exactly as written (no client-node model renaming). */
export function parseYamlDocuments(text: string): Record<string, unknown>[] {
  return loadAll(text).filter((doc): doc is Record<string, unknown> => typeof doc === "object" && doc !== null);
}

/** Random passwords for the four NATS users, keyed by their environment variable. */
export function testPasswords(): Record<string, string> {
  return Object.fromEntries(SERVICES.map((service) => [passwordVariable(service), `test-${service}-${Math.random().toString(36).slice(2)}`]));
}

/** Metric names in a PromQL expression: identifiers right before a `{` selector or a `[` range. */
export function metricNames(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)].map((m) => m[1] ?? "").filter((name) => name !== "");
}
