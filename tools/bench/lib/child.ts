// The harness's own child processes (the simulator, the baseline, the floor): node through tsx in their own
// process group, output appended to a log file and scanned for the lines the harness waits for, stopped with
// SIGTERM (then SIGKILL) so a --cpu-prof profile gets written. The fleet's processes are startStack()'s.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { signalGroup } from "../../stsfleet/src/supervisor.ts";

const TSX_LOADER = import.meta.resolve("tsx");

export class ChildStartError extends Error {
  override readonly name = "ChildStartError";
  readonly logPath: string;
  constructor(message: string, logPath: string) {
    super(`${message} (log: ${logPath})`);
    this.logPath = logPath;
  }
}

export interface ChildOptions {
  readonly name: string;
  readonly script: string;
  readonly args: readonly string[];
  readonly logPath: string;
  readonly cwd: string;
  /** Extra node flags, e.g. `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  readonly startTimeoutMs?: number;
}

export class Child {
  readonly name: string;
  readonly logPath: string;
  private readonly process: ChildProcess;
  private readonly exited: Promise<void>;
  private readonly listeners: ((line: string) => void)[] = [];
  private exitCode: number | null | undefined;

  private constructor(options: ChildOptions, child: ChildProcess) {
    this.name = options.name;
    this.logPath = options.logPath;
    this.process = child;
    const log = createWriteStream(options.logPath, { flags: "a" });
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
        log.write(`${line}\n`);
        for (const listener of this.listeners) listener(line);
      });
    }
    this.exited = new Promise((resolve) =>
      child.once("exit", (code) => {
        this.exitCode = code;
        log.end();
        resolve();
      }),
    );
  }

  static spawn(options: ChildOptions): Child {
    const env = { ...process.env };
    delete env["NODE_TEST_CONTEXT"];
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), "--import", TSX_LOADER, options.script, ...options.args], {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new Child(options, child);
  }

  get pid(): number | undefined {
    return this.exitCode === undefined ? this.process.pid : undefined;
  }

  /** The first match of `pattern` in the child's output (also when it died first: then it rejects). */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new ChildStartError(`${this.name} printed no ${pattern} within ${timeoutMs} ms`, this.logPath)), timeoutMs);
      const listener = (line: string) => {
        const match = pattern.exec(line);
        if (!match) return;
        clearTimeout(timer);
        this.listeners.splice(this.listeners.indexOf(listener), 1);
        resolve(match);
      };
      this.listeners.push(listener);
      void this.exited.then(() => {
        clearTimeout(timer);
        reject(new ChildStartError(`${this.name} exited (code ${this.exitCode}) before printing ${pattern}`, this.logPath));
      });
    });
  }

  async stop(timeoutMs = 10_000): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    signalGroup(pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(pid, "SIGKILL"), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Last resort (process exit hook): no waiting. */
  kill(): void {
    const pid = this.pid;
    if (pid !== undefined) signalGroup(pid, "SIGKILL");
  }
}
