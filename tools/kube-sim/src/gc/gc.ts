// The controllers of kube-controller-manager that decide when objects really go away: the garbage
// collector (ownerReferences with Background, Foreground and Orphan propagation), the namespace
// controller, and the PVC/PV protection controllers. They react to store events on the next tick, as
// the real controllers react to watch events, and write through the registry.
import { assertNever } from "#protocol";
import { StatusError } from "../errors.ts";
import { PV_PROTECTION, PVC_PROTECTION } from "../registry/admission.ts";
import type { Registry } from "../registry/registry.ts";
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, INTERNAL_WRITE } from "../registry/registry.ts";
import { RESOURCES, resourceKey } from "../resources.ts";
import type { ResourceInfo } from "../resources.ts";
import type { StoreEvent, StoredEntry } from "../store/store.ts";
import type { KubeObject } from "../types.ts";
import { getPath, isRecord } from "../types.ts";

// The first (core) view of a shared bucket wins: events.k8s.io Events are stored as core/v1 Events.
const byKey = new Map<string, ResourceInfo>();
for (const r of RESOURCES) if (!byKey.has(resourceKey(r))) byKey.set(resourceKey(r), r);

type Work =
  | { kind: "owner-gone"; uid: string }
  | { kind: "finalize-owner"; resourceKey: string; key: string }
  | { kind: "dangling"; resourceKey: string; key: string }
  | { kind: "namespace"; name: string }
  | { kind: "pvc-protection"; namespace: string }
  | { kind: "pv-protection" };

function parse(entry: StoredEntry): KubeObject {
  return JSON.parse(entry.json) as KubeObject;
}

function ignoreMissing(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError && (err.status.code === 404 || err.status.code === 409)) return;
    throw err;
  }
}

