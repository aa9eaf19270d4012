// Garbage, truncated, empty and wrong-type messages on every subject the services read
// (k8s.*, cmd.pvc.*, svc.status.*, svc.event.*) and in the KV buckets (members, shards, leases) leave every service
// running; each drop is counted in stsfleet_dropped_messages_total and logged once per reason.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  BUCKETS,
  codecs,
  eventSubjects,
  objectSubjects,
  pvcCommandSubjects,
  SAMPLE_MESSAGES,
  shard,
  shardKeys,
  statusSubjects,
} from "#protocol";
import { probeReadyz } from "../../tools/stsfleet/src/readiness.ts";
import { useStack, waitFor } from "../support/stack.ts";
import type { Sample } from "../support/stack.ts";
import { createSet, waitForConverged } from "./helpers.ts";

const t = await useStack();
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
const DROPPED = "stsfleet_dropped_messages_total";

/** Bytes no MessagePack decoder accepts (0xc1 is never used). */
const GARBAGE = new Uint8Array([0xc1, 0xc1, 0xc1, 0x00, 0xff]);

function truncated(bytes: Uint8Array): Uint8Array {
  return bytes.slice(0, Math.max(1, Math.floor(bytes.length / 2)));
}

/** The five bad messages each subject gets: garbage twice (same reason: logged once), truncated, wrong type, empty. */
function badMessages(valid: Uint8Array, wrongType: Uint8Array): { label: string; data: Uint8Array }[] {
  return [
    { label: "garbage", data: GARBAGE },
    { label: "garbage again", data: GARBAGE },
    { label: "truncated", data: truncated(valid) },
    { label: "wrong type", data: wrongType },
    { label: "empty", data: new Uint8Array(0) },
  ];
}

function dropped(samples: readonly Sample[], subject?: string): number {
  return samples
    .filter((s) => s.name === DROPPED && (subject === undefined || s.labels["subject"] === subject))
    .reduce((sum, s) => sum + s.value, 0);
}

async function droppedBy(name: string, subject?: string): Promise<number> {
  return dropped(await t.metrics(name), subject);
}

interface LogLine {
  msg?: string;
  reason?: string;
  subject?: string;
}

