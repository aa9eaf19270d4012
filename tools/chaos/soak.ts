// Chaos soak (not part of `npm test`): 3 actor replicas, 50 StatefulSets under continuous
// scale and template changes, and every 20 s a random replica SIGKILLed or SIGSTOPped (then continued after a
// random pause) for --duration-min minutes; a share of the faults (--garbage-share) is garbage on every subject of a
// few sets and the fleet's buckets, with a status another client wrote (tools/chaos/garbage.ts). Then the faults and the churn stop, the soak waits for the fleet to
// settle and every set to converge, and runs the invariant checker over the whole history. Prints a progress line
// per fault and a final summary; exits 1 on any violation or if the sets do not converge.
//
//   flock /tmp/stsfleet-bench.lock npm run soak -- --duration-min 10
//
// Design: docs/adr/0076-chaos-soak.md.
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { Command, InvalidArgumentError, Option } from "commander";
import { succeeded } from "./facts.ts";
import { injectGarbage } from "./garbage.ts";
import { ChaosStack } from "./harness.ts";
import { distribution, formatDistribution, formatMs, loadAverage, seededRandom, snapshotOwner, waitTakeover } from "./measure.ts";
import type { Distribution } from "./measure.ts";
import type { SetRefName } from "./workload.ts";
import { formatStatus, readStatusInput, summarize } from "../stsfleet/src/status.ts";
import { RESOURCES } from "../../services/common/src/kube.ts";

const NAMESPACE = "soak";

export interface SoakOptions {
  readonly durationMin: number;
  readonly sets: number;
  readonly actors: number;
  readonly faultEverySec: number;
  readonly churnEveryMs: number;
  /** Longest SIGSTOP; each pause lasts a random time between 1 s and this. */
  readonly maxPauseMs: number;
  readonly seed: number;
  /** Share of the faults that are garbage injections instead of a SIGKILL or SIGSTOP (0 = none). */
  readonly garbageShare: number;
  readonly report?: string;
  readonly keep: boolean;
}

type FaultKind = "kill" | "pause" | "garbage";
/** Sets a garbage injection poisons (their subjects; the buckets and probes are poisoned whole). */
const GARBAGE_SETS = 3;
/** An observedGeneration no controller could compute, written into one of those sets' status. */
const FOREIGN_OBSERVED_GENERATION = 1_000_000;

interface FaultOutcome {
  readonly index: number;
  readonly kind: FaultKind;
  readonly victim: string;
  readonly atMs: number;
  readonly shards: number;
  readonly pauseMs: number | undefined;
  /** From the fault to the last of the victim's shards claimed by another incarnation; undefined: no takeover. */
  readonly takeoverMs: number | undefined;
  readonly note: string;
}

export interface SoakSummary {
  readonly startedAt: string;
  readonly seed: number;
  readonly durationMin: number;
  readonly sets: number;
  readonly actors: number;
  readonly faults: Readonly<Record<FaultKind, number>>;
  readonly churn: { readonly scales: number; readonly templates: number; readonly errors: number };
  readonly writes: { readonly total: number; readonly accepted: number; readonly rejected: number; readonly byActors: number; readonly staleEpochAccepted: number };
  readonly violations: number;
  readonly violationLines: readonly string[];
  readonly converged: boolean;
  readonly convergeAfterFaultsMs: number | undefined;
  readonly failover: Readonly<Record<"kill" | "pause", Distribution>>;
  readonly pausesWithoutTakeover: number;
  /** Faults that hit a replica owning nothing yet (re-joining after an earlier fault). */
  readonly faultsOnEmptyReplicas: number;
  readonly maxOwnerlessMs: number | undefined;
  readonly outcomes: readonly FaultOutcome[];
  readonly loadAverageAtEnd: string;
}

