// A list-watch loop per kind, after client-go's reflector rather than client-node's informer (which neither asks for
// bookmarks nor restarts on errors, see the ecosystem brief A.2): paginated list, then watch from the list's
// resourceVersion with allowWatchBookmarks and a random server-side timeout, resume from the last resourceVersion
// seen (bookmarks keep it fresh), relist on 410 Gone, back off on errors, restart a silent watch, and relist
// periodically as a safety net. resourceVersions are opaque strings: only stored and sent back, never ordered.
import { setTimeout as sleep } from "node:timers/promises";
import { assertNever } from "#protocol";
import { backoffDelayMs } from "../../../common/src/backoff.ts";
import type { BackoffPolicy } from "../../../common/src/backoff.ts";
import type { Logger } from "../../../common/src/logger.ts";
import type { WatchedKind } from "../domain/objects.ts";
import type { RelistReason, WatchRestartReason, WatcherMetrics } from "../metrics.ts";

export interface ListPage {
  readonly items: readonly unknown[];
  readonly resourceVersion: string;
  /** Set when more pages follow. */
  readonly continueToken: string | undefined;
}

export interface WatchHandle {
  abort(): void;
}

/** The two calls a reflector makes; implemented over the Kubernetes client, or faked in tests. */
export interface KubeSource {
  list(options: { limit: number; continueToken: string | undefined; signal: AbortSignal }): Promise<ListPage>;
  /** `onDone` is called once when the stream ends (by the server, an error or `abort()`), with the error if any. */
  watch(
    options: { resourceVersion: string; timeoutSeconds: number },
    onEvent: (type: string, object: unknown) => void,
    onDone: (error: unknown) => void,
  ): Promise<WatchHandle>;
}

export interface ReflectorSink {
  /** The complete list of the kind, replacing whatever was known. */
  replace(items: readonly unknown[]): void;
  event(type: "ADDED" | "MODIFIED" | "DELETED", object: unknown): void;
}

export interface ReflectorOptions {
  readonly kind: WatchedKind;
  readonly pageSize: number;
  /** Each watch asks the server to end it after a random time in [this, 2 × this) seconds (client-go). */
  readonly watchTimeoutSeconds: number;
  readonly stallTimeoutMs: number;
  /** 0 disables the periodic relist. */
  readonly relistPeriodMs: number;
  readonly backoff: BackoffPolicy;
  readonly random?: () => number;
  /** Monotonic milliseconds. */
  readonly now?: () => number;
  /** A watch that ends sooner than this without any event counts as a failure (backs off), as in client-go. */
  readonly shortWatchMs?: number;
}

/** An ERROR event in the watch stream that is not 410 Gone. */
export class WatchErrorEvent extends Error {
  override readonly name = "WatchErrorEvent";
  readonly code: number | undefined;
  readonly reason: string | undefined;

