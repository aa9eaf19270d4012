// KvLease against a real nats-server: acquisition, renewals by revision, a lost compare-and-set, answers that come
// after their bound, and the expiry rule.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { KV } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { useNatsServer } from "#test-support/nats.ts";
import { KvLease, leaseFresh } from "./kv-lease.ts";
import { provisionTopology } from "./topology.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("KvLease", async () => {
  const server = await useNatsServer();
  let nc: NatsConnection;
  let kv: KV;
  before(async () => {
    nc = await connect({ servers: server.url });
    kv = (await provisionTopology(nc, { replicas: 1 })).leases;
  });
  after(async () => {
    await nc.close();
  });

  /** `kv` whose updates answer `delayMs` late (the write itself goes out at once). */
  function slowAnswers(delayMs: () => number): KV {
    return new Proxy(kv, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (property !== "update" || typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const revision: unknown = await Reflect.apply(value, target, args);
          await sleep(delayMs());
          return revision;
        };
      },
    });
  }

  it("is fresh only within the renew deadline of its last renew's send time", () => {
    assert.equal(leaseFresh(undefined, 0, 1_000), false);
    assert.equal(leaseFresh(500, 1_499, 1_000), true);
    assert.equal(leaseFresh(500, 1_500, 1_000), false);
  });

  it("creates, renews over its own revision, and loses its compare-and-set to a write by anyone else", async () => {
    const lease = new KvLease({ kv, key: "plain", renewDeadlineMs: 1_000, now: () => performance.now() });
    assert.equal(lease.fresh(), false, "not held before it is acquired");
    const created = await lease.create(bytes("a"));
    assert.equal(lease.revision, created);
    assert.ok(lease.fresh());
    const renewed = await lease.renew(bytes("a"), 1_000);
    assert.equal(renewed.kind, "renewed");
    assert.ok(lease.revision > created);
    await assert.rejects(new KvLease({ kv, key: "plain", renewDeadlineMs: 1_000, now: () => performance.now() }).create(bytes("b")), "create fails on a key that exists");

    const intruder = await kv.put("plain", bytes("intruder"));
    const lost = await lease.renew(bytes("a"), 1_000);
    assert.equal(lost.kind, "refused");
    const entry = await lease.read(1_000);
    assert.ok(entry !== "unanswered" && entry?.revision === intruder);
    const taken = await lease.acquire(bytes("a"), intruder);
    assert.equal(lease.revision, taken);
    const released = await lease.release(bytes(""));
    assert.equal(lease.revision, released);
    assert.equal(lease.fresh(), false, "released: no longer held");
  });

  it("counts an answer that comes after its bound, from when it was sent; forget() drops answers still in flight", async () => {
    let delayMs = 0;
    const renewals: number[] = [];
    const lease = new KvLease({ kv: slowAnswers(() => delayMs), key: "late", renewDeadlineMs: 1_000, now: () => performance.now(), onRenewed: (ms) => renewals.push(ms) });
    await lease.create(bytes("a"));
    const before = lease.revision;
    delayMs = 300;
    const sentMs = performance.now();
    assert.equal((await lease.renew(bytes("a"), 50)).kind, "unanswered");
    assert.equal(lease.revision, before, "nothing known yet");
    await sleep(400);
    assert.ok(lease.revision > before, "the late answer moved the revision");
    assert.ok((lease.lastRenewSentMs ?? 0) - sentMs < 5, "counted from when it was sent");
    assert.equal(renewals.length, 1);

    const held = lease.revision;
    assert.equal((await lease.renew(bytes("a"), 50)).kind, "unanswered");
    lease.forget();
    await sleep(400);
    assert.equal(lease.revision, held, "an answer of a forgotten term moves nothing");
    assert.equal(lease.fresh(), false);
    assert.equal(renewals.length, 1);
  });

  it("expires on the holder's clock when renewals stop", async () => {
    let nowMs = 0;
    const lease = new KvLease({ kv, key: "clock", renewDeadlineMs: 1_000, now: () => nowMs });
    await lease.create(bytes("a"));
    nowMs = 999;
    assert.ok(lease.fresh());
    assert.equal(lease.remainingMs(), 1);
    nowMs = 1_000;
    assert.equal(lease.fresh(), false);
    assert.equal(lease.remainingMs(), 0);
  });
});
