// `stsfleet down`: stops a stack from its stack.json. The normal path asks the supervising `stsfleet up` to stop
// (SIGTERM), which stops the children in order; when the supervisor is gone, the children are stopped directly,
// services before infrastructure.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive, readStackFile, stackFilePath, StackFileError } from "./state.ts";
import type { ProcessEntry } from "./state.ts";
import { signalGroup } from "./supervisor.ts";

async function waitGone(pids: readonly number[], timeoutMs: number): Promise<number[]> {
  const deadline = performance.now() + timeoutMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && performance.now() < deadline) {
    await sleep(100);
    alive = alive.filter(isAlive);
  }
  return alive;
}

async function stopTier(entries: readonly ProcessEntry[], timeoutMs: number): Promise<void> {
  const pids = entries.map((entry) => entry.pid).filter(isAlive);
  for (const pid of pids) signalGroup(pid, "SIGTERM");
  const left = await waitGone(pids, timeoutMs);
  for (const pid of left) signalGroup(pid, "SIGKILL");
  await waitGone(left, 2_000);
}

/** Returns the exit code: 0 when nothing of the stack is left running. */
export async function stopStackFromFile(
  stateDir: string,
  print: (line: string) => void,
  options: { timeoutMs?: number } = {},
): Promise<number> {
  let stack;
  try {
    stack = readStackFile(stateDir);
  } catch (error) {
    if (error instanceof StackFileError) {
      print(`stsfleet down: ${error.message}`);
      return 1;
    }
    throw error;
  }
  if (!stack) {
    print(`stsfleet down: no stack in ${stateDir} (no stack.json)`);
    return 0;
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  const supervisor = stack.supervisor?.pid;
  if (supervisor !== undefined && isAlive(supervisor)) {
    print(`stsfleet down: stopping the stack supervised by pid ${supervisor}`);
    process.kill(supervisor, "SIGTERM");
    await waitGone([supervisor], timeoutMs);
  }
  const services = stack.processes.filter((p) => p.service !== "nats" && p.service !== "kube-sim");
  const infrastructure = stack.processes.filter((p) => p.service === "nats" || p.service === "kube-sim");
  const leftovers = [...services, ...infrastructure].filter((p) => isAlive(p.pid));
  if (leftovers.length > 0) {
    print(`stsfleet down: stopping ${leftovers.map((p) => `${p.name} (pid ${p.pid})`).join(", ")}`);
    await stopTier(services, 10_000);
    await stopTier(infrastructure, 5_000);
  }
  const still = [...stack.processes.map((p) => p.pid), ...(supervisor !== undefined ? [supervisor] : [])].filter(isAlive);
  if (still.length > 0) {
    print(`stsfleet down: still running: ${still.join(", ")}`);
    return 1;
  }
  rmSync(stackFilePath(stateDir), { force: true });
  rmSync(join(stateDir, "up.pid"), { force: true });
  print("stsfleet down: stopped");
  return 0;
}
