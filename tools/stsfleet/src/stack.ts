// startStack(): the whole local stack (nats-server, the Kubernetes simulator, watcher, actors, pvc-provisioner,
// status-writer) as supervised child processes, with stack.json kept current. `stsfleet up` and the end-to-end
// test harness (test/support/stack.ts) both run exactly this. The parts are units of their own: local-nats.ts (the
// server and its restarts), kube-target.ts (a cluster or the simulator), service-set.ts (the service processes),
// stack-record.ts (stack.json); this file orders them and owns startup, failure and stop.
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RunningNatsServer } from "../../lib/nats-server.ts";
import { createSimulator, useCluster } from "./kube-target.ts";
import { StackStartError, tail } from "./launch.ts";
import { startLocalNats } from "./local-nats.ts";
import type { LocalNats } from "./local-nats.ts";
import { startReaper } from "./reaper.ts";
import type { Reaper } from "./reaper.ts";
import type { SecureNats } from "./secure.ts";
import { createServices, waitServicesReady } from "./service-set.ts";
import { StackRecord } from "./stack-record.ts";
import { isAlive, stackFilePath } from "./state.ts";
import type { ServiceKind, StackFile } from "./state.ts";
import { DEFAULT_RESTART_POLICY } from "./supervisor.ts";
import type { ManagedProcess, RestartPolicy, SupervisorEvent } from "./supervisor.ts";

export { REPO_ROOT, StackStartError, serviceEntryPoint } from "./launch.ts";
export { LOCAL_NATS_PING_INTERVAL_MS, localNatsOptions } from "./local-nats.ts";

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

