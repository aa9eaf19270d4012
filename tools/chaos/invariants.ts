// The fleet's invariants (docs/CHAOS.md, ADR 0073), checked after every chaos scenario from what the system left behind:
// the simulator's audit log (who wrote what, with which epoch), the API objects at every resourceVersion (watched
// by the harness), the `members`/`shards` buckets' changes and the harness's fault journal. Definitions and the
// reasoning behind each rule: docs/adr/0073-chaos-invariants.md.
//
// I1 single writer: per set, no write from epoch e is accepted after an accepted write from an epoch e' > e had
//    completed; every writer epoch is a claim of that shard by that member.
// I2 ordering: OrderedReady creates pod k only when pods start..k-1 exist, are not terminating and have been
//    Running+Ready; scale-down deletes the highest condemned pod first (no higher pod left); a rolling update
//    deletes from the highest ordinal down to the partition (higher pods already at the newest revision).
// I3 convergence: at the end every set has observedGeneration == generation, readyReplicas == replicas,
//    currentRevision == updateRevision (partition and OnDelete excepted) and exactly its replicas as Ready pods.
// I4 no duplicate side effects: successful creates per pod, claim and revision name match the incarnations the
//    API saw and never exceed 1 + its deletions; no pod already at the newest revision is deleted for an update.
// I5 monotonic status: observedGeneration of one set never decreases, counting only values a controller could have
//    computed (<= metadata.generation); a higher value was written by another client and is overwritten (ADR 0087).
// I6 coverage: no shard stays without an acting owner longer than the failover bound (NATS outages excluded).
import { ALL_SHARDS, parseParentAndOrdinal, shard as shardOf, shardKeys, memberKeys } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";
import { setNameOf, succeeded } from "./facts.ts";
import type { AuditWrite, FaultRecord, ObjectEvent, OwnershipChange, PodFacts, RevisionFacts, SetFacts } from "./facts.ts";

export const INVARIANTS = {
  I1: "single writer per set",
  I2: "StatefulSet ordering",
  I3: "convergence",
  I4: "no duplicate side effects",
  I5: "observedGeneration never decreases",
  I6: "every shard owned within the failover bound",
} as const;
export type InvariantId = keyof typeof INVARIANTS;

export interface Violation {
  readonly invariant: InvariantId;
  /** What it is about: `ns/set`, `ns/pod`, `shard 17`. */
  readonly subject: string;
  readonly message: string;
}

export interface InvariantResult {
  readonly id: InvariantId;
  readonly name: string;
  /** How many things were checked (writes, events, sets, shards): a check of nothing proves nothing. */
  readonly checked: number;
  readonly violations: readonly Violation[];
  readonly notes: readonly string[];
  /** Why the invariant could not be checked (missing input). */
  readonly skipped?: string;
}

/** Ownerless stretches of one shard, for summaries and benchmarks. */
export interface OwnerlessInterval {
  readonly shard: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly durationMs: number;
  /** What started it: the owner released it, was declared dead, or its process was killed, paused or cut off. */
  readonly cause: "released" | "dead" | "down" | "unowned";
}

export interface CoverageStats {
  readonly intervals: readonly OwnerlessInterval[];
  readonly maxOwnerlessMs: number;
  readonly claims: number;
  readonly gracefulHandoffs: number;
  readonly failovers: number;
}

export interface InvariantReport {
  readonly ok: boolean;
  readonly results: readonly InvariantResult[];
  readonly coverage: CoverageStats | undefined;
  /** Accepted writes by an epoch older than the shard's newest claim at the time (informative, see ADR 0073). */
  readonly staleEpochWrites: readonly AuditWrite[];
  violations(): Violation[];
  text(): string;
}

export interface CoverageOptions {
  /** Coverage is judged from here (the fleet has claimed everything) to toMs. */
  readonly fromMs: number;
  readonly toMs: number;
  /** Longest acceptable ownerless stretch after a crash, pause or cut (e.g. lease duration + 3 s). */
  readonly failoverBoundMs: number;
  /** Longest acceptable stretch after a graceful release. */
  readonly gracefulBoundMs: number;
}

