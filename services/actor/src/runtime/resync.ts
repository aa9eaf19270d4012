// The periodic resync: every set of every served shard gets a turn about every `periodMs` (kube-controller-manager's
// informer resync), jittered by ±10 % so the fleet's members do not resync in step. 0 disables it.

export interface ResyncDeps {
  readonly periodMs: number;
  /** The shards whose sets get a turn (the ones served now). */
  readonly shards: () => Iterable<number>;
  readonly setsInShard: (shard: number) => Iterable<string>;
  readonly notify: (key: string, reason: "resync") => void;
  /** Defaults to Math.random. */
  readonly random?: () => number;
}

/** The delay before the next resync: `periodMs` within ±10 %, by `random` in [0, 1). */
export function resyncDelayMs(periodMs: number, random: number): number {
  return periodMs * (0.9 + random * 0.2);
}

export class PeriodicResync {
  private readonly deps: ResyncDeps;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(deps: ResyncDeps) {
    this.deps = deps;
  }

  start(): void {
    if (this.deps.periodMs === 0 || this.stopped) return;
    this.timer = setTimeout(() => {
      for (const shard of this.deps.shards()) for (const key of this.deps.setsInShard(shard)) this.deps.notify(key, "resync");
      this.start();
    }, resyncDelayMs(this.deps.periodMs, (this.deps.random ?? Math.random)()));
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
