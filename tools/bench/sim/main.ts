// The benchmark's simulator process: the project's simulator (tools/kube-sim, same flags) plus a probe that
// appends pod-Ready and set-converged moments to `--probe-log` (see probe.ts). It runs as its own process so
// its CPU is measured apart from the controllers, and every mode (fleet, workqueue, floor) runs over it.
import { createWriteStream } from "node:fs";
import { Option } from "commander";
import { buildCommand, simOptionsFrom } from "../../kube-sim/src/cli.ts";
import type { CliOptions } from "../../kube-sim/src/cli.ts";
import { startKubeSim } from "../../kube-sim/src/main.ts";
import { SetProbe, isReadyJson, nowMicros } from "./probe.ts";
import type { ProbeRecord } from "./probe.ts";

interface Options extends CliOptions {
  probeLog: string;
}

async function main(argv: string[]): Promise<void> {
  const command = buildCommand()
    .name("bench-sim")
    .addOption(new Option("--probe-log <path>", "append pod-Ready and set-converged records (JSON lines)").makeOptionMandatory());
  command.parse(argv);
  const o = command.opts<Options>();
  const sim = await startKubeSim(simOptionsFrom(o));
  const out = createWriteStream(o.probeLog, { flags: "a" });
  const write = (record: ProbeRecord) => out.write(`${JSON.stringify(record)}\n`);
  const sets = new SetProbe();
  sim.registry.store.subscribe((event) => {
    if (event.resourceKey === "/pods") {
      if (event.type !== "DELETED" && isReadyJson(event.entry.json) && !isReadyJson(event.prev?.json)) {
        write({ k: "ready", t: nowMicros(), ns: event.entry.namespace, name: event.entry.name, uid: event.entry.uid });
      }
    } else if (event.resourceKey === "apps/statefulsets") {
      if (event.type === "DELETED") sets.forget(event.entry.uid);
      else {
        const record = sets.observe(event.entry.uid, event.entry.json, nowMicros());
        if (record) write(record);
      }
    }
  });
  process.stdout.write(`kube-sim listening on ${sim.url}\n`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    void sim
      .stop()
      .then(() => new Promise<void>((resolve) => out.end(() => resolve())))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`bench-sim: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main(process.argv).catch((error: unknown) => {
  process.stderr.write(`bench-sim: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
