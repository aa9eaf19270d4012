// The real process: --help, a bad flag, and a full start -> ready -> SIGTERM -> lease released cycle.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { BUCKETS } from "#protocol";
import { eventually, useKubeSim } from "#test-support/watcher-harness.ts";
import { useNatsServer } from "../../../test/support/nats.ts";
import { watcherCommand } from "./config.ts";
import { LEASE_KEY, decodeLease } from "./domain/lease.ts";

const MAIN = "services/watcher/src/main.ts";

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return { child, exited, stderr: () => stderr };
}

describe("stsfleet-watcher process", () => {
  it("--help lists every flag with its environment fallback", async () => {
    const { child, exited } = run(["--help"]);
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    assert.equal(await exited, 0);
    const text = out.replace(/\s+/g, " ");
    for (const option of watcherCommand().options) {
      assert.ok(option.long && text.includes(option.long), `${option.long} in --help`);
      if (option.envVar) assert.ok(text.includes(`env: ${option.envVar}`), `${option.envVar} in --help`);
    }
  });

  it("refuses inconsistent lease flags with exit code 2", async () => {
    const { exited, stderr } = run(["--lease-duration-ms", "100", "--lease-renew-deadline-ms", "200"]);
    assert.equal(await exited, 2);
    assert.match(stderr(), /--lease-renew-deadline-ms/);
  });

  it("starts, becomes ready, and on SIGTERM stops gracefully and releases the lease", async () => {
    const nats = await useNatsServer();
    const sim = await useKubeSim();
    const { child, exited, stderr } = run([
      "--name", "watcher-proc",
      "--nats-url", nats.url,
      "--kubeconfig", sim.kubeconfig,
      "--metrics-bind-address", "127.0.0.1:0",
      "--health-probe-bind-address", "127.0.0.1:0",
      "--lease-duration-ms", "1000",
      "--lease-renew-deadline-ms", "700",
      "--lease-retry-period-ms", "100",
    ]);
    try {
      const lines = createInterface(child.stdout);
      let probes: string | undefined;
      let metrics: string | undefined;
      lines.on("line", (line) => {
        try {
          const record = JSON.parse(line) as { msg?: string; probes?: string; metrics?: string };
          if (record.msg === "ops endpoints listening") ({ probes, metrics } = record);
        } catch {
          // not a log line
        }
      });
      // Generous: a loaded 2-core CI machine takes seconds just to load the modules.
      const readyz = await eventually(
        "the process to be ready",
        async () => {
          if (child.exitCode !== null) assert.fail(`the watcher exited with ${child.exitCode}: ${stderr()}`);
          if (!probes) return undefined;
          const response = await fetch(`${probes}/readyz`);
          return response.status === 200 ? response : undefined;
        },
        60_000,
      );
      assert.equal(await readyz.text(), "ok");
      assert.ok(metrics);
      const text = await (await fetch(metrics)).text();
      assert.match(text, /stsfleet_watcher_leader\{[^}]*instance="watcher-proc"[^}]*\} 1/);
      assert.equal((await fetch(`${probes}/healthz`)).status, 200);
      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr());
      const nc = await connect({ servers: nats.url });
      try {
        const kv = await new Kvm(nc).open(BUCKETS.leases);
        const entry = await kv.get(LEASE_KEY);
        assert.ok(entry);
        assert.equal(decodeLease(entry.value)?.holder, "", "released for a standby to take over at once");
      } finally {
        await nc.close();
      }
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
