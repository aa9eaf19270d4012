// Shard ownership through NATS KV with compare-and-set only. This member keeps a member record alive in bucket
// `members` and claims shards in bucket `shards`; the KV revision of `s.<shard>` at claim time is the shard's
// epoch, carried by every command. A shard is claimed only when it has no owner, was released, or its owner is
// known not to be alive (missing or dead member record, or an earlier incarnation of this member).
// Self-fencing: this member acts only while its last successful renew was sent less than renewDeadlineMs ago.
import { randomUUID } from "node:crypto";
import type { KV, KvEntry } from "@nats-io/kv";
import { ALL_SHARDS, codecs, memberKeys, shardKeys } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import { VERSION } from "../../../common/src/version.ts";

export interface LeaseProfile {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export const LEASE_PROFILES = {
  /** kube-controller-manager's defaults. */
  default: { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
  fast: { leaseDurationMs: 8_000, renewDeadlineMs: 5_000, retryPeriodMs: 1_000 },
} as const satisfies Record<string, LeaseProfile>;

export interface OwnershipListener {
  /** Shards this member now owns, with their epochs. */
  gained(shards: ReadonlyMap<number, number>): void;
  /** Shards this member must stop acting on at once. */
  lost(shards: readonly number[]): void;
}

export interface OwnershipOptions {
  readonly members: KV;
  readonly shards: KV;
  readonly name: string;
  readonly profile: LeaseProfile;
  readonly logger: Logger;
  readonly listener: OwnershipListener;
  /** Which shards to try to own (all of them for a single-member fleet). */
  readonly desiredShards?: () => readonly number[];
  readonly now?: () => number;
}

function decodeMember(entry: KvEntry | null): MemberRecord | undefined {
  if (!entry || entry.operation !== "PUT") return undefined;
  try {
    return codecs.memberRecord.decode(entry.value);
  } catch {
    return undefined;
  }
}

function decodeShard(entry: KvEntry | null): ShardRecord | undefined {
  if (!entry || entry.operation !== "PUT") return undefined;
  try {
    return codecs.shardRecord.decode(entry.value);
  } catch {
    return undefined;
  }
}

export class ShardOwnership {
  readonly incarnation = randomUUID();
  private readonly owned = new Map<number, number>();
  private memberRevision = 0;
  private lastRenewSentMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly options: OwnershipOptions;
  private readonly now: () => number;
  private readonly startedAtMs: number;

  constructor(options: OwnershipOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
    this.startedAtMs = Date.now();
  }

  private record(state: MemberRecord["state"]): Uint8Array {
    return codecs.memberRecord.encode({
      type: "member",
      name: this.options.name,
      incarnation: this.incarnation,
      state,
      leaseDurationMs: this.options.profile.leaseDurationMs,
      renewDeadlineMs: this.options.profile.renewDeadlineMs,
      retryPeriodMs: this.options.profile.retryPeriodMs,
      version: VERSION,
      startedAtMs: this.startedAtMs,
    });
  }

  /** The epoch of an owned shard, undefined if not owned. */
  epochOf(shard: number): number | undefined {
    return this.owned.get(shard);
  }

  ownedShards(): ReadonlyMap<number, number> {
    return this.owned;
  }

  /** True while the lease is fresh enough to act (self-fencing). */
  leaseFresh(): boolean {
    return this.lastRenewSentMs > 0 && this.now() - this.lastRenewSentMs < this.options.profile.renewDeadlineMs;
  }

  canAct(shard: number, epoch: number): boolean {
    return !this.stopped && this.owned.get(shard) === epoch && this.leaseFresh();
  }

  async start(): Promise<void> {
    await this.join();
    await this.claimShards();
    this.schedule();
  }