export interface CheckInput {
  readonly audit: readonly AuditWrite[];
  readonly timeline: readonly ObjectEvent[];
  readonly ownership?: readonly OwnershipChange[];
  /** True when `ownership` holds every change since the buckets were created (the recorder started first). */
  readonly ownershipComplete?: boolean;
  readonly faults?: readonly FaultRecord[];
  /** True when the timeline was recorded from before the first object in scope existed (default false). */
  readonly timelineComplete?: boolean;
  /** API state after the faults stopped and the fleet had time to converge. */
  readonly final?: { readonly sets: readonly SetFacts[]; readonly pods: readonly PodFacts[] };
  /** Check only these namespaces (scenarios sharing a stack); default all. */
  readonly namespaces?: readonly string[];
  readonly coverage?: CoverageOptions;
  /**
   * How far behind the API a controller's view of a set may be (default 5 s): a deletion is judged against every
   * version of its set replaced within this time, and passes if one of them justifies it.
   */
  readonly viewLagMs?: number;
  /** Services whose writes count as stsfleet's (default the four services). */
  readonly services?: readonly string[];
}

const STSFLEET_SERVICES = ["actor", "pvc-provisioner", "status-writer", "watcher"];
const MAX_LISTED = 20;

class Collector {
  readonly violations: Violation[] = [];
  readonly notes: string[] = [];
  checked = 0;
  readonly id: InvariantId;

  constructor(id: InvariantId) {
    this.id = id;
  }

  fail(subject: string, message: string): void {
    this.violations.push({ invariant: this.id, subject, message });
  }

  result(skipped?: string): InvariantResult {
    return {
      id: this.id,
      name: INVARIANTS[this.id],
      checked: this.checked,
      violations: this.violations,
      notes: this.notes,
      ...(skipped !== undefined ? { skipped } : {}),
    };
  }
}

export function checkInvariants(input: CheckInput): InvariantReport {
  const scope = input.namespaces ? new Set(input.namespaces) : undefined;
  const inScope = (namespace: string | undefined) => namespace !== undefined && (!scope || scope.has(namespace));
  const claims = claimIndex(input.ownership ?? []);
  const { result: i1, stale } = singleWriter(input, inScope, claims);
  const timeline = [...input.timeline].filter((e) => inScope(e.facts.namespace)).sort((a, b) => a.rv - b.rv);
  const { i2, i4deletes } = ordering(timeline, input.viewLagMs ?? 5_000);
  const i3 = convergence(input, inScope);
  const i4 = duplicates(input, timeline, inScope, i4deletes);
  const i5 = monotonicStatus(timeline);
  const { result: i6, stats } = coverage(input);
  const results = [i1, i2, i3, i4, i5, i6];
  return {
    ok: results.every((r) => r.violations.length === 0),
    results,
    coverage: stats,
    staleEpochWrites: stale,
    violations: () => results.flatMap((r) => r.violations),
    text: () => formatReport(results, stats, stale),
  };
}

// --- I1 ----------------------------------------------------------------------------------------------------------

interface Claim {
  readonly shard: number;
  readonly revision: number;
  readonly owner: string;
  readonly atMs: number;
}

/** Claims (owned records) per shard in revision order. */
function claimIndex(changes: readonly OwnershipChange[]): Map<number, Claim[]> {
  const index = new Map<number, Claim[]>();
  for (const change of changes) {
    if (change.bucket !== "shards" || change.shard?.state !== "owned") continue;
    const list = index.get(change.shard.shard) ?? [];
    list.push({ shard: change.shard.shard, revision: change.revision, owner: change.shard.owner, atMs: change.atMs });
    index.set(change.shard.shard, list);
  }
  for (const list of index.values()) list.sort((a, b) => a.revision - b.revision);
  return index;
}

function describeWrite(w: AuditWrite): string {
  const by = w.epoch ? `${w.epoch.member} epoch ${w.epoch.epoch}` : (w.instance ?? w.service ?? "?");
  return `${w.verb} ${w.resource}/${w.name ?? "?"} by ${by} (audit line ${w.index + 1})`;
}

