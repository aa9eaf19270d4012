// The pull loop of the pvc-provisioner: binds to the shared durable consumer (creating it again when it is lost),
// runs at most `concurrency` handlers at a time, keeps each message's ack deadline while its handler runs, and does
// what the handler decided in one place (settle), as controller-runtime's reconcileHandler does with a Result.
import { setTimeout as sleep } from "node:timers/promises";
import type { JsMsg } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { assertNever } from "#protocol";
import { backoffDelayMs } from "../../common/src/backoff.ts";
import type { Logger } from "../../common/src/logger.ts";
import { Semaphore } from "../../common/src/semaphore.ts";

/** What becomes of a delivered message. */
export type Disposition =
  /** Done: removed from the work queue. */
  | { readonly kind: "ack" }
  /** Never again: a redelivery cannot change the answer. */
  | { readonly kind: "term" }
  /** Again, after `delayMs` (at once, to any replica, without one). */
  | { readonly kind: "nak"; readonly delayMs?: number | undefined };

/** What a handler reads of a delivered message. */
export interface Delivery {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers?: MsgHdrs | undefined;
  /** The stream sequence, for drop reports. */
  readonly seq: number;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
}

/** Decides what becomes of one message. Expected failures are dispositions; a throw is a bug. */
export type DeliveryHandler = (delivery: Delivery) => Promise<Disposition>;

/** What the loop does with a pulled message (a nats.js JsMsg). */
export type PulledMessage = Pick<JsMsg, "subject" | "data" | "headers" | "seq" | "info" | "ack" | "nak" | "term" | "working">;

/** One binding to the durable consumer (nats.js ConsumerMessages): its messages until stop() or the consumer is lost. */
export interface PulledMessages extends AsyncIterable<PulledMessage> {
  status(): AsyncIterable<{ readonly type: string }>;
  stop(): void;
}

export interface CommandConsumerOptions {
  /** The durable consumer's name, for readiness. */
  readonly consumer: string;
  /** Messages handled at once (and pulled at once). */
  readonly concurrency: number;
  /** How often a running handler's message is marked in progress, well within the ack wait. */
  readonly workingIntervalMs: number;
  /** The pause before a message whose handler threw is delivered again. */
  readonly unexpectedErrorDelayMs: number;
}

export interface CommandConsumerDeps {
  /** Binds to the durable consumer, creating or updating it first; pulls at most `concurrency` messages at a time. */
  readonly bind: () => Promise<PulledMessages>;
  readonly handle: DeliveryHandler;
  /** Counts the handlers running. */
  readonly inFlight: { inc(): void; dec(): void };
  readonly logger: Logger;
}

/** Does what was decided for a message: the one place a message is acked, nakked or terminated. */
export function settle(m: Pick<PulledMessage, "ack" | "nak" | "term">, disposition: Disposition): void {
  switch (disposition.kind) {
    case "ack":
      m.ack();
      return;
    case "term":
      m.term();
      return;
    case "nak":
      m.nak(disposition.delayMs);
      return;
    default:
      assertNever(disposition, "disposition");
  }
}

function deliveryOf(m: PulledMessage): Delivery {
  return { subject: m.subject, data: m.data, headers: m.headers, seq: m.seq, deliveryCount: m.info.deliveryCount };
}

export class CommandConsumer {
  private readonly options: CommandConsumerOptions;
  private readonly deps: CommandConsumerDeps;
  private readonly slots: Semaphore;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopSignal = new AbortController();
  private stopping = false;
  private bound = false;
  private lastConsumeError: string | undefined;
  /** Binds that failed in a row: the pause before the next grows with them. */
  private failures = 0;
  private messages: PulledMessages | undefined;
  private loop: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;

  constructor(options: CommandConsumerOptions, deps: CommandConsumerDeps) {
    this.options = options;
    this.deps = deps;
    this.slots = new Semaphore(options.concurrency);
  }

  start(): void {
    this.loop ??= this.consumeLoop();
  }

  /** True while bound to the consumer; otherwise why not. */
  readiness(): true | string {
    return this.bound || `not bound to the ${this.options.consumer} consumer${this.lastConsumeError ? `: ${this.lastConsumeError}` : ""}`;
  }

  /** Stops pulling, hands back what was pulled and not started, and waits for the running handlers. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      this.stopSignal.abort();
      this.messages?.stop();
      await this.loop;
      await Promise.allSettled([...this.inFlight]);
    })();
    return this.stopped;
  }

  private async consumeLoop(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.bindAndPull();
      } catch (error) {
        this.lastConsumeError = error instanceof Error ? error.message : String(error);
        if (!this.stopping) this.deps.logger.warn({ err: error }, "consuming commands failed");
      }
      this.bound = false;
      if (this.stopping) break;
      const delayMs = backoffDelayMs({ initialDelayMs: 250, maxDelayMs: 10_000 }, this.failures);
      this.failures += 1;
      await sleep(delayMs, undefined, { signal: this.stopSignal.signal }).catch(() => undefined);
    }
  }

  /** One binding: pulls until the consumer is lost or the loop stops. */
  private async bindAndPull(): Promise<void> {
    const current = await this.deps.bind();
    this.messages = current;
    this.bound = true;
    this.lastConsumeError = undefined;
    this.failures = 0;
    void (async () => {
      for await (const status of current.status()) {
        if (status.type === "consumer_deleted" || status.type === "consumer_not_found" || status.type === "stream_not_found") {
          this.deps.logger.warn({ status: status.type }, "consumer lost; recreating it");
          current.stop();
        }
      }
    })().catch(() => undefined);
    if (this.stopping) current.stop();
    for await (const m of current) {
      await this.slots.acquire();
      if (this.stopping) {
        // Hand it straight back so another replica takes it instead of waiting out ack_wait.
        settle(m, { kind: "nak" });
        this.slots.release();
        continue;
      }
      this.track(m);
    }
  }

  private track(m: PulledMessage): void {
    this.deps.inFlight.inc();
    const running = this.deliver(m).finally(() => {
      this.deps.inFlight.dec();
      this.slots.release();
      this.inFlight.delete(running);
    });
    this.inFlight.add(running);
  }

  private async deliver(m: PulledMessage): Promise<void> {
    const heartbeat = setInterval(() => m.working(), this.options.workingIntervalMs);
    let disposition: Disposition;
    try {
      disposition = await this.deps.handle(deliveryOf(m));
    } catch (error) {
      // The handler maps every expected failure; this is a bug, and the message is retried after a pause.
      this.deps.logger.error({ err: error, natsSubject: m.subject }, "unexpected error handling a command");
      disposition = { kind: "nak", delayMs: this.options.unexpectedErrorDelayMs };
    } finally {
      clearInterval(heartbeat);
    }
    settle(m, disposition);
  }
}
