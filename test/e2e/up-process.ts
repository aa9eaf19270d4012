// Runs the real `stsfleet up` as a process for the e2e tests: in its own process group (like a shell job, so
// `ctrlC()` sends SIGINT to the group as a terminal would), with its stdout collected line by line.
import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { REPO_ROOT } from "../../tools/stsfleet/src/stack.ts";

const CLI = join(REPO_ROOT, "tools/stsfleet/src/cli.ts");

export interface UpProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly stdout: readonly string[];
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ctrlC: () => void;
  /** Resolves with the first stdout line passing `test` (already printed or to come). */
  readonly line: (test: (line: string) => boolean, what: string, timeoutMs: number) => Promise<string>;
}

export function runUp(args: readonly string[]): UpProcess {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), CLI, "up", ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    detached: true,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const stdout: string[] = [];
  let stderr = "";
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    stdout.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const output = () => `stdout:\n${stdout.join("\n")}\nstderr:\n${stderr}`;
  return {
    child,
    stdout,
    stderr: () => stderr,
    exited,
    ctrlC: () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGINT");
    },
    line: (test, what, timeoutMs) => {
      const seen = stdout.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${what} line within ${timeoutMs} ms; ${output()}`)), timeoutMs);
        waiters.push({ test, resolve: (line) => (clearTimeout(timer), resolve(line)) });
        void exited.then(({ code }) => reject(new Error(`stsfleet up exited (${code}) before ${what}; ${output()}`)));
      });
    },
  };
}
