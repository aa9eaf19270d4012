// Failover benchmark (measured, not asserted; docs/FAILOVER.md): on a chaos stack of 3 actor processes over a
// nats-server with the local stack's ping interval, how long shards go without an acting owner and how long until
// a new owner's first accepted Kubernetes write, for
//   - graceful handoff: SIGTERM of one replica (drain -> release -> claim), per shard;
//   - SIGKILL: N kills, from the kill to the new owner's first accepted write on one of the dead member's shards
//     (simulator audit log, `stsfleet.dev/epoch` annotation), and to the last claim of its shards;
//   - SIGSTOP: with the fast profile (target lease + 2 s = 10 s) and the default profile (target 17 s), and
//     optionally with a 2-minute server ping interval so only the lease path can detect the pause.
// Before every fault the victim's sets get a template change, so their new owner has writes to make at once.
//
//   flock /tmp/stsfleet-bench.lock npm run bench:failover -- --report /tmp/failover.json
//
// Method: docs/adr/0075-failover-measurement.md; results: docs/FAILOVER.md.
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { Command, InvalidArgumentError, Option } from "commander";
import { shardKeys } from "#protocol";
import { LEASE_PROFILES } from "../../services/actor/src/runtime/ownership.ts";
import { LOCAL_NATS_PING_INTERVAL_MS } from "../stsfleet/src/stack.ts";
import { ChaosStack } from "./harness.ts";
import { distribution, firstNewOwnerWrite, formatDistribution, formatMs, loadAverage, snapshotOwner, waitTakeover } from "./measure.ts";
import type { Distribution, OwnerSnapshot } from "./measure.ts";
import type { SetRefName } from "./workload.ts";

type Profile = "fast" | "default";

export interface BenchOptions {
  readonly kills: number;
  readonly graceful: number;
  readonly stops: number;
  readonly profiles: readonly Profile[];
  /** Also measure SIGSTOP of the default profile with a 2-minute server ping interval (lease path only). */
  readonly leasePath: boolean;
  readonly sets: number;
  readonly report?: string;
}

/** One fault and what followed. */
interface Sample {
  readonly victim: string;
  readonly shards: number;
  readonly sets: number;
  /** Fault -> first accepted write by a newer epoch on one of the victim's shards. */
  readonly firstWriteMs: number | undefined;
  /** Fault -> the last of the victim's shards claimed by another incarnation (KV write time). */
  readonly takeoverMs: number | undefined;
  readonly load: string;
}

interface GracefulSample extends Sample {
  /** Per shard: release write -> claim write. */
  readonly gapsMs: readonly number[];
  /** Per shard: SIGTERM -> claim write (drain, release, claim). */
  readonly sigtermToClaimMs: readonly number[];
}

export interface BenchResult {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly nproc: number;
  readonly natsPingIntervalMs: number;
  readonly graceful: { readonly samples: readonly GracefulSample[]; readonly gap: Distribution; readonly sigtermToClaim: Distribution; readonly firstWrite: Distribution };
  readonly kill: { readonly samples: readonly Sample[]; readonly firstWrite: Distribution; readonly takeover: Distribution };
  readonly stop: Readonly<Record<string, { readonly samples: readonly Sample[]; readonly firstWrite: Distribution; readonly takeover: Distribution; readonly targetMs: number }>>;
}

const NAMESPACE = "failover";
const FIRST_WRITE_TIMEOUT_MS = 40_000;

async function createSets(chaos: ChaosStack, count: number): Promise<SetRefName[]> {
  await chaos.workload.createNamespace(NAMESPACE);
  const sets = Array.from({ length: count }, (_, i) => ({ namespace: NAMESPACE, name: `app-${i}` }));
  await Promise.all(sets.map((set) => chaos.workload.createSet(NAMESPACE, set.name, { replicas: 3, claims: false })));
  await chaos.waitConverged([NAMESPACE], 300_000);
  return sets;
}

/**
 * Waits for a settled fleet and converged sets, picks the next victim owning at least one set, and gives each of
 * its sets a template change (a rolling update of 3 pods: work for whoever owns the set after the fault).
 */
