// One actor per StatefulSet: a coalescing mailbox (however many events arrive, at most one pending turn), at most
// one turn at a time, a global bound on concurrent turns, per-set back-off on errors, timers for requeueAfterMs,
// a read-your-writes guard (no turn while the cache has not caught up with the actor's own writes) and
// passivation of idle actors.
import type { SpanContext } from "@opentelemetry/api";
import { backoffDelayMs } from "../../../common/src/backoff.ts";
import type { BackoffPolicy } from "../../../common/src/backoff.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { PendingExpectations, describeExpectation } from "../domain/expectations.ts";
import type { Expectation, Lookup } from "../domain/expectations.ts";
import type { SetKey } from "../domain/object-store.ts";

export interface TurnTrigger {
  readonly reasons: readonly string[];
  /** Trace contexts of the events this turn coalesced (the turn's span links to each). */
  readonly links: readonly SpanContext[];
  /** When the oldest coalesced event arrived. */
  readonly enqueuedAtMs: number;
}

export type TurnOutcome =
  | { readonly type: "done"; readonly requeueAfterMs: number | null; readonly expectations: readonly Expectation[] }
  | {
      readonly type: "failed";
      readonly error: unknown;
      readonly retryAfterMs?: number | undefined;
      readonly expectations: readonly Expectation[];
    }
  /** The set is not in the cache (deleted, or its shard is still loading): nothing to do. */
  | { readonly type: "gone" }
  /** This member may not act on the set's shard (not owned, not synced, or fenced). */
  | { readonly type: "not-owned" };

export type TurnRunner = (key: SetKey, trigger: TurnTrigger) => Promise<TurnOutcome>;

export interface ActorSystemMetrics {
  turnStarted?(queueSeconds: number): void;
  turnFinished?(outcome: TurnOutcome["type"], seconds: number): void;
  expectationsExpired?(count: number): void;
  depth?(queued: number, running: number, actors: number): void;
}

export interface ActorSystemOptions {
  readonly runTurn: TurnRunner;
  readonly lookup: Lookup;
  readonly maxConcurrentTurns: number;
  readonly expectationTimeoutMs: number;
  readonly backoff: BackoffPolicy;
  readonly passivateAfterMs: number;
  readonly logger: Logger;
  readonly metrics?: ActorSystemMetrics;
  readonly now?: () => number;
}

const MAX_LINKS = 32;

interface ActorState {
  readonly key: SetKey;
  dirty: boolean;
  reasons: Set<string>;
  links: SpanContext[];
  firstDirtyAtMs: number;
  running: boolean;
  queued: boolean;
  backoffAttempt: number;
  notBeforeMs: number;
  /** Earliest time a requeueAfterMs asked for a turn, 0 when none. */
  requeueAtMs: number;
  timer: NodeJS.Timeout | undefined;
  timerAtMs: number;
  readonly expectations: PendingExpectations;
  lastActiveMs: number;
  /** Resolved when the running turn ends (drain). */
  onIdle: (() => void)[];
}

export class ActorSystem {
  private readonly actors = new Map<SetKey, ActorState>();
  private readonly ready: SetKey[] = [];
  private running = 0;
  private stopped = false;
  private readonly idle = new Set<() => void>();
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly options: ActorSystemOptions;
  private readonly now: () => number;

  constructor(options: ActorSystemOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.sweepTimer = setInterval(() => this.passivateIdle(), Math.max(1000, options.passivateAfterMs / 2));
    this.sweepTimer.unref();
  }

  /** Something about the set changed (or a timer fired): make sure a turn follows. */
  notify(key: SetKey, reason: string, link?: SpanContext): void {
    if (this.stopped) return;
    const state = this.stateOf(key);
    if (!state.dirty) {
      state.dirty = true;
      state.firstDirtyAtMs = this.now();
    }
    state.reasons.add(reason);
    if (link && state.links.length < MAX_LINKS) state.links.push(link);
    state.lastActiveMs = this.now();
    this.tryEnqueue(state);
  }

  /** Discards the actors of sets this member no longer owns. */
  forget(keys: Iterable<SetKey>): void {
    for (const key of keys) {
      const state = this.actors.get(key);
      if (!state) continue;
      if (state.timer) clearTimeout(state.timer);
      if (!state.running) this.actors.delete(key);
      else state.dirty = false;
    }
  }

  /** Discards pending work of these sets and resolves once none of them has a turn running. */
  async drain(keys: readonly SetKey[]): Promise<void> {
    const running: Promise<void>[] = [];
    for (const key of keys) {
      const state = this.actors.get(key);
      if (!state) continue;
      state.dirty = false;
      state.reasons.clear();
      if (state.running) running.push(new Promise<void>((resolve) => state.onIdle.push(resolve)));
    }
    this.forget(keys);
    await Promise.all(running);
  }

  stats(): { actors: number; queued: number; running: number } {
    return { actors: this.actors.size, queued: this.ready.length, running: this.running };
  }

