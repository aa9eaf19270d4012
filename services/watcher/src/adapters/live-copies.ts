// Live copies of the active watcher's wants (ADR 0084): every new want of a subject is stamped with the next
// publication version (header Sts-Pub) and sent as a core NATS message on the object's live subject (live.<shard>.…)
// unless the stream acknowledged the same want within `delayMs` (ADR 0085): owners subscribe to their shards' live
// subjects, so they keep seeing changes while K8S_OBJS has no leader (a crashed NATS node costs it a 4-9 s Raft
// election, and publishes to it then time out), while a healthy stream, which acks in milliseconds, carries each
// change once instead of twice. While the publisher is paused after a failure, and for live-only tombstones, copies
// go out at once. The stream publish of the same want carries the same version and bytes, so an owner that already
// has the live copy skips it without decoding; each retried attempt sends the live copy again for owners that
// missed it.
import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import type { MsgHdrs } from "@nats-io/transport-node";
import { codecs, liveObjectSubjects } from "#protocol";
import type { PublicationClock, PublicationVersion } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import { messagingAttributes } from "../../../common/src/messaging-trace.ts";
import { sameContent } from "../domain/subject-messages.ts";
import type { ChangedWant, MessageContent, PublishCommand } from "../domain/subject-messages.ts";
import type { MirrorState } from "../domain/state.ts";
import type { WatcherMetrics } from "../metrics.ts";
import type { EventContexts } from "./event-contexts.ts";
import { objectEnvelope, objectHeaders } from "./object-messages.ts";

/** Where the live copies go: core NATS publish, fire and forget (NatsConnection satisfies it). */
export interface LiveObjects {
  publish(subject: string, payload: Uint8Array, options: { headers: MsgHdrs }): void;
}

/** The live copy sent for a subject's current want: its stream publish reuses the version and the bytes. */
export interface LiveCopy extends MessageContent {
  readonly version: PublicationVersion;
  readonly payload: Uint8Array;
  /** Stream publishes of it so far: the first goes right after the announcement, later ones resend the live copy. */
  attempts: number;
}

/** Live copies kept beyond the subjects still owed a publish before the stale ones are pruned. */
const LIVE_COPIES_SLACK = 10_000;

/** A live copy waiting for its stream ack (see delayMs). */
interface HeldLiveCopy {
  readonly copy: LiveCopy;
  readonly want: ChangedWant;
  readonly dueAtMs: number;
}

export interface LiveCopiesDeps {
  readonly live: LiveObjects;
  readonly state: MirrorState;
  readonly metrics: Pick<WatcherMetrics, "liveSent" | "liveErrors" | "liveSkipped">;
  readonly logger: Logger;
  readonly tracer: Tracer;
  readonly contexts: EventContexts;
  /** How long a new want's copy waits for the stream to ack the same want; 0 sends every copy at once. */
  readonly delayMs: number;
}

export class LiveCopies {
  private readonly deps: LiveCopiesDeps;
  /** The copy announced for each subject's current want, until its stream publish is acked. */
  private readonly copies = new Map<string, LiveCopy>();
  /** Live copies not sent yet, by object subject, oldest first (Map order: a subject's newer want re-inserts it). */
  private readonly held = new Map<string, HeldLiveCopy>();
  private heldTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(deps: LiveCopiesDeps) {
    this.deps = deps;
  }

  /** Forgets every copy: a new activation (or standby) stamps its own versions. */
  reset(): void {
    this.copies.clear();
    this.held.clear();
  }

  /** Sends nothing more; held copies are dropped. */
  close(): void {
    this.closed = true;
    clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    this.held.clear();
  }

