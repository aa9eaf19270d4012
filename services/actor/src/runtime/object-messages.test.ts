import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HEADERS, codecs, formatPublicationVersion, liveObjectSubjects, objectSubjects, shard as shardOf } from "#protocol";
import type { HeaderCarrier, ObjectEnvelope, PublicationVersion } from "#protocol";
import { createLogger } from "../../../common/src/logger.ts";
import { ObjectStore } from "../domain/object-store.ts";
import type { SubjectRef } from "../domain/object-store.ts";
import { ObjectMessages } from "./object-messages.ts";

const SHARD = shardOf("ns", "web");
const logger = createLogger({ service: "actor", instance: "test", level: "silent", format: "json" });

function pod(name: string, resourceVersion: string): ObjectEnvelope {
  const metadata = { name, namespace: "ns", uid: `uid-${name}`, resourceVersion };
  return { type: "object.put", kind: "Pod", namespace: "ns", name, uid: metadata.uid, resourceVersion, object: { apiVersion: "v1", kind: "Pod", metadata } };
}

function headers(version: PublicationVersion): HeaderCarrier {
  const map = new Map<string, string>([[HEADERS.publication, formatPublicationVersion(version)]]);
  return { get: (key) => map.get(key) ?? "", set: (key, value) => void map.set(key, value), has: (key) => map.has(key), keys: () => [...map.keys()] };
}

/** The messages over a store, with what the listener and the re-read requests were told kept as lists. */
function objectMessages() {
  const store = new ObjectStore();
  const told: string[] = [];
  const rereads = new Set<string>();
  const messages = new ObjectMessages({
    store,
    logger,
    listener: {
      changed: (key, reason) => told.push(`changed ${key} ${reason}`),
      dropped: (reason, source) => told.push(`dropped ${source} ${reason}`),
      received: (source, outcome) => told.push(`${source} ${outcome}`),
    },
    rereads: { request: (ref: SubjectRef) => void rereads.add(ref.name), resolved: (ref: SubjectRef) => void rereads.delete(ref.name) },
  });
  return { store, told, rereads, messages };
}

const streamSubject = (name: string) => objectSubjects.build({ shard: SHARD, kind: "pod", namespace: "ns", name });

describe("ObjectMessages", () => {
  it("applies the first copy of a publication, live or stream, and skips the second as stale", () => {
    const { store, told, messages } = objectMessages();
    const envelope = pod("web-0", "10");
    messages.handle(SHARD, liveObjectSubjects.fromObjectSubject(streamSubject("web-0")), codecs.objectEnvelope.encode(envelope), headers({ epoch: 1, counter: 1 }), "live", 0);
    messages.handle(SHARD, streamSubject("web-0"), codecs.objectEnvelope.encode(envelope), headers({ epoch: 1, counter: 1 }), "stream", 5);
    assert.deepEqual(told, ["live applied", "stream stale"]);
    assert.equal(store.get("Pod", "ns", "web-0")?.resourceVersion, "10");
    messages.close();
  });

  it("marks a stream subject whose message does not decode unreadable and asks for it again; the next readable message repairs it", () => {
    const { store, told, rereads, messages } = objectMessages();
    messages.handle(SHARD, streamSubject("web-0"), new TextEncoder().encode("garbage"), undefined, "stream", 5);
    assert.equal(store.isUnreadable({ shard: SHARD, kind: "Pod", namespace: "ns", name: "web-0" }), true);
    assert.deepEqual([...rereads], ["web-0"]);
    assert.match(told[0] ?? "", /^dropped stream /);
    messages.handle(SHARD, streamSubject("web-0"), codecs.objectEnvelope.encode(pod("web-0", "11")), headers({ epoch: 1, counter: 2 }), "stream", 6);
    assert.equal(store.hasUnreadable, false);
    assert.deepEqual([...rereads], [], "the request is resolved");
    messages.close();
  });

  it("drops a live copy without a version, or about another object than its subject names, and stores nothing of it", () => {
    const { store, told, rereads, messages } = objectMessages();
    const live = liveObjectSubjects.fromObjectSubject(streamSubject("web-0"));
    messages.handle(SHARD, live, codecs.objectEnvelope.encode(pod("web-0", "10")), undefined, "live", 0);
    messages.handle(SHARD, live, codecs.objectEnvelope.encode(pod("web-1", "10")), headers({ epoch: 1, counter: 1 }), "live", 0);
    assert.deepEqual(told, ["dropped live unversioned", "dropped live mismatch"]);
    assert.equal(store.objectCount(), 0);
    assert.equal(store.hasUnreadable, false, "a live copy marks nothing unreadable");
    assert.equal(rereads.size, 0);
    messages.close();
  });
});
