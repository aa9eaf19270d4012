// Human-readable one-liners for plans (the actor's intent log, debugging output, test failure messages).

import { assertNever } from "#protocol";
import type { PlanAction, PlanResult } from "./types.ts";

/** Every action of a plan in execution order. */
export function allActions(result: PlanResult): PlanAction[] {
  return result.steps.flatMap((step) => step.actions);
}

export function describeAction(action: PlanAction): string {
  switch (action.type) {
    case "createRevision":
      return `create revision ${action.name} (#${action.revision})`;
    case "updateRevision":
      return `renumber revision ${action.name} #${action.fromRevision} -> #${action.revision}`;
    case "deleteRevision":
      return `delete revision ${action.name} (#${action.revision})`;
    case "verifySetForAdoption":
      return `verify statefulset ${action.name} can adopt`;
    case "adoptRevision":
      return `adopt revision ${action.name}`;
    case "adoptPod":
      return `adopt pod ${action.name}`;
    case "releasePod":
      return `release pod ${action.name}`;
    case "createClaim":
      return `create claim ${action.name} for pod ${action.podName}`;
    case "updateClaimOwnerRefs":
      return `set owner refs of claim ${action.name} (${action.ownerReferences.map((r) => `${r.kind}/${r.name}`).join(", ") || "none"})`;
    case "createPod":
      return `create pod ${action.name} at ${action.revisionName}`;
    case "updatePod":
      return `repair pod ${action.name} (${action.repairs.join(", ")})`;
    case "deletePod":
      return `delete pod ${action.name} (${action.reason})`;
    case "recordEvent":
      return `event ${action.event.type} ${action.event.reason}: ${action.event.message}`;
    default:
      return assertNever(action, "plan action");
  }
}

/** A compact multi-line rendering of a plan. */
export function describePlan(result: PlanResult): string {
  const lines = result.steps.map(
    (step, index) =>
      `${index}. [${step.phase}${step.blocking ? ", blocking" : ""}] ${step.actions.map(describeAction).join("; ")}`,
  );
  lines.push(`status${result.status.write ? " (write)" : ""}: ${JSON.stringify(result.status.value)}`);
  if (result.syncError !== null) lines.push(`syncError: ${result.syncError}`);
  return lines.join("\n");
}
