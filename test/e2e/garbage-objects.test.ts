// Bad input (docs/RELIABILITY.md), the object stream's part: garbage on every K8S_OBJS subject of a converged set and on their live copies
// (random bytes, a truncated MessagePack array, `{}`, an empty map; the last stays the subject's last value) is
// repaired by the watcher, when it becomes active or when the owner asks (ADR 0088), and the owner plans nothing
// from an incomplete cache meanwhile. Poisoned once while the actor and the watcher are down (the actor's restart
// replays the garbage before any watcher is active) and once, every subject and every live copy, while they run;
// then a scale converges within 30 s,
// every poisoned subject holds a valid object again, and the audit log shows no write for the pods, claims and
// revision that existed all along.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { DecodeError, STREAMS, SubjectError, codecs, objectSubjects, shard } from "#protocol";
import { garbagePayloads, garbageTargets } from "../../tools/chaos/garbage.ts";
import { useStack, waitFor } from "../support/stack.ts";
import { auditMark, createSet, patchSet, since, waitForConverged } from "./helpers.ts";

const t = await useStack();
const CONVERGE_MS = 30_000;
const NS = "e2e-garbage-objects";

function isObjectSubject(subject: string): boolean {
  try {
    objectSubjects.parse(subject);
    return true;
  } catch (error) {
    if (error instanceof SubjectError) return false;
    throw error;
  }
}

describe("garbage on the object subjects of a converged set and their live copies", () => {
  let nc: NatsConnection;

  before(async () => {
    nc = await connect({ servers: t.stack.natsUrl, name: "e2e-garbage-objects" });
  });
  after(async () => {
    await nc.drain();
  });

  it("is published again from the watcher's mirror; a replay of it writes nothing; a scale converges within 30 s", async () => {
    await t.createNamespace(NS);
    await createSet(t.kube, NS, "base", { replicas: 2 });
    await waitForConverged(t.kube, NS, "base", 2);

    const targets = await garbageTargets(nc, [{ namespace: NS, name: "base" }], []);
    const subjects = targets.stream.filter(isObjectSubject);
    const live = targets.core.filter((subject) => subject.startsWith("live."));
    // The set, its two pods and claims, and its revision.
    assert.ok(subjects.length >= 6, JSON.stringify(subjects));
    assert.equal(live.length, subjects.length);
    const js = jetstream(nc);
    const poison = async (stream: readonly string[], core: readonly string[]) => {
      for (const { data } of garbagePayloads()) {
        for (const subject of stream) await js.publish(subject, data);
        for (const subject of core) nc.publish(subject, data);
      }
      await nc.flush();
    };

    // Down, then back: the restarted actor's replay finds garbage as the last value of the set's pods, claims and
    // revision (the set itself readable, so the actor has a set to plan for: the dangerous case), and the restarted
    // watcher takes its lease over only after a lease duration, so for a while no one repairs them.
    const mark = auditMark(t.audit);
    const setSubject = objectSubjects.build({ shard: shard(NS, "base"), kind: "sts", namespace: NS, name: "base" });
    assert.ok(subjects.includes(setSubject));
    const down = ["actor-0", "watcher"].map((name) => t.stack.service(name));
    const exited = Promise.all(down.map((child) => child.exited()));
    for (const child of down) child.signal("SIGKILL");
    await exited;
    await poison(subjects.filter((subject) => subject !== setSubject), []);
    await t.stack.waitReady(["actor-0", "watcher"], 20_000);
    // And again once the watcher is active (its readiness then includes the rebuilt stream index): the actor asks.
    await waitFor("the restarted watcher to be active", async () => (await t.metrics("watcher")).some((s) => s.name === "stsfleet_watcher_leader" && s.value === 1), {
      timeoutMs: 10_000,
    });
    await t.stack.waitReady(["watcher"], 10_000);
    await poison(subjects, live);

    const scaledAt = performance.now();
    await patchSet(t.kube, NS, "base", { spec: { replicas: 4 } });
    await waitForConverged(t.kube, NS, "base", 4, CONVERGE_MS);

    const jsm = await jetstreamManager(nc);
    const unreadable = async () => {
      const out: string[] = [];
      for (const subject of subjects) {
        const message = await jsm.streams.getMessage(STREAMS.objects, { last_by_subj: subject });
        try {
          const envelope = codecs.objectEnvelope.decode(message?.data ?? new Uint8Array());
          if (objectSubjects.parse(subject).name !== envelope.name) out.push(`${subject}: about ${envelope.name}`);
        } catch (error) {
          if (!(error instanceof DecodeError)) throw error;
          out.push(`${subject}: ${error.reason}`);
        }
      }
      return out;
    };
    await waitFor("every poisoned subject to hold a valid object again", async () => (await unreadable()).length === 0, {
      timeoutMs: Math.max(1_000, CONVERGE_MS - (performance.now() - scaledAt)),
      describeLast: unreadable,
    });

    // Only what the scale asked for was written: nothing for the pods, claims and revision that existed all along.
    const writes = since(mark, t.audit.where({ namespace: NS, verb: ["create", "delete", "update", "patch"] }))
      .filter((event) => event.resource !== "events" && event.subresource !== "status" && event.service !== "stsfleet" && event.service !== undefined)
      .filter((event) => ["pods", "persistentvolumeclaims", "controllerrevisions"].includes(event.resource));
    const described = writes.map((event) => `${event.service} ${event.verb} ${event.resource}/${event.name} ${event.code}`);
    const creates = writes.filter((event) => event.verb === "create");
    assert.deepEqual(
      creates.map((event) => `${event.resource}/${event.name}`).sort(),
      ["persistentvolumeclaims/data-base-2", "persistentvolumeclaims/data-base-3", "pods/base-2", "pods/base-3"],
      described.join("\n"),
    );
    assert.deepEqual(writes.filter((event) => event.verb === "delete"), [], described.join("\n"));

    const dropped = (await t.metrics("actor-0")).filter((s) => s.name === "stsfleet_dropped_messages_total" && s.labels["subject"] === objectSubjects.template);
    assert.ok(dropped.reduce((sum, s) => sum + s.value, 0) > 0, "the actor counted the garbage");
    const rereads = (await t.metrics("watcher")).filter((s) => s.name === "stsfleet_watcher_rereads_total" && s.labels["outcome"] === "republishing");
    assert.ok(rereads.reduce((sum, s) => sum + s.value, 0) > 0, "the watcher published again on request");
  });
});
