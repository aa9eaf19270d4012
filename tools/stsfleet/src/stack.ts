// startStack(): the whole local stack (nats-server, the Kubernetes simulator, watcher, actors, pvc-provisioner,
// status-writer) as supervised child processes, with stack.json kept current. `stsfleet up` and the end-to-end
// test harness (test/support/stack.ts) both run exactly this.
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import { NATS_INSTALL_HINT, NatsServerStartError, startNatsServer } from "../../lib/nats-server.ts";
import type { NatsServerOptions, RunningNatsServer } from "../../lib/nats-server.ts";
import { freeLoopbackPorts } from "./ports.ts";
import { OPENSSL_INSTALL_HINT, SecureSetupError, prepareSecureNats, serviceNatsEnv } from "./secure.ts";
import type { SecureNats } from "./secure.ts";
import { waitForReady } from "./readiness.ts";
import { startReaper } from "./reaper.ts";
import { onPath } from "./which.ts";
import type { Reaper } from "./reaper.ts";
import { isAlive, SERVICE_KINDS, stackFilePath, writeStackFile } from "./state.ts";
import type { ProcessEntry, ServiceKind, StackFile } from "./state.ts";
import { DEFAULT_RESTART_POLICY, ManagedProcess } from "./supervisor.ts";
import type { LaunchPlan, RestartPolicy, SupervisorEvent } from "./supervisor.ts";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const TSX_LOADER = import.meta.resolve("tsx");
const KUBE_SIM_CLI = join(REPO_ROOT, "tools/kube-sim/src/cli.ts");

export function serviceEntryPoint(service: ServiceKind): string {
  return join(REPO_ROOT, "services", service, "src/main.ts");
}

/**
 * The local nats-server pings every client this often and closes a connection after two unanswered pings, so a
 * half-open connection (a peer whose host vanished, a frozen process) is dropped within 3 intervals: its probe
 * subscription disappears and peers see "no responders" (ADR 0071, W2/W3; ADR 0075).
 */
export const LOCAL_NATS_PING_INTERVAL_MS = 2_000;

/** The options `startStack` starts nats-server with (before TLS and users, with `secure`). */
export function localNatsOptions(options: NatsServerOptions): NatsServerOptions {
  return { pingIntervalMs: LOCAL_NATS_PING_INTERVAL_MS, ...options };
}

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

export interface StackOptions {
  /** Where kubeconfig, stack.json, audit.log and logs/ go; created if missing. */
  readonly stateDir: string;
  /** Actor replicas, each its own process named actor-0..N-1 (default 1). */
  readonly actors?: number;
  /** Use this NATS instead of starting nats-server. */
  readonly natsUrl?: string;
  /**
   * Start nats-server with the shipped per-service users and permissions, random passwords and mutual TLS from a
   * throwaway CA in `<stateDir>/secure/` (ADR 0064). Not with `natsUrl`.
   */
  readonly secure?: boolean;
  /** The started nats-server's ping interval (default LOCAL_NATS_PING_INTERVAL_MS); not with `natsUrl`. */
  readonly natsPingIntervalMs?: number;
  /** Use this cluster instead of starting the simulator. */
  readonly kubeconfig?: string;
  /** Extra simulator flags (kubelet timings, faults). */
  readonly kubeSimArgs?: readonly string[];
  /** Extra flags per service, after the stack's own (the last occurrence of a flag wins). */
  readonly serviceArgs?: Partial<Record<ServiceKind, readonly string[]>>;
  /** Extra environment for every service process (e.g. `OTEL_EXPORTER_OTLP_ENDPOINT`), over the inherited one. */
  readonly serviceEnv?: Readonly<Record<string, string>>;
  readonly logLevel?: LogLevel;
  /** Every line any child writes, e.g. to show logs on a terminal. Logs always go to `<stateDir>/logs/`. */
  readonly onLog?: (name: string, line: string) => void;
  readonly onEvent?: (event: StackEvent) => void;
  /** How long to wait for every /readyz (default 90 s: a cold tsx cache on 2 cores is slow). */
  readonly readyTimeoutMs?: number;
  readonly restart?: RestartPolicy;
  /** How long a child may take to stop after SIGTERM before it gets SIGKILL. */
  readonly stopTimeoutMs?: number;
  /** Aborting during startup stops what has started and rejects with the abort reason. */
  readonly signal?: AbortSignal;
}

