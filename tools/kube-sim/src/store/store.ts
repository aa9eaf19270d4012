// The in-memory object store: one global resourceVersion counter (like etcd's revision), objects kept as
// their serialized JSON (reads and watch fan-out write bytes without re-encoding), a per-resource window of
// recent events for watch resumption, and synchronous fan-out to watchers and internal controllers.
// See docs/adr/0020-kube-sim-storage-and-resource-versions.md. With `--data-dir` every write is also recorded in a
// journal before anyone sees it, and a restarted store is restored from it (docs/adr/0095-kube-sim-persistence.md).
import { assertNever } from "#protocol";
import type { KubeObject } from "../types.ts";
import type { PersistedState, SnapshotSource, StoreChange } from "./journal.ts";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoredEntry {
  /** `namespace/name`, or `name` for cluster-scoped objects; lists are sorted by it, like etcd keys. */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly rv: number;
  /** The object as served, resourceVersion included. */
  readonly json: string;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Values of the selectable fields (`metadata.name`, `status.phase`, ...), computed once per write. */
  readonly fields: Readonly<Record<string, string>>;
  readonly ownerUids: readonly string[];
  /** metadata.deletionTimestamp is set. */
  readonly deleting: boolean;
  readonly finalizers: readonly string[];
}

export interface StoreEvent {
  readonly rv: number;
  readonly resourceKey: string;
  readonly type: EventType;
  readonly entry: StoredEntry;
  /** The previous state for MODIFIED and DELETED, used to turn selector transitions into ADDED/DELETED. */
  readonly prev: StoredEntry | undefined;
}

export interface WatchFilter {
  namespace: string | undefined;
  matches: (entry: StoredEntry) => boolean;
}

export type WatchListener = (type: EventType, entry: StoredEntry, event: StoreEvent) => void;

export class ResourceVersionTooOldError extends Error {
  readonly requested: number;
  readonly oldest: number;
  constructor(requested: number, oldest: number) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.name = "ResourceVersionTooOldError";
    this.requested = requested;
    this.oldest = oldest;
  }
}

export type FieldExtractor = (resourceKey: string, obj: KubeObject) => Record<string, string>;

interface Watcher {
  readonly filter: WatchFilter;
  readonly listener: WatchListener;
}

class Bucket {
  readonly objects = new Map<string, StoredEntry>();
  private sortedKeys: string[] | null = null;
  readonly nsSorted = new Map<string, string[]>();
  readonly byNamespace = new Map<string, Set<string>>();
  readonly history: StoreEvent[] = [];
  /** Head index into `history`: a ring without shifting the array. */
  historyStart = 0;
  /** The rv of the newest event that fell out of the window; watches from before it get 410 Gone. */
  droppedRv = 0;
  readonly watchers = new Set<Watcher>();

  keys(namespace: string | undefined): readonly string[] {
    if (namespace === undefined) {
      this.sortedKeys ??= [...this.objects.keys()].sort();
      return this.sortedKeys;
    }
    let keys = this.nsSorted.get(namespace);
    if (keys === undefined) {
      keys = [...(this.byNamespace.get(namespace) ?? [])].sort();
      this.nsSorted.set(namespace, keys);
    }
    return keys;
  }

  // The sorted key arrays, once built, are kept sorted in place: a binary search and one splice per
  // create or delete instead of re-sorting every key of the resource on the next list. Callers iterate
  // them synchronously; those that write while iterating copy them first.
  addKey(namespace: string, key: string): void {
    if (this.sortedKeys !== null) insertSorted(this.sortedKeys, key);
    const keys = this.nsSorted.get(namespace);
    if (keys !== undefined) insertSorted(keys, key);
  }

  removeKey(namespace: string, key: string): void {
    if (this.sortedKeys !== null) removeSorted(this.sortedKeys, key);
    const keys = this.nsSorted.get(namespace);
    if (keys !== undefined) removeSorted(keys, key);
  }
}

/** First index whose key is not below `target` in ascending (UTF-16 code unit) order. */
export function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] ?? "") < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(keys: string[], key: string): void {
  const at = lowerBound(keys, key);
  if (keys[at] !== key) keys.splice(at, 0, key);
}

function removeSorted(keys: string[], key: string): void {
  const at = lowerBound(keys, key);
  if (keys[at] === key) keys.splice(at, 1);
}

export function entryKey(namespace: string, name: string): string {
  return namespace === "" ? name : `${namespace}/${name}`;
}

/** Where each write goes before anyone is told about it (`--data-dir`, ADR 0095); called inside the write. */
export interface StoreJournal {
  record(change: StoreChange): void;
}

export interface StoreOptions {
  /** Events kept per resource for watch resumption. */
  historyWindow: number;
  fields: FieldExtractor;
}

