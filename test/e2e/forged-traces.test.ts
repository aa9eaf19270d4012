// Bad input (docs/RELIABILITY.md): forged trace context. The fleet carries W3C trace context (traceparent, tracestate) in NATS
// message headers only (protocol/src/trace.ts); it reads none from Kubernetes objects, whose annotations are the
// users'. A client on a stack without --secure can put any header on any subject: malformed traceparent values
// (text, bad flags, a forbidden version, zero ids, upper case, version 00 with a suffix, 1 MiB long), valid ones
// with odd flags or a 1 MiB tracestate, and header blocks nats.js itself cannot parse (a space or a non-ASCII byte
// in a header name, a bare line feed in a value). They go, on valid re-read requests and on garbage, to every
// subject and key the fleet uses (tools/chaos/garbage.ts); `traceparent` annotations go on a set and its pod
// template. A valid re-read request is answered whatever its headers; a malformed traceparent is ignored (the
// watcher's span for the request is the root of a new trace, the forged ids appear in no exported span) while a
// valid one is continued, as W3C trace context asks. The unparsable blocks are left as the last value of every
// stream subject and KV key while the actor and the watcher are down, so their restarts replay them; before
// services/common/src/nats-headers.ts the first such block killed the actor, the pvc-provisioner and the
// status-writer (nats.js throws when it decodes the block, here inside its KV watch callbacks) on every restart,
// and the watcher never got its lease. Afterwards a scale of the set and a new set converge within 30 s, and no
// service died but the two the test restarted.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { JetStreamApiError, jetstream } from "@nats-io/jetstream";
import { connect, headers as natsHeaders } from "@nats-io/transport-node";
import type { MsgHdrs, NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, FLEET_KEYS, codecs, rereadSubjects, shard } from "#protocol";
import { garbageTargets } from "../../tools/chaos/garbage.ts";
import { otlpEnvironment, startOtlpReceiver } from "../observability/otlp-receiver.ts";
import { useStack, waitFor } from "../support/stack.ts";
import type { Sample } from "../support/stack.ts";
import { createSet, patchSet, waitForConverged } from "./helpers.ts";
import { RawNats } from "./raw-nats.ts";

const receiver = await startOtlpReceiver();
after(() => receiver.close());
const t = await useStack({ serviceEnv: otlpEnvironment(receiver) });
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
const CONVERGE_MS = 30_000;
const NS = "e2e-forged-traces";
const FRESH = "e2e-forged-traces-new";
const MIB = 1024 * 1024;

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

interface Forged {
  readonly label: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly traceparent: string;
  readonly tracestate?: string;
  /** W3C trace context: a valid traceparent is continued, any other is ignored. */
  readonly valid: boolean;
}

function forgeries(): Forged[] {
  const make = (label: string, valid: boolean, build: (traceId: string, spanId: string) => string, tracestate?: string): Forged => {
    const traceId = hex(16);
    const spanId = hex(8);
    return { label, traceId, spanId, traceparent: build(traceId, spanId), valid, ...(tracestate === undefined ? {} : { tracestate }) };
  };
  return [
    make("text", false, (tid, sid) => `not a traceparent ${tid} ${sid}`),
    make("flags not hex", false, (tid, sid) => `00-${tid}-${sid}-zz`),
    make("no flags", false, (tid, sid) => `00-${tid}-${sid}`),
    make("version ff", false, (tid, sid) => `ff-${tid}-${sid}-01`),
    make("upper case", false, (tid, sid) => `00-${tid.toUpperCase()}-${sid.toUpperCase()}-01`),
    make("zero trace id", false, (_tid, sid) => `00-${"0".repeat(32)}-${sid}-01`),
    make("zero span id", false, (tid) => `00-${tid}-${"0".repeat(16)}-01`),
    make("version 00 with a suffix", false, (tid, sid) => `00-${tid}-${sid}-01-extra`),
    make("short trace id", false, (tid, sid) => `00-${tid.slice(2)}-${sid}-01`),
    make("1 MiB", false, (tid, sid) => `00-${tid}-${sid}-01${"x".repeat(MIB)}`),
    make("valid, every flag bit set", true, (tid, sid) => `00-${tid}-${sid}-ff`),
    make("valid, a 1 MiB tracestate", true, (tid, sid) => `00-${tid}-${sid}-01`, `k=${"v".repeat(MIB)}`),
    make("a future version with a suffix", true, (tid, sid) => `cc-${tid}-${sid}-01-future`),
  ];
}

function headersOf(forged: Forged): MsgHdrs {
  const h = natsHeaders();
  h.set("traceparent", forged.traceparent);
  if (forged.tracestate !== undefined) h.set("tracestate", forged.tracestate);
  return h;
}

