// The watcher's mirror of the cluster: the objects of the four kinds, the set index that routes them, and the
// ledger that turns changes into publishes. Fed by the list-watch loops (replace on list, upsert/remove on events),
// drained by the publisher. Pure and synchronous: every call leaves the ledger's wants consistent with the objects.
import type { Shard } from "#protocol";
import { Ledger } from "./ledger.ts";
import type { LedgerOptions, Target } from "./ledger.ts";
import { WATCHED_KINDS, objectKey, parseObjectKey } from "./objects.ts";
import type { ObjectKey, WatchedKind, WatchedObject } from "./objects.ts";
import { sameForOwners } from "./relevance.ts";
import { SetIndex, routeObject, setRoutingOf, shardsOf } from "./routing.ts";

interface Stored {
  readonly object: WatchedObject;
  shards: Set<Shard>;
}

export interface ReplaceReport {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
}

function sameShards(a: ReadonlySet<Shard>, b: ReadonlySet<Shard>): boolean {
  if (a.size !== b.size) return false;
  for (const shard of a) if (!b.has(shard)) return false;
  return true;
}

export class MirrorState {
  readonly ledger: Ledger;
  private readonly objects = new Map<WatchedKind, Map<ObjectKey, Stored>>(WATCHED_KINDS.map((kind) => [kind, new Map()]));
  private readonly sets = new SetIndex();
  /** namespace -> keys whose routing depends on the namespace's sets (orphans and claims). */
  private readonly dependents = new Map<string, Set<ObjectKey>>();
  private readonly syncedKinds = new Set<WatchedKind>();

  private readonly onQuiet: ((kind: WatchedKind) => void) | undefined;

  /** `onQuiet`: a change was mirrored and not published (for metrics). */
  constructor(options: LedgerOptions & { readonly onQuiet?: (kind: WatchedKind) => void } = {}) {
    this.ledger = new Ledger(options);
    this.onQuiet = options.onQuiet;
  }

  get synced(): boolean {
    return this.syncedKinds.size === WATCHED_KINDS.length;
  }

  isKindSynced(kind: WatchedKind): boolean {
    return this.syncedKinds.has(kind);
  }

  count(kind: WatchedKind): number {
    return this.kindMap(kind).size;
  }

  get(kind: WatchedKind, namespace: string, name: string): WatchedObject | undefined {
    return this.kindMap(kind).get(objectKey(kind, namespace, name))?.object;
  }

  getByKey(key: ObjectKey): WatchedObject | undefined {
    return this.getStored(key)?.object;
  }

  /** The shards an object is routed to now (empty when it is unknown or belongs to no set). */
  shardsOf(kind: WatchedKind, namespace: string, name: string): ReadonlySet<Shard> {
    return this.kindMap(kind).get(objectKey(kind, namespace, name))?.shards ?? new Set();
  }

  /** ADDED or MODIFIED. Returns false when the object is already known at this uid and resourceVersion. */
  upsert(object: WatchedObject): boolean {
    const key = objectKey(object.kind, object.namespace, object.name);
    const map = this.kindMap(object.kind);
    const previous = map.get(key);
    if (previous && previous.object.uid === object.uid && previous.object.resourceVersion === object.resourceVersion) {
      return false;
    }
    const setsChanged = object.kind === "sts" && this.sets.upsert(object.namespace, setRoutingOf(object));
    const route = routeObject(object, this.sets);
    const stored: Stored = { object, shards: shardsOf(object.namespace, route.sets) };
    map.set(key, stored);
    this.trackDependent(object.namespace, key, route.dependsOnSets);
    // A quiet change (a pod or a claim being bound) is mirrored, not published (ADR 0090).
    const quiet = previous !== undefined && previous.object.uid === object.uid && sameForOwners(object.kind, previous.object.body, object.body);
    if (quiet) this.onQuiet?.(object.kind);
    this.ledger.setTarget(key, this.targetOf(stored), quiet);
    if (setsChanged) this.rerouteNamespace(object.namespace);
    return true;
  }

  /** DELETED (or vanished from a relist): tombstones carry `uid` and `rv` (the delete's, or the last seen). */
  remove(kind: WatchedKind, namespace: string, name: string, identity?: { uid: string; rv: string }): boolean {
    const key = objectKey(kind, namespace, name);
    const previous = this.kindMap(kind).get(key);
    if (!previous && !identity) return false;
    this.kindMap(kind).delete(key);
    this.trackDependent(namespace, key, false);
    const uid = identity?.uid ?? previous?.object.uid ?? "";
    const rv = identity?.rv ?? previous?.object.resourceVersion ?? "";
    this.ledger.setTarget(key, { exists: false, uid, rv });
    if (kind === "sts" && this.sets.remove(namespace, name)) this.rerouteNamespace(namespace);
    return previous !== undefined;
  }

  /** A full list of one kind: what is missing from it was deleted while the watch was not looking. */
  replace(kind: WatchedKind, objects: readonly WatchedObject[]): ReplaceReport {
    const map = this.kindMap(kind);
    const listed = new Set<ObjectKey>();
    let added = 0;
    let updated = 0;
    let removed = 0;
    for (const object of objects) {
      const key = objectKey(object.kind, object.namespace, object.name);
      listed.add(key);
      const existed = map.has(key);
      if (this.upsert(object)) {
        if (existed) updated++;
        else added++;
      }
    }
    for (const [key, stored] of [...map]) {
      if (listed.has(key)) continue;
      this.remove(kind, stored.object.namespace, stored.object.name);
      removed++;
    }
    return { added, updated, removed };
  }

  /** The first list of `kind` is in; returns true once every kind is (and tells the ledger). */
  markSynced(kind: WatchedKind): boolean {
    this.syncedKinds.add(kind);
    if (this.synced) this.ledger.markSynced();
    return this.synced;
  }

  private kindMap(kind: WatchedKind): Map<ObjectKey, Stored> {
    const map = this.objects.get(kind);
    if (!map) throw new Error(`unknown kind ${kind}`);
    return map;
  }

  private targetOf(stored: Stored): Target {
    return { exists: true, uid: stored.object.uid, rv: stored.object.resourceVersion, shards: stored.shards };
  }

  private trackDependent(namespace: string, key: ObjectKey, depends: boolean): void {
    let keys = this.dependents.get(namespace);
    if (depends) {
      if (!keys) this.dependents.set(namespace, (keys = new Set()));
      keys.add(key);
    } else if (keys) {
      keys.delete(key);
      if (keys.size === 0) this.dependents.delete(namespace);
    }
  }

  /** A set appeared, vanished or changed its selector or claim templates: re-route the objects that depend on it. */
  private rerouteNamespace(namespace: string): void {
    for (const key of this.dependents.get(namespace) ?? []) {
      const stored = this.getStored(key);
      if (!stored) continue;
      const shards = shardsOf(namespace, routeObject(stored.object, this.sets).sets);
      if (sameShards(shards, stored.shards)) continue;
      stored.shards = shards;
      this.ledger.setTarget(key, this.targetOf(stored));
    }
  }

  private getStored(key: ObjectKey): Stored | undefined {
    return this.objects.get(parseObjectKey(key).kind)?.get(key);
  }
}
