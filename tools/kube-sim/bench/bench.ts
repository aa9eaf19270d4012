// kube-sim benchmark (not a test): request latency at a fixed request rate with a mixed workload over
// keep-alive HTTP, the server's CPU time per request, and the memory the simulator uses with many pods
// and watchers. The server runs in this process; the load generator and the watchers are child processes.
//   npx tsx --expose-gc --max-semi-space-size=64 tools/kube-sim/bench/bench.ts [--pods 50000] [--watchers 100] [--rps 1000] [--seconds 10] [--runs 1] [--warmup-seconds 5] [--protobuf-share 0.5] [--data-dir DIR] [--cpu-prof FILE] [--heap-prof FILE] [--v8-pretenuring]
import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { cpus, loadavg } from "node:os";
import { PerformanceObserver, constants as perfConstants, monitorEventLoopDelay } from "node:perf_hooks";
import { Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_WATCH_COALESCE_MS, startKubeSim } from "../src/main.ts";
import { INTERNAL_WRITE } from "../src/registry/registry.ts";
import { mustFind } from "../src/resources.ts";
import { NO_PRETENURING_FLAG, disableAllocationSitePretenuring } from "../src/runtime/v8-flags.ts";
import type { ClientCommand, ClientReport, LoadConfig, LoadResult } from "./load-worker.ts";

const opts = new Command("kube-sim-bench")
  .addOption(new Option("--pods <n>", "pods stored during the run").default(50_000).argParser(Number))
  .addOption(new Option("--watchers <n>", "open watch streams during the run").default(100).argParser(Number))
  .addOption(new Option("--rps <n>", "request rate of the mixed load").default(1000).argParser(Number))
  .addOption(new Option("--seconds <n>", "duration of one load run").default(10).argParser(Number))
  .addOption(new Option("--runs <n>", "load runs against the same preloaded server (the machine's load varies between them)").default(1).argParser(Number))
  .addOption(
    new Option(
      "--warmup-seconds <n>",
      "an unmeasured load run first, at the same rate and mix: the server's request paths are compiled by V8 during its first seconds of load, which an API server in service is long past (its p99 is printed, not judged)",
    )
      .default(5)
      .argParser(Number),
  )
  .addOption(new Option("--watch-coalesce-ms <n>", "the simulator's --watch-coalesce-ms").default(DEFAULT_WATCH_COALESCE_MS).argParser(Number))
  .addOption(
    new Option("--protobuf-share <share>", "share (0..1) of requests and of watchers that speak protobuf as client-go does; the others speak JSON")
      .default(0)
      .argParser((value) => {
        const share = Number(value);
        if (!(share >= 0 && share <= 1)) throw new InvalidArgumentError("a share from 0 to 1");
        return share;
      }),
  )
  .addOption(new Option("--data-dir <dir>", "the simulator's --data-dir (ADR 0095): every write durable before its answer; the dir should be empty"))
  .addOption(new Option("--cpu-prof <file>", "write a CPU profile of the server process during the load runs"))
  .addOption(new Option("--heap-prof <file>", "write a sampling heap profile of the server process: what the load runs allocated that was still on the heap at their end"))
  .addOption(new Option("--v8-pretenuring", `keep V8's allocation-site pretenuring on (the server process runs with ${NO_PRETENURING_FLAG}, ADR 0025); for comparisons`))
  .parse(process.argv)
  .opts<{ pods: number; watchers: number; rps: number; seconds: number; runs: number; warmupSeconds: number; watchCoalesceMs: number; protobufShare: number; dataDir?: string; cpuProf?: string; heapProf?: string; v8Pretenuring?: boolean }>();

// As the kube-sim CLI does, before the server allocates anything.
if (opts.v8Pretenuring !== true) disableAllocationSitePretenuring();

const gc = (globalThis as { gc?: () => void }).gc;
function settle(): NodeJS.MemoryUsage {
  gc?.();
  gc?.();
  return process.memoryUsage();
}
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** CPU time of this process's main thread (the server's event loop), from /proc; undefined elsewhere. */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The p99 of each second of a run, `a / b / …`: whether its tail is its start (a cold server) or spread out. */
function p99BySecond(result: LoadResult): string {
  return result.latenciesBySecondMs.map((values) => percentile([...values].sort((a, b) => a - b), 99).toFixed(1)).join(" / ");
}

interface Client {
  child: ChildProcess;
  next(): Promise<ClientReport>;
}

