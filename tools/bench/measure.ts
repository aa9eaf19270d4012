// Counters read before and after each run: CPU time of every process (/proc), NATS messages (nats-server /varz),
// and the Kubernetes requests each controller process counted itself (client-go's rest_client_requests_total,
// which, unlike the audit log, includes reads).
import type { Environment } from "./environment.ts";
import { resetPeak, sampleProcess } from "./lib/proc.ts";

export interface Counters {
  readonly cpuSeconds: ReadonlyMap<string, number>;
  readonly nats: NatsCounts | undefined;
  /** By verb (get, list, create, update-status …), summed over the controller processes. */
  readonly clientRequests: Readonly<Record<string, number>>;
  /** The comparison controllers' own counters (`bench_<mode>_counts{what}`: syncs, failures, Events …). */
  readonly controller: Readonly<Record<string, number>>;
}

/** Messages into and out of nats-server (`in`: published by clients, `out`: delivered to them). */
export interface NatsCounts {
  readonly inMsgs: number;
  readonly outMsgs: number;
  /** By client connection name (nats-server /connz; unnamed connections as "?"), summed over same-named ones. */
  readonly byConnection?: Readonly<Record<string, { readonly inMsgs: number; readonly outMsgs: number }>>;
  /**
   * Messages delivered to each subscription, keyed `<connection name> <subject>` with inbox subjects (request replies,
   * pull deliveries, publish acks) folded into `_INBOX`: which subjects a client's inbound messages come from.
   */
  readonly bySubscription?: Readonly<Record<string, number>>;
  /** Messages stored by each JetStream stream (its last sequence): how many publishes each stream took. */
  readonly byStream?: Readonly<Record<string, number>>;
}

interface Connz {
  connections?: { name?: string; in_msgs?: number; out_msgs?: number; subscriptions_list_detail?: { subject?: string; msgs?: number }[] }[];
}

interface Jsz {
  account_details?: { stream_detail?: { name?: string; state?: { last_seq?: number } }[] }[];
}

/** A subscription's subject, inbox subjects (`_INBOX.<random>.*`, `_INBOX.<user>.…`) folded into `_INBOX`. */
function subscriptionKey(subject: string): string {
  return subject.startsWith("_INBOX") ? "_INBOX" : subject;
}

/** Sums /connz?subs=detail's per-subscription deliveries by connection name and subject. */
export function natsBySubscription(connz: Connz): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of connz.connections ?? []) {
    for (const sub of c.subscriptions_list_detail ?? []) {
      const key = `${c.name ?? "?"} ${subscriptionKey(sub.subject ?? "?")}`;
      out[key] = (out[key] ?? 0) + (sub.msgs ?? 0);
    }
  }
  return out;
}

/** /jsz?streams=true's last sequence of every stream. */
export function natsByStream(jsz: Jsz): Record<string, number> {
  const out: Record<string, number> = {};
  for (const account of jsz.account_details ?? []) {
    for (const stream of account.stream_detail ?? []) out[stream.name ?? "?"] = stream.state?.last_seq ?? 0;
  }
  return out;
}

function deltaOf(before: Readonly<Record<string, number>> | undefined, after: Readonly<Record<string, number>> | undefined): Record<string, number> | undefined {
  if (!after) return undefined;
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const delta = value - (before?.[key] ?? 0);
    if (delta !== 0) out[key] = delta;
  }
  return out;
}

/** Sums /connz's per-connection message counts by connection name. */
export function natsByConnection(connz: Connz): Record<string, { inMsgs: number; outMsgs: number }> {
  const out: Record<string, { inMsgs: number; outMsgs: number }> = {};
  for (const c of connz.connections ?? []) {
    const name = c.name ?? "?";
    const sum = (out[name] ??= { inMsgs: 0, outMsgs: 0 });
    sum.inMsgs += c.in_msgs ?? 0;
    sum.outMsgs += c.out_msgs ?? 0;
  }
  return out;
}

/** `after - before` of each field, by connection too (a connection that appeared counts from zero). */
export function natsDelta(before: NatsCounts | undefined, after: NatsCounts | undefined): NatsCounts | undefined {
  if (!before || !after) return undefined;
  const byConnection: Record<string, { inMsgs: number; outMsgs: number }> = {};
  for (const [name, counts] of Object.entries(after.byConnection ?? {})) {
    const was = before.byConnection?.[name];
    byConnection[name] = { inMsgs: counts.inMsgs - (was?.inMsgs ?? 0), outMsgs: counts.outMsgs - (was?.outMsgs ?? 0) };
  }
  const bySubscription = deltaOf(before.bySubscription, after.bySubscription);
  const byStream = deltaOf(before.byStream, after.byStream);
  return {
    inMsgs: after.inMsgs - before.inMsgs,
    outMsgs: after.outMsgs - before.outMsgs,
    byConnection,
    ...(bySubscription ? { bySubscription } : {}),
    ...(byStream ? { byStream } : {}),
  };
}