export type StackEvent =
  | { readonly type: "step"; readonly message: string }
  | { readonly type: "process"; readonly event: SupervisorEvent }
  | { readonly type: "waiting"; readonly pending: ReadonlyMap<string, string>; readonly elapsedMs: number }
  | { readonly type: "ready"; readonly elapsedMs: number }
  | { readonly type: "failed"; readonly error: Error };

export class StackStartError extends Error {
  override readonly name = "StackStartError";
  /** A hint for the user (how to install nats-server, how to stop the running stack). */
  readonly hint: string | undefined;

  constructor(message: string, options?: ErrorOptions & { hint?: string }) {
    super(message, options);
    this.hint = options?.hint;
  }
}

export interface Stack {
  readonly stateDir: string;
  readonly apiServer: string;
  readonly natsUrl: string;
  /** `<stateDir>/kubeconfig` (a symlink to `--kubeconfig` when a real cluster is used). */
  readonly kubeconfigPath: string;
  /** `<stateDir>/audit.log`, when the simulator runs. */
  readonly auditLogPath: string | undefined;
  readonly stackFile: string;
  /** The supervised service processes by name (watcher, actor-0, ..., pvc-provisioner, status-writer). */
  readonly services: ReadonlyMap<string, ManagedProcess>;
  /** The managed nats-server, when the stack started one. */
  readonly nats: RunningNatsServer | undefined;
  /** Users, passwords and TLS files, with `secure`. */
  readonly natsSecurity: SecureNats | undefined;
  snapshot(): StackFile;
  /** The service process with this name; throws for an unknown name. */
  service(name: string): ManagedProcess;
  /** Resolves when the named services (default: all) answer /readyz with 200. */
  waitReady(names?: readonly string[], timeoutMs?: number): Promise<void>;
  /** Resolves with the error when infrastructure (the simulator) died and the stack cannot go on. */
  readonly failed: Promise<Error>;
  /** Stops services first (SIGTERM, then SIGKILL after the stop timeout), then the simulator and NATS. */
  stop(): Promise<void>;
}

function childEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  // A child must not think it runs inside node:test (the runner passes this to its subprocesses).
  delete env["NODE_TEST_CONTEXT"];
  return env;
}

function nodeCommand(
  script: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Pick<LaunchPlan, "command" | "args" | "env" | "cwd"> {
  return { command: process.execPath, args: ["--import", TSX_LOADER, script, ...args], env: childEnv(env), cwd: REPO_ROOT };
}

/** Lock file: at most one supervisor per state dir. */
function acquireLock(stateDir: string): () => void {
  const path = join(stateDir, "up.pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new StackStartError(`a stack is already running in ${stateDir} (pid ${holder})`, {
          hint: `stop it with \`stsfleet down --state-dir ${stateDir}\` (or Ctrl-C in its terminal)`,
        });
      }
      rmSync(path, { force: true });
    }
  }
  throw new StackStartError(`cannot lock ${path}`);
}

/**
 * The executable to hand to the shared nats-server launcher. It starts the server in our own process group, where a
 * terminal's Ctrl-C would stop NATS at the same moment as `up`, before the services have drained (ADR 0051). When
 * `setsid` exists, a two-line wrapper named `nats-server` (the launcher finds the ports file by that name and the
 * pid, which `exec` keeps) moves the server into its own session.
 */