function clock(startMs: number): string {
  const s = Math.floor((Date.now() - startMs) / 1000);
  return `+${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

export async function runSoak(options: SoakOptions, print: (...lines: string[]) => void): Promise<SoakSummary> {
  const random = seededRandom(options.seed);
  const startedAt = new Date().toISOString();
  print(`soak: ${options.actors} actors, ${options.sets} sets, a fault every ${options.faultEverySec} s for ${options.durationMin} min, seed ${options.seed}; load ${loadAverage()}`);
  const chaos = await ChaosStack.start({ actors: options.actors, keep: options.keep, leaseProfile: "fast" });
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    print(`soak: stack up in ${chaos.stateDir} (NATS ${chaos.natsUrl}); creating ${options.sets} sets`);
    await chaos.workload.createNamespace(NAMESPACE);
    const sets: SetRefName[] = Array.from({ length: options.sets }, (_, i) => ({ namespace: NAMESPACE, name: `app-${i}` }));
    await Promise.all(
      sets.map((set, i) =>
        chaos.workload.createSet(NAMESPACE, set.name, {
          replicas: 1 + (i % 3),
          claims: i % 2 === 0,
          podManagementPolicy: i % 5 === 0 ? "Parallel" : "OrderedReady",
        }),
      ),
    );
    const initialMs = await chaos.waitConverged([NAMESPACE], 300_000);
    const since = Date.now();
    print(`soak: ${options.sets} sets converged in ${formatMs(initialMs)}; churn and faults start (load ${loadAverage()})`);

    const stopChurn = new AbortController();
    const churning = chaos.workload.churn({ sets, everyMs: options.churnEveryMs, maxReplicas: 3, signal: stopChurn.signal, random });
    const startMs = Date.now();
    const endMs = startMs + options.durationMin * 60_000;
    const counts: Record<FaultKind, number> = { kill: 0, pause: 0, garbage: 0 };
    const outcomes: Promise<FaultOutcome>[] = [];
    const resumes: Promise<void>[] = [];
    const paused = new Set<string>();
    let index = 0;
    while (Date.now() + options.faultEverySec * 1000 <= endMs && !interrupt.signal.aborted) {
      await sleep(options.faultEverySec * 1000, undefined, { signal: interrupt.signal }).catch(() => undefined);
      if (interrupt.signal.aborted) break;
      if (options.garbageShare > 0 && random() < options.garbageShare) {
        index++;
        const pool = [...sets];
        const picked: SetRefName[] = [];
        while (picked.length < GARBAGE_SETS && pool.length > 0) picked.push(...pool.splice(Math.floor(random() * pool.length), 1));
        const atMs = Date.now();
        counts.garbage++;
        const { published } = await injectGarbage(chaos.connection, picked, chaos.actorNames);
        const [foreign] = picked;
        if (foreign) {
          await chaos.kube
            .patch({ ...RESOURCES.statefulsets, ...foreign, subresource: "status" }, { status: { observedGeneration: FOREIGN_OBSERVED_GENERATION } }, "merge")
            .catch(() => undefined); // the set may be mid-delete: the injection stands without it
        }
        const note = `${published} garbage messages on the subjects of ${picked.map((set) => set.name).join(", ")} and every bucket key; status of ${foreign?.name ?? "-"} overwritten`;
        print(`[${clock(startMs)}] fault ${index}: garbage | ${note} | load ${loadAverage()}`);
        outcomes.push(Promise.resolve({ index, kind: "garbage", victim: "-", atMs, shards: 0, pauseMs: undefined, takeoverMs: undefined, note }));
        continue;
      }
      const candidates = chaos.actorNames.filter((name) => chaos.stack.service(name).running && !paused.has(name));
      const victim = candidates[Math.floor(random() * candidates.length)];
      if (victim === undefined) {
        print(`[${clock(startMs)}] no running actor to fault; skipping`);
        continue;
      }
      index++;
      const kind: FaultKind = random() < 0.5 ? "kill" : "pause";
      const snapshot = snapshotOwner(chaos, victim);
      const pauseMs = kind === "pause" ? Math.round(1_000 + random() * (options.maxPauseMs - 1_000)) : undefined;
      let resumed = false;
      const atMs = (kind === "kill" ? chaos.kill(victim) : chaos.pause(victim)).atMs;
      counts[kind]++;
      if (pauseMs !== undefined) {
        paused.add(victim);
        resumes.push(
          sleep(pauseMs).then(() => {
            chaos.resume(victim);
            paused.delete(victim);
            resumed = true;
          }),
        );
      }
      const n = index;
      print(
        `[${clock(startMs)}] fault ${n}: ${kind} ${victim}${pauseMs !== undefined ? ` for ${(pauseMs / 1000).toFixed(1)} s` : ""} ` +
          `(${snapshot.epochs.size} shards) | ${chaos.audit().length} writes | load ${loadAverage()}`,
      );
      if (snapshot.epochs.size === 0) {
        // A replica still re-joining after an earlier fault: nothing to take over, not a failover sample.
        const note = "owned no shards (still re-joining)";
        print(`[${clock(startMs)}]   fault ${n} (${kind} ${victim}): ${note}`);
        outcomes.push(Promise.resolve({ index: n, kind, victim, atMs, shards: 0, pauseMs, takeoverMs: undefined, note }));
        continue;
      }
      outcomes.push(
        waitTakeover(chaos, snapshot, atMs, { timeoutMs: 30_000, until: () => resumed }).then((result) => {
          const note = result.complete
            ? `${snapshot.epochs.size} shards taken over in ${formatMs(result.takeoverMs)}`
            : kind === "pause" && resumed
              ? `resumed before a takeover (${result.remaining} shards kept)`
              : `${result.remaining} of ${snapshot.epochs.size} shards not taken over within 30 s`;
          print(`[${clock(startMs)}]   fault ${n} (${kind} ${victim}): ${note}`);
          return { index: n, kind, victim, atMs, shards: snapshot.epochs.size, pauseMs, takeoverMs: result.takeoverMs, note };
        }),
      );
    }

    // Faults stop: continue anything paused, stop the churn, then wait for the fleet and the sets.
    await Promise.all(resumes);
    const faultsStoppedAt = performance.now();
    stopChurn.abort();
    const churn = await churning;
    print(`[${clock(startMs)}] faults and churn stopped (${counts.kill} kills, ${counts.pause} pauses, ${counts.garbage} garbage injections; ${churn.scales} scales, ${churn.templates} template changes); waiting for convergence`);
    const settled = await Promise.all(outcomes);
    let converged = true;
    let convergeAfterFaultsMs: number | undefined;
    try {
      await chaos.waitForFleet({ timeoutMs: 120_000 });
      await chaos.waitConverged([NAMESPACE], 300_000);
      convergeAfterFaultsMs = performance.now() - faultsStoppedAt;
      print(`[${clock(startMs)}] converged ${formatMs(convergeAfterFaultsMs)} after the faults stopped`);
    } catch (error) {
      converged = false;
      print(`[${clock(startMs)}] NOT converged: ${(error as Error).message}`);
    }

    const report = await chaos.check({ namespaces: [NAMESPACE], sinceMs: since });
    const audit = chaos.audit().filter((w) => w.namespace === NAMESPACE);
    const accepted = audit.filter((w) => succeeded(w));
    const violations = report.violations();
    const ofKind = (kind: "kill" | "pause") => settled.filter((o) => o.kind === kind && o.takeoverMs !== undefined).map((o) => o.takeoverMs ?? 0);
    const summary: SoakSummary = {
      startedAt,
      seed: options.seed,
      durationMin: options.durationMin,
      sets: options.sets,
      actors: options.actors,
      faults: counts,
      churn,
      writes: {
        total: audit.length,
        accepted: accepted.length,
        rejected: audit.length - accepted.length,
        byActors: accepted.filter((w) => w.service === "actor").length,
        staleEpochAccepted: report.staleEpochWrites.filter((w) => w.namespace === NAMESPACE).length,
      },
      violations: violations.length,
      violationLines: violations.slice(0, 50).map((v) => `${v.invariant} ${v.subject}: ${v.message}`),
      converged,
      convergeAfterFaultsMs,
      failover: { kill: distribution(ofKind("kill")), pause: distribution(ofKind("pause")) },
      pausesWithoutTakeover: settled.filter((o) => o.kind === "pause" && o.shards > 0 && o.takeoverMs === undefined).length,
      faultsOnEmptyReplicas: settled.filter((o) => o.kind !== "garbage" && o.shards === 0).length,
      maxOwnerlessMs: report.coverage?.maxOwnerlessMs,
      outcomes: settled,
      loadAverageAtEnd: loadAverage(),
    };
    print("");
    print(report.text());
    try {
      const input = await readStatusInput(chaos.natsUrl);
      print("", formatStatus(summarize(input, { handoffs: 10 }), input.nowMs));
    } catch (error) {
      print(`stsfleet status failed: ${(error as Error).message}`);
    }
    print("");
    for (const line of summaryLines(summary)) print(line);
    if (options.report) writeFileSync(options.report, `${JSON.stringify(summary, null, 2)}\n`);
    return summary;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await chaos.stop();
  }
}

export function summaryLines(s: SoakSummary): string[] {
  return [
    `SOAK SUMMARY (seed ${s.seed}, ${s.durationMin} min, ${s.actors} actors, ${s.sets} sets, started ${s.startedAt})`,
    `  faults injected: ${s.faults.kill} SIGKILL, ${s.faults.pause} SIGSTOP/SIGCONT, ${s.faults.garbage} garbage injections`,
    `  churn: ${s.churn.scales} scales, ${s.churn.templates} template changes, ${s.churn.errors} API errors`,
    `  writes (namespace ${NAMESPACE}): ${s.writes.total} total, ${s.writes.accepted} accepted (${s.writes.byActors} by actors), ${s.writes.rejected} rejected; ` +
      `${s.writes.staleEpochAccepted} accepted from an epoch older than the newest claim (informative, ADR 0073)`,
    `  invariant violations: ${s.violations}`,
    ...s.violationLines.map((line) => `    ${line}`),
    `  converged after faults stopped: ${s.converged ? formatMs(s.convergeAfterFaultsMs) : "NO"}`,
    `  failover (fault -> every shard of the victim claimed by another incarnation):`,
    `    SIGKILL: ${formatDistribution(s.failover.kill)}`,
    `    SIGSTOP: ${formatDistribution(s.failover.pause)}; ${s.pausesWithoutTakeover} pauses resumed before any takeover`,
    `  faults on a replica that owned no shards yet (not failover samples): ${s.faultsOnEmptyReplicas}`,
    `  longest ownerless shard (I6): ${formatMs(s.maxOwnerlessMs)}`,
    `  load average at the end: ${s.loadAverageAtEnd}`,
  ];
}

function positive(name: string, integer: boolean) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
      throw new InvalidArgumentError(`${name} must be a positive ${integer ? "integer" : "number"}`);
    }
    return value;
  };
}

function share(name: string) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1) throw new InvalidArgumentError(`${name} must be a number from 0 to 1`);
    return value;
  };
}

export function soakCommand(): Command {
  return new Command("soak")
    .description("chaos soak: actors killed or paused at random under continuous churn, then the invariant checker")
    .addOption(new Option("--duration-min <min>", "how long faults are injected").argParser(positive("--duration-min", false)).default(10))
    .addOption(new Option("--sets <n>", "StatefulSets under churn").argParser(positive("--sets", true)).default(50))
    .addOption(new Option("--actors <n>", "actor replicas").argParser(positive("--actors", true)).default(3))
    .addOption(new Option("--fault-every-sec <s>", "time between faults").argParser(positive("--fault-every-sec", false)).default(20))
    .addOption(new Option("--churn-every-ms <ms>", "time between scale/template changes").argParser(positive("--churn-every-ms", true)).default(250))
    .addOption(new Option("--max-pause-ms <ms>", "longest SIGSTOP (each lasts 1 s .. this)").argParser(positive("--max-pause-ms", true)).default(12_000))
    .addOption(
      new Option("--garbage-share <0..1>", "share of the faults that are garbage on every subject of a few sets and the buckets, with a foreign status")
        .argParser(share("--garbage-share"))
        .default(0.2),
    )
    .addOption(new Option("--seed <n>", "seed of the fault and churn sequence").argParser(positive("--seed", true)))
    .addOption(new Option("--report <file>", "also write the summary as JSON here"))
    .option("--keep", "keep the state dir (logs, audit log) afterwards", false)
    .action(async (raw: Omit<SoakOptions, "seed"> & { seed?: number }) => {
      const options: SoakOptions = { ...raw, seed: raw.seed ?? Math.floor(Math.random() * 1e9) + 1 };
      if (options.maxPauseMs >= options.faultEverySec * 1000) throw new InvalidArgumentError("--max-pause-ms must be shorter than the fault interval");
      const summary = await runSoak(options, (...lines: string[]) => {
        for (const line of lines) process.stdout.write(`${line}\n`);
      });
      process.exitCode = summary.violations === 0 && summary.converged ? 0 : 1;
    });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  soakCommand()
    .parseAsync(process.argv)
    .then(() => process.exit(process.exitCode ?? 0))
    .catch((error: unknown) => {
      process.stderr.write(`soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}
