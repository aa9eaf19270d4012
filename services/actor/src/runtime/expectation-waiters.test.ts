import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ObjectEnvelope } from "#protocol";
import type { Expectation } from "../domain/expectations.ts";
import { ObjectStore } from "../domain/object-store.ts";
import { ExpectationWaiters } from "./expectation-waiters.ts";

function claim(name: string, resourceVersion = "1"): ObjectEnvelope {
  const metadata = { name, namespace: "ns", uid: `uid-${name}`, resourceVersion };
  return { type: "object.put", kind: "PersistentVolumeClaim", namespace: "ns", name, uid: metadata.uid, resourceVersion, object: { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata } };
}

const exists = (name: string): Expectation => ({ type: "exists", kind: "PersistentVolumeClaim", namespace: "ns", name });

function waitersOver(store: ObjectStore): ExpectationWaiters {
  return new ExpectationWaiters((kind, namespace, name) => store.get(kind, namespace, name));
}

describe("ExpectationWaiters", () => {
  it("answers at once when the cache already shows every expectation", async () => {
    const store = new ObjectStore();
    store.apply(1, claim("data-web-0"));
    const waiters = waitersOver(store);
    assert.equal(await waiters.waitFor([exists("data-web-0")], 60_000, new AbortController().signal), true);
    assert.equal(waiters.pending, 0);
  });

  it("resolves a wait on the settle after the change that meets its last expectation, not before", async () => {
    const store = new ObjectStore();
    const waiters = waitersOver(store);
    let met: boolean | undefined;
    const waiting = waiters.waitFor([exists("data-web-0"), exists("data-web-1")], 60_000, new AbortController().signal).then((result) => (met = result));
    store.apply(1, claim("data-web-0"));
    waiters.settle();
    await Promise.resolve();
    assert.equal(met, undefined, "one claim of two is not enough");
    assert.equal(waiters.pending, 1);
    store.apply(1, claim("data-web-1"));
    waiters.settle();
    assert.equal(await waiting, true);
    assert.equal(waiters.pending, 0);
  });

  it("ends a wait false after its timeout, and when the shard's signal aborts", async () => {
    const store = new ObjectStore();
    const waiters = waitersOver(store);
    assert.equal(await waiters.waitFor([exists("never")], 5, new AbortController().signal), false);
    const shard = new AbortController();
    const waiting = waiters.waitFor([exists("never")], 60_000, shard.signal);
    shard.abort();
    assert.equal(await waiting, false);
    assert.equal(waiters.pending, 0, "an ended wait is not settled again");
  });
});
