// `stsfleet status`: the summary and its rendering from crafted bucket histories (pure), then the whole command
// against a real nats-server holding crafted KV records and StatefulSet subjects, in-process and through the CLI.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { headers, connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { jetstream } from "@nats-io/jetstream";
import { HEADERS, SHARD_COUNT, codecs, memberKeys, objectSubjects, shardKeys } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";
import { useNatsServer } from "#test-support/nats.ts";
import { provisionIntentLog, provisionTopology } from "../../../services/common/src/topology.ts";
import type { Topology } from "../../../services/common/src/topology.ts";
import { runCli } from "./run-cli.ts";
import { writeStackFile } from "./state.ts";
import { compactRanges, formatStatus, runStatus, summarize, wrap } from "./status.ts";
import type { FleetStatus, HistoryEntry, StatusInput } from "./status.ts";

// Started before any suite is declared: a root-level `after` registered while a declared suite may already have
// finished can run early and stop the server under the suites that follow (a fresh-clone CI run saw exactly that).
const server = await useNatsServer();
/** JetStream, but no fleet buckets. */
const bare = await useNatsServer();

function member(name: string, incarnation: string, state: MemberRecord["state"] = "alive"): MemberRecord {
  return {
    type: "member",
    name,
    incarnation,
    state,
    leaseDurationMs: 8_000,
    renewDeadlineMs: 5_000,
    retryPeriodMs: 1_000,
    version: "0.1.0",
    startedAtMs: 1_000,
  };
}

function shardRecord(shard: number, owner: string, incarnation: string, state: ShardRecord["state"] = "owned"): ShardRecord {
  return { type: "shard", shard, owner, incarnation, state };
}

/** A crafted history: revisions in the order given, bucket-wide like a real KV stream. */
function history<T>(entries: readonly (readonly [key: string, atMs: number, record: T | undefined])[], firstRevision = 1): HistoryEntry<T>[] {
  return entries.map(([key, atMs, record], i) => ({ key, revision: firstRevision + i, atMs, record }));
}

