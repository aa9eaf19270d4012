// What the provisioner does to Kubernetes for each command, and what the result means for the message. No NATS
// here: the caller maps a result to ack / nak / term.
//
// pvc.create follows upstream createPersistentVolumeClaims (stateful_pod_control.go): create each claim; a
// claim that already exists is done (our redeliveries make AlreadyExists the normal case, and upstream records no
// event for it); an existing claim that is being deleted is a failure retried later (upstream: "pvc … is being
// deleted"; the actor records the pod's FailedCreate itself); every other failure records FailedCreate with
// recordClaimEvent's text. pvc.updateOwnerRefs rewrites ownerReferences only on the claim incarnation and version
// the actor planned against.
import { RESOURCES } from "../../common/src/kube.ts";
import type { KubeObject, OwnerReference, PvcCreate, PvcUpdateOwnerRefs } from "#protocol";
import { isTransientKubeError, kubeErrorText, retryAfterMs } from "../../common/src/errors/kube.ts";
import type { ExecutorMetrics } from "../../common/src/executor/metrics.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import { KubeApiError } from "../../common/src/kube.ts";

export type ClaimEvent = { readonly eventType: "Normal" | "Warning"; readonly reason: string; readonly note: string };

export interface ClaimDeps {
  readonly kube: KubeApi;
  readonly metrics: ExecutorMetrics;
  /** Publishes an Event about the command's StatefulSet (through the status-writer). */
  recordEvent(event: ClaimEvent): void;
  readonly signal?: AbortSignal;
}

/** Outcome label of a command, also the `outcome` label of stsfleet_pvc_commands_total. */
export type CommandOutcome =
  | "created"
  | "exists"
  | "updated"
  | "unchanged"
  /** The claim is gone: nothing to set owner references on. */
  | "gone"
  /** The claim changed (uid or resourceVersion) since the actor planned: it re-derives. */
  | "stale"
  | "stale-epoch"
  | "terminating"
  /** A failure a later attempt may fix (throttling, server errors, transport). */
  | "retry"
  /** A failure a retry cannot fix (invalid, forbidden, namespace gone). */
  | "failed"
  /** Still failing on the last allowed delivery. */
  | "exhausted";

export interface CommandResult {
  readonly outcome: CommandOutcome;
  /** For retries: the server's Retry-After, if any. */
  readonly retryAfterMs?: number | undefined;
  readonly detail?: string;
}

type PersistentVolumeClaim = KubeObject & {
  metadata: KubeObject["metadata"] & { deletionTimestamp?: string; ownerReferences?: OwnerReference[] };
};

export class InvalidClaimError extends Error {
  override readonly name = "InvalidClaimError";
  readonly claimName: string;

  constructor(claimName: string, problem: string) {
    super(`claim ${JSON.stringify(claimName)}: ${problem}`);
    this.claimName = claimName;
  }
}

/** Checks the bodies a pvc.create carries before anything is written; throws InvalidClaimError. */
export function checkClaims(command: PvcCreate): void {
  const seen = new Set<string>();
  for (const claim of command.claims) {
    const name = claim.metadata.name;
    if (claim.apiVersion !== "v1" || claim.kind !== "PersistentVolumeClaim") {
      throw new InvalidClaimError(name, `is a ${claim.apiVersion} ${claim.kind}, not a v1 PersistentVolumeClaim`);
    }
    const namespace = claim.metadata.namespace;
    if (namespace !== undefined && namespace !== "" && namespace !== command.set.namespace) {
      throw new InvalidClaimError(name, `is in namespace ${namespace}, the StatefulSet in ${command.set.namespace}`);
    }
    if (seen.has(name)) throw new InvalidClaimError(name, "appears twice");
    seen.add(name);
  }
}

function claimRef(namespace: string, name: string) {
  return { ...RESOURCES.persistentvolumeclaims, namespace, name };
}

type ClaimOutcome = "created" | "exists" | "terminating" | "retry" | "failed";

