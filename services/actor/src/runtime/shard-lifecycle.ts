// What this member does as shards come and go (the ownership's listener): a gained shard gets an abort signal and a
// feed; once the feed's replay is done the previous owner is fenced on every set (takeover.ts) and the shard is
// served ("synced": turns run); a lost shard's signal aborts the turns in flight at once, its feed closes and every
// record kept for its sets is forgotten; a shard released gracefully is drained first (feed closed, turns finished).
// A feed that cannot be opened, or a takeover the log fences, gives the shard up through ownership, so it is
// claimed again and opened anew instead of being held and left unserved.
import type { Logger } from "../../../common/src/logger.ts";
import type { ObjectStore, SetKey } from "../domain/object-store.ts";
import type { ActorSystem } from "./actor-system.ts";
import type { ShardIntake } from "./intake.ts";
import type { IntentAppender } from "./intents.ts";
import type { OwnershipListener } from "./ownership.ts";
import type { ObjectRereads } from "./rereads.ts";
import { takeOverShard } from "./takeover.ts";

/** What the lifecycle needs of shard ownership (ShardOwnership). */
export interface ShardHolder {
  epochOf(shard: number): number | undefined;
  /** Stops acting on the shard at `epoch`; ownership claims it again if it is still ours. */
  giveUp(shard: number, epoch: number): unknown;
  readonly incarnation: string;
}

export interface ShardLifecycleMetrics {
  /** Shards gained or lost by this member. */
  shardsMoved(direction: "gained" | "lost", count: number): void;
}

export interface ShardLifecycleDeps {
  readonly intake: Pick<ShardIntake, "open" | "close">;
  readonly store: Pick<ObjectStore, "setsInShard" | "unreadableSetsInShard" | "dropShard">;
  readonly actors: Pick<ActorSystem, "notify" | "drain" | "forget">;
  /** Records kept per set beside its actor (generation floors, foreign-controller records), forgotten with them. */
  readonly setRecords: readonly { forget(keys: Iterable<SetKey>): void }[];
  readonly rereads: Pick<ObjectRereads, "dropShard">;
  readonly intents: IntentAppender;
  readonly holder: ShardHolder;
  readonly member: string;
  readonly logger: Logger;
  readonly metrics: ShardLifecycleMetrics;
}

export class ShardLifecycle implements OwnershipListener {
  private readonly deps: ShardLifecycleDeps;
  /** Per held shard: aborted when it is lost, which ends its turns' waits and writes. */
  private readonly signals = new Map<number, AbortController>();
  /** Held shards whose takeover is done: the ones turns run for. */
  private readonly served = new Set<number>();

  constructor(deps: ShardLifecycleDeps) {
    this.deps = deps;
  }

  gained(shards: ReadonlyMap<number, number>): void {
    this.deps.metrics.shardsMoved("gained", shards.size);
    for (const [shard, epoch] of shards) {
      this.signals.set(shard, new AbortController());
      void this.deps.intake.open(shard).catch((error: unknown) => {
        this.deps.logger.error({ shard, err: error }, "could not open shard feed; giving the shard up");
        this.deps.holder.giveUp(shard, epoch);
      });
    }
  }

  lost(shards: readonly number[]): void {
    this.deps.metrics.shardsMoved("lost", shards.length);
    for (const shard of shards) this.drop(shard);
  }

  async drain(shard: number): Promise<void> {
    await this.deps.intake.close(shard);
    await this.deps.actors.drain(this.deps.store.setsInShard(shard));
  }

  /** The shard's feed replayed its last message (the intake's listener): take the shard over, then serve it. */
  synced(shard: number): void {
    void takeOverShard(shard, {
      epochOf: (s) => this.deps.holder.epochOf(s),
      // A set whose own subject could not be read may exist: it is fenced like the others.
      setsInShard: (s) => [...new Set([...this.deps.store.setsInShard(s), ...this.deps.store.unreadableSetsInShard(s)])],
      appendTakeover: (s, key, epoch) => this.appendTakeover(s, key, epoch),
      markSynced: (s) => this.served.add(s),
      giveUp: (s, epoch, reason) => {
        this.deps.logger.warn({ shard: s, epoch, err: reason }, "takeover intent fenced; giving the shard up");
        this.deps.holder.giveUp(s, epoch);
      },
      notify: (key, reason) => this.deps.actors.notify(key, reason),
    });
  }

  /** Aborted when the shard is lost; undefined for a shard not held. */
  signalFor(shard: number): AbortSignal | undefined {
    return this.signals.get(shard)?.signal;
  }

  /** Whether turns run for the shard: held, its cache rebuilt and its previous owner fenced. */
  isSynced(shard: number): boolean {
    return this.served.has(shard);
  }

  syncedShards(): ReadonlySet<number> {
    return this.served;
  }

  private appendTakeover(shard: number, key: SetKey, epoch: number): Promise<unknown> {
    const [namespace = "", name = ""] = key.split("/");
    return this.deps.intents.append(
      { shard, namespace, name },
      { type: "intent.takeover", shard, epoch, member: this.deps.member, incarnation: this.deps.holder.incarnation },
    );
  }

  private drop(shard: number): void {
    const { intake, rereads, store, actors, setRecords, intents } = this.deps;
    this.signals.get(shard)?.abort();
    this.signals.delete(shard);
    this.served.delete(shard);
    void intake.close(shard);
    rereads.dropShard(shard);
    const dropped = store.dropShard(shard);
    actors.forget(dropped);
    for (const records of setRecords) records.forget(dropped);
    intents.forgetShard(shard);
  }
}
