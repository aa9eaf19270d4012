// kube-sim benchmark (not a test): request latency at a fixed request rate with a mixed workload over
// keep-alive HTTP from a worker thread, and the memory the simulator uses with many pods and watchers.
//   npx tsx --expose-gc tools/kube-sim/bench/bench.ts [--pods 50000] [--watchers 100] [--rps 1000] [--seconds 10]
import { cpus, loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { Command, Option } from "commander";
import { DEFAULT_WATCH_COALESCE_MS, startKubeSim } from "../src/main.ts";
import { INTERNAL_WRITE } from "../src/registry/registry.ts";
import { mustFind } from "../src/resources.ts";
import type { LoadConfig, LoadResult } from "./load-worker.ts";

const opts = new Command("kube-sim-bench")
  .addOption(new Option("--pods <n>", "pods stored during the run").default(50_000).argParser(Number))
  .addOption(new Option("--watchers <n>", "open watch streams during the run").default(100).argParser(Number))
  .addOption(new Option("--rps <n>", "request rate of the mixed load").default(1000).argParser(Number))
  .addOption(new Option("--seconds <n>", "duration of the mixed load").default(10).argParser(Number))
  .addOption(new Option("--watch-coalesce-ms <n>", "the simulator's --watch-coalesce-ms").default(DEFAULT_WATCH_COALESCE_MS).argParser(Number))
  .parse(process.argv)
  .opts<{ pods: number; watchers: number; rps: number; seconds: number; watchCoalesceMs: number }>();

const gc = (globalThis as { gc?: () => void }).gc;
function settle(): NodeJS.MemoryUsage {
  gc?.();
  gc?.();
  return process.memoryUsage();
}
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function main(): Promise<void> {
  // Other processes on a small machine show up as latency; the load average says how busy it was.
  const loadBefore = loadavg();
  // Kubelet delays keep every pod's scheduling and start inside the preload, not the measurement.
  const sim = await startKubeSim({ kubelet: { scheduleDelayMs: 0, startDelayMs: 0, bindDelayMs: 0 }, historyWindow: 10_000, watchCoalesceMs: opts.watchCoalesceMs });
  const ns = mustFind("", "namespaces");
  const pods = mustFind("", "pods");
  const base = settle();
  const namespaces = Math.max(1, Math.ceil(opts.pods / 100));
  for (let i = 0; i < namespaces; i++) sim.registry.create(ns, "", { metadata: { name: `load-${i}` } }, INTERNAL_WRITE);
  sim.registry.create(ns, "", { metadata: { name: "bench" } }, INTERNAL_WRITE);
  const t0 = performance.now();
  for (let i = 0; i < opts.pods; i++) {
    const namespace = `load-${i % namespaces}`;
    sim.registry.create(
      pods,
      namespace,
      {
        metadata: { name: `pod-${i}`, labels: { app: "load", "statefulset.kubernetes.io/pod-name": `pod-${i}` } },
        spec: { containers: [{ name: "app", image: "registry.example/app:1.0", ports: [{ containerPort: 8080 }], env: [{ name: "MODE", value: "bench" }] }] },
      },
      INTERNAL_WRITE,
    );
    if (i % 5000 === 4999) await new Promise((r) => setImmediate(r));
  }
  // Let the kubelet schedule and start every pod.
  while (sim.registry.store.keys("/pods", undefined).some((k, idx) => idx % 997 === 0 && sim.registry.store.getByKey("/pods", k)?.fields["status.phase"] !== "Running")) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const preloadMs = performance.now() - t0;
  const loaded = settle();

  // Watchers and the request generator are separate clients (threads), as informers and controllers are.
  const base0: LoadConfig = { url: sim.url, rps: 0, durationMs: opts.seconds * 1000, watchers: 0, namespace: "bench", listNamespace: "load-0" };
  const spawnWorker = (config: LoadConfig) => new Worker(new URL("./load-worker.ts", import.meta.url), { workerData: config, execArgv: ["--import", "tsx"] });
  const resultOf = (w: Worker) =>
    new Promise<LoadResult>((resolve, reject) => {
      w.once("message", (m: LoadResult | { error: string }) => ("error" in m ? reject(new Error(m.error)) : resolve(m)));
      w.once("error", reject);
    });
  const watcherWorker = spawnWorker({ ...base0, watchers: opts.watchers, durationMs: opts.seconds * 1000 + 2000 });
  const watching = resultOf(watcherWorker);
  while (sim.registry.store.watcherCount() < opts.watchers) await new Promise((r) => setTimeout(r, 20));
  const worker = spawnWorker({ ...base0, rps: opts.rps });
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  let peakRss = 0;
  let watchersSeen = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    watchersSeen = Math.max(watchersSeen, sim.registry.store.watcherCount());
  }, 100);
  const result = await resultOf(worker);
  loopDelay.disable();
  const watched = await watching;
  result.watchEvents = watched.watchEvents;
  result.watchBytes = watched.watchBytes;
  clearInterval(sampler);
  const withWatchers = settle();
  await worker.terminate();
  await watcherWorker.terminate();
  await sim.stop();

  const all = Object.values(result.latenciesMs).flat().sort((a, b) => a - b);
  const done = all.length;
  console.log(`kube-sim benchmark (node ${process.version}, ${cpus().length} cores, load average before ${loadBefore.map((l) => l.toFixed(1)).join(" ")}, ${gc === undefined ? "no --expose-gc: memory includes garbage" : "after forced GC"})`);
  console.log(`preload: ${opts.pods} pods in ${namespaces} namespaces, scheduled and Running, in ${(preloadMs / 1000).toFixed(1)} s`);
  console.log(`load: ${result.sent} requests in ${(result.elapsedMs / 1000).toFixed(1)} s = ${(done / (result.elapsedMs / 1000)).toFixed(0)} req/s (target ${opts.rps}), errors ${result.errors}, conflicts ${result.conflicts}`);
  console.log(`latency all:    p50 ${percentile(all, 50).toFixed(2)} ms  p99 ${percentile(all, 99).toFixed(2)} ms  max ${(all[all.length - 1] ?? 0).toFixed(2)} ms`);
  for (const [kind, values] of Object.entries(result.latenciesMs)) {
    const sorted = [...values].sort((a, b) => a - b);
    console.log(`  ${kind.padEnd(7)} n=${String(sorted.length).padEnd(6)} p50 ${percentile(sorted, 50).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms`);
  }
  console.log(`server event loop delay: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms  p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms  max ${(loopDelay.max / 1e6).toFixed(1)} ms`);
  console.log(`watchers: ${watchersSeen} open, ${result.watchEvents} events / ${mib(result.watchBytes)} delivered`);
  console.log(`memory: baseline heap ${mib(base.heapUsed)} rss ${mib(base.rss)}; with ${opts.pods} pods heap ${mib(loaded.heapUsed)} rss ${mib(loaded.rss)} (${((loaded.heapUsed - base.heapUsed) / opts.pods / 1024).toFixed(2)} KiB heap per pod); with ${opts.watchers} watchers after the load heap ${mib(withWatchers.heapUsed)} rss ${mib(withWatchers.rss)}, peak rss ${mib(peakRss)}`);
  const p99 = percentile(all, 99);
  console.log(p99 < 10 ? `OK: p99 ${p99.toFixed(2)} ms < 10 ms` : `OVER BUDGET: p99 ${p99.toFixed(2)} ms >= 10 ms`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
