// The intent log's fence, kept by one stream or by a quorum of single-replica streams (ADR 0084).
// - Property (fast-check scheduler over an in-memory stream store with failure injection): whatever the interleaving
//   of a former owner's appends with a newer owner's takeover and a careless client's garbage on any replica, and
//   whichever requests are dropped or lose their acks, no append the former owner starts after the takeover
//   succeeded goes through, the newer owner is never fenced, garbage fences nobody, and on every replica the records
//   that decode never go back to an older epoch.
// - Garbage in the log (ADR 0089): the newest record that decodes decides, the append compares-and-sets on the
//   garbage's sequence, and every garbage entry is counted once.
// - Against a real nats-server: the quorum log's streams, a majority despite a replica that is down, the fence, and
//   the layout every actor of a fleet must share.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { JetStreamApiCodes, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { DecodeError, codecs, intentReplicaStream, intentReplicaSubjects, intentSubjects } from "#protocol";
import type { Intent, IntentPlan, SetAddress } from "#protocol";
import type { DropReason } from "../../../common/src/executor/drops.ts";
import { useNatsServer } from "#test-support/nats.ts";
import { StreamPublishError, StreamPublisher } from "../../../common/src/stream-publish.ts";
import type { StreamPublish, StreamPublishOptions } from "../../../common/src/stream-publish.ts";
import { IntentLogLayoutError, provisionIntentLog, provisionTopology } from "../../../common/src/topology.ts";
import { FencedError, IntentLog, IntentQuorumError, QuorumIntentLog, SINGLE_STREAM_TARGET } from "./intents.ts";

const ADDRESS: SetAddress = { shard: 9, namespace: "ns", name: "web" };
const REPLICAS = 3;

const plan = (member: string, incarnation: string, epoch: number, turn: number): IntentPlan => ({
  type: "intent.plan",
  shard: ADDRESS.shard,
  epoch,
  member,
  incarnation,
  set: { namespace: ADDRESS.namespace, name: ADDRESS.name, uid: "uid-web" },
  turn,
  actions: [`turn ${turn}`],
});
const takeover = (member: string, incarnation: string, epoch: number): Intent => ({ type: "intent.takeover", shard: ADDRESS.shard, epoch, member, incarnation });

type Fault = "ok" | "drop" | "lose-ack";

/** Issue 16's garbage, in the order it was published: bytes no MessagePack decoder takes, a truncated array, JSON, {}. */
const GARBAGE: readonly Uint8Array[] = [
  new Uint8Array([0xc1, 0x07, 0x5e, 0x99, 0x00, 0xff]),
  new Uint8Array([0x95, 0xa3, 0x61, 0x62, 0x63]),
  new TextEncoder().encode("{}"),
  new Uint8Array([0x80]),
];

function decodes(data: Uint8Array): Intent | undefined {
  try {
    return codecs.intent.decode(data);
  } catch (error) {
    if (error instanceof DecodeError) return undefined;
    throw error;
  }
}

/**
 * Streams in memory, with nats-server's compare-and-set on a subject's last sequence, its `last_by_subj` and
 * `next_by_subj` reads and, optionally, its per-subject limit (the oldest entries go). With a scheduler, every request
 * waits for it before it reaches the "server" and again before its answer comes back, so the scheduler picks the
 * interleaving; each request of an owner takes the next fault: dropped before it reached the server, or applied with
 * its answer lost (the client sees a timeout either way).
 */
class MemoryStreams {
  readonly subjects = new Map<string, { seq: number; data: Uint8Array }[]>();
  private seq = 0;
  private readonly scheduler: fc.Scheduler | undefined;
  private readonly faults: Fault[];
  private readonly maxPerSubject: number;

  constructor(options: { scheduler?: fc.Scheduler; faults?: readonly Fault[]; maxPerSubject?: number } = {}) {
    this.scheduler = options.scheduler;
    this.faults = [...(options.faults ?? [])];
    this.maxPerSubject = options.maxPerSubject ?? Infinity;
  }

