// What a message costs nats-server 2.9, by how it is sent: a JetStream publish answered by its ack (StreamPublisher,
// the watcher's and the actor's path), the same with the fleet's headers (message id, expected last subject
// sequence), a JetStream publish without a reply subject (stored, never acknowledged), and a core NATS publish to a
// plain subscriber. Reports the server's CPU per message (/proc utime+stime) and the client's, so the cost of a hop
// can be read apart from the cost of storing it (ADR 0085).
// `npm run bench:stream-publish -- [messages] [window] [rounds]` (defaults 13000, 64, 3; 13000 is a 1000 × 3
// converge's K8S_OBJS publishes); run benchmarks one at a time (docs/BENCHMARKS.md).
import { readFileSync } from "node:fs";
import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";
import { startNatsServer } from "../../../tools/lib/nats-server.ts";
import { createLogger } from "../src/logger.ts";
import { connectNats } from "../src/nats.ts";
import { StreamPublisher } from "../src/stream-publish.ts";

const messages = Number(process.argv[2] ?? 13_000);
const window = Number(process.argv[3] ?? 64);
const rounds = Number(process.argv[4] ?? 3);
const PAYLOAD = new Uint8Array(2_000).fill(7);
const SUBJECTS = 3_000;
const MODES = ["acked", "acked-fenced", "unacked", "core"] as const;
type Mode = (typeof MODES)[number];

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 10 ms). */
function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function clientCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

const server = await startNatsServer();
const logger = createLogger({ service: "stsfleet", instance: "bench", level: "warn", format: "json" });
const nats = await connectNats({ url: server.url, name: "bench" }, logger);
const nc = nats.connection;
const jsm = await jetstreamManager(nc);
await jsm.streams.add({ name: "BENCH", subjects: ["bench.>"], storage: StorageType.File, max_msgs_per_subject: 8 });
const publisher = new StreamPublisher(nc, { timeoutMs: 10_000, inboxPrefix: nats.inboxPrefix });
const sink = nc.subscribe("core.>", { callback: () => undefined });
const lastSeq = new Map<string, number>();

async function send(mode: Mode, round: number): Promise<void> {
  const inFlight = new Set<Promise<unknown>>();
  for (let i = 0; i < messages; i++) {
    const subject = `${mode === "core" ? "core" : "bench"}.${round}.${i % SUBJECTS}`;
    if (mode === "unacked" || mode === "core") {
      nc.publish(subject, PAYLOAD);
      if (i % window === 0) await nc.flush();
      continue;
    }
    const options =
      mode === "acked"
        ? {}
        : { headers: headers(), msgId: `${round}/${i}`, expectedLastSubjectSequence: lastSeq.get(subject) ?? 0 };
    const ack = publisher.publish(subject, PAYLOAD, options).then((answer) => lastSeq.set(subject, answer.seq));
    inFlight.add(ack);
    void ack.finally(() => inFlight.delete(ack));
    // The fenced mode's next publish of a subject needs the last one's sequence: wait once the window is full.
    if (inFlight.size >= window || (mode === "acked-fenced" && i % SUBJECTS === SUBJECTS - 1)) await Promise.all(inFlight);
  }
  await Promise.all(inFlight);
  await nc.flush();
}

const rows: string[] = [];
for (let round = 0; round < rounds; round++) {
  for (const mode of MODES) {
    const serverBefore = processCpuSeconds(server.pid);
    const clientBefore = clientCpuSeconds();
    const startedMs = performance.now();
    await send(mode, round * MODES.length + MODES.indexOf(mode));
    const wallMs = performance.now() - startedMs;
    const serverUs = ((processCpuSeconds(server.pid) - serverBefore) / messages) * 1e6;
    const clientUs = ((clientCpuSeconds() - clientBefore) / messages) * 1e6;
    rows.push(`| ${round + 1} | ${mode} | ${serverUs.toFixed(0)} | ${clientUs.toFixed(0)} | ${(messages / (wallMs / 1000)).toFixed(0)} |`);
  }
}
sink.unsubscribe();
await nc.drain();
await server.stop();
console.log(`${messages} messages of ${PAYLOAD.length} bytes, window ${window}, ${SUBJECTS} subjects\n`);
console.log("| round | mode | nats-server µs/msg | client µs/msg | msgs/s |\n| --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
