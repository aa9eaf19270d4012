// Read-your-writes: after a turn writes, the actor expects its cache to show those writes before it plans again
// (upstream 1.36 StaleControllerConsistencyStatefulSet). resourceVersions are opaque, so an expectation is met
// when the cache shows a version other than the one the write replaced, never by comparing versions.
import type { ObjectKind } from "#protocol";
import type { CachedObject } from "./object-store.ts";

export type Expectation =
  /** After a create: the object is in the cache. */
  | { readonly type: "exists"; readonly kind: ObjectKind; readonly namespace: string; readonly name: string }
  /** After an update: the cache no longer holds the version the write replaced. */
  | {
      readonly type: "changed";
      readonly kind: ObjectKind;
      readonly namespace: string;
      readonly name: string;
      readonly fromResourceVersion: string;
    }
  /** After a delete: gone, replaced by another incarnation, or terminating. */
  | { readonly type: "gone"; readonly kind: ObjectKind; readonly namespace: string; readonly name: string; readonly uid: string }
  /**
   * The intent log shows a plan made from a later generation of the set than the cache holds (the cache is behind
   * what an owner already acted on): at least that generation, or another incarnation of the set, or none.
   * Generations are integers the API server increases on every spec change, so comparing them is sound.
   */
  | {
      readonly type: "generation";
      readonly kind: "StatefulSet";
      readonly namespace: string;
      readonly name: string;
      readonly uid: string;
      readonly atLeast: number;
    };

export type Lookup = (kind: ObjectKind, namespace: string, name: string) => CachedObject | undefined;

export function isMet(expectation: Expectation, lookup: Lookup): boolean {
  const cached = lookup(expectation.kind, expectation.namespace, expectation.name);
  switch (expectation.type) {
    case "exists":
      return cached !== undefined;
    case "changed":
      return cached === undefined || cached.resourceVersion !== expectation.fromResourceVersion;
    case "gone": {
      if (cached === undefined || cached.uid !== expectation.uid) return true;
      const meta = cached.object.metadata as { deletionTimestamp?: string | null };
      return Boolean(meta.deletionTimestamp);
    }
    case "generation": {
      if (cached === undefined || cached.uid !== expectation.uid) return true;
      const generation = (cached.object.metadata as { generation?: number }).generation ?? 0;
      return generation >= expectation.atLeast;
    }
  }
}

export function describeExpectation(expectation: Expectation): string {
  return `${expectation.type} ${expectation.kind} ${expectation.namespace}/${expectation.name}`;
}

/** Pending expectations of one actor, with the time after which they are abandoned. */
export class PendingExpectations {
  private pending: Expectation[] = [];
  private deadlineMs = 0;

  add(expectations: readonly Expectation[], nowMs: number, timeoutMs: number): void {
    if (expectations.length === 0) return;
    this.pending.push(...expectations);
    this.deadlineMs = nowMs + timeoutMs;
  }

  /** Drops met expectations; true when none is left (or they expired). */
  settle(lookup: Lookup, nowMs: number): { settled: boolean; expired: readonly Expectation[] } {
    this.pending = this.pending.filter((e) => !isMet(e, lookup));
    if (this.pending.length === 0) return { settled: true, expired: [] };
    if (nowMs >= this.deadlineMs) {
      const expired = this.pending;
      this.pending = [];
      return { settled: true, expired };
    }
    return { settled: false, expired: [] };
  }

  get size(): number {
    return this.pending.length;
  }

  get deadline(): number {
    return this.deadlineMs;
  }

  clear(): void {
    this.pending = [];
  }
}