  constructor(status: unknown) {
    const record = (status ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
    const code = typeof record.code === "number" ? record.code : undefined;
    const reason = typeof record.reason === "string" ? record.reason : undefined;
    super(`watch ERROR event: ${code ?? "?"} ${reason ?? ""} ${typeof record.message === "string" ? record.message : ""}`.trim());
    this.code = code;
    this.reason = reason;
  }
}

/** The list response lacked what a list must have. */
export class MalformedListError extends Error {
  override readonly name = "MalformedListError";
}

/** True for "resourceVersion too old" answers: HTTP 410 on a list page or watch, or an Expired status. */
export function isGone(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  const record = error as { status?: unknown; statusCode?: unknown; code?: unknown };
  return record.status === 410 || record.statusCode === 410 || record.code === 410;
}

type WatchOutcome =
  | { readonly type: "closed"; readonly events: number }
  | { readonly type: "gone" }
  | { readonly type: "stall" }
  | { readonly type: "relist" }
  | { readonly type: "stopped" }
  | { readonly type: "error"; readonly error: unknown };

function resourceVersionOf(object: unknown): string | undefined {
  const metadata = (object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  const rv = metadata?.resourceVersion;
  return typeof rv === "string" && rv.length > 0 ? rv : undefined;
}

export class Reflector {
  private readonly source: KubeSource;
  private readonly sink: ReflectorSink;
  private readonly options: ReflectorOptions;
  private readonly metrics: WatcherMetrics;
  private readonly logger: Logger;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly stopController = new AbortController();
  private resourceVersion: string | undefined;
  private relistAtMs: number | undefined;
  private stopCurrentWatch: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private hasSynced = false;
  private readonly onSynced: () => void;

  constructor(init: {
    source: KubeSource;
    sink: ReflectorSink;
    options: ReflectorOptions;
    metrics: WatcherMetrics;
    logger: Logger;
    onSynced?: () => void;
  }) {
    this.source = init.source;
    this.sink = init.sink;
    this.options = init.options;
    this.metrics = init.metrics;
    this.logger = init.logger.child({ component: "reflector", kind: init.options.kind });
    this.random = init.options.random ?? Math.random;
    this.now = init.options.now ?? (() => performance.now());
    this.onSynced = init.onSynced ?? (() => undefined);
  }

  /** True once the first list has been handed to the sink. */
  get synced(): boolean {
    return this.hasSynced;
  }

  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  start(): void {
    this.running ??= this.run().catch((error: unknown) => {
      this.logger.fatal({ err: error }, "list-watch loop crashed");
    });
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    this.stopCurrentWatch?.();
    await this.running;
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private restart(reason: WatchRestartReason): void {
    this.metrics.watchRestarts.inc({ kind: this.options.kind, reason });
  }

  private async pause(attempt: number): Promise<void> {
    const delayMs = backoffDelayMs(this.options.backoff, attempt, this.random);
    try {
      await sleep(delayMs, undefined, { signal: this.stopController.signal });
    } catch {
      // stopped
    }
  }

  private async run(): Promise<void> {
    const kind = this.options.kind;
    let needList = true;
    let relistReason: RelistReason = "initial";
    let attempt = 0;
    let gonesInARow = 0;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.list(relistReason);
          needList = false;
          attempt = 0;
        }
        const startedMs = this.now();
        const outcome = await this.watchOnce();
        switch (outcome.type) {
          case "closed":
            this.restart("closed");
            gonesInARow = 0;
            if (outcome.events === 0 && this.now() - startedMs < (this.options.shortWatchMs ?? 1_000)) {
              await this.pause(attempt++);
            } else {
              attempt = 0;
            }
            break;
          case "gone":
            this.metrics.watchGone.inc({ kind });
            this.restart("gone");
            this.logger.info({ resourceVersion: this.resourceVersion }, "watch expired (410 Gone); relisting");
            needList = true;
            relistReason = "gone";
            if (gonesInARow++ > 0) await this.pause(attempt++);
            break;
          case "stall":
            this.metrics.watchStalls.inc({ kind });
            this.restart("stall");
            this.logger.warn({ stallTimeoutMs: this.options.stallTimeoutMs }, "watch silent for too long; restarting it");
            break;
          case "relist":
            this.restart("relist");
            needList = true;
            relistReason = "periodic";
            break;
          case "stopped":
            return;
          case "error":
            throw outcome.error;
          default:
            return assertNever(outcome, "watch outcome");
        }
      } catch (error) {
        if (this.stopped) return;
        if (isGone(error)) {
          // A list page whose continue token expired, or a watch refused with HTTP 410: start over with a fresh list.
          this.metrics.watchGone.inc({ kind });
          needList = true;
          relistReason = "gone";
          if (gonesInARow++ > 0) await this.pause(attempt++);
          continue;
        }
        if (needList) relistReason = "error";
        else this.restart("error");
        this.logger.warn({ err: error, attempt }, needList ? "list failed; retrying" : "watch failed; retrying");
        await this.pause(attempt++);
      }
    }
  }