function singleWriter(
  input: CheckInput,
  inScope: (ns: string | undefined) => boolean,
  claims: Map<number, Claim[]>,
): { result: InvariantResult; stale: AuditWrite[] } {
  const c = new Collector("I1");
  const stale: AuditWrite[] = [];
  // Per set: accepted writes in completion order with the running maximum epoch, to find "the newest epoch that had
  // completed a write before this one was received".
  const history = new Map<string, { completedUs: number; maxEpoch: number; member: string; write: AuditWrite }[]>();
  let overlaps = 0;
  const epochOwners = new Map<string, string>();
  for (const w of input.audit) {
    if (!w.epoch || !succeeded(w) || !inScope(w.namespace) || w.name === undefined) continue;
    const set = setNameOf(w.resource, w.name);
    if (set === undefined) continue;
    c.checked++;
    const key = `${w.namespace}/${set}`;
    const epoch = w.epoch.epoch;
    if (w.epoch.shard !== shardOf(w.namespace ?? "", set)) {
      c.fail(key, `${describeWrite(w)} names shard ${w.epoch.shard}, but the set is in shard ${shardOf(w.namespace ?? "", set)}`);
    }
    const owner = epochOwners.get(`${w.epoch.shard}/${epoch}`);
    if (owner !== undefined && owner !== w.epoch.member) {
      c.fail(key, `epoch ${epoch} of shard ${w.epoch.shard} was used by ${owner} and ${w.epoch.member}`);
    }
    epochOwners.set(`${w.epoch.shard}/${epoch}`, w.epoch.member);
    if (input.ownershipComplete) {
      const claim = claims.get(w.epoch.shard)?.find((cl) => cl.revision === epoch);
      if (!claim) c.fail(key, `${describeWrite(w)}: shard ${w.epoch.shard} was never claimed at revision ${epoch}`);
      else if (claim.owner !== w.epoch.member) c.fail(key, `${describeWrite(w)}: epoch ${epoch} was claimed by ${claim.owner}`);
      const newer = claims.get(w.epoch.shard)?.find((cl) => cl.revision > epoch && cl.atMs * 1000 < w.receivedUs);
      if (newer) stale.push(w);
    }
    const list = history.get(key) ?? [];
    // Newest epoch among writes that completed before this one was received (binary search on completion time).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid]?.completedUs ?? 0) < w.receivedUs) lo = mid + 1;
      else hi = mid;
    }
    const before = lo > 0 ? list[lo - 1] : undefined;
    if (before && before.maxEpoch > epoch) {
      c.fail(key, `${describeWrite(w)} was accepted after epoch ${before.maxEpoch} (${before.member}) had written: ${describeWrite(before.write)}`);
    } else if ((list.at(-1)?.maxEpoch ?? 0) > epoch) {
      overlaps++;
    }
    const last = list.at(-1);
    const newest = !last || epoch >= last.maxEpoch;
    list.push({
      completedUs: w.completedUs,
      maxEpoch: newest ? epoch : (last?.maxEpoch ?? epoch),
      member: newest ? w.epoch.member : (last?.member ?? w.epoch.member),
      write: newest ? w : (last?.write ?? w),
    });
    history.set(key, list);
  }
  if (overlaps > 0) c.notes.push(`${overlaps} older-epoch writes overlapped in time with a newer epoch's write (neither after the other)`);
  if (stale.length > 0) c.notes.push(`${stale.length} accepted writes carried an epoch older than the shard's newest claim`);
  return { result: c.result(), stale };
}

// --- I2 and the deletion half of I4 -----------------------------------------------------------------------------

interface World {
  readonly pods: Map<string, PodFacts>;
  readonly sets: Map<string, SetFacts>;
  readonly setsByUid: Map<string, SetFacts>;
  /** Every version of every set (by uid) with the time the recorder saw it: what a lagging controller may see. */
  readonly setVersions: Map<string, { facts: SetFacts; atMs: number }[]>;
  readonly revisions: Map<string, RevisionFacts>;
  /** Pod uids seen Running+Ready and not terminating. */
  readonly readySeen: Set<string>;
  readonly viewLagMs: number;
}

function newestRevision(world: World, setUid: string): string | undefined {
  let best: RevisionFacts | undefined;
  for (const revision of world.revisions.values()) {
    if (revision.ownerUid === setUid && (!best || revision.revision > best.revision)) best = revision;
  }
  return best?.name;
}

