// Starts a real nats-server (Debian's 2.9.10 here) on a random loopback port with JetStream in its own store
// dir, the way nats.js's own test launcher does: `port: -1`, a ports file, then poll for it. Used by tests,
// benchmarks and `stsfleet up`. Every server started here is killed when this process exits.

import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freeLoopbackPorts } from "../stsfleet/src/ports.ts";
import { MAX_PAYLOAD_BYTES } from "#protocol";

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
  /** TLS on the client port (the monitoring port stays plain HTTP on loopback). */
  readonly tls?: NatsServerTls;
  /** Extra environment for the server, e.g. passwords that `$VARIABLE` references in the config resolve to. */
  readonly env?: Readonly<Record<string, string>>;
  /** The server's log goes to this file (appended across restarts) instead of the launcher's pipe. */
  readonly logFile?: string;
  /** Debug logging (Raft elections, route and JetStream cluster events); only useful with `logFile`. */
  readonly debug?: boolean;
}

export interface NatsServerTls {
  readonly certFile: string;
  readonly keyFile: string;
  /** The CA that signed client certificates; with `verify` every client must present one. */
  readonly caFile?: string;
  readonly verify?: boolean;
  /** TLS handshake timeout (default 2 s, the server's own default is 0.5 s which a loaded machine can miss). */
  readonly timeoutMs?: number;
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
    // Objects above nats-server's default 1 MiB are valid in Kubernetes (protocol/src/limits.ts).
    `max_payload: ${MAX_PAYLOAD_BYTES}`,
  ];
  if (options.pingIntervalMs !== undefined) {
    lines.push(`ping_interval: ${quote(`${Math.max(1, Math.round(options.pingIntervalMs / 1000))}s`)}`);
    lines.push("ping_max: 2");
  }
  if (options.logFile !== undefined) {
    lines.push(`log_file: ${quote(options.logFile)}`, "logtime: true");
  }
  if (options.debug) lines.push("debug: true");
  if (options.jetstream ?? true) lines.push(`jetstream { store_dir: ${quote(storeDir)} }`);
  if (options.tls) lines.push(renderTls(options.tls));
  const mappings = Object.entries(options.mappings ?? {});
  if (mappings.length > 0) {
    lines.push("mappings = {");
    for (const [from, to] of mappings) lines.push(`  ${quote(from)}: ${quote(to)}`);
    lines.push("}");
  }
  if (options.extraConfig) lines.push(options.extraConfig);
  return `${lines.join("\n")}\n`;
}