async function prepare(chaos: ChaosStack, sets: readonly SetRefName[], round: number): Promise<{ snapshot: OwnerSnapshot; victimSets: SetRefName[] }> {
  // Every replica back (a killed one restarts as a new incarnation) and every shard at its desired owner.
  await chaos.waitForFleet({ members: chaos.actorNames, timeoutMs: 180_000 });
  await chaos.waitConverged([NAMESPACE], 180_000);
  for (let i = 0; i < chaos.actorNames.length; i++) {
    const victim = chaos.actorNames[(round + i) % chaos.actorNames.length] ?? "";
    const victimSets = sets.filter((s) => chaos.ownerOfSet(s.namespace, s.name) === victim);
    if (victimSets.length === 0) continue;
    const snapshot = snapshotOwner(chaos, victim);
    await Promise.all(victimSets.map((set) => chaos.workload.changeTemplate(set)));
    return { snapshot, victimSets };
  }
  throw new Error("no actor owns any of the sets");
}

/** `prepare`, or undefined (reported) when the fleet does not settle: the rounds so far still count. */
async function prepareOrReport(
  chaos: ChaosStack,
  sets: readonly SetRefName[],
  round: number,
  print: (l: string) => void,
): Promise<{ snapshot: OwnerSnapshot; victimSets: SetRefName[] } | undefined> {
  try {
    return await prepare(chaos, sets, round);
  } catch (error) {
    print(`  round ${round + 1} abandoned: ${(error as Error).message}`);
    return undefined;
  }
}

/** Polls the audit log for the new owner's first accepted write after `fromMs`. */
async function waitFirstWrite(chaos: ChaosStack, snapshot: OwnerSnapshot, fromMs: number, timeoutMs: number): Promise<number | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const first = firstNewOwnerWrite(chaos.audit(), snapshot, fromMs);
    if (first) return first.delayMs;
    if (performance.now() > deadline) return undefined;
    await sleep(50);
  }
}

/** Per shard of the snapshot: the release write after `fromMs` and the next claim of that shard. */
function gracefulGaps(chaos: ChaosStack, snapshot: OwnerSnapshot, fromMs: number): { gapsMs: number[]; sigtermToClaimMs: number[] } {
  const gapsMs: number[] = [];
  const sigtermToClaimMs: number[] = [];
  for (const shard of snapshot.epochs.keys()) {
    const key = shardKeys.build(shard);
    const changes = chaos.ownership.changes.filter((c) => c.bucket === "shards" && c.key === key && c.atMs >= fromMs).sort((a, b) => a.revision - b.revision);
    const release = changes.find((c) => c.shard?.state === "released" && c.shard.owner === snapshot.member);
    const claim = changes.find((c) => c.shard?.state === "owned" && (release ? c.revision > release.revision : true));
    if (release && claim) gapsMs.push(claim.atMs - release.atMs);
    if (claim) sigtermToClaimMs.push(claim.atMs - fromMs);
  }
  return { gapsMs, sigtermToClaimMs };
}

function line(kind: string, i: number, sample: Sample, extra = ""): string {
  return (
    `  ${kind} ${i}: ${sample.victim} (${sample.shards} shards, ${sample.sets} sets): first write by the new owner ${formatMs(sample.firstWriteMs)}, ` +
    `all shards claimed ${formatMs(sample.takeoverMs)}${extra} | load ${sample.load}`
  );
}

type FaultName = "SIGTERM" | "SIGKILL" | "SIGSTOP";

/**
 * `rounds` times: prepare a victim, inject the fault, wait for the new owner's first write and for the takeover
 * (up to `timeoutMs`), undo the fault (SIGCONT after SIGSTOP) and keep a sample; `extra` adds per-fault details.
 */
async function measure<T extends Sample>(
  chaos: ChaosStack,
  sets: readonly SetRefName[],
  options: { fault: FaultName; rounds: number; timeoutMs: number; extra: (snapshot: OwnerSnapshot, atMs: number, sample: Sample) => T; describe?: (sample: T) => string },
  print: (l: string) => void,
): Promise<T[]> {
  const samples: T[] = [];
  for (let i = 0; i < options.rounds; i++) {
    const prepared = await prepareOrReport(chaos, sets, i, print);
    if (!prepared) break;
    const { snapshot, victimSets } = prepared;
    const victim = snapshot.member;
    const atMs = (options.fault === "SIGTERM" ? chaos.terminate(victim) : options.fault === "SIGKILL" ? chaos.kill(victim) : chaos.pause(victim)).atMs;
    try {
      const [firstWriteMs, takeover] = await Promise.all([
        waitFirstWrite(chaos, snapshot, atMs, options.timeoutMs),
        waitTakeover(chaos, snapshot, atMs, { timeoutMs: options.timeoutMs }),
      ]);
      const base = { victim, shards: snapshot.epochs.size, sets: victimSets.length, firstWriteMs, takeoverMs: takeover.takeoverMs, load: loadAverage() };
      const sample = options.extra(snapshot, atMs, base);
      samples.push(sample);
      print(line(options.fault, i + 1, sample, options.describe?.(sample) ?? ""));
    } finally {
      if (options.fault === "SIGSTOP") chaos.resume(victim);
    }
  }
  return samples;
}