function scaledMaxUnavailable(value: number | string | undefined, replicas: number): number {
  if (value === undefined) return 1;
  if (typeof value === "number") return Math.max(1, Math.trunc(value));
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.max(1, Math.floor((Number(percent[1]) * replicas) / 100)) : 1;
}

/**
 * The versions of a set a controller may have acted on at `atMs`: the current one and those replaced within the
 * view lag (its cache trails the API by the watch → watcher → NATS → actor pipeline), newest first.
 */
function viewsOf(world: World, set: SetFacts, atMs: number): SetFacts[] {
  const versions = world.setVersions.get(set.uid) ?? [];
  const views: SetFacts[] = [];
  for (let i = versions.length - 1; i >= 0; i--) {
    const version = versions[i];
    if (!version) continue;
    views.push(version.facts);
    if (version.atMs < atMs - world.viewLagMs) break;
  }
  return views.length > 0 ? views : [set];
}

function ordering(timeline: readonly ObjectEvent[], viewLagMs: number): { i2: InvariantResult; i4deletes: Violation[] } {
  const c = new Collector("I2");
  const extraDeletes: Violation[] = [];
  const world: World = {
    pods: new Map(),
    sets: new Map(),
    setsByUid: new Map(),
    setVersions: new Map(),
    revisions: new Map(),
    readySeen: new Set(),
    viewLagMs,
  };
  let gaps = 0;
  for (const event of timeline) {
    const facts = event.facts;
    const key = `${facts.namespace}/${facts.name}`;
    if (event.synthetic) gaps++;
    switch (facts.kind) {
      case "StatefulSet":
        if (event.type === "DELETED") {
          world.sets.delete(key);
          world.setsByUid.delete(facts.uid);
        } else {
          world.sets.set(key, facts);
          world.setsByUid.set(facts.uid, facts);
          world.setVersions.set(facts.uid, [...(world.setVersions.get(facts.uid) ?? []), { facts, atMs: event.atMs }]);
        }
        break;
      case "ControllerRevision":
        if (event.type === "DELETED") world.revisions.delete(key);
        else world.revisions.set(key, facts);
        break;
      case "PersistentVolumeClaim":
        break;
      case "Pod": {
        const previous = world.pods.get(key);
        const samePod = previous?.uid === facts.uid ? previous : undefined;
        if (!event.synthetic) {
          if (event.type === "ADDED" && !samePod) checkCreate(world, facts, c);
          const startsDeleting = (event.type === "DELETED" || facts.deleting) && !samePod?.deleting;
          if (startsDeleting && (samePod || event.type !== "ADDED")) {
            checkDelete(world, { ...(samePod ?? facts), rv: event.rv }, event.atMs, c, extraDeletes);
          }
        }
        if (event.type === "DELETED") world.pods.delete(key);
        else world.pods.set(key, facts);
        if (facts.ready && !facts.deleting) world.readySeen.add(facts.uid);
        break;
      }
      default:
        break;
    }
  }
  if (gaps > 0) c.notes.push(`${gaps} events came from relists after watch gaps and were not judged`);
  return { i2: c.result(), i4deletes: extraDeletes };
}

function ownerSetOf(world: World, pod: PodFacts): SetFacts | undefined {
  if (pod.ownerUid === undefined) return undefined;
  return world.setsByUid.get(pod.ownerUid);
}

function checkCreate(world: World, pod: PodFacts, c: Collector): void {
  const set = ownerSetOf(world, pod);
  const { parent, ordinal } = parseParentAndOrdinal(pod.name);
  if (!set || parent !== set.name || ordinal < 0) return;
  c.checked++;
  if (set.podManagementPolicy !== "OrderedReady") return;
  for (let j = set.startOrdinal; j < ordinal; j++) {
    const found = world.pods.get(`${pod.namespace}/${set.name}-${j}`);
    const predecessor = found?.ownerUid === set.uid ? found : undefined;
    if (!predecessor) c.fail(`${pod.namespace}/${pod.name}`, `created at rv ${pod.rv} while ${set.name}-${j} did not exist (OrderedReady)`);
    else if (predecessor.deleting) c.fail(`${pod.namespace}/${pod.name}`, `created at rv ${pod.rv} while ${set.name}-${j} was terminating (OrderedReady)`);
    else if (!world.readySeen.has(predecessor.uid)) {
      c.fail(`${pod.namespace}/${pod.name}`, `created at rv ${pod.rv} before ${set.name}-${j} had been Running and Ready (OrderedReady)`);
    }
  }
}

