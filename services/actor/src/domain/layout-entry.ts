// What a running actor does with what the intent log's layout key (`layout.intent-log` in bucket `members`) holds:
// the rule of docs/adr/0088-garbage-is-absent-and-repaired.md for that key. The layout exists so that two actors
// never append to different intent logs (they would not fence each other). A running actor keeps its layout in
// memory and appends to that log until it stops, so it is the one with the right to write it back: over garbage,
// and over a delete or a purge, since a starting actor must not pin another layout under a log that is in use.
// A valid layout that is not ours is a misconfiguration an operator has to settle: never overwritten. Pure; the
// runtime (runtime/layout-guard.ts) does the watching and the writes.
import { assertNever } from "#protocol";
import type { DecodeFailure, IntentLogLayout } from "#protocol";

/** The layout key as one watch entry (or read) shows it. */
export type LayoutEntry =
  /** No entry at all (revision undefined), or a delete or a purge (the marker's revision). */
  | { readonly kind: "absent"; readonly revision: number | undefined }
  /** A PUT whose value is no layout record. */
  | { readonly kind: "undecodable"; readonly revision: number; readonly reason: DecodeFailure }
  | { readonly kind: "layout"; readonly revision: number; readonly layout: IntentLogLayout };

export type LayoutDecision =
  /** Ours: nothing to do. */
  | { readonly action: "keep" }
  /**
   * Write our layout by compare-and-set on `revision` (a create when undefined). Losing it is fine: the key moved on
   * and the watch shows what it holds now.
   */
  | { readonly action: "rewrite"; readonly revision: number | undefined; readonly why: "absent" | "undecodable" }
  /** Another valid layout: two logs in use at once. Reported, not overwritten. */
  | { readonly action: "conflict"; readonly pinned: IntentLogLayout };

/** Replica i of a quorum log lives on the server tagged placement[i]: the order is part of the layout. */
export function sameLayout(a: IntentLogLayout, b: IntentLogLayout): boolean {
  return a.placement.length === b.placement.length && a.placement.every((tag, i) => tag === b.placement[i]);
}

export function decideLayoutEntry(entry: LayoutEntry, ours: IntentLogLayout): LayoutDecision {
  switch (entry.kind) {
    case "absent":
    case "undecodable":
      return { action: "rewrite", revision: entry.revision, why: entry.kind };
    case "layout":
      return sameLayout(entry.layout, ours) ? { action: "keep" } : { action: "conflict", pinned: entry.layout };
    default:
      return assertNever(entry, "layout entry");
  }
}
