// One socket write per event-loop turn instead of one per publish (ADR 0085). nats.js queues every protocol command
// in an outbound buffer and flushes it to the socket on the next microtask, so publishes issued from separate
// promise continuations (a watcher's publishes, a turn's intent append and commands, a consumer's acks) each cost a
// native write, a promise and a write callback. Deferring the flush to setImmediate sends everything a turn of the
// event loop produced in one write. Order is unchanged: the buffer is the same, only the moment it is written moves.
import type { NatsConnection } from "@nats-io/transport-node";

/** Above this many buffered bytes the flush is not deferred (nats.js flushes inline at 32 KiB; this bounds memory). */
export const MAX_COALESCED_BYTES = 1024 * 1024;

/** The part of nats.js's (internal) protocol handler that this relies on. */
interface FlushingProtocol {
  flushPending(): void;
  readonly outbound: { size(): number };
}

function isFlushingProtocol(value: unknown): value is FlushingProtocol {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { flushPending?: unknown; outbound?: { size?: unknown } };
  return typeof candidate.flushPending === "function" && typeof candidate.outbound?.size === "function";
}

/**
 * Makes the connection write its outbound buffer at most once per event-loop turn. Returns false (and changes
 * nothing) when the client's internals are not the ones this was written against: writes then stay per microtask,
 * which is correct, only slower.
 */
export function coalesceWrites(connection: NatsConnection): boolean {
  const protocol = (connection as unknown as { protocol?: unknown }).protocol;
  if (!isFlushingProtocol(protocol)) return false;
  const flushNow = protocol.flushPending.bind(protocol);
  let scheduled: NodeJS.Immediate | undefined;
  protocol.flushPending = () => {
    if (protocol.outbound.size() >= MAX_COALESCED_BYTES) {
      if (scheduled !== undefined) clearImmediate(scheduled);
      scheduled = undefined;
      flushNow();
      return;
    }
    if (scheduled !== undefined) return;
    scheduled = setImmediate(() => {
      scheduled = undefined;
      flushNow();
    });
  };
  return true;
}
