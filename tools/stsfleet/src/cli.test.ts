import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { NATS_INSTALL_HINT } from "../../lib/nats-server.ts";
import { describeEvent } from "./cli.ts";
import { runCli } from "./run-cli.ts";
import { isAlive, writeStackFile } from "./state.ts";

const dir = mkdtempSync(join(tmpdir(), "stsfleet-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("stsfleet CLI", () => {
  it("up without nats-server on the PATH says how to install it and exits non-zero, leaving nothing running", async () => {
    const stateDir = join(dir, "no-nats");
    const result = await runCli(["up", "--state-dir", stateDir, "--no-demo"], { ...process.env, PATH: join(dir, "empty-bin") });
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.ok(result.stderr.includes(NATS_INSTALL_HINT), result.stderr);
    assert.equal(existsSync(join(stateDir, "stack.json")), false);
    assert.equal(existsSync(join(stateDir, "up.pid")), false);
  });

  it("rejects a bad --actors value with a usage error", async () => {
    const result = await runCli(["up", "--actors", "0", "--state-dir", join(dir, "bad")]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /--actors must be a positive integer/);
  });

  it("down without a stack says so and succeeds; with a stack whose supervisor is gone it stops the listed processes", async () => {
    const empty = await runCli(["down", "--state-dir", join(dir, "nothing")]);
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /no stack/);

    const stateDir = join(dir, "orphans");
    const sleeper = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    sleeper.unref();
    const pid = sleeper.pid ?? -1;
    writeStackFile(stateDir, {
      apiServer: "http://127.0.0.1:1",
      nats: "nats://127.0.0.1:2",
      kubeconfig: join(stateDir, "kubeconfig"),
      processes: [{ service: "watcher", name: "watcher", pid }],
      supervisor: { pid: 2 ** 22 + 4321, startedAt: new Date().toISOString() },
    });
    const down = await runCli(["down", "--state-dir", stateDir]);
    assert.equal(down.code, 0, down.stdout + down.stderr);
    assert.match(down.stdout, /stopping watcher \(pid \d+\)/);
    assert.equal(isAlive(pid), false);
    assert.equal(existsSync(join(stateDir, "stack.json")), false);
  });

  it("describes restarts and unexpected exits, and stays quiet about expected ones", () => {
    assert.equal(
      describeEvent({ type: "process", event: { type: "exited", name: "actor-0", pid: 5, code: null, signal: "SIGKILL", expected: false, restartInMs: 250 } }),
      "  actor-0 exited (signal SIGKILL); restarting in 0.3 s",
    );
    assert.equal(describeEvent({ type: "process", event: { type: "spawned", name: "actor-0", pid: 6, restarts: 1 } }), "  actor-0 restarted (pid 6, restart 1)");
    assert.equal(describeEvent({ type: "process", event: { type: "spawned", name: "actor-0", pid: 6, restarts: 0 } }), undefined);
    assert.equal(
      describeEvent({ type: "process", event: { type: "exited", name: "watcher", pid: 5, code: 0, signal: null, expected: true, restartInMs: undefined } }),
      undefined,
    );
    assert.equal(
      describeEvent({ type: "waiting", pending: new Map([["actor-0", "lease not fresh"]]), elapsedMs: 3_100 }),
      "  waiting for actor-0 (lease not fresh) … 3.1 s",
    );
  });
});
