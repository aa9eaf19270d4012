// Per-key coalescing with bounded concurrency: at most one task per key runs at a time, at most one waits behind
// it, and a newer submission replaces the waiting one (which is told it was superseded). Memory is O(keys with
// work), whatever the arrival rate; the same shape as the actors' coalescing mailbox.

export interface LatestWinsOptions<E> {
  readonly concurrency: number;
  run(key: string, entry: E): Promise<void>;
  /** Called for an entry replaced before it ran. */
  superseded(entry: E): void;
}

interface Slot<E> {
  running: boolean;
  queued: boolean;
  pending: E | undefined;
}

export class LatestWins<E> {
  private readonly options: LatestWinsOptions<E>;
  private readonly slots = new Map<string, Slot<E>>();
  private readonly ready: string[] = [];
  private active = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(options: LatestWinsOptions<E>) {
    this.options = options;
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.slots.size;
  }

  submit(key: string, entry: E): void {
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { running: false, queued: false, pending: undefined };
      this.slots.set(key, slot);
    }
    const replaced = slot.pending;
    slot.pending = entry;
    if (replaced !== undefined) this.options.superseded(replaced);
    if (!slot.running && !slot.queued) {
      slot.queued = true;
      this.ready.push(key);
    }
    this.pump();
  }

  /** Resolves when nothing runs or waits. */
  idle(): Promise<void> {
    if (this.slots.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.active < this.options.concurrency) {
      const key = this.ready.shift();
      if (key === undefined) return;
      const slot = this.slots.get(key);
      if (!slot || slot.pending === undefined) continue;
      const entry = slot.pending;
      slot.pending = undefined;
      slot.queued = false;
      slot.running = true;
      this.active += 1;
      void this.options
        .run(key, entry)
        .catch(() => undefined)
        .finally(() => this.finish(key, slot));
    }
  }

  private finish(key: string, slot: Slot<E>): void {
    this.active -= 1;
    slot.running = false;
    if (slot.pending !== undefined) {
      slot.queued = true;
      this.ready.push(key);
    } else {
      this.slots.delete(key);
    }
    this.pump();
    if (this.slots.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
