// The pull loop alone, over a store of pulled messages that keeps each message's answer: what it does with the
// handler's dispositions, its concurrency, shutdown and rebinding. With a real nats-server: provisioner.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { DeliveryInfo } from "@nats-io/jetstream";
import { createLogger } from "../../common/src/logger.ts";
import { CommandConsumer } from "./command-consumer.ts";
import type { Delivery, DeliveryHandler, Disposition, PulledMessage, PulledMessages } from "./command-consumer.ts";

const logger = createLogger({ service: "test", instance: "t", level: "silent", format: "json" });

/** A pulled message that remembers how it was answered. */
class Message implements PulledMessage {
  readonly subject = "cmd.pvc.1.default.web";
  readonly data = new Uint8Array([1]);
  readonly headers = undefined;
  readonly seq: number;
  answer: string | undefined;
  workings = 0;
  private readonly deliveryCount: number;

  constructor(seq: number, deliveryCount = 1) {
    this.seq = seq;
    this.deliveryCount = deliveryCount;
  }
  get info(): DeliveryInfo {
    return { deliveryCount: this.deliveryCount } as DeliveryInfo;
  }
  ack(): void {
    this.answer = "ack";
  }
  nak(delayMs?: number): void {
    this.answer = delayMs === undefined ? "nak" : `nak ${delayMs}`;
  }
  term(): void {
    this.answer = "term";
  }
  working(): void {
    this.workings += 1;
  }
}

/** One binding: messages queued by the test, ended by stop() or by a lost-consumer status. */
class Binding implements PulledMessages {
  private readonly queued: Message[] = [];
  private readonly statuses: { type: string }[];
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(statuses: { type: string }[] = []) {
    this.statuses = statuses;
  }
  push(...messages: Message[]): void {
    this.queued.push(...messages);
    this.wake?.();
  }
  stop(): void {
    this.ended = true;
    this.wake?.();
  }
  async *status(): AsyncIterable<{ readonly type: string }> {
    await sleep(0);
    yield* this.statuses;
  }
  async *[Symbol.asyncIterator](): AsyncIterator<PulledMessage> {
    for (;;) {
      const next = this.queued.shift();
      if (next) yield next;
      else if (this.ended) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

function consumerWith(handle: DeliveryHandler, bindings: (Binding | Error)[], concurrency = 4) {
  let binds = 0;
  let inFlight = 0;
  const consumer = new CommandConsumer(
    { consumer: "pvc", concurrency, workingIntervalMs: 10, unexpectedErrorDelayMs: 777 },
    {
      bind: () => {
        const next = bindings[Math.min(binds, bindings.length - 1)];
        binds += 1;
        return next instanceof Error || next === undefined ? Promise.reject(next ?? new Error("no binding")) : Promise.resolve(next);
      },
      handle,
      inFlight: { inc: () => (inFlight += 1), dec: () => (inFlight -= 1) },
      logger,
    },
  );
  return { consumer, binds: () => binds, inFlight: () => inFlight };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i += 1) await sleep(10);
  assert.ok(condition(), what);
}

describe("CommandConsumer", () => {
  it("answers each message as its handler decided; a handler that throws gets its message back after a pause", async () => {
    const decisions = new Map<number, Disposition | Error>([
      [1, { kind: "ack" }],
      [2, { kind: "term" }],
      [3, { kind: "nak", delayMs: 50 }],
      [4, new Error("a bug")],
    ]);
    const handle = (delivery: Delivery) => {
      const decided = decisions.get(delivery.seq);
      if (decided === undefined) return Promise.reject(new Error(`no decision for ${delivery.seq}`));
      return decided instanceof Error ? Promise.reject(decided) : Promise.resolve(decided);
    };
    const binding = new Binding();
    const { consumer } = consumerWith(handle, [binding]);
    const messages = [1, 2, 3, 4].map((seq) => new Message(seq));
    consumer.start();
    binding.push(...messages);
    await until(() => messages.every((m) => m.answer !== undefined), "every message answered");
    assert.deepEqual(messages.map((m) => m.answer), ["ack", "term", "nak 50", "nak 777"]);
    assert.equal(consumer.readiness(), true);
    await consumer.stop();
  });

  it("runs at most `concurrency` handlers, keeps their messages in progress, and waits for them on stop", async () => {
    let running = 0;
    let most = 0;
    let open = () => undefined as void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const handle = async (): Promise<Disposition> => {
      running += 1;
      most = Math.max(most, running);
      await gate;
      running -= 1;
      return { kind: "ack" };
    };
    const binding = new Binding();
    const { consumer, inFlight } = consumerWith(handle, [binding], 2);
    const messages = [1, 2, 3, 4, 5].map((seq) => new Message(seq));
    consumer.start();
    binding.push(...messages);
    await until(() => running === 2 && inFlight() === 2, "two handlers running");
    await until(() => (messages[0]?.workings ?? 0) > 0, "the first message marked in progress");
    const stopped = consumer.stop();
    open();
    await stopped;
    assert.equal(most, 2);
    assert.deepEqual(messages.map((m) => m.answer), ["ack", "ack", "nak", "nak", "nak"], "pulled and not started: handed straight back");
    assert.equal(inFlight(), 0);
    assert.match(String(consumer.readiness()), /^not bound to the pvc consumer/);
  });

  it("binds again after a failed bind and after the consumer is lost; not ready meanwhile, with the error", async () => {
    const lost = new Binding([{ type: "consumer_deleted" }]);
    const again = new Binding();
    const { consumer, binds } = consumerWith(() => Promise.resolve({ kind: "ack" }), [new Error("no stream leader"), lost, again]);
    consumer.start();
    await until(() => consumer.readiness() === "not bound to the pvc consumer: no stream leader", "not ready, with the bind's error");
    await until(() => binds() === 3, "bound again after the consumer was lost");
    await until(() => consumer.readiness() === true, "ready");
    const message = new Message(9);
    again.push(message);
    await until(() => message.answer === "ack", "the new binding's message answered");
    await consumer.stop();
  });
});
