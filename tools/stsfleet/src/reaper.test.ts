// The reaper is what makes "no orphan processes ever" hold when the supervisor itself is SIGKILLed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { isAlive } from "./state.ts";

const REAPER = pathToFileURL(new URL("./reaper.ts", import.meta.url).pathname).href;

/** A stand-in supervisor: starts a reaper and two detached children, registers them, prints the pids. */
function fakeSupervisor(mode: "hang" | "close") {
  const code = `
    const { spawn } = await import("node:child_process");
    const { startReaper } = await import(${JSON.stringify(REAPER)});
    const reaper = startReaper();
    const service = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    const infra = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    reaper.register(service.pid, "s");
    reaper.register(infra.pid, "i");
    console.log(JSON.stringify({ service: service.pid, infra: infra.pid, reaper: reaper.pid }));
    if (${JSON.stringify(mode)} === "close") {
      reaper.unregister(service.pid); reaper.unregister(infra.pid); reaper.close();
      service.unref(); infra.unref();
    } else {
      setInterval(() => {}, 1000);
    }
  `;
  return spawn(process.execPath, ["--import", import.meta.resolve("tsx"), "--input-type=module", "-e", code], {
    stdio: ["ignore", "pipe", "inherit"],
  });
}

async function firstLine(child: ReturnType<typeof fakeSupervisor>): Promise<{ service: number; infra: number; reaper: number }> {
  const lines = createInterface({ input: child.stdout ?? process.stdin });
  for await (const line of lines) return JSON.parse(line) as { service: number; infra: number; reaper: number };
  throw new Error("no output");
}

async function until(what: string, probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!probe()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe("reaper", () => {
  it("kills every registered child when the supervisor is SIGKILLed", async () => {
    const supervisor = fakeSupervisor("hang");
    const pids = await firstLine(supervisor);
    assert.ok(isAlive(pids.service) && isAlive(pids.infra));
    supervisor.kill("SIGKILL");
    await until("both children to be gone", () => !isAlive(pids.service) && !isAlive(pids.infra));
    await until("the reaper to exit", () => !isAlive(pids.reaper));
  });

  it("leaves unregistered processes alone and exits on a normal close", async () => {
    const supervisor = fakeSupervisor("close");
    const pids = await firstLine(supervisor);
    await until("the reaper to exit", () => !isAlive(pids.reaper));
    try {
      assert.ok(isAlive(pids.service) && isAlive(pids.infra), "an unregistered child was killed");
    } finally {
      for (const pid of [pids.service, pids.infra]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  });
});
