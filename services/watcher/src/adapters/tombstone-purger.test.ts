// The tombstone purger against a stream and a ledger kept as plain stores: each subject purged up to its own held
// sequence (a newer message survives), counted, and no round once the publisher is closed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JetStreamManager } from "@nats-io/jetstream";
import { Registry } from "prom-client";
import { createLogger } from "../../../common/src/logger.ts";
import { createWatcherMetrics } from "../metrics.ts";
import { TombstonePurger } from "./tombstone-purger.ts";

/** Stream sequences per subject; a purge removes those below `seq`. */
function streamStore(messages: Record<string, number[]>) {
  const jsm = {
    streams: {
      purge: (_stream: string, options: { filter: string; seq: number }) => {
        const kept = (messages[options.filter] ?? []).filter((seq) => seq >= options.seq);
        const purged = (messages[options.filter]?.length ?? 0) - kept.length;
        messages[options.filter] = kept;
        return Promise.resolve({ success: true, purged });
      },
    },
  };
  return { messages, jsm: jsm as unknown as JetStreamManager };
}

/** The ledger's purge bookkeeping: its candidates, forgotten once purged. */
function ledgerStore(candidates: { subject: string; seq: number }[]) {
  return {
    candidates,
    purgeCandidates: (_nowMs: number, _ttlMs: number, limit: number) => candidates.slice(0, limit),
    purged(subject: string, seq: number) {
      const i = candidates.findIndex((c) => c.subject === subject && c.seq === seq);
      if (i >= 0) candidates.splice(i, 1);
    },
  };
}

function purgerOver(stream: ReturnType<typeof streamStore>, ledger: ReturnType<typeof ledgerStore>, closed = { value: false }) {
  const metrics = createWatcherMetrics(new Registry());
  const purger = new TombstonePurger({
    jsm: stream.jsm,
    stream: "K8S_OBJS",
    ledger,
    metrics,
    logger: createLogger({ service: "watcher", instance: "test", level: "silent", format: "json" }),
    tombstoneTtlMs: 1_000,
    batch: 10,
    wallNow: () => 5_000,
    closed: () => closed.value,
  });
  return { purger, metrics };
}

describe("TombstonePurger", () => {
  it("purges each candidate subject up to its own sequence and counts what went", async () => {
    const stream = streamStore({ a: [1, 2], b: [3, 7] });
    const ledger = ledgerStore([{ subject: "a", seq: 2 }, { subject: "b", seq: 3 }]);
    const { purger, metrics } = purgerOver(stream, ledger);
    assert.equal(await purger.purge(), 3);
    assert.deepEqual(stream.messages, { a: [], b: [7] }, "a message stored after the tombstone survives");
    assert.deepEqual(ledger.candidates, []);
    assert.equal((await metrics.tombstonesPurged.get()).values[0]?.value, 3);
  });

  it("starts no round once the publisher is closed", async () => {
    const stream = streamStore({ a: [1] });
    const ledger = ledgerStore([{ subject: "a", seq: 1 }]);
    const { purger } = purgerOver(stream, ledger, { value: true });
    assert.equal(await purger.purge(), 0);
    assert.deepEqual(stream.messages, { a: [1] });
  });
});
