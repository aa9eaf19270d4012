// The recording of a real kube-apiserver and kube-controller-manager v1.32.6 (test/fixtures/kcm-v1.32.6.json),
// typed once for the tests that hold stsfleet to it: the planner's revision compatibility
// (services/actor/src/planner/revisions.test.ts) and the takeover of the recorded cluster
// (test/e2e/takeover-vectors.test.ts). `about` in the file says how it was recorded.
import { readFileSync } from "node:fs";
import type { PersistentVolumeClaim, Pod, StatefulSet } from "../../services/actor/src/planner/types.ts";

/** A ControllerRevision as recorded: its name, number, metadata and the exact bytes of `data.raw`. */
export interface RecordedRevision {
  /** The StatefulSet it belongs to. */
  set: string;
  name: string;
  revision: number;
  collisionCount: number;
  hashLabel: string;
  raw: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface KcmRecording {
  about: string;
  /** The manifests applied, by set name. */
  inputs: Record<string, string>;
  controllerRevisions: RecordedRevision[];
  /** As the API server stored them, status written by the controller included. */
  statefulSets: StatefulSet[];
  pods: Pod[];
  persistentVolumeClaims: PersistentVolumeClaim[];
}

/** A fresh copy on every call: tests may change what they get. */
export function loadKcmRecording(): KcmRecording {
  return JSON.parse(readFileSync(new URL("../fixtures/kcm-v1.32.6.json", import.meta.url), "utf8")) as KcmRecording;
}