function checkDelete(world: World, pod: PodFacts, atMs: number, c: Collector, extraDeletes: Violation[]): void {
  const set = ownerSetOf(world, pod);
  const { parent, ordinal } = parseParentAndOrdinal(pod.name);
  // Deletions of pods whose set is gone or going are the garbage collector's; failed pods are replaced.
  if (!set || set.deleting || parent !== set.name || ordinal < 0) return;
  if (pod.phase === "Failed" || pod.phase === "Succeeded") return;
  c.checked++;
  // Justified if the rules hold for any version of the set the controller may still have been looking at.
  let reported: { ordering: string[]; extra: string[] } | undefined;
  for (const view of viewsOf(world, set, atMs)) {
    const problems = deletionProblems(world, pod, ordinal, view);
    if (problems.ordering.length === 0 && problems.extra.length === 0) return;
    reported ??= problems;
  }
  const subject = `${pod.namespace}/${pod.name}`;
  for (const message of reported?.ordering ?? []) c.fail(subject, message);
  for (const message of reported?.extra ?? []) extraDeletes.push({ invariant: "I4", subject, message });
}

function deletionProblems(world: World, pod: PodFacts, ordinal: number, set: SetFacts): { ordering: string[]; extra: string[] } {
  const problems = { ordering: [] as string[], extra: [] as string[] };
  const end = set.startOrdinal + set.replicas;
  if (ordinal >= end || ordinal < set.startOrdinal) {
    if (set.podManagementPolicy !== "OrderedReady") return problems;
    const higher = [...world.pods.values()].filter(
      (p) => p.namespace === pod.namespace && p.ownerUid === set.uid && parseParentAndOrdinal(p.name).ordinal > ordinal,
    );
    if (higher.length > 0) {
      problems.ordering.push(`scale-down deleted it (rv ${pod.rv}) while higher ${higher.map((p) => p.name).join(", ")} still existed`);
    }
    return problems;
  }
  if (set.updateStrategy === "OnDelete") return problems;
  const newest = newestRevision(world, set.uid);
  if (newest === undefined || pod.revision === newest) {
    problems.extra.push(`deleted at rv ${pod.rv} although it already ran the newest revision ${newest ?? "(none known)"}`);
  }
  if (ordinal < set.partition) problems.ordering.push(`a rolling update deleted it (rv ${pod.rv}) below the partition ${set.partition}`);
  // Upstream 1.37 with Parallel (PR #137666, planner scenario 40): an old-revision pod that is already unavailable is
  // replaced first, whatever the ordinals above it; only available pods wait for their turn, highest first.
  if (set.podManagementPolicy === "Parallel" && !pod.ready) return problems;
  const strict = scaledMaxUnavailable(set.maxUnavailable, set.replicas) === 1;
  for (let j = ordinal + 1; j < end; j++) {
    const higher = world.pods.get(`${pod.namespace}/${set.name}-${j}`);
    if (!strict && (!higher || higher.deleting)) continue;
    const problem = !higher
      ? "did not exist"
      : higher.deleting
        ? "was terminating"
        : newest !== undefined && higher.revision !== newest
          ? `was still at revision ${higher.revision ?? "?"}, not ${newest}`
          : strict && !world.readySeen.has(higher.uid)
            ? "had not been Ready yet"
            : undefined;
    if (problem) problems.ordering.push(`a rolling update deleted it (rv ${pod.rv}) while ${set.name}-${j} ${problem} (highest ordinal first)`);
  }
  return problems;
}

// --- I3 ----------------------------------------------------------------------------------------------------------

