// When a watcher is ready (the shell folds these into /readyz under `watcher`): connected to NATS, the lease read at
// least once (active or standby, both are ready), the first list of every kind mirrored, the stream index rebuilt
// when active, and not shutting down. A synced standby is ready: it takes over with a warm mirror.
import type { NatsHandle } from "../../common/src/nats.ts";
import type { ReadinessCheck } from "../../common/src/ops-server.ts";
import type { LeaseElector } from "./adapters/lease-elector.ts";
import { WATCHED_KINDS } from "./domain/objects.ts";
import type { MirrorState } from "./domain/state.ts";

export interface ReadinessParts {
  readonly nats: Pick<NatsHandle, "isConnected">;
  readonly elector: Pick<LeaseElector, "decided" | "isLeader">;
  readonly state: Pick<MirrorState, "synced" | "isKindSynced" | "ledger">;
  readonly stopping: () => boolean;
}

export function watcherReadiness(parts: ReadinessParts): ReadonlyMap<string, ReadinessCheck> {
  const { nats, elector, state } = parts;
  return new Map<string, ReadinessCheck>([
    ["nats", () => (nats.isConnected() ? true : "not connected to NATS")],
    ["lease", () => (elector.decided ? true : "lease not observed yet")],
    ["synced", () => state.synced || `initial lists pending: ${WATCHED_KINDS.filter((k) => !state.isKindSynced(k)).join(", ")}`],
    ["stream", () => (!elector.isLeader || state.ledger.isActive ? true : "rebuilding the stream index")],
    ["shutdown", () => (parts.stopping() ? "shutting down" : true)],
  ]);
}

/** True when every check answers true. */
export function allReady(checks: ReadonlyMap<string, ReadinessCheck>): boolean {
  for (const check of checks.values()) if (check() !== true) return false;
  return true;
}
