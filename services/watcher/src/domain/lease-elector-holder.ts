// What the active watcher does when the compare-and-set renewing its lease fails: the rule of
// docs/adr/0088-garbage-is-absent-and-repaired.md for the `leases` bucket. Standbys keep domain/lease.ts's rule (an
// undecodable record is held by an unknown holder: taken over once it has stayed the same for a lease duration);
// the holder, which knows it was the last to write a lease record, takes a key that holds none back at once. Pure;
// adapters/lease-elector.ts does the reads and writes.
import type { DecodeFailure } from "#protocol";
import { LeaseRecordSchema } from "./lease.ts";
import type { LeaseObservation, LeaseRecord } from "./lease.ts";

/** The lease key, read after the lost compare-and-set. */
export type HeldLeaseReading =
  /** The read failed, or the key has never been written: nothing to take back. */
  | { readonly kind: "unanswered" }
  /** The last entry is a delete or a purge. */
  | { readonly kind: "absent"; readonly revision: number }
  /** A PUT whose value is no lease record. */
  | { readonly kind: "undecodable"; readonly revision: number }
  | { readonly kind: "record"; readonly revision: number; readonly record: LeaseRecord };

export type LostLeaseRenewDecision =
  /** Still ours (this incarnation) at a later revision: an earlier renew landed and its answer was lost. */
  | { readonly action: "adopt"; readonly revision: number }
  /**
   * No lease record in the key: stop acting at the current epoch, then acquire by compare-and-set on `revision`, as
   * a new holder with a new epoch (another watcher may have held the lease between our last write and the garbage).
   */
  | { readonly action: "retake"; readonly revision: number; readonly why: "undecodable" | "absent" }
  /** Another holder's record (or a release by someone else), or nothing known: step down and stand by. */
  | { readonly action: "lost" };

export function decideLostLeaseRenew(
  reading: HeldLeaseReading,
  self: { readonly holder: string; readonly incarnation: string },
): LostLeaseRenewDecision {
  switch (reading.kind) {
    case "unanswered":
      return { action: "lost" };
    case "absent":
    case "undecodable":
      return { action: "retake", revision: reading.revision, why: reading.kind };
    case "record":
      return reading.record.holder === self.holder && reading.record.incarnation === self.incarnation
        ? { action: "adopt", revision: reading.revision }
        : { action: "lost" };
  }
}

/**
 * The revision a watcher that stepped down to retake the key acquires at once, or undefined when it stands by as
 * usual. It keeps that right while the key still holds no lease record: more garbage may land between its read and
 * its compare-and-set (issue 16's payloads come one after another), and a standby would wait a lease duration. Any
 * lease record ends it, a standby's or its own.
 */
export function retakeRevision(observed: LeaseObservation | undefined, retaking: boolean): number | undefined {
  return retaking && observed !== undefined && observed.record === undefined ? observed.revision : undefined;
}

/**
 * Why bytes are no lease record (the `reason` of stsfleet_dropped_messages_total, with the words of the protocol's
 * DecodeFailure); undefined when they are one.
 */
export function leaseDecodeFailure(bytes: Uint8Array): DecodeFailure | undefined {
  if (bytes.length === 0) return "empty";
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return "malformed";
  }
  return LeaseRecordSchema.safeParse(value).success ? undefined : "invalid";
}
