import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { trace } from "@opentelemetry/api";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { Registry } from "prom-client";
import { HEADERS, PublicationClock, liveObjectSubjects } from "#protocol";
import { pod, set } from "#test-support/watcher-fixtures.ts";
import { createLogger } from "../../../common/src/logger.ts";
import { WATCHED_KINDS } from "../domain/objects.ts";
import { MirrorState } from "../domain/state.ts";
import { createWatcherMetrics } from "../metrics.ts";
import type { StreamAck, StreamPublishOptions } from "../../../common/src/stream-publish.ts";
import { EventContexts, Publisher } from "./publisher.ts";
import type { StreamPublish } from "../../../common/src/stream-publish.ts";

/**
 * A stream that fails every publish while `healthy` is false, then acks them; records when each publish was sent and
 * the order of stream publishes and live copies (`journal`: "stream <subject> <Sts-Pub>" / "live <subject> <Sts-Pub>").
 */
function flakyStream() {
  const sentAtMs: number[] = [];
  const journal: string[] = [];
  let seq = 0;
  const versionOf = (h: MsgHdrs | undefined) => (h?.has(HEADERS.publication) ? h.get(HEADERS.publication) : "-");
  const stream = {
    healthy: false,
    failed: 0,
    sentAtMs,
    journal,
    live: {
      publish: (subject: string, _payload: Uint8Array, options: { headers: MsgHdrs }) => {
        journal.push(`live ${subject} ${versionOf(options.headers)}`);
      },
    },
    js: {
      publish: async (subject: string, _payload: Uint8Array, options: StreamPublishOptions): Promise<StreamAck> => {
        journal.push(`stream ${subject} ${versionOf(options.headers)}`);
        sentAtMs.push(performance.now());
        await sleep(5);
        if (!stream.healthy) {
          stream.failed++;
          throw new Error("no responders");
        }
        return { stream: "K8S_OBJS", seq: ++seq, duplicate: false } satisfies StreamAck;
      },
    } satisfies StreamPublish,
  };
  return stream;
}

/** A synced, active (empty) mirror, and a publisher over `stream` with the given backoff. */
function publisherOver(
  stream: ReturnType<typeof flakyStream>,
  backoff: { initialDelayMs: number; maxDelayMs: number },
  options: { live?: boolean; liveCopyDelayMs?: number } = {},
) {
  const state = new MirrorState();
  for (const kind of WATCHED_KINDS) state.markSynced(kind);
  state.ledger.activate([]);
  const publisher = new Publisher({
    stream: stream.js,
    jsm: {} as JetStreamManager,
    state,
    metrics: createWatcherMetrics(new Registry()),
    logger: createLogger({ service: "watcher", instance: "test", level: "silent", format: "json" }),
    tracer: trace.getTracer("test"),
    contexts: new EventContexts(),
    options: { stream: "K8S_OBJS", concurrency: 16, backoff, tombstoneTtlMs: 60_000, liveCopyDelayMs: options.liveCopyDelayMs ?? 0 },
    random: () => 1,
    ...(options.live ? { live: stream.live } : {}),
  });
  return { state, publisher };
}

