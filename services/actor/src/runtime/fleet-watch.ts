// KV-watch ingestion for fleet ownership: the `members` and `shards` buckets as this member last saw them (one view
// per key, newest revision wins), the liveness observations of peers, and what each change means for the caller:
// our own member key rewritten by someone else, a shard record naming someone else, or anything new to plan with.
// Undecodable records count as absent (docs/adr/0088-garbage-is-absent-and-repaired.md) and are counted.
import type { KV, KvEntry } from "@nats-io/kv";
import { DecodeError, codecs, memberKeys, shardKeys } from "#protocol";
import type { Codec, DecodeFailure, MemberRecord, ShardRecord } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import type { LivenessObserver } from "../domain/liveness.ts";
import { aliveMembers } from "../domain/ownership-plan.ts";
import type { HandoffKind, MemberFacts, ShardFacts } from "../domain/ownership-plan.ts";

/** The record an entry holds: none for a delete, a purge or bytes that do not decode (then with the reason). */
export function readRecord<T>(entry: KvEntry | null | undefined, codec: Codec<T>): { record: T | undefined; failure?: DecodeFailure } {
  if (!entry || entry.operation !== "PUT") return { record: undefined };
  try {
    return { record: codec.decode(entry.value) };
  } catch (error) {
    return { record: undefined, failure: error instanceof DecodeError ? error.reason : "invalid" };
  }
}

/** Same owner, incarnation and state: the record was only rewritten, nobody else took the shard. */
function sameHolder(a: ShardRecord | undefined, b: ShardRecord | undefined): boolean {
  return a?.owner === b?.owner && a?.incarnation === b?.incarnation && a?.state === b?.state;
}

export interface MemberView {
  readonly record: MemberRecord | undefined;
  readonly revision: number;
  /** Wall time of the KV write, for handoff gap measurements. */
  readonly writtenAtMs: number;
}

export interface ShardView {
  readonly record: ShardRecord | undefined;
  readonly revision: number;
  /** Wall time of the KV write, for handoff gap measurements. */
  readonly writtenAtMs: number;
  /** Monotonic time this member first saw the shard without a live owner. */
  orphanSinceMs: number | undefined;
}

export interface FleetWatchEvents {
  /** Our own member key, as the watch shows it. */
  ownRecord(revision: number, record: MemberRecord | undefined): void;
  /** A shard record, newer than any seen before for the shard. */
  shardRecord(shard: number, revision: number, record: ShardRecord | undefined): void;
  /** Anything changed: plan again. */
  changed(): void;
}

export interface FleetWatchOptions {
  readonly members: KV;
  readonly shards: KV;
  readonly name: string;
  readonly liveness: LivenessObserver;
  readonly now: () => number;
  readonly logger: Logger;
  readonly onUndecodable?: (bucket: "members" | "shards", reason: DecodeFailure) => void;
  readonly events: FleetWatchEvents;
}

/** How long start() waits for the initial values of both buckets before going on with what it has. */
const INITIAL_LOAD_BOUND_MS = 5_000;

export class FleetWatch {
  readonly memberViews = new Map<string, MemberView>();
  readonly shardViews = new Map<number, ShardView>();
  private readonly options: FleetWatchOptions;
  private readonly stops: (() => void)[] = [];
  /** Buckets whose undecodable records were logged at warn already: the rest go to debug (garbage on every key). */
  private readonly undecodableLogged = new Set<string>();

  constructor(options: FleetWatchOptions) {
    this.options = options;
  }