function startClient(config: LoadConfig): Client {
  const child = fork(new URL("./load-worker.ts", import.meta.url), { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const queue: ClientReport[] = [];
  const waiting: ((r: ClientReport) => void)[] = [];
  child.on("message", (m: ClientReport) => {
    const w = waiting.shift();
    if (w !== undefined) w(m);
    else queue.push(m);
  });
  child.on("exit", (code) => {
    for (const w of waiting.splice(0)) w({ kind: "error", error: `client exited with ${code ?? "a signal"}` });
  });
  child.send({ kind: "run", config } satisfies ClientCommand);
  return {
    child,
    next: () => {
      const m = queue.shift();
      return m !== undefined ? Promise.resolve(m) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

async function expect<K extends ClientReport["kind"]>(client: Client, kind: K): Promise<Extract<ClientReport, { kind: K }>> {
  const m = await client.next();
  if (m.kind === "error") throw new Error(m.error);
  if (m.kind !== kind) throw new Error(`expected ${kind} from a bench client, got ${m.kind}`);
  return m as Extract<ClientReport, { kind: K }>;
}

async function main(): Promise<void> {
  // Other processes on a small machine show up as latency; the load average says how busy it was.
  const loadBefore = loadAverage();
  // Kubelet delays keep every pod's scheduling and start inside the preload, not the measurement.
  const sim = await startKubeSim({ kubelet: { scheduleDelayMs: 0, startDelayMs: 0, bindDelayMs: 0 }, historyWindow: 10_000, watchCoalesceMs: opts.watchCoalesceMs, ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}) });
  const ns = mustFind("", "namespaces");
  const pods = mustFind("", "pods");
  const base = settle();
  // 100 pods per namespace in sets of 25, like the pods of four StatefulSets.
  const namespaces = Math.max(1, Math.ceil(opts.pods / 100));
  const setsPerNamespace = 4;
  for (let i = 0; i < namespaces; i++) sim.registry.create(ns, "", { metadata: { name: `load-${i}` } }, INTERNAL_WRITE);
  sim.registry.create(ns, "", { metadata: { name: "bench" } }, INTERNAL_WRITE);
  const t0 = performance.now();
  for (let i = 0; i < opts.pods; i++) {
    const namespace = `load-${i % namespaces}`;
    sim.registry.create(
      pods,
      namespace,
      {
        metadata: { name: `pod-${i}`, labels: { app: `set-${Math.floor(i / namespaces) % setsPerNamespace}`, "statefulset.kubernetes.io/pod-name": `pod-${i}` } },
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
  console.log(`kube-sim benchmark (node ${process.version}, ${cpus().length} cores, load average before ${loadBefore}, ${gc === undefined ? "no --expose-gc: memory includes garbage" : "after forced GC"}, V8 allocation-site pretenuring ${opts.v8Pretenuring === true ? "on" : "off"}, ${Math.round(opts.protobufShare * 100)}% of requests and watchers in protobuf)`);
  console.log(`preload: ${opts.pods} pods in ${namespaces} namespaces, scheduled and Running, in ${(preloadMs / 1000).toFixed(1)} s`);
  console.log(`memory: baseline heap ${mib(base.heapUsed)} rss ${mib(base.rss)}; with ${opts.pods} pods heap ${mib(loaded.heapUsed)} rss ${mib(loaded.rss)} (${((loaded.heapUsed - base.heapUsed) / opts.pods / 1024).toFixed(2)} KiB heap per pod)`);

  // Watchers and the request generator are separate client processes, as informers and controllers are.
  const base0: LoadConfig = { url: sim.url, rps: 0, durationMs: opts.seconds * 1000, watchers: 0, namespace: "bench", listNamespaces: namespaces, setsPerNamespace, namePrefix: "cm-", protobufShare: opts.protobufShare };
  const watchers = opts.watchers > 0 ? startClient({ ...base0, watchers: opts.watchers }) : undefined;
  if (watchers !== undefined) await expect(watchers, "ready");
  while (sim.registry.store.watcherCount() < opts.watchers) await new Promise((r) => setTimeout(r, 20));

  if (opts.warmupSeconds > 0) {
    const warm = await expect(startClient({ ...base0, rps: opts.rps, durationMs: opts.warmupSeconds * 1000, namePrefix: "cm-warm-" }), "result");
    const warmAll = Object.values(warm.result.latenciesMs).flat().sort((a, b) => a - b);
    console.log(`warm-up (${opts.warmupSeconds} s, not judged): ${warmAll.length} requests, p50 ${percentile(warmAll, 50).toFixed(2)} ms p99 ${percentile(warmAll, 99).toFixed(2)} ms; p99 by second ${p99BySecond(warm.result)} ms`);
  }
  const profiler = opts.cpuProf === undefined && opts.heapProf === undefined ? undefined : new Session();
  profiler?.connect();
  if (profiler !== undefined && opts.cpuProf !== undefined) {
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.setSamplingInterval", { interval: 500 });
    await profiler.post("Profiler.start");
  }
  if (profiler !== undefined && opts.heapProf !== undefined) {
    await profiler.post("HeapProfiler.enable");
    await profiler.post("HeapProfiler.startSampling", { samplingInterval: 32 * 1024, includeObjectsCollectedByMajorGC: true });
  }
  let peakRss = 0;
  let watchersSeen = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    watchersSeen = Math.max(watchersSeen, sim.registry.store.watcherCount());
  }, 100);
  let worstP99 = 0;
  for (let run = 1; run <= opts.runs; run++) {
    const loadAtStart = loadAverage();
    const gcMs = { minor: 0, major: 0, count: 0, maxMinor: 0 };
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
        if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) gcMs.major += e.duration;
        else {
          gcMs.minor += e.duration;
          gcMs.maxMinor = Math.max(gcMs.maxMinor, e.duration);
        }
        gcMs.count++;
      }
    });
    gcObserver.observe({ entryTypes: ["gc"] });
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuMs();
    const wall0 = performance.now();
    const loader = startClient({ ...base0, rps: opts.rps, namePrefix: `cm-${run}-` });
    const { result } = await expect(loader, "result");
    const wallMs = performance.now() - wall0;
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuMs();
    loopDelay.disable();
    gcObserver.disconnect();

    const all = Object.values(result.latenciesMs).flat().sort((a, b) => a - b);
    const done = all.length;
    const serverCpuMs = (cpu.user + cpu.system) / 1000;
    const p99 = percentile(all, 99);
    worstP99 = Math.max(worstP99, p99);
    console.log(`--- run ${run}/${opts.runs} (load average at start ${loadAtStart}, at end ${loadAverage()})`);
    console.log(`load: ${result.sent} requests in ${(result.elapsedMs / 1000).toFixed(1)} s = ${(done / (result.elapsedMs / 1000)).toFixed(0)} req/s (target ${opts.rps}), errors ${result.errors}, conflicts ${result.conflicts}; client issue lag p50 ${result.issueLagMs.p50.toFixed(1)} ms p99 ${result.issueLagMs.p99.toFixed(1)} ms max ${result.issueLagMs.max.toFixed(1)} ms`);
    console.log(`latency all:    p50 ${percentile(all, 50).toFixed(2)} ms  p99 ${p99.toFixed(2)} ms  max ${(all[all.length - 1] ?? 0).toFixed(2)} ms`);
    for (const [kind, values] of Object.entries(result.latenciesMs)) {
      const sorted = [...values].sort((a, b) => a - b);
      console.log(`  ${kind.padEnd(7)} n=${String(sorted.length).padEnd(6)} p50 ${percentile(sorted, 50).toFixed(2)} ms  p99 ${percentile(sorted, 99).toFixed(2)} ms`);
    }
    const mainCpu = main0 !== undefined && main1 !== undefined ? `, event-loop thread ${((main1 - main0) / wallMs * 100).toFixed(0)}% of a core` : "";
    console.log(`server cpu: ${(serverCpuMs / (wallMs / 1000) / 10).toFixed(0)}% of a core${mainCpu}, ${((serverCpuMs * 1000) / Math.max(1, done)).toFixed(0)} us per request (with fan-out to the watchers); gc ${gcMs.count} pauses, minor ${gcMs.minor.toFixed(0)} ms (longest ${gcMs.maxMinor.toFixed(1)} ms), major ${gcMs.major.toFixed(0)} ms`);
    console.log(`p99 by second of the run: ${p99BySecond(result)} ms`);
    console.log(`client cpu: load generator ${((result.cpuMs * 1000) / Math.max(1, done)).toFixed(0)} us per request`);
    console.log(`server event loop delay: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms  p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms  max ${(loopDelay.max / 1e6).toFixed(1)} ms`);
    console.log(p99 < 10 ? `OK: p99 ${p99.toFixed(2)} ms < 10 ms` : `OVER BUDGET: p99 ${p99.toFixed(2)} ms >= 10 ms`);
  }
  clearInterval(sampler);
  if (profiler !== undefined && opts.cpuProf !== undefined) {
    const { profile } = await profiler.post("Profiler.stop");
    writeFileSync(opts.cpuProf, JSON.stringify(profile));
    console.log(`cpu profile of the server process during the load: ${opts.cpuProf}`);
  }
  if (profiler !== undefined && opts.heapProf !== undefined) {
    // A major GC first, so objects that were promoted or pretenured and then died are in the profile too.
    gc?.();
    const { profile } = await profiler.post("HeapProfiler.stopSampling");
    writeFileSync(opts.heapProf, JSON.stringify(profile));
    console.log(`heap profile of the server process during the load: ${opts.heapProf}`);
  }
  profiler?.disconnect();
  let watchLine = "";
  if (watchers !== undefined) {
    watchers.child.send({ kind: "stop" } satisfies ClientCommand);
    const { result } = await expect(watchers, "result");
    watchLine = `, ${result.watchEvents} events / ${mib(result.watchBytes)} delivered, watch client ${((result.cpuMs / result.elapsedMs) * 100).toFixed(0)}% of a core`;
  }
  const withWatchers = settle();
  await sim.stop();
  console.log(`watchers: ${watchersSeen} open${watchLine}`);
  console.log(`memory with ${opts.watchers} watchers after the load: heap ${mib(withWatchers.heapUsed)} rss ${mib(withWatchers.rss)}, peak rss ${mib(peakRss)}`);
  console.log(worstP99 < 10 ? `OK: worst p99 ${worstP99.toFixed(2)} ms < 10 ms` : `OVER BUDGET: worst p99 ${worstP99.toFixed(2)} ms >= 10 ms`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