function measureGraceful(chaos: ChaosStack, sets: readonly SetRefName[], rounds: number, print: (l: string) => void): Promise<GracefulSample[]> {
  return measure(
    chaos,
    sets,
    {
      fault: "SIGTERM",
      rounds,
      timeoutMs: FIRST_WRITE_TIMEOUT_MS,
      extra: (snapshot, atMs, sample) => ({ ...sample, ...gracefulGaps(chaos, snapshot, atMs) }),
      describe: (sample) => {
        const d = distribution(sample.gapsMs);
        return `; per shard release->claim p50 ${formatMs(d.p50Ms)} max ${formatMs(d.maxMs)}`;
      },
    },
    print,
  );
}

function measureKills(chaos: ChaosStack, sets: readonly SetRefName[], rounds: number, print: (l: string) => void): Promise<Sample[]> {
  return measure(chaos, sets, { fault: "SIGKILL", rounds, timeoutMs: FIRST_WRITE_TIMEOUT_MS, extra: (_s, _a, sample) => sample }, print);
}

function measureStops(chaos: ChaosStack, sets: readonly SetRefName[], rounds: number, leaseMs: number, print: (l: string) => void): Promise<Sample[]> {
  return measure(chaos, sets, { fault: "SIGSTOP", rounds, timeoutMs: leaseMs + 20_000, extra: (_s, _a, sample) => sample }, print);
}

function defined(values: readonly (number | undefined)[]): number[] {
  return values.filter((v): v is number => v !== undefined);
}

async function withStack<T>(profile: Profile, pingMs: number, sets: number, print: (l: string) => void, work: (chaos: ChaosStack, sets: SetRefName[]) => Promise<T>): Promise<T> {
  print(`stack: 3 actors, ${profile} lease profile, nats-server ping interval ${pingMs} ms (load ${loadAverage()})`);
  const chaos = await ChaosStack.start({ actors: 3, leaseProfile: profile, natsPingIntervalMs: pingMs });
  try {
    return await work(chaos, await createSets(chaos, sets));
  } finally {
    await chaos.stop();
  }
}

