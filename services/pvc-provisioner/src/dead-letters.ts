// Commands the server stopped redelivering: JetStream's MAX_DELIVERIES advisory for the pvc consumer, counted as a
// dead letter and then removed, since a work-queue stream would otherwise keep the message forever. Typically a
// crash loop on one command: its deliveries timed out instead of being answered.
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { CONSUMERS, STREAMS } from "#protocol";
import type { Logger } from "../../common/src/logger.ts";

export interface DeadLetterDeps {
  readonly nats: Pick<NatsConnection, "subscribe">;
  readonly jsm: Pick<JetStreamManager, "streams">;
  readonly deadLetters: { inc(): void };
  readonly logger: Logger;
}

export const MAX_DELIVERIES_ADVISORY = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${STREAMS.commands}.${CONSUMERS.pvcProvisioner}`;

/** The stream sequence an advisory names, or undefined when it names none (it is counted anyway). */
export function advisoryStreamSequence(data: Uint8Array): number | undefined {
  try {
    const advisory = JSON.parse(new TextDecoder().decode(data)) as { stream_seq?: unknown };
    return typeof advisory.stream_seq === "number" ? advisory.stream_seq : undefined;
  } catch {
    return undefined;
  }
}

/** One replica takes each advisory (a queue group shared with the consumer's name). */
export function watchDeadLetters(deps: DeadLetterDeps): Subscription {
  return deps.nats.subscribe(MAX_DELIVERIES_ADVISORY, {
    queue: CONSUMERS.pvcProvisioner,
    callback: (error, message) => {
      if (error) return;
      deps.deadLetters.inc();
      const streamSequence = advisoryStreamSequence(message.data);
      deps.logger.warn({ streamSequence }, "a claim command exhausted its deliveries");
      if (streamSequence !== undefined) {
        deps.jsm.streams.deleteMessage(STREAMS.commands, streamSequence, false).catch(() => undefined);
      }
    },
  });
}
