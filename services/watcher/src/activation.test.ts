// Activation: winning the lease rebuilds the stream index (retried) and starts publishing with the lease's clock;
// losing it stops publishing and forgets the stream view; a read that outlives its lease is dropped.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { PublicationClock } from "#protocol";
import { createLogger } from "../../common/src/logger.ts";
import { Activation } from "./activation.ts";
import type { StreamIndex } from "./adapters/stream-index.ts";
import { Ledger } from "./domain/ledger.ts";
import type { HeldEntry } from "./domain/ledger.ts";

const logger = createLogger({ service: "watcher", instance: "test", level: "silent", format: "json" });
const ENTRY: HeldEntry = { subject: "k8s.17.pod.default.web-0", uid: "u", rv: "1", op: "PUT", seq: 1, atMs: 0 };

/** The publisher as activation sees it: the clock it was given last, and how often it was kicked. */
function publisherStore() {
  return {
    clock: undefined as PublicationClock | undefined,
    kicks: 0,
    setPublicationClock(clock: PublicationClock | undefined) {
      this.clock = clock;
    },
    kick() {
      this.kicks++;
    },
  };
}

/** A stream index that fails `failures` times, then answers once `open` resolves. */
function indexStore(failures: number, entries: HeldEntry[] = [ENTRY]) {
  const store = { reads: 0, release: () => undefined as void };
  const open = new Promise<void>((resolve) => (store.release = resolve));
  const readIndex = async (): Promise<StreamIndex> => {
    store.reads++;
    if (store.reads <= failures) throw new Error("no responders");
    await open;
    return { entries, headersOnly: true };
  };
  return { store, readIndex };
}

function activationOver(readIndex: () => Promise<StreamIndex>) {
  const ledger = new Ledger();
  ledger.markSynced();
  const publisher = publisherStore();
  const lease = { leading: false };
  const activation = new Activation({
    ledger,
    publisher,
    readIndex,
    isLeader: () => lease.leading,
    logger,
    backoff: { initialDelayMs: 1, maxDelayMs: 1 },
    random: () => 0,
  });
  const win = (revision: number) => {
    lease.leading = true;
    activation.onStartedLeading(revision);
  };
  const lose = () => {
    lease.leading = false;
    activation.onStoppedLeading("lost");
  };
  return { activation, ledger, publisher, win, lose };
}

async function until(what: string, probe: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !probe(); i++) await sleep(2);
  assert.ok(probe(), what);
}

describe("Activation", () => {
  it("on winning the lease stamps with its revision, reads the stream index until it succeeds, then publishes the differences", async () => {
    const { store, readIndex } = indexStore(2);
    const { ledger, publisher, win } = activationOver(readIndex);
    win(7);
    assert.equal(publisher.clock?.next().epoch, 7);
    store.release();
    await until("the ledger active", () => ledger.isActive);
    assert.equal(store.reads, 3, "two failed reads retried");
    assert.equal(ledger.heldCount, 1);
    assert.equal(publisher.kicks, 1);
  });

  it("on losing the lease stops stamping, forgets the stream view and kicks the publisher to settle", async () => {
    const { store, readIndex } = indexStore(0);
    const { ledger, publisher, win, lose } = activationOver(readIndex);
    store.release();
    win(3);
    await until("the ledger active", () => ledger.isActive);
    lose();
    assert.equal(ledger.isActive, false);
    assert.equal(ledger.heldCount, 0);
    assert.equal(publisher.clock, undefined);
    assert.equal(publisher.kicks, 2);
  });

  it("drops a stream index that arrives after the lease was lost", async () => {
    const { store, readIndex } = indexStore(0);
    const { ledger, publisher, win, lose } = activationOver(readIndex);
    win(3);
    lose();
    store.release();
    await sleep(20);
    assert.equal(ledger.isActive, false);
    assert.equal(publisher.kicks, 1, "only the standing-by kick");
  });

  it("gives up reading once stopped", async () => {
    const { store, readIndex } = indexStore(Number.POSITIVE_INFINITY);
    const { activation, win } = activationOver(readIndex);
    win(1);
    await until("a retry", () => store.reads >= 2);
    activation.stop();
    const reads = store.reads;
    await sleep(20);
    assert.ok(store.reads <= reads + 1, "at most the attempt already under way");
  });
});