describe("stsfleet status: summary (pure)", () => {
  it("compacts shard lists into ranges", () => {
    assert.equal(compactRanges([0, 1, 2, 3, 7, 9, 10]), "0-3,7,9-10");
    assert.equal(compactRanges([5, 3, 4, 4]), "3-5");
    assert.equal(compactRanges([]), "");
  });

  it("wraps long range lists after commas", () => {
    assert.deepEqual(wrap("1,3,5,7,9", 4), ["1,3,", "5,7,", "9"]);
    assert.deepEqual(wrap("0-255", 3), ["0-255"]);
  });

  // Two members, a is healthy; b (incarnation b1) was declared dead at t=5000 and a claimed b's shard 1 at 5200.
  // Shard 2 was released by a at 6000 and claimed by c at 6150 (graceful). Shard 3's owner names an incarnation
  // that is not b's current one: no acting owner.
  const members = history<MemberRecord>([
    [memberKeys.build("a"), 1_000, member("a", "a1")],
    [memberKeys.build("b"), 1_000, member("b", "b1")],
    [memberKeys.build("c"), 1_000, member("c", "c1")],
    [memberKeys.build("b"), 5_000, member("b", "b1", "dead")],
    [memberKeys.build("b"), 5_500, member("b", "b2")],
    [memberKeys.build("a"), 9_000, member("a", "a1")],
    [memberKeys.build("c"), 9_500, member("c", "c1")],
  ]);
  const shards = history<ShardRecord>(
    [
      [shardKeys.build(0), 1_100, shardRecord(0, "a", "a1")],
      [shardKeys.build(1), 1_100, shardRecord(1, "b", "b1")],
      [shardKeys.build(2), 1_100, shardRecord(2, "a", "a1")],
      [shardKeys.build(3), 1_100, shardRecord(3, "b", "b0")],
      [shardKeys.build(1), 5_200, shardRecord(1, "a", "a1")],
      [shardKeys.build(2), 6_000, shardRecord(2, "a", "a1", "released")],
      [shardKeys.build(2), 6_150, shardRecord(2, "c", "c1")],
      [shardKeys.build(4), 7_000, undefined],
    ],
    100,
  );
  const input: StatusInput = {
    nats: "nats://127.0.0.1:4222",
    nowMs: 10_000,
    members,
    shards,
    setsPerShard: new Map([
      [0, 2],
      [1, 1],
      [2, 4],
      [3, 5],
    ]),
    historyPerKey: 8,
  };

  it("shows members with their acting shards and sets, and owners as ranges", () => {
    const status = summarize(input);
    assert.deepEqual(
      status.members.map((m) => [m.name, m.state, m.incarnation, m.lastRenewAgeMs, m.shards, m.sets]),
      [
        ["a", "alive", "a1", 1_000, 2, 3],
        ["b", "alive", "b2", 4_500, 0, 0],
        ["c", "alive", "c1", 500, 1, 4],
      ],
    );
    assert.deepEqual(status.owners, { "(none)": `3-${SHARD_COUNT - 1}`, a: "0-1", c: "2" });
    assert.equal(status.ownedShards, 3);
    assert.equal(status.sets, 12);
  });

  it("rebuilds handoffs with durations: graceful from the release, failover from the death declaration", () => {
    const status = summarize(input);
    assert.deepEqual(
      status.handoffs.map((h) => [h.shard, h.kind, h.from, h.to, h.epoch, h.durationMs]),
      [
        [2, "graceful", "a", "c", 106, 150],
        [1, "failover", "b", "a", 104, 200],
        // Same time: the higher epoch first.
        [3, "initial", undefined, "b", 103, undefined],
        [2, "initial", undefined, "a", 102, undefined],
        [1, "initial", undefined, "b", 101, undefined],
        [0, "initial", undefined, "a", 100, undefined],
      ],
    );
    assert.deepEqual(status.handoffStats.graceful, { count: 1, timed: 1, p50Ms: 150, maxMs: 150 });
    assert.deepEqual(status.handoffStats.failover, { count: 1, timed: 1, p50Ms: 200, maxMs: 200 });
    assert.equal(summarize(input, { handoffs: 2 }).handoffs.length, 2);
    assert.equal(summarize(input, { handoffs: 2 }).handoffStats.initial.count, 4, "stats cover the whole history");
  });

  it("does not call the oldest write of a full key history an initial claim (older writes may be gone)", () => {
    const full = history<ShardRecord>(
      Array.from({ length: 4 }, (_, i) => [shardKeys.build(9), 1_000 + i, shardRecord(9, i % 2 === 0 ? "a" : "c", i % 2 === 0 ? "a1" : "c1")] as const),
      50,
    );
    const status = summarize({ ...input, shards: full, historyPerKey: 4 });
    assert.deepEqual(
      status.handoffs.map((h) => [h.kind, h.from, h.to, h.durationMs]),
      [
        ["failover", "a", "c", undefined],
        ["failover", "c", "a", undefined],
        ["failover", "a", "c", undefined],
      ],
    );
  });

  it("renders a table and keeps JSON-able output", () => {
    const status = summarize(input);
    const text = formatStatus(status, input.nowMs);
    const lines = text.split("\n");
    assert.equal(lines[0], `NATS nats://127.0.0.1:4222: 3 live members, 3/${SHARD_COUNT} shards owned, 12 StatefulSets`);
    assert.equal(lines[1], "intent log: not pinned yet");
    const quorum = formatStatus(summarize({ ...input, intentLog: { type: "intent-log.layout", placement: ["n0", "n1", "n2"] } }), input.nowMs);
    assert.equal(quorum.split("\n")[1], "intent log: a majority of 3 single-replica streams on the servers tagged n0, n1, n2");
    assert.equal(formatStatus(summarize({ ...input, intentLog: { type: "intent-log.layout", placement: [] } }), input.nowMs).split("\n")[1], "intent log: one stream STS_INTENT");
    assert.match(text, /^MEMBER\s+STATE\s+INCARNATION\s+RENEWED\s+SHARDS\s+SETS\s+VERSION\s+STARTED$/m);
    assert.match(text, /^a\s+alive\s+a1\s+1\.0s ago\s+2\s+3\s+0\.1\.0\s+9\.0s ago$/m);
    assert.match(text, /^ {2}a {7}0-1$/m);
    assert.match(text, /^ {2}a {7}0-1\n {2}c {7}2\n {2}\(none\) {2}3-255$/m, "shards without an owner last");
    assert.match(text, /^ {2}retained: 1 graceful \(p50 150 ms, max 150 ms over 1\); 1 failover \(p50 200 ms, max 200 ms over 1\); 4 initial$/m);
    assert.match(text, /^\d\d:\d\d:\d\d\.\d{3}\s+2\s+graceful\s+a\s+c\s+106\s+150 ms$/m);
    const json = JSON.parse(JSON.stringify(status)) as FleetStatus;
    assert.deepEqual(json.owners, status.owners);
    assert.deepEqual(json.members, status.members);
    assert.equal(json.handoffs[0]?.durationMs, 150);
    assert.equal(json.handoffStats.initial.p50Ms, undefined, "unknown durations are left out, not null");
  });

  it("says so when there are no handoffs and no members", () => {
    const status = summarize({ ...input, members: [], shards: [], setsPerShard: new Map() });
    const text = formatStatus(status, 0);
    assert.match(text, /0 live members, 0\/256 shards owned, 0 StatefulSets/);
    assert.match(text, /RECENT HANDOFFS: none in the retained history/);
    assert.deepEqual(status.owners, { "(none)": `0-${SHARD_COUNT - 1}` });
  });
});


