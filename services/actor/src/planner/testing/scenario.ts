// Helpers the scenario tests share: the two pod management modes, a one-call harness, and readers over the
// cluster's audit log (which pods were created/deleted in which order).

import { LABELS } from "#protocol";
import type { PersistentVolumeClaim, Pod } from "../types.ts";
import { newStatefulSet } from "./builders.ts";
import type { SetOptions } from "./builders.ts";
import { FakeCluster } from "./cluster.ts";
import { createHarness } from "./driver.ts";
import type { DriverOptions, Harness } from "./driver.ts";
import { isRunningAndReady, ordinalOf } from "./invariants.ts";
import type { DefaultPolicy } from "./kubelet.ts";

export interface Mode {
  /** Upstream's test mode name. */
  readonly label: "Monotonic" | "Burst";
  readonly policy: "OrderedReady" | "Parallel";
}

export const MODES: readonly Mode[] = [
  { label: "Monotonic", policy: "OrderedReady" },
  { label: "Burst", policy: "Parallel" },
];

export interface ScenarioOptions extends Omit<DriverOptions, "namespace" | "name"> {
  kubeletPolicy?: DefaultPolicy;
}

/** A fresh cluster with one StatefulSet (not reconciled yet). */
export function scenario(set: SetOptions = {}, options: ScenarioOptions = {}): Harness {
  const cluster = new FakeCluster();
  const harness = createHarness(cluster, newStatefulSet(set), options);
  if (options.kubeletPolicy) harness.kubelet.setDefaultPolicy(options.kubeletPolicy);
  return harness;
}

/** Pod names in ordinal order. */
export function podNames(harness: Harness): string[] {
  return harness.driver
    .pods()
    .sort((a, b) => ordinalOf(a) - ordinalOf(b))
    .map((pod) => pod.metadata?.name ?? "");
}

export function pod(harness: Harness, name: string): Pod | undefined {
  return harness.cluster.get<Pod>("Pod", harness.namespace, name);
}

export function claim(harness: Harness, name: string): PersistentVolumeClaim | undefined {
  return harness.cluster.get<PersistentVolumeClaim>("PersistentVolumeClaim", harness.namespace, name);
}

export function readyPodNames(harness: Harness): string[] {
  return harness.driver
    .pods()
    .filter((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp)
    .sort((a, b) => ordinalOf(a) - ordinalOf(b))
    .map((p) => p.metadata?.name ?? "");
}

export function revisionOf(pod: Pod | undefined): string | undefined {
  return pod?.metadata?.labels?.[LABELS.revisionHash];
}

/** Names of pods created through the API, in order (from `sinceSeq` on). */
export function podCreates(harness: Harness, sinceSeq = 0): string[] {
  return harness.cluster.audit.filter((e) => e.kind === "Pod" && e.verb === "create" && e.seq > sinceSeq).map((e) => e.name);
}

/** Names of pods deleted through the API, in order. */
export function podDeletes(harness: Harness, sinceSeq = 0): string[] {
  return harness.cluster.audit.filter((e) => e.kind === "Pod" && e.verb === "delete" && e.seq > sinceSeq).map((e) => e.name);
}

/** The audit position now, to look at what happens from here on. */
export function mark(harness: Harness): number {
  return harness.cluster.audit.length === 0 ? 0 : (harness.cluster.audit[harness.cluster.audit.length - 1]?.seq ?? 0);
}

/** Deletes a pod like `kubectl delete pod` (graceful; the kubelet finishes it). */
export function deletePod(harness: Harness, name: string): void {
  harness.cluster.delete("Pod", harness.namespace, name);
}

/** Lets terminations finish and pods settle without the controller acting. */
export function tickUntilIdle(harness: Harness, maxTicks = 50): void {
  for (let i = 0; i < maxTicks; i++) if (!harness.driver.tick()) return;
}

/** Adds a finalizer so a later delete leaves the object terminating. */
export function addFinalizer(harness: Harness, kind: "Pod" | "PersistentVolumeClaim", name: string, finalizer = "test/hold"): void {
  harness.cluster.mutate<Pod>(kind, harness.namespace, name, (o) => {
    (o.metadata ??= {}).finalizers = [...(o.metadata.finalizers ?? []), finalizer];
  }, "patch");
}

export function removeFinalizers(harness: Harness, kind: "Pod" | "PersistentVolumeClaim", name: string): void {
  harness.cluster.mutate<Pod>(kind, harness.namespace, name, (o) => {
    (o.metadata ??= {}).finalizers = [];
  }, "patch");
}
