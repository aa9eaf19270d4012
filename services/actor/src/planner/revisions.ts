// ControllerRevisions (upstream pkg/controller/history and getStatefulSetRevisions / newRevision / getPatch /
// ApplyRevision / truncateHistory): byte-compatible `data.raw`, FNV-1 naming with collision counts, rollback by
// renumbering, semantic reuse across serializer drift, and history truncation.

import { LABELS, controllerRevisionHash, controllerRevisionName } from "#protocol";
import { goJsonMarshal } from "./gojson.ts";
import { setControllerRef } from "./pods.ts";
import { selectorMatches } from "./selector.ts";
import type { SetView } from "./spec.ts";
import type {
  ControllerRevision,
  CreateRevisionAction,
  OwnerReference,
  PodTemplateSpec,
  UpdateRevisionAction,
} from "./types.ts";
import { controllerOf, isRecord, obj, parseTimestampMs } from "./util.ts";

export interface RevisionView {
  readonly object: ControllerRevision;
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly revision: number;
  readonly creationMs: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly controller: OwnerReference | undefined;
  /** Go's encoding of `data` (what upstream holds in Data.Raw), computed on first use; null when data is absent. */
  readonly raw: string | null;
}

export function viewRevision(object: ControllerRevision): RevisionView | undefined {
  const meta = obj(object.metadata);
  if (!meta || typeof meta.name !== "string" || meta.name === "") return undefined;
  let raw: string | null | undefined;
  return {
    object,
    name: meta.name,
    uid: typeof meta.uid === "string" ? meta.uid : "",
    resourceVersion: typeof meta.resourceVersion === "string" ? meta.resourceVersion : "",
    revision: typeof object.revision === "number" && Number.isSafeInteger(object.revision) ? object.revision : 0,
    creationMs: parseTimestampMs(meta.creationTimestamp) ?? 0,
    labels: obj(meta.labels) ?? {},
    controller: controllerOf(meta.ownerReferences),
    get raw() {
      if (raw === undefined) raw = object.data === undefined || object.data === null ? null : goJsonMarshal(object.data);
      return raw;
    },
  };
}

