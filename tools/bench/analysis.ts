// Turning the simulator's logs into the reported figures. Pure functions over parsed records, unit-tested.
import { parseParentAndOrdinal } from "#protocol";
import type { AuditRecord } from "./lib/logs.ts";
import type { ProbeRecord } from "./sim/probe.ts";

/** The harness's own requests (creating sets, changing templates) are not the controller's cost. */
export const HARNESS_SERVICE = "bench";

/** Nearest-rank percentile of an ascending-sorted list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export interface RequestCounts {
  readonly total: number;
  /** create, update, patch, delete … */
  readonly byVerb: Readonly<Record<string, number>>;
  /** `pods`, `statefulsets/status`, `events` … */
  readonly byResource: Readonly<Record<string, number>>;
  /** Answers outside 2xx. */
  readonly failed: number;
}

/** Mutating requests the controller side sent for objects in `namespace` within [fromUs, toUs]. */
export function countRequests(audit: readonly AuditRecord[], namespace: string, fromUs: number, toUs: number): RequestCounts {
  const byVerb: Record<string, number> = {};
  const byResource: Record<string, number> = {};
  let total = 0;
  let failed = 0;
  for (const record of audit) {
    if (record.namespace !== namespace || record.service === HARNESS_SERVICE) continue;
    if (record.receivedUs < fromUs || record.receivedUs > toUs) continue;
    total++;
    if (record.code < 200 || record.code > 299) failed++;
    byVerb[record.verb] = (byVerb[record.verb] ?? 0) + 1;
    const resource = record.subresource ? `${record.resource}/${record.subresource}` : record.resource;
    byResource[resource] = (byResource[resource] ?? 0) + 1;
  }
  return { total, byVerb, byResource, failed };
}

export interface Convergence {
  /** Sets that reached the target, and when the last of them did (µs); undefined while some are missing. */
  readonly done: number;
  readonly lastUs: number | undefined;
  readonly missing: readonly string[];
}

/**
 * When each set in `names` first reported converged at `generation` (from the probe, after `sinceUs`). A set that
 * later leaves the converged state counts from its last arrival. Fed incrementally: `update` reads only the records
 * appended to the (growing) probe array since the last call.
 */
export class ConvergenceTracker {
  private readonly namespace: string;
  private readonly names: readonly string[];
  private readonly wanted: ReadonlySet<string>;
  private readonly generation: number;
  private readonly sinceUs: number;
  private readonly at = new Map<string, number>();
  private index = 0;

  constructor(namespace: string, names: readonly string[], generation: number, sinceUs: number) {
    this.namespace = namespace;
    this.names = names;
    this.wanted = new Set(names);
    this.generation = generation;
    this.sinceUs = sinceUs;
  }

  update(probe: readonly ProbeRecord[]): Convergence {
    for (; this.index < probe.length; this.index++) {
      const record = probe[this.index] as ProbeRecord;
      if (record.k !== "set" || record.ns !== this.namespace || record.t < this.sinceUs || record.gen !== this.generation) continue;
      if (!this.wanted.has(record.name)) continue;
      if (!record.done) this.at.delete(record.name);
      else if (!this.at.has(record.name)) this.at.set(record.name, record.t);
    }
    if (this.at.size === this.names.length) return { done: this.at.size, lastUs: Math.max(...this.at.values()), missing: [] };
    return { done: this.at.size, lastUs: undefined, missing: this.names.filter((name) => !this.at.has(name)) };
  }
}

export function convergence(probe: readonly ProbeRecord[], namespace: string, names: readonly string[], generation: number, sinceUs: number): Convergence {
  return new ConvergenceTracker(namespace, names, generation, sinceUs).update(probe);
}

export interface ChainLatency {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Pod N+1 created before pod N was Ready (an OrderedReady violation). */
  readonly early: number;
  /**
   * The chain split at pod N+1's claims (pods with claims only): pod N Ready to the first claim create request, and
   * the last claim create request to the pod's create request. Shows which side of the claim the time goes to.
   */
  readonly toClaim?: Percentiles;
  readonly claimToPod?: Percentiles;
}

