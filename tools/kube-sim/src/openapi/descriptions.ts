// Field documentation for the OpenAPI documents (what `kubectl explain` prints), keyed by definition name
// and field. client-node's models carry no doc comments at run time (ADR 0021), so the text is written here, in
// this project's words, from the API's behaviour: meaning, type, default, allowed values and the release a field
// became generally available where that matters. This file has the StatefulSet tree and ControllerRevision;
// descriptions-core.ts the other served kinds. Add other kinds as further entries.
import { CORE_DESCRIPTIONS } from "./descriptions-core.ts";

export interface FieldDoc {
  readonly description: string;
  /** Allowed values, published as the schema's `enum` (only where upstream's type is an enum too). */
  readonly enum?: readonly string[];
}

export interface DefinitionDoc {
  /** The type's own description; `kubectl explain` prints it after the description of a field of this type. */
  readonly description: string;
  readonly fields: Readonly<Record<string, string | FieldDoc>>;
}

const API_VERSION = "The group and version of the schema this object is written in, `group/version` (just `v1` for the core group). The server converts versions it knows and rejects the others.";
const KIND = "The type of the object in CamelCase. It follows from the endpoint a request is sent to; the server always sets it on what it returns.";
const OBJECT_METADATA = "Standard object metadata: name, namespace, labels, annotations, owner references and finalizers, plus the fields the server maintains (uid, resourceVersion, generation, creationTimestamp, deletionTimestamp).";
const LIST_METADATA = "Standard list metadata: the resourceVersion the list was read at, and the continue token and remaining item count of a paginated list.";

const CONDITION_STATUS = "Whether the condition holds: `True`, `False` or `Unknown`.";

