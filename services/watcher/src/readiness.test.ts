// The watcher's readiness checks, each against the part it asks about.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WATCHED_KINDS } from "./domain/objects.ts";
import { MirrorState } from "./domain/state.ts";
import { allReady, watcherReadiness } from "./readiness.ts";

function answers(checks: ReturnType<typeof watcherReadiness>): Record<string, boolean | string> {
  return Object.fromEntries([...checks].map(([name, check]) => [name, check()]));
}

describe("watcherReadiness", () => {
  it("is ready once connected, the lease decided, every kind listed and, when active, the stream index rebuilt", () => {
    const nats = { connected: false, isConnected: () => nats.connected };
    const elector = { decided: false, isLeader: false };
    const state = new MirrorState();
    const shutdown = { stopping: false };
    const checks = watcherReadiness({ nats, elector, state, stopping: () => shutdown.stopping });
    assert.deepEqual(answers(checks), {
      nats: "not connected to NATS",
      lease: "lease not observed yet",
      synced: "initial lists pending: sts, pod, pvc, rev",
      stream: true,
      shutdown: true,
    });
    nats.connected = true;
    elector.decided = true;
    for (const kind of WATCHED_KINDS) state.markSynced(kind);
    assert.equal(allReady(checks), true, "a synced standby is ready");
    elector.isLeader = true;
    assert.equal(answers(checks)["stream"], "rebuilding the stream index");
    state.ledger.activate([]);
    assert.equal(allReady(checks), true);
    shutdown.stopping = true;
    assert.equal(answers(checks)["shutdown"], "shutting down");
    assert.equal(allReady(checks), false);
  });
});
