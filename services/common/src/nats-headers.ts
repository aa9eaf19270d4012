// Header blocks nats.js cannot parse (issue 16, test/e2e/forged-traces.test.ts). nats.js decodes a message's header
// block lazily, the first time `msg.headers`, a KV entry's `operation` or a stored message's `header` is read, and
// throws on a line it would refuse to encode itself: a name with a space, a colon or a byte outside printable ASCII,
// or a value with a bare CR or LF. nats-server passes and stores such a block as it is, so anyone who may publish on
// a subject the fleet reads (a stack without --secure) could send one. The throw came out of a subscription callback
// or out of nats.js's own KV code (a watch with ignoreDeletes, create, keys), and the process died; on a stream
// subject or a KV key the block stays the last value, so every restart replayed it and died again.
//
// Such a block is never the server's nor the fleet's. Installed once per process (connectNats does), decoding
// drops the lines nats.js cannot take and keeps the rest of the block, and tells the listener: a traceparent on such
// a line is not read (a new trace is started, as for any malformed traceparent), and what the message carries is
// decided by its payload, as for any other foreign message (ADR 0088).
import { MsgHdrsImpl, canonicalMIMEHeaderKey } from "@nats-io/transport-node";

type Decode = (bytes: Uint8Array) => MsgHdrsImpl;

const STATUS_LINE = "NATS/1.0";
const decoder = new TextDecoder();
const encoder = new TextEncoder();

let original: Decode | undefined;
let listener: ((error: unknown) => void) | undefined;

function acceptable(line: string): boolean {
  const colon = line.indexOf(":");
  if (colon < 0) return false;
  try {
    canonicalMIMEHeaderKey(line.slice(0, colon));
  } catch {
    return false;
  }
  return !/[\r\n]/.test(line);
}

/** The block with only the header lines nats.js accepts (the status line kept: nats.js reads any status line). */
export function withoutUnparsableLines(bytes: Uint8Array): Uint8Array {
  const [status = STATUS_LINE, ...lines] = decoder.decode(bytes).split("\r\n");
  const kept = lines.filter((line) => line !== "" && acceptable(line));
  return encoder.encode(`${[status, ...kept].join("\r\n")}\r\n\r\n`);
}

/**
 * Makes nats.js's header decoding drop the lines it cannot parse instead of throwing, for the whole process (the
 * decoder is a static of nats.js's header class, shared by every connection, KV bucket and stream read). `onUnparsable`
 * hears of each such block (the last one installed is used). Returns false when this nats.js has no such decoder to
 * replace: its headers then throw as before.
 */
export function tolerateUnparsableHeaders(onUnparsable?: (error: unknown) => void): boolean {
  listener = onUnparsable;
  if (original !== undefined) return true;
  const decode = (MsgHdrsImpl as unknown as { decode?: unknown }).decode;
  if (typeof decode !== "function") return false;
  const strict = (decode as Decode).bind(MsgHdrsImpl);
  original = strict;
  MsgHdrsImpl.decode = (bytes: Uint8Array): MsgHdrsImpl => {
    try {
      return strict(bytes);
    } catch (error) {
      listener?.(error);
      try {
        return strict(withoutUnparsableLines(bytes));
      } catch {
        return new MsgHdrsImpl();
      }
    }
  };
  return true;
}
