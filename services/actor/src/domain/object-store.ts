// The actor's view of the Kubernetes objects of the shards it owns, rebuilt from K8S_OBJS. Pure data structure:
// apply envelopes, answer "which sets does this change concern" (set-owners.ts), build planner snapshots, and know
// which sets' objects are incomplete because a subject's last message could not be read (unreadable-subjects.ts,
// ADR 0088).
import { shard as shardOf } from "#protocol";
import type { KubeObject, ObjectEnvelope, ObjectKind, StatusManager } from "#protocol";
import type { Snapshot, StatefulSet } from "../planner/index.ts";
import { setKey, splitSetKey } from "./set-key.ts";
import type { SetKey } from "./set-key.ts";
import { claimStem, ownersOf, statefulSetController } from "./set-owners.ts";
import { UnreadableSubjects } from "./unreadable-subjects.ts";
import type { SubjectRef } from "./unreadable-subjects.ts";

export { setKey, splitSetKey } from "./set-key.ts";
export type { SetKey } from "./set-key.ts";
export type { SubjectRef } from "./unreadable-subjects.ts";

export interface CachedObject {
  readonly kind: ObjectKind;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly object: KubeObject;
  /** A StatefulSet's status writers, as the watcher published them (ADR 0092); absent when it named none. */
  readonly statusManagers?: readonly StatusManager[];
}

interface NamespaceObjects {
  readonly sets: Map<string, CachedObject>;
  readonly pods: Map<string, CachedObject>;
  readonly claims: Map<string, CachedObject>;
  readonly revisions: Map<string, CachedObject>;
  /** Pod and revision names by the name of their controlling StatefulSet ("" for orphans). */
  readonly podsByController: Map<string, Set<string>>;
  readonly revisionsByController: Map<string, Set<string>>;
  /** Claim names by their name without the trailing `-<ordinal>` (`<template>-<set>`): see claimStem. */
  readonly claimsByStem: Map<string, Set<string>>;
}

/** Object names of one kind grouped by a key of each object (undefined: not indexed). */
interface NameIndex {
  readonly names: Map<string, Set<string>>;
  keyOf(cached: CachedObject): string | undefined;
}

const byController = (cached: CachedObject) => statefulSetController(cached.object);
const byStem = (cached: CachedObject) => claimStem(cached.name) || undefined;

function indexOf(entry: NamespaceObjects, kind: ObjectKind): NameIndex | undefined {
  if (kind === "Pod") return { names: entry.podsByController, keyOf: byController };
  if (kind === "ControllerRevision") return { names: entry.revisionsByController, keyOf: byController };
  if (kind === "PersistentVolumeClaim") return { names: entry.claimsByStem, keyOf: byStem };
  return undefined;
}

function unindex(index: NameIndex | undefined, cached: CachedObject | undefined): void {
  if (!index || !cached) return;
  const key = index.keyOf(cached);
  if (key === undefined) return;
  const names = index.names.get(key);
  names?.delete(cached.name);
  if (names?.size === 0) index.names.delete(key);
}

function reindex(index: NameIndex | undefined, cached: CachedObject): void {
  if (!index) return;
  const key = index.keyOf(cached);
  if (key === undefined) return;
  let names = index.names.get(key);
  if (!names) {
    names = new Set();
    index.names.set(key, names);
  }
  names.add(cached.name);
}

function kindMap(ns: NamespaceObjects, kind: ObjectKind): Map<string, CachedObject> {
  switch (kind) {
    case "StatefulSet":
      return ns.sets;
    case "Pod":
      return ns.pods;
    case "PersistentVolumeClaim":
      return ns.claims;
    case "ControllerRevision":
      return ns.revisions;
  }
}

export interface ApplyResult {
  /** Sets whose reconcile may be affected (including sets that no longer exist, for passivation). */
  readonly affected: readonly SetKey[];
  readonly changed: boolean;
}

/** Objects of the shards this member owns, grouped by namespace. */
export class ObjectStore {
  private readonly namespaces = new Map<string, NamespaceObjects>();
  private readonly shardOfSet = new Map<SetKey, number>();
  private readonly objectsPerShard = new Map<number, Set<string>>();
  private readonly unreadable = new UnreadableSubjects();