  /** Starts both watches; resolves once their initial values are in (or after a bound). */
  async start(): Promise<void> {
    const memberWatch = await this.options.members.watch({ key: "m.*" });
    const shardWatch = await this.options.shards.watch({ key: "s.*" });
    this.stops.push(() => memberWatch.stop(), () => shardWatch.stop());
    let membersLoaded = (await this.options.members.status()).values === 0;
    let shardsLoaded = (await this.options.shards.status()).values === 0;
    const loaded = new Promise<void>((resolve) => {
      const check = () => membersLoaded && shardsLoaded && resolve();
      check();
      void (async () => {
        for await (const entry of memberWatch) {
          this.onMemberEntry(entry);
          if (entry.delta === 0) membersLoaded = true;
          check();
        }
      })();
      void (async () => {
        for await (const entry of shardWatch) {
          this.onShardEntry(entry);
          if (entry.delta === 0) shardsLoaded = true;
          check();
        }
      })();
    });
    await Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, INITIAL_LOAD_BOUND_MS).unref())]);
  }

  stop(): void {
    for (const stop of this.stops) stop();
  }

  /** Alive members as this member sees them, sorted. */
  aliveMembers(): string[] {
    return aliveMembers(this.memberViews);
  }

  /** Our own write of a shard record: until the watch delivers it, an older view must not stand. */
  recordOwnWrite(shard: number, record: ShardRecord, revision: number): void {
    const view = this.shardViews.get(shard);
    if (!view || view.revision < revision) this.shardViews.set(shard, { record, revision, writtenAtMs: Date.now(), orphanSinceMs: undefined });
  }

  /** The members as planOwnership reads them. */
  memberFacts(nowMs: number): Map<string, MemberFacts> {
    const facts = new Map<string, MemberFacts>();
    for (const [name, view] of this.memberViews) {
      const silentMs = this.options.liveness.silentForMs(name, nowMs);
      facts.set(name, { record: view.record, revisionSeenAtMs: silentMs === undefined ? undefined : nowMs - silentMs });
    }
    return facts;
  }

  /** The shards as planOwnership reads them (the views themselves: ShardView is a ShardFacts). */
  shardFacts(): ReadonlyMap<number, ShardFacts> {
    return this.shardViews;
  }

  /**
   * How long a shard claimed now had no acting owner, from the view the claim was planned with: since its release
   * (graceful), or since its previous owner was declared dead (failover, if this member saw that).
   */
  handoffGapMs(kind: HandoffKind, view: ShardView | undefined, wallNowMs: number): number | undefined {
    const record = view?.record;
    const previousOwner = record ? this.memberViews.get(record.owner) : undefined;
    const sinceMs = kind === "graceful" ? view?.writtenAtMs : previousOwner?.record?.state === "dead" ? previousOwner.writtenAtMs : undefined;
    return sinceMs === undefined ? undefined : Math.max(0, wallNowMs - sinceMs);
  }

  private onMemberEntry(entry: KvEntry): void {
    let name: string;
    try {
      name = memberKeys.parse(entry.key);
    } catch {
      return;
    }
    const { record, failure } = readRecord(entry, codecs.memberRecord);
    if (failure) this.undecodable("members", entry, failure);
    this.memberViews.set(name, { record, revision: entry.revision, writtenAtMs: entry.created.getTime() });
    if (name !== this.options.name) {
      // Undecodable counts as absent: not alive, and its shards are claimed only after orphanClaimAfterMs (ADR 0088).
      if (record && record.state !== "dead") this.options.liveness.observe(name, entry.revision, this.options.now());
      else this.options.liveness.forget(name);
    } else {
      this.options.events.ownRecord(entry.revision, record);
    }
    this.options.events.changed();
  }

  private onShardEntry(entry: KvEntry): void {
    let shard: number;
    try {
      shard = shardKeys.parse(entry.key);
    } catch {
      return;
    }
    // Undecodable counts as no owner at the entry's revision: the owner drops the shard, the desired owner claims it
    // by compare-and-set on that revision (ADR 0088).
    const { record, failure } = readRecord(entry, codecs.shardRecord);
    if (failure) this.undecodable("shards", entry, failure);
    const previous = this.shardViews.get(shard);
    if (previous && previous.revision > entry.revision) return;
    this.shardViews.set(shard, {
      record,
      revision: entry.revision,
      writtenAtMs: entry.created.getTime(),
      // The orphan clock belongs to one holder: a claim by someone else restarts it, or a shard orphaned long ago
      // would look claimable the moment a new owner takes it (before its member record is seen).
      orphanSinceMs: sameHolder(previous?.record, record) ? previous?.orphanSinceMs : undefined,
    });
    this.options.events.shardRecord(shard, entry.revision, record);
    this.options.events.changed();
  }

  private undecodable(bucket: "members" | "shards", entry: KvEntry, reason: DecodeFailure): void {
    this.options.onUndecodable?.(bucket, reason);
    const detail = { bucket, key: entry.key, revision: entry.revision, reason };
    if (this.undecodableLogged.has(bucket)) {
      this.options.logger.debug(detail, "undecodable record treated as absent");
      return;
    }
    this.undecodableLogged.add(bucket);
    this.options.logger.warn(detail, "undecodable record treated as absent (further ones of this bucket are logged at debug)");
  }
}
