// The options, timings and listener of ShardOwnership (runtime/ownership.ts), each with its default beside it.
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { DecodeFailure } from "#protocol";
import type { BackoffPolicy } from "../../../common/src/backoff.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { DEFAULT_GIVE_UP_TIMINGS } from "../domain/give-up-backoff.ts";

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

/** How a peer was found dead: its connection vanished (probe) or it stopped renewing (lease). */
export type DeathReason = "no-responders" | "lease-expired";

export interface OwnershipListener {
  /** Shards this member now owns, with their epochs. */
  gained(shards: ReadonlyMap<number, number>): void;
  /** Shards this member must stop acting on at once. */
  lost(shards: readonly number[]): void;
  /** Before a graceful release: stop intake and wait for in-flight turns of the shard's sets. */
  drain(shard: number): Promise<void>;
}

export interface FleetTimings {
  /** Membership must be unchanged this long before shards move between live members. Defaults to 3 s. */
  readonly stableAfterMs: number;
  /** Defaults to 150 ms. */
  readonly probeIntervalMs: number;
  /** Defaults to 1 s. */
  readonly probeTimeoutMs: number;
  /** After this member reconnects to NATS, probe failures prove nothing for this long (peers reconnect too). Defaults to 3 s. */
  readonly probeGraceAfterReconnectMs: number;
  /**
   * A peer is declared dead by probe only when "no responders" still holds this long after the first one. A peer
   * whose NATS node went away has no subscription until it reconnects to another node (tens of milliseconds);
   * a dead process never gets one back. Defaults to 300 ms.
   */
  readonly noRespondersConfirmMs: number;
  /** Any live member may claim a dead member's shard that its desired owner has not claimed after this long. Defaults to 5 s. */
  readonly orphanClaimAfterMs: number;
  /** At most this many shards are being drained and released by this member at once. Defaults to 32. */
  readonly maxConcurrentReleases: number;
  /** The delay before a shard given up again soon after its claim is claimed again. Defaults to 250 ms doubling up to 30 s. */
  readonly giveUpBackoff: BackoffPolicy;
  /** A shard held this long before its give-up is claimed again at once. Defaults to 60 s. */
  readonly giveUpResetAfterMs: number;
}

export const DEFAULT_FLEET_TIMINGS: FleetTimings = {
  stableAfterMs: 3_000,
  probeIntervalMs: 150,
  probeTimeoutMs: 1_000,
  probeGraceAfterReconnectMs: 3_000,
  noRespondersConfirmMs: 300,
  orphanClaimAfterMs: 5_000,
  maxConcurrentReleases: 32,
  giveUpBackoff: DEFAULT_GIVE_UP_TIMINGS.backoff,
  giveUpResetAfterMs: DEFAULT_GIVE_UP_TIMINGS.resetAfterMs,
};

export interface OwnershipOptions {
  readonly connection: NatsConnection;
  readonly members: KV;
  readonly shards: KV;
  readonly name: string;
  readonly profile: LeaseProfile;
  readonly timings?: Partial<FleetTimings>;
  readonly logger: Logger;
  readonly listener: OwnershipListener;
  /** Monotonic clock in ms. Defaults to performance.now. */
  readonly now?: () => number;
  /** This member declared a peer dead (for metrics and tests). */
  readonly onDeath?: (event: { member: string; why: DeathReason }) => void;
  /** Observes handoffs (for metrics): a shard claimed here, and how long it had no acting owner. */
  readonly onHandoff?: (event: { shard: number; kind: "graceful" | "failover" | "initial"; gapMs: number | undefined }) => void;
  /**
   * A record of `bucket` that does not decode, once per revision the watch shows: counted by the caller as a dropped
   * message. It is treated as absent; ADR 0088 says who writes over it.
   */
  readonly onUndecodable?: (bucket: "members" | "shards", reason: DecodeFailure) => void;
}
