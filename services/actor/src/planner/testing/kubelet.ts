// A simulated kubelet over FakeCluster: moves each pod one state per tick (Pending -> Running -> Ready), finishes
// terminations, and obeys per-pod policies so tests can hold pods unready, fail them, or keep them Pending.

import type { Pod, PodCondition } from "../types.ts";
import type { FakeCluster } from "./cluster.ts";

export interface PodPolicy {
  /** False keeps the pod Running but not Ready (a failing readiness probe). Default true. */
  ready?: boolean;
  /** Moves a running pod to this terminal phase on the next tick. */
  phase?: "Failed" | "Succeeded";
  /** Ticks the pod stays Pending after creation before it may run (default 0). */
  startDelayTicks?: number;
  /** Ticks a terminating pod lingers before the kubelet reports it gone (default 0). */
  terminationTicks?: number;
}

interface PodProgress {
  uid: string;
  ticksInState: number;
}

function readyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === "Ready");
}

function claimNamesOf(pod: Pod): string[] {
  const names: string[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    const claim = volume.persistentVolumeClaim?.claimName;
    if (claim) names.push(claim);
  }
  return names;
}

/** A fixed policy, or one computed from the pod (e.g. "pods with image X never become Ready"). */
export type DefaultPolicy = PodPolicy | ((pod: Pod) => PodPolicy);

export class SimulatedKubelet {
  private readonly cluster: FakeCluster;
  private readonly policies = new Map<string, PodPolicy>();
  private defaultPolicy: DefaultPolicy;
  private readonly progress = new Map<string, PodProgress>();

  constructor(cluster: FakeCluster, defaultPolicy: DefaultPolicy = {}) {
    this.cluster = cluster;
    this.defaultPolicy = defaultPolicy;
  }

  /** Policy for one pod by name (survives the pod's recreation); merged over the default. */
  setPolicy(name: string, policy: PodPolicy): void {
    this.policies.set(name, { ...this.policies.get(name), ...policy });
  }

  clearPolicy(name: string): void {
    this.policies.delete(name);
  }

  setDefaultPolicy(policy: DefaultPolicy): void {
    this.defaultPolicy = policy;
  }

  private policyFor(pod: Pod): PodPolicy {
    const base = typeof this.defaultPolicy === "function" ? this.defaultPolicy(pod) : this.defaultPolicy;
    return { ...base, ...this.policies.get(pod.metadata?.name ?? "") };
  }

  /** One kubelet pass over every pod; returns whether anything changed or is still on a timer. */
  tick(): boolean {
    let busy = false;
    for (const pod of this.cluster.list<Pod>("Pod")) {
      if (this.step(pod) !== "idle") busy = true;
    }
    this.cluster.collectGarbage();
    return busy;
  }

  /** `changed`: a state moved; `waiting`: a delay (start or termination ticks) is still running; `idle`: neither. */
  private step(pod: Pod): "changed" | "waiting" | "idle" {
    const namespace = pod.metadata?.namespace ?? "";
    const name = pod.metadata?.name ?? "";
    const uid = pod.metadata?.uid ?? "";
    const policy = this.policyFor(pod);
    const known = this.progress.get(`${namespace}/${name}`);
    const progress: PodProgress = known?.uid === uid ? known : { uid, ticksInState: 0 };
    this.progress.set(`${namespace}/${name}`, progress);
    progress.ticksInState++;
    const phase = pod.status?.phase ?? "";

    const transition = (next: (p: Pod) => void): "changed" => {
      this.cluster.mutate<Pod>("Pod", namespace, name, next);
      progress.ticksInState = 0;
      return "changed";
    };
    const now = this.cluster.timestamp();
    if (pod.metadata?.deletionTimestamp) {
      // Containers are stopped first: a terminating pod held by a finalizer is no longer Ready.
      if (readyCondition(pod)?.status === "True") {
        return transition((p) => {
          p.status = { phase, conditions: [{ type: "Ready", status: "False", lastTransitionTime: now }] };
        });
      }
      if (progress.ticksInState <= (policy.terminationTicks ?? 0) && phase !== "Failed" && phase !== "Succeeded") return "waiting";
      return this.cluster.finishPodTermination(namespace, name) ? "changed" : "idle";
    }
    switch (phase) {
      case "Pending": {
        if (progress.ticksInState <= (policy.startDelayTicks ?? 0)) return "waiting";
        // Like the scheduler and kubelet: a pod whose claims do not exist cannot start.
        const claims = claimNamesOf(pod);
        if (claims.some((claim) => !this.cluster.get("PersistentVolumeClaim", namespace, claim))) return "idle";
        return transition((p) => {
          p.status = { phase: "Running", conditions: [{ type: "Ready", status: "False", lastTransitionTime: now }] };
        });
      }
      case "Running": {
        if (policy.phase) {
          const terminal = policy.phase;
          return transition((p) => {
            p.status = { phase: terminal, conditions: [{ type: "Ready", status: "False", lastTransitionTime: now }] };
          });
        }
        const wantReady = policy.ready ?? true;
        const isReady = readyCondition(pod)?.status === "True";
        if (wantReady === isReady) return "idle";
        return transition((p) => {
          p.status = { phase: "Running", conditions: [{ type: "Ready", status: wantReady ? "True" : "False", lastTransitionTime: now }] };
        });
      }
      default:
        return "idle";
    }
  }
}
