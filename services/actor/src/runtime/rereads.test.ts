// The re-read requests an owner sends for object subjects it could not read (ADR 0088), against a scripted watcher:
// one request per subject however many unreadable messages it saw, asked again until the subject is readable, never
// more than the rate allows, and an `absent` answer makes the subject known.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { errors as natsErrors } from "@nats-io/transport-node";
import type { Msg, NatsConnection } from "@nats-io/transport-node";
import { codecs, rereadSubjects } from "#protocol";
import type { ObjectReread, ObjectRereadOutcome } from "#protocol";
import { eventually } from "#test-support/executor-harness.ts";
import { createLogger } from "../../../common/src/logger.ts";
import type { SubjectRef } from "../domain/object-store.ts";
import { ObjectRereads } from "./rereads.ts";
import type { RereadOptions, RereadResult } from "./rereads.ts";

const logger = createLogger({ service: "actor", instance: "test", level: "silent", format: "json" });
const ref = (name: string): SubjectRef => ({ shard: 7, kind: "Pod", namespace: "ns", name });

/** A watcher stand-in: records every request and answers what `answer` says (or fails the request). */
function scripted(answer: (request: ObjectReread) => ObjectRereadOutcome | Error) {
  const requests: { subject: string; request: ObjectReread }[] = [];
  const nats: Pick<NatsConnection, "request"> = {
    request(subject, payload) {
      const request = codecs.objectReread.decode(payload as Uint8Array);
      requests.push({ subject, request });
      const outcome = answer(request);
      if (outcome instanceof Error) return Promise.reject(outcome);
      return Promise.resolve({ data: codecs.objectRereadResult.encode({ type: "object.reread.result", outcome, seq: 1 }) } as Msg);
    },
  };
  return { nats, requests };
}

function rereadsFor(nats: Pick<NatsConnection, "request">, options: RereadOptions) {
  const absent: SubjectRef[] = [];
  const results: RereadResult[] = [];
  const rereads = new ObjectRereads({ nats, member: "actor-0", logger, absent: (r) => absent.push(r), result: (r) => results.push(r), options });
  return { rereads, absent, results };
}