function renderTls(tls: NatsServerTls): string {
  const fields = [
    `cert_file: ${quote(tls.certFile)}`,
    `key_file: ${quote(tls.keyFile)}`,
    ...(tls.caFile !== undefined ? [`ca_file: ${quote(tls.caFile)}`] : []),
    ...(tls.verify !== undefined ? [`verify: ${tls.verify}`] : []),
    `timeout: ${Math.max(0.1, (tls.timeoutMs ?? 2_000) / 1000)}`,
  ];
  return `tls {\n${fields.map((field) => `  ${field}`).join("\n")}\n}`;
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

  const child = spawn(executable, ["-c", configPath], {
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
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
    if (options.storeDir !== undefined) {
      // The store lives elsewhere: the work dir only holds the config and the ports file.
      rmSync(workDir, { recursive: true, force: true });
    } else if (keepStore) {
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

// --- a JetStream cluster on loopback (chaos tests: lose any node, streams and buckets with 3 replicas) ---------

export interface NatsClusterOptions {
  /** Nodes (default 3, the smallest cluster that survives the loss of one). */
  readonly nodes?: number;
  readonly executable?: string;
  /** Server-side ping interval on every node (see NatsServerOptions). */
  readonly pingIntervalMs?: number;
  /** Raw config appended to every node's config. */
  readonly extraConfig?: string;
  /** How long to wait for a JetStream meta leader after start (default 30 s). */
  readonly readyTimeoutMs?: number;
  /** Each node logs to `<logDir>/<name>.log` (kept across the node's restarts); default no logs. */
  readonly logDir?: string;
  /** Debug logging on every node (Raft elections, routes); see NatsServerOptions.debug. */
  readonly debug?: boolean;
}

export interface NatsClusterNode {
  /** Also the node's server tag (`server_tags`), for stream placement by tag. */
  readonly name: string;
  readonly port: number;
  readonly clusterPort: number;
  readonly url: string;
  readonly storeDir: string;
  /** Where the node logs (with NatsClusterOptions.logDir). */
  readonly logFile: string | undefined;
  /** The running process, undefined while the node is stopped. */
  readonly server: RunningNatsServer | undefined;
}

export interface RunningNatsCluster {
  /** Every node's client URL, comma-separated (what the services take as `--nats-url`). */
  readonly url: string;
  readonly nodes: readonly NatsClusterNode[];
  /** Stops node `index` (SIGKILL by default, else SIGTERM and wait), keeping its JetStream store. */
  stopNode(index: number, options?: { signal?: "SIGKILL" | "SIGTERM" }): Promise<void>;
  /** Starts a stopped node again on the same ports with the same store. */
  startNode(index: number): Promise<void>;
  /** Resolves when the nodes that run agree on a JetStream meta leader. */
  waitForMetaLeader(timeoutMs?: number): Promise<string>;
  /** Stops every node and removes the stores. */
  stop(): Promise<void>;
}

interface JszMeta {
  meta_cluster?: { leader?: string; cluster_size?: number };
}

export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<RunningNatsCluster> {
  const count = options.nodes ?? 3;
  if (!Number.isInteger(count) || count < 1) throw new Error(`a cluster needs at least one node, got ${count}`);
  const ports = await freeLoopbackPorts(count * 2);
  const root = mkdtempSync(join(tmpdir(), "stsfleet-nats-cluster-"));
  if (options.logDir !== undefined) mkdirSync(options.logDir, { recursive: true });
  const clusterName = `stsfleet-${process.pid}-${Date.now().toString(36)}`;
  const specs = Array.from({ length: count }, (_, i) => {
    const port = ports[i * 2] ?? 0;
    const clusterPort = ports[i * 2 + 1] ?? 0;
    const name = `n${i}`;
    const logFile = options.logDir !== undefined ? join(options.logDir, `${name}.log`) : undefined;
    return { name, port, clusterPort, url: `nats://127.0.0.1:${port}`, storeDir: join(root, name, "jetstream"), logFile };
  });
  const routes = specs.map((s) => quote(`nats-route://127.0.0.1:${s.clusterPort}`)).join(", ");
  const servers: (RunningNatsServer | undefined)[] = specs.map(() => undefined);

  const startNode = async (index: number) => {
    const spec = specs[index];
    if (!spec) throw new RangeError(`no node ${index}`);
    if (servers[index]) return;
    servers[index] = await startNatsServer({
      ...(options.executable !== undefined ? { executable: options.executable } : {}),
      ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}),
      serverName: spec.name,
      port: spec.port,
      ...(spec.logFile !== undefined ? { logFile: spec.logFile } : {}),
      ...(options.debug ? { debug: true } : {}),
      storeDir: spec.storeDir,
      extraConfig: [
        `cluster { name: ${quote(clusterName)}, listen: ${quote(`127.0.0.1:${spec.clusterPort}`)}, routes: [${routes}] }`,
        // Its name as its tag: a stream placed with `placement.tags: [name]` lives on this node (ADR 0084).
        `server_tags: [${quote(spec.name)}]`,
        options.extraConfig ?? "",
      ].join("\n"),
    });
  };
  const stopNode = async (index: number, { signal = "SIGKILL" }: { signal?: "SIGKILL" | "SIGTERM" } = {}) => {
    const server = servers[index];
    if (!server) return;
    servers[index] = undefined;
    if (signal === "SIGKILL") {
      server.kill("SIGKILL");
      await server.exited;
    }
    await server.stop({ keepStore: true });
  };
  const waitForMetaLeader = async (timeoutMs = options.readyTimeoutMs ?? 30_000) => {
    const deadline = Date.now() + timeoutMs;
    let last = "no answer";
    while (Date.now() < deadline) {
      const leaders = await Promise.all(
        servers.map(async (server) => {
          if (!server) return undefined;
          try {
            const response = await fetch(`${server.monitorUrl}/jsz`, { signal: AbortSignal.timeout(1_000) });
            return ((await response.json()) as JszMeta).meta_cluster?.leader ?? "";
          } catch (error) {
            last = String(error);
            return "";
          }
        }),
      );
      const running = leaders.filter((l): l is string => l !== undefined);
      if (running.length > 0 && running.every((l) => l !== "" && l === running[0])) return running[0] ?? "";
      last = JSON.stringify(leaders);
      await sleep(100);
    }
    throw new NatsServerStartError(`no JetStream meta leader within ${timeoutMs} ms (last: ${last})`, options.executable ?? "nats-server", "");
  };

  try {
    await Promise.all(specs.map((_, i) => startNode(i)));
    await waitForMetaLeader();
  } catch (error) {
    await Promise.all(specs.map((_, i) => stopNode(i)));
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  return {
    url: specs.map((s) => s.url).join(","),
    get nodes() {
      return specs.map((spec, i) => ({ ...spec, server: servers[i] }));
    },
    stopNode,
    startNode,
    waitForMetaLeader,
    async stop() {
      await Promise.all(specs.map((_, i) => stopNode(i, { signal: "SIGTERM" })));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

// --- reading the nodes' logs (logtime on, the server's local time, which is UTC on the machines tests run on) ---

export interface NatsLeaderEvent {
  /** The node that logged it (the new leader logs its own election). */
  readonly node: string;
  readonly atMs: number;
  readonly kind: "meta" | "stream" | "consumer";
  /** `_meta_`, the stream name, or `stream > consumer`. */
  readonly group: string;
}

const LOG_LINE = /^\[\d+\] (\d{4})\/(\d\d)\/(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+) \[(\w+)\] (.*)$/;
const NEW_LEADER = /^JetStream cluster new (stream|consumer) leader for '[^']*? > (.+)'$/;

/** Epoch ms of a log line's timestamp (microseconds dropped), undefined for a line without one. */
export function natsLogTimeMs(line: string): number | undefined {
  const m = LOG_LINE.exec(line);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = Number((frac ?? "0").padEnd(3, "0").slice(0, 3));
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
}

/** The leader changes a node logged: its own stream and consumer elections, and meta leadership it took. */
export function natsLeaderEvents(node: string, log: string): NatsLeaderEvent[] {
  const events: NatsLeaderEvent[] = [];
  for (const line of log.split("\n")) {
    const m = LOG_LINE.exec(line);
    const atMs = natsLogTimeMs(line);
    const message = m?.[9];
    if (message === undefined || atMs === undefined) continue;
    const leader = NEW_LEADER.exec(message);
    if (leader?.[1] === "stream" || leader?.[1] === "consumer") events.push({ node, atMs, kind: leader[1], group: leader[2] ?? "" });
    else if (message.startsWith("Self is new JetStream cluster metadata leader")) events.push({ node, atMs, kind: "meta", group: "_meta_" });
  }
  return events;
}

/** Cluster events worth reading after a failure: everything but debug lines, plus Raft elections and step-downs. */
export function isNatsClusterEvent(line: string): boolean {
  const level = LOG_LINE.exec(line)?.[8];
  if (level === undefined) return line.trim() !== "";
  if (level !== "DBG") return true;
  return /RAFT \[.*\] (Switching to|Stepping down)|Stepping down all leader/.test(line);
}