export interface ProcessFigures {
  readonly name: string;
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
}

const HARNESS = "harness";
/** Processes that are not the controller: the simulator stands for the API server, the harness drives the run. */
const NOT_CONTROLLER: ReadonlySet<string> = new Set([HARNESS, "kube-sim"]);

/** CPU per pod of the controller side: every process but the simulator and the harness (nats-server included). */
export interface ControllerCpu {
  readonly msPerPod: number;
  /** The controller process that spent the most: the bound on throughput once each process has its own cores. */
  readonly busiest: { readonly name: string; readonly msPerPod: number } | undefined;
}

export function controllerCpu(processes: readonly ProcessFigures[], pods: number): ControllerCpu {
  const controller = processes.filter((p) => !NOT_CONTROLLER.has(p.name));
  const totalSeconds = controller.reduce((sum, p) => sum + p.cpuSeconds, 0);
  const top = [...controller].sort((a, b) => b.cpuSeconds - a.cpuSeconds)[0];
  const perPod = (seconds: number) => (pods > 0 ? (seconds * 1000) / pods : 0);
  return { msPerPod: perPod(totalSeconds), busiest: top ? { name: top.name, msPerPod: perPod(top.cpuSeconds) } : undefined };
}

async function fetchText(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/** Sums `rest_client_requests_total` by its verb label. */
export function requestsByVerb(metricsText: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const match of metricsText.matchAll(/^rest_client_requests_total\{([^}]*)\}\s+(\S+)$/gm)) {
    const verb = /(?:^|,)verb="([^"]*)"/.exec(match[1] ?? "")?.[1] ?? "?";
    out[verb] = (out[verb] ?? 0) + Number(match[2]);
  }
  return out;
}

/** `bench_<mode>_counts{what="..."}` gauges. */
export function controllerCounts(metricsText: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const match of metricsText.matchAll(/^bench_[a-z]+_counts\{(?:[^}]*,)?what="([^"]+)"[^}]*\}\s+(\S+)$/gm)) {
    out[match[1] ?? "?"] = Number(match[2]);
  }
  return out;
}

export async function readCounters(env: Environment): Promise<Counters> {
  const cpuSeconds = new Map<string, number>();
  for (const { name, pid } of env.processes()) {
    const sample = sampleProcess(pid);
    if (sample) cpuSeconds.set(name, sample.cpuSeconds);
  }
  const usage = process.cpuUsage();
  cpuSeconds.set(HARNESS, (usage.user + usage.system) / 1e6);
  let nats: Counters["nats"];
  if (env.natsMonitorUrl) {
    const text = await fetchText(`${env.natsMonitorUrl.replace(/\/$/, "")}/varz`);
    const connzText = await fetchText(`${env.natsMonitorUrl.replace(/\/$/, "")}/connz?limit=4096&subs=detail`);
    const jszText = await fetchText(`${env.natsMonitorUrl.replace(/\/$/, "")}/jsz?streams=true`);
    if (text) {
      const varz = JSON.parse(text) as { in_msgs?: number; out_msgs?: number };
      const connz = connzText ? (JSON.parse(connzText) as Connz) : undefined;
      nats = {
        inMsgs: varz.in_msgs ?? 0,
        outMsgs: varz.out_msgs ?? 0,
        ...(connz ? { byConnection: natsByConnection(connz), bySubscription: natsBySubscription(connz) } : {}),
        ...(jszText ? { byStream: natsByStream(JSON.parse(jszText) as Jsz) } : {}),
      };
    }
  }
  const clientRequests: Record<string, number> = {};
  const controller: Record<string, number> = {};
  const texts = await Promise.all(env.metricsUrls().map(({ url }) => fetchText(url)));
  for (const text of texts) {
    if (text === undefined) continue;
    for (const [verb, count] of Object.entries(requestsByVerb(text))) clientRequests[verb] = (clientRequests[verb] ?? 0) + count;
    Object.assign(controller, controllerCounts(text));
  }
  return { cpuSeconds, nats, clientRequests, controller };
}

/** Starts a fresh peak-RSS window for every process. */
export function resetPeaks(env: Environment): void {
  for (const { pid } of env.processes()) resetPeak(pid);
}

export function processFigures(env: Environment, before: Counters, after: Counters): ProcessFigures[] {
  const figures: ProcessFigures[] = [];
  const peaks = new Map<string, number>();
  for (const { name, pid } of env.processes()) peaks.set(name, sampleProcess(pid)?.peakRssBytes ?? 0);
  peaks.set(HARNESS, process.memoryUsage().rss);
  for (const [name, cpu] of after.cpuSeconds) {
    figures.push({ name, cpuSeconds: cpu - (before.cpuSeconds.get(name) ?? 0), peakRssMiB: (peaks.get(name) ?? 0) / 2 ** 20 });
  }
  return figures;
}

export function deltaRecord(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) {
    const delta = value - (before[key] ?? 0);
    if (delta !== 0) out[key] = delta;
  }
  return out;
}
