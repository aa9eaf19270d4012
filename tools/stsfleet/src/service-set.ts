// The stack's service processes: one watcher, N actors, one pvc-provisioner, one status-writer, each a supervised
// child with its own loopback metrics and probe ports, the stack's NATS and kubeconfig, and the local defaults
// before the caller's flags.
import { join } from "node:path";
import { nodeCommand, serviceEntryPoint } from "./launch.ts";
import { freeLoopbackPorts } from "./ports.ts";
import { waitForReady } from "./readiness.ts";
import { serviceNatsEnv } from "./secure.ts";
import type { SecureNats } from "./secure.ts";
import { SERVICE_KINDS } from "./state.ts";
import type { ServiceKind } from "./state.ts";
import { ManagedProcess } from "./supervisor.ts";
import type { RestartPolicy, SupervisorEvent } from "./supervisor.ts";

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

export interface ServiceName {
  readonly service: ServiceKind;
  readonly name: string;
}

/** Every service process of a stack with `actors` actors, in start order. */
export function serviceNames(actors: number): ServiceName[] {
  return SERVICE_KINDS.flatMap((service): ServiceName[] =>
    service === "actor" ? Array.from({ length: actors }, (_, i) => ({ service, name: `actor-${i}` })) : [{ service, name: service }],
  );
}

export interface ServiceLaunch {
  readonly natsUrl: string;
  readonly kubeconfigPath: string;
  readonly logLevel: string;
  /** Extra flags per service, after the stack's own (the last occurrence of a flag wins). */
  readonly serviceArgs: Partial<Record<ServiceKind, readonly string[]>> | undefined;
}

/** A service's command line: identity, the stack's endpoints, loopback ops ports, local defaults, the caller's flags. */
export function serviceArgs(target: ServiceName, launch: ServiceLaunch, ports: { metrics: number; probes: number }): string[] {
  return [
    "--name",
    target.name,
    "--nats-url",
    launch.natsUrl,
    "--kubeconfig",
    launch.kubeconfigPath,
    "--metrics-bind-address",
    `127.0.0.1:${ports.metrics}`,
    "--health-probe-bind-address",
    `127.0.0.1:${ports.probes}`,
    "--log-format",
    "json",
    "--log-level",
    launch.logLevel,
    ...LOCAL_DEFAULTS[target.service],
    ...(launch.serviceArgs?.[target.service] ?? []),
  ];
}

export interface ServiceSetOptions extends ServiceLaunch {
  readonly actors: number;
  readonly logsDir: string;
  readonly restart: RestartPolicy;
  /** Users and passwords per service, with `--secure` (through the environment: argv shows in `ps`). */
  readonly security: SecureNats | undefined;
  /** Extra environment for every service process, over the inherited one. */
  readonly env: Readonly<Record<string, string>> | undefined;
  readonly onLog: ((name: string, line: string) => void) | undefined;
  readonly onProcessEvent: (event: SupervisorEvent) => void;
}

/** The supervised service processes by name, not started yet. */
export async function createServices(options: ServiceSetOptions): Promise<Map<string, ManagedProcess>> {
  const names = serviceNames(options.actors);
  const ports = await freeLoopbackPorts(names.length * 2);
  const services = new Map<string, ManagedProcess>();
  names.forEach((target, index) => {
    let metrics = ports[index * 2] ?? 0;
    let probes = ports[index * 2 + 1] ?? 0;
    const { onLog } = options;
    const child = new ManagedProcess({
      service: target.service,
      name: target.name,
      logPath: join(options.logsDir, `${target.name}.log`),
      restart: options.restart,
      launch: async ({ earlyExits }) => {
        // Three quick deaths in a row: maybe another process took a port meanwhile.
        if (earlyExits >= 3) [metrics = 0, probes = 0] = await freeLoopbackPorts(2);
        const security = options.security ? serviceNatsEnv(options.security.services[target.service]) : {};
        return {
          ...nodeCommand(serviceEntryPoint(target.service), serviceArgs(target, options, { metrics, probes }), { ...security, ...options.env }),
          metrics: `http://127.0.0.1:${metrics}/metrics`,
          probes: `http://127.0.0.1:${probes}`,
        };
      },
      ...(onLog ? { onLine: (line: string) => onLog(target.name, line) } : {}),
      onEvent: options.onProcessEvent,
    });
    services.set(target.name, child);
  });
  return services;
}

/** Resolves when the named services (default: all) answer /readyz with 200. */
export function waitServicesReady(
  services: ReadonlyMap<string, ManagedProcess>,
  options: { only?: readonly string[] | undefined; timeoutMs: number; onPending: (pending: ReadonlyMap<string, string>, elapsedMs: number) => void; signal?: AbortSignal | undefined },
): Promise<void> {
  const targets = [...services.values()]
    .filter((child) => options.only === undefined || options.only.includes(child.name))
    .map((child) => ({ name: child.name, probes: () => (child.running ? child.probes : undefined) }));
  return waitForReady(targets, { timeoutMs: options.timeoutMs, onPending: options.onPending, ...(options.signal ? { signal: options.signal } : {}) });
}
