// The chaos harness: a whole stsfleet stack (startStack: the simulator and every service as separate processes)
// on a NATS the harness owns — one nats-server with a short ping interval, or a 3-node JetStream cluster — with
// the actors optionally behind a proxy that can cut or delay one replica's connection. It injects faults
// (SIGKILL, SIGSTOP/SIGCONT, SIGTERM, cuts, NATS restarts, cluster node loss), journals each one with its wall
// time, records the API objects and the ownership buckets, and checks the invariants (invariants.ts).
// Design: docs/adr/0072-chaos-harness.md.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { ALL_SHARDS, STREAMS, codecs, intentReplicaStream, intentReplicaSubjects, intentSubjects, shard as shardOf } from "#protocol";
import type { Intent } from "#protocol";
import { desiredAssignment } from "../../services/actor/src/domain/assignment.ts";
import { LEASE_PROFILES } from "../../services/actor/src/runtime/ownership.ts";
import { KubeClient, RESOURCES, loadKubeConfig } from "../../services/common/src/kube.ts";
import { provisionTopology } from "../../services/common/src/topology.ts";
import { userAgent } from "../../services/common/src/version.ts";
import { isNatsClusterEvent, natsLeaderEvents, startNatsCluster, startNatsServer } from "../lib/nats-server.ts";
import type { NatsLeaderEvent, RunningNatsCluster, RunningNatsServer } from "../lib/nats-server.ts";
import { startStack } from "../stsfleet/src/stack.ts";
import type { LogLevel, Stack, StackEvent } from "../stsfleet/src/stack.ts";
import type { ServiceKind } from "../stsfleet/src/state.ts";
import { factsOf, parseAuditLog } from "./facts.ts";
import type { AuditWrite, FaultKind, FaultRecord, PodFacts, SetFacts } from "./facts.ts";
import { checkInvariants } from "./invariants.ts";
import type { InvariantReport } from "./invariants.ts";
import { NatsProxy } from "./proxy.ts";
import { ObjectRecorder, OwnershipRecorder } from "./recorders.ts";
import { Workload } from "./workload.ts";

/** Simulated kubelet timings: quick, but slow enough that ordering is visible. */
export const CHAOS_KUBE_SIM_ARGS = ["--schedule-delay-ms", "5", "--start-delay-ms", "80", "--termination-delay-ms", "50", "--bind-delay-ms", "10"];

/** Short timings everywhere, so faults are noticed and recovered from within seconds. */
export function chaosServiceArgs(profile: "fast" | "default"): Record<ServiceKind, string[]> {
  return {
    watcher: ["--lease-duration-ms", "3000", "--lease-renew-deadline-ms", "2000", "--lease-retry-period-ms", "500"],
    // Kubernetes calls must end well inside lease - renew deadline (3 s fast), so a fenced replica's last call
    // cannot outlive its lease.
    actor: ["--lease-profile", profile, "--backoff-max-ms", "2000", "--claim-wait-timeout-ms", "3000", "--status-timeout-ms", "2000", "--kube-request-timeout-ms", "2000"],
    "pvc-provisioner": ["--retry-backoff-ms", "200,500,1000", "--ack-wait-ms", "5000"],
    "status-writer": [],
  };
}

export interface ChaosOptions {
  /** Actor replicas (default 3). */
  readonly actors?: number;
  /** A 3-node JetStream cluster with streams and buckets at 3 replicas, instead of one server. */
  readonly natsCluster?: boolean;
  /** Actors connect through the chaos proxy (single server only), so `cut`/`delay` work. */
  readonly proxy?: boolean;
  /** The server's ping interval: a silent client is dropped after two missed pings (default 1000 ms). */
  readonly natsPingIntervalMs?: number;
  readonly leaseProfile?: "fast" | "default";
  readonly kubeSimArgs?: readonly string[];
  /** Appended after the harness's own flags (the last occurrence wins). */
  readonly serviceArgs?: Partial<Record<ServiceKind, readonly string[]>>;
  readonly stateDir?: string;
  /** Keep the state dir (logs, audit log) after stop (also with STSFLEET_CHAOS_KEEP=1). */
  readonly keep?: boolean;
  readonly logLevel?: LogLevel;
  readonly onEvent?: (event: StackEvent) => void;
}

