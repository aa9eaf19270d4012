// End-to-end harness: a whole stsfleet stack (real nats-server, the Kubernetes simulator and the four services as
// processes) for one test file, started by the same startStack() that `stsfleet up` runs, in a temp state dir,
// stopped and removed after the file (or suite). Plus what the tests read: a raw Kubernetes client, the simulator's
// audit log, the services' /metrics, and helpers to SIGKILL a service and wait for the stack to bring it back.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import { KubeApiError, KubeClient, loadKubeConfig, RESOURCES } from "../../services/common/src/kube.ts";
import { userAgent } from "../../services/common/src/version.ts";
import { parseAuditLog } from "../../tools/chaos/facts.ts";
import type { AuditWrite } from "../../tools/chaos/facts.ts";
import { startStack } from "../../tools/stsfleet/src/stack.ts";
import type { Stack, StackOptions } from "../../tools/stsfleet/src/stack.ts";

// --- waiting ---------------------------------------------------------------------------------------------------

export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";
  readonly last: unknown;

  constructor(what: string, timeoutMs: number, last: unknown) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${describe(last)}`);
    this.last = last;
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text === undefined ? "undefined" : text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}

/**
 * Polls `probe` until it returns something other than undefined/false and returns that. Errors thrown by the probe
 * count as "not yet" (the last one is reported on timeout).
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number; describeLast?: () => unknown } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > deadline) {
      throw new WaitTimeoutError(what, timeoutMs, options.describeLast ? await Promise.resolve(options.describeLast()).catch((e: unknown) => e) : last);
    }
    await sleep(options.intervalMs ?? 100);
  }
}

// --- audit log -------------------------------------------------------------------------------------------------

/** One `audit.k8s.io/v1` Event as the simulator writes it (the chaos checker's parser, one for both). */
export type AuditEvent = AuditWrite;

export interface AuditFilter {
  readonly verb?: string | readonly string[];
  readonly resource?: string;
  readonly subresource?: string | null;
  readonly namespace?: string;
  readonly name?: string | RegExp;
  readonly service?: string;
  /** Only 2xx answers. */
  readonly succeeded?: boolean;
}

export class AuditLog {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** Every event so far, in file order (completion order). A torn last line is left for the next read. */
  all(): AuditEvent[] {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return parseAuditLog(text);
  }

  where(filter: AuditFilter): AuditEvent[] {
    return this.all().filter((event) => matches(event, filter));
  }
}

export function matches(event: AuditEvent, filter: AuditFilter): boolean {
  if (filter.verb !== undefined) {
    const verbs = typeof filter.verb === "string" ? [filter.verb] : filter.verb;
    if (!verbs.includes(event.verb)) return false;
  }
  if (filter.resource !== undefined && event.resource !== filter.resource) return false;
  if (filter.subresource !== undefined && (event.subresource ?? null) !== filter.subresource) return false;
  if (filter.namespace !== undefined && event.namespace !== filter.namespace) return false;
  if (filter.name !== undefined) {
    if (typeof filter.name === "string" ? event.name !== filter.name : !filter.name.test(event.name ?? "")) return false;
  }
  if (filter.service !== undefined && event.service !== filter.service) return false;
  if (filter.succeeded === true && (event.code < 200 || event.code > 299)) return false;
  return true;
}

// --- metrics ---------------------------------------------------------------------------------------------------

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Prometheus text format -> samples (enough of the format for prom-client's output). */
export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match?.[1] || match[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      if (pair[1] !== undefined) labels[pair[1]] = (pair[2] ?? "").replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

// --- the stack -------------------------------------------------------------------------------------------------

export interface TestStackOptions extends Omit<StackOptions, "stateDir"> {
  /** Keep the state dir after the run (for debugging); default: removed unless a test failed to stop the stack. */
  readonly keepStateDir?: boolean;
}

/** Simulator timings for tests: fast, but slow enough that ordering is visible in the audit log. */
export const FAST_KUBE_SIM_ARGS = [
  "--schedule-delay-ms",
  "5",
  "--start-delay-ms",
  "60",
  "--termination-delay-ms",
  "50",
  "--bind-delay-ms",
  "10",
] as const;

/** Service flags for tests: short leases so a restarted process takes over in seconds. */
export const FAST_SERVICE_ARGS = {
  watcher: ["--lease-duration-ms", "3000", "--lease-renew-deadline-ms", "2000", "--lease-retry-period-ms", "500"],
  actor: ["--lease-profile", "fast", "--backoff-max-ms", "2000", "--claim-wait-timeout-ms", "3000", "--status-timeout-ms", "2000"],
  "pvc-provisioner": ["--retry-backoff-ms", "200,500,1000", "--ack-wait-ms", "5000"],
  "status-writer": [],
} as const;

export interface TestStack {
  readonly stack: Stack;
  readonly stateDir: string;
  readonly kubeconfigPath: string;
  /** Raw JSON client (User-Agent `stsfleet-stsfleet/<version> (e2e)`): objects exactly as the API server sent them. */
  readonly kube: KubeClient;
  /** client-node configuration, for tests that prefer the typed APIs. */
  readonly kubeConfig: KubeConfig;
  readonly audit: AuditLog;
  /** The service's current /metrics, parsed. */
  metrics(name: string): Promise<Sample[]>;
  /**
   * Sends `signal` (default SIGKILL) to the service's process group and waits until the stack has restarted it
   * and it answers /readyz again. Returns the old and new pids.
   */
  killService(name: string, options?: { signal?: NodeJS.Signals; timeoutMs?: number }): Promise<{ oldPid: number; newPid: number }>;
  /** Creates a namespace (and removes nothing: the stack dies with the test file). */
  createNamespace(name: string): Promise<void>;
}

/**
 * Starts a stack for the enclosing test file (call it at the top of a `describe` or in `before`); stops it and
 * removes its state dir in `after`.
 */
export async function useStack(options: TestStackOptions = {}): Promise<TestStack> {
  const stateDir = mkdtempSync(join(tmpdir(), "stsfleet-e2e-"));
  const { keepStateDir, ...stackOptions } = options;
  let stack: Stack;
  try {
    stack = await startStack({
      kubeSimArgs: FAST_KUBE_SIM_ARGS,
      serviceArgs: FAST_SERVICE_ARGS,
      readyTimeoutMs: 150_000,
      stopTimeoutMs: 5_000,
      ...stackOptions,
      stateDir,
    });
  } catch (error) {
    if (!keepStateDir) rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  after(async () => {
    await stack.stop();
    if (!keepStateDir && process.env["STSFLEET_E2E_KEEP"] === undefined) rmSync(stateDir, { recursive: true, force: true });
    else process.stderr.write(`e2e state kept in ${stateDir}\n`);
  });
  void stack.failed.then((error) => process.stderr.write(`e2e stack failed: ${error.message}\n`));

  const kubeConfig = loadKubeConfig(stack.kubeconfigPath, userAgent("stsfleet", "e2e"));
  const kube = new KubeClient(kubeConfig, { requestTimeoutMs: 10_000 });
  const auditPath = stack.auditLogPath;
  if (auditPath === undefined) throw new Error("the e2e harness needs the simulator's audit log");

  return {
    stack,
    stateDir,
    kubeconfigPath: stack.kubeconfigPath,
    kube,
    kubeConfig,
    audit: new AuditLog(auditPath),
    async metrics(name) {
      const url = stack.service(name).metrics;
      if (url === undefined) throw new Error(`${name} has no metrics URL`);
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return parsePrometheus(await response.text());
    },
    async killService(name, { signal = "SIGKILL", timeoutMs = 60_000 } = {}) {
      const child = stack.service(name);
      const oldPid = child.pid;
      if (oldPid === undefined) throw new Error(`${name} is not running`);
      const exited = child.exited();
      child.signal(signal);
      await exited;
      const newPid = await waitFor(`${name} to be restarted`, () => (child.pid !== undefined && child.pid !== oldPid ? child.pid : undefined), {
        timeoutMs,
      });
      await stack.waitReady([name], timeoutMs);
      return { oldPid, newPid };
    },
    async createNamespace(name) {
      try {
        await kube.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
      } catch (error) {
        if (!(error instanceof KubeApiError && error.isAlreadyExists)) throw error;
      }
    },
  };
}