async function createOne(
  command: PvcCreate,
  claim: KubeObject,
  deps: ClaimDeps,
): Promise<{ outcome: ClaimOutcome; retryAfterMs?: number | undefined; detail?: string }> {
  const namespace = command.set.namespace;
  const name = claim.metadata.name;
  const body = {
    ...claim,
    metadata: { ...claim.metadata, namespace, resourceVersion: undefined, uid: undefined, creationTimestamp: undefined },
  };
  const options = deps.signal ? { signal: deps.signal } : {};
  const failed = (error: unknown) => {
    deps.recordEvent({
      eventType: "Warning",
      reason: "FailedCreate",
      note: `create Claim ${name} for Pod ${command.podName} in StatefulSet ${command.set.name} failed error: ${kubeErrorText(error)}`,
    });
    return {
      outcome: isTransientKubeError(error) ? ("retry" as const) : ("failed" as const),
      retryAfterMs: retryAfterMs(error),
      detail: kubeErrorText(error),
    };
  };
  try {
    await deps.kube.create(claimRef(namespace, name), body, options);
    deps.recordEvent({
      eventType: "Normal",
      reason: "SuccessfulCreate",
      note: `create Claim ${name} Pod ${command.podName} in StatefulSet ${command.set.name} success`,
    });
    return { outcome: "created" };
  } catch (error) {
    deps.metrics.countKubeError("create", "persistentvolumeclaims", error);
    if (!(error instanceof KubeApiError && error.isAlreadyExists)) return failed(error);
  }
  // It exists (a redelivery, or created by someone else): done, unless it is on its way out.
  try {
    const existing = await deps.kube.get<PersistentVolumeClaim>(claimRef(namespace, name), options);
    if (existing.metadata.deletionTimestamp) return { outcome: "terminating", detail: `pvc ${name} is being deleted` };
    return { outcome: "exists" };
  } catch (error) {
    deps.metrics.countKubeError("get", "persistentvolumeclaims", error);
    // Deleted between our create and get: the next attempt creates it.
    if (error instanceof KubeApiError && error.isNotFound) return { outcome: "retry", detail: `pvc ${name} vanished` };
    return failed(error);
  }
}

const SEVERITY: Readonly<Record<ClaimOutcome, number>> = { exists: 0, created: 1, failed: 2, terminating: 3, retry: 4 };

/** Creates every claim (in order, as upstream) and reports the most pressing outcome. */
export async function executeCreate(command: PvcCreate, deps: ClaimDeps): Promise<CommandResult> {
  let worst: { outcome: ClaimOutcome; retryAfterMs?: number | undefined; detail?: string } = { outcome: "exists" };
  const details: string[] = [];
  for (const claim of command.claims) {
    const result = await createOne(command, claim, deps);
    if (result.detail) details.push(result.detail);
    if (SEVERITY[result.outcome] > SEVERITY[worst.outcome]) worst = result;
  }
  return { outcome: worst.outcome, retryAfterMs: worst.retryAfterMs, ...(details.length > 0 ? { detail: details.join("; ") } : {}) };
}

function normalizedRefs(refs: readonly OwnerReference[] | undefined): string {
  return JSON.stringify(
    (refs ?? []).map((ref) => [ref.apiVersion, ref.kind, ref.name, ref.uid, ref.controller ?? false, ref.blockOwnerDeletion ?? false]),
  );
}

/** Sets a claim's ownerReferences if it is still the incarnation and version the command was planned against. */
export async function executeUpdateOwnerRefs(command: PvcUpdateOwnerRefs, deps: ClaimDeps): Promise<CommandResult> {
  const ref = claimRef(command.set.namespace, command.claimName);
  const options = deps.signal ? { signal: deps.signal } : {};
  const failure = (error: unknown): CommandResult => ({
    outcome: isTransientKubeError(error) ? "retry" : "failed",
    retryAfterMs: retryAfterMs(error),
    detail: kubeErrorText(error),
  });
  let current: PersistentVolumeClaim;
  try {
    current = await deps.kube.get<PersistentVolumeClaim>(ref, options);
  } catch (error) {
    deps.metrics.countKubeError("get", "persistentvolumeclaims", error);
    if (error instanceof KubeApiError && error.isNotFound) return { outcome: "gone" };
    return failure(error);
  }
  if (current.metadata.uid !== command.claimUid) {
    return { outcome: "stale", detail: `claim uid is ${current.metadata.uid ?? "unset"}, the command's ${command.claimUid}` };
  }
  // Already as wanted (typically our own earlier delivery): done, whatever the version says.
  if (normalizedRefs(current.metadata.ownerReferences) === normalizedRefs(command.ownerReferences)) return { outcome: "unchanged" };
  // Another version than the actor's copy: still the one it planned from if only what it does not read changed (a
  // binding, ADR 0090); the replace below is guarded by the current resourceVersion.
  const ownersAsPlanned = command.fromOwnerReferences !== undefined && normalizedRefs(current.metadata.ownerReferences) === normalizedRefs(command.fromOwnerReferences);
  if (current.metadata.resourceVersion !== command.resourceVersion && !ownersAsPlanned) {
    return {
      outcome: "stale",
      detail: `claim resourceVersion is ${current.metadata.resourceVersion ?? "unset"}, the command's ${command.resourceVersion}`,
    };
  }
  const updated = { ...current, metadata: { ...current.metadata, ownerReferences: command.ownerReferences } };
  try {
    await deps.kube.replace(ref, updated, options);
    return { outcome: "updated" };
  } catch (error) {
    deps.metrics.countKubeError("update", "persistentvolumeclaims", error);
    if (error instanceof KubeApiError && error.isConflict) return { outcome: "stale", detail: kubeErrorText(error) };
    if (error instanceof KubeApiError && error.isNotFound) return { outcome: "gone" };
    return failure(error);
  }
}