  private async list(reason: RelistReason): Promise<void> {
    const kind = this.options.kind;
    this.metrics.relists.inc({ kind, reason });
    const startedMs = this.now();
    const items: unknown[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const page = await this.source.list({
        limit: this.options.pageSize,
        continueToken,
        signal: this.stopController.signal,
      });
      if (!Array.isArray(page.items)) throw new MalformedListError(`${kind} list has no items array`);
      if (typeof page.resourceVersion !== "string" || page.resourceVersion === "") {
        throw new MalformedListError(`${kind} list has no resourceVersion`);
      }
      for (const item of page.items) items.push(item);
      resourceVersion = page.resourceVersion;
      continueToken = page.continueToken || undefined;
    } while (continueToken !== undefined && !this.stopped);
    if (this.stopped || resourceVersion === undefined) return;
    this.sink.replace(items);
    this.resourceVersion = resourceVersion;
    this.metrics.listDuration.observe({ kind }, (this.now() - startedMs) / 1000);
    this.metrics.listItems.observe({ kind }, items.length);
    if (this.options.relistPeriodMs > 0) {
      this.relistAtMs = this.now() + this.options.relistPeriodMs * (1 + 0.5 * this.random());
    }
    this.logger.debug({ items: items.length, resourceVersion, reason }, "listed");
    if (!this.hasSynced) {
      this.hasSynced = true;
      this.onSynced();
    }
  }

  private watchOnce(): Promise<WatchOutcome> {
    const resourceVersion = this.resourceVersion ?? "";
    const timeoutSeconds = Math.floor(this.options.watchTimeoutSeconds * (1 + this.random()));
    return new Promise<WatchOutcome>((resolve) => {
      let settled = false;
      let events = 0;
      let abortReason: "stall" | "relist" | "stopped" | undefined;
      let handle: WatchHandle | undefined;
      let watchdog: NodeJS.Timeout | undefined;
      let relistTimer: NodeJS.Timeout | undefined;

      const finish = (outcome: WatchOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(watchdog);
        clearTimeout(relistTimer);
        this.stopCurrentWatch = undefined;
        handle?.abort();
        resolve(outcome);
      };
      const abort = (reason: "stall" | "relist" | "stopped") => {
        abortReason ??= reason;
        finish({ type: reason });
      };
      const feedWatchdog = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => abort("stall"), this.options.stallTimeoutMs);
      };

      this.stopCurrentWatch = () => abort("stopped");
      if (this.stopped) return abort("stopped");
      feedWatchdog();
      if (this.relistAtMs !== undefined) {
        relistTimer = setTimeout(() => abort("relist"), Math.max(0, this.relistAtMs - this.now()));
      }

      const onEvent = (type: string, object: unknown) => {
        if (settled) return;
        events++;
        feedWatchdog();
        const ended = this.handleEvent(type, object);
        if (ended) finish(ended);
      };
      const onDone = (error: unknown) => {
        if (settled) return;
        if (abortReason) return finish({ type: abortReason });
        if (error === null || error === undefined) return finish({ type: "closed", events });
        // client-node's own inactivity timeout (no bytes for a while) is a silent watch as well.
        if (error instanceof Error && error.name === "TimeoutError") return finish({ type: "stall" });
        finish(isGone(error) ? { type: "gone" } : { type: "error", error });
      };

      this.source.watch({ resourceVersion, timeoutSeconds }, onEvent, onDone).then(
        (started) => {
          handle = started;
          if (settled) started.abort();
        },
        (error: unknown) => onDone(error),
      );
    });
  }

  /** Hands one watch event to the sink and keeps its resourceVersion; an ERROR event ends the watch with the outcome. */
  private handleEvent(type: string, object: unknown): WatchOutcome | undefined {
    this.metrics.watchEvents.inc({ kind: this.options.kind, type });
    switch (type) {
      case "ADDED":
      case "MODIFIED":
      case "DELETED":
        try {
          this.sink.event(type, object);
        } catch (error) {
          this.logger.error({ err: error, type }, "the mirror refused a watch event");
        }
        this.resourceVersion = resourceVersionOf(object) ?? this.resourceVersion;
        return undefined;
      case "BOOKMARK":
        this.resourceVersion = resourceVersionOf(object) ?? this.resourceVersion;
        return undefined;
      case "ERROR":
        return isGone(object) ? { type: "gone" } : { type: "error", error: new WatchErrorEvent(object) };
      default:
        this.logger.warn({ type }, "unknown watch event type; ignored");
        return undefined;
    }
  }
}
