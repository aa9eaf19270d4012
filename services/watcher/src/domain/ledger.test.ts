import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { objectSubjects } from "#protocol";
import { Ledger } from "./ledger.ts";
import type { Held, HeldEntry, PublishCommand, Target } from "./ledger.ts";
import { objectKey } from "./objects.ts";

const RUNS = Number(process.env["FC_RUNS"] ?? 150);
const KEY = objectKey("pod", "default", "web-0");
const subject = (shard: number, name = "web-0", kind: "pod" | "sts" = "pod", namespace = "default") =>
  objectSubjects.build({ shard, kind, namespace, name });
const put = (rv: string, shards: number[], uid = "u1"): Target => ({ exists: true, uid, rv, shards: new Set(shards) });
const gone = (rv: string, uid = "u1"): Target => ({ exists: false, uid, rv });

/** A K8S_OBJS stand-in with the semantics the ledger relies on: last value per subject, msg-id dedupe, CAS. */
class ModelStream {
  private seq = 0;
  readonly subjects = new Map<string, Held & { msgId: string }>();
  private readonly ids = new Map<string, number>();

  publish(command: PublishCommand, atMs = 0): { seq: number; duplicate: boolean } | "conflict" {
    // A message without the uid of its object cannot be decoded by an owner (ObjectEnvelope requires it).
    assert.notEqual(command.uid, "", `${command.op} ${command.subject} without an identity`);
    const original = this.ids.get(command.msgId);
    if (original !== undefined) return { seq: original, duplicate: true };
    if ((this.subjects.get(command.subject)?.seq ?? 0) !== command.expectedSeq) return "conflict";
    this.seq++;
    this.subjects.set(command.subject, { uid: command.uid, rv: command.rv, op: command.op, seq: this.seq, atMs, msgId: command.msgId });
    this.ids.set(command.msgId, this.seq);
    return { seq: this.seq, duplicate: false };
  }

  write(subjectName: string, held: Omit<Held, "seq">): void {
    this.seq++;
    this.subjects.set(subjectName, { ...held, seq: this.seq, msgId: `foreign-${this.seq}` });
  }

  purge(subjectName: string, upToSeq: number): void {
    const held = this.subjects.get(subjectName);
    if (held && held.seq < upToSeq) this.subjects.delete(subjectName);
  }

  snapshot(): HeldEntry[] {
    return [...this.subjects].map(([name, held]) => ({ subject: name, uid: held.uid, rv: held.rv, op: held.op, seq: held.seq, atMs: held.atMs }));
  }

  /** Delivers a command and feeds the answer back to the ledger, as the publisher does. */
  deliver(ledger: Ledger, command: PublishCommand, atMs = 0): void {
    const answer = this.publish(command, atMs);
    if (answer === "conflict") ledger.conflicted(command, this.subjects.get(command.subject));
    else ledger.acked(command, { ...answer, atMs });
  }

  /** Publishes until the ledger owes nothing. */
  drain(ledger: Ledger, limit = 1000): number {
    let published = 0;
    for (let command = ledger.next(); command; command = ledger.next()) {
      this.deliver(ledger, command);
      if (++published > limit) assert.fail("the ledger never converged");
    }
    return published;
  }
}

/** What an owner that could not read `subject` gets done: the ledger decides, a foreign message is purged. */
function verify(ledger: Ledger, stream: ModelStream, subjectName: string): ReturnType<Ledger["verified"]> {
  const outcome = ledger.verified(subjectName, stream.subjects.get(subjectName));
  if (outcome !== "purge") return outcome;
  const seq = ledger.heldAt(subjectName)!.seq;
  stream.purge(subjectName, seq + 1);
  ledger.purged(subjectName, seq);
  return outcome;
}

const GARBAGE = { uid: "", rv: "", op: "PUT", atMs: 0 } as const;

function activeLedger(entries: HeldEntry[] = []): Ledger {
  const ledger = new Ledger();
  ledger.markSynced();
  ledger.activate(entries);
  return ledger;
}

function takeAll(ledger: Ledger): PublishCommand[] {
  const out: PublishCommand[] = [];
  for (let command = ledger.next(); command; command = ledger.next()) out.push(command);
  return out;
}

