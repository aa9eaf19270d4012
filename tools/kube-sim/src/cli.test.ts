// The CLI as a process: --help lists every flag with its env fallback; it prints one line with the URL,
// writes a kubeconfig and exits cleanly on SIGTERM.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildCommand } from "./cli.ts";

const CLI = new URL("./cli.ts", import.meta.url).pathname;

describe("kube-sim CLI", () => {
  it("--help lists every flag with its environment fallback", () => {
    let help = "";
    buildCommand().configureOutput({ writeOut: (s) => (help += s) }).outputHelp();
    for (const flag of ["--port", "--kubeconfig-out", "--audit-log", "--history-window", "--latency-ms", "--error-rate", "--conflict-rate", "--drop-watches-every-ms", "--start-delay-ms", "--termination-delay-ms"]) {
      assert.match(help, new RegExp(flag), flag);
    }
    assert.match(help, /env: KUBE_SIM_PORT/);
  });

  it("rejects a bad rate with a clear error", () => {
    assert.throws(() => buildCommand().exitOverride().configureOutput({ writeErr: () => undefined }).parse(["node", "cli", "--error-rate", "2"]), /--error-rate must be a number between 0 and 1/);
  });

  it("listens, writes the kubeconfig, prints the URL and stops on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-sim-cli-"));
    try {
      const child = spawn(process.execPath, ["--import", "tsx", CLI, "--port", "0", "--kubeconfig-out", join(dir, "kubeconfig")], { stdio: ["ignore", "pipe", "pipe"] });
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("\n")) resolve(out);
        });
        child.once("exit", (code) => reject(new Error(`exited ${String(code)} before listening`)));
      });
      const url = /kube-sim listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      assert.ok(url, line);
      assert.match(readFileSync(join(dir, "kubeconfig"), "utf8"), new RegExp(`server: ${url}`));
      assert.equal((await fetch(`${url}/readyz`)).status, 200);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