describe("Publisher", () => {
  it("publishes in flight that fail together pause the pump once, with the first backoff delay", async () => {
    const stream = flakyStream();
    const { state, publisher } = publisherOver(stream, { initialDelayMs: 100, maxDelayMs: 60_000 });
    state.upsert(set("web"));
    for (let i = 0; i < 8; i++) state.upsert(pod(`web-${i}`, { owners: [{ kind: "StatefulSet", name: "web", controller: true }] }));
    publisher.kick();
    const firstRound = 9; // the set and its 8 pods, all in flight at once
    while (stream.failed < firstRound) await sleep(1);
    stream.healthy = true;
    assert.ok(await publisher.drain(5_000), "everything published after the pause");
    const failedAtMs = Math.max(...stream.sentAtMs.slice(0, firstRound));
    const retriedAtMs = stream.sentAtMs[firstRound] ?? Infinity;
    // Counting each of the 9 failures as its own round would pause 100 ms * 2^8 = 25.6 s.
    assert.ok(retriedAtMs - failedAtMs < 1_000, `retried ${Math.round(retriedAtMs - failedAtMs)} ms after the failures`);
    publisher.close();
  });

  it("announces every new want at once on its live subject, and the stream publish reuses its version", async () => {
    const stream = flakyStream();
    const { state, publisher } = publisherOver(stream, { initialDelayMs: 20, maxDelayMs: 20 }, { live: true });
    state.upsert(set("web"));
    publisher.setPublicationClock(new PublicationClock(7));
    publisher.kick();
    while (stream.failed < 1) await sleep(1);
    // While the stream does not answer (no leader), a newer version of the object goes out live at once, although
    // the subject's publish is still owed; the stream then gets the newer want with the same version.
    state.upsert(set("web", { rv: "2" }));
    publisher.kick();
    const subject = stream.journal.find((line) => line.startsWith("stream "))?.split(" ")[1] ?? "";
    const live = liveObjectSubjects.fromObjectSubject(subject);
    assert.deepEqual(stream.journal.slice(0, 3), [`live ${live} 7.0`, `stream ${subject} 7.0`, `live ${live} 7.1`]);
    stream.healthy = true;
    assert.ok(await publisher.drain(5_000));
    // After the pause the owed publish is the newest want; its live copy was announced already, not sent again.
    assert.deepEqual(stream.journal.slice(3), [`stream ${subject} 7.1`]);

    // A retried publish sends its live copy again (for owners that missed it), with the same version.
    stream.healthy = false;
    stream.journal.length = 0;
    state.upsert(set("web", { rv: "3" }));
    publisher.kick();
    while (stream.failed < 2) await sleep(1);
    stream.healthy = true;
    assert.ok(await publisher.drain(5_000));
    assert.deepEqual(stream.journal, [`live ${live} 7.2`, `stream ${subject} 7.2`, `live ${live} 7.2`, `stream ${subject} 7.2`]);

    // On standby (no clock) nothing goes to the live subject and the stream copy carries no version.
    publisher.setPublicationClock(undefined);
    stream.journal.length = 0;
    state.upsert(set("db"));
    publisher.kick();
    assert.ok(await publisher.drain(5_000));
    assert.deepEqual(stream.journal.map((line) => line.replace(/ \S+ /, " _ ")), ["stream _ -"]);
    publisher.close();
  });

  it("with a live-copy delay, sends no live copy of a want the stream acked in time, and sends it when the stream is slow or failing", async () => {
    const stream = flakyStream();
    stream.healthy = true;
    // The fake stream answers in 5 ms: well inside a 200 ms delay.
    const { state, publisher } = publisherOver(stream, { initialDelayMs: 50, maxDelayMs: 50 }, { live: true, liveCopyDelayMs: 200 });
    publisher.setPublicationClock(new PublicationClock(3));
    state.upsert(set("web"));
    publisher.kick();
    assert.ok(await publisher.drain(5_000));
    await sleep(300);
    const subject = stream.journal[0]?.split(" ")[1] ?? "";
    const live = liveObjectSubjects.fromObjectSubject(subject);
    assert.deepEqual(stream.journal, [`stream ${subject} 3.0`], "acked within the delay: carried once, by the stream");

    // A stream that fails: the pump pauses and the held copy goes out at once, not after the delay.
    stream.healthy = false;
    stream.journal.length = 0;
    state.upsert(set("web", { rv: "2" }));
    const changedAtMs = performance.now();
    publisher.kick();
    while (!stream.journal.includes(`live ${live} 3.1`)) await sleep(1);
    assert.ok(performance.now() - changedAtMs < 150, "sent when the publish failed, before the 200 ms delay");
    // While paused, a newer want's copy is not held either.
    state.upsert(set("web", { rv: "3" }));
    publisher.kick();
    assert.ok(stream.journal.includes(`live ${live} 3.2`), `journal: ${stream.journal.join(", ")}`);
    stream.healthy = true;
    assert.ok(await publisher.drain(5_000));
    assert.equal(stream.journal.filter((line) => line === `live ${live} 3.2`).length, 1, "a copy already sent is not sent again after the ack");
    publisher.close();
  });

  it("with a live-copy delay, sends the live copy of a want whose stream publish has not been acked when the delay ends", async () => {
    const stream = flakyStream();
    stream.healthy = true;
    let release: (() => void) | undefined;
    const answer = stream.js.publish.bind(stream.js);
    // A stream that takes its time (a leader election): acks come only when released.
    stream.js.publish = async (...args: Parameters<StreamPublish["publish"]>) => {
      await new Promise<void>((resolve) => (release = resolve));
      return answer(...args);
    };
    const { state, publisher } = publisherOver(stream, { initialDelayMs: 50, maxDelayMs: 50 }, { live: true, liveCopyDelayMs: 30 });
    publisher.setPublicationClock(new PublicationClock(9));
    state.upsert(set("web"));
    const startedAtMs = performance.now();
    publisher.kick();
    while (!stream.journal.some((line) => line.startsWith("live "))) await sleep(1);
    const waitedMs = performance.now() - startedAtMs;
    assert.ok(waitedMs >= 25, `held for the delay (${Math.round(waitedMs)} ms)`);
    release?.();
    assert.ok(await publisher.drain(5_000));
    assert.deepEqual(stream.journal.map((line) => line.split(" ")[0] + " " + line.split(" ")[2]), ["live 9.0", "stream 9.0"]);
    publisher.close();
  });
});
