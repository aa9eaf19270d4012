// Performs the planner's actions: pods and ControllerRevisions directly against Kubernetes with preconditions,
// claims through the pvc-provisioner (commands on STS_CMD), Events through the status-writer. Each action yields
// the read-your-writes expectations the actor must see in its cache before planning again.
import { isDeepStrictEqual } from "node:util";
import type { NatsConnection } from "@nats-io/transport-node";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { trace } from "@opentelemetry/api";
import { HEADERS, OwnerReferenceSchema, assertNever, codecs, pvcCommandSubjects } from "#protocol";
import type { KubeObject, ObjectKind, PvcUpdateOwnerRefs, SetAddress, SetRef } from "#protocol";
import { FENCING_EPOCH_HEADER, KubeApiError, RESOURCES, fencingEpoch } from "../../../common/src/kube.ts";
import type { KubeClient } from "../../../common/src/kube.ts";
import { NatsEventRecorder, statefulSetRegarding } from "../../../common/src/events.ts";
import type { EventRecorder } from "../../../common/src/events.ts";
import type { Logger } from "../../../common/src/logger.ts";
import { withProducerSpan } from "../../../common/src/messaging-trace.ts";
import type { StreamPublish } from "../../../common/src/stream-publish.ts";
import type { Expectation, Lookup } from "../domain/expectations.ts";
import { AdoptionRefusedError, ClaimsNotReadyError, errorKind, errorText, staleCopyOf } from "./action-errors.ts";
import type {
  ActionEvents,
  AdoptPodAction,
  AdoptRevisionAction,
  ControllerRevision,
  CreateClaimAction,
  CreatePodAction,
  CreateRevisionAction,
  DeletePodAction,
  EventSpec,
  OwnerReference,
  PlanAction,
  PlanStep,
  ReleasePodAction,
  StatefulSet,
  UpdateClaimOwnerRefsAction,
  UpdatePodAction,
  VerifySetForAdoptionAction,
} from "../planner/index.ts";
import { outcomeEvents } from "../planner/index.ts";

export interface TurnContext {
  readonly address: SetAddress;
  readonly set: SetRef;
  readonly epoch: number;
  readonly turn: number;
  /** Aborted when the member loses the shard or its lease (self-fencing). */
  readonly signal: AbortSignal;
  /**
   * Whether the member may still write for this epoch, asked again just before each request goes to the socket: the
   * signal is aborted by a timer, which runs too late after a pause that outlived the lease (ADR 0071, W3).
   */
  readonly mayWrite: () => boolean;
}

export interface ExecutorDeps {
  readonly kube: KubeClient;
  readonly nats: NatsConnection;
  /** Claim commands to STS_CMD, each with its message id (StreamPublisher). */
  readonly commands: StreamPublish;
  readonly member: string;
  readonly lookup: Lookup;
  /** Resolves true once every expectation is met in the cache, false after timeoutMs. */
  readonly waitFor: (expectations: readonly Expectation[], timeoutMs: number, signal: AbortSignal) => Promise<boolean>;
  readonly claimWaitTimeoutMs: number;
  readonly logger: Logger;
  readonly now?: () => number;
  /**
   * A write from the cached copy of this object was refused as stale (409 on its preconditions, or a claim command
   * the provisioner found stale): the stream may hold no newer version (ADR 0090), so the caller asks for one.
   */
  readonly staleCopy?: (ref: { readonly shard: number; readonly kind: ObjectKind; readonly namespace: string; readonly name: string }) => void;
}

export interface StepResult {
  readonly ok: boolean;
  readonly expectations: Expectation[];
  readonly errors: unknown[];
  /** Existing revisions that collided with a create (they must be in the next snapshot). */
  readonly collisions: ControllerRevision[];
}

export { AdoptionRefusedError, ClaimsNotReadyError, errorKind } from "./action-errors.ts";

const tracer = trace.getTracer("stsfleet-actor");

/** What every write of a turn carries: the turn's fencing (signal, mayWrite) and the owner's epoch header. */
type WriteOptions = { readonly signal: AbortSignal; readonly mayWrite: () => boolean; readonly headers: Readonly<Record<string, string>> };

interface ActionOutcome {
  ok: boolean;
  error?: unknown;
  expectations: Expectation[];
  collision?: ControllerRevision;
}

type CommandOwnerReference = PvcUpdateOwnerRefs["ownerReferences"][number];

