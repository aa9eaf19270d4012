// JetStream publishes without nats.js's request machinery (ADR 0085). js.publish() goes through nc.request(): per
// publish a RequestOne with a timer, a deferred and, even with noAsyncTraces, a RequestError built when it settles
// ("cancelled"), plus the mux's token bookkeeping: 5-10% of the watcher's samples. Here every publish carries a reply
// subject under one wildcard subscription of our own, acks are matched by a counter in the reply subject, and one
// timer serves every deadline (they come in publish order, all with the same timeout).
//
// The wire is JetStream's own: the message goes to the stream's subject with `Nats-Msg-Id` and
// `Nats-Expected-Last-Subject-Sequence` headers; the server answers `{"stream","seq","duplicate"}` or
// `{"error":{"code","err_code","description"}}`, or a 503 status when no stream takes the subject.
import { createInbox, headers as natsHeaders } from "@nats-io/transport-node";
import type { Msg, MsgHdrs, NatsConnection, Subscription } from "@nats-io/transport-node";
import { StreamPublishError } from "./errors/nats.ts";

// Importers of the publisher find its errors here too; errors/nats.ts is where they are defined.
export { STREAM_PUBLISH_FAILURES, StreamPublishError, isWrongLastSequence } from "./errors/nats.ts";
export type { StreamPublishFailure } from "./errors/nats.ts";

export interface StreamAck {
  readonly stream: string;
  readonly seq: number;
  readonly duplicate: boolean;
}

export interface StreamPublishOptions {
  /** `Nats-Msg-Id`: the stream drops a second message with the same id within its duplicate window. */
  readonly msgId?: string | undefined;
  /** `Nats-Expected-Last-Subject-Sequence`: refused (StreamWrongLastSequence) unless the subject's last message has it. */
  readonly expectedLastSubjectSequence?: number | undefined;
  readonly headers?: MsgHdrs | undefined;
}

interface Pending {
  readonly subject: string;
  readonly deadlineMs: number;
  resolve(ack: StreamAck): void;
  reject(error: StreamPublishError): void;
}

interface AckBody {
  stream?: unknown;
  seq?: unknown;
  duplicate?: unknown;
  error?: { code?: unknown; err_code?: unknown; description?: unknown };
}

/** Where stream publishes go: a JetStream publish answered by its ack (StreamPublisher satisfies it). */
export interface StreamPublish {
  publish(subject: string, payload: Uint8Array, options: StreamPublishOptions): Promise<StreamAck>;
}

/** One per connection: publishes to streams and resolves with their acks. */
export class StreamPublisher implements StreamPublish {
  private readonly nc: NatsConnection;
  private readonly timeoutMs: number;
  private readonly inbox: string;
  private readonly pending = new Map<number, Pending>();
  private sub: Subscription | undefined;
  private counter = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly decoder = new TextDecoder();

  constructor(nc: NatsConnection, options: { timeoutMs: number; inboxPrefix?: string | undefined }) {
    this.nc = nc;
    this.timeoutMs = options.timeoutMs;
    this.inbox = createInbox(options.inboxPrefix);
  }

  /** Acks in flight. */
  get inFlight(): number {
    return this.pending.size;
  }

  publish(subject: string, payload: Uint8Array, options: StreamPublishOptions = {}): Promise<StreamAck> {
    this.sub ??= this.nc.subscribe(`${this.inbox}.*`, { callback: (_error, msg) => this.answer(msg) });
    const h = options.headers ?? natsHeaders();
    if (options.msgId !== undefined) h.set("Nats-Msg-Id", options.msgId);
    if (options.expectedLastSubjectSequence !== undefined) h.set("Nats-Expected-Last-Subject-Sequence", String(options.expectedLastSubjectSequence));
    const id = ++this.counter;
    return new Promise<StreamAck>((resolve, reject) => {
      try {
        this.nc.publish(subject, payload, { reply: `${this.inbox}.${id}`, headers: h });
      } catch (error) {
        reject(new StreamPublishError("closed", subject, error instanceof Error ? error.message : String(error)));
        return;
      }
      this.pending.set(id, { subject, deadlineMs: performance.now() + this.timeoutMs, resolve, reject });
      this.schedule();
    });
  }

  /** Rejects what is in flight and stops listening for acks. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      entry.reject(new StreamPublishError("closed", entry.subject, "the publisher was closed"));
    }
    try {
      this.sub?.unsubscribe();
    } catch {
      // The connection is closed already: so is the subscription.
    }
    this.sub = undefined;
  }

  private answer(msg: Msg): void {
    const id = Number(msg.subject.slice(this.inbox.length + 1));
    const entry = this.pending.get(id);
    if (!entry) return; // timed out already, or not ours
    this.pending.delete(id);
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      entry.reject(new StreamPublishError("no-responders", entry.subject, "no stream takes this subject (or its leader is gone)"));
      return;
    }
    let body: AckBody;
    try {
      body = JSON.parse(this.decoder.decode(msg.data)) as AckBody;
    } catch {
      entry.reject(new StreamPublishError("api", entry.subject, "the ack is not JSON"));
      return;
    }
    if (body.error !== undefined) {
      const apiCode = typeof body.error.err_code === "number" ? body.error.err_code : undefined;
      entry.reject(new StreamPublishError("api", entry.subject, typeof body.error.description === "string" ? body.error.description : "error", apiCode));
      return;
    }
    if (typeof body.stream !== "string" || typeof body.seq !== "number") {
      entry.reject(new StreamPublishError("api", entry.subject, "the ack has no stream and sequence"));
      return;
    }
    entry.resolve({ stream: body.stream, seq: body.seq, duplicate: body.duplicate === true });
  }

  /** One timer for the oldest deadline; entries are in publish order, so deadlines are too. */
  private schedule(): void {
    if (this.timer !== undefined) return;
    const first = this.pending.values().next();
    if (first.done === true) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const nowMs = performance.now();
      for (const [id, entry] of this.pending) {
        if (entry.deadlineMs > nowMs) break;
        this.pending.delete(id);
        entry.reject(new StreamPublishError("timeout", entry.subject, `no ack within ${this.timeoutMs} ms`));
      }
      this.schedule();
    }, Math.max(0, first.value.deadlineMs - performance.now()));
    this.timer.unref();
  }
}
