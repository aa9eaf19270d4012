// The stack's own nats-server: started in its own session (so a terminal's Ctrl-C reaches the services first),
// optionally with users, passwords and mutual TLS (`--secure`, ADR 0064), and restarted on the same port and store
// when it dies, so JetStream state survives and clients reconnect.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { NATS_INSTALL_HINT, NatsServerStartError, startNatsServer } from "../../lib/nats-server.ts";
import type { NatsServerOptions, RunningNatsServer } from "../../lib/nats-server.ts";
import { StackStartError, tail } from "./launch.ts";
import type { Reaper } from "./reaper.ts";
import { OPENSSL_INSTALL_HINT, SecureSetupError, prepareSecureNats } from "./secure.ts";
import type { SecureNats } from "./secure.ts";
import type { SupervisorEvent } from "./supervisor.ts";
import { onPath } from "./which.ts";

/**
 * The local nats-server pings every client this often and closes a connection after two unanswered pings, so a
 * half-open connection (a peer whose host vanished, a frozen process) is dropped within 3 intervals: its probe
 * subscription disappears and peers see "no responders" (ADR 0071, W2/W3; ADR 0075).
 */
export const LOCAL_NATS_PING_INTERVAL_MS = 2_000;

/** The options the stack starts nats-server with (before TLS and users, with `secure`). */
export function localNatsOptions(options: NatsServerOptions): NatsServerOptions {
  return { pingIntervalMs: LOCAL_NATS_PING_INTERVAL_MS, ...options };
}

export interface LocalNatsOptions {
  readonly stateDir: string;
  readonly logsDir: string;
  /** The server's store; JetStream keeps its data under `<storeDir>/jetstream`. */
  readonly storeDir: string;
  readonly secure: boolean;
  readonly pingIntervalMs: number | undefined;
  readonly reaper: Reaper;
  readonly step: (message: string) => void;
  /** A process event of the server (an unexpected exit, a restart), for the stack's events and stack.json. */
  readonly onProcessEvent: (event: SupervisorEvent) => void;
}

export interface LocalNats {
  readonly url: string;
  /** The server running now (a new one after a restart). */
  current(): RunningNatsServer;
  /** Users, passwords and TLS files, with `secure`. */
  readonly security: SecureNats | undefined;
  /** Stops the server and its restarts. */
  stop(timeoutMs: number): Promise<void>;
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

async function secureOptions(options: LocalNatsOptions, base: NatsServerOptions, logFile: string): Promise<{ natsOptions: NatsServerOptions; security: SecureNats }> {
  const openssl = onPath("openssl");
  if (openssl === undefined) throw new StackStartError("openssl is not installed", { hint: OPENSSL_INSTALL_HINT });
  options.step("making a throwaway CA, certificates and passwords for NATS");
  let security: SecureNats;
  try {
    security = await prepareSecureNats(options.stateDir, { openssl });
  } catch (error) {
    if (error instanceof SecureSetupError) throw new StackStartError(error.message, { cause: error });
    throw error;
  }
  const natsOptions: NatsServerOptions = {
    ...base,
    tls: { ...security.server, caFile: security.caFile, verify: true },
    env: security.serverEnv,
    extraConfig: `${logFile}\n${security.authorization}`,
  };
  return { natsOptions, security };
}

/** Starts the server; a failure says what the server wrote before it exited. */
async function launch(natsOptions: NatsServerOptions, logsDir: string): Promise<RunningNatsServer> {
  try {
    return await startNatsServer(natsOptions);
  } catch (error) {
    if (error instanceof NatsServerStartError && error.message === NATS_INSTALL_HINT) {
      throw new StackStartError("nats-server is not installed", { cause: error, hint: NATS_INSTALL_HINT });
    }
    // Config errors go to its output, the rest to its log file.
    if (error instanceof NatsServerStartError) {
      const said = [error.output.trim(), tail(join(logsDir, "nats.log"), 5)].filter((text) => text !== "").join("\n");
      if (said !== "") throw new StackStartError(`${error.message}:\n${said}`, { cause: error });
    }
    throw error;
  }
}

export async function startLocalNats(options: LocalNatsOptions): Promise<LocalNats> {
  options.step("starting nats-server");
  mkdirSync(options.storeDir, { recursive: true });
  const logFile = `log_file: ${JSON.stringify(join(options.logsDir, "nats.log"))}`;
  let natsOptions = localNatsOptions({
    executable: natsExecutable(options.stateDir),
    storeDir: join(options.storeDir, "jetstream"),
    extraConfig: logFile,
    ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}),
  });
  let security: SecureNats | undefined;
  if (options.secure) ({ natsOptions, security } = await secureOptions(options, natsOptions, logFile));
  let server = await launch(natsOptions, options.logsDir);
  let stopped = false;
  const { reaper, onProcessEvent } = options;

  const restartWhenItDies = (running: RunningNatsServer) => {
    void running.exited.then(async (code) => {
      if (stopped || server !== running) return;
      reaper.unregister(running.pid);
      onProcessEvent({ type: "exited", name: "nats", pid: running.pid, code, signal: null, expected: false, restartInMs: 500 });
      for (let attempt = 0; !stopped; attempt++) {
        await sleep(Math.min(500 * 2 ** attempt, 5_000));
        if (stopped) return;
        try {
          server = await startNatsServer({ ...natsOptions, port: running.port });
        } catch (error) {
          options.step(`nats-server did not restart: ${(error as Error).message}`);
          continue;
        }
        reaper.register(server.pid, "i");
        restartWhenItDies(server);
        onProcessEvent({ type: "spawned", name: "nats", pid: server.pid, restarts: attempt + 1 });
        return;
      }
    });
  };
  reaper.register(server.pid, "i");
  restartWhenItDies(server);
  options.step(`nats-server listening on ${server.url}${security ? ` (TLS with client certificates, one user per service; ${security.dir})` : ""}`);

  return {
    url: server.url,
    current: () => server,
    security,
    async stop(timeoutMs) {
      stopped = true;
      await server.stop({ timeoutMs });
      reaper.unregister(server.pid);
    },
  };
}