export interface CheckOptions {
  readonly namespaces?: readonly string[];
  /** Coverage (I6) is judged from here; default the moment the fleet first owned every shard. */
  readonly sinceMs?: number;
  readonly failoverBoundMs?: number;
  readonly gracefulBoundMs?: number;
  /** Read the API's current sets and pods for the convergence check (default true). */
  readonly final?: boolean;
}

export class ChaosStack {
  readonly stack: Stack;
  readonly kube: KubeClient;
  readonly workload: Workload;
  readonly objects: ObjectRecorder;
  readonly ownership: OwnershipRecorder;
  readonly journal: FaultRecord[] = [];
  readonly proxy: NatsProxy | undefined;
  readonly cluster: RunningNatsCluster | undefined;
  readonly actorNames: readonly string[];
  readonly leaseDurationMs: number;
  /** When the fleet first owned every shard (coverage is judged from here). */
  readyAtMs = 0;
  private natsServer: RunningNatsServer | undefined;
  private readonly natsOptions: Parameters<typeof startNatsServer>[0];
  private readonly nc: NatsConnection;
  private keep: boolean;

  private constructor(init: {
    stack: Stack;
    kube: KubeClient;
    objects: ObjectRecorder;
    ownership: OwnershipRecorder;
    proxy: NatsProxy | undefined;
    cluster: RunningNatsCluster | undefined;
    natsServer: RunningNatsServer | undefined;
    natsOptions: Parameters<typeof startNatsServer>[0];
    nc: NatsConnection;
    actors: number;
    leaseDurationMs: number;
    keep: boolean;
  }) {
    this.stack = init.stack;
    this.kube = init.kube;
    this.workload = new Workload(init.kube);
    this.objects = init.objects;
    this.ownership = init.ownership;
    this.proxy = init.proxy;
    this.cluster = init.cluster;
    this.natsServer = init.natsServer;
    this.natsOptions = init.natsOptions;
    this.nc = init.nc;
    this.actorNames = Array.from({ length: init.actors }, (_, i) => `actor-${i}`);
    this.leaseDurationMs = init.leaseDurationMs;
    this.keep = init.keep;
  }

