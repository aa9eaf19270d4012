// Ownership (upstream controller_ref_manager.go ClaimObject/ClaimPods and history AdoptControllerRevision):
// which candidate pods the set keeps, adopts or releases, and the patches that do it.

import { setControllerRef } from "./pods.ts";
import { selectorMatches } from "./selector.ts";
import type { SetView } from "./spec.ts";
import type { PodView } from "./pods.ts";
import type { AdoptPodAction, AdoptRevisionAction, JsonObject, OwnerReference, ReleasePodAction } from "./types.ts";
import type { RevisionView } from "./revisions.ts";
import { controllerOf, obj } from "./util.ts";

export interface PodClaims {
  /** Pods the set works with this turn: owned and matching, plus those it adopts. */
  readonly claimed: PodView[];
  readonly adopt: AdoptPodAction[];
  readonly release: ReleasePodAction[];
}

function adoption(view: SetView, uid: string): { ownerReference: OwnerReference; patch: JsonObject } {
  const ownerReference = setControllerRef(view);
  return { ownerReference, patch: { metadata: { ownerReferences: [{ ...ownerReference }], uid } } };
}

/** Upstream `ClaimPods` with the StatefulSet's extra filter `isMemberOf` (the pod name's parent is the set). */
export function claimPods(view: SetView, pods: readonly PodView[]): PodClaims {
  const claimed: PodView[] = [];
  const adopt: AdoptPodAction[] = [];
  const release: ReleasePodAction[] = [];
  for (const pod of pods) {
    const meta = obj(pod.object.metadata);
    if (!meta || pod.name === "" || meta.namespace !== view.namespace) continue;
    const { name, uid } = pod;
    const matches = pod.parent === view.name && selectorMatches(view.selector, pod.labels);
    const controller = controllerOf(meta.ownerReferences);
    if (controller) {
      if (controller.uid !== view.uid) continue;
      if (matches) {
        claimed.push(pod);
      } else if (!view.deleting) {
        release.push({
          type: "releasePod",
          name,
          uid,
          ownerUid: view.uid,
          patch: { metadata: { ownerReferences: [{ $patch: "delete", uid: view.uid }], uid } },
        });
      }
      continue;
    }
    if (view.deleting || !matches || pod.terminating) continue;
    adopt.push({ type: "adoptPod", name, uid, ...adoption(view, uid) });
    claimed.push(pod);
  }
  return { claimed, adopt, release };
}

/** Upstream `adoptOrphanRevisions` (skipped while the set is being deleted; see the quirks ADR). */
export function adoptRevisions(view: SetView, history: readonly RevisionView[]): AdoptRevisionAction[] {
  if (view.deleting) return [];
  return history
    .filter((r) => r.controller === undefined)
    .map((r) => ({ type: "adoptRevision", name: r.name, uid: r.uid, ...adoption(view, r.uid) }));
}