  private ns(namespace: string): NamespaceObjects {
    let entry = this.namespaces.get(namespace);
    if (!entry) {
      entry = {
        sets: new Map(),
        pods: new Map(),
        claims: new Map(),
        revisions: new Map(),
        podsByController: new Map(),
        revisionsByController: new Map(),
        claimsByStem: new Map(),
      };
      this.namespaces.set(namespace, entry);
    }
    return entry;
  }

  get(kind: ObjectKind, namespace: string, name: string): CachedObject | undefined {
    const entry = this.namespaces.get(namespace);
    return entry ? kindMap(entry, kind).get(name) : undefined;
  }

  /** Applies one envelope received on shard `shard`. */
  apply(shard: number, envelope: ObjectEnvelope): ApplyResult {
    const { kind, namespace, name } = envelope;
    const entry = this.ns(namespace);
    const objects = kindMap(entry, kind);
    const index = indexOf(entry, kind);
    const previous = objects.get(name);
    const trackKey = `${kind}/${namespace}/${name}`;
    if (envelope.type === "object.delete") {
      if (!previous || previous.uid !== envelope.uid) return { affected: this.affectedBy(kind, namespace, name, previous, undefined), changed: false };
      this.objectsPerShard.get(shard)?.delete(trackKey);
      // A tombstone on one shard can mean "routed elsewhere now" (an orphan adopted by a set of another shard):
      // the object stays while another owned shard still holds it.
      if (this.heldByOtherShard(trackKey, shard)) {
        return { affected: this.affectedBy(kind, namespace, name, previous, previous), changed: false };
      }
      objects.delete(name);
      unindex(index, previous);
      if (kind === "StatefulSet") this.shardOfSet.delete(setKey(namespace, name));
      return { affected: this.affectedBy(kind, namespace, name, previous, undefined), changed: true };
    }
    if (previous && previous.uid === envelope.uid && previous.resourceVersion === envelope.resourceVersion) {
      return { affected: [], changed: false };
    }
    const cached: CachedObject = {
      kind,
      namespace,
      name,
      uid: envelope.uid,
      resourceVersion: envelope.resourceVersion,
      object: envelope.object,
      ...(envelope.statusManagers ? { statusManagers: envelope.statusManagers } : {}),
    };
    unindex(index, previous);
    objects.set(name, cached);
    reindex(index, cached);
    let tracked = this.objectsPerShard.get(shard);
    if (!tracked) {
      tracked = new Set();
      this.objectsPerShard.set(shard, tracked);
    }
    tracked.add(trackKey);
    if (kind === "StatefulSet") this.shardOfSet.set(setKey(namespace, name), shardOf(namespace, name));
    return { affected: this.affectedBy(kind, namespace, name, previous, cached), changed: true };
  }

  /**
   * The last message of an object subject of `shard` could not be read (undecodable, invalid, or about another
   * object than the subject names). It is no value: whatever the store holds of the object stays, since the garbage
   * says nothing about the object, and an object the store does not hold stays unknown rather than absent. While
   * any subject of a shard and namespace is unknown that way, every set of that shard and namespace is incomplete
   * (the subject's tokens cannot say which of them the object concerns): no turn plans from it, so a pod, claim or
   * revision that exists is never taken for missing. Returns whether the subject blocks.
   */
  markUnreadable(ref: SubjectRef): boolean {
    return this.unreadable.mark(ref, this.get(ref.kind, ref.namespace, ref.name) !== undefined);
  }

  /**
   * A readable message of the subject was applied, or the watcher answered that the subject holds nothing: it is
   * known again. Returns whether it was unreadable, and the sets it no longer blocks (they deserve a turn).
   */
  markReadable(ref: SubjectRef): { readonly wasUnreadable: boolean; readonly unblocked: readonly SetKey[] } {
    const { wasUnreadable, unblocks } = this.unreadable.clear(ref);
    const unblocked = unblocks ? this.setsInShard(ref.shard).filter((key) => splitSetKey(key).namespace === ref.namespace) : [];
    return { wasUnreadable, unblocked };
  }

  /** True while the subject is marked unreadable (markUnreadable). */
  isUnreadable(ref: SubjectRef): boolean {
    return this.unreadable.has(ref);
  }

