// Which StatefulSets an object belongs to, and so which shard subjects carry it
// (docs/adr/0042-watcher-routing-of-owned-objects.md, after timebertt's key.ForController):
// - a StatefulSet: itself;
// - a Pod or ControllerRevision with a controller reference: that controller when it is a StatefulSet, none when it
//   is anything else (upstream resolveControllerRef ignores foreign controllers);
// - an orphan Pod or ControllerRevision: every set in its namespace whose selector matches its labels (upstream
//   addPod/updatePod enqueue all matching sets for orphans, and the set's sync decides adoption);
// - a PersistentVolumeClaim: sets named by an owner reference (the set, or a pod `<set>-<ordinal>`, both written
//   by the retention policy), plus every set with a claim template `t` such that the claim is `<t>-<set>-<ordinal>`
//   (upstream finds claims by name, getPersistentVolumeClaimName).
// Pure and deterministic: a function of the object and the set index.
import { assertNever, compileSelector, parseParentAndOrdinal, selectorMatches, shard } from "#protocol";
import type { CompiledSelector, Shard } from "#protocol";
import { controllerOf } from "./objects.ts";
import type { WatchedObject } from "./objects.ts";

/** What routing needs to know about one StatefulSet. */
export interface SetRouting {
  readonly name: string;
  /** Undefined when the selector is missing, empty or malformed: such a set selects nothing. */
  readonly selector: CompiledSelector | undefined;
  /** volumeClaimTemplates[].metadata.name, in spec order, de-duplicated. */
  readonly claimTemplates: readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Extracts the routing inputs from a StatefulSet body. Never throws. */
export function setRoutingOf(set: WatchedObject): SetRouting {
  const spec = isRecord(set.body["spec"]) ? set.body["spec"] : {};
  let selector: CompiledSelector | undefined;
  const rawSelector = spec["selector"];
  if (isRecord(rawSelector)) {
    const compiled = compileSelector(rawSelector);
    // Upstream StatefulSetLister.GetPodStatefulSets: "a StatefulSet with a nil or empty selector ... should match
    // nothing, not everything".
    if (compiled.ok && !compiled.selector.empty) selector = compiled.selector;
  }
  const claimTemplates: string[] = [];
  const templates = spec["volumeClaimTemplates"];
  if (Array.isArray(templates)) {
    for (const template of templates as unknown[]) {
      const name = isRecord(template) && isRecord(template["metadata"]) ? template["metadata"]["name"] : undefined;
      if (typeof name === "string" && name.length > 0 && !claimTemplates.includes(name)) claimTemplates.push(name);
    }
  }
  return { name: set.name, selector, claimTemplates };
}

/** A string that changes whenever the routing inputs of a set change (status updates leave it alone). */
export function routingSignature(routing: SetRouting): string {
  return JSON.stringify([routing.selector ?? null, routing.claimTemplates]);
}

/** The StatefulSets of every namespace, indexed for routing. */
export class SetIndex {
  private readonly byNamespace = new Map<string, Map<string, SetRouting>>();
  /** namespace -> `<template>-<set>` -> set names: the claim-name prefixes of each set. */
  private readonly claimPrefixes = new Map<string, Map<string, Set<string>>>();

  /** Adds or replaces a set; returns true when its routing inputs changed (including when it is new). */
  upsert(namespace: string, routing: SetRouting): boolean {
    const sets = this.byNamespace.get(namespace) ?? new Map<string, SetRouting>();
    this.byNamespace.set(namespace, sets);
    const previous = sets.get(routing.name);
    if (previous && routingSignature(previous) === routingSignature(routing)) return false;
    if (previous) this.unindexClaims(namespace, previous);
    sets.set(routing.name, routing);
    this.indexClaims(namespace, routing);
    return true;
  }

