// The actor's view of the Kubernetes objects of the shards it owns, rebuilt from K8S_OBJS. Pure data structure:
// apply envelopes, answer "which sets does this change concern", build planner snapshots, and know which sets'
// objects are incomplete because a subject's last message could not be read (ADR 0088).
import { compileSelector, parseParentAndOrdinal, selectorMatches, shard as shardOf } from "#protocol";
import type { KubeObject, ObjectEnvelope, ObjectKind, StatusManager } from "#protocol";
import type { Snapshot, StatefulSet } from "../planner/index.ts";

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

/** `<namespace>/<name>` of a StatefulSet. */
export type SetKey = string;

export function setKey(namespace: string, name: string): SetKey {
  return `${namespace}/${name}`;
}

export function splitSetKey(key: SetKey): { namespace: string; name: string } {
  const slash = key.indexOf("/");
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
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

/**
 * `<template>-<set>` of a claim `<template>-<set>-<ordinal>`, "" when the name does not end in an ordinal. The claims
 * a set's pods use are exactly those (upstream's getPersistentVolumeClaims names them per template and ordinal); a
 * snapshot looks them up per template instead of testing every claim of the namespace, which cost O(claims) per turn
 * (4.5% of an actor's CPU converging 1000 sets in one namespace, ADR 0085).
 */
export function claimStem(claim: string): string {
  const { parent, ordinal } = parseParentAndOrdinal(claim);
  return ordinal < 0 ? "" : parent;
}

/** The StatefulSet controlling an object, "" for orphans, undefined when another kind of controller owns it. */
function statefulSetController(object: KubeObject): string | undefined {
  const controller = (metaOf(object).ownerReferences ?? []).find((ref) => ref.controller === true);
  if (!controller) return "";
  return controller.kind === "StatefulSet" ? (controller.name ?? "") : undefined;
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

interface Meta {
  labels?: Record<string, string>;
  ownerReferences?: { kind?: string; name?: string; uid?: string; controller?: boolean }[];
}

function metaOf(object: KubeObject | undefined): Meta {
  return (object?.metadata ?? {}) as Meta;
}

/** An object subject of an owned shard, by what its tokens name. */
export interface SubjectRef {
  readonly shard: number;
  readonly kind: ObjectKind;
  readonly namespace: string;
  readonly name: string;
}

/** Subjects whose last message could not be read, per shard and namespace. */
interface Unreadable {
  /** `<kind>/<name>` -> whether the store held no value of the object when the message came (see markUnreadable). */
  readonly subjects: Map<string, boolean>;
  /** How many of them block the namespace's sets of the shard. */
  blocking: number;
}

export interface ApplyResult {
  /** Sets whose reconcile may be affected (including sets that no longer exist, for passivation). */
  readonly affected: readonly SetKey[];
  readonly changed: boolean;
}

/** Objects of the shards this member owns, grouped by namespace. */
/**
 * The sets a claim `<template>-<set>-<ordinal>` belongs to by name: every split of the name at a dash into a template
 * name and a pod name, kept when the pod's parent is a cached set with that template. Looks sets up by name instead
 * of testing every set of the namespace, which made each claim event cost O(sets) (quadratic over a namespace).
 */
export function claimOwners(sets: ReadonlyMap<string, CachedObject>, claim: string): string[] {
  const owners: string[] = [];
  for (let dash = claim.indexOf("-"); dash >= 0; dash = claim.indexOf("-", dash + 1)) {
    const parent = parseParentAndOrdinal(claim.slice(dash + 1)).parent;
    const set = parent === "" ? undefined : sets.get(parent);
    if (!set || owners.includes(parent)) continue;
    const template = claim.slice(0, dash);
    if (((set.object as StatefulSet).spec?.volumeClaimTemplates ?? []).some((t) => (t.metadata?.name ?? "") === template)) owners.push(parent);
  }
  return owners;
}

export class ObjectStore {
  private readonly namespaces = new Map<string, NamespaceObjects>();
  private readonly shardOfSet = new Map<SetKey, number>();
  private readonly objectsPerShard = new Map<number, Set<string>>();
  /** `<shard>/<namespace>` -> its unreadable subjects; empty in a healthy fleet, so apply() pays nothing for it. */
  private readonly unreadable = new Map<string, Unreadable>();

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
    const groupKey = `${ref.shard}/${ref.namespace}`;
    let group = this.unreadable.get(groupKey);
    if (!group) {
      group = { subjects: new Map(), blocking: 0 };
      this.unreadable.set(groupKey, group);
    }
    const subjectKey = `${ref.kind}/${ref.name}`;
    const blocking = group.subjects.get(subjectKey) ?? this.get(ref.kind, ref.namespace, ref.name) === undefined;
    if (!group.subjects.has(subjectKey)) {
      group.subjects.set(subjectKey, blocking);
      if (blocking) group.blocking++;
    }
    return blocking;
  }

  /**
   * A readable message of the subject was applied, or the watcher answered that the subject holds nothing: it is
   * known again. Returns whether it was unreadable, and the sets it no longer blocks (they deserve a turn).
   */
  markReadable(ref: SubjectRef): { readonly wasUnreadable: boolean; readonly unblocked: readonly SetKey[] } {
    if (this.unreadable.size === 0) return { wasUnreadable: false, unblocked: [] };
    const groupKey = `${ref.shard}/${ref.namespace}`;
    const group = this.unreadable.get(groupKey);
    const subjectKey = `${ref.kind}/${ref.name}`;
    const blocking = group?.subjects.get(subjectKey);
    if (!group || blocking === undefined) return { wasUnreadable: false, unblocked: [] };
    group.subjects.delete(subjectKey);
    if (blocking) group.blocking--;
    if (group.subjects.size === 0) this.unreadable.delete(groupKey);
    const unblocked = blocking && group.blocking === 0 ? this.setsInShard(ref.shard).filter((key) => splitSetKey(key).namespace === ref.namespace) : [];
    return { wasUnreadable: true, unblocked };
  }

  /** True while the subject is marked unreadable (markUnreadable). */
  isUnreadable(ref: SubjectRef): boolean {
    return this.unreadable.get(`${ref.shard}/${ref.namespace}`)?.subjects.has(`${ref.kind}/${ref.name}`) ?? false;
  }

  /** True while some subject is marked unreadable (cheap: the intake asks after every message). */
  get hasUnreadable(): boolean {
    return this.unreadable.size > 0;
  }

  /** True while an unknown subject of the set's shard and namespace keeps the set's objects incomplete. */
  isIncomplete(key: SetKey): boolean {
    if (this.unreadable.size === 0) return false;
    const { namespace, name } = splitSetKey(key);
    return (this.unreadable.get(`${shardOf(namespace, name)}/${namespace}`)?.blocking ?? 0) > 0;
  }

  /** Sets of `shard` whose own StatefulSet subject is unknown: they exist as far as anyone can tell. */
  unreadableSetsInShard(shard: number): SetKey[] {
    const keys: SetKey[] = [];
    for (const [groupKey, group] of this.unreadable) {
      const slash = groupKey.indexOf("/");
      if (Number(groupKey.slice(0, slash)) !== shard) continue;
      const namespace = groupKey.slice(slash + 1);
      for (const [subjectKey, blocking] of group.subjects) {
        const [kind, name = ""] = subjectKey.split("/");
        if (blocking && kind === "StatefulSet") keys.push(setKey(namespace, name));
      }
    }
    return keys;
  }

  /** Unknown subjects (blocking or not), for the gauge. */
  unreadableCount(): number {
    let count = 0;
    for (const group of this.unreadable.values()) count += group.subjects.size;
    return count;
  }

  /** Forgets every object received on a shard (the shard moved to another member). */
  dropShard(shard: number): SetKey[] {
    for (const groupKey of [...this.unreadable.keys()]) if (groupKey.startsWith(`${shard}/`)) this.unreadable.delete(groupKey);
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
      for (const setName of this.ownersOf(kind, namespace, name, version.object)) result.add(setKey(namespace, setName));
    }
    return [...result];
  }

  private ownersOf(kind: ObjectKind, namespace: string, name: string, object: KubeObject): string[] {
    const meta = metaOf(object);
    const controller = (meta.ownerReferences ?? []).find((ref) => ref.controller === true);
    const sets = this.namespaces.get(namespace)?.sets;
    if (controller) {
      if (controller.kind === "StatefulSet" && controller.name) return [controller.name];
      if (kind === "PersistentVolumeClaim" && controller.kind === "Pod" && controller.name) {
        const parent = parseParentAndOrdinal(controller.name).parent;
        return parent ? [parent] : [];
      }
      if (kind !== "PersistentVolumeClaim") return [];
    }
    if (!sets) return [];
    if (kind === "PersistentVolumeClaim") return claimOwners(sets, name);
    const owners: string[] = [];
    for (const [setName, set] of sets) {
      const spec = (set.object as StatefulSet).spec;
      // Upstream GetPodStatefulSets: a set with an empty selector matches nothing, not everything.
      const compiled = compileSelector(spec?.selector);
      if (compiled.ok && !compiled.selector.empty && selectorMatches(compiled.selector, meta.labels ?? {})) {
        owners.push(setName);
      }
    }
    return owners;
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