function commandRef(ref: OwnerReference): CommandOwnerReference {
  return {
    apiVersion: ref.apiVersion ?? "",
    kind: ref.kind ?? "",
    name: ref.name ?? "",
    uid: ref.uid ?? "",
    ...(ref.controller != null ? { controller: ref.controller } : {}),
    ...(ref.blockOwnerDeletion != null ? { blockOwnerDeletion: ref.blockOwnerDeletion } : {}),
  };
}

/** A copy's owner references for a command, or undefined when they are not a list of complete references. */
function commandRefs(value: unknown): CommandOwnerReference[] | undefined {
  const parsed = OwnerReferenceSchema.array().safeParse(value ?? []);
  return parsed.success ? parsed.data : undefined;
}

export class Executor {
  private readonly deps: ExecutorDeps;
  private readonly now: () => number;
  private readonly events: EventRecorder;

  constructor(deps: ExecutorDeps) {
    this.deps = deps;
    this.now = deps.now ?? Date.now;
    this.events = new NatsEventRecorder({ nats: deps.nats, tracer, logger: deps.logger, nowMs: this.now });
  }

  async executeStep(step: PlanStep, ctx: TurnContext): Promise<StepResult> {
    const claimActions = step.actions.filter((a): a is CreateClaimAction => a.type === "createClaim");
    const others = step.actions.filter((a) => a.type !== "createClaim");
    const outcomes = await Promise.all([
      ...others.map((action) => this.execute(action, ctx)),
      ...(claimActions.length > 0 ? [this.createClaims(claimActions, ctx)] : []),
    ]);
    const result: StepResult = { ok: true, expectations: [], errors: [], collisions: [] };
    for (const outcome of outcomes) {
      result.expectations.push(...outcome.expectations);
      if (outcome.collision) result.collisions.push(outcome.collision);
      if (!outcome.ok) result.errors.push(outcome.error);
    }
    return { ...result, ok: result.errors.length === 0 };
  }

  /** Publishes an Event about the StatefulSet to the status-writer (fire and forget, like upstream's recorder). */
  recordEvent(event: EventSpec, ctx: TurnContext): void {
    this.events.record({
      set: ctx.address,
      epoch: ctx.epoch,
      regarding: {
        ...statefulSetRegarding(ctx.set),
        resourceVersion: this.deps.lookup("StatefulSet", ctx.set.namespace, ctx.set.name)?.resourceVersion,
      },
      eventType: event.type,
      reason: event.reason,
      note: event.message,
      // The record needs an action; the recorder cuts it to its 128 characters.
      action: event.action || "Reconcile",
    });
  }

  /** The contract's Events of an action's outcome (outcomeEvents, shared with the planner's reference executor). */
  private recordOutcomeEvents(events: ActionEvents, outcome: ActionOutcome, ctx: TurnContext): void {
    const failure = outcome.ok ? undefined : { kind: errorKind(outcome.error), text: errorText(outcome.error) };
    for (const event of outcomeEvents(events, failure)) this.recordEvent(event, ctx);
  }

  private async execute(action: Exclude<PlanAction, CreateClaimAction>, ctx: TurnContext): Promise<ActionOutcome> {
    const outcome = await this.perform(action, ctx).catch((error: unknown): ActionOutcome => ({ ok: false, error, expectations: [] }));
    if ("events" in action) this.recordOutcomeEvents(action.events, outcome, ctx);
    if (!outcome.ok && this.deps.staleCopy) {
      const stale = staleCopyOf(action, outcome.error);
      if (stale) this.deps.staleCopy({ shard: ctx.address.shard, kind: stale.kind, namespace: ctx.set.namespace, name: stale.name });
    }
    return outcome;
  }

  private async perform(action: Exclude<PlanAction, CreateClaimAction>, ctx: TurnContext): Promise<ActionOutcome> {
    const ns = ctx.set.namespace;
    // The epoch goes on every request so the audit log shows which owner wrote what (single-writer checks).
    const options: WriteOptions = {
      signal: ctx.signal,
      mayWrite: ctx.mayWrite,
      headers: { [FENCING_EPOCH_HEADER]: fencingEpoch(ctx.address.shard, ctx.epoch, this.deps.member) },
    };
    switch (action.type) {
      case "createRevision":
        return this.createRevision(action, ns, options);
      case "updateRevision":
        await this.deps.kube.patch({ ...RESOURCES.controllerrevisions, namespace: ns, name: action.name }, action.patch, "merge", options);
        return {
          ok: true,
          expectations: [
            { type: "changed", kind: "ControllerRevision", namespace: ns, name: action.name, fromResourceVersion: action.preconditions.resourceVersion },
          ],
        };
      case "deleteRevision":
        try {
          await this.deps.kube.delete({ ...RESOURCES.controllerrevisions, namespace: ns, name: action.name }, { preconditions: action.preconditions, ...options });
        } catch (error) {
          if (!(error instanceof KubeApiError) || !error.isNotFound) throw error;
        }
        return { ok: true, expectations: [{ type: "gone", kind: "ControllerRevision", namespace: ns, name: action.name, uid: action.preconditions.uid }] };
      case "verifySetForAdoption":
        return this.verifySetForAdoption(action, ns, options);
      case "adoptRevision":
      case "adoptPod":
      case "releasePod":
        return this.patchOwners(action, ns, options);
      case "updateClaimOwnerRefs":
        return this.updateClaimOwnerRefs(action, ctx);
      case "createPod":
      case "updatePod":
      case "deletePod":
        return this.writePod(action, ns, options);
      case "recordEvent":
        this.recordEvent(action.event, ctx);
        return { ok: true, expectations: [] };
      default:
        return assertNever(action, "plan action");
    }
  }