export interface StackOptions {
  /**
   * Where kubeconfig, stack.json, audit.log and logs/ go; created if missing. The simulator's objects
   * (`kube-sim/`, ADR 0095) and nats-server's store (`nats/`) stay there across runs: a stack started on the same
   * state dir resumes them.
   */
  readonly stateDir: string;
  /**
   * Keep the simulator's objects and the NATS store in the state dir, so the next stack on it resumes them
   * (`stsfleet up`). Default false: a stack starts empty and its simulator syncs nothing to disk (test stacks).
   */
  readonly persist?: boolean;
  /** Wipe the state dir first (everything but the lock): no objects, an empty NATS store. */
  readonly fresh?: boolean;
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

/** The lock of a running stack, at most one supervisor per state dir (kept by --fresh, which runs under it). */
const LOCK_FILE = "up.pid";

function acquireLock(stateDir: string): () => void {
  const path = join(stateDir, LOCK_FILE);
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

/** Where a stack keeps its files under its state dir. */
interface StackPaths {
  readonly stateDir: string;
  readonly logsDir: string;
  readonly kubeconfigPath: string;
  readonly auditLogPath: string | undefined;
  readonly natsStore: string;
  /** The simulator's --data-dir. */
  readonly kubeSimData: string;
}

function validate(options: StackOptions): { actors: number; stopTimeoutMs: number } {
  const actors = options.actors ?? 1;
  if (!Number.isInteger(actors) || actors < 1 || actors > 64) {
    throw new StackStartError(`--actors must be an integer between 1 and 64, got ${actors}`);
  }
  if (options.secure && options.natsUrl !== undefined) {
    throw new StackStartError("--secure starts its own nats-server with users and TLS; it cannot be combined with --nats-url");
  }
  return { actors, stopTimeoutMs: options.stopTimeoutMs ?? 10_000 };
}

/** Creates the state dir and removes what an earlier stack left there. */
function prepareStateDir(options: StackOptions): StackPaths {
  const stateDir = resolve(options.stateDir);
  mkdirSync(stateDir, { recursive: true });
  const paths: StackPaths = {
    stateDir,
    logsDir: join(stateDir, "logs"),
    kubeconfigPath: join(stateDir, "kubeconfig"),
    auditLogPath: options.kubeconfig === undefined ? join(stateDir, "audit.log") : undefined,
    natsStore: join(stateDir, "nats"),
    kubeSimData: join(stateDir, "kube-sim"),
  };
  return paths;
}

/**
 * Removes what only the last run needed (its logs, stack.json, audit log, keys); the objects and the NATS store stay
 * for this run to resume, unless `fresh` asks for an empty state dir (all but the lock this run holds).
 */
function clearStaleState(paths: StackPaths, fresh: boolean, persist: boolean): void {
  const { stateDir, logsDir } = paths;
  const lastRun = [logsDir, stackFilePath(stateDir), join(stateDir, "audit.log"), join(stateDir, "secure")];
  const stale = fresh
    ? readdirSync(stateDir).filter((name) => name !== LOCK_FILE).map((name) => join(stateDir, name))
    : persist
      ? lastRun
      : [...lastRun, paths.natsStore, paths.kubeSimData];
  for (const path of stale) rmSync(path, { recursive: true, force: true });
  mkdirSync(logsDir, { recursive: true });
}

/** One run of the stack: what has started, and how to go on, fail or stop from there. */
class StackRun {
  readonly services = new Map<string, ManagedProcess>();
  readonly record: StackRecord;
  readonly failed: Promise<Error>;
  readonly startup = new AbortController();
  nats: LocalNats | undefined;
  kubeSim: ManagedProcess | undefined;
  private stopped = false;
  private resolveFailed: (error: Error) => void = () => undefined;
  private readonly aborted: Promise<never>;
  private readonly inFlight: Promise<unknown>[] = [];
  private readonly reaper: Reaper;
  private readonly releaseLock: () => void;
  private readonly exitHook = () => {
    // Last resort when the owning process exits without stop(): the reaper also covers SIGKILL.
    for (const child of [...this.services.values(), this.kubeSim]) if (child?.pid !== undefined) child.signal("SIGKILL");
    this.nats?.current().kill("SIGKILL");
  };

  readonly options: StackOptions;
  readonly paths: StackPaths;
  readonly settings: { readonly actors: number; readonly stopTimeoutMs: number };

  constructor(options: StackOptions, paths: StackPaths, settings: { actors: number; stopTimeoutMs: number }) {
    this.options = options;
    this.paths = paths;
    this.settings = settings;
    this.releaseLock = acquireLock(paths.stateDir);
    clearStaleState(paths, options.fresh === true, options.persist === true);
    this.reaper = startReaper();
    this.failed = new Promise<Error>((resolveFailed) => (this.resolveFailed = resolveFailed));
    this.record = new StackRecord(paths.stateDir, paths.logsDir, {
      natsPid: () => this.nats?.current().pid,
      kubeSim: () => this.kubeSim,
      services: this.services,
    });
    this.aborted = new Promise<never>((_, reject) => {
      const signal = options.signal;
      if (!signal) return;
      const onAbort = () => reject(new StackStartError("startup interrupted", { cause: signal.reason }));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    this.aborted.catch(() => undefined);
    process.on("exit", this.exitHook);
  }

  emit(event: StackEvent): void {
    this.options.onEvent?.(event);
  }

  readonly step = (message: string): void => this.emit({ type: "step", message });

  /** A child's event: its pid goes to the reaper and stack.json, the event to the caller. */
  readonly onProcessEvent = (event: SupervisorEvent): void => {
    this.record.note(event);
    if (event.type === "spawned") this.reaper.register(event.pid, event.name === "kube-sim" ? "i" : "s");
    else if (event.type === "exited") this.reaper.unregister(event.pid);
    this.report(event);
  };

  /** An event of a process the reaper already knows about (nats-server registers its own restarts). */
  private readonly report = (event: SupervisorEvent): void => {
    this.emit({ type: "process", event });
    this.record.persist();
  };

  /** Waits for `promise` unless startup is interrupted or the simulator dies first. */
  readonly guard = <T>(promise: Promise<T>, what: string): Promise<T> =>
    Promise.race([
      promise,
      this.aborted,
      this.failed.then((error) =>
        Promise.reject(new StackStartError(`${error.message} while ${what}:\n${this.kubeSim ? tail(this.kubeSim.logPath) : ""}`)),
      ),
    ]);

  private async startNats(): Promise<string> {
    const { options, paths } = this;
    if (options.natsUrl !== undefined) return options.natsUrl;
    this.nats = await startLocalNats({
      stateDir: paths.stateDir,
      logsDir: paths.logsDir,
      storeDir: paths.natsStore,
      secure: options.secure === true,
      pingIntervalMs: options.natsPingIntervalMs,
      reaper: this.reaper,
      step: this.step,
      onProcessEvent: this.report,
    });
    return this.nats.url;
  }

  private async startKube(): Promise<string> {
    const { options, paths } = this;
    if (options.kubeconfig !== undefined) return useCluster(options.kubeconfig, paths.kubeconfigPath, this.step);
    this.step("starting the Kubernetes simulator");
    const onLog = options.onLog;
    const sim = createSimulator({
      stateDir: paths.stateDir,
      dataDir: options.persist === true ? paths.kubeSimData : undefined,
      logsDir: paths.logsDir,
      kubeconfigPath: paths.kubeconfigPath,
      args: options.kubeSimArgs ?? [],
      onLog: onLog ? (line) => onLog("kube-sim", line) : undefined,
      step: this.step,
      onProcessEvent: this.onProcessEvent,
      onDied: (error) => {
        if (!this.stopped) this.resolveFailed(error);
      },
      guard: this.guard,
    });
    this.kubeSim = sim.process;
    const url = await sim.start();
    this.step(`Kubernetes simulator listening on ${url}`);
    return url;
  }

  /** nats-server and the Kubernetes API, in parallel; stack.json is written once both are known. */
  async startInfrastructure(): Promise<{ natsUrl: string; apiServer: string }> {
    const natsPromise = this.startNats();
    const kubePromise = this.startKube();
    this.inFlight.push(natsPromise, kubePromise);
    const [natsUrl, apiServer] = await this.guard(Promise.all([natsPromise, kubePromise]), "starting");
    const security = this.nats?.security;
    this.record.begin({
      apiServer,
      nats: natsUrl,
      kubeconfig: this.paths.kubeconfigPath,
      supervisor: { pid: process.pid, startedAt: new Date().toISOString() },
      ...(this.paths.auditLogPath !== undefined ? { auditLog: this.paths.auditLogPath } : {}),
      ...(security ? { natsClient: security.clientAccess } : {}),
    });
    return { natsUrl, apiServer };
  }

  async startServices(natsUrl: string): Promise<void> {
    const { options } = this;
    const created = await createServices({
      actors: this.settings.actors,
      natsUrl,
      kubeconfigPath: this.paths.kubeconfigPath,
      logLevel: options.logLevel ?? "info",
      serviceArgs: options.serviceArgs,
      logsDir: this.paths.logsDir,
      restart: options.restart ?? DEFAULT_RESTART_POLICY,
      security: this.nats?.security,
      env: options.serviceEnv,
      onLog: options.onLog,
      onProcessEvent: this.onProcessEvent,
    });
    for (const [name, child] of created) this.services.set(name, child);
    this.step(`starting ${[...created.keys()].join(", ")}`);
    await Promise.all([...this.services.values()].map((child) => child.start()));
    this.record.persist();
  }

  readonly waitReady = (only?: readonly string[], timeoutMs = this.options.readyTimeoutMs ?? 90_000, signal?: AbortSignal): Promise<void> =>
    waitServicesReady(this.services, {
      only,
      timeoutMs,
      onPending: (pending, elapsedMs) => this.emit({ type: "waiting", pending, elapsedMs }),
      signal,
    });

  /** Until every service is Ready; then a later death of the simulator is reported as a `failed` event. */
  async awaitReady(): Promise<void> {
    const started = performance.now();
    await this.guard(this.waitReady(undefined, undefined, this.startup.signal), "waiting for the services");
    this.emit({ type: "ready", elapsedMs: performance.now() - started });
    void this.failed.then((error) => {
      if (!this.stopped) this.emit({ type: "failed", error });
    });
  }

  readonly stop = async (): Promise<void> => {
    if (this.stopped) return;
    this.stopped = true;
    this.record.close();
    const { stopTimeoutMs } = this.settings;
    await Promise.all([...this.services.values()].map((child) => child.stop(stopTimeoutMs)));
    await Promise.all([this.kubeSim?.stop(stopTimeoutMs), this.nats?.stop(stopTimeoutMs)]);
    if (this.options.persist === true && (this.kubeSim !== undefined || this.nats !== undefined)) {
      this.step(`state kept in ${this.paths.stateDir} (objects in kube-sim/, NATS in nats/); \`stsfleet up --fresh\` starts empty`);
    }
    // Keys and passwords of a stopped stack are of no use to anyone.
    rmSync(join(this.paths.stateDir, "secure"), { recursive: true, force: true });
    this.reaper.close();
    process.off("exit", this.exitHook);
    rmSync(stackFilePath(this.paths.stateDir), { force: true });
    this.releaseLock();
  };

  /** Startup failed: stop what started, and say what the services wrote last. */
  async abandon(error: unknown): Promise<StackStartError> {
    this.startup.abort();
    await Promise.allSettled(this.inFlight);
    await this.stop().catch(() => undefined);
    if (error instanceof StackStartError) return error;
    const logs = [...this.services.values()].map((child) => `--- ${child.name}\n${tail(child.logPath, 8)}`).join("\n");
    return new StackStartError(`${(error as Error).message}${logs ? `\n${logs}` : ""}`, { cause: error });
  }

  handle(endpoints: { natsUrl: string; apiServer: string }): Stack {
    const { paths, services, record } = this;
    const { natsUrl, apiServer } = endpoints;
    const nats = () => this.nats;
    return {
      stateDir: paths.stateDir,
      apiServer,
      natsUrl,
      kubeconfigPath: paths.kubeconfigPath,
      auditLogPath: paths.auditLogPath,
      stackFile: stackFilePath(paths.stateDir),
      services,
      get nats(): RunningNatsServer | undefined {
        return nats()?.current();
      },
      natsSecurity: this.nats?.security,
      snapshot: () => record.snapshot({ apiServer, nats: natsUrl, kubeconfig: paths.kubeconfigPath }),
      service(name) {
        const child = services.get(name);
        if (!child) throw new Error(`no service named ${name} (have ${[...services.keys()].join(", ")})`);
        return child;
      },
      waitReady: (only, timeoutMs) => this.waitReady(only, timeoutMs),
      failed: this.failed,
      stop: this.stop,
    };
  }
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const settings = validate(options);
  const run = new StackRun(options, prepareStateDir(options), settings);
  try {
    const endpoints = await run.startInfrastructure();
    await run.startServices(endpoints.natsUrl);
    await run.awaitReady();
    return run.handle(endpoints);
  } catch (error) {
    throw await run.abandon(error);
  }
}