export interface Percentiles {
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

function percentiles(values: number[]): Percentiles {
  values.sort((a, b) => a - b);
  return { samples: values.length, p50Ms: percentile(values, 50), p99Ms: percentile(values, 99) };
}

/** Claims are named `<template>-<pod>`: the pod among `pods` whose name is a dash-separated suffix of the claim's. */
function podOfClaim(claim: string, pods: ReadonlyMap<string, number>): string | undefined {
  for (let dash = claim.indexOf("-"); dash >= 0; dash = claim.indexOf("-", dash + 1)) {
    const suffix = claim.slice(dash + 1);
    if (pods.has(suffix)) return suffix;
  }
  return undefined;
}

/**
 * OrderedReady chain latency: for every set and ordinal N, from pod N's first Ready to the first create request of
 * pod N+1 (by anyone but the harness).
 */
export function chainLatency(audit: readonly AuditRecord[], probe: readonly ProbeRecord[], namespace: string, sinceUs: number): ChainLatency {
  const readyAt = new Map<string, number>();
  for (const record of probe) {
    if (record.k !== "ready" || record.ns !== namespace || record.t < sinceUs) continue;
    if (!readyAt.has(record.name)) readyAt.set(record.name, record.t);
  }
  const createdAt = new Map<string, number>();
  for (const record of audit) {
    if (record.namespace !== namespace || record.resource !== "pods" || record.verb !== "create" || record.subresource) continue;
    if (record.service === HARNESS_SERVICE || record.receivedUs < sinceUs) continue;
    if (!createdAt.has(record.name)) createdAt.set(record.name, record.receivedUs);
  }
  // First and last claim create request per pod (a pod waits for all of its claims).
  const claimsAt = new Map<string, { first: number; last: number }>();
  for (const record of audit) {
    if (record.namespace !== namespace || record.resource !== "persistentvolumeclaims" || record.verb !== "create" || record.subresource) continue;
    if (record.service === HARNESS_SERVICE || record.receivedUs < sinceUs) continue;
    const pod = podOfClaim(record.name, createdAt);
    if (pod === undefined) continue;
    const seen = claimsAt.get(pod);
    if (!seen) claimsAt.set(pod, { first: record.receivedUs, last: record.receivedUs });
    else seen.last = Math.max(seen.last, record.receivedUs);
  }
  const latencies: number[] = [];
  const toClaim: number[] = [];
  const claimToPod: number[] = [];
  let early = 0;
  for (const [pod, created] of createdAt) {
    const { parent, ordinal } = parseParentAndOrdinal(pod);
    if (parent === "" || ordinal < 1) continue;
    const previousReady = readyAt.get(`${parent}-${ordinal - 1}`);
    if (previousReady === undefined) continue;
    const ms = (created - previousReady) / 1000;
    if (ms < 0) {
      early++;
      continue;
    }
    latencies.push(ms);
    const claims = claimsAt.get(pod);
    if (claims && claims.first >= previousReady && claims.last <= created) {
      toClaim.push((claims.first - previousReady) / 1000);
      claimToPod.push((created - claims.last) / 1000);
    }
  }
  const all = percentiles(latencies);
  return {
    ...all,
    maxMs: latencies.length > 0 ? (latencies[latencies.length - 1] as number) : Number.NaN,
    early,
    ...(toClaim.length > 0 ? { toClaim: percentiles(toClaim), claimToPod: percentiles(claimToPod) } : {}),
  };
}

/** The set a pod or a ControllerRevision (`<set>-<hash>`) belongs to, by name. */
export function setOfObject(resource: string, name: string): string | undefined {
  if (resource === "pods") return parseParentAndOrdinal(name).parent || undefined;
  if (resource === "controllerrevisions") {
    const dash = name.lastIndexOf("-");
    return dash > 0 ? name.slice(0, dash) : undefined;
  }
  return undefined;
}

export interface Takeover {
  /** Sets the killed replica had written to before the kill. */
  readonly victimSets: number;
  /** First write by another actor replica to one of those sets after the kill, in ms after the kill. */
  readonly firstWriteMs: number | undefined;
  readonly newOwners: readonly string[];
}

export function takeover(audit: readonly AuditRecord[], namespace: string, victim: string, killedUs: number): Takeover {
  const victimSets = new Set<string>();
  let first: number | undefined;
  const owners = new Set<string>();
  for (const record of audit) {
    if (record.namespace !== namespace || record.service !== "actor") continue;
    const set = setOfObject(record.resource, record.name);
    if (set === undefined) continue;
    if (record.receivedUs <= killedUs) {
      if (record.instance === victim) victimSets.add(set);
      continue;
    }
    if (record.instance === victim || !victimSets.has(set)) continue;
    owners.add(record.instance);
    if (first === undefined || record.receivedUs < first) first = record.receivedUs;
  }
  return { victimSets: victimSets.size, firstWriteMs: first === undefined ? undefined : (first - killedUs) / 1000, newOwners: [...owners].sort() };
}
