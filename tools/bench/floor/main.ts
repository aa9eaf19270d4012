// `tsx tools/bench/floor/main.ts --kubeconfig PATH`: the floor process (floor.ts).
import { Gauge } from "prom-client";
import { startInformers } from "../lib/informers.ts";
import { startControllerRuntime } from "../lib/controller-process.ts";
import { Floor } from "./floor.ts";

const runtime = await startControllerRuntime("floor", process.argv);
const { kube, logger } = runtime;
const floor = new Floor(kube, (error) => logger.warn({ err: error }, "floor write failed"));
new Gauge({
  name: "bench_floor_counts",
  help: "Floor counters (sets handled, failures).",
  labelNames: ["what"],
  registers: [runtime.metrics.registry],
  collect() {
    for (const [what, value] of Object.entries({ ...floor.stats })) this.set({ what }, value);
  },
});
const informers = startInformers(
  kube,
  ["StatefulSet", "Pod"],
  (envelope) => floor.onChange(envelope),
  (error) => logger.warn({ err: error }, "informer error"),
);
runtime.onStop(() => informers.stop());
await informers.synced;
runtime.ready();