  /**
   * Gives every want that appeared or changed a live copy: sent at once while `paused` (and for live-only
   * tombstones), otherwise held for delayMs in case the stream acks it first (see the top of this file).
   */
  announce(changed: readonly ChangedWant[], clock: PublicationClock, paused: boolean): void {
    const { state, delayMs } = this.deps;
    const nowMs = performance.now();
    for (const want of changed) {
      const envelope = objectEnvelope(state, want);
      if (!envelope) continue;
      const copy: LiveCopy = { uid: want.uid, rv: want.rv, op: want.op, version: clock.next(), payload: codecs.objectEnvelope.encode(envelope), attempts: 0 };
      // A live-only tombstone has no stream publish to share its version with.
      if (want.liveOnly !== true) this.copies.set(want.subject, copy);
      // A newer want replaces the subject's held copy (and re-inserts it at the end: Map order is due order).
      this.held.delete(want.subject);
      if (delayMs > 0 && want.liveOnly !== true && !paused) {
        this.held.set(want.subject, { copy, want, dueAtMs: nowMs + delayMs });
        continue;
      }
      this.announceLive(want, copy);
    }
    this.scheduleHeld();
    // A subject that became clean without a publish of its last want (rare: its content went back to what the stream
    // holds) would keep its copy; prune those once there are many.
    if (this.copies.size > state.ledger.pending + LIVE_COPIES_SLACK) {
      for (const subject of this.copies.keys()) if (!state.ledger.isDirty(subject)) this.copies.delete(subject);
    }
  }

  /** The stream is failing: owners get every change live from now on, the held ones included. */
  sendAllHeld(): void {
    this.sendHeld(Number.POSITIVE_INFINITY);
  }

  /** The copy announced for exactly this command's want, whose version and bytes its stream publish reuses. */
  copyOf(command: PublishCommand): LiveCopy | undefined {
    const announced = this.copies.get(command.subject);
    return sameContent(announced, command) ? announced : undefined;
  }

  /**
   * Right before a stream publish: a retry (an owner may have missed the copy while reconnecting), or a versioned
   * publish with no copy, sends the message live as well; a publish right after its announcement does not.
   */
  beforePublish(subject: string, copy: LiveCopy | undefined, version: PublicationVersion | undefined, payload: Uint8Array, h: MsgHdrs): void {
    if (version !== undefined && (copy === undefined || copy.attempts > 0)) {
      this.dropHeld(subject, copy);
      this.send(subject, payload, h);
    }
    if (copy !== undefined) copy.attempts++;
  }

  /** The stream took this want: its held live copy, if any, is not needed. */
  acked(subject: string, copy: LiveCopy | undefined): void {
    if (this.dropHeld(subject, copy)) this.deps.metrics.liveSkipped.inc();
    if (copy !== undefined && this.copies.get(subject) === copy) this.copies.delete(subject);
  }

  /** Sends one want's live copy in its own PRODUCER span. */
  private announceLive(want: ChangedWant, copy: LiveCopy): void {
    const live = liveObjectSubjects.fromObjectSubject(want.subject);
    const parent = this.deps.contexts.get(want.key, want.rv) ?? ROOT_CONTEXT;
    const span = this.deps.tracer.startSpan(
      `send ${liveObjectSubjects.template}`,
      { kind: SpanKind.PRODUCER, attributes: messagingAttributes("send", { template: liveObjectSubjects.template, subject: live, shard: want.shard }) },
      parent,
    );
    this.send(want.subject, copy.payload, objectHeaders(want, copy.version, trace.setSpan(parent, span)));
    span.end();
  }

  /** Sends the held live copies due by `untilMs` (all of them with Infinity). */
  private sendHeld(untilMs: number): void {
    for (const [subject, held] of this.held) {
      if (held.dueAtMs > untilMs) break;
      this.held.delete(subject);
      this.announceLive(held.want, held.copy);
    }
  }

  private scheduleHeld(): void {
    if (this.heldTimer !== undefined || this.closed) return;
    const first = this.held.values().next();
    if (first.done === true) return;
    this.heldTimer = setTimeout(() => {
      this.heldTimer = undefined;
      this.sendHeld(performance.now());
      this.scheduleHeld();
    }, Math.max(0, first.value.dueAtMs - performance.now()));
  }

  /** Forgets the subject's held live copy if it is `copy`; true when it was. */
  private dropHeld(subject: string, copy: LiveCopy | undefined): boolean {
    if (copy === undefined || this.held.get(subject)?.copy !== copy) return false;
    this.held.delete(subject);
    return true;
  }

  /** A live copy; before a stream publish with the same headers, which adds its own (message id, expected sequence). */
  private send(subject: string, payload: Uint8Array, h: MsgHdrs): void {
    try {
      this.deps.live.publish(liveObjectSubjects.fromObjectSubject(subject), payload, { headers: h });
      this.deps.metrics.liveSent.inc();
    } catch (error) {
      // The stream publish decides; a live copy is best effort.
      this.deps.metrics.liveErrors.inc();
      this.deps.logger.debug({ err: error, subject }, "live copy not sent");
    }
  }
}