export async function runBench(options: BenchOptions, print: (l: string) => void): Promise<BenchResult> {
  const startedAt = new Date().toISOString();
  print(`failover bench: ${cpus().length} CPUs, load ${loadAverage()}, ${startedAt}`);
  const stop: Record<string, BenchResult["stop"][string]> = {};
  const stopResult = (samples: Sample[], targetMs: number) => ({
    samples,
    firstWrite: distribution(defined(samples.map((s) => s.firstWriteMs))),
    takeover: distribution(defined(samples.map((s) => s.takeoverMs))),
    targetMs,
  });

  // The default profile first: if a run has to be cut short, the kills (the longest phase) are what is lost.
  if (options.profiles.includes("default")) {
    await withStack("default", LOCAL_NATS_PING_INTERVAL_MS, options.sets, print, async (chaos, sets) => {
      print(`SIGSTOP failover, default profile: ${options.stops} pauses`);
      stop["default"] = stopResult(await measureStops(chaos, sets, options.stops, LEASE_PROFILES.default.leaseDurationMs, print), 17_000);
    });
  }
  const { graceful, kill } = await withStack("fast", LOCAL_NATS_PING_INTERVAL_MS, options.sets, print, async (chaos, sets) => {
    print(`graceful handoff: SIGTERM of one of 3 replicas, ${options.graceful} times`);
    const gracefulSamples = await measureGraceful(chaos, sets, options.graceful, print);
    if (options.profiles.includes("fast")) {
      print(`SIGSTOP failover, fast profile: ${options.stops} pauses`);
      stop["fast"] = stopResult(await measureStops(chaos, sets, options.stops, LEASE_PROFILES.fast.leaseDurationMs, print), LEASE_PROFILES.fast.leaseDurationMs + 2_000);
    }
    print(`SIGKILL failover: ${options.kills} kills`);
    const killSamples = await measureKills(chaos, sets, options.kills, print);
    return { graceful: gracefulSamples, kill: killSamples };
  });
  if (options.leasePath) {
    await withStack("default", 120_000, options.sets, print, async (chaos, sets) => {
      print(`SIGSTOP failover, default profile, lease path only (server ping 2 min): ${options.stops} pauses`);
      stop["default-lease-path"] = stopResult(await measureStops(chaos, sets, options.stops, LEASE_PROFILES.default.leaseDurationMs, print), 17_000);
    });
  }

  const result: BenchResult = {
    startedAt,
    finishedAt: new Date().toISOString(),
    nproc: cpus().length,
    natsPingIntervalMs: LOCAL_NATS_PING_INTERVAL_MS,
    graceful: {
      samples: graceful,
      gap: distribution(graceful.flatMap((s) => s.gapsMs)),
      sigtermToClaim: distribution(graceful.flatMap((s) => s.sigtermToClaimMs)),
      firstWrite: distribution(defined(graceful.map((s) => s.firstWriteMs))),
    },
    kill: { samples: kill, firstWrite: distribution(defined(kill.map((s) => s.firstWriteMs))), takeover: distribution(defined(kill.map((s) => s.takeoverMs))) },
    stop,
  };
  print("");
  for (const l of resultLines(result)) print(l);
  if (options.report) writeFileSync(options.report, `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

export function resultLines(r: BenchResult): string[] {
  const missing = (samples: readonly Sample[]) => samples.filter((s) => s.firstWriteMs === undefined).length;
  const lines = [
    `RESULTS (${r.startedAt} .. ${r.finishedAt}, ${r.nproc} CPUs, nats ping ${r.natsPingIntervalMs} ms)`,
    `  graceful, per shard release -> claim:   ${formatDistribution(r.graceful.gap)}`,
    `  graceful, per shard SIGTERM -> claim:   ${formatDistribution(r.graceful.sigtermToClaim)}`,
    `  graceful, SIGTERM -> first new write:   ${formatDistribution(r.graceful.firstWrite)}`,
    `  SIGKILL -> first write by new owner:    ${formatDistribution(r.kill.firstWrite)} (${missing(r.kill.samples)} without a write in ${FIRST_WRITE_TIMEOUT_MS} ms)`,
    `  SIGKILL -> all shards claimed:          ${formatDistribution(r.kill.takeover)}`,
  ];
  for (const [name, s] of Object.entries(r.stop)) {
    lines.push(`  SIGSTOP ${name} -> first write:         ${formatDistribution(s.firstWrite)} (target ${formatMs(s.targetMs)}, ${missing(s.samples)} without a write)`);
    lines.push(`  SIGSTOP ${name} -> all shards claimed:  ${formatDistribution(s.takeover)}`);
  }
  return lines;
}

function positiveInt(name: string) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(raw);
  };
}

function profiles(raw: string): Profile[] {
  const list = raw.split(",").map((p) => p.trim()).filter((p) => p !== "");
  for (const p of list) if (p !== "fast" && p !== "default") throw new InvalidArgumentError(`unknown profile ${p} (fast, default)`);
  return list as Profile[];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  new Command("bench:failover")
    .description("graceful handoff, SIGKILL and SIGSTOP failover times of a 3-actor chaos stack")
    .addOption(new Option("--kills <n>", "SIGKILL rounds").argParser(positiveInt("--kills")).default(20))
    .addOption(new Option("--graceful <n>", "SIGTERM rounds").argParser(positiveInt("--graceful")).default(3))
    .addOption(new Option("--stops <n>", "SIGSTOP rounds per profile").argParser(positiveInt("--stops")).default(3))
    .addOption(new Option("--profiles <list>", "lease profiles for SIGSTOP").argParser(profiles).default(["fast", "default"] satisfies Profile[]))
    .option("--lease-path", "also SIGSTOP with a 2-minute server ping interval (only the lease can detect the pause)", false)
    .addOption(new Option("--sets <n>", "StatefulSets (3 replicas each)").argParser(positiveInt("--sets")).default(24))
    .addOption(new Option("--report <file>", "write the results as JSON here"))
    .action(async (options: BenchOptions) => {
      await runBench(options, (l) => process.stdout.write(`${l}\n`));
    })
    .parseAsync(process.argv)
    .then(() => process.exit(0))
    .catch((error: unknown) => {
      process.stderr.write(`bench:failover: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    });
}
