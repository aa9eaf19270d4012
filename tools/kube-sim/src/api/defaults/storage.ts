// PersistentVolumeClaim / PersistentVolume defaulting (SetDefaults_PersistentVolumeClaim[Spec],
// SetDefaults_PersistentVolume), the StorageObjectInUseProtection admission plugin and the create
// strategies (status reset; a PV starts Pending with its phase transition time).

import { ensureObject, getArray, set, setDefault, setDefaultString, type JsonObject } from "../json.ts";

export const PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection";
export const PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection";

/** SetDefaults_PersistentVolumeClaimSpec. */
export function defaultClaimSpec(spec: JsonObject): void {
  setDefault(spec, "volumeMode", "Filesystem");
}

/** SetDefaults_PersistentVolumeClaim, which every read of a claim applies again (so Pending shows). */
export function defaultClaim(claim: JsonObject): void {
  defaultClaimSpec(ensureObject(claim, "spec"));
  setDefaultString(ensureObject(claim, "status"), "phase", "Pending");
}

/** SetDefaults_PersistentVolume. */
export function defaultVolume(volume: JsonObject): void {
  const spec = ensureObject(volume, "spec");
  setDefaultString(spec, "persistentVolumeReclaimPolicy", "Retain");
  setDefault(spec, "volumeMode", "Filesystem");
  setDefaultString(ensureObject(volume, "status"), "phase", "Pending");
}

/** Appends a finalizer unless present (StorageObjectInUseProtection, create only). */
export function addFinalizer(obj: JsonObject, finalizer: string): void {
  const metadata = ensureObject(obj, "metadata");
  const existing = getArray(metadata, "finalizers") ?? [];
  if (!existing.includes(finalizer)) set(metadata, "finalizers", [...existing, finalizer]);
}

/** persistentvolumeStrategy.PrepareForCreate: status reset to Pending, stamped with the request time. */
export function prepareVolumeStatus(volume: JsonObject, now: string | undefined): void {
  const status: JsonObject = { phase: "Pending" };
  if (now !== undefined) status["lastPhaseTransitionTime"] = now;
  set(volume, "status", status);
}

/** persistentvolumeclaimStrategy.PrepareForCreate clears status; the read-side default shows Pending. */
export function prepareClaimStatus(claim: JsonObject): void {
  set(claim, "status", {});
  defaultClaim(claim);
}
