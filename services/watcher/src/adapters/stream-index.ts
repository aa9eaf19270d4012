// What K8S_OBJS holds, read without payloads: a headers-only ordered consumer with deliver_policy
// last_per_subject over `k8s.>` (both on nats-server 2.9), so a (re)starting active watcher can publish only the
// differences. Also reads one subject's last message after a publish conflict.
import { DeliverPolicy } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { HEADERS } from "#protocol";
import type { Held, HeldEntry } from "../domain/ledger.ts";

/** A stream message's headers as a ledger entry. A message without our headers counts as an unknown PUT. */
export function heldFromHeaders(headers: MsgHdrs | undefined, seq: number, atMs: number): Held {
  const get = (key: string) => (headers?.has(key) ? headers.get(key) : "");
  return { uid: get(HEADERS.uid), rv: get(HEADERS.resourceVersion), op: get(HEADERS.op) === "DEL" ? "DEL" : "PUT", seq, atMs };
}

export interface StreamIndexOptions {
  readonly stream: string;
  readonly filter: string;
  /** How long to wait for the next batch before concluding the replay is complete (at least 1000 ms). */
  readonly batchWaitMs: number;
  readonly batchSize?: number;
}

export interface StreamIndex {
  readonly entries: HeldEntry[];
  /** False when the server dropped headers_only (payloads were transferred; correct, only slower). */
  readonly headersOnly: boolean;
}

export async function readStreamIndex(
  js: JetStreamClient,
  jsm: JetStreamManager,
  options: StreamIndexOptions,
): Promise<StreamIndex> {
  const info = await jsm.streams.info(options.stream);
  if (info.state.messages === 0) return { entries: [], headersOnly: true };
  const consumer = await js.consumers.get(options.stream, {
    filter_subjects: options.filter,
    deliver_policy: DeliverPolicy.LastPerSubject,
    headers_only: true,
  });
  const created = await consumer.info(true);
  const headersOnly = created.config.headers_only === true;
  const entries: HeldEntry[] = [];
  try {
    // num_pending at creation: with nothing to deliver, skip the fetch that would wait for its expiry.
    for (let remaining = created.num_pending; remaining > 0; ) {
      const batch = await consumer.fetch({ max_messages: options.batchSize ?? 1024, expires: options.batchWaitMs });
      let received = 0;
      let pending = 1;
      for await (const message of batch) {
        received++;
        const atMs = Math.floor(message.info.timestampNanos / 1_000_000);
        entries.push({ subject: message.subject, ...heldFromHeaders(message.headers, message.seq, atMs) });
        pending = message.info.pending;
        if (pending === 0) break;
      }
      remaining = received === 0 ? 0 : pending;
    }
  } finally {
    await consumer.delete().catch(() => undefined);
  }
  return { entries, headersOnly };
}

/** The subject's last message as a ledger entry, or undefined when the subject is empty. */
export async function readLastOnSubject(jsm: JetStreamManager, stream: string, subject: string): Promise<Held | undefined> {
  const message = await jsm.streams.getMessage(stream, { last_by_subj: subject });
  if (message === null) return undefined;
  return heldFromHeaders(message.header, message.seq, message.time.getTime());
}
