// Serves `svc.reread.<shard>.<kind>.<ns>.<name>`: an owner could not read the last message of an object subject
// (garbage, or a message about another object than its subject names) and asks for it to be repaired (ADR 0088).
// Every watcher subscribes (no queue group), only the active one answers, and only once its mirror is complete: a
// standby's silence makes the owner ask again later. The active watcher reads the subject's last message back with
// its payload, lets the ledger decide against the mirror, and kicks the publisher:
// - the mirror has an object there: its PUT is published again (answer `republishing`);
// - the object is gone or moved: a tombstone with the identity the owners knew it by (`republishing`);
// - the mirror knows no object there and the message is foreign: the subject is purged up to it (`absent`);
// - the message is this watcher's own and agrees with the mirror: nothing to do (`valid`).
// The republished object comes from the mirror, which the list-watch keeps in watch order, not from a GET: a GET
// could return a version newer than the watch has delivered, and resourceVersions cannot be compared to put the two
// back in order; the single-writer, watch-ordered publication of ADR 0084 stays as it is.
// Requests for one subject are answered by one verification at a time; at most VERIFY_CONCURRENCY run at once.
import { SpanStatusCode } from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { DecodeError, OBJECT_KINDS, SubjectError, codecs, rereadSubjects } from "#protocol";
import type { ObjectRereadOutcome } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import { withConsumerSpan } from "../../../common/src/messaging-trace.ts";
import { Semaphore } from "../../../common/src/semaphore.ts";
import type { Ledger } from "../domain/ledger.ts";
import type { WatcherMetrics } from "../metrics.ts";
import { readLastOnSubject } from "./stream-index.ts";

/** Verifications (one direct get, maybe a purge) in flight at once. */
const VERIFY_CONCURRENCY = 16;

export interface RereadServerDeps {
  readonly connection: Pick<NatsConnection, "subscribe">;
  readonly jsm: JetStreamManager;
  readonly stream: string;
  readonly ledger: Ledger;
  /** Namespaces this watcher mirrors: another watcher answers for the rest. */
  readonly inScope: (namespace: string) => boolean;
  /** Starts the publishes the ledger now owes (Publisher.kick). */
  readonly kick: () => void;
  readonly metrics: WatcherMetrics;
  /** Counts a request that could not be read (stsfleet_dropped_messages_total). */
  readonly dropped: (reason: string) => void;
  readonly logger: Logger;
  readonly tracer: Tracer;
}

/** What a request is answered with; undefined: not answered (standby, out of scope, or the read failed). */
type Answer = { readonly outcome: ObjectRereadOutcome; readonly seq: number } | undefined;

export class RereadServer {
  private readonly deps: RereadServerDeps;
  private readonly verifying = new Map<string, Promise<Answer>>();
  private readonly limit = new Semaphore(VERIFY_CONCURRENCY);
  private subscription: Subscription | undefined;

  constructor(deps: RereadServerDeps) {
    this.deps = deps;
  }

  start(): void {
    this.subscription ??= this.deps.connection.subscribe(rereadSubjects.all, {
      callback: (error, message) => {
        if (error !== null) return;
        this.handle(message).catch((failure: unknown) => this.deps.logger.warn({ err: failure }, "answering a re-read request failed"));
      },
    });
  }

  stop(): void {
    try {
      this.subscription?.unsubscribe();
    } catch {
      // The connection is closed already: so is the subscription.
    }
    this.subscription = undefined;
  }

  private drop(reason: string, detail: unknown): void {
    this.deps.dropped(reason);
    this.deps.logger.debug({ reason, detail }, "dropped a re-read request");
  }

  private async handle(message: Msg): Promise<void> {
    let address;
    let request;
    try {
      address = rereadSubjects.parse(message.subject);
      request = codecs.objectReread.decode(message.data);
    } catch (error) {
      if (error instanceof SubjectError) return this.drop("subject", error.problem);
      if (error instanceof DecodeError) return this.drop(error.reason, error.detail);
      throw error;
    }
    if (
      request.shard !== address.shard ||
      request.kind !== OBJECT_KINDS[address.kind] ||
      request.namespace !== address.namespace ||
      request.name !== address.name
    ) {
      return this.drop("mismatch", { subject: message.subject });
    }
    const { ledger } = this.deps;
    if (!ledger.isActive || !ledger.isSynced || !this.deps.inScope(address.namespace)) {
      this.deps.metrics.rereads.inc({ outcome: "standby" });
      return;
    }
    const subject = rereadSubjects.toObjectSubject(message.subject);
    const target = { template: rereadSubjects.template, subject: message.subject, shard: address.shard, bodySize: message.data.length };
    await withConsumerSpan(this.deps.tracer, target, message.headers, async (span) => {
      span.setAttributes({ "stsfleet.reread.requested_by": request.requestedBy, "stsfleet.reread.reason": request.reason });
      let running = this.verifying.get(subject);
      if (running === undefined) {
        running = this.limit.run(() => this.verify(subject)).finally(() => this.verifying.delete(subject));
        this.verifying.set(subject, running);
      }
      const answer = await running;
      if (answer === undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: "not answered" });
        return;
      }
      span.setAttribute("stsfleet.reread.outcome", answer.outcome);
      if (message.reply) message.respond(codecs.objectRereadResult.encode({ type: "object.reread.result", ...answer }));
    });
  }

  /** Reads the subject back, lets the ledger decide, purges a foreign message nothing replaces. */
  private async verify(subject: string): Promise<Answer> {
    const { ledger, metrics } = this.deps;
    try {
      if (ledger.isInFlight(subject)) return this.answered("republishing", ledger.heldAt(subject)?.seq ?? 0);
      const actual = await readLastOnSubject(this.deps.jsm, this.deps.stream, subject);
      if (!ledger.isActive) {
        metrics.rereads.inc({ outcome: "standby" });
        return undefined;
      }
      let outcome = ledger.verified(subject, actual);
      if (outcome === "purge") {
        const seq = ledger.heldAt(subject)?.seq ?? 0;
        await this.deps.jsm.streams.purge(this.deps.stream, { filter: subject, seq: seq + 1 });
        ledger.purged(subject, seq);
        outcome = ledger.isDirty(subject) ? "republishing" : ledger.heldAt(subject) === undefined ? "absent" : "valid";
      }
      if (outcome === "republishing") this.deps.logger.info({ subject, seq: actual?.seq }, "publishing an object again: an owner could not read the subject's last message");
      this.deps.kick();
      return this.answered(outcome, ledger.heldAt(subject)?.seq ?? 0);
    } catch (error) {
      metrics.rereads.inc({ outcome: "error" });
      this.deps.logger.warn({ err: error, subject }, "verifying an object subject failed; the owner will ask again");
      return undefined;
    }
  }

  private answered(outcome: ObjectRereadOutcome, seq: number): Answer {
    this.deps.metrics.rereads.inc({ outcome });
    return { outcome, seq };
  }
}
