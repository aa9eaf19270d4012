// What a member does when the compare-and-set renewing its own record `m.<name>` fails: the rule of
// docs/adr/0088-garbage-is-absent-and-repaired.md. The record it then reads is the only evidence. A record that is
// not a live record of this incarnation (declared dead by a peer, another incarnation under our name, deleted,
// purged, or bytes that do not decode) means the peers no longer count us as a member: they may claim our shards.
// The member must never act under this incarnation again, so it drops every shard and re-joins as a new one, by
// compare-and-set on the revision it read. Pure; the runtime (runtime/ownership.ts) does the reads and writes.
import type { MemberRecord } from "#protocol";

/** The member's own key, read after the lost compare-and-set. */
export type OwnRecordReading =
  /** The read failed or timed out: nothing is known (the bucket may have no leader). */
  | { readonly kind: "unanswered" }
  /** No entry, or the last one is a delete or a purge. */
  | { readonly kind: "absent" }
  /** A PUT whose value is no member record. */
  | { readonly kind: "undecodable"; readonly revision: number }
  | { readonly kind: "record"; readonly revision: number; readonly record: Pick<MemberRecord, "incarnation" | "state"> };

/** Why the member re-joins: what its own key held instead of a live record of this incarnation. */
export type RejoinReason = "declared-dead" | "another-incarnation" | "absent" | "undecodable";

export type LostRenewDecision =
  /** Keep the incarnation and renew again soon (the lease may still lapse: self-fencing stays in charge). */
  | { readonly action: "retry" }
  /** Still ours and alive at a later revision: an earlier renew landed and its answer was lost. */
  | { readonly action: "adopt"; readonly revision: number }
  /** Drop every shard, take a new incarnation, write it over whatever the key holds. */
  | { readonly action: "rejoin"; readonly why: RejoinReason };

export function decideLostRenew(reading: OwnRecordReading, self: { readonly incarnation: string; readonly revision: number }): LostRenewDecision {
  switch (reading.kind) {
    case "unanswered":
      return { action: "retry" };
    case "absent":
    case "undecodable":
      return { action: "rejoin", why: reading.kind };
    case "record":
      if (reading.record.incarnation !== self.incarnation) return { action: "rejoin", why: "another-incarnation" };
      if (reading.record.state === "dead") return { action: "rejoin", why: "declared-dead" };
      return reading.revision > self.revision ? { action: "adopt", revision: reading.revision } : { action: "retry" };
  }
}
