// What K8S_OBJS holds, read without payloads: a headers-only ordered consumer with deliver_policy
// last_per_subject over `k8s.>` (both on nats-server 2.9), so a (re)starting active watcher can publish only the
// differences. Also reads one subject's last message, payload included, after a publish conflict and when an owner
// could not read it (ADR 0088).
import { DeliverPolicy } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { DecodeError, HEADERS, OBJECT_KINDS, codecs, objectSubjects } from "#protocol";
import type { Held, HeldEntry } from "../domain/ledger.ts";

/**
 * A stream message's headers as a ledger entry. A message without our headers counts as a foreign PUT (no uid:
 * isForeign).
 */
export function heldFromHeaders(headers: MsgHdrs | undefined, seq: number, atMs: number): Held {
  const get = (key: string) => (headers?.has(key) ? headers.get(key) : "");
  return { uid: get(HEADERS.uid), rv: get(HEADERS.resourceVersion), op: get(HEADERS.op) === "DEL" ? "DEL" : "PUT", seq, atMs };
}

/**
 * A stream message as a ledger entry, checked against its payload: unless the payload decodes to an envelope about
 * the object its subject names, with the uid, resourceVersion and operation its headers claim, the message is not
 * one a watcher wrote and is held as foreign (uid "").
 */
export function heldFromMessage(subject: string, data: Uint8Array, headers: MsgHdrs | undefined, seq: number, atMs: number): Held {
  const held = heldFromHeaders(headers, seq, atMs);
  const foreign: Held = { uid: "", rv: "", op: "PUT", seq, atMs };
  let envelope;
  try {
    envelope = codecs.objectEnvelope.decode(data);
  } catch (error) {
    if (error instanceof DecodeError) return foreign;
    throw error;
  }
  const address = objectSubjects.parse(subject);
  const agrees =
    envelope.kind === OBJECT_KINDS[address.kind] &&
    envelope.namespace === address.namespace &&
    envelope.name === address.name &&
    envelope.uid === held.uid &&
    envelope.resourceVersion === held.rv &&
    (envelope.type === "object.delete") === (held.op === "DEL");
  return agrees ? held : foreign;
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

/** The subject's last message as a ledger entry (heldFromMessage), or undefined when the subject is empty. */
export async function readLastOnSubject(jsm: JetStreamManager, stream: string, subject: string): Promise<Held | undefined> {
  const message = await jsm.streams.getMessage(stream, { last_by_subj: subject });
  if (message === null) return undefined;
  return heldFromMessage(subject, message.data, message.header, message.seq, message.time.getTime());
}
