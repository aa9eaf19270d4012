// The floor: what the API server and the simulated kubelet allow when nothing but the unavoidable stands between a
// StatefulSet and its end state. For every set it sees (or every new generation of one), it issues only the writes
// the result needs — each pod's claims, then the pod, then one status write once every pod is Ready — with no limit
// on concurrency across sets and no controller work in between: no revision objects, no Events, no re-planning.
// It keeps the ordering the set's policy promises, because the controllers must keep it too: Parallel creates all
// pods at once; OrderedReady creates pod N+1 the moment its watch shows pod N Ready; a rolling update replaces one
// pod at a time from the highest ordinal, waiting for the old pod to be gone and the new one Ready.
import type { ObjectEnvelope } from "#protocol";
import { KubeApiError, RESOURCES } from "../../../services/common/src/kube.ts";
import type { KubeClient } from "../../../services/common/src/kube.ts";
import type { Pod, StatefulSet } from "../../../services/actor/src/planner/index.ts";
import { synthesize } from "./synthesize.ts";

interface PodState {
  readonly uid: string;
  readonly ready: boolean;
  readonly terminating: boolean;
  readonly revision: string | undefined;
}

function podState(pod: Pod): PodState {
  const conditions = pod.status?.conditions ?? [];
  return {
    uid: pod.metadata?.uid ?? "",
    ready: conditions.some((c) => c.type === "Ready" && c.status === "True"),
    terminating: Boolean(pod.metadata?.deletionTimestamp),
    revision: pod.metadata?.labels?.["controller-revision-hash"],
  };
}

type Waiter = { readonly test: (state: PodState | undefined) => boolean; readonly resolve: () => void };

export interface FloorStats {
  sets: number;
  failures: number;
}

export class Floor {
  private readonly kube: KubeClient;
  private readonly pods = new Map<string, PodState>();
  private readonly waiters = new Map<string, Waiter[]>();
  /** The generation each set (by uid) was last handled at. */
  private readonly handled = new Map<string, number>();
  private readonly onError: (error: unknown) => void;
  readonly stats: FloorStats = { sets: 0, failures: 0 };

  constructor(kube: KubeClient, onError: (error: unknown) => void) {
    this.kube = kube;
    this.onError = onError;
  }

  onChange(envelope: ObjectEnvelope): void {
    const key = `${envelope.namespace}/${envelope.name}`;
    if (envelope.kind === "Pod") {
      if (envelope.type === "object.delete") this.pods.delete(key);
      else this.pods.set(key, podState(envelope.object));
      const state = this.pods.get(key);
      const waiting = this.waiters.get(key);
      if (!waiting) return;
      const still = waiting.filter((waiter) => {
        if (!waiter.test(state)) return true;
        waiter.resolve();
        return false;
      });
      if (still.length > 0) this.waiters.set(key, still);
      else this.waiters.delete(key);
      return;
    }
    if (envelope.kind !== "StatefulSet" || envelope.type !== "object.put") return;
    const set = envelope.object as StatefulSet;
    const generation = set.metadata?.generation ?? 0;
    if ((this.handled.get(envelope.uid) ?? 0) >= generation) return;
    this.handled.set(envelope.uid, generation);
    this.stats.sets += 1;
    this.reconcile(set).catch((error: unknown) => {
      this.stats.failures += 1;
      this.onError(error);
    });
  }

  private waitPod(key: string, test: (state: PodState | undefined) => boolean): Promise<void> {
    if (test(this.pods.get(key))) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(key, [...(this.waiters.get(key) ?? []), { test, resolve }]));
  }

  private async createPod(namespace: string, claims: readonly unknown[], pod: Pod): Promise<void> {
    await Promise.all(
      claims.map((claim) =>
        this.kube.create({ ...RESOURCES.persistentvolumeclaims, namespace }, claim).catch((error: unknown) => {
          // A claim kept from an earlier generation is exactly what the pod needs.
          if (!(error instanceof KubeApiError && error.isAlreadyExists)) throw error;
        }),
      ),
    );
    await this.kube.create({ ...RESOURCES.pods, namespace }, pod);
  }

  private async reconcile(set: StatefulSet): Promise<void> {
    const namespace = set.metadata?.namespace ?? "";
    const name = set.metadata?.name ?? "";
    const bodies = synthesize(set, Date.now());
    const ordinals = [...bodies.pods.keys()].sort((a, b) => a - b);
    const keyOf = (ordinal: number) => `${namespace}/${bodies.pods.get(ordinal)?.pod.metadata?.name ?? ""}`;
    const ready = (state: PodState | undefined) => state !== undefined && state.ready && !state.terminating && state.revision === bodies.revision;
    const bring = async (ordinal: number) => {
      const entry = bodies.pods.get(ordinal);
      if (!entry) return;
      const key = keyOf(ordinal);
      const current = this.pods.get(key);
      if (current?.revision === bodies.revision) {
        await this.waitPod(key, ready);
        return;
      }
      if (current) {
        await this.kube
          .delete({ ...RESOURCES.pods, namespace, name: entry.pod.metadata?.name }, { preconditions: { uid: current.uid } })
          .catch((error: unknown) => {
            if (!(error instanceof KubeApiError && error.isNotFound)) throw error;
          });
        await this.waitPod(key, (state) => state === undefined);
      }
      await this.createPod(namespace, entry.claims, entry.pod);
      await this.waitPod(key, ready);
    };
    const existing = ordinals.some((ordinal) => this.pods.has(keyOf(ordinal)));
    if (existing) {
      // Rolling update: one pod at a time, highest ordinal first (maxUnavailable 1).
      for (const ordinal of [...ordinals].reverse()) await bring(ordinal);
    } else if (set.spec?.podManagementPolicy === "Parallel") {
      await Promise.all(ordinals.map(bring));
    } else {
      for (const ordinal of ordinals) await bring(ordinal);
    }
    await this.kube.patch({ ...RESOURCES.statefulsets, namespace, name, subresource: "status" }, { status: bodies.status }, "merge");
  }
}
