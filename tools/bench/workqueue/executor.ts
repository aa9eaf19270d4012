// The baseline's executor: the planner's actions straight against the API server, as kube-controller-manager's
// StatefulPodControl and history client do (claims created by the controller itself, no NATS hop). Every write
// reports the resourceVersion it produced, for the consistency check before the set's next sync.
import { isDeepStrictEqual } from "node:util";
import { assertNever } from "#protocol";
import type { ObjectKind } from "#protocol";
import { KubeApiError, RESOURCES } from "../../../services/common/src/kube.ts";
import type { KubeClient } from "../../../services/common/src/kube.ts";
import { errorKind } from "../../../services/actor/src/runtime/executor.ts";
import type { ActionEvents, ControllerRevision, EventSpec, PlanAction, PlanStep, StatefulSet } from "../../../services/actor/src/planner/index.ts";
import { kubeErrorText } from "../../../services/common/src/errors/kube.ts";

export interface Written {
  readonly kind: ObjectKind;
  readonly resourceVersion: number;
}

export interface StepOutcome {
  readonly errors: unknown[];
  readonly written: Written[];
}

export class AdoptionRefusedError extends Error {
  override readonly name = "AdoptionRefusedError";
  constructor(message: string) {
    super(message);
  }
}

interface Stored {
  metadata?: { resourceVersion?: string };
}

function written(kind: ObjectKind, object: unknown): Written[] {
  const rv = Number((object as Stored | undefined)?.metadata?.resourceVersion);
  return Number.isFinite(rv) ? [{ kind, resourceVersion: rv }] : [];
}

export type RecordEvent = (set: { namespace: string; name: string; uid: string }, event: EventSpec) => void;

export class DirectExecutor {
  private readonly kube: KubeClient;
  private readonly recordEvent: RecordEvent;

  constructor(kube: KubeClient, recordEvent: RecordEvent) {
    this.kube = kube;
    this.recordEvent = recordEvent;
  }

  /** The actions of a step run concurrently, as upstream's goroutines in a slow-start batch. */
  async executeStep(step: PlanStep, set: { namespace: string; name: string; uid: string }): Promise<StepOutcome> {
    const outcome: StepOutcome = { errors: [], written: [] };
    await Promise.all(
      step.actions.map(async (action) => {
        try {
          outcome.written.push(...(await this.perform(action, set)));
          if ("events" in action) this.outcomeEvents(action.events, undefined, set);
        } catch (error) {
          outcome.errors.push(error);
          if ("events" in action) this.outcomeEvents(action.events, error, set);
        }
      }),
    );
    return outcome;
  }

  private outcomeEvents(events: ActionEvents, error: unknown, set: { namespace: string; name: string; uid: string }): void {
    if (error === undefined) {
      for (const event of events.onSuccess) this.recordEvent(set, event);
      return;
    }
    const kind = errorKind(error);
    for (const failure of events.onFailure) {
      if (failure.suppressOn?.includes(kind)) continue;
      this.recordEvent(set, { type: failure.type, reason: failure.reason, action: failure.action, message: failure.messagePrefix + kubeErrorText(error) });
    }
  }

  private async perform(action: PlanAction, set: { namespace: string; name: string; uid: string }): Promise<Written[]> {
    const { kube } = this;
    const ns = set.namespace;
    switch (action.type) {
      case "createRevision": {
        try {
          const created = await kube.request({
            method: "POST",
            path: `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/controllerrevisions`,
            rawBody: action.bodyJson,
            verb: "create",
            resource: "controllerrevisions",
          });
          return written("ControllerRevision", created);
        } catch (error) {
          if (!(error instanceof KubeApiError) || !error.isAlreadyExists) throw error;
          const existing = await kube.get<ControllerRevision>({ ...RESOURCES.controllerrevisions, namespace: ns, name: action.name });
          if (!isDeepStrictEqual(existing.data, JSON.parse(action.raw))) throw error;
          return [];
        }
      }
      case "updateRevision":
        return written("ControllerRevision", await kube.patch({ ...RESOURCES.controllerrevisions, namespace: ns, name: action.name }, action.patch, "merge"));
      case "deleteRevision":
        try {
          await kube.delete({ ...RESOURCES.controllerrevisions, namespace: ns, name: action.name }, { preconditions: action.preconditions });
        } catch (error) {
          if (!(error instanceof KubeApiError) || !error.isNotFound) throw error;
        }
        return [];
      case "verifySetForAdoption": {
        const fresh = await kube.get<StatefulSet>({ ...RESOURCES.statefulsets, namespace: ns, name: action.name });
        if (fresh.metadata?.uid !== action.uid) throw new AdoptionRefusedError(`original StatefulSet ${ns}/${action.name} is gone`);
        if (fresh.metadata.deletionTimestamp) throw new AdoptionRefusedError(`StatefulSet ${ns}/${action.name} is being deleted`);
        return [];
      }
      case "adoptRevision":
      case "adoptPod":
      case "releasePod": {
        const kind = action.type === "adoptRevision" ? "ControllerRevision" : "Pod";
        const ref = action.type === "adoptRevision" ? RESOURCES.controllerrevisions : RESOURCES.pods;
        try {
          return written(kind, await kube.patch({ ...ref, namespace: ns, name: action.name }, action.patch, "strategic"));
        } catch (error) {
          if (action.type !== "adoptRevision" && error instanceof KubeApiError && error.isNotFound) return [];
          throw error;
        }
      }
      case "createClaim":
        // AlreadyExists fails the step, as upstream's createPersistentVolumeClaims (its Event is suppressed).
        return written("PersistentVolumeClaim", await kube.create({ ...RESOURCES.persistentvolumeclaims, namespace: ns }, action.object));
      case "updateClaimOwnerRefs":
        return written("PersistentVolumeClaim", await kube.replace({ ...RESOURCES.persistentvolumeclaims, namespace: ns, name: action.name }, action.object));
      case "createPod":
        return written("Pod", await kube.create({ ...RESOURCES.pods, namespace: ns }, action.object));
      case "updatePod":
        return written("Pod", await kube.replace({ ...RESOURCES.pods, namespace: ns, name: action.name }, action.object));
      case "deletePod":
        try {
          return written("Pod", await kube.delete({ ...RESOURCES.pods, namespace: ns, name: action.name }, { preconditions: action.preconditions }));
        } catch (error) {
          if (!(error instanceof KubeApiError && error.isNotFound && action.ignoreNotFound)) throw error;
          return [];
        }
      case "recordEvent":
        this.recordEvent(set, action.event);
        return [];
      default:
        return assertNever(action, "plan action");
    }
  }
}
