// Runs the stsfleet CLI as a child process (through tsx, with the pinned Node) for tests.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./stack.ts";

export const CLI = join(REPO_ROOT, "tools/stsfleet/src/cli.ts");

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...env, NODE_TEST_CONTEXT: undefined },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
