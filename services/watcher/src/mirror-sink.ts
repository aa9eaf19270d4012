// What the reflectors' lists and watch events do to the watcher's mirror (upstream's addPod/updatePod/deletePod:
// resolve, apply, hand on): each item is parsed, and one that cannot be mirrored is counted and logged once per kind
// and reason; the rest is applied to the MirrorState, the objects gauge follows, and the publisher is kicked for
// whatever the ledger now owes. A watch event gets its own CONSUMER span, kept per object while a publish is owed,
// so the publishes it causes continue its trace (without relying on a context manager).
import { context, SpanKind, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import type { Logger } from "../../common/src/logger.ts";
import type { EventContexts } from "./adapters/event-contexts.ts";
import type { ReflectorSink } from "./adapters/reflector.ts";
import { WATCHED_KINDS, kindName, objectKey, parseWatchedObject } from "./domain/objects.ts";
import type { RejectReason, WatchedKind, WatchedObject } from "./domain/objects.ts";
import { MirrorState } from "./domain/state.ts";
import type { WatcherMetrics } from "./metrics.ts";

/** The namespaces a watcher mirrors: one (--namespace), or every namespace when it is undefined. */
export function watchScope(namespace: string | undefined): (namespace: string) => boolean {
  return (candidate) => namespace === undefined || candidate === namespace;
}

/** An empty mirror of the scope; changes no owner reads are counted as quiet, not published (ADR 0090). */
export function createMirrorState(namespace: string | undefined, metrics: Pick<WatcherMetrics, "quietChanges">): MirrorState {
  return new MirrorState({
    inScope: watchScope(namespace),
    republishSeed: Date.now(),
    onQuiet: (kind) => metrics.quietChanges.inc({ kind }),
  });
}

export interface MirrorSinkDeps {
  readonly state: MirrorState;
  readonly metrics: Pick<WatcherMetrics, "rejectedObjects" | "objects" | "synced">;
  readonly logger: Logger;
  readonly tracer: Tracer;
  /** Where an event's trace context is kept for the publishes it causes. */
  readonly contexts: EventContexts;
  /** Starts the publishes the ledger now owes (Publisher.kick); cheap, called after every change. */
  readonly kick: () => void;
}

export class MirrorSink {
  private readonly deps: MirrorSinkDeps;
  /** `<kind>/<reason>` already logged: a bad object is relisted and re-sent, its warning is not. */
  private readonly rejectedLogged = new Set<string>();

  constructor(deps: MirrorSinkDeps) {
    this.deps = deps;
  }

  /** The sink of one kind's reflector. */
  forKind(kind: WatchedKind): ReflectorSink {
    return {
      replace: (items) => this.replace(kind, items),
      event: (type, item) => this.event(kind, type, item),
    };
  }

  /** A complete list of `kind`: replaces what the mirror had of it. */
  replace(kind: WatchedKind, items: readonly unknown[]): void {
    const objects: WatchedObject[] = [];
    for (const item of items) {
      const parsed = parseWatchedObject(kind, item);
      if (parsed.ok) objects.push(parsed.object);
      else this.reject(kind, parsed.reason, parsed.detail);
    }
    const report = this.deps.state.replace(kind, objects);
    this.deps.logger.debug({ kind: kindName(kind), ...report }, "list applied");
    this.changed(kind);
  }

  /** One watch event of `kind`, in its own span. */
  event(kind: WatchedKind, type: "ADDED" | "MODIFIED" | "DELETED", item: unknown): void {
    const parsed = parseWatchedObject(kind, item);
    if (!parsed.ok) return this.reject(kind, parsed.reason, parsed.detail);
    const { state, tracer, contexts } = this.deps;
    const object = parsed.object;
    const key = objectKey(kind, object.namespace, object.name);
    const span = tracer.startSpan(
      `process k8s.watch.${kind}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          "k8s.namespace.name": object.namespace,
          "stsfleet.object.kind": kindName(kind),
          "stsfleet.object.name": object.name,
          "stsfleet.object.uid": object.uid,
          "stsfleet.object.resource_version": object.resourceVersion,
          "stsfleet.watch.event": type,
        },
      },
      context.active(),
    );
    const eventContext = trace.setSpan(context.active(), span);
    try {
      context.with(eventContext, () => {
        if (type === "DELETED") state.remove(kind, object.namespace, object.name, { uid: object.uid, rv: object.resourceVersion });
        else state.upsert(object);
      });
      if (state.ledger.hasWork(key)) contexts.set(key, object.resourceVersion, eventContext);
    } finally {
      span.end();
    }
    this.changed(kind);
  }

  /**
   * The first list of `kind` was applied (each loop says so once); once every kind's has been, the mirror is complete
   * and publishing starts.
   */
  synced(kind: WatchedKind): void {
    const { state, metrics, logger } = this.deps;
    if (!state.markSynced(kind)) return;
    metrics.synced.set(1);
    logger.info({ objects: Object.fromEntries(WATCHED_KINDS.map((k) => [k, state.count(k)])) }, "initial lists synced");
    this.deps.kick();
  }

  private changed(kind: WatchedKind): void {
    this.deps.metrics.objects.set({ kind }, this.deps.state.count(kind));
    this.deps.kick();
  }

  private reject(kind: WatchedKind, reason: RejectReason, detail: string): void {
    this.deps.metrics.rejectedObjects.inc({ kind, reason });
    const once = `${kind}/${reason}`;
    if (this.rejectedLogged.has(once)) return;
    this.rejectedLogged.add(once);
    this.deps.logger.warn({ kind: kindName(kind), reason, detail }, "object from the API server ignored (logged once per reason)");
  }
}