/** The services' drop log lines, by reason (only lines about `subjectPrefix` when given). */
function dropLogReasons(name: string, subjectPrefix: string): Map<string, number> {
  const log = t.stack.service(name).logPath;
  const counts = new Map<string, number>();
  for (const line of readFileSync(log, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    let entry: LogLine;
    try {
      entry = JSON.parse(line) as LogLine;
    } catch {
      continue;
    }
    if (!/drop/i.test(entry.msg ?? "") || entry.reason === undefined) continue;
    if (!(entry.subject ?? "").startsWith(subjectPrefix)) continue;
    counts.set(entry.reason, (counts.get(entry.reason) ?? 0) + 1);
  }
  return counts;
}

async function assertAllRunningAndReady(pids: ReadonlyMap<string, number>): Promise<void> {
  for (const name of SERVICES) {
    const child = t.stack.service(name);
    assert.equal(child.pid, pids.get(name), `${name} was restarted (it died)`);
    assert.equal(child.restarts, 0, `${name} restarted`);
    const probes = child.probes;
    assert.ok(probes);
    const ready = await waitFor(`${name} to be ready`, async () => ((await probeReadyz(probes)).ok ? true : undefined), { timeoutMs: 20_000 });
    assert.equal(ready, true);
  }
}

describe("poison messages on every subject the services read", () => {
  let nc: NatsConnection;
  const pids = new Map<string, number>();

  before(async () => {
    nc = await connect({ servers: t.stack.natsUrl, name: "e2e-poison" });
    for (const name of SERVICES) pids.set(name, t.stack.service(name).pid ?? -1);
  });
  after(async () => {
    await nc.drain();
  });

  it("stream and request subjects: every service keeps running and counts every drop, logging once per reason", async () => {
    const js = jetstream(nc);
    const ns = "e2e-poison";
    const target = { shard: shard(ns, "web"), namespace: ns, name: "web" };
    const subjects = [
      {
        service: "actor-0",
        template: objectSubjects.template,
        prefix: "k8s.",
        subject: (i: number) => objectSubjects.build({ ...target, kind: "sts", name: `poison-${i}` }),
        valid: codecs.objectEnvelope.encode(SAMPLE_MESSAGES["object.put"]),
        wrongType: codecs.statusWrite.encode(SAMPLE_MESSAGES["status.write"]),
        stream: true,
      },
      {
        service: "pvc-provisioner",
        template: pvcCommandSubjects.template,
        prefix: "cmd.pvc.",
        subject: () => pvcCommandSubjects.build(target),
        valid: codecs.pvcCommand.encode(SAMPLE_MESSAGES["pvc.create"]),
        wrongType: codecs.objectEnvelope.encode(SAMPLE_MESSAGES["object.put"]),
        stream: true,
      },
      {
        service: "status-writer",
        template: statusSubjects.template,
        prefix: "svc.status.",
        subject: () => statusSubjects.build(target),
        valid: codecs.statusWrite.encode(SAMPLE_MESSAGES["status.write"]),
        wrongType: codecs.pvcCommand.encode(SAMPLE_MESSAGES["pvc.create"]),
        stream: false,
      },
      {
        service: "status-writer",
        template: eventSubjects.template,
        prefix: "svc.event.",
        subject: () => eventSubjects.build(target),
        valid: codecs.eventRecord.encode(SAMPLE_MESSAGES["event.record"]),
        wrongType: codecs.statusWrite.encode(SAMPLE_MESSAGES["status.write"]),
        stream: false,
      },
    ];
    const before = new Map<string, number>();
    for (const s of subjects) before.set(s.template, await droppedBy(s.service, s.template));

    for (const s of subjects) {
      for (const [i, message] of badMessages(s.valid, s.wrongType).entries()) {
        if (s.stream) await js.publish(s.subject(i), message.data, { msgID: `e2e-poison-${s.prefix}${i}` });
        else nc.publish(s.subject(i), message.data);
      }
    }
    await nc.flush();

    for (const s of subjects) {
      const total = await waitFor(
        `${s.service} to count 5 drops on ${s.template}`,
        async () => {
          const delta = (await droppedBy(s.service, s.template)) - (before.get(s.template) ?? 0);
          return delta >= 5 ? delta : undefined;
        },
        { timeoutMs: 15_000, describeLast: async () => (await t.metrics(s.service)).filter((x) => x.name === DROPPED) },
      );
      assert.equal(total, 5, `${s.service} counted ${total} drops on ${s.template}`);
      const reasons = dropLogReasons(s.service, s.prefix === "k8s." ? "k8s." : s.template);
      assert.ok(reasons.size >= 2, `${s.service} logged no drop reasons for ${s.template}: ${JSON.stringify([...reasons])}`);
      for (const [reason, lines] of reasons) {
        assert.equal(lines, 1, `${s.service} logged reason ${reason} on ${s.template} ${lines} times (once per reason)`);
      }
    }
    await assertAllRunningAndReady(pids);

    // And they still work: a set converges afterwards.
    await t.createNamespace(ns);
    await createSet(t.kube, ns, "web", { replicas: 2 });
    await waitForConverged(t.kube, ns, "web", 2);
  });

  it("KV records (members, shards, leases): every service keeps running, counts the drop, and a set in the poisoned shard converges", async (test) => {
    const ns = "e2e-poison-kv";
    const poisoned = shard(ns, "web");
    const kvm = new Kvm(nc);
    const members = await kvm.open(BUCKETS.members);
    const shards = await kvm.open(BUCKETS.shards);
    const leases = await kvm.open(BUCKETS.leases);
    const before = new Map<string, number>();
    for (const name of SERVICES) before.set(name, await droppedBy(name));

    await members.put("m.e2e-poison", GARBAGE);
    await shards.put(shardKeys.build(poisoned), truncated(codecs.shardRecord.encode(SAMPLE_MESSAGES.shard)));
    await leases.put("watcher", GARBAGE);
    await sleep(2_000);
    await assertAllRunningAndReady(pids);

    // The watcher, after a garbage lease: it stands by for one lease duration, then takes the lease back.
    await waitFor("a watcher to be active again", async () => {
      const leader = (await t.metrics("watcher")).find((x) => x.name === "stsfleet_watcher_leader");
      return leader?.value === 1 ? leader : undefined;
    });

    await t.createNamespace(ns);
    await createSet(t.kube, ns, "web", { replicas: 2 });
    await waitForConverged(t.kube, ns, "web", 2, 30_000);
    await assertAllRunningAndReady(pids);

    await test.test("each service that read a bad record counted it", async () => {
      const silent: string[] = [];
      for (const name of SERVICES) {
        if ((await droppedBy(name)) - (before.get(name) ?? 0) < 1) silent.push(name);
      }
      assert.deepEqual(silent, [], "services that counted no drop for the bad KV records they read");
    });
  });
});

