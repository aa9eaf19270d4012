// Reads an untrusted StatefulSet into a normalized view, applying the API server's defaults
// (SetDefaults_StatefulSet) to fields a test or a foreign client may have left out, and rejecting what the
// planner cannot act on safely. Problems become a Warning Event, never an exception.

import { compileSelector, selectorMatches } from "./selector.ts";
import type { CompiledSelector } from "./selector.ts";
import type {
  PersistentVolumeClaim,
  PlanOptions,
  PodTemplateSpec,
  StatefulSet,
  StatefulSetCondition,
  StatefulSetStatus,
} from "./types.ts";
import { isRecord, nonNegativeInt, obj } from "./util.ts";

/** Beyond this a single plan would allocate unreasonably; no cluster runs that many pods in one set. */
export const MAX_REPLICAS = 100_000;
const INT32_MAX = 2_147_483_647;

export const RETAIN = "Retain";
export const DELETE = "Delete";

export interface RollingUpdateView {
  partition: number;
  /** Raw IntOrString; null when absent (the controller then uses 1). */
  maxUnavailable: number | string | null;
}

/** The set's current status with every field present (absent counters read as 0, like Go's zero values). */
export interface StatusView extends StatefulSetStatus {
  conditions: StatefulSetCondition[];
}

export interface ClaimTemplateView {
  name: string;
  template: PersistentVolumeClaim;
}

export interface SetView {
  readonly object: StatefulSet;
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly generation: number;
  readonly deleting: boolean;
  readonly annotations: Readonly<Record<string, string>>;
  readonly replicas: number;
  /** `ordinals.start`, 0 when unset. */
  readonly start: number;
  readonly selector: CompiledSelector;
  readonly template: PodTemplateSpec;
  readonly claimTemplates: readonly ClaimTemplateView[];
  readonly serviceName: string;
  /** Not Parallel: one pod at a time (upstream `!allowsBurst`). */
  readonly monotonic: boolean;
  readonly podManagementPolicy: string;
  readonly strategyType: string;
  readonly rollingUpdate: RollingUpdateView | null;
  /** Negative disables truncation, like upstream. */
  readonly historyLimit: number;
  readonly minReadySeconds: number;
  readonly whenScaled: string;
  readonly whenDeleted: string;
  readonly status: StatusView;
}

export type SpecProblem = { reason: "InvalidSpec" | "InvalidSelector"; message: string };
export type SpecResult = { ok: true; view: SetView } | { ok: false; problem: SpecProblem };

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

export function readStatus(set: StatefulSet): StatusView {
  const status = isRecord(set.status) ? set.status : {};
  return {
    observedGeneration: nonNegativeInt(status.observedGeneration, 0),
    replicas: nonNegativeInt(status.replicas, 0),
    readyReplicas: nonNegativeInt(status.readyReplicas, 0),
    currentReplicas: nonNegativeInt(status.currentReplicas, 0),
    updatedReplicas: nonNegativeInt(status.updatedReplicas, 0),
    availableReplicas: nonNegativeInt(status.availableReplicas, 0),
    currentRevision: stringOr(status.currentRevision, ""),
    updateRevision: stringOr(status.updateRevision, ""),
    collisionCount: nonNegativeInt(status.collisionCount, 0),
    conditions: Array.isArray(status.conditions) ? status.conditions.filter((c): c is StatefulSetCondition => isRecord(c)) : [],
  };
}

function readRollingUpdate(set: StatefulSet, options: PlanOptions): { type: string; rollingUpdate: RollingUpdateView | null } {
  const strategy = set.spec?.updateStrategy;
  const defaultMaxUnavailable = options.maxUnavailableStatefulSet ? 1 : null;
  if (!isRecord(strategy) || typeof strategy.type !== "string" || strategy.type === "") {
    // SetDefaults_StatefulSet creates the rollingUpdate struct only when it defaults the type.
    const given = isRecord(strategy) && isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    return {
      type: "RollingUpdate",
      rollingUpdate: {
        partition: nonNegativeInt(given.partition, 0),
        maxUnavailable: readMaxUnavailable(given.maxUnavailable) ?? defaultMaxUnavailable,
      },
    };
  }
  const given = strategy.rollingUpdate;
  if (!isRecord(given)) return { type: strategy.type, rollingUpdate: null };
  return {
    type: strategy.type,
    rollingUpdate: {
      partition: nonNegativeInt(given.partition, 0),
      maxUnavailable:
        readMaxUnavailable(given.maxUnavailable) ??
        (strategy.type === "RollingUpdate" ? defaultMaxUnavailable : null),
    },
  };
}

function readMaxUnavailable(value: unknown): number | string | null {
  return typeof value === "number" || typeof value === "string" ? value : null;
}