function convergence(input: CheckInput, inScope: (ns: string | undefined) => boolean): InvariantResult {
  const c = new Collector("I3");
  if (!input.final) return c.result("no final API state given");
  for (const set of input.final.sets) {
    if (!inScope(set.namespace) || set.deleting) continue;
    c.checked++;
    const subject = `${set.namespace}/${set.name}`;
    const s = set.status;
    const problems: string[] = [];
    if (s.observedGeneration !== set.generation) problems.push(`observedGeneration ${s.observedGeneration ?? "-"} != generation ${set.generation}`);
    if (s.replicas !== set.replicas) problems.push(`status.replicas ${s.replicas ?? "-"} != ${set.replicas}`);
    if (s.readyReplicas !== set.replicas) problems.push(`readyReplicas ${s.readyReplicas ?? 0} != ${set.replicas}`);
    if (set.updateStrategy === "RollingUpdate") {
      const wantUpdated = Math.max(0, set.replicas - Math.max(0, set.partition - set.startOrdinal));
      if (set.partition === 0 && s.currentRevision !== s.updateRevision) {
        problems.push(`currentRevision ${s.currentRevision ?? "-"} != updateRevision ${s.updateRevision ?? "-"}`);
      }
      if ((s.updatedReplicas ?? 0) < wantUpdated) problems.push(`updatedReplicas ${s.updatedReplicas ?? 0} < ${wantUpdated}`);
    }
    const pods = input.final.pods.filter((p) => p.namespace === set.namespace && p.ownerUid === set.uid && !p.deleting);
    const ready = pods.filter((p) => p.ready);
    if (pods.length !== set.replicas || ready.length !== set.replicas) {
      problems.push(`${ready.length} Ready of ${pods.length} pods, want ${set.replicas}`);
    }
    if (problems.length > 0) c.fail(subject, problems.join("; "));
  }
  return c.result();
}

// --- I4 ----------------------------------------------------------------------------------------------------------

function duplicates(
  input: CheckInput,
  timeline: readonly ObjectEvent[],
  inScope: (ns: string | undefined) => boolean,
  extraDeletes: readonly Violation[],
): InvariantResult {
  const c = new Collector("I4");
  const services = new Set(input.services ?? STSFLEET_SERVICES);
  const creates = new Map<string, number>();
  let alreadyExists = 0;
  for (const w of input.audit) {
    if (w.verb !== "create" || !inScope(w.namespace) || w.service === undefined || !services.has(w.service)) continue;
    if (!["pods", "persistentvolumeclaims", "controllerrevisions"].includes(w.resource) || w.subresource) continue;
    if (w.reason === "AlreadyExists") alreadyExists++;
    if (!succeeded(w)) continue;
    const key = `${w.resource}:${w.namespace}/${w.name ?? ""}`;
    creates.set(key, (creates.get(key) ?? 0) + 1);
  }
  const uids = new Map<string, Set<string>>();
  const deletions = new Map<string, number>();
  const gapNamespaces = new Set<string>();
  const resourceOf = { Pod: "pods", PersistentVolumeClaim: "persistentvolumeclaims", ControllerRevision: "controllerrevisions" } as const;
  for (const event of timeline) {
    if (event.facts.kind === "StatefulSet") continue;
    const key = `${resourceOf[event.facts.kind]}:${event.facts.namespace}/${event.facts.name}`;
    if (event.synthetic) gapNamespaces.add(event.facts.namespace);
    const seen = uids.get(key) ?? new Set<string>();
    seen.add(event.facts.uid);
    uids.set(key, seen);
    if (event.type === "DELETED") deletions.set(key, (deletions.get(key) ?? 0) + 1);
  }
  for (const [key, count] of creates) {
    c.checked++;
    const allowed = 1 + (deletions.get(key) ?? 0);
    if (count > allowed) c.fail(key, `${count} successful creates, but it was deleted only ${allowed - 1} times`);
    const namespace = key.slice(key.indexOf(":") + 1, key.indexOf("/"));
    const incarnations = uids.get(key)?.size ?? 0;
    if (input.timelineComplete && !gapNamespaces.has(namespace) && count !== incarnations) {
      c.fail(key, `${count} successful creates, but the API showed ${incarnations} incarnations`);
    }
  }
  for (const violation of extraDeletes) {
    c.checked++;
    c.violations.push(violation);
  }
  if (alreadyExists > 0) c.notes.push(`${alreadyExists} creates answered AlreadyExists (allowed: a retried or concurrent create)`);
  return c.result();
}

// --- I5 ----------------------------------------------------------------------------------------------------------