/**
 * Header blocks nats.js cannot decode: its parser throws on such a name or value when `msg.headers` (or a KV entry's
 * `operation`) is read. The last one is what a stream subject or a KV key is left holding, and what a restarted
 * service replays. The first has no status line, which nats.js takes as a status it cannot read.
 */
const RAW_TRACE_ID = hex(16);
const RAW_SPAN_ID = hex(8);
const RAW_TRACEPARENT = `00-${RAW_TRACE_ID}-${RAW_SPAN_ID}-01`;
const UNPARSABLE_HEADER_BLOCKS: readonly { label: string; block: string }[] = [
  { label: "no status line", block: `traceparent: ${RAW_TRACEPARENT}\r\n\r\n` },
  { label: "a non-ASCII header name", block: `NATS/1.0\r\ntraceparént: ${RAW_TRACEPARENT}\r\n\r\n` },
  { label: "a bare line feed in a value", block: `NATS/1.0\r\ntraceparent: 00-${RAW_TRACE_ID}\n-${RAW_SPAN_ID}-01\r\n\r\n` },
  { label: "a space in a header name", block: `NATS/1.0\r\ntrace parent: ${RAW_TRACEPARENT}\r\n\r\n` },
];

/**
 * The intent log's layout record: an actor that starts while it holds garbage waits for a running actor to repair
 * it, up to a lease duration (a row of its own in docs/RELIABILITY.md). This test restarts the only actor, so it
 * leaves that key alone.
 */
const LAYOUT_KEY = `$KV.${BUCKETS.members}.${FLEET_KEYS.intentLog}`;

const EMPTY_MAP = new Uint8Array([0x80]);

function unparsable(samples: readonly Sample[]): number {
  return samples.filter((s) => s.name === "stsfleet_nats_errors_total" && s.labels["operation"] === "unparsable-headers").reduce((sum, s) => sum + s.value, 0);
}