/** The claim templates, each named; or the problem with them (an InvalidSpec message). */
function readClaimTemplates(value: unknown): ClaimTemplateView[] | string {
  const rawClaims: unknown = value ?? [];
  if (!Array.isArray(rawClaims)) return "spec.volumeClaimTemplates must be a list";
  const claimTemplates: ClaimTemplateView[] = [];
  for (const [index, claim] of (rawClaims as unknown[]).entries()) {
    const claimName = isRecord(claim) && isRecord(claim.metadata) ? claim.metadata.name : undefined;
    if (typeof claimName !== "string" || claimName === "") return `spec.volumeClaimTemplates[${index}].metadata.name is missing`;
    claimTemplates.push({ name: claimName, template: claim as PersistentVolumeClaim });
  }
  return claimTemplates;
}

/** Normalizes and validates; the result is either a usable view or the one problem to report. */
export function readSet(set: StatefulSet, options: PlanOptions): SpecResult {
  const invalid = (message: string): SpecResult => ({ ok: false, problem: { reason: "InvalidSpec", message } });
  const meta = obj(set.metadata) ?? {};
  const name = meta.name;
  const namespace = meta.namespace;
  const uid = meta.uid;
  if (typeof name !== "string" || name === "") return invalid("metadata.name is missing");
  if (typeof namespace !== "string" || namespace === "") return invalid("metadata.namespace is missing");
  if (typeof uid !== "string" || uid === "") return invalid("metadata.uid is missing");
  const spec = obj(set.spec) ?? {};

  const replicasRaw: unknown = spec.replicas ?? 1;
  if (typeof replicasRaw !== "number" || !Number.isSafeInteger(replicasRaw) || replicasRaw < 0) {
    return invalid(`spec.replicas must be a non-negative integer, got ${JSON.stringify(replicasRaw)}`);
  }
  if (replicasRaw > MAX_REPLICAS) return invalid(`spec.replicas ${replicasRaw} exceeds ${MAX_REPLICAS}`);
  const startRaw: unknown = isRecord(spec.ordinals) ? (spec.ordinals.start ?? 0) : 0;
  if (typeof startRaw !== "number" || !Number.isSafeInteger(startRaw) || startRaw < 0) {
    return invalid(`spec.ordinals.start must be a non-negative integer, got ${JSON.stringify(startRaw)}`);
  }
  if (startRaw + replicasRaw - 1 > INT32_MAX) {
    return invalid(`ordinals ${startRaw}..${startRaw + replicasRaw - 1} do not fit a pod name ordinal (int32)`);
  }

  const template = spec.template;
  if (!isRecord(template)) return invalid("spec.template is missing");
  const templateMeta = isRecord(template.metadata) ? template.metadata : {};

  const compiled = compileSelector(spec.selector);
  if (!compiled.ok) return { ok: false, problem: { reason: "InvalidSelector", message: compiled.reason } };
  if (compiled.selector.empty) {
    return { ok: false, problem: { reason: "InvalidSelector", message: "empty selector is invalid for statefulset" } };
  }
  const templateLabels = isRecord(templateMeta.labels) ? (templateMeta.labels as Record<string, string>) : {};
  if (!selectorMatches(compiled.selector, templateLabels)) {
    return {
      ok: false,
      problem: { reason: "InvalidSelector", message: "selector does not match template labels" },
    };
  }

  const claimTemplates = readClaimTemplates(spec.volumeClaimTemplates);
  if (typeof claimTemplates === "string") return invalid(claimTemplates);

  const { type, rollingUpdate } = readRollingUpdate(set, options);
  const retention = isRecord(spec.persistentVolumeClaimRetentionPolicy) ? spec.persistentVolumeClaimRetentionPolicy : {};
  const historyLimitRaw = spec.revisionHistoryLimit;
  const policy = stringOr(spec.podManagementPolicy, "OrderedReady") || "OrderedReady";
  const view: SetView = {
    object: set,
    name,
    namespace,
    uid,
    generation: nonNegativeInt(meta.generation, 0),
    deleting: typeof meta.deletionTimestamp === "string" && meta.deletionTimestamp !== "",
    annotations: isRecord(meta.annotations) ? (meta.annotations) : {},
    replicas: replicasRaw,
    start: startRaw,
    selector: compiled.selector,
    template: template,
    claimTemplates,
    serviceName: stringOr(spec.serviceName, ""),
    monotonic: policy !== "Parallel",
    podManagementPolicy: policy,
    strategyType: type,
    rollingUpdate,
    historyLimit:
      typeof historyLimitRaw === "number" && Number.isSafeInteger(historyLimitRaw) ? historyLimitRaw : 10,
    minReadySeconds: nonNegativeInt(spec.minReadySeconds, 0),
    whenScaled: stringOr(retention.whenScaled, RETAIN) || RETAIN,
    whenDeleted: stringOr(retention.whenDeleted, RETAIN) || RETAIN,
    status: readStatus(set),
  };
  return { ok: true, view };
}