export class Store {
  private rv = 0;
  private readonly buckets = new Map<string, Bucket>();
  private readonly byUid = new Map<string, { resourceKey: string; key: string }>();
  private readonly dependentsOf = new Map<string, Set<string>>();
  private readonly controllers = new Set<(event: StoreEvent) => void>();
  private readonly options: StoreOptions;
  private journal: StoreJournal | undefined;
  /** The resourceVersion a restored store started at: watches from before it get 410 Gone (its history is gone). */
  private restoredRv = 0;
  /** Restored objects the controllers have not been told about yet. */
  private restored: { resourceKey: string; entry: StoredEntry }[] = [];

  constructor(options: StoreOptions) {
    this.options = options;
  }

  get currentRv(): number {
    return this.rv;
  }

  /** Every later write is recorded in `journal` before watchers and controllers see it. */
  attachJournal(journal: StoreJournal): void {
    this.journal = journal;
  }

  /**
   * Loads what a data dir held into an empty store: objects at their resourceVersions, the counter where it was.
   * No event goes out and none is kept (announceRestored() tells the controllers), so a watch from a version
   * before the restore gets 410 Gone and its client re-lists, as after an etcd compaction.
   */
  restore(state: PersistedState): StoredEntry[] {
    if (this.rv !== 0) throw new Error(`restore: the store already holds writes (resourceVersion ${this.rv})`);
    const entries = state.objects.map(({ resourceKey, obj }) => {
      const namespace = obj.metadata.namespace ?? "";
      const name = obj.metadata.name ?? "";
      const entry = this.makeEntry(resourceKey, entryKey(namespace, name), namespace, name, Number(obj.metadata.resourceVersion), obj);
      this.insert(this.bucket(resourceKey), resourceKey, entry, undefined);
      return { resourceKey, entry };
    });
    this.rv = state.rv;
    this.restoredRv = state.rv;
    this.restored = entries;
    return entries.map((e) => e.entry);
  }

  /** The restored objects as ADDED events to the controllers (not to watchers), in resourceVersion order, once. */
  announceRestored(): void {
    const restored = this.restored;
    this.restored = [];
    for (const { resourceKey, entry } of restored) {
      if (this.getByKey(resourceKey, entry.key) !== entry) continue;
      const event: StoreEvent = { rv: entry.rv, resourceKey, type: "ADDED", entry, prev: undefined };
      for (const c of this.controllers) c(event);
    }
  }

  /** Every current object's stored JSON with the counter, for a snapshot. */
  snapshotSource(): SnapshotSource {
    let count = 0;
    for (const b of this.buckets.values()) count += b.objects.size;
    const buckets = this.buckets;
    return {
      rv: this.rv,
      count,
      *objects() {
        for (const [resourceKey, b] of buckets) for (const entry of b.objects.values()) yield { resourceKey, json: entry.json };
      },
    };
  }

  private bucket(resourceKey: string): Bucket {
    let b = this.buckets.get(resourceKey);
    if (b === undefined) {
      b = new Bucket();
      this.buckets.set(resourceKey, b);
    }
    return b;
  }

  get(resourceKey: string, namespace: string, name: string): StoredEntry | undefined {
    return this.buckets.get(resourceKey)?.objects.get(entryKey(namespace, name));
  }

  /** Sorted keys of a resource, optionally in one namespace; resolve with `getByKey`. */
  keys(resourceKey: string, namespace: string | undefined): readonly string[] {
    return this.buckets.get(resourceKey)?.keys(namespace) ?? [];
  }

  getByKey(resourceKey: string, key: string): StoredEntry | undefined {
    return this.buckets.get(resourceKey)?.objects.get(key);
  }

  count(resourceKey: string, namespace?: string): number {
    const b = this.buckets.get(resourceKey);
    if (b === undefined) return 0;
    return namespace === undefined ? b.objects.size : (b.byNamespace.get(namespace)?.size ?? 0);
  }

  findUid(uid: string): { resourceKey: string; entry: StoredEntry } | undefined {
    const ref = this.byUid.get(uid);
    if (ref === undefined) return undefined;
    const entry = this.getByKey(ref.resourceKey, ref.key);
    return entry === undefined ? undefined : { resourceKey: ref.resourceKey, entry };
  }

  /** Objects whose ownerReferences name `ownerUid`. */
  dependents(ownerUid: string): { resourceKey: string; entry: StoredEntry }[] {
    const out: { resourceKey: string; entry: StoredEntry }[] = [];
    for (const uid of this.dependentsOf.get(ownerUid) ?? []) {
      const found = this.findUid(uid);
      if (found !== undefined) out.push(found);
    }
    return out;
  }