  /** Removes a set; returns true when it was present. */
  remove(namespace: string, name: string): boolean {
    const sets = this.byNamespace.get(namespace);
    const previous = sets?.get(name);
    if (!sets || !previous) return false;
    sets.delete(name);
    this.unindexClaims(namespace, previous);
    if (sets.size === 0) this.byNamespace.delete(namespace);
    return true;
  }

  get(namespace: string, name: string): SetRouting | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  inNamespace(namespace: string): Iterable<SetRouting> {
    return this.byNamespace.get(namespace)?.values() ?? [];
  }

  /** Sets that have a claim template `t` with `<t>-<set>` equal to `prefix`. */
  setsWithClaimPrefix(namespace: string, prefix: string): Iterable<string> {
    return this.claimPrefixes.get(namespace)?.get(prefix) ?? [];
  }

  private indexClaims(namespace: string, routing: SetRouting): void {
    const prefixes = this.claimPrefixes.get(namespace) ?? new Map<string, Set<string>>();
    this.claimPrefixes.set(namespace, prefixes);
    for (const template of routing.claimTemplates) {
      const prefix = `${template}-${routing.name}`;
      const sets = prefixes.get(prefix) ?? new Set<string>();
      sets.add(routing.name);
      prefixes.set(prefix, sets);
    }
  }

  private unindexClaims(namespace: string, routing: SetRouting): void {
    const prefixes = this.claimPrefixes.get(namespace);
    if (!prefixes) return;
    for (const template of routing.claimTemplates) {
      const prefix = `${template}-${routing.name}`;
      const sets = prefixes.get(prefix);
      sets?.delete(routing.name);
      if (sets?.size === 0) prefixes.delete(prefix);
    }
    if (prefixes.size === 0) this.claimPrefixes.delete(namespace);
  }
}

/** The routing of one object: the owning set names, and whether the answer depends on the set index. */
export interface Route {
  readonly sets: ReadonlySet<string>;
  /** True when adding, removing or changing a set in the namespace may change `sets`. */
  readonly dependsOnSets: boolean;
}

function matchingSets(object: WatchedObject, index: SetIndex): Set<string> {
  const out = new Set<string>();
  for (const set of index.inNamespace(object.namespace)) {
    if (set.selector && selectorMatches(set.selector, object.labels)) out.add(set.name);
  }
  return out;
}

/** The sets that own (or may adopt) `object`. */
export function routeObject(object: WatchedObject, index: SetIndex): Route {
  switch (object.kind) {
    case "sts":
      return { sets: new Set([object.name]), dependsOnSets: false };
    case "pod":
    case "rev": {
      const controller = controllerOf(object);
      if (controller) {
        return { sets: new Set(controller.kind === "StatefulSet" ? [controller.name] : []), dependsOnSets: false };
      }
      // Upstream GetPodStatefulSets refuses pods without labels; revisions are matched by selector alone.
      if (object.kind === "pod" && Object.keys(object.labels).length === 0) return { sets: new Set(), dependsOnSets: true };
      return { sets: matchingSets(object, index), dependsOnSets: true };
    }
    case "pvc": {
      const sets = new Set<string>();
      for (const ref of object.ownerReferences) {
        if (ref.kind === "StatefulSet") sets.add(ref.name);
        if (ref.kind === "Pod") {
          const { parent, ordinal } = parseParentAndOrdinal(ref.name);
          if (parent !== "" && ordinal >= 0) sets.add(parent);
        }
      }
      const { parent, ordinal } = parseParentAndOrdinal(object.name);
      if (parent !== "" && ordinal >= 0) {
        for (const name of index.setsWithClaimPrefix(object.namespace, parent)) sets.add(name);
      }
      return { sets, dependsOnSets: true };
    }
    default:
      return assertNever(object.kind, "object kind");
  }
}

/** The shards of a set of owner names in one namespace. */
export function shardsOf(namespace: string, sets: ReadonlySet<string>): Set<Shard> {
  const out = new Set<Shard>();
  for (const name of sets) out.add(shard(namespace, name));
  return out;
}