const APPS_DESCRIPTIONS: Readonly<Record<string, DefinitionDoc>> = {
  "io.k8s.api.apps.v1.StatefulSet": {
    description:
      "A StatefulSet runs a set of pods that keep a stable identity across restarts and rescheduling: each pod is named after the set and its ordinal (`<name>-<ordinal>`), gets a stable DNS name through the governing Service, and keeps its own PersistentVolumeClaims made from the volume claim templates. Unless the pod management policy says otherwise, pods are created, updated and removed one at a time in ordinal order.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "The desired state: the number of replicas, the pod template, the volume claim templates, and how pods are created and rolled out.",
      status: "The state of the set as its controller last observed it, written through the status subresource. It may trail the spec: compare status.observedGeneration with metadata.generation.",
    },
  },
  "io.k8s.api.apps.v1.StatefulSetList": {
    description: "A list of StatefulSets.",
    fields: { apiVersion: API_VERSION, kind: KIND, metadata: LIST_METADATA, items: "The StatefulSets in the list." },
  },
  "io.k8s.api.apps.v1.StatefulSetSpec": {
    description: "The desired state of a StatefulSet.",
    fields: {
      replicas:
        "How many pods the set should run (int32, not negative). Defaults to 1. Scaling up adds the next ordinals; scaling down removes the highest ordinals first. Also set through the scale subresource (`kubectl scale`).",
      selector: "A label query over pods that must match the labels of the pod template; it decides which pods belong to the set. Required, and fixed once the set exists.",
      template:
        "The pod template every replica is made from. Each pod is named `<statefulset name>-<ordinal>` and labelled with its name and ordinal. The template's restartPolicy must be `Always` (the default). Changing the template records a new ControllerRevision and starts an update as updateStrategy says.",
      volumeClaimTemplates:
        "PersistentVolumeClaims to create for every pod: one claim per template and pod, named `<template name>-<statefulset name>-<ordinal>`, mounted where a container's volumeMount uses the template's name (a template wins over a pod volume of the same name). The claims outlive their pods; see persistentVolumeClaimRetentionPolicy. Fixed once the set exists.",
      serviceName:
        "The name of the headless Service that governs the set. Pods get DNS names of the form `<pod name>.<serviceName>.<namespace>.svc.<cluster domain>` from it. The StatefulSet does not create the Service; it has to exist separately. Fixed once the set exists.",
      podManagementPolicy: {
        description:
          "How pods are created and deleted when the set scales. `OrderedReady` (the default): one pod at a time, in increasing ordinal order, each new pod only after the previous one is Running and Ready, and removal in decreasing order. `Parallel`: all missing pods are created, and all surplus pods deleted, at once without waiting. Rolling updates are not affected. Fixed once the set exists.",
        enum: ["OrderedReady", "Parallel"],
      },
      updateStrategy: "How pods are replaced after the pod template changes. Defaults to a RollingUpdate with partition 0.",
      revisionHistoryLimit:
        "How many old ControllerRevisions to keep for rollbacks (int32). Revisions that a pod still runs are kept regardless. Defaults to 10.",
      minReadySeconds:
        "How long (seconds, int32) a new pod has to stay Ready, without any container crashing, before it counts as available. Defaults to 0: available as soon as Ready. Generally available since Kubernetes 1.25.",
      persistentVolumeClaimRetentionPolicy:
        "What becomes of the claims made from volumeClaimTemplates when the set is deleted or scaled down. Unset, both cases keep the claims (`Retain`). Beta and on by default since Kubernetes 1.27, generally available since 1.32.",
      ordinals: "Where the numbering of the pods starts. Unset, the first pod has ordinal 0. Beta and on by default since Kubernetes 1.27, generally available since 1.31.",
    },
  },
  "io.k8s.api.apps.v1.StatefulSetUpdateStrategy": {
    description: "How the StatefulSet controller brings running pods to a new pod template: the strategy, and for a rolling update its parameters.",
    fields: {
      type: {
        description:
          "The strategy. `RollingUpdate` (the default): the controller deletes and recreates the pods one at a time from the highest ordinal down, each only after the previously updated pod is Running and Ready again. `OnDelete`: the controller leaves running pods alone; a pod gets the new template only when something else deletes it and the controller recreates it.",
        enum: ["OnDelete", "RollingUpdate"],
      },
      rollingUpdate: "Parameters of the `RollingUpdate` strategy. Only allowed when type is `RollingUpdate`.",
    },
  },
  "io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy": {
    description: "Parameters of a StatefulSet's rolling update.",
    fields: {
      partition:
        "The ordinal that splits the update (int32, not negative, default 0). Pods with an ordinal at or above it move to the new revision; pods below it stay on the current revision, also when they are recreated. A partition above the replica count holds the rollout; lowering it step by step gives a staged (canary) rollout.",
      maxUnavailable:
        "The most pods that may be unavailable at the same time during the update: a number (`2`) or a percentage of the replicas (`\"25%\"`, converted to a count by rounding up). Defaults to 1; 0 is not allowed. Only honoured with the MaxUnavailableStatefulSet feature gate (alpha since Kubernetes 1.24, off by default); without it pods are updated one at a time.",
    },
  },
  "io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy": {
    description: "Whether the PersistentVolumeClaims made from a StatefulSet's volumeClaimTemplates are deleted with the set, or with the pods a scale-down removes.",
    fields: {
      whenDeleted:
        "What happens to the claims when the StatefulSet is deleted. `Retain` (the default) keeps them. `Delete` makes the StatefulSet their owner, so the garbage collector deletes them once the set is gone.",
      whenScaled:
        "What happens to the claim of a pod that a scale-down removes. `Retain` (the default) keeps it for when the replica count grows again. `Delete` deletes it once the condemned pod is gone.",
    },
  },
  "io.k8s.api.apps.v1.StatefulSetOrdinals": {
    description: "How a StatefulSet numbers its pods.",
    fields: {
      start:
        "The ordinal of the first pod (int32, not negative, default 0). With N replicas the pods are numbered start to start+N-1, which lets a set be split across, or moved between, clusters a range of ordinals at a time.",
    },
  },
  "io.k8s.api.apps.v1.StatefulSetStatus": {
    description: "The state of a StatefulSet as its controller last observed it.",
    fields: {
      observedGeneration:
        "The metadata.generation of the StatefulSet that this status describes (int64). While it is below metadata.generation, the controller has not caught up with the latest spec change.",
      replicas: "How many pods the controller has created for the set (int32).",
      readyReplicas: "How many of the set's pods have the Ready condition (int32).",
      availableReplicas: "How many of the set's pods have been Ready for at least spec.minReadySeconds (int32).",
      currentReplicas: "How many pods run the revision named in currentRevision (int32).",
      updatedReplicas: "How many pods run the revision named in updateRevision (int32).",
      currentRevision: "The name of the ControllerRevision the set ran before the update in progress. When a rollout completes it becomes equal to updateRevision.",
      updateRevision: "The name of the ControllerRevision built from the current spec.template: the revision pods are being moved to.",
      collisionCount:
        "A counter the controller raises when the name it derives for a new ControllerRevision (from a hash of the template) is already taken; the counter goes into the next hash (int32).",
      conditions: "The latest observations of the set's state, at most one per condition type.",
    },
  },
  "io.k8s.api.apps.v1.StatefulSetCondition": {
    description: "One aspect of a StatefulSet's state, as observed at a point in time.",
    fields: {
      type: "The kind of condition.",
      status: CONDITION_STATUS,
      lastTransitionTime: "When status last changed (RFC 3339 date and time).",
      reason: "A short, machine-readable CamelCase reason for the last transition.",
      message: "A human-readable explanation of the last transition.",
    },
  },
  "io.k8s.api.apps.v1.ControllerRevision": {
    description:
      "An immutable snapshot of the template of a controller, such as a StatefulSet or a DaemonSet, at one revision. The controller records the revisions its pods are made from this way and rolls back by copying an older one; it names each `<owner name>-<hash>` and owns it through an owner reference.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      data: "The recorded state, any JSON object. For a StatefulSet it is a patch holding the pod template (`spec.template`). Fixed once created.",
      revision: "The revision number (int64). Each new revision of an owner gets a higher number than the ones before. Required.",
    },
  },
  "io.k8s.api.apps.v1.ControllerRevisionList": {
    description: "A list of ControllerRevisions.",
    fields: { apiVersion: API_VERSION, kind: KIND, metadata: LIST_METADATA, items: "The ControllerRevisions in the list." },
  },
};

export const DESCRIPTIONS: Readonly<Record<string, DefinitionDoc>> = { ...APPS_DESCRIPTIONS, ...CORE_DESCRIPTIONS };

export function definitionDoc(definition: string): DefinitionDoc | undefined {
  return DESCRIPTIONS[definition];
}

export function fieldDoc(definition: string, field: string): FieldDoc | undefined {
  const doc = DESCRIPTIONS[definition]?.fields[field];
  return typeof doc === "string" ? { description: doc } : doc;
}