  private async join(): Promise<void> {
    const key = memberKeys.build(this.options.name);
    const sentMs = this.now();
    const existing = await this.options.members.get(key);
    this.memberRevision =
      existing && existing.operation === "PUT"
        ? await this.options.members.update(key, this.record("alive"), existing.revision)
        : await this.options.members.create(key, this.record("alive"));
    this.lastRenewSentMs = sentMs;
    this.options.logger.info({ incarnation: this.incarnation }, "joined the fleet");
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule());
    }, this.options.profile.retryPeriodMs);
  }

  private async tick(): Promise<void> {
    const key = memberKeys.build(this.options.name);
    const sentMs = this.now();
    try {
      this.memberRevision = await this.options.members.update(key, this.record("alive"), this.memberRevision);
      this.lastRenewSentMs = sentMs;
    } catch (error) {
      const current = decodeMember(await this.options.members.get(key).catch(() => null));
      if (current && current.incarnation !== this.incarnation) {
        // Someone declared us dead or another process took our name: never "un-die"; drop everything and re-join.
        this.options.logger.error({ err: error }, "member record taken over; dropping all shards and re-joining");
        this.loseAll();
        try {
          await this.join();
        } catch (joinError) {
          this.options.logger.error({ err: joinError }, "re-join failed");
          return;
        }
      } else {
        this.options.logger.warn({ err: error }, "lease renew failed");
        if (!this.leaseFresh()) this.loseAll();
        return;
      }
    }
    await this.claimShards();
  }

  private loseAll(): void {
    if (this.owned.size === 0) return;
    const lost = [...this.owned.keys()];
    this.owned.clear();
    this.options.listener.lost(lost);
  }

  private async ownerIsAlive(owner: string, incarnation: string): Promise<boolean> {
    if (owner === this.options.name) return incarnation === this.incarnation;
    const record = decodeMember(await this.options.members.get(memberKeys.build(owner)));
    return record !== undefined && record.state !== "dead" && record.incarnation === incarnation;
  }

  /** Claims every desired shard that is free; reports gains in one batch. */
  async claimShards(): Promise<void> {
    if (this.stopped || !this.leaseFresh()) return;
    const desired = this.options.desiredShards?.() ?? ALL_SHARDS;
    const gained = new Map<number, number>();
    const value = (state: ShardRecord["state"], shard: number) =>
      codecs.shardRecord.encode({ type: "shard", shard, owner: this.options.name, incarnation: this.incarnation, state });
    await Promise.all(
      desired
        .filter((shard) => !this.owned.has(shard))
        .map(async (shard) => {
          const key = shardKeys.build(shard);
          try {
            const entry = await this.options.shards.get(key);
            const record = decodeShard(entry);
            let epoch: number;
            if (!entry || entry.operation !== "PUT") {
              epoch = entry ? await this.options.shards.update(key, value("owned", shard), entry.revision) : await this.options.shards.create(key, value("owned", shard));
            } else if (
              !record ||
              record.state === "released" ||
              !(await this.ownerIsAlive(record.owner, record.incarnation))
            ) {
              epoch = await this.options.shards.update(key, value("owned", shard), entry.revision);
            } else {
              return; // a live owner keeps it until it releases
            }
            gained.set(shard, epoch);
          } catch (error) {
            this.options.logger.debug({ shard, err: error }, "claim lost a race");
          }
        }),
    );
    if (gained.size === 0) return;
    for (const [shard, epoch] of gained) this.owned.set(shard, epoch);
    this.options.logger.info({ shards: gained.size, owned: this.owned.size }, "claimed shards");
    this.options.listener.gained(gained);
  }

  /** Graceful leave: release every shard (compare-and-set on the claim revision), then mark the member record. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const owned = [...this.owned];
    this.owned.clear();
    this.options.listener.lost(owned.map(([shard]) => shard));
    await Promise.all(
      owned.map(async ([shard, epoch]) => {
        const released = codecs.shardRecord.encode({
          type: "shard",
          shard,
          owner: this.options.name,
          incarnation: this.incarnation,
          state: "released",
        });
        await this.options.shards.update(shardKeys.build(shard), released, epoch).catch(() => undefined);
      }),
    );
    await this.options.members
      .update(memberKeys.build(this.options.name), this.record("dead"), this.memberRevision)
      .catch(() => undefined);
  }
}
