// Active/standby between watcher replicas through one KV key (bucket `leases`, key `watcher`), in the manner of
// client-go's leaderelection: the holder renews with compare-and-set on the key's revision; a standby takes over
// only after it has seen the same revision for a full lease duration on its own monotonic clock (clocks of
// different machines are never compared). Pure decisions; the adapter does the KV calls and the timing.
import { z } from "zod";

export const LEASE_KEY = "watcher";

export const LeaseRecordSchema = z.object({
  /** Instance name of the holder; "" once released. */
  holder: z.string(),
  /** Unique per process start, so a restarted instance with the same name is a new holder. */
  incarnation: z.string(),
  leaseDurationMs: z.number().int().positive(),
  /** Holder's wall clock at the last renewal: informational only (humans, `nats kv get`). */
  renewedAtMs: z.number().int().nonnegative(),
});
export type LeaseRecord = z.infer<typeof LeaseRecordSchema>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeLease(record: LeaseRecord): Uint8Array {
  return encoder.encode(JSON.stringify(record));
}

/** Undefined when the value is not a lease record (it then counts as held by an unknown holder). */
export function decodeLease(bytes: Uint8Array): LeaseRecord | undefined {
  try {
    const parsed = LeaseRecordSchema.safeParse(JSON.parse(decoder.decode(bytes)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** What a standby saw on the key. */
export interface LeaseObservation {
  readonly revision: number;
  /** Deleted or purged key. */
  readonly deleted: boolean;
  /** Undefined when deleted or unreadable. */
  readonly record: LeaseRecord | undefined;
}

/** When the standby first saw the current revision, on its monotonic clock. */
export interface StandbyMemory {
  readonly revision: number;
  readonly sinceMs: number;
}

export type StandbyDecision =
  | { readonly action: "create" }
  | { readonly action: "acquire"; readonly revision: number; readonly why: "free" | "expired" | "ours" }
  | { readonly action: "wait"; readonly memory: StandbyMemory; readonly expiresInMs: number };

/**
 * `observed` undefined means the key has never been written. A record naming this incarnation is ours (a renewal
 * whose answer was lost, or a step-down nobody followed up on) and is taken back at once.
 */
export function decideStandby(
  observed: LeaseObservation | undefined,
  memory: StandbyMemory | undefined,
  nowMs: number,
  self: { readonly incarnation: string; readonly leaseDurationMs: number },
): StandbyDecision {
  if (observed === undefined) return { action: "create" };
  if (observed.deleted || observed.record?.holder === "") {
    return { action: "acquire", revision: observed.revision, why: "free" };
  }
  if (observed.record?.incarnation === self.incarnation) {
    return { action: "acquire", revision: observed.revision, why: "ours" };
  }
  const durationMs = observed.record?.leaseDurationMs ?? self.leaseDurationMs;
  if (memory === undefined || memory.revision !== observed.revision) {
    return { action: "wait", memory: { revision: observed.revision, sinceMs: nowMs }, expiresInMs: durationMs };
  }
  const elapsedMs = nowMs - memory.sinceMs;
  if (elapsedMs >= durationMs) return { action: "acquire", revision: observed.revision, why: "expired" };
  return { action: "wait", memory, expiresInMs: durationMs - elapsedMs };
}

/** The holder stops acting once it has not renewed for `renewDeadlineMs` (shorter than the lease duration). */
export function leaderMustStepDown(lastRenewMs: number, nowMs: number, renewDeadlineMs: number): boolean {
  return nowMs - lastRenewMs >= renewDeadlineMs;
}