describe("Ledger", () => {
  it("publishes nothing before the first full sync, nor while standing by", () => {
    const ledger = new Ledger();
    ledger.setTarget(KEY, put("1", [3]));
    ledger.activate([]);
    assert.equal(ledger.next(), undefined, "not synced: the picture is incomplete");
    const standby = new Ledger();
    standby.markSynced();
    standby.setTarget(KEY, put("1", [3]));
    assert.equal(standby.next(), undefined, "not active: standby never publishes");
    ledger.markSynced();
    assert.equal(ledger.next()?.subject, subject(3));
  });

  it("puts an object on each of its shards, with uid@rv msg ids and CAS on the subject's sequence", () => {
    const ledger = activeLedger();
    ledger.setTarget(KEY, put("7", [3, 9]));
    const commands = takeAll(ledger);
    assert.deepEqual(
      commands.map((c) => [c.subject, c.op, c.msgId, c.expectedSeq]),
      [
        [subject(3), "PUT", "u1@7/3", 0],
        [subject(9), "PUT", "u1@7/9", 0],
      ],
    );
    const stream = new ModelStream();
    for (const command of commands) stream.deliver(ledger, command);
    assert.equal(ledger.pending, 0);
    ledger.setTarget(KEY, put("7", [3, 9]));
    assert.equal(ledger.next(), undefined, "same uid@rv: nothing to publish");
    ledger.setTarget(KEY, put("8", [3, 9]));
    const update = takeAll(ledger);
    assert.deepEqual(update.map((c) => [c.subject, c.expectedSeq]), [[subject(3), 1], [subject(9), 2]]);
  });

  it("tombstones the subjects an object left and those of a deleted object", () => {
    const ledger = activeLedger();
    const stream = new ModelStream();
    ledger.setTarget(KEY, put("1", [3, 9]));
    stream.drain(ledger);
    ledger.setTarget(KEY, put("1", [9, 12]));
    const moved = takeAll(ledger);
    assert.deepEqual(moved.map((c) => [c.subject, c.op, c.rv, c.msgId]).sort(), [
      [subject(12), "PUT", "1", "u1@1/12"],
      [subject(3), "DEL", "1", "u1@1/3/del"],
    ]);
    for (const command of moved) stream.deliver(ledger, command);
    ledger.setTarget(KEY, gone("5"));
    const deleted = takeAll(ledger);
    assert.deepEqual(deleted.map((c) => [c.subject, c.op, c.rv]), [
      [subject(9), "DEL", "5"],
      [subject(12), "DEL", "5"],
    ]);
    for (const command of deleted) stream.deliver(ledger, command);
    assert.equal(ledger.pending, 0);
    assert.deepEqual([...stream.subjects.values()].map((h) => h.op), ["DEL", "DEL", "DEL"]);
  });

  it("announces each new want once, and a live-only tombstone for what went away before the stream held it", () => {
    // While K8S_OBJS takes no publishes, owners know objects from their live copies only (ADR 0084).
    const ledger = activeLedger();
    ledger.setTarget(KEY, put("1", [3]));
    assert.deepEqual(ledger.takeChanged().map((w) => [w.subject, w.op, w.rv, w.liveOnly]), [[subject(3), "PUT", "1", undefined]]);
    assert.deepEqual(ledger.takeChanged(), [], "announced once");
    ledger.failed(ledger.next()!);
    // Moved to shard 5, then deleted, and the stream never stored it.
    ledger.setTarget(KEY, put("2", [5]));
    assert.deepEqual(ledger.takeChanged().map((w) => [w.subject, w.op, w.rv, w.liveOnly]).sort(), [
      [subject(3), "DEL", "1", true],
      [subject(5), "PUT", "2", undefined],
    ]);
    ledger.setTarget(KEY, gone("3"));
    assert.deepEqual(ledger.takeChanged().map((w) => [w.subject, w.op, w.liveOnly]), [[subject(5), "DEL", true]]);
    assert.equal(ledger.pending, 0, "no stream tombstone is owed for what the stream never held");

    // Once the stream holds a PUT, a deletion is an ordinary tombstone, on the stream and live.
    const stream = new ModelStream();
    const other = objectKey("pod", "default", "web-1");
    ledger.setTarget(other, put("1", [3]));
    ledger.takeChanged();
    stream.drain(ledger);
    ledger.setTarget(other, gone("2"));
    assert.deepEqual(ledger.takeChanged().map((w) => [w.op, w.liveOnly]), [["DEL", undefined]]);
    assert.deepEqual(takeAll(ledger).map((c) => c.op), ["DEL"]);
  });

  it("on activation publishes only differences, and tombstones what vanished while it was away", () => {
    const stream = new ModelStream();
    stream.write(subject(1, "same"), { uid: "a", rv: "1", op: "PUT", atMs: 0 });
    stream.write(subject(2, "changed"), { uid: "b", rv: "1", op: "PUT", atMs: 0 });
    stream.write(subject(3, "vanished"), { uid: "c", rv: "1", op: "PUT", atMs: 0 });
    stream.write(subject(4, "tombstoned"), { uid: "d", rv: "1", op: "DEL", atMs: 0 });
    stream.write(subject(5, "moved"), { uid: "e", rv: "1", op: "PUT", atMs: 0 });
    stream.write(subject(6, "recreated"), { uid: "old", rv: "1", op: "PUT", atMs: 0 });
    stream.write(subject(7, "x", "pod", "elsewhere"), { uid: "f", rv: "1", op: "PUT", atMs: 0 });
    const ledger = new Ledger({ inScope: (namespace) => namespace === "default" });
    ledger.setTarget(objectKey("pod", "default", "same"), put("1", [1], "a"));
    ledger.setTarget(objectKey("pod", "default", "changed"), put("2", [2], "b"));
    ledger.setTarget(objectKey("pod", "default", "moved"), put("1", [8], "e"));
    ledger.setTarget(objectKey("pod", "default", "recreated"), put("9", [6], "new"));
    ledger.setTarget(objectKey("pod", "default", "new"), put("3", [0], "g"));
    ledger.markSynced();
    const report = ledger.activate([...stream.snapshot(), { subject: "k8s.garbage", uid: "", rv: "", op: "PUT", seq: 99, atMs: 0 }]);
    assert.deepEqual(report, { held: 6, ignored: 2 });
    const commands = takeAll(ledger);
    assert.deepEqual(
      commands.map((c) => `${c.op} ${c.subject} ${c.uid}@${c.rv}`).sort(),
      [
        `PUT ${subject(2, "changed")} b@2`,
        `DEL ${subject(3, "vanished")} c@1`,
        `DEL ${subject(5, "moved")} e@1`,
        `PUT ${subject(8, "moved")} e@1`,
        `PUT ${subject(6, "recreated")} new@9`,
        `PUT ${subject(0, "new")} g@3`,
      ].sort(),
    );
  });

  it("coalesces changes while a publish is in flight: one subject, one publish at a time, latest wins", () => {
    const ledger = activeLedger();
    const stream = new ModelStream();
    ledger.setTarget(KEY, put("1", [3]));
    const first = ledger.next();
    assert.ok(first);
    ledger.setTarget(KEY, put("2", [3]));
    ledger.setTarget(KEY, put("3", [3]));
    assert.equal(ledger.next(), undefined, "the subject is in flight");
    stream.deliver(ledger, first);
    const second = ledger.next();
    assert.equal(second?.rv, "3");
    assert.equal(second?.expectedSeq, 1);
    stream.deliver(ledger, second);
    assert.equal(ledger.next(), undefined);
  });

  it("retries a failed publish and ignores answers from before a re-activation", () => {
    const ledger = activeLedger();
    ledger.setTarget(KEY, put("1", [3]));
    const command = ledger.next()!;
    ledger.failed(command);
    const retry = ledger.next()!;
    assert.equal(retry.msgId, command.msgId, "same content, same msg id: a retry is deduplicated");
    ledger.deactivate();
    ledger.activate([]);
    assert.equal(ledger.acked(retry, { seq: 5, duplicate: false, atMs: 0 }), "stale");
    assert.equal(ledger.next()?.expectedSeq, 0, "the stale ack did not move the held sequence");
  });

  it("re-reads and re-decides after a conflict (a deposed watcher or a concurrent writer)", () => {
    const ledger = activeLedger();
    const stream = new ModelStream();
    ledger.setTarget(KEY, put("2", [3]));
    const command = ledger.next()!;
    stream.write(subject(3), { uid: "u1", rv: "1", op: "PUT", atMs: 0 });
    stream.deliver(ledger, command);
    const again = ledger.next()!;
    assert.equal(again.expectedSeq, 1);
    stream.deliver(ledger, again);
    assert.equal(ledger.pending, 0);
    // A conflict where the writer already stored what we wanted ends the work without publishing.
    ledger.setTarget(KEY, put("3", [3]));
    const third = ledger.next()!;
    stream.write(subject(3), { uid: "u1", rv: "3", op: "PUT", atMs: 0 });
    stream.deliver(ledger, third);
    assert.equal(ledger.next(), undefined);
  });

  it("re-publishes under a fresh msg id when the id was used before a newer message on the subject", () => {
    const ledger = new Ledger({ republishSeed: 41 });
    ledger.markSynced();
    ledger.activate([]);
    const stream = new ModelStream();
    ledger.setTarget(KEY, put("1", [3]));
    stream.drain(ledger);
    ledger.setTarget(KEY, put("1", [4]));
    stream.drain(ledger);
    ledger.setTarget(KEY, put("1", [3]));
    const back = ledger.next()!;
    assert.equal(back.msgId, "u1@1/3", "same uid@rv/shard as the first publish, still in the dedupe window");
    assert.equal(ledger.acked(back, { ...(stream.publish(back) as { seq: number; duplicate: boolean }), atMs: 0 }), "republish");
    const fresh = takeAll(ledger);
    assert.deepEqual(fresh.map((c) => c.msgId).sort(), ["u1@1/3/r42", "u1@1/4/del"]);
    for (const command of fresh) stream.deliver(ledger, command);
    assert.equal(stream.subjects.get(subject(3))?.op, "PUT");
    assert.equal(ledger.pending, 0);
  });

  it("treats a duplicate at or after the expected sequence as stored (a retry whose first ack was lost)", () => {
    const ledger = activeLedger();
    const stream = new ModelStream();
    ledger.setTarget(KEY, put("1", [3]));
    const command = ledger.next()!;
    stream.publish(command);
    ledger.failed(command);
    const retry = ledger.next()!;
    assert.equal(ledger.acked(retry, { ...(stream.publish(retry) as { seq: number; duplicate: boolean }), atMs: 0 }), "stored");
    assert.equal(ledger.pending, 0);
  });

  it("purges tombstones older than the TTL, only up to their own sequence", () => {
    const ledger = activeLedger();
    const stream = new ModelStream();
    ledger.setTarget(KEY, put("1", [3]));
    stream.drain(ledger);
    ledger.setTarget(KEY, gone("2"));
    const tombstone = ledger.next()!;
    stream.deliver(ledger, tombstone, 1_000);
    assert.deepEqual(ledger.purgeCandidates(1_500, 1_000), []);
    assert.deepEqual(ledger.purgeCandidates(2_000, 1_000), [{ subject: subject(3), seq: 2 }]);
    ledger.purged(subject(3), 1);
    assert.equal(ledger.heldAt(subject(3))?.op, "DEL", "a purge of an older sequence does not forget the tombstone");
    stream.purge(subject(3), 3);
    ledger.purged(subject(3), 2);
    assert.equal(ledger.heldAt(subject(3)), undefined);
    ledger.setTarget(KEY, put("3", [3], "u2"));
    assert.equal(ledger.next()?.expectedSeq, 0, "the purged subject is empty again");
  });

  it("repairs a subject an owner could not read: the mirror's PUT again, a tombstone where the object left, a purge where none was", () => {
    const ledger = activeLedger();
    const stream = new ModelStream();
    const moved = objectKey("pod", "default", "moved");
    ledger.setTarget(KEY, put("1", [3]));
    ledger.setTarget(moved, put("1", [4], "m"));
    stream.drain(ledger);
    ledger.setTarget(moved, put("1", [5], "m"));
    stream.drain(ledger);
    // Garbage on every subject, written by someone else: the ledger does not know until an owner reports it.
    for (const name of [subject(3), subject(4, "moved"), subject(5, "moved"), subject(6, "never")]) stream.write(name, GARBAGE);
    assert.equal(ledger.next(), undefined);

    assert.equal(verify(ledger, stream, subject(3)), "republishing");
    assert.equal(verify(ledger, stream, subject(4, "moved")), "republishing");
    assert.equal(verify(ledger, stream, subject(5, "moved")), "republishing");
    const commands = takeAll(ledger);
    assert.deepEqual(
      commands.map((c) => `${c.op} ${c.subject} ${c.uid}@${c.rv} expects ${c.expectedSeq}`).sort(),
      [
        `DEL ${subject(4, "moved")} m@1 expects ${stream.subjects.get(subject(4, "moved"))!.seq}`,
        `PUT ${subject(3)} u1@1 expects ${stream.subjects.get(subject(3))!.seq}`,
        `PUT ${subject(5, "moved")} m@1 expects ${stream.subjects.get(subject(5, "moved"))!.seq}`,
      ].sort(),
    );
    for (const command of commands) stream.deliver(ledger, command);
    stream.drain(ledger);
    // The msg ids were used minutes ago: the stream deduplicates them, the ledger sends them again under a new id.
    assert.equal(stream.subjects.get(subject(3))?.uid, "u1");
    assert.equal(stream.subjects.get(subject(5, "moved"))?.uid, "m");
    assert.equal(stream.subjects.get(subject(4, "moved"))?.op, "DEL");

    assert.equal(verify(ledger, stream, subject(6, "never")), "purge");
    assert.equal(stream.subjects.get(subject(6, "never")), undefined, "purged: no identity for a tombstone");
    assert.equal(verify(ledger, stream, subject(6, "never")), "absent");
    assert.equal(verify(ledger, stream, subject(3)), "valid");
    assert.equal(ledger.pending, 0);
  });

  it("on activation replaces foreign entries with the mirror's PUT and lists the others for an immediate purge", () => {
    const stream = new ModelStream();
    stream.write(subject(1, "kept"), GARBAGE);
    stream.write(subject(2, "unknown"), GARBAGE);
    const ledger = new Ledger();
    ledger.setTarget(objectKey("pod", "default", "kept"), put("4", [1], "k"));
    ledger.markSynced();
    ledger.activate(stream.snapshot());
    assert.deepEqual(takeAll(ledger).map((c) => `${c.op} ${c.subject} ${c.uid}@${c.rv}`), [`PUT ${subject(1, "kept")} k@4`]);
    assert.deepEqual(ledger.purgeCandidates(0, 3_600_000), [{ subject: subject(2, "unknown"), seq: 2 }]);
  });

  it("converges the stream to the mirror whatever the interleaving of changes, failures, conflicts and takeovers (property)", () => {
    const keys = ["a", "b", "c"].map((name) => objectKey("pod", "default", name));
    const op = fc.oneof(
      fc.record({ t: fc.constant("target" as const), key: fc.nat(2), rv: fc.integer({ min: 1, max: 2 }), uid: fc.nat(1), shards: fc.subarray([0, 1, 2]), exists: fc.boolean() }),
      fc.record({ t: fc.constant("take" as const) }),
      fc.record({ t: fc.constant("deliver" as const), i: fc.nat(5) }),
      fc.record({ t: fc.constant("fail" as const), i: fc.nat(5) }),
      fc.record({ t: fc.constant("race" as const), i: fc.nat(5), rv: fc.integer({ min: 1, max: 4 }), del: fc.boolean() }),
      fc.record({ t: fc.constant("takeover" as const) }),
      fc.record({ t: fc.constant("drain" as const) }),
      // A careless client publishes garbage on an object subject (ADR 0088); its owner will report it.
      fc.record({ t: fc.constant("garbage" as const), key: fc.nat(2), shard: fc.nat(2) }),
      fc.record({ t: fc.constant("verify" as const), i: fc.nat(5) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const stream = new ModelStream();
        const ledger = activeLedger();
        const targets = new Map<string, Target>();
        let inflight: PublishCommand[] = [];
        // What an owner that got every live copy sees per subject: the latest announcement wins over the stream's
        // copies (those carry the version of an earlier announcement of the same content; ADR 0084).
        const announced = new Map<string, { op: string; uid: string; rv: string }>();
        let tookOver = false;
        const poisoned = new Set<string>();
        const listen = () => {
          for (const want of ledger.takeChanged()) announced.set(want.subject, { op: want.op, uid: want.uid, rv: want.rv });
        };
        for (const step of ops) {
          listen();
          switch (step.t) {
            case "target": {
              // uids are unique per object; the same name may come back with a new uid.
              const uid = `u${step.uid}-${step.key}`;
              const target: Target = step.exists ? put(String(step.rv), step.shards, uid) : gone(String(step.rv), uid);
              targets.set(keys[step.key]!, target);
              ledger.setTarget(keys[step.key]!, target);
              break;
            }
            case "take": {
              const command = ledger.next();
              if (command) inflight.push(command);
              break;
            }
            case "deliver":
            case "fail": {
              const command = inflight[step.i % Math.max(1, inflight.length)];
              if (!command) break;
              inflight = inflight.filter((c) => c !== command);
              if (step.t === "deliver") stream.deliver(ledger, command);
              else ledger.failed(command);
              break;
            }
            case "race": {
              // Another writer stores something on a subject we are about to publish to.
              const command = inflight[step.i % Math.max(1, inflight.length)];
              if (command) stream.write(command.subject, { uid: "u9", rv: String(step.rv), op: step.del ? "DEL" : "PUT", atMs: 0 });
              break;
            }
            case "drain":
              for (const command of inflight) stream.deliver(ledger, command);
              inflight = [];
              stream.drain(ledger);
              break;
            case "garbage": {
              const [, , objectName = ""] = keys[step.key]!.split("/");
              const name = subject(step.shard, objectName);
              stream.write(name, GARBAGE);
              poisoned.add(name);
              break;
            }
            case "verify": {
              const name = [...poisoned][step.i % Math.max(1, poisoned.size)];
              if (name !== undefined) verify(ledger, stream, name);
              break;
            }
            case "takeover":
              // Lease lost and won back (or another replica took over): re-read the stream, forget in-flight answers.
              tookOver = true;
              ledger.deactivate();
              for (const command of inflight) stream.deliver(ledger, command);
              inflight = [];
              ledger.activate(stream.snapshot());
              break;
          }
        }
        listen();
        for (const command of inflight) stream.deliver(ledger, command);
        stream.drain(ledger);
        // Owners report every subject whose last message they cannot read, until none is left.
        for (let round = 0; ; round++) {
          const unreadable = [...stream.subjects].filter(([, held]) => held.uid === "").map(([name]) => name);
          if (unreadable.length === 0) break;
          assert.ok(round < 5, `still unreadable after ${round} rounds: ${unreadable.join(", ")}`);
          for (const name of unreadable) verify(ledger, stream, name);
          stream.drain(ledger);
        }
        listen();
        assert.equal(ledger.pending, 0);
        for (const [key, target] of targets) {
          const name = key.split("/")[2]!;
          for (let shard = 0; shard < 3; shard++) {
            const held = stream.subjects.get(subject(shard, name));
            // A new active watcher cannot know what its predecessor announced live only (ADR 0084, window W5).
            const seen: { op: string; uid: string; rv: string } | undefined = tookOver ? held : (announced.get(subject(shard, name)) ?? held);
            if (target.exists && target.shards.has(shard)) {
              assert.deepEqual([held?.op, held?.uid, held?.rv], ["PUT", target.uid, target.rv], `${key} on ${shard}`);
              assert.deepEqual([seen?.op, seen?.uid, seen?.rv], ["PUT", target.uid, target.rv], `${key} on ${shard}, as its owner sees it`);
            } else {
              assert.ok(held === undefined || held.op === "DEL", `${key} must not be live on shard ${shard}`);
              assert.ok(seen === undefined || seen.op === "DEL", `${key} must not be live on shard ${shard} for its owner`);
            }
          }
        }
      }),
      {
        numRuns: RUNS,
        examples: [[[
          { t: "target", key: 0, rv: 1, uid: 0, shards: [0], exists: true },
          { t: "drain" },
          { t: "target", key: 0, rv: 1, uid: 0, shards: [1], exists: true },
          { t: "drain" },
          { t: "target", key: 0, rv: 1, uid: 0, shards: [0], exists: true },
        ]]],
      },
    );
  });
});