/** Upstream `history.SortControllerRevisions`: by `.revision`, then creation time, then name. */
export function sortRevisions(revisions: RevisionView[]): RevisionView[] {
  return revisions.sort((a, b) => {
    if (a.revision !== b.revision) return a.revision - b.revision;
    if (a.creationMs !== b.creationMs) return a.creationMs - b.creationMs;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}

/** `ListControllerRevisions`: same namespace, selector matches, controlled by the set or by nobody. */
export function ownedHistory(view: SetView, revisions: readonly RevisionView[]): RevisionView[] {
  return revisions.filter(
    (r) =>
      obj(r.object.metadata)?.namespace === view.namespace &&
      selectorMatches(view.selector, r.labels) &&
      (r.controller === undefined || r.controller.uid === view.uid),
  );
}

/** strconv.ParseInt(label, 10, 32): the hash label only takes part in equality when it parses this way. */
function parseHashLabel(label: string | undefined): number | null {
  if (label === undefined || !/^[+-]?\d{1,11}$/.test(label)) return null;
  const value = Number(label);
  return value >= -2147483648 && value <= 2147483647 ? value : null;
}

interface Comparable {
  readonly labels: Readonly<Record<string, string>>;
  readonly raw: string | null;
}

/** Upstream `history.EqualRevision`. */
export function equalRevision(a: Comparable, b: Comparable): boolean {
  const left = parseHashLabel(a.labels[LABELS.controllerRevisionHash]);
  const right = parseHashLabel(b.labels[LABELS.controllerRevisionHash]);
  if (left !== null && right !== null && left !== right) return false;
  return a.raw !== null && a.raw === b.raw;
}

/** Upstream `getPatch`: `{"spec":{"template":<template>,"$patch":"replace"}}` in Go's encoding. */
export function revisionRaw(template: PodTemplateSpec): string {
  return goJsonMarshal({ spec: { template: { ...template, $patch: "replace" } } });
}

/** Upstream `ApplyRevision`, narrowed to what it changes: the revision's template; null if unreadable. */
export function templateOfRevision(revision: ControllerRevision): PodTemplateSpec | null {
  const data = revision.data;
  if (!isRecord(data) || !isRecord(data.spec) || !isRecord(data.spec.template)) return null;
  const { $patch: _patch, ...template } = data.spec.template;
  return template;
}

/** JSON equality where a null member equals an absent one (how a typed Go round trip sees them). */
function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => semanticEqual(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) {
    const l = left[key] ?? null;
    const r = right[key] ?? null;
    if (!semanticEqual(l, r)) return false;
  }
  return true;
}

/**
 * StatefulSetSemanticRevisionComparison: the revision describes the live template although its bytes differ, e.g.
 * `"creationTimestamp":null` written by a ≤1.33 serializer.
 */
export function revisionMatchesTemplate(revision: ControllerRevision, template: PodTemplateSpec): boolean {
  const stored = templateOfRevision(revision);
  return stored !== null && semanticEqual(stored, template);
}

export interface RevisionDecision {
  readonly update: { name: string; template: PodTemplateSpec };
  readonly current: { name: string; template: PodTemplateSpec | null };
  readonly collisionCount: number;
  readonly action: CreateRevisionAction | UpdateRevisionAction | null;
  /** The history list upstream truncates (sorted, as listed before this plan's create). */
  readonly history: readonly RevisionView[];
}

/** Collision search stops here; 2^32 names exist, so reaching it means the snapshot is pathological. */
const MAX_COLLISIONS = 1000;

export class RevisionCollisionError extends Error {
  override readonly name = "RevisionCollisionError";
  readonly setName: string;
  readonly attempts: number;

  constructor(setName: string, attempts: number) {
    super(`no free ControllerRevision name for ${setName} after ${attempts} collisions`);
    this.setName = setName;
    this.attempts = attempts;
  }
}

/** Upstream `getStatefulSetRevisions` plus `CreateControllerRevision`'s collision loop, decided from the snapshot. */
export function decideRevisions(
  view: SetView,
  history: RevisionView[],
  namespaceRevisions: ReadonlyMap<string, RevisionView>,
  semanticComparison: boolean,
): RevisionDecision {
  sortRevisions(history);
  const template = view.template;
  const raw = revisionRaw(template);
  let collisionCount = view.status.collisionCount;
  const labelHash = controllerRevisionHash(raw, collisionCount);
  const templateLabels = isRecord(template.metadata?.labels) ? template.metadata.labels : {};
  const candidate: Comparable = { labels: { ...templateLabels, [LABELS.controllerRevisionHash]: labelHash }, raw };
  const next = history.length === 0 ? 1 : (history[history.length - 1]?.revision ?? 0) + 1;

  const equal = history.filter((r) => equalRevision(candidate, r));
  const newest = history[history.length - 1];
  const lastEqual = equal[equal.length - 1];
  let update: { name: string; template: PodTemplateSpec };
  let action: CreateRevisionAction | UpdateRevisionAction | null = null;
  const reuse = (r: RevisionView): { name: string; template: PodTemplateSpec } => ({
    name: r.name,
    template: templateOfRevision(r.object) ?? template,
  });

  if (newest && lastEqual && equalRevision(newest, lastEqual)) {
    update = reuse(newest);
  } else if (semanticComparison && newest && revisionMatchesTemplate(newest.object, template)) {
    update = reuse(newest);
  } else if (lastEqual) {
    update = reuse(lastEqual);
    action = {
      type: "updateRevision",
      name: lastEqual.name,
      preconditions: { uid: lastEqual.uid, resourceVersion: lastEqual.resourceVersion },
      fromRevision: lastEqual.revision,
      revision: next,
      patch: { metadata: { resourceVersion: lastEqual.resourceVersion }, revision: next },
    };
  } else {
    let name = controllerRevisionName(view.name, labelHash);
    let attempts = 0;
    for (;;) {
      const existing = namespaceRevisions.get(name);
      if (!existing) break;
      // CreateControllerRevision: AlreadyExists with identical bytes returns the existing object.
      if (existing.raw === raw) break;
      if (++attempts > MAX_COLLISIONS) throw new RevisionCollisionError(view.name, attempts);
      collisionCount++;
      name = controllerRevisionName(view.name, controllerRevisionHash(raw, collisionCount));
    }
    const existing = namespaceRevisions.get(name);
    if (existing) {
      update = reuse(existing);
    } else {
      update = { name, template };
      action = createRevisionAction(view, name, raw, labelHash, templateLabels, next);
    }
  }

  const currentView = history.find((r) => r.name === view.status.currentRevision);
  const current = currentView
    ? { name: currentView.name, template: templateOfRevision(currentView.object) }
    : { name: update.name, template: update.template };
  return { update, current, collisionCount, action, history };
}

function createRevisionAction(
  view: SetView,
  name: string,
  raw: string,
  labelHash: string,
  templateLabels: Record<string, string>,
  revision: number,
): CreateRevisionAction {
  // Upstream keeps the hash label computed before any collision; only the name moves on.
  const metadata: NonNullable<ControllerRevision["metadata"]> = {
    name,
    namespace: view.namespace,
    labels: { ...templateLabels, [LABELS.controllerRevisionHash]: labelHash },
    ownerReferences: [setControllerRef(view)],
  };
  if (Object.keys(view.annotations).length > 0) metadata.annotations = { ...view.annotations };
  const object: ControllerRevision = {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata,
    data: JSON.parse(raw) as unknown,
    revision,
  };
  const bodyJson = `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":${JSON.stringify(metadata)},"data":${raw},"revision":${revision}}`;
  return { type: "createRevision", name, revision, raw, object, bodyJson };
}

/**
 * Upstream `truncateHistory`: revisions named by the status or by any claimed pod are live; the oldest non-live
 * ones beyond `revisionHistoryLimit` are deleted.
 */
export function revisionsToTruncate(
  history: readonly RevisionView[],
  live: ReadonlySet<string>,
  limit: number,
): RevisionView[] {
  const candidates = history.filter((r) => !live.has(r.name));
  if (limit < 0 || candidates.length <= limit) return [];
  return candidates.slice(0, candidates.length - limit);
}
