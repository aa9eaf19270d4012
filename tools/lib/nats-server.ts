// Starts a real nats-server (Debian's 2.9.10 here) on a random loopback port with JetStream in its own store
// dir, the way nats.js's own test launcher does: `port: -1`, a ports file, then poll for it. Used by tests,
// benchmarks and `stsfleet up`. Every server started here is killed when this process exits.

import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface NatsServerOptions {
  /** Executable to run; default `nats-server` from the PATH. */
  readonly executable?: string;
  /** Enable JetStream with a store dir (default true). */
  readonly jetstream?: boolean;
  /** Reuse a store dir (for restart tests); default a fresh temp dir removed on stop. */
  readonly storeDir?: string;
  /** Fixed client port (for restart tests); default -1 (any free port). */
  readonly port?: number;
  /** Subject mappings, e.g. `{ "a.*.*": "a.{{partition(256,1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}" }`. */
  readonly mappings?: Readonly<Record<string, string>>;
  /** Raw config appended verbatim (nats-server config syntax). */
  readonly extraConfig?: string;
  /** Server-side ping interval; a half-open client connection is dropped after 2 missed pings. */
  readonly pingIntervalMs?: number;
  readonly startTimeoutMs?: number;
  readonly serverName?: string;
}

export interface RunningNatsServer {
  readonly url: string;
  readonly port: number;
  readonly monitorUrl: string;
  readonly storeDir: string;
  readonly configPath: string;
  readonly pid: number;
  readonly process: ChildProcess;
  /** Graceful stop (SIGTERM, then SIGKILL after `timeoutMs`), then removes temp dirs this launcher created. */
  stop(options?: { timeoutMs?: number; keepStore?: boolean }): Promise<void>;
  /** Sends a signal without cleaning up (chaos tests). */
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the process has exited. */
  readonly exited: Promise<number | null>;
}

export class NatsServerStartError extends Error {
  override readonly name = "NatsServerStartError";
  readonly executable: string;
  readonly output: string;

  constructor(message: string, executable: string, output: string, options?: ErrorOptions) {
    super(message, options);
    this.executable = executable;
    this.output = output;
  }
}

export const NATS_INSTALL_HINT =
  "nats-server was not found on the PATH. Install it with `sudo apt-get update && sudo apt-get install -y nats-server` " +
  "(Debian/Ubuntu), or pass the URL of an existing server.";

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of running) child.kill("SIGKILL");
  });
}

function quote(value: string): string {
  return JSON.stringify(value);
}

function renderConfig(options: NatsServerOptions, portsDir: string, storeDir: string): string {
  const lines = [
    `server_name: ${quote(options.serverName ?? `stsfleet-${process.pid}-${Date.now().toString(36)}`)}`,
    `listen: ${quote(`127.0.0.1:${options.port ?? -1}`)}`,
    `http: ${quote("127.0.0.1:-1")}`,
    `ports_file_dir: ${quote(portsDir)}`,
  ];
  if (options.pingIntervalMs !== undefined) {
    lines.push(`ping_interval: ${quote(`${Math.max(1, Math.round(options.pingIntervalMs / 1000))}s`)}`);
    lines.push("ping_max: 2");
  }
  if (options.jetstream ?? true) lines.push(`jetstream { store_dir: ${quote(storeDir)} }`);
  const mappings = Object.entries(options.mappings ?? {});
  if (mappings.length > 0) {
    lines.push("mappings = {");
    for (const [from, to] of mappings) lines.push(`  ${quote(from)}: ${quote(to)}`);
    lines.push("}");
  }
  if (options.extraConfig) lines.push(options.extraConfig);
  return `${lines.join("\n")}\n`;
}

interface PortsFile {
  nats?: string[];
  monitoring?: string[];
}

function readPortsFile(portsDir: string, executable: string, pid: number): PortsFile | undefined {
  const expected = `${basename(executable)}_${pid}.ports`;
  const file = readdirSync(portsDir).find((name) => name === expected);
  if (!file) return undefined;
  try {
    return JSON.parse(readFileSync(join(portsDir, file), "utf8")) as PortsFile;
  } catch {
    return undefined; // written but not complete yet
  }
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<RunningNatsServer> {
  installExitHook();
  const executable = options.executable ?? "nats-server";
  const workDir = mkdtempSync(join(tmpdir(), "stsfleet-nats-"));
  const storeDir = options.storeDir ?? join(workDir, "jetstream");
  const configPath = join(workDir, "nats.conf");
  writeFileSync(configPath, renderConfig(options, workDir, storeDir));

  const child = spawn(executable, ["-c", configPath], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-8000);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  running.add(child);

  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  let spawnError: Error | undefined;
  child.once("error", (error) => {
    spawnError = error;
    running.delete(child);
  });

  const cleanup = (keepStore: boolean) => {
    if (keepStore || options.storeDir !== undefined) {
      rmSync(configPath, { force: true });
    } else {
      rmSync(workDir, { recursive: true, force: true });
    }
  };

  const timeoutMs = options.startTimeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  let ports: PortsFile | undefined;
  while (Date.now() < deadline) {
    if (spawnError) {
      cleanup(false);
      const missing = (spawnError as NodeJS.ErrnoException).code === "ENOENT";
      throw new NatsServerStartError(missing ? NATS_INSTALL_HINT : spawnError.message, executable, output, {
        cause: spawnError,
      });
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanup(false);
      throw new NatsServerStartError(`nats-server exited during start (code ${child.exitCode})`, executable, output);
    }
    if (child.pid !== undefined) ports = readPortsFile(workDir, executable, child.pid);
    if (ports?.nats?.[0] && ports.monitoring?.[0]) break;
    await sleep(20);
  }
  const url = ports?.nats?.[0];
  const monitorUrl = ports?.monitoring?.[0];
  if (!url || !monitorUrl || child.pid === undefined) {
    child.kill("SIGKILL");
    cleanup(false);
    throw new NatsServerStartError(`nats-server did not write its ports file within ${timeoutMs} ms`, executable, output);
  }

  let stopped = false;
  return {
    url,
    port: Number(new URL(url).port),
    monitorUrl,
    storeDir,
    configPath,
    pid: child.pid,
    process: child,
    exited,
    kill(signal) {
      child.kill(signal);
    },
    async stop({ timeoutMs: stopTimeoutMs = 5_000, keepStore = false } = {}) {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        // A stopped (SIGSTOP) server ignores SIGTERM until continued.
        child.kill("SIGCONT");
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), stopTimeoutMs);
        await exited;
        clearTimeout(timer);
      }
      cleanup(keepStore);
    },
  };
}