describe("stsfleet status: against a real nats-server", () => {
  const dir = mkdtempSync(join(tmpdir(), "stsfleet-status-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  let url = "";
  let nc: NatsConnection;
  let topology: Topology;

  before(async () => {
    url = server.url;
    nc = await connect({ servers: url });
    topology = await provisionTopology(nc, { replicas: 1 });
    const putMember = (record: MemberRecord) => topology.members.put(memberKeys.build(record.name), codecs.memberRecord.encode(record));
    const putShard = (record: ShardRecord) => topology.shards.put(shardKeys.build(record.shard), codecs.shardRecord.encode(record));
    await putMember(member("actor-0", "i0"));
    await putMember(member("actor-1", "i1"));
    for (let shard = 0; shard < SHARD_COUNT; shard++) await putShard(shardRecord(shard, shard < 128 ? "actor-0" : "actor-1", shard < 128 ? "i0" : "i1"));
    // actor-1 dies; actor-0 takes shard 200 over. actor-0 hands shard 5 to actor-1's new incarnation.
    await putMember(member("actor-1", "i1", "dead"));
    await putShard(shardRecord(200, "actor-0", "i0"));
    await putMember(member("actor-1", "i2"));
    await putShard(shardRecord(5, "actor-0", "i0", "released"));
    await putShard(shardRecord(5, "actor-1", "i2"));
    // Three sets on shard 5, one of them deleted; one on shard 200.
    const js = jetstream(nc);
    const publish = async (shard: number, name: string, op: "PUT" | "DEL") => {
      const h = headers();
      h.set(HEADERS.op, op);
      await js.publish(objectSubjects.build({ shard, kind: "sts", namespace: "default", name }), new Uint8Array([1]), { headers: h });
    };
    await publish(5, "web", "PUT");
    await publish(5, "db", "PUT");
    await publish(5, "old", "PUT");
    await publish(5, "old", "DEL");
    await publish(200, "cache", "PUT");
    // The first actor pinned a quorum intent log (ADR 0084).
    await provisionIntentLog(topology, ["n0", "n1", "n2"]);
  });
  after(() => nc.close());

  function capture(): { out: string[]; err: string[]; io: { out: (t: string) => void; err: (t: string) => void } } {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t) => out.push(t), err: (t) => err.push(t) } };
  }

  it("reads members, owners, sets and handoffs (--nats-url, --output json)", async () => {
    const { out, err, io } = capture();
    const code = await runStatus({ stateDir: join(dir, "none"), natsUrl: url, output: "json", handoffs: 5 }, io);
    assert.equal(code, 0, err.join("\n"));
    const status = JSON.parse(out.join("\n")) as FleetStatus;
    assert.deepEqual(
      status.members.map((m) => [m.name, m.state, m.incarnation, m.shards, m.sets]),
      [
        ["actor-0", "alive", "i0", 128, 1],
        ["actor-1", "alive", "i2", 1, 2],
      ],
    );
    assert.deepEqual(status.owners, { "(none)": "128-199,201-255", "actor-0": "0-4,6-127,200", "actor-1": "5" });
    assert.equal(status.sets, 3);
    const [graceful, failover] = status.handoffs;
    assert.deepEqual([graceful?.shard, graceful?.kind, graceful?.from, graceful?.to], [5, "graceful", "actor-0", "actor-1"]);
    assert.deepEqual([failover?.shard, failover?.kind, failover?.from, failover?.to], [200, "failover", "actor-1", "actor-0"]);
    for (const h of [graceful, failover]) assert.ok(h?.durationMs !== undefined && h.durationMs >= 0 && h.durationMs < 5_000, JSON.stringify(h));
    assert.equal(status.handoffStats.initial.count, SHARD_COUNT);
    assert.deepEqual(status.intentLog, { layout: "quorum", placement: ["n0", "n1", "n2"] });
  });

  it("finds NATS through the state dir's stack.json", async () => {
    const stateDir = join(dir, "stack");
    writeStackFile(stateDir, { apiServer: "https://127.0.0.1:1", nats: url, kubeconfig: join(stateDir, "kubeconfig"), processes: [] });
    const { out, err, io } = capture();
    assert.equal(await runStatus({ stateDir, output: "table", handoffs: 3 }, io), 0, err.join("\n"));
    const text = out.join("\n");
    assert.match(text, /2 live members, 129\/256 shards owned, 3 StatefulSets/);
    assert.match(text, /^intent log: a majority of 3 single-replica streams on the servers tagged n0, n1, n2$/m);
    assert.match(text, /^ {2}actor-1 {2}5$/m);
  });

  it("explains a missing stack.json, a NATS without a fleet, and an unreachable NATS", async () => {
    let c = capture();
    assert.equal(await runStatus({ stateDir: join(dir, "nothing-here"), output: "table", handoffs: 3 }, c.io), 1);
    assert.match(c.err.join(""), /no stack\.json in .*nothing-here.*--nats-url/);

    c = capture();
    assert.equal(await runStatus({ stateDir: dir, natsUrl: bare.url, output: "table", handoffs: 3 }, c.io), 1);
    assert.match(c.err.join(""), /no fleet at nats:\/\/.*buckets members and shards are missing/);

    c = capture();
    assert.equal(await runStatus({ stateDir: dir, natsUrl: "nats://127.0.0.1:1", output: "table", handoffs: 3 }, c.io), 1);
    assert.match(c.err.join(""), /cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);
  });

  it("is registered as `stsfleet status` and validates its flags", async () => {
    const [ok, bad] = await Promise.all([runCli(["status", "--nats-url", url]), runCli(["status", "--nats-url", url, "--output", "yaml"])]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /SHARD OWNERS/);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /yaml.*Allowed choices are table, json/s);
  });
});