describe("ObjectRereads", () => {
  it("asks once per subject at once, again every retry period until a readable message resolves it", async () => {
    const watcher = scripted(() => "republishing");
    const { rereads, results } = rereadsFor(watcher.nats, { retryMs: 150 });
    rereads.request(ref("web-0"), 10, "malformed");
    rereads.request(ref("web-0"), 11, "invalid");
    rereads.request(ref("web-0"), 12, "invalid");
    await eventually(() => watcher.requests.length === 1, "the first request");
    assert.equal(watcher.requests[0]?.subject, rereadSubjects.build({ shard: 7, kind: "pod", namespace: "ns", name: "web-0" }));
    assert.deepEqual(watcher.requests[0]?.request, {
      type: "object.reread",
      shard: 7,
      kind: "Pod",
      namespace: "ns",
      name: "web-0",
      seq: 10,
      reason: "malformed",
      requestedBy: "actor-0",
    });
    await eventually(() => watcher.requests.length === 2, "asked again after the retry period", 2_000);
    assert.equal(watcher.requests[1]?.request.seq, 12, "the retry names the latest unreadable message");
    rereads.resolved(ref("web-0"));
    const asked = watcher.requests.length;
    await sleep(400);
    assert.equal(watcher.requests.length, asked, "resolved: not asked again");
    assert.equal(rereads.size, 0);
    assert.ok(results.every((r) => r === "republishing"));
    rereads.close();
  });

  it("a refresh (a write from a stale copy, ADR 0090) asks once, whatever the answer, and never marks the subject absent", async () => {
    const watcher = scripted(() => "absent");
    const { rereads, absent } = rereadsFor(watcher.nats, { retryMs: 100 });
    rereads.refresh(ref("web-1"), "stale-copy");
    rereads.refresh(ref("web-1"), "stale-copy");
    await eventually(() => watcher.requests.length === 1, "the request");
    assert.equal(watcher.requests[0]?.request.reason, "stale-copy");
    await sleep(350);
    assert.equal(watcher.requests.length, 1, "not asked again");
    assert.deepEqual(absent, []);
    assert.equal(rereads.size, 0);
    rereads.close();
  });

  it("a refresh of a subject that then turns unreadable is asked about until it is readable", async () => {
    let answered = 0;
    const watcher = scripted(() => {
      answered++;
      return "republishing";
    });
    const { rereads } = rereadsFor(watcher.nats, { retryMs: 100 });
    rereads.refresh(ref("web-2"), "stale-copy");
    rereads.request(ref("web-2"), 9, "invalid");
    await eventually(() => answered >= 3, "asked again after the retry period", 2_000);
    rereads.resolved(ref("web-2"));
    assert.equal(rereads.size, 0);
    rereads.close();
  });

  it("marks a subject known when the watcher answers that it holds nothing", async () => {
    const watcher = scripted(() => "absent");
    const { rereads, absent } = rereadsFor(watcher.nats, { retryMs: 100 });
    rereads.request(ref("stray"), 3, "invalid");
    await eventually(() => absent.length === 1, "the absent answer");
    assert.deepEqual(absent, [ref("stray")]);
    await sleep(300);
    assert.equal(watcher.requests.length, 1);
    rereads.close();
  });

  it("does not take an absent answer for garbage that arrived after the request left", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const requests: number[] = [];
    const nats: Pick<NatsConnection, "request"> = {
      async request(_subject, payload) {
        requests.push(codecs.objectReread.decode(payload as Uint8Array).seq);
        if (requests.length === 1) await gate;
        return { data: codecs.objectRereadResult.encode({ type: "object.reread.result", outcome: "absent", seq: 0 }) } as Msg;
      },
    };
    const { rereads, absent } = rereadsFor(nats, { retryMs: 100 });
    rereads.request(ref("stray"), 5, "invalid");
    await eventually(() => requests.length === 1, "the first request");
    rereads.request(ref("stray"), 9, "invalid");
    release();
    await eventually(() => absent.length === 1, "absent once the newer message was asked about", 2_000);
    assert.deepEqual(requests, [5, 9]);
    rereads.close();
  });

  it("asks again after a timeout or when no watcher answers", async () => {
    let calls = 0;
    const watcher = scripted(() => (++calls === 1 ? new natsErrors.TimeoutError() : calls === 2 ? new natsErrors.NoRespondersError("svc.reread.7.pod.ns.web-0") : "absent"));
    const { rereads, absent, results } = rereadsFor(watcher.nats, { retryMs: 100 });
    rereads.request(ref("web-0"), 1, "malformed");
    await eventually(() => absent.length === 1, "asked until answered", 3_000);
    assert.deepEqual(results, ["timeout", "no-responders", "absent"]);
    rereads.close();
  });

  it("sends at most the rate allows; the rest wait their turn", async () => {
    const watcher = scripted(() => "republishing");
    const { rereads } = rereadsFor(watcher.nats, { retryMs: 60_000, ratePerSecond: 10 });
    for (let i = 0; i < 30; i++) rereads.request(ref(`web-${i}`), i, "invalid");
    await sleep(50);
    assert.equal(watcher.requests.length, 10, "the burst");
    await sleep(1_050);
    assert.ok(watcher.requests.length >= 18 && watcher.requests.length <= 22, `about 10 more in a second: ${watcher.requests.length}`);
    assert.equal(new Set(watcher.requests.map((r) => r.subject)).size, watcher.requests.length, "each subject once");
    rereads.dropShard(7);
    const asked = watcher.requests.length;
    await sleep(300);
    assert.equal(watcher.requests.length, asked, "the dropped shard's subjects are not asked about");
    rereads.close();
  });
});
