// Runs one child process of the stack: spawns it in its own process group with its output appended to a log file,
// restarts it with backoff when it dies (unless it is infrastructure whose death ends the stack), and stops the
// whole group with SIGTERM, then SIGKILL after a timeout.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { backoffDelayMs } from "../../../services/common/src/backoff.ts";
import type { BackoffPolicy } from "../../../services/common/src/backoff.ts";
import type { ProcessKind } from "./state.ts";

/** What one start of the child runs; asked for again before every restart (ports may change). */
export interface LaunchPlan {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly metrics?: string;
  readonly probes?: string;
}

export interface LaunchContext {
  /** Restarts so far (0 on the first start). */
  readonly restarts: number;
  /** Consecutive exits that came soon after a start: a hint that the plan itself is bad (e.g. a port taken). */
  readonly earlyExits: number;
}

export interface RestartPolicy extends BackoffPolicy {
  /** A child that ran this long before dying is restarted after the initial delay again. */
  readonly stableAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 250, maxDelayMs: 10_000, stableAfterMs: 20_000 };

export type SupervisorEvent =
  | { readonly type: "spawned"; readonly name: string; readonly pid: number; readonly restarts: number }
  | {
      readonly type: "exited";
      readonly name: string;
      readonly pid: number;
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly expected: boolean;
      /** Set when the supervisor will start it again. */
      readonly restartInMs: number | undefined;
    }
  | { readonly type: "spawn-failed"; readonly name: string; readonly error: Error };

export interface ManagedProcessOptions {
  readonly service: ProcessKind;
  readonly name: string;
  readonly logPath: string;
  readonly launch: (context: LaunchContext) => Promise<LaunchPlan> | LaunchPlan;
  /** false: an unexpected exit is reported and not restarted. */
  readonly restart: RestartPolicy | false;
  /** Every line the child writes (stdout and stderr); when set, output is piped through this process. */
  readonly onLine?: (line: string) => void;
  readonly onEvent?: (event: SupervisorEvent) => void;
  readonly random?: () => number;
}

export class ManagedProcess {
  readonly service: ProcessKind;
  readonly name: string;
  readonly logPath: string;
  private readonly options: ManagedProcessOptions;
  private child: ChildProcess | undefined;
  private plan: LaunchPlan | undefined;
  private startedAtMs = 0;
  private attempt = 0;
  private earlyExits = 0;
  private restartCount = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private exitWaiters: (() => void)[] = [];
  private spawnWaiters: (() => void)[] = [];

  constructor(options: ManagedProcessOptions) {
    this.options = options;
    this.service = options.service;
    this.name = options.name;
    this.logPath = options.logPath;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  get restarts(): number {
    return this.restartCount;
  }

  get metrics(): string | undefined {
    return this.plan?.metrics;
  }

  get probes(): string | undefined {
    return this.plan?.probes;
  }

  /** Starts the child; resolves once it has a pid. */
  async start(): Promise<void> {
    this.stopping = false;
    await this.spawnOnce();
  }

  private async spawnOnce(): Promise<void> {
    this.restartTimer = undefined;
    if (this.stopping) return;
    const plan = await this.options.launch({ restarts: this.restartCount, earlyExits: this.earlyExits });
    if (this.stopping) return;
    this.plan = plan;
    mkdirSync(dirname(this.logPath), { recursive: true });
    const logFd = openSync(this.logPath, "a");
    const piped = this.options.onLine !== undefined;
    let child: ChildProcess;
    try {
      child = spawn(plan.command, [...plan.args], {
        cwd: plan.cwd,
        env: plan.env ?? process.env,
        // Its own process group: a terminal's Ctrl-C reaches only `stsfleet up`, which stops the children in order,
        // and the group can be killed as a whole.
        detached: true,
        stdio: ["ignore", piped ? "pipe" : logFd, piped ? "pipe" : logFd],
      });
    } catch (error) {
      closeSync(logFd);
      this.options.onEvent?.({ type: "spawn-failed", name: this.name, error: error as Error });
      this.scheduleRestart();
      return;
    }
    if (piped) {
      for (const stream of [child.stdout, child.stderr]) {
        if (!stream) continue;
        const lines = createInterface({ input: stream, crlfDelay: Infinity });
        lines.on("line", (line) => {
          try {
            writeSync(logFd, `${line}\n`);
          } catch {
            // The log file is best effort; the child must not die because a disk is full.
          }
          this.options.onLine?.(line);
        });
      }
      child.once("close", () => closeSync(logFd));
    } else {
      closeSync(logFd);
    }
    await new Promise<void>((resolve) => {
      child.once("spawn", resolve);
      child.once("error", (error) => {
        resolve();
        this.options.onEvent?.({ type: "spawn-failed", name: this.name, error });
      });
    });
    if (child.pid === undefined) {
      this.scheduleRestart();
      return;
    }
    this.child = child;
    this.startedAtMs = performance.now();
    const pid = child.pid;
    child.once("exit", (code, signal) => this.onExit(child, pid, code, signal));
    this.options.onEvent?.({ type: "spawned", name: this.name, pid, restarts: this.restartCount });
    for (const waiter of this.spawnWaiters.splice(0)) waiter();
  }

  private onExit(child: ChildProcess, pid: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    const ranMs = performance.now() - this.startedAtMs;
    const expected = this.stopping;
    let restartInMs: number | undefined;
    if (!expected && this.options.restart !== false) {
      const policy = this.options.restart;
      if (ranMs >= policy.stableAfterMs) this.attempt = 0;
      this.earlyExits = ranMs < 5_000 ? this.earlyExits + 1 : 0;
      restartInMs = backoffDelayMs(policy, this.attempt, this.options.random);
      this.attempt += 1;
    }
    this.options.onEvent?.({ type: "exited", name: this.name, pid, code, signal, expected, restartInMs });
    for (const waiter of this.exitWaiters.splice(0)) waiter();
    if (restartInMs !== undefined) this.scheduleRestart(restartInMs);
  }

  private scheduleRestart(delayMs = 1_000): void {
    if (this.stopping || this.options.restart === false) return;
    this.restartTimer = setTimeout(() => {
      this.restartCount += 1;
      this.spawnOnce().catch((error: unknown) => {
        this.options.onEvent?.({ type: "spawn-failed", name: this.name, error: error as Error });
        this.scheduleRestart(delayMs);
      });
    }, delayMs);
  }

  /** Sends a signal to the child's process group (the supervisor restarts it if it dies). */
  signal(signal: NodeJS.Signals): boolean {
    const pid = this.child?.pid;
    if (pid === undefined) return false;
    return signalGroup(pid, signal);
  }

  /** Resolves when the current child has exited (at once when none runs). */
  exited(): Promise<void> {
    if (!this.child) return Promise.resolve();
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** Resolves when a child is running (at once when one is). */
  spawned(): Promise<void> {
    if (this.child) return Promise.resolve();
    return new Promise((resolve) => this.spawnWaiters.push(resolve));
  }

  /** SIGTERM to the group, SIGKILL after `timeoutMs`; no restart afterwards. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const pid = this.child?.pid;
    if (pid === undefined) return;
    const exited = this.exited();
    signalGroup(pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(pid, "SIGKILL"), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}

/** Signals the process group led by `pid`, or the process alone when it leads none. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}