  /** True while some subject is marked unreadable (cheap: the intake asks after every message). */
  get hasUnreadable(): boolean {
    return this.unreadable.any;
  }

  /** True while an unknown subject of the set's shard and namespace keeps the set's objects incomplete. */
  isIncomplete(key: SetKey): boolean {
    if (!this.unreadable.any) return false;
    const { namespace, name } = splitSetKey(key);
    return this.unreadable.blocks(shardOf(namespace, name), namespace);
  }

  /** Sets of `shard` whose own StatefulSet subject is unknown: they exist as far as anyone can tell. */
  unreadableSetsInShard(shard: number): SetKey[] {
    return this.unreadable.setsInShard(shard);
  }

  /** Unknown subjects (blocking or not), for the gauge. */
  unreadableCount(): number {
    return this.unreadable.count();
  }

  /** Forgets every object received on a shard (the shard moved to another member). */
  dropShard(shard: number): SetKey[] {
    this.unreadable.dropShard(shard);
    const dropped: SetKey[] = [];
    for (const trackKey of this.objectsPerShard.get(shard) ?? []) {
      const [kind, namespace, name] = trackKey.split("/") as [ObjectKind, string, string];
      const entry = this.namespaces.get(namespace);
      if (!entry) continue;
      const map = kindMap(entry, kind);
      // An object routed to several shards (an orphan pod matching sets in two shards) stays for the others.
      if (map.has(name) && !this.heldByOtherShard(trackKey, shard)) {
        unindex(indexOf(entry, kind), map.get(name));
        map.delete(name);
      }
      if (kind === "StatefulSet") {
        this.shardOfSet.delete(setKey(namespace, name));
        dropped.push(setKey(namespace, name));
      }
    }
    this.objectsPerShard.delete(shard);
    return dropped;
  }

  private heldByOtherShard(trackKey: string, shard: number): boolean {
    for (const [other, keys] of this.objectsPerShard) if (other !== shard && keys.has(trackKey)) return true;
    return false;
  }

  setsInShard(shard: number): SetKey[] {
    const keys: SetKey[] = [];
    for (const [key, s] of this.shardOfSet) if (s === shard) keys.push(key);
    return keys;
  }

  setCount(): number {
    return this.shardOfSet.size;
  }

  objectCount(): number {
    let count = 0;
    for (const keys of this.objectsPerShard.values()) count += keys.size;
    return count;
  }

  /** The sets a change of this object may concern, before and after the change (upstream event handlers). */
  private affectedBy(
    kind: ObjectKind,
    namespace: string,
    name: string,
    before: CachedObject | undefined,
    after: CachedObject | undefined,
  ): SetKey[] {
    if (kind === "StatefulSet") return [setKey(namespace, name)];
    const result = new Set<SetKey>();
    for (const version of [before, after]) {
      if (!version) continue;
      for (const setName of ownersOf(kind, name, version.object, this.namespaces.get(namespace)?.sets)) result.add(setKey(namespace, setName));
    }
    return [...result];
  }

  /** The planner's input for one set, or undefined when the set is not (or no longer) known. */
  snapshot(key: SetKey): Snapshot | undefined {
    const { namespace, name } = splitSetKey(key);
    const entry = this.namespaces.get(namespace);
    const set = entry?.sets.get(name);
    if (!entry || !set) return undefined;
    // Candidates as upstream lists them: everything the set controls plus orphans (the planner adopts or ignores
    // them); objects controlled by others never matter. Claims are those named `<template>-<set>-<ordinal>` (claimStem).
    const pick = (index: Map<string, Set<string>>, objects: Map<string, CachedObject>, keys: Iterable<string>) => {
      const out: KubeObject[] = [];
      for (const key of keys) {
        for (const objectName of index.get(key) ?? []) {
          const cached = objects.get(objectName);
          if (cached) out.push(cached.object);
        }
      }
      return out;
    };
    const stems = new Set(((set.object as StatefulSet).spec?.volumeClaimTemplates ?? []).map((t) => `${t.metadata?.name ?? ""}-${name}`));
    return {
      set: set.object,
      pods: pick(entry.podsByController, entry.pods, [name, ""]),
      claims: pick(entry.claimsByStem, entry.claims, stems),
      revisions: pick(entry.revisionsByController, entry.revisions, [name, ""]),
    };
  }
}
