// The intent log's fence, kept by one stream or by a quorum of single-replica streams (ADR 0084).
// - Property (fast-check scheduler over an in-memory stream store with failure injection): whatever the interleaving
//   of a former owner's appends with a newer owner's takeover, and whichever requests are dropped or lose their acks,
//   no append the former owner starts after the takeover succeeded goes through, the newer owner is never fenced,
//   and on every replica a set's records never go back to an older epoch.
// - Against a real nats-server: the quorum log's streams, a majority despite a replica that is down, the fence, and
//   the layout every actor of a fleet must share.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { JetStreamApiCodes, jetstreamManager } from "@nats-io/jetstream";
import type { JetStreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { codecs, intentReplicaStream, intentReplicaSubjects } from "#protocol";
import type { Intent, IntentPlan, SetAddress } from "#protocol";
import { useNatsServer } from "#test-support/nats.ts";
import { StreamPublishError, StreamPublisher } from "../../../common/src/stream-publish.ts";
import type { StreamPublish, StreamPublishOptions } from "../../../common/src/stream-publish.ts";
import { IntentLogLayoutError, provisionIntentLog, provisionTopology } from "../../../common/src/topology.ts";
import { FencedError, IntentLog, IntentQuorumError, QuorumIntentLog } from "./intents.ts";

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

/**
 * Streams in memory, with nats-server's compare-and-set on a subject's last sequence. Every request waits for the
 * scheduler before it reaches the "server" and again before its answer comes back, so the scheduler picks the
 * interleaving; each request takes the next fault: dropped before it reached the server, or applied with its answer
 * lost (the client sees a timeout either way).
 */
class ScheduledStreams {
  readonly subjects = new Map<string, { seq: number; data: Uint8Array }[]>();
  private seq = 0;
  private readonly scheduler: fc.Scheduler;
  private readonly faults: Fault[];

  constructor(scheduler: fc.Scheduler, faults: readonly Fault[]) {
    this.scheduler = scheduler;
    this.faults = [...faults];
  }

  private async request<T>(label: string, serve: () => T): Promise<T> {
    await this.scheduler.schedule(Promise.resolve(), `${label}: request`);
    const fault = this.faults.shift() ?? "ok";
    if (fault === "drop") throw new Error(`${label}: timeout (dropped)`);
    const answer = serve();
    await this.scheduler.schedule(Promise.resolve(), `${label}: answer`);
    if (fault === "lose-ack") throw new Error(`${label}: timeout (answer lost)`);
    return answer;
  }

  readonly js: StreamPublish = {
    publish: (subject: string, data: Uint8Array, options: StreamPublishOptions) =>
      this.request(`publish ${subject}`, () => {
        const records = this.subjects.get(subject) ?? [];
        const last = records.at(-1)?.seq ?? 0;
        if (last !== options.expectedLastSubjectSequence) {
          throw new StreamPublishError("api", subject, `wrong last sequence: ${last}`, JetStreamApiCodes.StreamWrongLastSequence);
        }
        records.push({ seq: ++this.seq, data });
        this.subjects.set(subject, records);
        return { stream: "fake", seq: this.seq, duplicate: false };
      }),
  };

  readonly jsm = {
    streams: {
      getMessage: (stream: string, query: { last_by_subj: string }) =>
        this.request(`get ${stream} ${query.last_by_subj}`, () => this.subjects.get(query.last_by_subj)?.at(-1) ?? null),
    },
  } as unknown as JetStreamManager;

  epochsOn(replica: number): number[] {
    return (this.subjects.get(intentReplicaSubjects(replica).build(ADDRESS)) ?? []).map((r) => codecs.intent.decode(r.data).epoch);
  }
}

function quorumLog(js: StreamPublish, jsm: JetStreamManager, member: string, incarnation: string): QuorumIntentLog {
  return new QuorumIntentLog(
    Array.from({ length: REPLICAS }, (_, replica) => new IntentLog(js, jsm, { member, incarnation }, { stream: intentReplicaStream(replica), subjects: intentReplicaSubjects(replica) })),
  );
}

describe("quorum intent log: the fence under any interleaving", () => {
  it("property: a takeover that succeeded fences every append the former owner starts after it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.constantFrom<Fault>("ok", "ok", "ok", "drop", "lose-ack"), { maxLength: 60 }),
        fc.nat({ max: 3 }),
        async (scheduler, faults, formerTurnsFirst) => {
          const streams = new ScheduledStreams(scheduler, faults);
          const former = quorumLog(streams.js, streams.jsm, "a", "ia");
          const newer = quorumLog(streams.js, streams.jsm, "b", "ib");
          let clock = 0;
          let takeoverAt: number | undefined;
          const formerAppends: { startedAt: number; ok: boolean; error?: unknown }[] = [];
          const formerRun = (async () => {
            for (let turn = 0; turn < formerTurnsFirst + 3; turn++) {
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
          await scheduler.waitFor(Promise.all([formerRun, newerRun]));
          await scheduler.waitIdle();
          for (const append of formerAppends) {
            if (takeoverAt !== undefined && append.startedAt > takeoverAt) {
              assert.equal(append.ok, false, `an append started at ${append.startedAt} after the takeover at ${takeoverAt} went through`);
            }
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
    const log = quorumLog(js, jsm, "a", "ia");
    assert.equal(log.quorum, 2);
    assert.equal(await log.append(ADDRESS, takeover("a", "ia", 1)), 2);
    down.add(1);
    await assert.rejects(log.append(ADDRESS, plan("a", "ia", 1, 1)), (error: unknown) => error instanceof IntentQuorumError && error.accepted === 1 && error.failures.length === 2);
    assert.throws(() => new QuorumIntentLog([]), RangeError);
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
    const former = new IntentLog(js, jsm, { member: "a", incarnation: "ia" }, { stream: intentReplicaStream(0), subjects: intentReplicaSubjects(0) });
    await former.append(address, { ...plan("a", "ia", 1, 0), shard: address.shard, setGeneration: 5 });
    const newer = new IntentLog(js, jsm, { member: "b", incarnation: "ib" }, { stream: intentReplicaStream(0), subjects: intentReplicaSubjects(0) }, (at, intent) => {
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
    const former = quorumLog(js, jsm, "a", "ia");
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
    const newer = quorumLog(partialJs, partialJsm, "b", "ib");
    assert.equal(await newer.append(address, { ...takeover("b", "ib", 2), shard: address.shard }), 2);
    // Replica 2 still takes the former owner's append (its cached sequence is current there), but 0 and 1 fence it.
    await assert.rejects(former.append(address, { ...plan("a", "ia", 1, 1), shard: address.shard }), (error: unknown) => error instanceof FencedError && error.theirEpoch === 2);
    // Once replica 2 is back, the newer owner's appends reach all three.
    const healed = quorumLog(js, jsm, "b", "ib");
    assert.equal(await healed.append(address, { ...plan("b", "ib", 2, 0), shard: address.shard }), 2);
  });
});
