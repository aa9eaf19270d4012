// StatefulSet objects shaped like the API server returns them after defaulting (1.34+ form: no
// `creationTimestamp: null` in the template), for tests and benchmarks.

import type { PersistentVolumeClaim, Pod, PodTemplateSpec, StatefulSet } from "../types.ts";

export interface SetOptions {
  name?: string;
  namespace?: string;
  replicas?: number;
  podManagementPolicy?: "OrderedReady" | "Parallel";
  serviceName?: string;
  image?: string;
  /** Claim template names (default `["data"]`; `[]` for a set without storage). */
  claimTemplates?: string[];
  /** `RollingUpdate` (default), `OnDelete` or `Recreate`. */
  updateStrategy?: string;
  partition?: number;
  maxUnavailable?: number | string;
  minReadySeconds?: number;
  whenScaled?: "Retain" | "Delete";
  whenDeleted?: "Retain" | "Delete";
  start?: number;
  revisionHistoryLimit?: number;
  labels?: Record<string, string>;
}

export function claimTemplate(name: string): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode: "Filesystem" },
    status: { phase: "Pending" },
  };
}

/** A defaulted StatefulSet (without uid/resourceVersion: FakeCluster.create assigns them). */
export function newStatefulSet(options: SetOptions = {}): StatefulSet {
  const name = options.name ?? "web";
  const labels = options.labels ?? { app: name };
  const strategyType = options.updateStrategy ?? "RollingUpdate";
  const updateStrategy: NonNullable<NonNullable<StatefulSet["spec"]>["updateStrategy"]> =
    strategyType === "RollingUpdate"
      ? { type: strategyType, rollingUpdate: { partition: options.partition ?? 0, maxUnavailable: options.maxUnavailable ?? 1 } }
      : { type: strategyType };
  const set: StatefulSet = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: options.namespace ?? "default" },
    spec: {
      replicas: options.replicas ?? 3,
      selector: { matchLabels: { ...labels } },
      serviceName: options.serviceName ?? "nginx",
      podManagementPolicy: options.podManagementPolicy ?? "OrderedReady",
      updateStrategy,
      revisionHistoryLimit: options.revisionHistoryLimit ?? 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: options.whenDeleted ?? "Retain", whenScaled: options.whenScaled ?? "Retain" },
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          containers: [
            {
              image: options.image ?? "nginx:1.25",
              imagePullPolicy: "IfNotPresent",
              name: "nginx",
              resources: {},
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
              volumeMounts: (options.claimTemplates ?? ["data"]).map((claim) => ({ mountPath: `/${claim}`, name: claim })),
            },
          ],
          dnsPolicy: "ClusterFirst",
          restartPolicy: "Always",
          schedulerName: "default-scheduler",
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
      volumeClaimTemplates: (options.claimTemplates ?? ["data"]).map(claimTemplate),
    },
  };
  const spec = set.spec ?? {};
  if (options.minReadySeconds !== undefined) spec.minReadySeconds = options.minReadySeconds;
  if (options.start !== undefined) spec.ordinals = { start: options.start };
  return set;
}

/** Replaces the first container's image (a template change, hence a new revision). */
export function setImage(set: StatefulSet, image: string): void {
  const containers = set.spec?.template?.spec?.containers as { image?: string }[] | undefined;
  const first = containers?.[0];
  if (first) first.image = image;
}

/** The first container's image of a pod (or pod template). */
export function imageOf(object: Pod | PodTemplateSpec | undefined): string | undefined {
  const containers = object?.spec?.containers;
  if (!Array.isArray(containers)) return undefined;
  const first: unknown = containers[0];
  return first !== null && typeof first === "object" && "image" in first && typeof first.image === "string" ? first.image : undefined;
}
