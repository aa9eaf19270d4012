// MessagePack codec with validation on decode. Standard MessagePack only (no msgpackr records or shared
// structures): every message is decoded on its own by whichever consumer receives it. See
// docs/adr/0003-message-encoding.md.

import { Packr } from "msgpackr";
import type { z } from "zod";
import {
  AnyMessageSchema,
  EventRecordSchema,
  IntentLogLayoutSchema,
  IntentSchema,
  MemberRecordSchema,
  ObjectEnvelopeSchema,
  ObjectRereadResultSchema,
  ObjectRereadSchema,
  PokeSchema,
  ProbeAckSchema,
  ProbeSchema,
  PvcCommandSchema,
  ShardRecordSchema,
  StatusResultSchema,
  StatusWriteSchema,
} from "./messages.ts";

/** Why a message could not be decoded; also the `reason` label of dropped-message metrics. */
export const DECODE_FAILURES = ["empty", "malformed", "invalid"] as const;
export type DecodeFailure = (typeof DECODE_FAILURES)[number];

export interface DecodeIssue {
  readonly path: string;
  readonly message: string;
}

/** The one error every decoder throws, whatever was wrong with the bytes. */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
  /** Which codec refused the message (e.g. "PvcCommand"). */
  readonly codec: string;
  readonly reason: DecodeFailure;
  readonly detail: string;
  readonly issues: readonly DecodeIssue[];

  constructor(
    codec: string,
    reason: DecodeFailure,
    detail: string,
    issues: readonly DecodeIssue[] = [],
    options?: ErrorOptions,
  ) {
    super(`cannot decode ${codec}: ${reason}: ${detail}`, options);
    this.codec = codec;
    this.reason = reason;
    this.detail = detail;
    this.issues = issues;
  }
}

const packr = new Packr({
  useRecords: false,
  mapsAsObjects: true,
  moreTypes: false,
  bundleStrings: false,
  structuredClone: false,
  int64AsType: "number",
});

export interface Codec<T> {
  readonly name: string;
  encode(message: T): Uint8Array;
  /** Decodes and validates; throws DecodeError and nothing else. */
  decode(bytes: Uint8Array): T;
}

function describeIssues(error: z.ZodError): DecodeIssue[] {
  return error.issues.slice(0, 10).map((issue) => ({
    path: issue.path.map(String).join(".") || "(root)",
    message: issue.message,
  }));
}

/** A codec for one schema. Encoding does not validate (types do that at compile time); decoding always does. */
export function codecFor<S extends z.ZodType>(name: string, schema: S): Codec<z.infer<S>> {
  return {
    name,
    encode(message: z.infer<S>): Uint8Array {
      return packr.pack(message);
    },
    decode(bytes: Uint8Array): z.infer<S> {
      if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new DecodeError(name, "empty", "no bytes");
      let value: unknown;
      try {
        value = packr.unpack(bytes);
      } catch (cause) {
        const detail = cause instanceof Error ? cause.message : String(cause);
        throw new DecodeError(name, "malformed", detail.slice(0, 200), [], { cause });
      }
      let result;
      try {
        result = schema.safeParse(value);
      } catch (cause) {
        // Defensive: a schema refinement must never turn hostile input into another exception.
        throw new DecodeError(name, "invalid", "validation threw", [], { cause });
      }
      if (!result.success) {
        const issues = describeIssues(result.error);
        const first = issues[0];
        throw new DecodeError(name, "invalid", first ? `${first.path}: ${first.message}` : "schema mismatch", issues);
      }
      return result.data;
    },
  };
}

export const codecs = {
  objectEnvelope: codecFor("ObjectEnvelope", ObjectEnvelopeSchema),
  objectReread: codecFor("ObjectReread", ObjectRereadSchema),
  objectRereadResult: codecFor("ObjectRereadResult", ObjectRereadResultSchema),
  pvcCommand: codecFor("PvcCommand", PvcCommandSchema),
  statusWrite: codecFor("StatusWrite", StatusWriteSchema),
  statusResult: codecFor("StatusResult", StatusResultSchema),
  eventRecord: codecFor("EventRecord", EventRecordSchema),
  intent: codecFor("Intent", IntentSchema),
  intentLogLayout: codecFor("IntentLogLayout", IntentLogLayoutSchema),
  memberRecord: codecFor("MemberRecord", MemberRecordSchema),
  shardRecord: codecFor("ShardRecord", ShardRecordSchema),
  probe: codecFor("Probe", ProbeSchema),
  probeAck: codecFor("ProbeAck", ProbeAckSchema),
  poke: codecFor("Poke", PokeSchema),
  any: codecFor("AnyMessage", AnyMessageSchema),
} as const;