  private async request<T>(label: string, serve: () => T, faults = true): Promise<T> {
    await this.scheduler?.schedule(Promise.resolve(), `${label}: request`);
    const fault = faults ? (this.faults.shift() ?? "ok") : "ok";
    if (fault === "drop") throw new Error(`${label}: timeout (dropped)`);
    const answer = serve();
    await this.scheduler?.schedule(Promise.resolve(), `${label}: answer`);
    if (fault === "lose-ack") throw new Error(`${label}: timeout (answer lost)`);
    return answer;
  }

  private store(subject: string, data: Uint8Array): number {
    const records = this.subjects.get(subject) ?? [];
    records.push({ seq: ++this.seq, data });
    this.subjects.set(subject, records.slice(-this.maxPerSubject));
    return this.seq;
  }

  readonly js: StreamPublish = {
    publish: (subject: string, data: Uint8Array, options: StreamPublishOptions) =>
      this.request(`publish ${subject}`, () => {
        const last = this.subjects.get(subject)?.at(-1)?.seq ?? 0;
        if (last !== options.expectedLastSubjectSequence) {
          throw new StreamPublishError("api", subject, `wrong last sequence: ${last}`, JetStreamApiCodes.StreamWrongLastSequence);
        }
        return { stream: "fake", seq: this.store(subject, data), duplicate: false };
      }),
  };

  /** A careless client: a plain publish, no compare-and-set, always answered. */
  garbage(subject: string, data: Uint8Array): Promise<number> {
    return this.request(`garbage ${subject}`, () => this.store(subject, data), false);
  }

  readonly jsm = {
    streams: {
      getMessage: (stream: string, query: { last_by_subj: string } | { seq: number; next_by_subj: string }) =>
        "last_by_subj" in query
          ? this.request(`get ${stream} ${query.last_by_subj}`, () => this.subjects.get(query.last_by_subj)?.at(-1) ?? null)
          : this.request(`get ${stream} ${query.next_by_subj} from ${query.seq}`, () => this.subjects.get(query.next_by_subj)?.find((r) => r.seq >= query.seq) ?? null),
    },
  } as unknown as JetStreamManager;

  /** The epochs of the records that decode on a subject, in stream order. */
  epochsAt(subject: string): number[] {
    return (this.subjects.get(subject) ?? []).flatMap((r) => decodes(r.data)?.epoch ?? []);
  }

  epochsOn(replica: number): number[] {
    return this.epochsAt(intentReplicaSubjects(replica).build(ADDRESS));
  }
}

/** A DropReporter that remembers what it was told. */
class RecordedDrops {
  readonly drops: { template: string; reason: DropReason; seq: unknown }[] = [];

  drop(template: string, reason: DropReason, detail: Readonly<Record<string, unknown>>): void {
    this.drops.push({ template, reason, seq: detail["seq"] });
  }
}

function quorumLog(js: StreamPublish, jsm: JetStreamManager, drops?: RecordedDrops): QuorumIntentLog {
  return new QuorumIntentLog(
    Array.from(
      { length: REPLICAS },
      (_, replica) => new IntentLog(js, jsm, { stream: intentReplicaStream(replica), subjects: intentReplicaSubjects(replica) }, undefined, drops),
    ),
  );
}

