// The intent log layout guard against a real nats-server: garbage, deletes and purges on `layout.intent-log` are
// written over by the running actor (docs/adr/0088-garbage-is-absent-and-repaired.md), another valid layout is not.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, FLEET_KEYS, codecs } from "#protocol";
import type { DecodeFailure, IntentLogLayout } from "#protocol";
import { useNatsServer } from "../../../../test/support/nats.ts";
import { garbagePayloads } from "../../../../tools/chaos/garbage.ts";
import { createLogger } from "../../../common/src/logger.ts";
import { IntentLogLayoutError, provisionIntentLog, provisionTopology } from "../../../common/src/topology.ts";
import { guardIntentLogLayout } from "./layout-guard.ts";
import type { LayoutGuard, LayoutGuardOptions } from "./layout-guard.ts";

const SUBJECT = `$KV.${BUCKETS.members}.${FLEET_KEYS.intentLog}`;
const OTHER: IntentLogLayout = { type: "intent-log.layout", placement: ["x", "y", "z"] };
const WARN = 40;
const ERROR = 50;

interface LogLine {
  readonly level: number;
  readonly msg: string;
}

function capturingLogger() {
  const output = new PassThrough();
  const lines: LogLine[] = [];
  output.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
  });
  return { logger: createLogger({ service: "test", instance: "t", level: "debug", format: "json", destination: output }), lines };
}

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for: ${what}`);
    await sleep(20);
  }
}

/** The layout the key holds now; undefined for no entry, a delete, a purge or garbage. */
async function pinned(members: KV): Promise<IntentLogLayout | undefined> {
  const entry = await members.get(FLEET_KEYS.intentLog);
  if (entry?.operation !== "PUT") return undefined;
  try {
    return codecs.intentLogLayout.decode(entry.value);
  } catch {
    return undefined;
  }
}

/** A connection, the fleet's topology with the layout pinned by an actor started for `placement`, and its guard. */
async function runningActor(url: string, placement: readonly string[], options: Partial<LayoutGuardOptions> = {}) {
  const nc: NatsConnection = await connect({ servers: url });
  const topology = await provisionTopology(nc, { replicas: 1 });
  const { layout } = await provisionIntentLog(topology, placement);
  const log = capturingLogger();
  const reasons: DecodeFailure[] = [];
  const guard: LayoutGuard = await guardIntentLogLayout({
    members: topology.members,
    layout,
    logger: log.logger,
    onUndecodable: (reason) => reasons.push(reason),
    ...options,
  });
  return {
    nc,
    topology,
    layout,
    guard,
    reasons,
    lines: log.lines,
    close: async () => {
      guard.stop();
      await nc.close();
    },
  };
}

describe("the intent log layout guard (ADR 0088)", () => {
  it("writes its layout back over garbage by compare-and-set, counting every record, and a starting actor with another layout is still refused", async () => {
    const server = await useNatsServer();
    const actor = await runningActor(server.url, []);
    try {
      const js = jetstream(actor.nc);
      let garbage = 0;
      for (const { data } of garbagePayloads()) garbage = (await js.publish(SUBJECT, data)).seq;
      await eventually(async () => (await pinned(actor.topology.members)) !== undefined && actor.reasons.length === 4, "the layout written back");
      assert.deepEqual(await pinned(actor.topology.members), actor.layout);
      const entry = await actor.topology.members.get(FLEET_KEYS.intentLog);
      assert.ok(entry && entry.revision > garbage, "written over the last garbage");
      // Random bytes, a truncated array and `{}` (a number, then a byte too many) do not unpack; an empty map unpacks
      // and is no layout.
      assert.deepEqual(actor.reasons, ["malformed", "malformed", "malformed", "invalid"]);
      assert.equal(actor.lines.filter((line) => line.level === WARN && /^undecodable/.test(line.msg)).length, 1, "warned once, the rest at debug");

      await assert.rejects(provisionIntentLog(actor.topology, ["x"]), (error: unknown) => error instanceof IntentLogLayoutError && error.pinned !== undefined);
    } finally {
      await actor.close();
    }
  });

  it("writes it back over a delete and a purge while it runs, so no starting actor pins another layout under its log", async () => {
    const server = await useNatsServer();
    const actor = await runningActor(server.url, []);
    try {
      const { members } = actor.topology;
      await members.delete(FLEET_KEYS.intentLog);
      await eventually(async () => (await pinned(members)) !== undefined, "written back after a delete");
      await members.purge(FLEET_KEYS.intentLog);
      await eventually(async () => (await pinned(members)) !== undefined, "written back after a purge");
      assert.deepEqual(await pinned(members), actor.layout);
      assert.deepEqual(actor.reasons, [], "a delete is no garbage");
      await assert.rejects(provisionIntentLog(actor.topology, ["x"]), IntentLogLayoutError);
    } finally {
      await actor.close();
    }
  });

  it("leaves another valid layout alone and reports it once per run", async () => {
    const server = await useNatsServer();
    const actor = await runningActor(server.url, []);
    try {
      const { members } = actor.topology;
      const errors = () => actor.lines.filter((line) => line.level === ERROR).length;
      await members.put(FLEET_KEYS.intentLog, codecs.intentLogLayout.encode(OTHER));
      await members.put(FLEET_KEYS.intentLog, codecs.intentLogLayout.encode(OTHER));
      await eventually(() => errors() === 1, "the conflict reported");
      await sleep(200);
      assert.deepEqual(await pinned(members), OTHER, "not overwritten");
      assert.equal(errors(), 1, "reported once for the run");
      // Ours again, then the other again: a new run, reported again.
      await members.put(FLEET_KEYS.intentLog, codecs.intentLogLayout.encode(actor.layout));
      await members.put(FLEET_KEYS.intentLog, codecs.intentLogLayout.encode(OTHER));
      await eventually(() => errors() === 2, "the second conflict reported");
    } finally {
      await actor.close();
    }
  });

  it("two running actors repair one garbage record with one write: the loser of the compare-and-set stays quiet", async () => {
    const server = await useNatsServer();
    const first = await runningActor(server.url, ["a"]);
    const second = await runningActor(server.url, ["a"]);
    try {
      const before = (await first.topology.members.get(FLEET_KEYS.intentLog))?.revision ?? 0;
      await jetstream(first.nc).publish(SUBJECT, new Uint8Array([0x80]));
      await eventually(async () => (await pinned(first.topology.members)) !== undefined, "written back");
      await sleep(200);
      const lines = [...first.lines, ...second.lines];
      assert.equal(lines.filter((line) => line.msg === "wrote the intent log's layout back").length, 1);
      assert.equal(lines.filter((line) => /could not write/.test(line.msg)).length, 0);
      assert.equal((await first.topology.members.get(FLEET_KEYS.intentLog))?.revision, before + 2, "the garbage, then one write");
      assert.deepEqual([first.reasons, second.reasons], [["invalid"], ["invalid"]]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("reads the key again after a write that failed without an answer", async () => {
    const server = await useNatsServer();
    let failures = 1;
    // The first write fails as one to a bucket without a leader does; nothing new reaches the watch after it.
    const failingOnce = (members: KV): KV =>
      new Proxy(members, {
        get(target, property, receiver) {
          const value: unknown = Reflect.get(target, property, receiver);
          if (property !== "update" || typeof value !== "function") return value;
          return (...args: unknown[]) => (failures-- > 0 ? Promise.reject(new Error("timeout")) : (Reflect.apply(value, target, args) as Promise<number>));
        },
      });
    const nc = await connect({ servers: server.url });
    const topology = await provisionTopology(nc, { replicas: 1 });
    const { layout } = await provisionIntentLog(topology, []);
    const log = capturingLogger();
    const guard = await guardIntentLogLayout({ members: failingOnce(topology.members), layout, logger: log.logger, retryAfterMs: 50 });
    try {
      await jetstream(nc).publish(SUBJECT, new Uint8Array([0x80]));
      await eventually(async () => (await pinned(topology.members)) !== undefined, "written back on the second try");
      assert.equal(failures, -1, "one failed write, one that landed");
      assert.equal(log.lines.filter((line) => /could not write/.test(line.msg)).length, 1);
    } finally {
      guard.stop();
      await nc.close();
    }
  });

  it("writes nothing once stopped", async () => {
    const server = await useNatsServer();
    const actor = await runningActor(server.url, []);
    try {
      actor.guard.stop();
      await jetstream(actor.nc).publish(SUBJECT, new Uint8Array([0x80]));
      await sleep(300);
      assert.equal(await pinned(actor.topology.members), undefined, "the garbage stays");
    } finally {
      await actor.close();
    }
  });
});
