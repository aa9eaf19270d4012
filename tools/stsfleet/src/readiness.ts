// Polls the children's /readyz until each answers 200, reporting what is still pending and why.
import { setTimeout as sleep } from "node:timers/promises";

export interface ReadyzResult {
  readonly ok: boolean;
  /** The failing checks (`[-]nats failed: not connected`), or the transport error. */
  readonly detail: string;
}

export async function probeReadyz(probesUrl: string, timeoutMs = 1_000): Promise<ReadyzResult> {
  try {
    const response = await fetch(`${probesUrl}/readyz?verbose`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await response.text();
    if (response.ok) return { ok: true, detail: "ok" };
    const failing = body
      .split("\n")
      .filter((line) => line.startsWith("[-]"))
      .map((line) => line.slice(3));
    return { ok: false, detail: failing.join("; ") || `HTTP ${response.status}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { ok: false, detail: cause === "ECONNREFUSED" ? "not listening yet" : (error as Error).message };
  }
}

export class ReadinessTimeoutError extends Error {
  override readonly name = "ReadinessTimeoutError";
  /** Name -> last readyz detail of every target that never became ready. */
  readonly pending: ReadonlyMap<string, string>;

  constructor(timeoutMs: number, pending: ReadonlyMap<string, string>) {
    const list = [...pending].map(([name, detail]) => `${name} (${detail})`).join(", ");
    super(`not ready after ${timeoutMs} ms: ${list}`);
    this.pending = pending;
  }
}

export interface ReadinessTarget {
  readonly name: string;
  /** Current probes base URL; undefined while the process is down (it is then pending). */
  probes(): string | undefined;
}

/**
 * Resolves when every target answers /readyz with 200 (each is checked until it first does). Calls `onPending`
 * every `reportEveryMs` with what is still pending.
 */
export async function waitForReady(
  targets: readonly ReadinessTarget[],
  options: {
    readonly timeoutMs: number;
    readonly intervalMs?: number;
    readonly reportEveryMs?: number;
    readonly onPending?: (pending: ReadonlyMap<string, string>, elapsedMs: number) => void;
    readonly signal?: AbortSignal;
  },
): Promise<void> {
  const started = performance.now();
  const pending = new Map(targets.map((target) => [target.name, "not started"]));
  let lastReport = started;
  for (;;) {
    options.signal?.throwIfAborted();
    await Promise.all(
      targets
        .filter((target) => pending.has(target.name))
        .map(async (target) => {
          const url = target.probes();
          if (url === undefined) return pending.set(target.name, "not running");
          const result = await probeReadyz(url);
          if (result.ok) pending.delete(target.name);
          else pending.set(target.name, result.detail);
        }),
    );
    if (pending.size === 0) return;
    const now = performance.now();
    if (now - started > options.timeoutMs) throw new ReadinessTimeoutError(options.timeoutMs, pending);
    if (options.onPending && now - lastReport >= (options.reportEveryMs ?? 3_000)) {
      lastReport = now;
      options.onPending(new Map(pending), now - started);
    }
    await sleep(options.intervalMs ?? 100, undefined, options.signal ? { signal: options.signal } : undefined);
  }
}
