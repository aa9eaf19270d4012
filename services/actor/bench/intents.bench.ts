// The actor's intent log appends: the quorum log (three single-replica streams) on a real nats-server 2.9, appends
// for many sets at once as turns make them, through StreamPublisher (ADR 0085) and, to compare in the same run,
// through nats.js's js.publish(). Reports the client process's CPU per append (what a turn pays) and the wall time.
// `npm run bench:intents -- [appends] [sets] [modes] [replicas]` (defaults 6000, 200, both modes, 3; a mode alone,
// e.g. `stream-publisher`, is for a CPU profile of it; replicas 1 appends to one stream); run benchmarks one at a time
// (docs/BENCHMARKS.md).
import { jetstream } from "@nats-io/jetstream";
import type { JetStreamClient } from "@nats-io/jetstream";
import { intentReplicaStream, intentReplicaSubjects } from "#protocol";
import type { Intent, SetAddress } from "#protocol";
import { startNatsServer } from "../../../tools/lib/nats-server.ts";
import { createLogger } from "../../common/src/logger.ts";
import { connectNats } from "../../common/src/nats.ts";
import { StreamPublisher } from "../../common/src/stream-publish.ts";
import type { StreamAck, StreamPublish } from "../../common/src/stream-publish.ts";
import { provisionIntentLog, provisionTopology } from "../../common/src/topology.ts";
import { IntentLog, QuorumIntentLog } from "../src/runtime/intents.ts";

const appends = Number(process.argv[2] ?? 6_000);
const setCount = Number(process.argv[3] ?? 200);
const only = process.argv[4]?.split(",");
/** 3: the quorum log; 1: one single-replica stream (no replica ever lags behind a set's next append). */
const replicaCount = Number(process.argv[5] ?? 3);
const ROUNDS = 3;
const logger = createLogger({ service: "bench", instance: "b", level: "warn", format: "json" });

/** nats.js's JetStream publish behind the same port (the way the actor appended before ADR 0085 decision 9). */
function viaRequest(js: JetStreamClient): StreamPublish {
  return {
    async publish(subject, payload, options): Promise<StreamAck> {
      const ack = await js.publish(subject, payload, {
        ...(options.expectedLastSubjectSequence !== undefined ? { expect: { lastSubjectSequence: options.expectedLastSubjectSequence } } : {}),
        ...(options.msgId !== undefined ? { msgID: options.msgId } : {}),
      });
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    },
  };
}

const server = await startNatsServer();
try {
  const nats = await connectNats({ url: server.url, name: "bench" }, logger);
  const topology = await provisionTopology(nats.connection, { replicas: 1 });
  await provisionIntentLog(topology, ["a", "b", "c"]);
  const modes = {
    "stream-publisher": new StreamPublisher(nats.connection, { timeoutMs: 5_000 }),
    "js.publish": viaRequest(jetstream(nats.connection, { timeout: 5_000 })),
  } as const;
  const results: Record<string, { cpuUsPerAppend: number[]; wallMs: number[] }> = {};
  let namespace = 0;
  // Alternating rounds, so that both modes see the same machine.
  for (let round = 0; round < ROUNDS; round++) {
    for (const [mode, publish] of Object.entries(modes)) {
      if (only !== undefined && !only.includes(mode)) continue;
      const me = { member: "bench", incarnation: `i-${mode}` };
      const replicas = [0, 1, 2].map((replica) => new IntentLog(publish, topology.jsm, { stream: intentReplicaStream(replica), subjects: intentReplicaSubjects(replica) }));
      const log = replicaCount === 1 ? (replicas[0] as IntentLog) : new QuorumIntentLog(replicas);
      const ns = `ns${namespace++}`;
      const addresses: SetAddress[] = Array.from({ length: setCount }, (_, i) => ({ shard: i % 256, namespace: ns, name: `set-${i}` }));
      // The first append of each set reads the log (a takeover); the measured ones are turns' plans.
      await Promise.all(addresses.map((address) => log.append(address, { type: "intent.takeover", shard: address.shard, epoch: 1, member: me.member, incarnation: me.incarnation })));
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      let turn = 0;
      // Each set appends its turns one after another; the sets run at once (as the actor's turns do).
      await Promise.all(
        addresses.map(async (address) => {
          for (let i = 0; i < Math.ceil(appends / setCount); i++) {
            const intent: Intent = { type: "intent.plan", shard: address.shard, epoch: 1, member: me.member, incarnation: me.incarnation, set: { namespace: ns, name: address.name, uid: "u" }, turn: turn++, actions: ["create pod"] };
            await log.append(address, intent);
          }
        }),
      );
      const wallMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      const done = Math.ceil(appends / setCount) * setCount;
      const entry = (results[mode] ??= { cpuUsPerAppend: [], wallMs: [] });
      entry.cpuUsPerAppend.push(Math.round((cpu.user + cpu.system) / done));
      entry.wallMs.push(Math.round(wallMs));
    }
  }
  console.log(JSON.stringify({ appends, sets: setCount, replicas: replicaCount, rounds: ROUNDS, results }));
  await nats.connection.drain();
} finally {
  await server.stop();
}
