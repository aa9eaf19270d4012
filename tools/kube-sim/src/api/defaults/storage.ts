// PersistentVolumeClaim / PersistentVolume defaulting (SetDefaults_PersistentVolumeClaim[Spec],
// SetDefaults_PersistentVolume), the StorageObjectInUseProtection admission plugin and the create
// strategies (status reset; a PV starts Pending with its phase transition time).

import { ensureObject, getArray, getObject, set, setDefault, setDefaultString, type JsonObject } from "../json.ts";

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
/**
 * Defaults of the volume plugins a Pod volume and a PersistentVolume share (SetDefaults_HostPathVolumeSource,
 * _RBD*, _ISCSI*, _AzureDisk*, _ScaleIO*); the generated defaulters call them for both.
 */
export function defaultPluginSources(source: JsonObject): void {
  const hostPath = getObject(source, "hostPath");
  if (hostPath !== undefined) setDefault(hostPath, "type", "");
  const iscsi = getObject(source, "iscsi");
  if (iscsi !== undefined) setDefaultString(iscsi, "iscsiInterface", "default");
  const rbd = getObject(source, "rbd");
  if (rbd !== undefined) {
    setDefaultString(rbd, "pool", "rbd");
    setDefaultString(rbd, "user", "admin");
    setDefaultString(rbd, "keyring", "/etc/ceph/keyring");
  }
  const azureDisk = getObject(source, "azureDisk");
  if (azureDisk !== undefined) {
    setDefault(azureDisk, "cachingMode", "ReadWrite");
    setDefault(azureDisk, "kind", "Shared");
    setDefault(azureDisk, "fsType", "ext4");
    setDefault(azureDisk, "readOnly", false);
  }
  const scaleIO = getObject(source, "scaleIO");
  if (scaleIO !== undefined) {
    setDefaultString(scaleIO, "storageMode", "ThinProvisioned");
    setDefaultString(scaleIO, "fsType", "xfs");
  }
}

/** SetDefaults_PersistentVolume and its plugin sources. */
export function defaultVolume(volume: JsonObject): void {
  const spec = ensureObject(volume, "spec");
  setDefaultString(spec, "persistentVolumeReclaimPolicy", "Retain");
  setDefault(spec, "volumeMode", "Filesystem");
  defaultPluginSources(spec);
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