  private async createRevision(action: CreateRevisionAction, ns: string, options: WriteOptions): Promise<ActionOutcome> {
    const { kube } = this.deps;
    try {
      await kube.request({
        method: "POST",
        path: `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/controllerrevisions`,
        rawBody: action.bodyJson,
        verb: "create",
        resource: "controllerrevisions",
        ...options,
      });
    } catch (error) {
      if (!(error instanceof KubeApiError) || !error.isAlreadyExists) throw error;
      const existing = await kube.get<ControllerRevision>({ ...RESOURCES.controllerrevisions, namespace: ns, name: action.name }, options);
      if (!isDeepStrictEqual(existing.data, JSON.parse(action.raw))) {
        return { ok: false, error, expectations: [], collision: existing };
      }
    }
    return { ok: true, expectations: [{ type: "exists", kind: "ControllerRevision", namespace: ns, name: action.name }] };
  }

  /** Upstream canAdoptFunc: an uncached read decides, not the cache. */
  private async verifySetForAdoption(action: VerifySetForAdoptionAction, ns: string, options: WriteOptions): Promise<ActionOutcome> {
    const fresh = await this.deps.kube.get<StatefulSet>({ ...RESOURCES.statefulsets, namespace: ns, name: action.name }, options);
    if (fresh.metadata?.uid !== action.uid) {
      throw new AdoptionRefusedError(`original StatefulSet ${ns}/${action.name} is gone: got uid ${fresh.metadata?.uid ?? "none"}, wanted ${action.uid}`);
    }
    if (fresh.metadata.deletionTimestamp) {
      throw new AdoptionRefusedError(`StatefulSet ${ns}/${action.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
    return { ok: true, expectations: [] };
  }

  private async patchOwners(action: AdoptRevisionAction | AdoptPodAction | ReleasePodAction, ns: string, options: WriteOptions): Promise<ActionOutcome> {
    const kind = action.type === "adoptRevision" ? "ControllerRevision" : "Pod";
    const ref = action.type === "adoptRevision" ? RESOURCES.controllerrevisions : RESOURCES.pods;
    const before = this.deps.lookup(kind, ns, action.name)?.resourceVersion;
    try {
      await this.deps.kube.patch({ ...ref, namespace: ns, name: action.name }, action.patch, "strategic", options);
    } catch (error) {
      if (action.type !== "adoptRevision" && error instanceof KubeApiError && error.isNotFound) return { ok: true, expectations: [] };
      throw error;
    }
    return {
      ok: true,
      expectations: before ? [{ type: "changed", kind, namespace: ns, name: action.name, fromResourceVersion: before }] : [],
    };
  }

  private async updateClaimOwnerRefs(action: UpdateClaimOwnerRefsAction, ctx: TurnContext): Promise<ActionOutcome> {
    const ns = ctx.set.namespace;
    // The owners of the copy planned from: the provisioner updates a claim whose version moved only by a quiet
    // change (its binding, ADR 0090) instead of refusing it as stale.
    const copy = this.deps.lookup("PersistentVolumeClaim", ns, action.name);
    const fromOwnerReferences =
      copy?.resourceVersion === action.preconditions.resourceVersion ? commandRefs(copy.object.metadata?.ownerReferences) : undefined;
    this.publishPvcCommand(ctx, {
      type: "pvc.updateOwnerRefs",
      claimName: action.name,
      claimUid: action.preconditions.uid,
      resourceVersion: action.preconditions.resourceVersion,
      ownerReferences: action.ownerReferences.map(commandRef),
      ...(fromOwnerReferences ? { fromOwnerReferences } : {}),
    }, `refs/${action.name}/${action.preconditions.resourceVersion}`);
    // Upstream updates the claim synchronously: a condemned pod must not be deleted before its claim names
    // the pod as owner (or garbage collection would never remove the claim). Wait until the cache shows it.
    const expectations: Expectation[] = [
      { type: "changed", kind: "PersistentVolumeClaim", namespace: ns, name: action.name, fromResourceVersion: action.preconditions.resourceVersion },
    ];
    if (await this.deps.waitFor(expectations, this.deps.claimWaitTimeoutMs, ctx.signal)) return { ok: true, expectations };
    return { ok: false, error: new ClaimsNotReadyError([action.name], this.deps.claimWaitTimeoutMs), expectations };
  }

  private async writePod(action: CreatePodAction | UpdatePodAction | DeletePodAction, ns: string, options: WriteOptions): Promise<ActionOutcome> {
    const { kube } = this.deps;
    switch (action.type) {
      case "createPod":
        await kube.create<KubeObject>({ ...RESOURCES.pods, namespace: ns }, action.object, options);
        return { ok: true, expectations: [{ type: "exists", kind: "Pod", namespace: ns, name: action.name }] };
      case "updatePod":
        await kube.replace({ ...RESOURCES.pods, namespace: ns, name: action.name }, action.object, options);
        return {
          ok: true,
          expectations: [{ type: "changed", kind: "Pod", namespace: ns, name: action.name, fromResourceVersion: action.preconditions.resourceVersion }],
        };
      case "deletePod":
        try {
          await kube.delete({ ...RESOURCES.pods, namespace: ns, name: action.name }, { preconditions: action.preconditions, ...options });
        } catch (error) {
          if (!(error instanceof KubeApiError && error.isNotFound && action.ignoreNotFound)) throw error;
        }
        return { ok: true, expectations: [{ type: "gone", kind: "Pod", namespace: ns, name: action.name, uid: action.preconditions.uid }] };
      default:
        return assertNever(action, "pod action");
    }
  }

  private publishPvcCommand(
    ctx: TurnContext,
    body:
      | { type: "pvc.create"; podName: string; ordinal: number; claims: KubeObject[] }
      | { type: "pvc.updateOwnerRefs"; claimName: string; claimUid: string; resourceVersion: string; ownerReferences: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[] },
    idSuffix: string,
  ): void {
    const commandId = `${ctx.set.uid}/${ctx.epoch}/${ctx.turn}/${idSuffix}`;
    const base = { shard: ctx.address.shard, epoch: ctx.epoch, commandId, issuedBy: this.deps.member, set: ctx.set };
    const bytes = codecs.pvcCommand.encode({ ...base, ...body });
    const headers = natsHeaders();
    headers.set(HEADERS.msgId, commandId);
    headers.set(HEADERS.shard, String(ctx.address.shard));
    headers.set(HEADERS.epoch, String(ctx.epoch));
    const subject = pvcCommandSubjects.build(ctx.address);
    const target = { template: pvcCommandSubjects.template, subject, shard: ctx.address.shard, messageId: commandId, bodySize: bytes.length };
    void withProducerSpan(tracer, target, headers, () => this.deps.commands.publish(subject, bytes, { msgId: commandId, headers }))
      .catch((error: unknown) => this.deps.logger.warn({ err: error, commandId }, "could not publish claim command"));
  }

  /** Claims of one step go to the provisioner (one command per pod); the step waits until they are in the cache. */
  private async createClaims(actions: readonly CreateClaimAction[], ctx: TurnContext): Promise<ActionOutcome> {
    const byPod = new Map<string, CreateClaimAction[]>();
    for (const action of actions) byPod.set(action.podName, [...(byPod.get(action.podName) ?? []), action]);
    const ns = ctx.set.namespace;
    for (const [podName, claims] of byPod) {
      this.publishPvcCommand(
        ctx,
        { type: "pvc.create", podName, ordinal: claims[0]?.ordinal ?? -1, claims: claims.map((c) => c.object as KubeObject) },
        `claims/${podName}`,
      );
    }
    const expectations: Expectation[] = actions.map((a) => ({ type: "exists", kind: "PersistentVolumeClaim", namespace: ns, name: a.name }));
    const ready = await this.deps.waitFor(expectations, this.deps.claimWaitTimeoutMs, ctx.signal);
    if (ready) return { ok: true, expectations };
    return { ok: false, error: new ClaimsNotReadyError(actions.map((a) => a.name), this.deps.claimWaitTimeoutMs), expectations };
  }
}
