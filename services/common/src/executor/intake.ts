// The first step of every executor message: parse the subject, decode and validate the body, and check that the
// body is about the shard and set its subject names (a message republished on another set's subject must not act
// on the wrong set).
import { DecodeError, SubjectError } from "#protocol";
import type { Codec, SetAddress } from "#protocol";
import type { DropReason } from "./drops.ts";

export interface SetSubjectFamily {
  readonly template: string;
  parse(subject: string): SetAddress;
}

/** The part of a message that must agree with its subject; `name` is optional (events may be about a pod). */
export interface ClaimedAddress {
  readonly shard: number;
  readonly namespace: string;
  readonly name?: string | undefined;
}

export type Intake<T> =
  | { readonly ok: true; readonly address: SetAddress; readonly message: T }
  | { readonly ok: false; readonly reason: DropReason; readonly detail: Readonly<Record<string, unknown>> };

export function readSetMessage<T>(
  family: SetSubjectFamily,
  codec: Codec<T>,
  subject: string,
  data: Uint8Array,
  claimed: (message: T) => ClaimedAddress,
): Intake<T> {
  let address: SetAddress;
  try {
    address = family.parse(subject);
  } catch (error) {
    const problem = error instanceof SubjectError ? error.problem : String(error);
    return { ok: false, reason: "subject", detail: { natsSubject: subject.slice(0, 300), problem } };
  }
  let message: T;
  try {
    message = codec.decode(data);
  } catch (error) {
    if (error instanceof DecodeError) {
      return { ok: false, reason: error.reason, detail: { natsSubject: subject, codec: error.codec, problem: error.detail } };
    }
    return { ok: false, reason: "malformed", detail: { natsSubject: subject, problem: String(error) } };
  }
  const said = claimed(message);
  if (
    said.shard !== address.shard ||
    said.namespace !== address.namespace ||
    (said.name !== undefined && said.name !== address.name)
  ) {
    return {
      ok: false,
      reason: "mismatch",
      detail: { natsSubject: subject, body: { shard: said.shard, namespace: said.namespace, name: said.name } },
    };
  }
  return { ok: true, address, message };
}

/** The shard token of a subject of `family`, or undefined when the subject does not parse (for span attributes). */
export function subjectShard(family: SetSubjectFamily, subject: string): number | undefined {
  try {
    return family.parse(subject).shard;
  } catch {
    return undefined;
  }
}
