// What the benchmark's simulator process records besides the audit log: the moment each pod turns Ready and the
// moment each StatefulSet's status reaches (or leaves) "converged". Both come from the simulator's own store
// events, so they carry the simulator's microsecond clock, the same clock as the audit log's timestamps: the
// simulated kubelet's status writes are internal and never reach the audit log, and a pod condition's
// lastTransitionTime has only second precision.

/** One line of the probe log. `t` is microseconds since the epoch (the simulator's clock). */
export type ProbeRecord =
  | { readonly k: "ready"; readonly t: number; readonly ns: string; readonly name: string; readonly uid: string }
  | { readonly k: "set"; readonly t: number; readonly ns: string; readonly name: string; readonly gen: number; readonly done: boolean };

/** The kubelet writes `{type, status, ...}` condition objects, so a Ready pod's JSON always contains this. */
const READY_MARKER = '"type":"Ready","status":"True"';

export function isReadyJson(json: string | undefined): boolean {
  return json !== undefined && json.includes(READY_MARKER);
}

interface SetJson {
  metadata?: { generation?: number; name?: string; namespace?: string };
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

/**
 * The benchmark's end condition for a set: every replica Ready and updated at the current generation, and the
 * rollout finished (current revision = update revision).
 */
export function isConverged(set: SetJson): boolean {
  const wanted = set.spec?.replicas ?? 1;
  const status = set.status ?? {};
  return (
    status.observedGeneration !== undefined &&
    status.observedGeneration === set.metadata?.generation &&
    (status.replicas ?? 0) === wanted &&
    (status.readyReplicas ?? 0) === wanted &&
    (status.updatedReplicas ?? 0) === wanted &&
    (status.currentRevision ?? "") !== "" &&
    status.currentRevision === status.updateRevision
  );
}

/** Keeps the last recorded state per set so only changes are logged. */
export class SetProbe {
  private readonly last = new Map<string, string>();

  /** A record when the set's (generation, converged) pair changed, else undefined. */
  observe(uid: string, json: string, t: number): ProbeRecord | undefined {
    let set: SetJson;
    try {
      set = JSON.parse(json) as SetJson;
    } catch {
      return undefined;
    }
    const gen = set.metadata?.generation ?? 0;
    const done = isConverged(set);
    const state = `${gen}/${done}`;
    if (this.last.get(uid) === state) return undefined;
    this.last.set(uid, state);
    return { k: "set", t, ns: set.metadata?.namespace ?? "", name: set.metadata?.name ?? "", gen, done };
  }

  forget(uid: string): void {
    this.last.delete(uid);
  }
}

export function parseProbeLine(line: string): ProbeRecord | undefined {
  try {
    const value = JSON.parse(line) as Partial<ProbeRecord>;
    if (value.k === "ready" || value.k === "set") return value as ProbeRecord;
  } catch {
    // a torn line is read again with the rest of it
  }
  return undefined;
}

/** Wall clock in microseconds, computed like the simulator's audit timestamps. */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}
