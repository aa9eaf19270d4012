// `tsx tools/bench/workqueue/main.ts --kubeconfig PATH [--workers 5]`: the baseline controller process.
import { Option } from "commander";
import { Gauge } from "prom-client";
import { createExecutorMetrics } from "../../../services/common/src/executor/metrics.ts";
import { startControllerRuntime } from "../lib/controller-process.ts";
import { WorkqueueController } from "./controller.ts";
import { SerialEventSink } from "./events.ts";
import { startInformers } from "../lib/informers.ts";

const runtime = await startControllerRuntime("workqueue", process.argv, (command) =>
  command.addOption(new Option("--workers <n>", "concurrent syncs (--concurrent-statefulset-syncs)").default("5")),
);
const { kube, logger } = runtime;
const events = new SerialEventSink(kube, createExecutorMetrics(runtime.metrics), logger);
const controller = new WorkqueueController({
  kube,
  workers: Number(runtime.options["workers"]),
  recordEvent: (set, event) => events.record(set, event),
  // Called only once workers run, after the informers below exist.
  lastResourceVersion: (kind) => informers.lastResourceVersion(kind),
  onSyncError: (key, error) => logger.debug({ key, err: error }, "sync failed; requeued with rate limit"),
});
new Gauge({
  name: "bench_workqueue_counts",
  help: "Baseline controller counters (syncs, failed syncs, consistency errors, status conflicts, queue adds, events).",
  labelNames: ["what"],
  registers: [runtime.metrics.registry],
  collect() {
    const counts = { ...controller.stats, queueAdds: controller.queue.adds, eventsSent: events.sent, eventsDropped: events.dropped };
    for (const [what, value] of Object.entries(counts)) this.set({ what }, value);
  },
});
const informers = startInformers(
  kube,
  ["StatefulSet", "Pod", "PersistentVolumeClaim", "ControllerRevision"],
  (envelope) => controller.onChange(envelope),
  (error) => logger.warn({ err: error }, "informer error"),
);
runtime.onStop(async () => {
  events.stop();
  await controller.stop();
  await informers.stop();
});
await informers.synced;
controller.start();
runtime.ready();