function natsExecutable(stateDir: string): string {
  const real = onPath("nats-server");
  if (real === undefined) throw new StackStartError("nats-server is not installed", { hint: NATS_INSTALL_HINT });
  const setsid = onPath("setsid");
  if (setsid === undefined) return real;
  const wrapper = join(stateDir, "bin", "nats-server");
  mkdirSync(dirname(wrapper), { recursive: true });
  writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(setsid)} ${JSON.stringify(real)} "$@"\n`, { mode: 0o755 });
  return wrapper;
}

function serverOf(kubeconfigPath: string): string {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new StackStartError(`${kubeconfigPath} has no current cluster`);
  return cluster.server;
}

function tail(path: string, lines = 15): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const stateDir = resolve(options.stateDir);
  const actors = options.actors ?? 1;
  if (!Number.isInteger(actors) || actors < 1 || actors > 64) {
    throw new StackStartError(`--actors must be an integer between 1 and 64, got ${actors}`);
  }
  const emit = (event: StackEvent) => options.onEvent?.(event);
  const step = (message: string) => emit({ type: "step", message });
  const restartPolicy = options.restart ?? DEFAULT_RESTART_POLICY;
  if (options.secure && options.natsUrl !== undefined) {
    throw new StackStartError("--secure starts its own nats-server with users and TLS; it cannot be combined with --nats-url");
  }
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;

  mkdirSync(stateDir, { recursive: true });
  const releaseLock = acquireLock(stateDir);
  const logsDir = join(stateDir, "logs");
  const kubeconfigPath = join(stateDir, "kubeconfig");
  const auditLogPath = options.kubeconfig === undefined ? join(stateDir, "audit.log") : undefined;
  const natsStore = join(stateDir, "nats");
  // A stack starts fresh: the simulator keeps its objects in memory, so old NATS state or logs would only mislead.
  for (const stale of [logsDir, natsStore, stackFilePath(stateDir), join(stateDir, "audit.log"), join(stateDir, "secure")]) {
    rmSync(stale, { recursive: true, force: true });
  }
  mkdirSync(logsDir, { recursive: true });

  const reaper: Reaper = startReaper();
  let stopped = false;
  let nats: RunningNatsServer | undefined;
  let natsSecurity: SecureNats | undefined;
  let kubeSim: ManagedProcess | undefined;
  const services = new Map<string, ManagedProcess>();
  let stackFile: StackFile | undefined;
  let resolveFailed: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolvePromise) => (resolveFailed = resolvePromise));

  const exitHook = () => {
    // Last resort when the owning process exits without stop(): the reaper also covers SIGKILL.
    for (const child of [...services.values(), kubeSim]) if (child?.pid !== undefined) child.signal("SIGKILL");
    nats?.kill("SIGKILL");
  };
  process.on("exit", exitHook);

  const entries = (): ProcessEntry[] => {
    const list: ProcessEntry[] = [];
    if (nats) list.push({ service: "nats", name: "nats", pid: nats.pid, log: join(logsDir, "nats.log") });
    if (kubeSim?.pid !== undefined) {
      list.push({ service: "kube-sim", name: "kube-sim", pid: kubeSim.pid, log: kubeSim.logPath });
    }
    for (const child of services.values()) {
      const pid = child.pid ?? lastPids.get(child.name);
      if (pid === undefined) continue;
      list.push({
        service: child.service,
        name: child.name,
        pid,
        ...(child.metrics !== undefined ? { metrics: child.metrics } : {}),
        ...(child.probes !== undefined ? { probes: child.probes } : {}),
        restarts: child.restarts,
        log: child.logPath,
      });
    }
    return list;
  };
  const lastPids = new Map<string, number>();
  const persist = () => {
    if (!stackFile || stopped) return;
    stackFile = { ...stackFile, processes: entries() };
    writeStackFile(stateDir, stackFile);
  };

  const onProcessEvent = (event: SupervisorEvent) => {
    if (event.type === "spawned") {
      lastPids.set(event.name, event.pid);
      reaper.register(event.pid, event.name === "kube-sim" ? "i" : "s");
    } else if (event.type === "exited") {
      reaper.unregister(event.pid);
    }
    emit({ type: "process", event });
    persist();
  };

  const stopAll = async () => {
    const all = [...services.values()];
    await Promise.all(all.map((child) => child.stop(stopTimeoutMs)));
    await Promise.all([kubeSim?.stop(stopTimeoutMs), nats?.stop({ timeoutMs: stopTimeoutMs })]);
    if (nats) reaper.unregister(nats.pid);
    rmSync(natsStore, { recursive: true, force: true });
    // Keys and passwords of a stopped stack are of no use to anyone.
    rmSync(join(stateDir, "secure"), { recursive: true, force: true });
  };

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopAll();
    reaper.close();
    process.off("exit", exitHook);
    rmSync(stackFilePath(stateDir), { force: true });
    releaseLock();
  };

  const aborted = new Promise<never>((_, reject) => {
    const signal = options.signal;
    if (!signal) return;
    const onAbort = () => reject(new StackStartError("startup interrupted", { cause: signal.reason }));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  /** Waits for `promise` unless startup is interrupted or the simulator dies first. */
  const guard = <T>(promise: Promise<T>, what: string): Promise<T> =>
    Promise.race([
      promise,
      aborted,
      failed.then((error) =>
        Promise.reject(new StackStartError(`${error.message} while ${what}:\n${kubeSim ? tail(kubeSim.logPath) : ""}`)),
      ),
    ]);

  const inFlight: Promise<unknown>[] = [];
  const startup = new AbortController();
  try {
    // --- infrastructure -----------------------------------------------------------------------------------
    // nats-server is restarted on the same port and store, so JetStream state survives and clients reconnect.
    const watchNats = (server: RunningNatsServer, natsOptions: NatsServerOptions) => {
      void server.exited.then(async (code) => {
        if (stopped || nats !== server) return;
        reaper.unregister(server.pid);
        emit({ type: "process", event: { type: "exited", name: "nats", pid: server.pid, code, signal: null, expected: false, restartInMs: 500 } });
        for (let attempt = 0; !stopped; attempt++) {
          await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 5_000)));
          if (stopped) return;
          try {
            const next = await startNatsServer({ ...natsOptions, port: server.port });
            nats = next;
            reaper.register(next.pid, "i");
            watchNats(next, natsOptions);
            emit({ type: "process", event: { type: "spawned", name: "nats", pid: next.pid, restarts: attempt + 1 } });
            persist();
            return;
          } catch (error) {
            step(`nats-server did not restart: ${(error as Error).message}`);
          }
        }
      });
    };

    const natsPromise = (async (): Promise<string> => {
      if (options.natsUrl !== undefined) return options.natsUrl;
      step("starting nats-server");
      mkdirSync(natsStore, { recursive: true });
      const executable = natsExecutable(stateDir);
      const logFile = `log_file: ${JSON.stringify(join(logsDir, "nats.log"))}`;
      let natsOptions: NatsServerOptions = localNatsOptions({
        executable,
        storeDir: join(natsStore, "jetstream"),
        extraConfig: logFile,
        ...(options.natsPingIntervalMs !== undefined ? { pingIntervalMs: options.natsPingIntervalMs } : {}),
      });
      if (options.secure) {
        const openssl = onPath("openssl");
        if (openssl === undefined) throw new StackStartError("openssl is not installed", { hint: OPENSSL_INSTALL_HINT });
        step("making a throwaway CA, certificates and passwords for NATS");
        try {
          natsSecurity = await prepareSecureNats(stateDir, { openssl });
        } catch (error) {
          if (error instanceof SecureSetupError) throw new StackStartError(error.message, { cause: error });
          throw error;
        }
        natsOptions = {
          ...natsOptions,
          tls: { ...natsSecurity.server, caFile: natsSecurity.caFile, verify: true },
          env: natsSecurity.serverEnv,
          extraConfig: `${logFile}\n${natsSecurity.authorization}`,
        };
      }
      try {
        nats = await startNatsServer(natsOptions);
      } catch (error) {
        if (error instanceof NatsServerStartError && error.message === NATS_INSTALL_HINT) {
          throw new StackStartError("nats-server is not installed", { cause: error, hint: NATS_INSTALL_HINT });
        }
        // Say what the server wrote before it exited: config errors go to its output, the rest to its log file.
        if (error instanceof NatsServerStartError) {
          const said = [error.output.trim(), tail(join(logsDir, "nats.log"), 5)].filter((text) => text !== "").join("\n");
          if (said !== "") throw new StackStartError(`${error.message}:\n${said}`, { cause: error });
        }
        throw error;
      }
      reaper.register(nats.pid, "i");
      watchNats(nats, natsOptions);
      step(`nats-server listening on ${nats.url}${natsSecurity ? ` (TLS with client certificates, one user per service; ${natsSecurity.dir})` : ""}`);
      return nats.url;
    })();

    const kubePromise = (async (): Promise<string> => {
      if (options.kubeconfig !== undefined) {
        const external = resolve(options.kubeconfig);
        if (!existsSync(external)) throw new StackStartError(`--kubeconfig ${external} does not exist`);
        if (existsSync(kubeconfigPath) || isSymlink(kubeconfigPath)) unlinkSync(kubeconfigPath);
        symlinkSync(external, kubeconfigPath);
        const server = serverOf(external);
        step(`using the cluster at ${server} (${external})`);
        return server;
      }
      step("starting the Kubernetes simulator");
      rmSync(kubeconfigPath, { force: true });
      let onUrl: (url: string) => void = () => undefined;
      const urlPromise = new Promise<string>((resolveUrl) => (onUrl = resolveUrl));
      const sim = new ManagedProcess({
        service: "kube-sim",
        name: "kube-sim",
        logPath: join(logsDir, "kube-sim.log"),
        restart: false,
        launch: () =>
          nodeCommand(KUBE_SIM_CLI, [
            "--port",
            "0",
            "--kubeconfig-out",
            kubeconfigPath,
            "--audit-log",
            join(stateDir, "audit.log"),
            ...(options.kubeSimArgs ?? []),
          ]),
        onLine: (line) => {
          const match = /kube-sim listening on (http:\/\/\S+)/.exec(line);
          if (match?.[1]) onUrl(match[1]);
          options.onLog?.("kube-sim", line);
        },
        onEvent: (event) => {
          onProcessEvent(event);
          if (event.type === "exited" && !event.expected && !stopped) {
            resolveFailed(new Error(`the Kubernetes simulator exited (code ${event.code}, signal ${event.signal})`));
          }
        },
      });
      kubeSim = sim;
      await sim.start();
      const url = await guard(
        Promise.race([
          urlPromise,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new StackStartError(`the simulator did not start within 60 s:\n${tail(sim.logPath)}`)), 60_000).unref(),
          ),
        ]),
        "starting",
      );
      step(`Kubernetes simulator listening on ${url}`);
      return url;
    })();

    inFlight.push(natsPromise, kubePromise);
    const [natsUrl, apiServer] = await guard(Promise.all([natsPromise, kubePromise]), "starting");
    stackFile = {
      apiServer,
      nats: natsUrl,
      kubeconfig: kubeconfigPath,
      processes: [],
      supervisor: { pid: process.pid, startedAt: new Date().toISOString() },
      ...(auditLogPath !== undefined ? { auditLog: auditLogPath } : {}),
      ...(natsSecurity ? { natsClient: natsSecurity.clientAccess } : {}),
    };
    persist();

    // --- services -------------------------------------------------------------------------------------------
    const names: { service: ServiceKind; name: string }[] = [];
    for (const service of SERVICE_KINDS) {
      if (service === "actor") for (let i = 0; i < actors; i++) names.push({ service, name: `actor-${i}` });
      else names.push({ service, name: service });
    }
    const ports = await freeLoopbackPorts(names.length * 2);
    names.forEach(({ service, name }, index) => {
      let metricsPort = ports[index * 2] ?? 0;
      let probesPort = ports[index * 2 + 1] ?? 0;
      const child = new ManagedProcess({
        service,
        name,
        logPath: join(logsDir, `${name}.log`),
        restart: restartPolicy,
        launch: async ({ earlyExits }) => {
          if (earlyExits >= 3) {
            // Three quick deaths in a row: maybe another process took a port meanwhile.
            [metricsPort = 0, probesPort = 0] = await freeLoopbackPorts(2);
          }
          const args = [
            "--name",
            name,
            "--nats-url",
            natsUrl,
            "--kubeconfig",
            kubeconfigPath,
            "--metrics-bind-address",
            `127.0.0.1:${metricsPort}`,
            "--health-probe-bind-address",
            `127.0.0.1:${probesPort}`,
            "--log-format",
            "json",
            "--log-level",
            options.logLevel ?? "info",
            ...LOCAL_DEFAULTS[service],
            ...(options.serviceArgs?.[service] ?? []),
          ];
          // The password goes through the environment, not argv, where `ps` would show it.
          const security = natsSecurity ? serviceNatsEnv(natsSecurity.services[service]) : {};
          return {
            ...nodeCommand(serviceEntryPoint(service), args, { ...security, ...options.serviceEnv }),
            metrics: `http://127.0.0.1:${metricsPort}/metrics`,
            probes: `http://127.0.0.1:${probesPort}`,
          };
        },
        ...(options.onLog ? { onLine: (line: string) => options.onLog?.(name, line) } : {}),
        onEvent: onProcessEvent,
      });
      services.set(name, child);
    });
    step(`starting ${names.map((n) => n.name).join(", ")}`);
    await Promise.all([...services.values()].map((child) => child.start()));
    persist();

    const waitReady = async (
      only?: readonly string[],
      timeoutMs = options.readyTimeoutMs ?? 90_000,
      signal: AbortSignal | undefined = undefined,
    ) => {
      const targets = [...services.values()]
        .filter((child) => only === undefined || only.includes(child.name))
        .map((child) => ({ name: child.name, probes: () => (child.running ? child.probes : undefined) }));
      await waitForReady(targets, {
        timeoutMs,
        onPending: (pending, elapsedMs) => emit({ type: "waiting", pending, elapsedMs }),
        ...(signal ? { signal } : {}),
      });
    };
    const started = performance.now();
    await guard(waitReady(undefined, undefined, startup.signal), "waiting for the services");
    emit({ type: "ready", elapsedMs: performance.now() - started });
    void failed.then((error) => {
      if (!stopped) emit({ type: "failed", error });
    });

    const stack: Stack = {
      stateDir,
      apiServer,
      natsUrl,
      kubeconfigPath,
      auditLogPath,
      stackFile: stackFilePath(stateDir),
      services,
      get nats() {
        return nats;
      },
      natsSecurity,
      snapshot() {
        return stackFile ?? { apiServer, nats: natsUrl, kubeconfig: kubeconfigPath, processes: entries() };
      },
      service(name) {
        const child = services.get(name);
        if (!child) throw new Error(`no service named ${name} (have ${[...services.keys()].join(", ")})`);
        return child;
      },
      waitReady: (only, timeoutMs) => waitReady(only, timeoutMs),
      failed,
      stop,
    };
    return stack;
  } catch (error) {
    startup.abort();
    await Promise.allSettled(inFlight);
    await stop().catch(() => undefined);
    if (error instanceof StackStartError) throw error;
    const logs = [...services.values()]
      .map((child) => `--- ${child.name}\n${tail(child.logPath, 8)}`)
      .join("\n");
    throw new StackStartError(`${(error as Error).message}${logs ? `\n${logs}` : ""}`, { cause: error });
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Flags the local stack passes before the caller's: the actors' fast lease profile and watcher lease timings to
 * match, so a restarted process takes over within seconds instead of a production lease duration.
 */
const LOCAL_DEFAULTS: Readonly<Record<ServiceKind, readonly string[]>> = {
  watcher: ["--lease-duration-ms", "8000", "--lease-renew-deadline-ms", "5000", "--lease-retry-period-ms", "1000"],
  actor: ["--lease-profile", "fast"],
  "pvc-provisioner": [],
  "status-writer": [],
};