describe("quorum intent log: the fence under any interleaving", () => {
  it("property: a takeover that succeeded fences every append the former owner starts after it, garbage or not", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom<Fault>("ok", "ok", "ok", "drop", "lose-ack"), { maxLength: 60 }),
        fc.nat({ max: 3 }),
        // A careless client's publishes: which replica, which payload; the scheduler puts them anywhere.
        fc.array(fc.record({ replica: fc.nat({ max: REPLICAS - 1 }), payload: fc.nat({ max: GARBAGE.length - 1 }) }), { maxLength: 8 }),
        // Before which of its turns the former owner forgets its sequences and reads the log anew (as after a handoff).
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        async (scheduler, faults, formerTurnsFirst, garbage, forgets) => {
          const streams = new MemoryStreams({ scheduler, faults });
          const former = quorumLog(streams.js, streams.jsm);
          const newer = quorumLog(streams.js, streams.jsm);
          let clock = 0;
          let takeoverAt: number | undefined;
          const formerAppends: { startedAt: number; ok: boolean; error?: unknown }[] = [];
          const garbageRun = (async () => {
            for (const { replica, payload } of garbage) await streams.garbage(intentReplicaSubjects(replica).build(ADDRESS), GARBAGE[payload] ?? new Uint8Array());
          })();
          const formerRun = (async () => {
            for (let turn = 0; turn < formerTurnsFirst + 3; turn++) {
              if (forgets[turn]) former.forgetShard(ADDRESS.shard);
              const startedAt = ++clock;
              try {
                await former.append(ADDRESS, plan("a", "ia", 1, turn));
                formerAppends.push({ startedAt, ok: true });
              } catch (error) {
                formerAppends.push({ startedAt, ok: false, error });
                if (error instanceof FencedError) return;
              }
            }
          })();
          const newerRun = (async () => {
            for (let attempt = 0; attempt < 4 && takeoverAt === undefined; attempt++) {
              try {
                await newer.append(ADDRESS, takeover("b", "ib", 2));
                takeoverAt = ++clock;
              } catch (error) {
                assert.ok(!(error instanceof FencedError), `the newest owner was fenced: ${String(error)}`);
              }
            }
            if (takeoverAt !== undefined) await newer.append(ADDRESS, plan("b", "ib", 2, 0)).catch((error: unknown) => assert.ok(error instanceof IntentQuorumError, String(error)));
          })();
          await scheduler.waitFor(Promise.all([formerRun, newerRun, garbageRun]));
          await scheduler.waitIdle();
          for (const append of formerAppends) {
            if (takeoverAt !== undefined && append.startedAt > takeoverAt) {
              assert.equal(append.ok, false, `an append started at ${append.startedAt} after the takeover at ${takeoverAt} went through`);
            }
            // Only the newer owner's record fences; garbage is no epoch.
            if (append.error instanceof FencedError) assert.equal(append.error.theirEpoch, 2, String(append.error));
          }
          for (let replica = 0; replica < REPLICAS; replica++) {
            const epochs = streams.epochsOn(replica);
            assert.deepEqual(epochs, [...epochs].sort((x, y) => x - y), `replica ${replica} went back to an older epoch: ${epochs.join(",")}`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("takes a majority without a failed replica and refuses without a majority", async () => {
    const down = new Set<number>([2]);
    const replicaOf = (subject: string) => Number(subject.split(".")[1]);
    const store = new Map<string, number>();
    let seq = 0;
    const js: StreamPublish = {
      publish: (subject: string) => {
        if (down.has(replicaOf(subject))) return Promise.reject(new StreamPublishError("no-responders", subject, "down"));
        store.set(subject, ++seq);
        return Promise.resolve({ stream: "fake", seq, duplicate: false });
      },
    };
    const jsm = {
      streams: {
        getMessage: (_stream: string, query: { last_by_subj: string }) =>
          down.has(replicaOf(query.last_by_subj)) ? Promise.reject(new Error("503 no responders")) : Promise.resolve(null),
      },
    } as unknown as JetStreamManager;
    const log = quorumLog(js, jsm);
    assert.equal(log.quorum, 2);
    assert.equal(await log.append(ADDRESS, takeover("a", "ia", 1)), 2);
    down.add(1);
    await assert.rejects(log.append(ADDRESS, plan("a", "ia", 1, 1)), (error: unknown) => error instanceof IntentQuorumError && error.accepted === 1 && error.failures.length === 2);
    assert.throws(() => new QuorumIntentLog([]), RangeError);
  });
});

describe("garbage in the intent log (ADR 0089)", () => {
  const SUBJECT = intentSubjects.build(ADDRESS);
  const single = (streams: MemoryStreams, options: { js?: StreamPublish; seen?: Intent[]; drops?: RecordedDrops } = {}) =>
    new IntentLog(options.js ?? streams.js, streams.jsm, SINGLE_STREAM_TARGET, (_, intent) => options.seen?.push(intent), options.drops);
  const poison = async (streams: MemoryStreams, payloads: readonly Uint8Array[] = GARBAGE) => {
    for (const data of payloads) await streams.garbage(SUBJECT, data);
  };

  it("an owner whose last record is under garbage appends over it, by compare-and-set on the garbage's sequence", async () => {
    const streams = new MemoryStreams();
    const owner = single(streams);
    await owner.append(ADDRESS, takeover("a", "ia", 1));
    await owner.append(ADDRESS, plan("a", "ia", 1, 1));
    await poison(streams);
    const tip = streams.subjects.get(SUBJECT)?.at(-1)?.seq ?? 0;
    assert.equal(await owner.append(ADDRESS, plan("a", "ia", 1, 2)), tip + 1);
    assert.deepEqual(streams.epochsAt(SUBJECT), [1, 1, 1]);
    // The tip is a record again: the next append needs no read.
    assert.equal(await owner.append(ADDRESS, plan("a", "ia", 1, 3)), tip + 2);
  });

  it("a former owner reading the log anew is fenced by a newer owner's record under garbage", async () => {
    const streams = new MemoryStreams();
    await single(streams).append(ADDRESS, plan("a", "ia", 1, 0));
    await single(streams).append(ADDRESS, takeover("b", "ib", 2));
    await poison(streams);
    const before = streams.subjects.get(SUBJECT)?.length;
    await assert.rejects(single(streams).append(ADDRESS, plan("a", "ia", 1, 1)), (error: unknown) => error instanceof FencedError && error.theirEpoch === 2);
    assert.equal(streams.subjects.get(SUBJECT)?.length, before, "the fenced owner appended");
  });

  it("a record appended after the read wins: the compare-and-set on the garbage's sequence fails and the re-read fences", async () => {
    const streams = new MemoryStreams();
    const newer = single(streams);
    let interleaved = false;
    // The newer owner's takeover lands between the former owner's read of the garbage and its publish.
    const racing: StreamPublish = {
      publish: async (subject, data, options) => {
        if (!interleaved) {
          interleaved = true;
          await newer.append(ADDRESS, takeover("b", "ib", 2));
        }
        return streams.js.publish(subject, data, options);
      },
    };
    const former = single(streams, { js: racing });
    await streams.js.publish(SUBJECT, codecs.intent.encode(plan("a", "ia", 1, 0)), { expectedLastSubjectSequence: 0 });
    await poison(streams);
    await assert.rejects(former.append(ADDRESS, plan("a", "ia", 1, 1)), (error: unknown) => error instanceof FencedError && error.theirEpoch === 2);
    assert.deepEqual(streams.epochsAt(SUBJECT), [1, 2]);
  });

  it("tells the newest record under garbage as the set's last record (what the new owner's first turn waits for)", async () => {
    const streams = new MemoryStreams();
    await single(streams).append(ADDRESS, { ...plan("a", "ia", 1, 0), setGeneration: 7 });
    await poison(streams);
    const seen: Intent[] = [];
    await single(streams, { seen }).append(ADDRESS, takeover("b", "ib", 2));
    assert.deepEqual(seen.map((i) => [i.member, i.type === "intent.plan" ? i.setGeneration : undefined]), [["a", 7]]);
  });

  it("counts every garbage entry once, with its decode failure, however often the log is read", async () => {
    const streams = new MemoryStreams();
    const drops = new RecordedDrops();
    const owner = single(streams, { drops });
    await owner.append(ADDRESS, takeover("a", "ia", 1));
    await poison(streams);
    await owner.append(ADDRESS, plan("a", "ia", 1, 1));
    assert.deepEqual(drops.drops.map((d) => [d.template, d.reason, d.seq]), [
      [intentSubjects.template, "malformed", 2],
      [intentSubjects.template, "malformed", 3],
      [intentSubjects.template, "malformed", 4],
      [intentSubjects.template, "invalid", 5],
    ]);
    // Two more: only those are counted, though the read walks past the first four again.
    await poison(streams, [GARBAGE[3] ?? new Uint8Array(), GARBAGE[0] ?? new Uint8Array()]);
    await owner.append(ADDRESS, plan("a", "ia", 1, 2));
    assert.deepEqual(drops.drops.slice(4).map((d) => [d.reason, d.seq]), [["invalid", 7], ["malformed", 8]]);
  });

  it("a subject that holds only garbage holds no record: the first owner appends over it", async () => {
    const streams = new MemoryStreams();
    await poison(streams);
    const owner = single(streams);
    assert.equal(await owner.append(ADDRESS, takeover("a", "ia", 1)), GARBAGE.length + 1);
  });

  it("the bound: garbage that pushes every record out of the subject's window leaves no record to fence with", async () => {
    // STS_INTENT keeps 32 entries per set. The rule can only decide on what is kept (ADR 0089, "The bound").
    const streams = new MemoryStreams({ maxPerSubject: 4 });
    await single(streams).append(ADDRESS, takeover("b", "ib", 2));
    await poison(streams, GARBAGE.slice(0, 3));
    await assert.rejects(single(streams).append(ADDRESS, plan("a", "ia", 1, 0)), FencedError);
    await poison(streams, GARBAGE.slice(3));
    assert.equal(typeof (await single(streams).append(ADDRESS, plan("a", "ia", 1, 0))), "number");
  });
});

describe("quorum intent log on a nats-server", async () => {
  const server = await useNatsServer();
  let nc: NatsConnection;
  const placement = ["a", "b", "c"];

  before(async () => {
    nc = await connect({ servers: server.url });
  });
  after(async () => {
    await nc.close();
  });

  it("creates one stream per replica, pins the layout, and refuses an actor with another layout", async () => {
    const topology = await provisionTopology(nc, { replicas: 1 });
    const provisioned = await provisionIntentLog(topology, placement);
    assert.deepEqual(provisioned.layout.placement, placement);
    // A standalone server is not clustered: the replicas are there, without a server name to compare.
    assert.deepEqual(provisioned.servers, [undefined, undefined, undefined]);
    const jsm = await jetstreamManager(nc);
    for (let replica = 0; replica < placement.length; replica++) {
      const info = await jsm.streams.info(intentReplicaStream(replica));
      assert.deepEqual(info.config.subjects, [intentReplicaSubjects(replica).all]);
      assert.equal(info.config.num_replicas, 1);
      assert.deepEqual(info.config.placement?.tags, [placement[replica]]);
    }
    await provisionIntentLog(topology, placement);
    await assert.rejects(provisionIntentLog(topology, []), IntentLogLayoutError);
    await assert.rejects(provisionIntentLog(topology, ["a", "c", "b"]), /same --intent-log-placement/);
  });

  it("tells what the last record of a set was when it reads it, so a new owner knows the generation planned from", async () => {
    const js = new StreamPublisher(nc, { timeoutMs: 2_000 });
    const jsm = await jetstreamManager(nc);
    const address: SetAddress = { shard: 11, namespace: "ns", name: "cache" };
    const seen: Intent[] = [];
    const former = new IntentLog(js, jsm, { stream: intentReplicaStream(0), subjects: intentReplicaSubjects(0) });
    await former.append(address, { ...plan("a", "ia", 1, 0), shard: address.shard, setGeneration: 5 });
    const newer = new IntentLog(js, jsm, { stream: intentReplicaStream(0), subjects: intentReplicaSubjects(0) }, (at, intent) => {
      assert.deepEqual(at, address);
      seen.push(intent);
    });
    await newer.append(address, { ...takeover("b", "ib", 2), shard: address.shard });
    assert.deepEqual(seen.map((i) => [i.type, i.type === "intent.plan" ? i.setGeneration : undefined]), [["intent.plan", 5]]);
    // Its own later appends do not read the log again.
    await newer.append(address, { ...plan("b", "ib", 2, 1), shard: address.shard, setGeneration: 6 });
    assert.equal(seen.length, 1);
  });

  it("fences a former owner whose next append comes after a takeover that reached only a majority", async () => {
    const js = new StreamPublisher(nc, { timeoutMs: 2_000 });
    const jsm = await jetstreamManager(nc);
    const address: SetAddress = { shard: 10, namespace: "ns", name: "db" };
    const former = quorumLog(js, jsm);
    await former.append(address, { ...plan("a", "ia", 1, 0), shard: address.shard });
    // The newer owner cannot reach replica 2 (its server is down): its takeover lands on 0 and 1 only.
    const unreachable = intentReplicaStream(2);
    const partialJsm = {
      streams: {
        getMessage: (stream: string, query: { last_by_subj: string }) =>
          stream === unreachable ? Promise.reject(new Error("503 no responders")) : jsm.streams.getMessage(stream, query),
      },
    } as unknown as JetStreamManager;
    const partialJs: StreamPublish = {
      publish: (subject, data, options) =>
        subject.startsWith(intentReplicaSubjects(2).all.slice(0, -1)) ? Promise.reject(new StreamPublishError("no-responders", subject, "down")) : js.publish(subject, data, options),
    };
    const newer = quorumLog(partialJs, partialJsm);
    assert.equal(await newer.append(address, { ...takeover("b", "ib", 2), shard: address.shard }), 2);
    // Replica 2 still takes the former owner's append (its cached sequence is current there), but 0 and 1 fence it.
    await assert.rejects(former.append(address, { ...plan("a", "ia", 1, 1), shard: address.shard }), (error: unknown) => error instanceof FencedError && error.theirEpoch === 2);
    // Once replica 2 is back, the newer owner's appends reach all three.
    const healed = quorumLog(js, jsm);
    assert.equal(await healed.append(address, { ...plan("b", "ib", 2, 0), shard: address.shard }), 2);
  });

  it("garbage on every replica: the owner appends over it, a former owner is fenced, each entry is counted once", async () => {
    const js = new StreamPublisher(nc, { timeoutMs: 2_000 });
    const jsm = await jetstreamManager(nc);
    const address: SetAddress = { shard: 12, namespace: "ns", name: "queue" };
    await quorumLog(js, jsm).append(address, { ...plan("a", "ia", 1, 0), shard: address.shard });
    const drops = new RecordedDrops();
    const owner = quorumLog(js, jsm, drops);
    await owner.append(address, { ...takeover("b", "ib", 2), shard: address.shard });
    // Another set's entries in between: the read of the subject's window skips them.
    await quorumLog(js, jsm).append({ ...address, name: "other" }, { ...takeover("b", "ib", 2), shard: address.shard });
    const careless = jetstream(nc);
    for (const data of GARBAGE) for (let replica = 0; replica < REPLICAS; replica++) await careless.publish(intentReplicaSubjects(replica).build(address), data);
    assert.equal(await owner.append(address, { ...plan("b", "ib", 2, 1), shard: address.shard }), 2);
    await assert.rejects(quorumLog(js, jsm).append(address, { ...plan("a", "ia", 1, 1), shard: address.shard }), (error: unknown) => error instanceof FencedError && error.theirEpoch === 2);
    // The third replica's append finishes in the background; each replica's four entries are counted once.
    for (let waited = 0; drops.drops.length < REPLICAS * GARBAGE.length && waited < 2_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(drops.drops.length, REPLICAS * GARBAGE.length);
    for (let replica = 0; replica < REPLICAS; replica++) {
      const last = await jsm.streams.getMessage(intentReplicaStream(replica), { last_by_subj: intentReplicaSubjects(replica).build(address) });
      assert.deepEqual(last && decodes(last.data), { ...plan("b", "ib", 2, 1), shard: address.shard });
    }
  });
});