  static async start(options: ChaosOptions = {}): Promise<ChaosStack> {
    const stateDir = options.stateDir ?? mkdtempSync(join(tmpdir(), "stsfleet-chaos-"));
    mkdirSync(stateDir, { recursive: true });
    const keep = options.keep ?? process.env["STSFLEET_CHAOS_KEEP"] !== undefined;
    const profile = options.leaseProfile ?? "fast";
    const pingIntervalMs = options.natsPingIntervalMs ?? 1_000;
    const replicas = options.natsCluster ? 3 : 1;
    const cleanups: (() => unknown)[] = [];
    try {
      // --- NATS, owned by the harness so it can be restarted and clustered --------------------------------
      let natsServer: RunningNatsServer | undefined;
      let cluster: RunningNatsCluster | undefined;
      const natsOptions = { pingIntervalMs, storeDir: join(stateDir, "chaos-nats", "jetstream"), serverName: "chaos" };
      if (options.natsCluster) {
        // Every node logs (with Raft and route debug lines) into the state dir, kept with STSFLEET_CHAOS_KEEP=1.
        cluster = await startNatsCluster({ pingIntervalMs, logDir: join(stateDir, "nats-cluster"), debug: true });
        cleanups.push(() => cluster?.stop());
      } else {
        natsServer = await startNatsServer(natsOptions);
        cleanups.push(() => natsServer?.stop());
      }
      const natsUrl = cluster?.url ?? natsServer?.url ?? "";
      let proxy: NatsProxy | undefined;
      if (options.proxy) {
        if (!natsServer) throw new Error("the chaos proxy works with a single nats-server");
        const server = natsServer;
        proxy = await NatsProxy.start(() => server.url);
        cleanups.push(() => proxy?.stop());
      }

      // --- the recorders start before anything writes, so their histories are complete ----------------------
      const nc = await connect({ servers: natsUrl.split(","), name: "chaos-harness", maxReconnectAttempts: -1, reconnectTimeWait: 250 });
      cleanups.push(() => nc.close());
      const topology = await provisionTopology(nc, { replicas });
      const ownership = await OwnershipRecorder.start(topology);
      cleanups.push(() => ownership.stop());

      const base = chaosServiceArgs(profile);
      const replicaArgs = replicas > 1 ? ["--nats-replicas", String(replicas)] : [];
      // On the cluster the actors keep the intent log as a quorum of one single-replica stream per node (the nodes
      // are tagged with their names), as production does (ADR 0084).
      const intentArgs = cluster ? ["--intent-log-placement", cluster.nodes.map((node) => node.name).join(",")] : [];
      const serviceArgs = Object.fromEntries(
        (Object.keys(base) as ServiceKind[]).map((kind) => [
          kind,
          [
            ...base[kind],
            ...replicaArgs,
            ...(kind === "actor" ? intentArgs : []),
            ...(kind === "actor" && proxy ? ["--nats-url", proxy.url] : []),
            ...(options.serviceArgs?.[kind] ?? []),
          ],
        ]),
      ) as Record<ServiceKind, string[]>;
      const stack = await startStack({
        stateDir,
        actors: options.actors ?? 3,
        natsUrl,
        kubeSimArgs: options.kubeSimArgs ?? CHAOS_KUBE_SIM_ARGS,
        serviceArgs,
        logLevel: options.logLevel ?? "info",
        readyTimeoutMs: 180_000,
        stopTimeoutMs: 5_000,
        // Kills come every few seconds: restart quickly every time, not with a growing backoff.
        restart: { initialDelayMs: 250, maxDelayMs: 1_000, stableAfterMs: 2_000 },
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      });
      cleanups.push(() => stack.stop());
      const kube = new KubeClient(loadKubeConfig(stack.kubeconfigPath, userAgent("stsfleet", "chaos")), { requestTimeoutMs: 15_000 });
      const objects = new ObjectRecorder(kube);
      await objects.start();
      cleanups.push(() => objects.stop());

      const chaos = new ChaosStack({
        stack,
        kube,
        objects,
        ownership,
        proxy,
        cluster,
        natsServer,
        natsOptions,
        nc,
        actors: options.actors ?? 3,
        leaseDurationMs: LEASE_PROFILES[profile].leaseDurationMs,
        keep,
      });
      await chaos.waitForFleet({ timeoutMs: 120_000 });
      chaos.readyAtMs = Date.now();
      return chaos;
    } catch (error) {
      for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => undefined);
      if (!keep) rmSync(stateDir, { recursive: true, force: true });
      throw error;
    }
  }

  get stateDir(): string {
    return this.stack.stateDir;
  }

  get natsUrl(): string {
    return this.stack.natsUrl;
  }

  /** The harness's own NATS connection (direct, never through the proxy). */
  get connection(): NatsConnection {
    return this.nc;
  }

  // --- faults -------------------------------------------------------------------------------------------------

  private note(kind: FaultKind, target: string, note?: string): FaultRecord {
    const record: FaultRecord = { kind, target, atMs: Date.now(), ...(note !== undefined ? { note } : {}) };
    this.journal.push(record);
    return record;
  }

  private signal(name: string, signal: NodeJS.Signals): void {
    if (!this.stack.service(name).signal(signal)) throw new Error(`${name} is not running`);
  }

  /** SIGKILL to the process group; the stack's supervisor restarts it (a new incarnation). */
  kill(name: string): FaultRecord {
    const record = this.note("kill", name);
    this.signal(name, "SIGKILL");
    return record;
  }

  /** SIGSTOP: the process freezes with its connections open (a GC or VM pause). */
  pause(name: string): FaultRecord {
    const record = this.note("pause", name);
    this.signal(name, "SIGSTOP");
    return record;
  }

  resume(name: string): FaultRecord {
    this.signal(name, "SIGCONT");
    return this.note("resume", name);
  }

  /** SIGTERM: a graceful stop (drain, release), after which the supervisor starts it again. */
  terminate(name: string): FaultRecord {
    const record = this.note("terminate", name);
    this.signal(name, "SIGTERM");
    return record;
  }

  /** Stops a service for good (graceful), e.g. to shrink the fleet; `startService` brings it back. */
  async stopService(name: string): Promise<void> {
    this.note("terminate", name, "stopped");
    await this.stack.service(name).stop(10_000);
  }

  async startService(name: string): Promise<void> {
    this.note("start", name);
    await this.stack.service(name).start();
  }

  private requireProxy(): NatsProxy {
    if (!this.proxy) throw new Error("this chaos stack runs without the proxy (start it with proxy: true)");
    return this.proxy;
  }

  /** Blackholes the actor's NATS connection (current and new ones), as a network partition would. */
  cut(actor: string): FaultRecord {
    this.requireProxy().cut(`actor/${actor}`);
    return this.note("cut", actor);
  }

  heal(actor: string): FaultRecord {
    this.requireProxy().heal(`actor/${actor}`);
    return this.note("heal", actor);
  }

  delay(actor: string, delayMs: number): FaultRecord {
    this.requireProxy().delay(`actor/${actor}`, delayMs);
    return this.note("delay", actor, `${delayMs} ms`);
  }

  /** SIGKILL (or SIGTERM) of nats-server, down for `downMs`, then back on the same port with the same store. */
  async restartNats(options: { downMs: number; signal?: "SIGKILL" | "SIGTERM" }): Promise<{ downMs: number }> {
    const server = this.natsServer;
    if (!server) throw new Error("restartNats needs the single-server mode");
    const started = performance.now();
    this.note("nats-down", "nats", options.signal ?? "SIGKILL");
    if ((options.signal ?? "SIGKILL") === "SIGKILL") server.kill("SIGKILL");
    await server.stop({ keepStore: true, timeoutMs: 5_000 });
    await sleep(options.downMs);
    this.natsServer = await startNatsServer({ ...this.natsOptions, port: server.port });
    this.note("nats-up", "nats");
    return { downMs: performance.now() - started };
  }

  /** The last `lines` cluster events (natsLogs: no client chatter) of every node's log, for a failing test to print. */
  natsLogTails(lines = 60): string {
    return this.natsLogs()
      .map(({ node, file, text }) => `--- ${node} (${file})\n${text.split("\n").filter(isNatsClusterEvent).slice(-lines).join("\n")}\n`)
      .join("");
  }

  /** Leader elections the cluster's nodes logged at or after `sinceMs`, in time order. */
  natsLeaderEvents(sinceMs: number): NatsLeaderEvent[] {
    return this.natsLogs()
      .flatMap(({ node, text }) => natsLeaderEvents(node, text))
      .filter((e) => e.atMs >= sinceMs)
      .sort((a, b) => a.atMs - b.atMs);
  }

  private natsLogs(): { node: string; file: string; text: string }[] {
    return (this.cluster?.nodes ?? []).flatMap((node) => {
      if (node.logFile === undefined) return [];
      try {
        return [{ node: node.name, file: node.logFile, text: readFileSync(node.logFile, "utf8") }];
      } catch {
        return [{ node: node.name, file: node.logFile, text: "(no log)" }];
      }
    });
  }

  /** Stops one cluster node: SIGKILL (a crash, the default) or SIGTERM (its Raft leaders step down first). */
  async stopNatsNode(index: number, signal: "SIGKILL" | "SIGTERM" = "SIGKILL"): Promise<void> {
    if (!this.cluster) throw new Error("stopNatsNode needs the cluster mode");
    this.note("node-down", `n${index}`, signal);
    await this.cluster.stopNode(index, { signal });
  }

  async startNatsNode(index: number): Promise<void> {
    if (!this.cluster) throw new Error("startNatsNode needs the cluster mode");
    await this.cluster.startNode(index);
    this.note("node-up", `n${index}`);
  }

  // --- observation ----------------------------------------------------------------------------------------

  /** The replica acting on the set's shard right now (from the ownership buckets). */
  ownerOfSet(namespace: string, name: string): string | undefined {
    return this.ownership.ownerOf(shardOf(namespace, name));
  }

  /** Epoch (claim revision) of the set's shard right now. */
  epochOfSet(namespace: string, name: string): number | undefined {
    return this.ownership.shards().get(shardOf(namespace, name))?.revision;
  }

  shardsOwnedBy(member: string): number[] {
    return ALL_SHARDS.filter((s) => this.ownership.ownerOf(s) === member);
  }

  /**
   * Resolves when every shard is owned by its desired owner among the members alive now (`members`, default all
   * alive records), i.e. the fleet has settled after joins, leaves and failovers.
   */
  async waitForFleet(options: { members?: readonly string[]; timeoutMs?: number } = {}): Promise<number> {
    const started = performance.now();
    const deadline = started + (options.timeoutMs ?? 60_000);
    let last = "";
    while (performance.now() < deadline) {
      const alive = options.members ?? [...this.ownership.members().values()].filter((m) => m.state === "alive").map((m) => m.name);
      const desired = desiredAssignment(alive);
      const wrong = ALL_SHARDS.filter((s) => this.ownership.ownerOf(s) !== desired.get(s));
      if (alive.length > 0 && wrong.length === 0) return performance.now() - started;
      const records = wrong.slice(0, 5).map((s) => {
        const record = this.ownership.shards().get(s);
        return `shard ${s}: ${record ? `${record.record.state} by ${record.record.owner} (rev ${record.revision})` : "no record"}, desired ${desired.get(s) ?? "?"}`;
      });
      last = `${wrong.length} shards not at their desired owner among ${alive.join(", ")} (${records.join("; ")})`;
      await sleep(100);
    }
    // Worth a look: keep the state dir (logs, audit log, the record) like a failed check does.
    this.keep = true;
    throw new Error(`the fleet did not settle within ${options.timeoutMs ?? 60_000} ms: ${last}`);
  }

  /**
   * The set's intent log (32 records per set are kept), oldest first, with append times. On the cluster the log is a
   * quorum of replicas (ADR 0084): one append is a record on each replica that took it, so records with the same
   * content are merged, timed by the first replica's, and `seq` is then the position in the merged log.
   */
  async intentLog(namespace: string, name: string): Promise<{ seq: number; atMs: number; intent: Intent | undefined }[]> {
    const address = { shard: shardOf(namespace, name), namespace, name };
    if (!this.cluster) return this.intentRecords(STREAMS.intents, intentSubjects.build(address));
    const merged = new Map<string, { seq: number; atMs: number; intent: Intent | undefined }>();
    for (let replica = 0; replica < this.cluster.nodes.length; replica++) {
      for (const record of await this.intentRecords(intentReplicaStream(replica), intentReplicaSubjects(replica).build(address))) {
        const key = JSON.stringify(record.intent ?? `unreadable ${replica}/${record.seq}`);
        const seen = merged.get(key);
        if (!seen || record.atMs < seen.atMs) merged.set(key, record);
      }
    }
    return [...merged.values()].sort((a, b) => a.atMs - b.atMs).map((record, i) => ({ ...record, seq: i + 1 }));
  }

  private async intentRecords(stream: string, subject: string): Promise<{ seq: number; atMs: number; intent: Intent | undefined }[]> {
    const consumer = await jetstream(this.nc).consumers.get(stream, { filter_subjects: subject });
    const records: { seq: number; atMs: number; intent: Intent | undefined }[] = [];
    const messages = await consumer.fetch({ max_messages: 64, expires: 2_000 });
    for await (const message of messages) {
      let intent: Intent | undefined;
      try {
        intent = codecs.intent.decode(message.data);
      } catch {
        intent = undefined;
      }
      records.push({ seq: message.seq, atMs: Math.floor(Number(message.info.timestampNanos) / 1e6), intent });
      if (message.info.pending === 0) break;
    }
    return records;
  }

  audit(): AuditWrite[] {
    const path = this.stack.auditLogPath;
    if (!path) throw new Error("the chaos harness needs the simulator's audit log");
    return parseAuditLog(readFileSync(path, "utf8"));
  }

  /** Sets and pods now, as the invariants read them. */
  async apiState(namespaces?: readonly string[]): Promise<{ sets: SetFacts[]; pods: PodFacts[] }> {
    const [sets, pods] = await Promise.all([
      this.kube.list<{ items: unknown[] }>(RESOURCES.statefulsets),
      this.kube.list<{ items: unknown[] }>(RESOURCES.pods),
    ]);
    const keep = (ns: string) => !namespaces || namespaces.includes(ns);
    return {
      sets: sets.items.map((o) => factsOf("StatefulSet", o) as SetFacts).filter((s) => keep(s.namespace)),
      pods: pods.items.map((o) => factsOf("Pod", o) as PodFacts).filter((p) => keep(p.namespace)),
    };
  }

  /** Polls until every set in `namespaces` has converged (I3), or the timeout; returns the time it took. */
  async waitConverged(namespaces: readonly string[], timeoutMs = 90_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      const final = await this.apiState(namespaces);
      const report = checkInvariants({ audit: [], timeline: [], final, namespaces });
      const i3 = report.results.find((r) => r.id === "I3");
      if (i3 && i3.violations.length === 0 && i3.checked > 0) return performance.now() - started;
      if (performance.now() - started > timeoutMs) {
        // Worth a look: keep the state dir (logs, audit log), and say what the actors hold back.
        this.keep = true;
        const held = await Promise.all(
          this.actorNames.map(async (name) => {
            const read = (metric: string) => this.metric(name, metric).catch(() => Number.NaN);
            return `${name}: unreadable objects ${await read("stsfleet_unreadable_objects")}, incomplete turns ${await read("stsfleet_turns_incomplete_total")}, re-reads ${await read("stsfleet_object_rereads_total")}`;
          }),
        );
        throw new Error(
          `not converged within ${timeoutMs} ms (state dir kept):\n${(i3?.violations ?? []).map((v) => `  ${v.subject}: ${v.message}`).join("\n")}\n  ${held.join("\n  ")}`,
        );
      }
      await sleep(250);
    }
  }

  /** Runs every invariant over everything recorded so far. */
  async check(options: CheckOptions = {}): Promise<InvariantReport> {
    const final = options.final === false ? undefined : await this.apiState(options.namespaces);
    const report = checkInvariants({
      audit: this.audit(),
      timeline: this.objects.events,
      timelineComplete: true,
      ownership: this.ownership.changes,
      ownershipComplete: true,
      faults: this.journal,
      ...(final ? { final } : {}),
      ...(options.namespaces ? { namespaces: options.namespaces } : {}),
      coverage: {
        fromMs: options.sinceMs ?? this.readyAtMs,
        toMs: Date.now(),
        failoverBoundMs: options.failoverBoundMs ?? this.leaseDurationMs + 4_000,
        gracefulBoundMs: options.gracefulBoundMs ?? 5_000,
      },
    });
    // A violation is worth a look: keep the state dir (logs, audit log, the record) instead of removing it.
    if (!report.ok) this.keep = true;
    return report;
  }

  /** Sum of a metric's samples on a service's /metrics whose labels include `labels`. */
  async metric(service: string, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
    const url = this.stack.service(service).metrics;
    if (!url) throw new Error(`${service} has no metrics URL`);
    const text = await (await fetch(url, { signal: AbortSignal.timeout(5_000) })).text();
    let sum = 0;
    for (const line of text.split("\n")) {
      // Label values may hold braces (`subject="k8s.{shard}.…"`): a quoted value is skipped whole.
      const match = /^([a-zA-Z_:][\w:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})?\s+(\S+)$/.exec(line);
      if (match?.[1] !== name) continue;
      const body = match[2] ?? "";
      if (Object.entries(labels).every(([k, v]) => body.includes(`${k}="${v}"`))) sum += Number(match[3]);
    }
    return sum;
  }

  async stop(): Promise<void> {
    this.objects.stop();
    this.ownership.stop();
    for (const record of this.journal) if (record.kind === "pause") this.stack.service(record.target).signal("SIGCONT");
    await this.stack.stop();
    await this.nc.close().catch(() => undefined);
    await this.proxy?.stop();
    await this.natsServer?.stop();
    await this.cluster?.stop();
    if (!this.keep) {
      rmSync(this.stateDir, { recursive: true, force: true });
      return;
    }
    // Everything the checker read, so a failed run can be checked again offline (tools/chaos/recheck.ts).
    writeFileSync(
      join(this.stateDir, "chaos-record.json"),
      JSON.stringify({ timeline: this.objects.events, ownership: this.ownership.changes, faults: this.journal, readyAtMs: this.readyAtMs }),
    );
    process.stderr.write(`chaos state kept in ${this.stateDir}\n`);
  }
}