  /** Writes `obj` as a new state with the next resourceVersion; `obj` is not retained. */
  put(resourceKey: string, obj: KubeObject): StoredEntry {
    const b = this.bucket(resourceKey);
    const namespace = obj.metadata.namespace ?? "";
    const name = obj.metadata.name ?? "";
    const key = entryKey(namespace, name);
    const prev = b.objects.get(key);
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    const entry = this.makeEntry(resourceKey, key, namespace, name, rv, obj);
    this.insert(b, resourceKey, entry, prev);
    this.journal?.record({ op: "put", rv, resourceKey, json: entry.json });
    this.emit(b, { rv, resourceKey, type: prev === undefined ? "ADDED" : "MODIFIED", entry, prev });
    return entry;
  }

  /**
   * Loads objects another API server stored, keeping their resourceVersions: as if each had been created at its
   * resourceVersion, in that order. Every given resourceVersion must be a positive integer above the store's
   * current one and unique; objects without one get the next versions after the highest seeded, in the order given.
   * All objects are stored before the first ADDED event goes out (in resourceVersion order, to watchers and
   * controllers), so a controller reacting to a pod already sees its owner. Later writes continue above the highest
   * seeded version, so resourceVersions stay monotonic. Throws, storing nothing, when an object's key exists.
   */
  seed(objects: readonly { readonly resourceKey: string; readonly obj: KubeObject }[]): StoredEntry[] {
    const keys = new Set<string>();
    const given = new Set<number>();
    for (const { resourceKey, obj } of objects) {
      const namespace = obj.metadata.namespace ?? "";
      const name = obj.metadata.name ?? "";
      const id = `${resourceKey} ${entryKey(namespace, name)}`;
      if (name === "") throw new Error(`seed: ${resourceKey} object without metadata.name`);
      if (keys.has(id) || this.get(resourceKey, namespace, name) !== undefined) throw new Error(`seed: ${id} already exists`);
      keys.add(id);
      const raw = obj.metadata.resourceVersion;
      if (raw === undefined || raw === "") continue;
      if (!/^[1-9]\d*$/.test(raw)) throw new Error(`seed: ${id}: resourceVersion "${raw}" is not a positive integer`);
      const rv = Number(raw);
      if (rv <= this.rv) throw new Error(`seed: ${id}: resourceVersion ${rv} is not above the store's current ${this.rv}`);
      if (given.has(rv)) throw new Error(`seed: ${id}: resourceVersion ${rv} is given twice`);
      given.add(rv);
    }
    let next = this.rv;
    for (const rv of given) next = Math.max(next, rv);
    const numbered = objects.map(({ resourceKey, obj }) => {
      const raw = obj.metadata.resourceVersion;
      const rv = raw === undefined || raw === "" ? ++next : Number(raw);
      return { resourceKey, obj: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } }, rv };
    });
    numbered.sort((a, b) => a.rv - b.rv);
    this.rv = next;
    const stored = numbered.map(({ resourceKey, obj, rv }) => {
      const namespace = obj.metadata.namespace ?? "";
      const name = obj.metadata.name ?? "";
      const entry = this.makeEntry(resourceKey, entryKey(namespace, name), namespace, name, rv, obj);
      this.insert(this.bucket(resourceKey), resourceKey, entry, undefined);
      this.journal?.record({ op: "put", rv, resourceKey, json: entry.json });
      return { resourceKey, entry };
    });
    for (const { resourceKey, entry } of stored) {
      this.emit(this.bucket(resourceKey), { rv: entry.rv, resourceKey, type: "ADDED", entry, prev: undefined });
    }
    return stored.map((s) => s.entry);
  }

  /** Makes `entry` the current state of its key (`prev` the state it replaces) and indexes it. */
  private insert(b: Bucket, resourceKey: string, entry: StoredEntry, prev: StoredEntry | undefined): void {
    const { key, namespace } = entry;
    b.objects.set(key, entry);
    if (prev === undefined) {
      let set = b.byNamespace.get(namespace);
      if (set === undefined) {
        set = new Set();
        b.byNamespace.set(namespace, set);
      }
      set.add(key);
      b.addKey(namespace, key);
    }
    this.index(resourceKey, key, prev, entry);
  }

  /** Removes an object; `finalObj` is its last state, served in the DELETED event with a new resourceVersion. */
  remove(resourceKey: string, finalObj: KubeObject): StoredEntry | undefined {
    const b = this.bucket(resourceKey);
    const namespace = finalObj.metadata.namespace ?? "";
    const name = finalObj.metadata.name ?? "";
    const key = entryKey(namespace, name);
    const prev = b.objects.get(key);
    if (prev === undefined) return undefined;
    const rv = ++this.rv;
    finalObj.metadata.resourceVersion = String(rv);
    const entry = this.makeEntry(resourceKey, key, namespace, name, rv, finalObj);
    b.objects.delete(key);
    b.byNamespace.get(namespace)?.delete(key);
    b.removeKey(namespace, key);
    this.index(resourceKey, key, prev, undefined);
    this.journal?.record({ op: "delete", rv, resourceKey, key });
    this.emit(b, { rv, resourceKey, type: "DELETED", entry, prev });
    return entry;
  }

  private makeEntry(resourceKey: string, key: string, namespace: string, name: string, rv: number, obj: KubeObject): StoredEntry {
    const labels = obj.metadata.labels;
    return {
      key,
      namespace,
      name,
      uid: obj.metadata.uid ?? "",
      rv,
      json: JSON.stringify(obj),
      labels: labels === undefined ? undefined : { ...labels },
      fields: this.options.fields(resourceKey, obj),
      ownerUids: (obj.metadata.ownerReferences ?? []).map((o) => o.uid),
      deleting: obj.metadata.deletionTimestamp !== undefined,
      finalizers: obj.metadata.finalizers ?? [],
    };
  }

  private index(resourceKey: string, key: string, prev: StoredEntry | undefined, next: StoredEntry | undefined): void {
    if (prev !== undefined) {
      if (next === undefined || next.uid !== prev.uid) this.byUid.delete(prev.uid);
      for (const owner of prev.ownerUids) {
        const set = this.dependentsOf.get(owner);
        set?.delete(prev.uid);
        if (set?.size === 0) this.dependentsOf.delete(owner);
      }
    }
    if (next !== undefined) {
      if (next.uid !== "") this.byUid.set(next.uid, { resourceKey, key });
      for (const owner of next.ownerUids) {
        let set = this.dependentsOf.get(owner);
        if (set === undefined) {
          set = new Set();
          this.dependentsOf.set(owner, set);
        }
        set.add(next.uid);
      }
    }
  }

  private emit(b: Bucket, event: StoreEvent): void {
    b.history.push(event);
    if (b.history.length - b.historyStart > this.options.historyWindow) {
      const dropped = b.history[b.historyStart];
      b.historyStart++;
      if (dropped !== undefined) b.droppedRv = dropped.rv;
      // Compact rarely so the ring costs O(1) amortized.
      if (b.historyStart > 1024 && b.historyStart > b.history.length / 2) {
        b.history.splice(0, b.historyStart);
        b.historyStart = 0;
      }
    }
    for (const w of b.watchers) deliver(w, event);
    for (const c of this.controllers) c(event);
  }

  /**
   * Starts a watch after `sinceRv`: replays retained events newer than it, then streams live ones.
   * Throws ResourceVersionTooOldError when events after `sinceRv` already left the window.
   */
  watch(resourceKey: string, sinceRv: number, filter: WatchFilter, listener: WatchListener): () => void {
    const b = this.bucket(resourceKey);
    if (sinceRv < b.droppedRv || sinceRv < this.restoredRv) {
      const firstKept = b.history[b.historyStart]?.rv ?? this.rv + 1;
      throw new ResourceVersionTooOldError(sinceRv, Math.max(firstKept - 1, this.restoredRv));
    }
    const watcher: Watcher = { filter, listener };
    for (let i = b.historyStart; i < b.history.length; i++) {
      const event = b.history[i];
      if (event !== undefined && event.rv > sinceRv) deliver(watcher, event);
    }
    b.watchers.add(watcher);
    return () => {
      b.watchers.delete(watcher);
    };
  }

  watcherCount(): number {
    let n = 0;
    for (const b of this.buckets.values()) n += b.watchers.size;
    return n;
  }

  /** Internal controllers (GC, kubelet) see every event after watchers did. */
  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.controllers.add(listener);
    return () => {
      this.controllers.delete(listener);
    };
  }
}

function deliver(w: Watcher, event: StoreEvent): void {
  const { filter } = w;
  if (filter.namespace !== undefined && filter.namespace !== event.entry.namespace) return;
  const now = event.type !== "DELETED" && filter.matches(event.entry);
  const before = event.prev !== undefined && filter.matches(event.prev);
  switch (event.type) {
    case "ADDED":
      if (now) w.listener("ADDED", event.entry, event);
      return;
    case "MODIFIED":
      if (now && before) w.listener("MODIFIED", event.entry, event);
      else if (now) w.listener("ADDED", event.entry, event);
      else if (before) w.listener("DELETED", event.entry, event);
      return;
    case "DELETED":
      if (before) w.listener("DELETED", event.entry, event);
      return;
    default:
      return assertNever(event.type, "type");
  }
}
