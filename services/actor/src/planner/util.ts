// Small helpers shared by the planner modules.

import type { OwnerReference } from "./types.ts";

/** Deep copy of a JSON-shaped value (faster than structuredClone for the small objects copied here). */
export function deepCopy<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item: unknown) => deepCopy(item)) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) out[key] = deepCopy(item);
  }
  return out as T;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The value if it really is a plain object (untrusted JSON may hold anything anywhere), else undefined. */
export function obj<T extends object>(value: T | null | undefined): T | undefined {
  return isRecord(value) ? value : undefined;
}

/** RFC3339 to epoch milliseconds; null for a missing or unparseable timestamp (Go's zero time). */
export function parseTimestampMs(value: string | null | undefined): number | null {
  if (typeof value !== "string" || value === "") return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** `metav1.GetControllerOf`: the owner reference with `controller: true`, if any. */
export function controllerOf(refs: readonly OwnerReference[] | null | undefined): OwnerReference | undefined {
  if (!Array.isArray(refs)) return undefined;
  for (const ref of refs as readonly unknown[]) if (isRecord(ref) && ref.controller === true) return ref;
  return undefined;
}

/** Owner references that are objects (malformed entries are ignored). */
export function ownerRefsOf(refs: readonly OwnerReference[] | null | undefined): readonly OwnerReference[] {
  if (!Array.isArray(refs)) return NO_REFS;
  const list = refs as readonly unknown[];
  // The common case allocates nothing.
  return list.every(isRecord) ? (refs as readonly OwnerReference[]) : list.filter((ref): ref is OwnerReference => isRecord(ref));
}

const NO_REFS: readonly OwnerReference[] = Object.freeze([]);

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A non-negative safe integer, or the fallback. */
export function nonNegativeInt(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : fallback;
}
