// Builders for the pod and claim actions, with the Events upstream's StatefulPodControl records around each call
// (recordPodEvent / recordClaimEvent message formats).

import type { ClaimRefUpdate } from "./claims.ts";
import type { PodView } from "./pods.ts";
import type { SetView } from "./spec.ts";
import type {
  ActionEvents,
  CreateClaimAction,
  CreatePodAction,
  DeletePodAction,
  DeleteReason,
  EventSpec,
  FailureEventSpec,
  PersistentVolumeClaim,
  Pod,
  PodRepair,
  RecordEventAction,
  UpdateClaimOwnerRefsAction,
  UpdatePodAction,
} from "./types.ts";
import { deepCopy, obj } from "./util.ts";

type Verb = "create" | "update" | "delete";
const TITLE: Record<Verb, string> = { create: "Create", update: "Update", delete: "Delete" };

export function podSuccessEvent(verb: Verb, pod: string, set: string): EventSpec {
  return {
    type: "Normal",
    reason: `Successful${TITLE[verb]}`,
    message: `${verb} Pod ${pod} in StatefulSet ${set} successful`,
    action: TITLE[verb],
  };
}

export function podFailureEvent(verb: Verb, pod: string, set: string, suppressOnAlreadyExists = false): FailureEventSpec {
  const event: FailureEventSpec = {
    type: "Warning",
    reason: `Failed${TITLE[verb]}`,
    messagePrefix: `${verb} Pod ${pod} in StatefulSet ${set} failed error: `,
    action: TITLE[verb],
  };
  return suppressOnAlreadyExists ? { ...event, suppressOn: ["AlreadyExists"] } : event;
}

/** Upstream's aggregate error text: one message alone, several in brackets. */
export function aggregateMessage(messages: readonly string[]): string {
  return messages.length === 1 ? (messages[0] ?? "") : `[${messages.join(", ")}]`;
}

export function recordEvent(event: EventSpec): RecordEventAction {
  return { type: "recordEvent", event };
}

/** A FailedCreate/FailedUpdate decided without an API call (a claim being deleted). */
export function podFailureNow(verb: Verb, pod: string, set: string, error: string): RecordEventAction {
  const spec = podFailureEvent(verb, pod, set);
  return recordEvent({ type: spec.type, reason: spec.reason, message: spec.messagePrefix + error, action: spec.action });
}

/**
 * `podVerb` names the pod operation that fails with the claim (upstream records FailedCreate/FailedUpdate for the
 * pod when its claims cannot be created); null when the claim is created on its own (a Pending pod's claim).
 */
export function createClaimAction(
  view: SetView,
  claim: { name: string; object: PersistentVolumeClaim },
  pod: PodView,
  podVerb: "create" | "update" | null,
): CreateClaimAction {
  const onFailure: FailureEventSpec[] = [
    {
      type: "Warning",
      reason: "FailedCreate",
      messagePrefix: `create Claim ${claim.name} for Pod ${pod.name} in StatefulSet ${view.name} failed error: `,
      action: "Create",
      suppressOn: ["AlreadyExists"],
    },
  ];
  if (podVerb) onFailure.push(podFailureEvent(podVerb, pod.name, view.name));
  return {
    type: "createClaim",
    name: claim.name,
    podName: pod.name,
    ordinal: pod.ordinal,
    object: claim.object,
    events: {
      onSuccess: [
        {
          type: "Normal",
          reason: "SuccessfulCreate",
          message: `create Claim ${claim.name} Pod ${pod.name} in StatefulSet ${view.name} success`,
          action: "Create",
        },
      ],
      onFailure,
    },
  };
}

export function claimRefAction(view: SetView, update: ClaimRefUpdate, pod: PodView): UpdateClaimOwnerRefsAction {
  const object = deepCopy(update.claim.object);
  (object.metadata = obj(object.metadata) ?? {}).ownerReferences = update.ownerReferences;
  return {
    type: "updateClaimOwnerRefs",
    name: update.claim.name,
    podName: pod.name,
    preconditions: { uid: update.claim.uid, resourceVersion: update.claim.resourceVersion },
    ownerReferences: update.ownerReferences,
    object,
    events: { onSuccess: [], onFailure: [podFailureEvent("update", pod.name, view.name)] },
  };
}

function podEvents(verb: Verb, pod: PodView, view: SetView, suppressOnAlreadyExists = false): ActionEvents {
  return {
    onSuccess: [podSuccessEvent(verb, pod.name, view.name)],
    onFailure: [podFailureEvent(verb, pod.name, view.name, suppressOnAlreadyExists)],
  };
}

export function createPodAction(view: SetView, pod: PodView): CreatePodAction {
  return {
    type: "createPod",
    name: pod.name,
    ordinal: pod.ordinal,
    revisionName: pod.revision,
    object: pod.object,
    // Upstream sinks AlreadyExists without an event: the cache was behind.
    events: podEvents("create", pod, view, true),
  };
}

export function deletePodAction(view: SetView, pod: PodView, reason: DeleteReason, ignoreNotFound: boolean): DeletePodAction {
  return {
    type: "deletePod",
    name: pod.name,
    ordinal: pod.ordinal,
    reason,
    preconditions: { uid: pod.uid, resourceVersion: pod.resourceVersion },
    ignoreNotFound,
    events: podEvents("delete", pod, view),
  };
}

export function updatePodAction(view: SetView, pod: PodView, object: Pod, repairs: PodRepair[]): UpdatePodAction {
  return {
    type: "updatePod",
    name: pod.name,
    ordinal: pod.ordinal,
    preconditions: { uid: pod.uid, resourceVersion: pod.resourceVersion },
    repairs,
    object,
    events: podEvents("update", pod, view),
  };
}
