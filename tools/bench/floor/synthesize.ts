// The floor's bodies come from the planner, so the floor creates exactly the objects the controllers create (the
// same labels, owner references, hostname, claims) and writes the status they would end with. It plans against an
// imagined cluster where every write succeeds at once and every pod is Ready immediately, until the planner has
// nothing left to create; no API call is involved.
import { DEFAULT_PLAN_OPTIONS, plan } from "../../../services/actor/src/planner/index.ts";
import type {
  ControllerRevision,
  PersistentVolumeClaim,
  Pod,
  Snapshot,
  StatefulSet,
  StatefulSetStatus,
} from "../../../services/actor/src/planner/index.ts";

export interface FloorBodies {
  readonly revision: string;
  /** By ordinal: the claims to create before the pod, then the pod. */
  readonly pods: ReadonlyMap<number, { readonly claims: readonly PersistentVolumeClaim[]; readonly pod: Pod }>;
  /** The status the controllers would write once every pod is Ready at this generation. */
  readonly status: StatefulSetStatus;
}

export class SynthesisError extends Error {
  override readonly name = "SynthesisError";
  constructor(message: string) {
    super(message);
  }
}

function readyCopy(pod: Pod, serial: number, nowIso: string): Pod {
  return {
    ...pod,
    metadata: { ...pod.metadata, uid: `floor-${serial}`, resourceVersion: String(serial), creationTimestamp: nowIso },
    status: {
      phase: "Running",
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: nowIso }],
    },
  };
}

export function synthesize(set: StatefulSet, nowMs: number): FloorBodies {
  const nowIso = `${new Date(nowMs).toISOString().slice(0, 19)}Z`;
  const snapshot: Snapshot = { set: { ...set, status: {} }, pods: [], claims: [], revisions: [] };
  const pods = new Map<number, { claims: PersistentVolumeClaim[]; pod: Pod }>();
  const pendingClaims = new Map<string, PersistentVolumeClaim[]>();
  const replicas = set.spec?.replicas ?? 1;
  let serial = 0;
  // Each plan creates at least one pod, so replicas + a few rounds always suffice.
  for (let round = 0; round < replicas + 4; round++) {
    const result = plan(snapshot, nowMs, DEFAULT_PLAN_OPTIONS);
    if (result.syncError !== null) throw new SynthesisError(result.syncError);
    let created = 0;
    for (const action of result.steps.flatMap((step) => step.actions)) {
      if (action.type === "createRevision") {
        const revision: ControllerRevision = {
          ...action.object,
          metadata: { ...action.object.metadata, uid: `floor-rev-${++serial}`, resourceVersion: String(serial), creationTimestamp: nowIso },
        };
        snapshot.revisions = [...snapshot.revisions, revision];
        created++;
      } else if (action.type === "createClaim") {
        pendingClaims.set(action.podName, [...(pendingClaims.get(action.podName) ?? []), action.object]);
        snapshot.claims = [
          ...snapshot.claims,
          { ...action.object, metadata: { ...action.object.metadata, uid: `floor-${++serial}`, resourceVersion: String(serial) } },
        ];
      } else if (action.type === "createPod") {
        pods.set(action.ordinal, { claims: pendingClaims.get(action.name) ?? [], pod: action.object });
        snapshot.pods = [...snapshot.pods, readyCopy(action.object, ++serial, nowIso)];
        created++;
      }
    }
    if (created === 0) {
      if (pods.size !== replicas) throw new SynthesisError(`the planner stopped at ${pods.size} of ${replicas} pods`);
      return { revision: result.revisions.update, pods, status: result.status.value };
    }
  }
  throw new SynthesisError(`the planner kept creating objects after ${replicas + 4} rounds`);
}