function monotonicStatus(timeline: readonly ObjectEvent[]): InvariantResult {
  const c = new Collector("I5");
  const last = new Map<string, number>();
  for (const event of timeline) {
    if (event.facts.kind !== "StatefulSet" || event.type === "DELETED") continue;
    const observed = event.facts.status.observedGeneration;
    if (observed === undefined) continue;
    c.checked++;
    const before = last.get(event.facts.uid);
    if (before !== undefined && observed < before) {
      c.fail(`${event.facts.namespace}/${event.facts.name}`, `observedGeneration went from ${before} to ${observed} at rv ${event.rv}`);
    }
    // A value above the set's generation is not a controller's (ADR 0087): it is no floor for later writes.
    if (observed <= event.facts.generation) last.set(event.facts.uid, Math.max(before ?? 0, observed));
  }
  return c.result();
}

// --- I6 ----------------------------------------------------------------------------------------------------------

type Happening =
  | { readonly atMs: number; readonly order: number; readonly type: "kv"; readonly change: OwnershipChange }
  | { readonly atMs: number; readonly order: number; readonly type: "fault"; readonly fault: FaultRecord };

function coverage(input: CheckInput): { result: InvariantResult; stats: CoverageStats | undefined } {
  const c = new Collector("I6");
  const options = input.coverage;
  if (!options || !input.ownership) return { result: c.result("no ownership record or coverage window given"), stats: undefined };
  const happenings: Happening[] = [
    ...input.ownership.map((change, order): Happening => ({ atMs: change.atMs, order, type: "kv", change })),
    ...(input.faults ?? []).map((fault, order): Happening => ({ atMs: fault.atMs, order: 1e9 + order, type: "fault", fault })),
  ].sort((a, b) => a.atMs - b.atMs || a.order - b.order);

  const members = new Map<string, MemberRecord>();
  const shards = new Map<number, ShardRecord>();
  /** `member/incarnation` whose process cannot act (killed for good, or paused / cut off until resumed / healed). */
  const down = new Map<string, "killed" | "paused" | "cut">();
  let natsDownSinceMs: number | undefined;
  let natsDownMs = 0;
  const open = new Map<number, { fromMs: number; natsDownAtStartMs: number; cause: OwnerlessInterval["cause"] }>();
  const intervals: OwnerlessInterval[] = [];
  let claimCount = 0;
  let graceful = 0;
  let failovers = 0;

  const actingOwner = (record: ShardRecord | undefined): boolean => {
    if (!record || record.state !== "owned") return false;
    const member = members.get(record.owner);
    if (!member || member.incarnation !== record.incarnation || member.state === "dead") return false;
    return !down.has(`${record.owner}/${record.incarnation}`);
  };
  const causeOf = (record: ShardRecord | undefined): OwnerlessInterval["cause"] => {
    if (!record) return "unowned";
    if (record.state === "released") return "released";
    const member = members.get(record.owner);
    if (!member || member.incarnation !== record.incarnation || member.state === "dead") return "dead";
    return "down";
  };
  const natsDownTotal = (nowMs: number) => natsDownMs + (natsDownSinceMs !== undefined ? nowMs - natsDownSinceMs : 0);
  const update = (shard: number, nowMs: number) => {
    const acting = actingOwner(shards.get(shard));
    const current = open.get(shard);
    if (!acting && !current) open.set(shard, { fromMs: nowMs, natsDownAtStartMs: natsDownTotal(nowMs), cause: causeOf(shards.get(shard)) });
    if (acting && current) {
      open.delete(shard);
      close(shard, current, nowMs);
    }
  };
  const close = (shard: number, interval: { fromMs: number; natsDownAtStartMs: number; cause: OwnerlessInterval["cause"] }, nowMs: number) => {
    const fromMs = Math.max(interval.fromMs, options.fromMs);
    const toMs = Math.min(nowMs, options.toMs);
    if (toMs <= fromMs) return;
    const durationMs = Math.max(0, toMs - fromMs - (natsDownTotal(nowMs) - interval.natsDownAtStartMs));
    intervals.push({ shard, fromMs, toMs, durationMs, cause: interval.cause });
  };

  for (const shard of ALL_SHARDS) open.set(shard, { fromMs: Number.NEGATIVE_INFINITY, natsDownAtStartMs: 0, cause: "unowned" });
  for (const happening of happenings) {
    const nowMs = happening.atMs;
    if (happening.type === "fault") {
      const { kind, target } = happening.fault;
      const member = members.get(target);
      const incarnationKey = member ? `${target}/${member.incarnation}` : undefined;
      if (kind === "nats-down" && natsDownSinceMs === undefined) natsDownSinceMs = nowMs;
      if (kind === "nats-up" && natsDownSinceMs !== undefined) {
        natsDownMs += nowMs - natsDownSinceMs;
        natsDownSinceMs = undefined;
      }
      if (incarnationKey !== undefined) {
        if (kind === "kill") down.set(incarnationKey, "killed");
        if (kind === "pause") down.set(incarnationKey, "paused");
        if (kind === "cut") down.set(incarnationKey, "cut");
        if ((kind === "resume" && down.get(incarnationKey) === "paused") || (kind === "heal" && down.get(incarnationKey) === "cut")) {
          down.delete(incarnationKey);
        }
      }
      for (const shard of ALL_SHARDS) update(shard, nowMs);
      continue;
    }
    const change = happening.change;
    if (change.bucket === "members") {
      let name: string;
      try {
        name = memberKeys.parse(change.key);
      } catch {
        continue;
      }
      if (change.member) members.set(name, change.member);
      else members.delete(name);
      for (const shard of ALL_SHARDS) update(shard, nowMs);
    } else {
      let shard: number;
      try {
        shard = shardKeys.parse(change.key);
      } catch {
        continue;
      }
      const before = shards.get(shard);
      if (change.shard) shards.set(shard, change.shard);
      else shards.delete(shard);
      if (change.shard?.state === "owned" && (before?.owner !== change.shard.owner || before.incarnation !== change.shard.incarnation)) {
        if (nowMs >= options.fromMs && nowMs <= options.toMs) {
          claimCount++;
          if (before?.state === "released") graceful++;
          else if (before) failovers++;
        }
      }
      update(shard, nowMs);
    }
  }
  for (const [shard, interval] of open) close(shard, interval, options.toMs);

  for (const interval of intervals) {
    c.checked++;
    const bound = interval.cause === "released" ? options.gracefulBoundMs : options.failoverBoundMs;
    if (interval.durationMs > bound) {
      c.fail(
        `shard ${interval.shard}`,
        `no acting owner for ${Math.round(interval.durationMs)} ms (${interval.cause}, from ${new Date(interval.fromMs).toISOString()}), bound ${bound} ms`,
      );
    }
  }
  if (c.checked === 0) c.checked = ALL_SHARDS.length;
  const maxOwnerlessMs = intervals.reduce((max, i) => Math.max(max, i.durationMs), 0);
  c.notes.push(`max ownerless ${Math.round(maxOwnerlessMs)} ms over ${intervals.length} ownerless stretches; ${claimCount} claims (${graceful} graceful, ${failovers} failovers)`);
  return { result: c.result(), stats: { intervals, maxOwnerlessMs, claims: claimCount, gracefulHandoffs: graceful, failovers } };
}

// --- report --------------------------------------------------------------------------------------------------------

function formatReport(results: readonly InvariantResult[], stats: CoverageStats | undefined, stale: readonly AuditWrite[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const verdict = r.skipped !== undefined ? `skipped (${r.skipped})` : r.violations.length === 0 ? "ok" : `${r.violations.length} VIOLATIONS`;
    lines.push(`${r.id} ${r.name.padEnd(46)} ${String(r.checked).padStart(6)} checked  ${verdict}`);
    for (const v of r.violations.slice(0, MAX_LISTED)) lines.push(`     ${v.subject}: ${v.message}`);
    if (r.violations.length > MAX_LISTED) lines.push(`     … and ${r.violations.length - MAX_LISTED} more`);
    for (const note of r.notes) lines.push(`     note: ${note}`);
  }
  if (stats) lines.push(`coverage: max ownerless ${Math.round(stats.maxOwnerlessMs)} ms, ${stats.gracefulHandoffs} graceful handoffs, ${stats.failovers} failovers`);
  if (stale.length > 0) lines.push(`stale-epoch writes: ${stale.slice(0, 5).map(describeWrite).join("; ")}`);
  return lines.join("\n");
}