export class GarbageCollector {
  private readonly registry: Registry;
  private readonly queue: Work[] = [];
  private scheduled = false;
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(registry: Registry) {
    this.registry = registry;
    this.unsubscribe = registry.store.subscribe((event) => this.observe(event));
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private enqueue(work: Work): void {
    this.queue.push(work);
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.queue.splice(0);
      const seen = new Set<string>();
      for (const item of batch) {
        const id = JSON.stringify(item);
        if (seen.has(id) || this.stopped) continue;
        seen.add(id);
        this.process(item);
      }
    });
  }

  private observe(event: StoreEvent): void {
    const { entry, resourceKey: rk } = event;
    if (event.type === "DELETED") {
      this.enqueue({ kind: "owner-gone", uid: entry.uid });
      for (const owner of event.prev?.ownerUids ?? []) {
        const found = this.registry.store.findUid(owner);
        if (found !== undefined) this.enqueue({ kind: "finalize-owner", resourceKey: found.resourceKey, key: found.entry.key });
      }
      if (entry.namespace !== "") this.enqueue({ kind: "namespace", name: entry.namespace });
      if (rk === "/pods") this.enqueue({ kind: "pvc-protection", namespace: entry.namespace });
      if (rk === "/persistentvolumeclaims") this.enqueue({ kind: "pv-protection" });
      return;
    }
    const { deleting, finalizers } = entry;
    if (deleting && (finalizers.includes(FINALIZER_ORPHAN) || finalizers.includes(FINALIZER_FOREGROUND))) {
      this.enqueue({ kind: "finalize-owner", resourceKey: rk, key: entry.key });
    }
    // A real garbage collector checks owners whenever references change: one added later may name an object that is
    // already gone (e.g. a claim re-owned by a pod deleted meanwhile), and the dependent must then be collected.
    const prevOwners = event.prev?.ownerUids ?? [];
    const ownersChanged = event.type === "ADDED" || entry.ownerUids.some((uid) => !prevOwners.includes(uid));
    if (ownersChanged && entry.ownerUids.length > 0) this.enqueue({ kind: "dangling", resourceKey: rk, key: entry.key });
    if (rk === "/namespaces" && deleting) this.enqueue({ kind: "namespace", name: entry.name });
    if (rk === "/persistentvolumeclaims" && deleting && finalizers.includes(PVC_PROTECTION)) this.enqueue({ kind: "pvc-protection", namespace: entry.namespace });
    if (rk === "/persistentvolumes" && deleting && finalizers.includes(PV_PROTECTION)) this.enqueue({ kind: "pv-protection" });
    if (rk === "/pods") {
      const phase = entry.fields["status.phase"];
      if (phase === "Succeeded" || phase === "Failed") this.enqueue({ kind: "pvc-protection", namespace: entry.namespace });
    }
  }

  private process(work: Work): void {
    switch (work.kind) {
      case "owner-gone":
        this.ownerGone(work.uid);
        return;
      case "finalize-owner":
        this.finalizeOwner(work.resourceKey, work.key);
        return;
      case "dangling":
        this.dangling(work.resourceKey, work.key);
        return;
      case "namespace":
        this.namespace(work.name);
        return;
      case "pvc-protection":
        this.pvcProtection(work.namespace);
        return;
      case "pv-protection":
        this.pvProtection();
        return;
      default:
        return assertNever(work, "work");
    }
  }

  private ownerExists(uid: string): boolean {
    return this.registry.store.findUid(uid) !== undefined;
  }

  /** An owner vanished: dependents with no other live owner are deleted, the rest lose the reference. */
  private ownerGone(uid: string): void {
    for (const { resourceKey: rk, entry } of this.registry.store.dependents(uid)) {
      const info = byKey.get(rk);
      if (info === undefined) continue;
      const obj = parse(entry);
      const others = (obj.metadata.ownerReferences ?? []).filter((o) => o.uid !== uid && this.ownerExists(o.uid));
      if (others.length > 0) {
        obj.metadata.ownerReferences = (obj.metadata.ownerReferences ?? []).filter((o) => o.uid !== uid);
        this.registry.writeInternal(info, obj);
        continue;
      }
      if (obj.metadata.deletionTimestamp !== undefined) continue;
      const hasDependents = this.registry.store.dependents(entry.uid).length > 0;
      ignoreMissing(() =>
        this.registry.delete(info, entry.namespace, entry.name, { propagationPolicy: hasDependents ? "Foreground" : "Background", preconditions: { uid: entry.uid } }, INTERNAL_WRITE),
      );
    }
  }

  private finalizeOwner(rk: string, key: string): void {
    const info = byKey.get(rk);
    const entry = this.registry.store.getByKey(rk, key);
    if (info === undefined || entry === undefined) return;
    const owner = parse(entry);
    if (owner.metadata.deletionTimestamp === undefined) return;
    const finalizers = owner.metadata.finalizers ?? [];
    const dependents = this.registry.store.dependents(entry.uid);
    if (finalizers.includes(FINALIZER_ORPHAN)) {
      for (const dep of dependents) {
        const depInfo = byKey.get(dep.resourceKey);
        if (depInfo === undefined) continue;
        const obj = parse(dep.entry);
        const refs = (obj.metadata.ownerReferences ?? []).filter((o) => o.uid !== entry.uid);
        if (refs.length > 0) obj.metadata.ownerReferences = refs;
        else delete obj.metadata.ownerReferences;
        this.registry.writeInternal(depInfo, obj);
      }
      this.removeFinalizer(info, rk, key, FINALIZER_ORPHAN);
      return;
    }
    if (finalizers.includes(FINALIZER_FOREGROUND)) {
      let blocking = 0;
      for (const dep of dependents) {
        const depInfo = byKey.get(dep.resourceKey);
        if (depInfo === undefined) continue;
        const obj = parse(dep.entry);
        const ref = (obj.metadata.ownerReferences ?? []).find((o) => o.uid === entry.uid);
        if (ref?.blockOwnerDeletion === true) blocking++;
        if (obj.metadata.deletionTimestamp !== undefined) continue;
        const hasDependents = this.registry.store.dependents(dep.entry.uid).length > 0;
        ignoreMissing(() =>
          this.registry.delete(depInfo, dep.entry.namespace, dep.entry.name, { propagationPolicy: hasDependents ? "Foreground" : "Background", preconditions: { uid: dep.entry.uid } }, INTERNAL_WRITE),
        );
      }
      const stillBlocking = this.registry.store.dependents(entry.uid).filter((d) => {
        const ref = (parse(d.entry).metadata.ownerReferences ?? []).find((o) => o.uid === entry.uid);
        return ref?.blockOwnerDeletion === true;
      }).length;
      if (blocking === 0 || stillBlocking === 0) this.removeFinalizer(info, rk, key, FINALIZER_FOREGROUND);
    }
  }

  private removeFinalizer(info: ResourceInfo, rk: string, key: string, finalizer: string): void {
    const entry = this.registry.store.getByKey(rk, key);
    if (entry === undefined) return;
    const obj = parse(entry);
    const rest = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (rest.length > 0) obj.metadata.finalizers = rest;
    else delete obj.metadata.finalizers;
    this.registry.writeInternal(info, obj);
  }

  /** A dependent created with owners that do not exist is collected, as the real GC does once it verified them. */
  private dangling(rk: string, key: string): void {
    const info = byKey.get(rk);
    const entry = this.registry.store.getByKey(rk, key);
    if (info === undefined || entry === undefined || entry.ownerUids.length === 0) return;
    if (entry.ownerUids.some((uid) => this.ownerExists(uid))) return;
    this.ownerGone(entry.ownerUids[0] ?? "");
  }

  /** The namespace controller: delete everything inside, then finalize the namespace. */
  private namespace(name: string): void {
    const nsEntry = this.registry.store.get("/namespaces", "", name);
    if (nsEntry === undefined) return;
    const ns = parse(nsEntry);
    if (ns.metadata.deletionTimestamp === undefined) return;
    let remaining = 0;
    for (const info of RESOURCES) {
      if (!info.namespaced) continue;
      const rk = resourceKey(info);
      for (const key of [...this.registry.store.keys(rk, name)]) {
        const entry = this.registry.store.getByKey(rk, key);
        if (entry === undefined) continue;
        remaining++;
        if (parse(entry).metadata.deletionTimestamp !== undefined) continue;
        ignoreMissing(() => this.registry.delete(info, name, entry.name, { propagationPolicy: "Background" }, INTERNAL_WRITE));
      }
    }
    if (remaining === 0) this.registry.finalizeNamespace(name);
  }

  /** kubernetes.io/pvc-protection goes once no pod that is not finished uses the claim. */
  private pvcProtection(namespace: string): void {
    const info = byKey.get("/persistentvolumeclaims");
    if (info === undefined) return;
    const inUse = new Set<string>();
    for (const key of this.registry.store.keys("/pods", namespace)) {
      const pod = this.registry.store.getByKey("/pods", key);
      if (pod === undefined) continue;
      const obj = parse(pod);
      const phase = getPath(obj, ["status", "phase"]);
      if (phase === "Succeeded" || phase === "Failed") continue;
      // As upstream's podUsesPVC: only a scheduled pod uses its claims (a kubelet never starts a pod whose claim is
      // being deleted, and it sees pods only once they are scheduled).
      const nodeName = getPath(obj, ["spec", "nodeName"]);
      if (typeof nodeName !== "string" || nodeName === "") continue;
      const volumes = getPath(obj, ["spec", "volumes"]);
      for (const v of Array.isArray(volumes) ? volumes : []) {
        const claim = getPath(v, ["persistentVolumeClaim", "claimName"]);
        if (typeof claim === "string") inUse.add(claim);
      }
    }
    for (const key of [...this.registry.store.keys("/persistentvolumeclaims", namespace)]) {
      const entry = this.registry.store.getByKey("/persistentvolumeclaims", key);
      if (entry === undefined || inUse.has(entry.name)) continue;
      const obj = parse(entry);
      if (obj.metadata.deletionTimestamp === undefined || !(obj.metadata.finalizers ?? []).includes(PVC_PROTECTION)) continue;
      this.removeFinalizer(info, "/persistentvolumeclaims", key, PVC_PROTECTION);
    }
  }

  /** kubernetes.io/pv-protection goes once the volume is no longer bound to an existing claim. */
  private pvProtection(): void {
    const info = byKey.get("/persistentvolumes");
    if (info === undefined) return;
    for (const key of [...this.registry.store.keys("/persistentvolumes", undefined)]) {
      const entry = this.registry.store.getByKey("/persistentvolumes", key);
      if (entry === undefined) continue;
      const pv = parse(entry);
      if (pv.metadata.deletionTimestamp === undefined || !(pv.metadata.finalizers ?? []).includes(PV_PROTECTION)) continue;
      const claimRef = getPath(pv, ["spec", "claimRef"]);
      const claimUid = isRecord(claimRef) && typeof claimRef["uid"] === "string" ? claimRef["uid"] : undefined;
      if (claimUid !== undefined && this.ownerExists(claimUid)) continue;
      this.removeFinalizer(info, "/persistentvolumes", key, PV_PROTECTION);
    }
  }
}
