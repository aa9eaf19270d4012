import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive } from "./state.ts";
import { ManagedProcess } from "./supervisor.ts";
import type { SupervisorEvent } from "./supervisor.ts";

const dir = mkdtempSync(join(tmpdir(), "stsfleet-supervisor-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function node(code: string) {
  return { command: process.execPath, args: ["-e", code] };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe("ManagedProcess", () => {
  it("restarts a child that dies, with backoff, counting restarts, and logs its output to the file", async () => {
    const events: SupervisorEvent[] = [];
    const starts: number[] = [];
    const child = new ManagedProcess({
      service: "watcher",
      name: "crashy",
      logPath: join(dir, "crashy.log"),
      restart: { initialDelayMs: 20, maxDelayMs: 40, stableAfterMs: 60_000 },
      launch: ({ restarts }) => {
        starts.push(restarts);
        return node(`console.log("run ${restarts}"); setTimeout(() => process.exit(3), 30)`);
      },
      onEvent: (event) => events.push(event),
    });
    await child.start();
    await until("three restarts", () => (child.restarts >= 3 ? true : undefined));
    await child.stop(2_000);
    assert.deepEqual(starts.slice(0, 4), [0, 1, 2, 3]);
    const exits = events.filter((e) => e.type === "exited");
    assert.ok(exits.length >= 3);
    const first = exits[0];
    assert.ok(first?.type === "exited" && first.code === 3 && !first.expected && first.restartInMs !== undefined);
    assert.ok(first.restartInMs >= 10 && first.restartInMs <= 20, `first delay ${first.restartInMs}`);
    assert.match(readFileSync(join(dir, "crashy.log"), "utf8"), /run 0\nrun 1\n/);
  });

  it("does not restart infrastructure (restart: false) and reports the unexpected exit", async () => {
    const events: SupervisorEvent[] = [];
    const child = new ManagedProcess({
      service: "kube-sim",
      name: "sim",
      logPath: join(dir, "sim.log"),
      restart: false,
      launch: () => node("process.exit(1)"),
      onEvent: (event) => events.push(event),
    });
    await child.start();
    const exit = await until("the exit", () => events.find((e) => e.type === "exited"));
    assert.ok(exit.type === "exited" && exit.restartInMs === undefined && !exit.expected);
    await sleep(100);
    assert.equal(child.running, false);
    assert.equal(child.restarts, 0);
  });

  it("stop() ends the whole process group (grandchildren too) with SIGTERM, SIGKILL after the timeout", async () => {
    const lines: string[] = [];
    const child = new ManagedProcess({
      service: "actor",
      name: "stubborn",
      logPath: join(dir, "stubborn.log"),
      restart: { initialDelayMs: 10, maxDelayMs: 10, stableAfterMs: 1_000 },
      // Ignores SIGTERM and has a grandchild that would survive a kill of the child alone.
      launch: () =>
        node(
          `process.on("SIGTERM", () => {}); const g = require("node:child_process").spawn("sleep", ["30"], { stdio: "ignore" }); console.log("grandchild " + g.pid); setInterval(() => {}, 1000)`,
        ),
      onLine: (line) => lines.push(line),
    });
    await child.start();
    const grandchild = Number(/grandchild (\d+)/.exec(await until("the grandchild", () => lines.find((l) => l.startsWith("grandchild"))))?.[1]);
    const pid = child.pid ?? -1;
    assert.ok(isAlive(pid) && isAlive(grandchild));
    const started = performance.now();
    await child.stop(300);
    assert.ok(performance.now() - started >= 250, "SIGKILL came before the timeout");
    await until("the grandchild to die", () => (isAlive(grandchild) ? undefined : true), 5_000);
    assert.equal(isAlive(pid), false);
    await sleep(50);
    assert.equal(child.running, false, "a stopped child is not restarted");
  });

  it("signal() kills the current child; the supervisor brings up a new pid", async () => {
    const child = new ManagedProcess({
      service: "status-writer",
      name: "victim",
      logPath: join(dir, "victim.log"),
      restart: { initialDelayMs: 10, maxDelayMs: 10, stableAfterMs: 1_000 },
      launch: () => node("setInterval(() => {}, 1000)"),
    });
    await child.start();
    const first = child.pid;
    const exited = child.exited();
    assert.equal(child.signal("SIGKILL"), true);
    await exited;
    const second = await until("a new pid", () => (child.pid !== undefined && child.pid !== first ? child.pid : undefined));
    assert.notEqual(second, first);
    assert.equal(child.restarts, 1);
    await child.stop(2_000);
  });
});