  /** Stops starting turns and waits for running ones to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    for (const state of this.actors.values()) if (state.timer) clearTimeout(state.timer);
    this.ready.length = 0;
    if (this.running > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }

  private stateOf(key: SetKey): ActorState {
    let state = this.actors.get(key);
    if (!state) {
      state = {
        key,
        dirty: false,
        reasons: new Set(),
        links: [],
        firstDirtyAtMs: 0,
        running: false,
        queued: false,
        backoffAttempt: 0,
        notBeforeMs: 0,
        requeueAtMs: 0,
        timer: undefined,
        timerAtMs: 0,
        expectations: new PendingExpectations(),
        lastActiveMs: this.now(),
        onIdle: [],
      };
      this.actors.set(key, state);
    }
    return state;
  }

  private wakeAt(state: ActorState, atMs: number): void {
    if (state.timer && state.timerAtMs <= atMs) return;
    if (state.timer) clearTimeout(state.timer);
    state.timerAtMs = atMs;
    state.timer = setTimeout(
      () => {
        state.timer = undefined;
        state.timerAtMs = 0;
        if (state.requeueAtMs !== 0 && state.requeueAtMs <= this.now()) {
          state.requeueAtMs = 0;
          this.notify(state.key, "requeue");
        } else {
          this.tryEnqueue(state);
        }
        // A later requeue must survive an earlier wake-up (back-off, expectation deadline) taking the timer.
        if (state.requeueAtMs !== 0 && state.timer === undefined && this.actors.has(state.key)) {
          this.wakeAt(state, state.requeueAtMs);
        }
      },
      Math.max(0, atMs - this.now()),
    );
    state.timer.unref?.();
  }

  private tryEnqueue(state: ActorState): void {
    if (this.stopped || !state.dirty || state.running || state.queued) return;
    const now = this.now();
    if (state.expectations.size > 0) {
      const { settled, expired } = state.expectations.settle(this.options.lookup, now);
      if (!settled) {
        this.wakeAt(state, state.expectations.deadline);
        return;
      }
      if (expired.length > 0) {
        this.options.metrics?.expectationsExpired?.(expired.length);
        this.options.logger.warn(
          { set: state.key, expired: expired.slice(0, 5).map(describeExpectation) },
          "cache did not show our own writes in time; planning anyway",
        );
      }
    }
    if (state.notBeforeMs > now) {
      this.wakeAt(state, state.notBeforeMs);
      return;
    }
    state.queued = true;
    this.ready.push(state.key);
    this.pump();
  }

  private pump(): void {
    while (!this.stopped && this.running < this.options.maxConcurrentTurns && this.ready.length > 0) {
      const key = this.ready.shift();
      if (key === undefined) break;
      const state = this.actors.get(key);
      if (!state) continue;
      state.queued = false;
      if (!state.dirty || state.running) continue;
      this.start(state);
    }
    this.options.metrics?.depth?.(this.ready.length, this.running, this.actors.size);
  }

  private start(state: ActorState): void {
    const trigger: TurnTrigger = {
      reasons: [...state.reasons],
      links: state.links,
      enqueuedAtMs: state.firstDirtyAtMs,
    };
    state.dirty = false;
    state.reasons = new Set();
    state.links = [];
    state.running = true;
    this.running++;
    const startedMs = this.now();
    this.options.metrics?.turnStarted?.((startedMs - trigger.enqueuedAtMs) / 1000);
    void this.options
      .runTurn(state.key, trigger)
      .catch((error: unknown): TurnOutcome => ({ type: "failed", error, expectations: [] }))
      .then((outcome) => this.finish(state, outcome, startedMs));
  }

  private finish(state: ActorState, outcome: TurnOutcome, startedMs: number): void {
    state.running = false;
    this.running--;
    for (const resolve of state.onIdle.splice(0)) resolve();
    const now = this.now();
    state.lastActiveMs = now;
    this.options.metrics?.turnFinished?.(outcome.type, (now - startedMs) / 1000);
    switch (outcome.type) {
      case "done":
        state.backoffAttempt = 0;
        state.notBeforeMs = 0;
        state.expectations.add(outcome.expectations, now, this.options.expectationTimeoutMs);
        if (outcome.requeueAfterMs !== null) {
          const at = now + outcome.requeueAfterMs;
          if (state.requeueAtMs === 0 || at < state.requeueAtMs) state.requeueAtMs = at;
          this.wakeAt(state, state.requeueAtMs);
        }
        break;
      case "failed": {
        const delayMs = Math.max(outcome.retryAfterMs ?? 0, backoffDelayMs(this.options.backoff, state.backoffAttempt));
        state.backoffAttempt++;
        state.notBeforeMs = now + delayMs;
        state.expectations.add(outcome.expectations, now, this.options.expectationTimeoutMs);
        if (!state.dirty) {
          state.dirty = true;
          state.firstDirtyAtMs = now;
        }
        state.reasons.add("retry");
        break;
      }
      case "gone":
      case "not-owned":
        state.expectations.clear();
        state.requeueAtMs = 0;
        if (state.timer) clearTimeout(state.timer);
        state.timer = undefined;
        if (!state.dirty) this.actors.delete(state.key);
        break;
    }
    if (state.dirty) this.tryEnqueue(state);
    this.pump();
    if (this.running === 0) {
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }

  /** Drops actors with nothing pending and no activity for passivateAfterMs; they are recreated on demand. */
  private passivateIdle(): void {
    const cutoff = this.now() - this.options.passivateAfterMs;
    for (const [key, state] of this.actors) {
      const idle =
        !state.dirty && !state.running && !state.queued && state.timer === undefined && state.expectations.size === 0;
      if (idle && state.lastActiveMs < cutoff) this.actors.delete(key);
    }
  }
}