describe("forged trace context on every subject the fleet uses", () => {
  let nc: NatsConnection;

  before(async () => {
    nc = await connect({ servers: t.stack.natsUrl, name: "e2e-forged-traces" });
  });
  after(async () => {
    await nc.drain();
  });

  it("nothing crashes, requests are answered, malformed traceparents start new traces; a scale and a new set converge within 30 s", async (test) => {
    const pids = new Map<string, number>(SERVICES.map((name) => [name, t.stack.service(name).pid ?? -1]));
    await t.createNamespace(NS);
    await t.createNamespace(FRESH);
    const forged = forgeries();
    const annotated = forged[0] ? { ...forged[0], traceId: hex(16), spanId: hex(8) } : undefined;
    assert.ok(annotated);
    const annotation = `00-${annotated.traceId}-${annotated.spanId}-01`;
    // A traceparent annotation on the set and its pods: the fleet reads no trace context from objects.
    const set = await createSet(t.kube, NS, "base", { replicas: 2, annotations: { traceparent: annotation } });
    await patchSet(t.kube, NS, "base", { metadata: { annotations: { traceparent: annotation, tracestate: "k=v" } } });
    await waitForConverged(t.kube, NS, "base", 2);
    assert.ok(set.metadata.uid);

    const all = await garbageTargets(nc, [{ namespace: NS, name: "base" }], ["actor-0"]);
    const targets = { ...all, kv: all.kv.filter((subject) => subject !== LAYOUT_KEY) };
    assert.ok(targets.kv.length > 200 && targets.stream.length >= 5, JSON.stringify({ kv: targets.kv.length, stream: targets.stream }));
    const js = jetstream(nc);
    const rereadSubject = rereadSubjects.build({ shard: shard(NS, "base"), kind: "sts", namespace: NS, name: "base" });
    const reread = codecs.objectReread.encode({
      type: "object.reread",
      shard: shard(NS, "base"),
      kind: "StatefulSet",
      namespace: NS,
      name: "base",
      seq: 0,
      reason: "e2e",
      requestedBy: "e2e-forged-traces",
    });

    // Every forged header on a valid re-read request, which the active watcher must answer.
    for (const forgery of forged) {
      const answer = await nc.request(rereadSubject, reread, { headers: headersOf(forgery), timeout: 10_000 });
      const result = codecs.objectRereadResult.decode(answer.data);
      assert.ok(["valid", "republishing"].includes(result.outcome), `${forgery.label}: ${JSON.stringify(result)}`);
    }
    // Each valid forged traceparent is continued by the watcher's span for its re-read request (parented to the
    // forged span id); for a malformed one that span is the root of a new trace. Checked before the watcher is
    // restarted below, once the spans are exported.
    const ours = () =>
      receiver.spans.filter(
        (s) => s.service === "stsfleet-watcher" && s.name === `process ${rereadSubjects.template}` && s.attributes["stsfleet.reread.requested_by"] === "e2e-forged-traces",
      );
    const validOnes = forged.filter((f) => f.valid);
    await waitFor(`the watcher's ${forged.length} spans of the forged re-read requests`, () => ours().length >= forged.length, {
      timeoutMs: 10_000,
      describeLast: () => ours().map((s) => `${s.traceId}/${s.parentSpanId}`),
    });
    for (const f of validOnes) {
      assert.ok(ours().some((s) => s.traceId === f.traceId && s.parentSpanId === f.spanId), `${f.label}: continued`);
    }
    assert.equal(ours().filter((s) => s.parentSpanId === "").length, forged.length - validOnes.length, "a malformed traceparent starts a new trace");
    assert.equal(new Set(ours().map((s) => s.traceId)).size, forged.length, "each request in a trace of its own");

    // Then on garbage on every subject and key (the garbage on leases/watcher makes the watcher step down and take
    // its lease back, ADR 0088; it answers no re-read meanwhile).
    // JetStream refuses a header block above 64 KiB (error 10097), so the 1 MiB ones reach only core subjects.
    let refused = 0;
    for (const forgery of forged) {
      const h = headersOf(forgery);
      const huge = forgery.traceparent.length + (forgery.tracestate?.length ?? 0) > 64 * 1024;
      for (const subject of [...targets.stream, ...targets.kv]) {
        if (!huge) {
          await js.publish(subject, EMPTY_MAP, { headers: h });
          continue;
        }
        await assert.rejects(js.publish(subject, EMPTY_MAP, { headers: h }), (error: unknown) => error instanceof JetStreamApiError && error.code === 10097);
        refused++;
      }
      for (const subject of targets.core) nc.publish(subject, EMPTY_MAP, { headers: h });
    }
    await nc.flush();
    assert.ok(refused > 0);

    // Header blocks nats.js cannot parse, written by hand, on every subject (stored where a stream takes them), the
    // last one left as the last value, while the actor and the watcher are down: their restarts replay them (the
    // actor's member record and shard claims, the set's objects before any watcher repairs them), and the
    // pvc-provisioner and the status-writer get them live.
    const down = ["actor-0", "watcher"].map((name) => t.stack.service(name));
    const exited = Promise.all(down.map((child) => child.exited()));
    for (const child of down) child.signal("SIGKILL");
    await exited;
    const raw = await RawNats.connect(t.stack.natsUrl);
    for (const { block } of UNPARSABLE_HEADER_BLOCKS) {
      for (const subject of [...targets.stream, ...targets.kv, ...targets.core, rereadSubject]) raw.publish(subject, EMPTY_MAP, block);
    }
    await raw.flush();
    assert.deepEqual(raw.errors, [], "the server takes them");
    raw.close();
    await t.stack.waitReady(["actor-0", "watcher"], 30_000);
    for (const name of ["actor-0", "watcher"]) pids.set(name, t.stack.service(name).pid ?? -1);
    for (const name of SERVICES) {
      await waitFor(`${name} to count the header blocks it could not parse`, async () => unparsable(await t.metrics(name)) > 0, { timeoutMs: 10_000 });
    }

    // The set scales, a new set converges.
    const scaledAt = performance.now();
    await patchSet(t.kube, NS, "base", { spec: { replicas: 3 } });
    await createSet(t.kube, FRESH, "web", { replicas: 2 });
    await waitForConverged(t.kube, NS, "base", 3, CONVERGE_MS);
    await waitForConverged(t.kube, FRESH, "web", 2, Math.max(1_000, CONVERGE_MS - (performance.now() - scaledAt)));
    test.diagnostic(`the scale and the new set converged ${Math.round(performance.now() - scaledAt)} ms after the restarts`);

    // A re-read request is answered after all that, too.
    await waitFor("a re-read request to be answered again", async () => codecs.objectRereadResult.decode((await nc.request(rereadSubject, reread, { timeout: 2_000 })).data), {
      timeoutMs: 15_000,
    });

    // No exported span carries the ids of a malformed traceparent or of the annotation, as parent, trace or link.
    const inBlocks = { label: "the header blocks written by hand", traceId: RAW_TRACE_ID, spanId: RAW_SPAN_ID };
    for (const f of [...forged.filter((x) => !x.valid), annotated, inBlocks]) {
      const leaked = receiver.spans.filter(
        (s) => s.traceId === f.traceId || s.parentSpanId === f.spanId || s.links.some((l) => l.traceId === f.traceId || l.spanId === f.spanId),
      );
      assert.deepEqual(leaked.map((s) => `${s.service}:${s.name}`), [], `${f.label}: its ids must not be propagated`);
    }
    assert.deepEqual(receiver.rejected, []);

    // Only the two restarts the test made: no service died, before or after.
    for (const name of SERVICES) assert.equal(t.stack.service(name).pid, pids.get(name), `${name} was restarted (it died)`);
  });
});
