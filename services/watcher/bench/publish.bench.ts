// Watcher throughput: applying a list to the mirror (pure), and publishing a full initial sync to a real
// nats-server 2.9 through the publisher (CAS + msg id + ack per message). `npx tsx services/watcher/bench/publish.bench.ts [objects]`
import { trace } from "@opentelemetry/api";
import { Registry } from "prom-client";
import { STREAMS } from "#protocol";
import { pod, set } from "#test-support/watcher-fixtures.ts";
import { startNatsServer } from "../../../tools/lib/nats-server.ts";
import { createLogger } from "../../common/src/logger.ts";
import { connectNats } from "../../common/src/nats.ts";
import { StreamPublisher } from "../../common/src/stream-publish.ts";
import { provisionTopology } from "../../common/src/topology.ts";
import { EventContexts, Publisher } from "../src/adapters/publisher.ts";
import { WATCHED_KINDS } from "../src/domain/objects.ts";
import { MirrorState } from "../src/domain/state.ts";
import { createWatcherMetrics } from "../src/metrics.ts";

const objects = Number(process.argv[2] ?? 5_000);
const setsCount = Math.max(1, Math.floor(objects / 50));
const logger = createLogger({ service: "bench", instance: "b", level: "warn", format: "json" });

const sets = Array.from({ length: setsCount }, (_, i) => set(`set-${i}`, { templates: ["data"] }));
const pods = Array.from({ length: objects }, (_, i) => {
  const owner = `set-${i % setsCount}`;
  return pod(`${owner}-${Math.floor(i / setsCount)}`, { owners: [{ kind: "StatefulSet", name: owner, controller: true }] });
});

let started = performance.now();
const state = new MirrorState();
state.replace("sts", sets);
state.replace("pod", pods);
for (const kind of WATCHED_KINDS) state.markSynced(kind);
const applyMs = performance.now() - started;
started = performance.now();
state.replace("pod", pods);
const relistMs = performance.now() - started;

const server = await startNatsServer();
try {
  const nats = await connectNats({ url: server.url, name: "bench" }, logger);
  const topology = await provisionTopology(nats.connection, { replicas: 1 });
  const publisher = new Publisher({
    stream: new StreamPublisher(nats.connection, { timeoutMs: 5_000 }),
    jsm: topology.jsm,
    state,
    metrics: createWatcherMetrics(new Registry()),
    logger,
    tracer: trace.getTracer("bench"),
    contexts: new EventContexts(),
    options: { stream: STREAMS.objects, concurrency: 64, backoff: { initialDelayMs: 50, maxDelayMs: 1_000 }, tombstoneTtlMs: 60_000 },
  });
  started = performance.now();
  state.ledger.activate([]);
  publisher.kick();
  if (!(await publisher.drain(120_000))) throw new Error("publish did not finish");
  const publishMs = performance.now() - started;
  const total = objects + setsCount;
  console.log(
    JSON.stringify({
      objects: total,
      applyListMs: Math.round(applyMs),
      identicalRelistMs: Math.round(relistMs),
      publishMs: Math.round(publishMs),
      publishesPerSecond: Math.round((total / publishMs) * 1000),
    }),
  );
  await nats.connection.drain();
} finally {
  await server.stop();
}
