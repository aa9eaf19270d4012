// Schema-driven protobuf (proto2 wire format) between the simulator's JSON values and bytes, for Kubernetes'
// `application/vnd.kubernetes.protobuf`. The tables (./schema/) give field numbers and types; the JSON side is the
// form Go's encoding/json writes for the same types. Nothing is generated: one compiled lookup per message, one
// growable buffer reused by every encode, and a decoder that walks the bytes once.
//
// Wire rules followed (Kubernetes' gogo-generated marshallers):
// - encode writes fields in ascending field number, repeated scalars unpacked, maps as repeated entries
//   {key = 1, value = 2}, and every field the JSON has (zero values included);
// - decode accepts packed and unpacked repeated scalars, drops a zero scalar unless the field keeps zeros (Go writes
//   every non-pointer field, its JSON omits the empty ones), and fails on a field number the schema does not know;
// - encode fails on a JSON key the schema does not know, so a gap in the tables shows up instead of losing data.
import type { FieldDef, MessageDef, SchemaTable } from "./schema/types.ts";

/** A field number the message's schema does not have (the HTTP layer answers 400). */
export class UnknownFieldError extends Error {
  readonly messageName: string;
  readonly fieldNumber: number;
  constructor(messageName: string, fieldNumber: number) {
    super(`protobuf: ${messageName} has no field number ${fieldNumber}`);
    this.name = "UnknownFieldError";
    this.messageName = messageName;
    this.fieldNumber = fieldNumber;
  }
}

/** Bytes that are not a well-formed message (truncated, bad wire type, bad varint, invalid embedded JSON). */
export class WireFormatError extends Error {
  constructor(message: string) {
    super(`protobuf: ${message}`);
    this.name = "WireFormatError";
  }
}

/** A JSON key the message's schema does not have. */
export class UnknownJsonFieldError extends Error {
  readonly messageName: string;
  readonly key: string;
  constructor(messageName: string, key: string) {
    super(`protobuf: ${messageName} has no field for JSON key "${key}"`);
    this.name = "UnknownJsonFieldError";
    this.messageName = messageName;
    this.key = key;
  }
}

/** A JSON value of the wrong type for its field (a string where an int32 goes, an unparsable time). */
export class JsonTypeError extends Error {
  constructor(messageName: string, field: string, expected: string, value: unknown) {
    super(`protobuf: ${messageName}.${field}: expected ${expected}, got ${describe(value)}`);
    this.name = "JsonTypeError";
  }
}

/** A message name the tables do not define (asked for directly, or referred to by a field). */
export class UnknownMessageError extends Error {
  readonly messageName: string;
  constructor(messageName: string, referrer?: string) {
    super(`protobuf: no schema for message ${messageName}${referrer === undefined ? "" : ` (referred to by ${referrer})`}`);
    this.name = "UnknownMessageError";
    this.messageName = messageName;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === "number") return `number ${value}`;
  return typeof value;
}

// ---- compiled schema ----

// Field kinds (numbers, so the hot switches compare small integers).
const K_STRING = 0;
const K_BYTES = 1;
const K_BOOL = 2;
const K_INT32 = 3;
const K_INT64 = 4;
const K_DOUBLE = 5;
const K_FLOAT = 6;
const K_MESSAGE = 7;
const K_TIME = 8;
const K_MICROTIME = 9;
const K_DURATION = 10;
const K_QUANTITY = 11;
const K_INTORSTRING = 12;
const K_RAWEXTENSION = 13;
const K_FIELDSV1 = 14;

const WT_VARINT = 0;
const WT_I64 = 1;
const WT_LEN = 2;
const WT_I32 = 5;

const KIND_OF: Readonly<Record<string, number>> = {
  string: K_STRING,
  bytes: K_BYTES,
  bool: K_BOOL,
  int32: K_INT32,
  int64: K_INT64,
  double: K_DOUBLE,
  float: K_FLOAT,
  "meta.v1.Time": K_TIME,
  "meta.v1.MicroTime": K_MICROTIME,
  "meta.v1.Duration": K_DURATION,
  "resource.Quantity": K_QUANTITY,
  "intstr.IntOrString": K_INTORSTRING,
  "runtime.RawExtension": K_RAWEXTENSION,
  "meta.v1.FieldsV1": K_FIELDSV1,
};

function wireTypeOf(kind: number): number {
  switch (kind) {
    case K_BOOL:
    case K_INT32:
    case K_INT64:
      return WT_VARINT;
    case K_DOUBLE:
      return WT_I64;
    case K_FLOAT:
      return WT_I32;
    default:
      return WT_LEN;
  }
}

interface Field {
  readonly json: string;
  readonly no: number;
  readonly kind: number;
  readonly typeName: string;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly keepZero: boolean;
  /**
   * `json: ""`: an embedded Go struct whose JSON fields are inlined into the enclosing object (`json:",inline"`).
   * On the wire an ordinary nested message; in JSON its fields sit beside the enclosing message's own.
   */
  readonly inline: boolean;
  /** The wire type of the field on the wire (a map field's entries are always length-delimited). */
  readonly wireType: number;
  /** The wire type of one value (an element, or a map entry's value). */
  readonly valueWireType: number;
  /** The tag varint of one element on the wire. */
  readonly tag: number;
  /** For K_MESSAGE: the element (or map value) message, resolved after all tables are read. */
  message: Message | undefined;
}

interface Message {
  readonly name: string;
  /** In ascending field number. */
  readonly fields: readonly Field[];
  /** Field number -> field (dense array; field numbers in Kubernetes' protos are small). */
  readonly byNo: readonly (Field | undefined)[];
  readonly byJson: ReadonlyMap<string, Field>;
  /** A top-level kind: its JSON carries `apiVersion` and `kind`, which travel in the envelope instead. */
  typeMeta: boolean;
  /** Every JSON key of the message, those of inlined messages included (computed on first need). */
  keys: ReadonlySet<string> | undefined;
  readonly hasInline: boolean;
}

const MAX_FIELD_NUMBER = 1 << 16;

function compileMessage(name: string, def: MessageDef): Message {
  const fields: Field[] = def.fields.map((f: FieldDef) => {
    if (!Number.isInteger(f.no) || f.no < 1 || f.no > MAX_FIELD_NUMBER) throw new Error(`protobuf schema: ${name}.${f.json} has field number ${f.no}`);
    const kind = KIND_OF[f.type] ?? K_MESSAGE;
    const wireType = f.map === true ? WT_LEN : wireTypeOf(kind);
    return {
      json: f.json,
      no: f.no,
      kind,
      typeName: f.type,
      repeated: f.repeated === true || f.map === true,
      map: f.map === true,
      keepZero: f.keepZero === true,
      inline: f.json === "",
      wireType,
      valueWireType: wireTypeOf(kind),
      tag: f.no * 8 + wireType,
      message: undefined,
    };
  });
  fields.sort((a, b) => a.no - b.no);
  const byNo: (Field | undefined)[] = [];
  const byJson = new Map<string, Field>();
  for (const f of fields) {
    if (byNo[f.no] !== undefined) throw new Error(`protobuf schema: ${name} has two fields numbered ${f.no}`);
    byNo[f.no] = f;
    if (f.json === "") {
      if (f.kind !== K_MESSAGE || f.repeated) throw new Error(`protobuf schema: ${name} field ${f.no} is inlined but not a single message`);
      continue;
    }
    if (byJson.has(f.json)) throw new Error(`protobuf schema: ${name} has two fields named ${f.json}`);
    byJson.set(f.json, f);
  }
  return { name, fields, byNo, byJson, typeMeta: false, keys: undefined, hasInline: fields.some((f) => f.inline) };
}

// ---- writer ----

const SHORT_STRING_UNITS = 42; // a string of at most 42 UTF-16 units has at most 126 UTF-8 bytes: a 1-byte length

/**
 * A growable output buffer. Length-delimited values reserve one length byte and are shifted right in the rare
 * case their length needs more (a value of 128 bytes or more), so nothing is measured twice.
 */
export class Writer {
  buf: Buffer;
  pos = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  reset(): void {
    this.pos = 0;
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** An unsigned or signed integer as a varint (negative: ten bytes of two's complement, as Go writes int32/int64). */
  varint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    if (v >= 0 && v <= 0x7fffffff) {
      while (v > 0x7f) {
        buf[pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buf[pos++] = v;
    } else if (v > 0) {
      while (v > 0x7f) {
        buf[pos++] = (v % 128) | 0x80;
        v = Math.floor(v / 128);
      }
      buf[pos++] = v;
    } else {
      let big = BigInt.asUintN(64, BigInt(v));
      while (big > 0x7fn) {
        buf[pos++] = Number(big & 0x7fn) | 0x80;
        big >>= 7n;
      }
      buf[pos++] = Number(big);
    }
    this.pos = pos;
  }

  /** Starts a length-delimited value; pass the result to `endLength`. */
  beginLength(): number {
    this.ensure(1);
    return this.pos++;
  }

  endLength(start: number): void {
    const len = this.pos - start - 1;
    if (len < 0x80) {
      this.buf[start] = len;
      return;
    }
    const size = varintSize(len);
    this.ensure(size - 1);
    this.buf.copyWithin(start + size, start + 1, this.pos);
    const end = this.pos + size - 1;
    this.pos = start;
    this.varint(len);
    this.pos = end;
  }

  /** A string's UTF-8 bytes with their length. */
  string(s: string): void {
    const n = s.length;
    if (n <= SHORT_STRING_UNITS) {
      this.ensure(1 + n * 3);
      const buf = this.buf;
      const start = this.pos;
      let p = start + 1;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          p = start + 1 + buf.write(s, start + 1, "utf8");
          break;
        }
        buf[p++] = c;
      }
      buf[start] = p - start - 1;
      this.pos = p;
      return;
    }
    // Assume ASCII (length = n); on the first other character, measure and write again.
    const lenSize = varintSize(n);
    this.ensure(lenSize + n);
    const buf = this.buf;
    const start = this.pos;
    let p = start + lenSize;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        const bytes = Buffer.byteLength(s, "utf8");
        this.varint(bytes);
        this.ensure(bytes);
        this.pos += this.buf.write(s, this.pos, "utf8");
        return;
      }
      buf[p++] = c;
    }
    this.varint(n);
    this.pos = p;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  float(v: number): void {
    this.ensure(4);
    this.buf.writeFloatLE(v, this.pos);
    this.pos += 4;
  }

  /** A copy of bytes [from, pos). */
  copyOut(from = 0): Buffer {
    const out = Buffer.allocUnsafe(this.pos - from);
    this.buf.copy(out, 0, from, this.pos);
    return out;
  }
}

export function varintSize(v: number): number {
  if (v < 0) return 10;
  let size = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    size++;
  }
  return size;
}

// ---- reader ----

export class Reader {
  readonly buf: Buffer;
  pos: number;
  readonly end: number;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  /** A varint as a signed 64-bit value (exact up to 2^53), the way int32, int64 and bool are read. */
  varint(limit: number): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos >= limit) throw new WireFormatError("unexpected end of data in varint");
    let b = buf[pos++] ?? 0;
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    let lo = b & 0x7f;
    let shift = 7;
    for (; shift < 28; shift += 7) {
      if (pos >= limit) throw new WireFormatError("unexpected end of data in varint");
      b = buf[pos++] ?? 0;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return lo >>> 0;
      }
    }
    if (pos >= limit) throw new WireFormatError("unexpected end of data in varint");
    b = buf[pos++] ?? 0;
    lo |= (b & 0x0f) << 28;
    let hi = (b & 0x7f) >> 4;
    if (b >= 0x80) {
      for (shift = 3; ; shift += 7) {
        if (shift > 63) throw new WireFormatError("varint overflows 64 bits");
        if (pos >= limit) throw new WireFormatError("unexpected end of data in varint");
        b = buf[pos++] ?? 0;
        hi |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
    }
    this.pos = pos;
    return (hi | 0) * 4294967296 + (lo >>> 0);
  }

  /** The end offset of a length-delimited value starting at pos. */
  lengthEnd(limit: number): number {
    const len = this.varint(limit);
    if (len < 0 || this.pos + len > limit) throw new WireFormatError(`length ${len} runs past the end of the data`);
    return this.pos + len;
  }

  skip(wireType: number, limit: number): void {
    switch (wireType) {
      case WT_VARINT:
        this.varint(limit);
        return;
      case WT_I64:
        this.need(8, limit);
        this.pos += 8;
        return;
      case WT_LEN:
        this.pos = this.lengthEnd(limit);
        return;
      case WT_I32:
        this.need(4, limit);
        this.pos += 4;
        return;
      default:
        throw new WireFormatError(`unsupported wire type ${wireType}`);
    }
  }

  need(bytes: number, limit: number): void {
    if (this.pos + bytes > limit) throw new WireFormatError("unexpected end of data");
  }
}

// ---- times and durations ----

const DIGIT0 = 48;

function digits(s: string, from: number, count: number): number {
  let v = 0;
  for (let i = from; i < from + count; i++) {
    const d = s.charCodeAt(i) - DIGIT0;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Parses RFC 3339 (Go's time.RFC3339 layout, fraction optional); seconds since the epoch and nanoseconds, or undefined. */
export function parseRfc3339(s: string): { seconds: number; nanos: number } | undefined {
  if (s.length < 20 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined;
  const t = s.charCodeAt(10);
  if (t !== 84 && t !== 116) return undefined;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  let i = 19;
  let nanos = 0;
  if (s.charCodeAt(i) === 46) {
    i++;
    const from = i;
    while (i < s.length && s.charCodeAt(i) >= DIGIT0 && s.charCodeAt(i) <= DIGIT0 + 9) i++;
    const count = i - from;
    if (count === 0 || count > 9) return undefined;
    nanos = digits(s, from, count) * 10 ** (9 - count);
  }
  let offsetSeconds = 0;
  const z = s.charCodeAt(i);
  if (z === 90 || z === 122) {
    if (i + 1 !== s.length) return undefined;
  } else if (z === 43 || z === 45) {
    if (i + 6 !== s.length || s.charCodeAt(i + 3) !== 58) return undefined;
    const oh = digits(s, i + 1, 2);
    const om = digits(s, i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return undefined;
    offsetSeconds = (oh * 60 + om) * 60 * (z === 43 ? 1 : -1);
  } else {
    return undefined;
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(ms).getUTCDate() !== day) return undefined;
  return { seconds: ms / 1000 - offsetSeconds, nanos };
}

function pad(v: number, width: number): string {
  return String(v).padStart(width, "0");
}

/** `2006-01-02T15:04:05Z` in UTC (metav1.Time's JSON). */
export function formatTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  if (year < 0 || year > 9999) return `${d.toISOString().slice(0, -5)}Z`;
  return `${pad(year, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}Z`;
}

/** `2006-01-02T15:04:05.000000Z` in UTC (metav1.MicroTime's JSON). */
export function formatMicroTime(seconds: number, nanos: number): string {
  return `${formatTime(seconds).slice(0, -1)}.${pad(Math.floor(nanos / 1000), 6)}Z`;
}

const NS_PER = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 } as const;

/** Go's time.ParseDuration, in nanoseconds; undefined when it is not a duration. */
export function parseGoDuration(s: string): number | undefined {
  let rest = s;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest.startsWith("-")) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  const unit = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  let total = 0;
  while (rest !== "") {
    const m = unit.exec(rest);
    if (m === null) return undefined;
    const whole = m[1] ?? "";
    const frac = m[2] ?? "";
    if (whole === "" && frac === "") return undefined;
    const scale = NS_PER[(m[3] ?? "ns") as keyof typeof NS_PER];
    total += (whole === "" ? 0 : Number(whole)) * scale;
    if (frac !== "") total += Math.round(Number(`0.${frac}`) * scale);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

/** Digits of `v / 10^prec` with the fraction's trailing zeros (and a bare point) left out, as Go's fmtFrac/fmtInt. */
function fracString(v: number, prec: number): string {
  const div = 10 ** prec;
  const whole = Math.floor(v / div);
  const frac = v - whole * div;
  if (frac === 0) return String(whole);
  let fracDigits = pad(frac, prec);
  while (fracDigits.endsWith("0")) fracDigits = fracDigits.slice(0, -1);
  return `${whole}.${fracDigits}`;
}

/** Go's time.Duration.String() for a duration in nanoseconds ("1h2m3s", "500ms", "0s"). */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return "0s";
  const sign = ns < 0 ? "-" : "";
  const u = Math.abs(ns);
  if (u < 1e9) {
    if (u < 1e3) return `${sign}${u}ns`;
    if (u < 1e6) return `${sign}${fracString(u, 3)}µs`;
    return `${sign}${fracString(u, 6)}ms`;
  }
  const totalSeconds = Math.floor(u / 1e9);
  const nanos = u - totalSeconds * 1e9;
  const seconds = totalSeconds % 60;
  const minutes = Math.floor(totalSeconds / 60) % 60;
  const hours = Math.floor(totalSeconds / 3600);
  const sec = nanos === 0 ? String(seconds) : fracString(seconds * 1e9 + nanos, 9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${sec}s`;
  if (minutes > 0) return `${sign}${minutes}m${sec}s`;
  return `${sign}${sec}s`;
}

// ---- the codec ----

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export interface CodecOptions {
  /** Messages that are top-level kinds: their JSON's `apiVersion` and `kind` are not fields (they go in the envelope). */
  typeMetaMessages?: Iterable<string>;
}

/** Encoder and decoder for the messages of a set of schema tables. */
export class ProtobufCodec {
  private readonly messages = new Map<string, Message>();
  private readonly writer = new Writer();
  private readonly missing: string[] = [];
  /** Per nesting depth, the fields of the object being written, sorted by number (reused: no allocation per message). */
  private readonly scratch: Field[][] = [];
  private depth = 0;

  constructor(tables: readonly SchemaTable[], options: CodecOptions = {}) {
    for (const table of tables) {
      for (const [name, def] of Object.entries(table)) {
        if (this.messages.has(name)) throw new Error(`protobuf schema: message ${name} is defined twice`);
        this.messages.set(name, compileMessage(name, def));
      }
    }
    for (const message of this.messages.values()) {
      for (const f of message.fields) {
        if (f.kind !== K_MESSAGE) continue;
        f.message = this.messages.get(f.typeName);
        if (f.message === undefined) this.missing.push(`${message.name}.${f.json} -> ${f.typeName}`);
      }
    }
    for (const name of options.typeMetaMessages ?? []) {
      const message = this.messages.get(name);
      if (message !== undefined) message.typeMeta = true;
    }
  }

  has(name: string): boolean {
    return this.messages.has(name);
  }

  /** Fields whose message type no table defines (`Msg.field -> Type`); using them throws UnknownMessageError. */
  missingReferences(): readonly string[] {
    return this.missing;
  }

  /** The message names of the tables. */
  messageNames(): string[] {
    return [...this.messages.keys()];
  }

  private message(name: string): Message {
    const m = this.messages.get(name);
    if (m === undefined) throw new UnknownMessageError(name);
    return m;
  }

  /** `json` as the bytes of message `name`. */
  encode(name: string, json: unknown): Buffer {
    const w = this.writer;
    w.reset();
    this.depth = 0;
    this.encodeMessage(w, this.message(name), json);
    return w.copyOut();
  }

  /** Writes `json` as message `name` (without a length) at the writer's position. */
  encodeTo(w: Writer, name: string, json: unknown): void {
    this.depth = 0;
    this.encodeMessage(w, this.message(name), json);
  }

  /** The JSON form of the message `name` in bytes [start, end). */
  decode(name: string, bytes: Uint8Array, start = 0, end = bytes.length): Record<string, unknown> {
    const r = new Reader(bytes, start, end);
    return this.decodeMessage(this.message(name), r, end, {});
  }

  /** Decodes into `out` (after keys it already has: the envelope puts kind and apiVersion first). */
  decodeInto(name: string, bytes: Uint8Array, start: number, end: number, out: Record<string, unknown>): Record<string, unknown> {
    return this.decodeMessage(this.message(name), new Reader(bytes, start, end), end, out);
  }

  // ---- encode ----

  private encodeMessage(w: Writer, m: Message, json: unknown): void {
    if (!isObject(json)) throw new JsonTypeError(m.name, "", "an object", json);
    if (!m.hasInline) {
      // The object's own keys, looked up and sorted by field number (insertion sort: JSON keys are mostly in order).
      const depth = this.depth++;
      const picked = (this.scratch[depth] ??= []);
      let n = 0;
      for (const key in json) {
        const f = m.byJson.get(key);
        if (f === undefined) {
          if (json[key] === undefined || (m.typeMeta && (key === "apiVersion" || key === "kind"))) continue;
          throw new UnknownJsonFieldError(m.name, key);
        }
        let i = n++;
        while (i > 0 && (picked[i - 1] as Field).no > f.no) {
          picked[i] = picked[i - 1] as Field;
          i--;
        }
        picked[i] = f;
      }
      for (let i = 0; i < n; i++) {
        const f = picked[i] as Field;
        const v = json[f.json];
        if (v !== undefined) this.writeField(w, m, f, v);
      }
      this.depth = depth;
      return;
    }
    const found = this.encodeFields(w, m, json);
    let keys = 0;
    for (const key in json) {
      if (Object.hasOwn(json, key)) keys++;
    }
    if (keys !== found) this.checkKeys(m, json);
  }

  /** Writes the fields of `m` found in `json`; returns how many keys of `json` they took. */
  private encodeFields(w: Writer, m: Message, json: Record<string, unknown>): number {
    const fields = m.fields;
    let found = 0;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i] as Field;
      if (f.inline) {
        const sub = f.message;
        if (sub === undefined) throw new UnknownMessageError(f.typeName, `${m.name} (inlined field ${f.no})`);
        // Always written, as Go writes a non-pointer embedded struct.
        w.varint(f.tag);
        const start = w.beginLength();
        found += this.encodeFields(w, sub, json);
        w.endLength(start);
        continue;
      }
      const v = json[f.json];
      if (v === undefined) continue;
      found++;
      this.writeField(w, m, f, v);
    }
    return found;
  }

  /** One field (all its elements for repeated and map fields) with its tags. */
  private writeField(w: Writer, m: Message, f: Field, v: unknown): void {
    if (v === null) {
      // Go's JSON reads null as "not set", except for the types whose zero value has a JSON form of null.
      if (f.repeated || (f.kind !== K_TIME && f.kind !== K_MICROTIME && f.kind !== K_RAWEXTENSION)) return;
      w.varint(f.tag);
      w.byte(0);
      return;
    }
    if (f.map) this.encodeMap(w, m, f, v);
    else if (f.repeated) {
      if (!Array.isArray(v)) throw new JsonTypeError(m.name, f.json, "an array", v);
      for (let j = 0; j < v.length; j++) {
        w.varint(f.tag);
        this.encodeValue(w, m, f, v[j]);
      }
    } else {
      w.varint(f.tag);
      this.encodeValue(w, m, f, v);
    }
  }

  private keysOf(m: Message): ReadonlySet<string> {
    if (m.keys !== undefined) return m.keys;
    const keys = new Set(m.byJson.keys());
    for (const f of m.fields) {
      if (f.inline && f.message !== undefined) for (const k of this.keysOf(f.message)) keys.add(k);
    }
    m.keys = keys;
    return keys;
  }

  /** The slow path when the key count does not match: a typeMeta key, an undefined value, or an unknown key. */
  private checkKeys(m: Message, json: Record<string, unknown>): void {
    for (const key of Object.keys(json)) {
      if (this.keysOf(m).has(key) || json[key] === undefined) continue;
      if (m.typeMeta && (key === "apiVersion" || key === "kind")) continue;
      throw new UnknownJsonFieldError(m.name, key);
    }
  }

  private encodeMap(w: Writer, m: Message, f: Field, v: unknown): void {
    if (!isObject(v)) throw new JsonTypeError(m.name, f.json, "an object (map)", v);
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      const value = v[key];
      if (value === undefined) continue;
      w.varint(f.tag);
      const start = w.beginLength();
      w.byte(0x0a);
      w.string(key);
      w.varint(16 + wireTypeOf(f.kind));
      this.encodeValue(w, m, f, value);
      w.endLength(start);
    }
  }

  /** One value of field f (an element, for repeated and map fields), after its tag. */
  private encodeValue(w: Writer, m: Message, f: Field, v: unknown): void {
    switch (f.kind) {
      case K_STRING:
        if (typeof v !== "string") {
          if (v === null) return w.byte(0);
          throw new JsonTypeError(m.name, f.json, "a string", v);
        }
        return w.string(v);
      case K_BYTES: {
        if (typeof v !== "string" || (v.length % 4 !== 0 || !BASE64.test(v))) {
          if (v === null) return w.byte(0);
          throw new JsonTypeError(m.name, f.json, "a base64 string", v);
        }
        const start = w.beginLength();
        w.ensure(Math.ceil(v.length / 4) * 3);
        w.pos += w.buf.write(v, w.pos, "base64");
        return w.endLength(start);
      }
      case K_BOOL:
        if (typeof v !== "boolean") throw new JsonTypeError(m.name, f.json, "a boolean", v);
        return w.byte(v ? 1 : 0);
      case K_INT32:
        if (typeof v !== "number" || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw new JsonTypeError(m.name, f.json, "an int32", v);
        return w.varint(v);
      case K_INT64:
        if (typeof v !== "number" || !Number.isInteger(v)) throw new JsonTypeError(m.name, f.json, "an int64", v);
        return w.varint(v);
      case K_DOUBLE:
        if (typeof v !== "number") throw new JsonTypeError(m.name, f.json, "a number", v);
        return w.double(v);
      case K_FLOAT:
        if (typeof v !== "number") throw new JsonTypeError(m.name, f.json, "a number", v);
        return w.float(v);
      case K_MESSAGE: {
        const sub = f.message;
        if (sub === undefined) throw new UnknownMessageError(f.typeName, `${m.name}.${f.json}`);
        const start = w.beginLength();
        if (v !== null) this.encodeMessage(w, sub, v);
        return w.endLength(start);
      }
      case K_TIME:
      case K_MICROTIME: {
        const start = w.beginLength();
        if (v !== null) {
          const t = typeof v === "string" ? parseRfc3339(v) : undefined;
          if (t === undefined) throw new JsonTypeError(m.name, f.json, "an RFC 3339 time", v);
          const seconds = Math.floor(t.seconds);
          w.byte(0x08);
          w.varint(seconds);
          w.byte(0x10);
          w.varint(f.kind === K_MICROTIME ? Math.floor(t.nanos / 1000) * 1000 : 0);
        }
        return w.endLength(start);
      }
      case K_DURATION: {
        const ns = typeof v === "string" ? parseGoDuration(v) : undefined;
        if (ns === undefined) throw new JsonTypeError(m.name, f.json, "a duration", v);
        const start = w.beginLength();
        w.byte(0x08);
        w.varint(ns);
        return w.endLength(start);
      }
      case K_QUANTITY: {
        if (typeof v !== "string" && typeof v !== "number") throw new JsonTypeError(m.name, f.json, "a quantity", v);
        const start = w.beginLength();
        w.byte(0x0a);
        w.string(typeof v === "string" ? v : String(v));
        return w.endLength(start);
      }
      case K_INTORSTRING: {
        const start = w.beginLength();
        if (typeof v === "number") {
          if (!Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw new JsonTypeError(m.name, f.json, "an int32 or a string", v);
          w.byte(0x08);
          w.byte(0);
          w.byte(0x10);
          w.varint(v);
          w.byte(0x1a);
          w.byte(0);
        } else if (typeof v === "string") {
          w.byte(0x08);
          w.byte(1);
          w.byte(0x10);
          w.byte(0);
          w.byte(0x1a);
          w.string(v);
        } else {
          throw new JsonTypeError(m.name, f.json, "an int32 or a string", v);
        }
        return w.endLength(start);
      }
      case K_RAWEXTENSION:
      case K_FIELDSV1: {
        const start = w.beginLength();
        if (v !== null) {
          w.byte(0x0a);
          w.string(JSON.stringify(v));
        }
        return w.endLength(start);
      }
      default:
        throw new Error(`protobuf codec: field kind ${f.kind}`);
    }
  }

  // ---- decode ----

  private decodeMessage(m: Message, r: Reader, end: number, out: Record<string, unknown>): Record<string, unknown> {
    const byNo = m.byNo;
    while (r.pos < end) {
      const tag = r.varint(end);
      const no = Math.floor(tag / 8);
      const wireType = tag & 7;
      const f = no < byNo.length ? byNo[no] : undefined;
      if (f === undefined) {
        if (no === 0) throw new WireFormatError(`${m.name}: invalid field number 0`);
        throw new UnknownFieldError(m.name, no);
      }
      if (f.map) {
        if (wireType !== WT_LEN) throw wrongWireType(m, f, wireType);
        const entryEnd = r.lengthEnd(end);
        let key = "";
        let value: unknown = undefined;
        while (r.pos < entryEnd) {
          const t = r.varint(entryEnd);
          if (t === 0x0a) {
            const e = r.lengthEnd(entryEnd);
            key = readString(r.buf, r.pos, e);
            r.pos = e;
          } else if (t >>> 3 === 2) {
            value = this.decodeValue(m, f, t & 7, r, entryEnd);
          } else {
            throw new UnknownFieldError(`${m.name}.${f.json} map entry`, t >>> 3);
          }
        }
        const map = (out[f.json] ??= {}) as Record<string, unknown>;
        map[key] = value === undefined ? this.zeroValue(f) : value;
        continue;
      }
      if (f.repeated) {
        const list = (out[f.json] ??= []) as unknown[];
        if (wireType === WT_LEN && f.valueWireType !== WT_LEN) {
          // Packed scalars.
          const packedEnd = r.lengthEnd(end);
          while (r.pos < packedEnd) list.push(this.decodeValue(m, f, f.valueWireType, r, packedEnd));
        } else {
          list.push(this.decodeValue(m, f, wireType, r, end));
        }
        continue;
      }
      if (f.inline && wireType === WT_LEN) {
        const sub = f.message;
        if (sub === undefined) throw new UnknownMessageError(f.typeName, `${m.name} (inlined field ${f.no})`);
        this.decodeMessage(sub, r, r.lengthEnd(end), out);
        continue;
      }
      if (f.kind === K_MESSAGE && wireType === WT_LEN) {
        // A repeated occurrence of a message field merges into the first, as proto2 specifies.
        const sub = f.message;
        if (sub === undefined) throw new UnknownMessageError(f.typeName, `${m.name}.${f.json}`);
        const msgEnd = r.lengthEnd(end);
        const existing = out[f.json];
        out[f.json] = this.decodeMessage(sub, r, msgEnd, isObject(existing) ? existing : {});
        continue;
      }
      const v = this.decodeValue(m, f, wireType, r, end);
      if (!f.keepZero && (v === "" || v === 0 || v === false) && f.kind <= K_FLOAT) {
        // Not set (Go writes zeros of every non-pointer field). A later zero clears an earlier value (last one wins).
        if (out[f.json] !== undefined) delete out[f.json];
        continue;
      }
      out[f.json] = v;
    }
    if (r.pos !== end) throw new WireFormatError(`${m.name}: a field runs past the end of the message`);
    return out;
  }

  private zeroValue(f: Field): unknown {
    switch (f.kind) {
      case K_STRING:
      case K_BYTES:
        return "";
      case K_BOOL:
        return false;
      case K_INT32:
      case K_INT64:
      case K_DOUBLE:
      case K_FLOAT:
        return 0;
      case K_QUANTITY:
        return "0";
      case K_INTORSTRING:
        return 0;
      case K_TIME:
      case K_MICROTIME:
      case K_RAWEXTENSION:
        return null;
      case K_DURATION:
        return "0s";
      default:
        return {};
    }
  }

  private decodeValue(m: Message, f: Field, wireType: number, r: Reader, end: number): unknown {
    if (wireType !== f.valueWireType) throw wrongWireType(m, f, wireType);
    switch (f.kind) {
      case K_STRING: {
        const e = r.lengthEnd(end);
        const s = readString(r.buf, r.pos, e);
        r.pos = e;
        return s;
      }
      case K_BYTES: {
        const e = r.lengthEnd(end);
        const s = r.buf.toString("base64", r.pos, e);
        r.pos = e;
        return s;
      }
      case K_BOOL:
        return r.varint(end) !== 0;
      case K_INT32:
        return r.varint(end) | 0;
      case K_INT64:
        return r.varint(end);
      case K_DOUBLE: {
        r.need(8, end);
        const v = r.buf.readDoubleLE(r.pos);
        r.pos += 8;
        return v;
      }
      case K_FLOAT: {
        r.need(4, end);
        const v = r.buf.readFloatLE(r.pos);
        r.pos += 4;
        return v;
      }
      case K_MESSAGE: {
        const sub = f.message;
        if (sub === undefined) throw new UnknownMessageError(f.typeName, `${m.name}.${f.json}`);
        const e = r.lengthEnd(end);
        return this.decodeMessage(sub, r, e, {});
      }
      case K_TIME:
      case K_MICROTIME:
        return decodeTime(r, r.lengthEnd(end), f.kind === K_MICROTIME);
      case K_DURATION: {
        const e = r.lengthEnd(end);
        let ns = 0;
        while (r.pos < e) {
          const t = r.varint(e);
          if (t !== 0x08) throw new UnknownFieldError("meta.v1.Duration", t >>> 3);
          ns = r.varint(e);
        }
        return formatGoDuration(ns);
      }
      case K_QUANTITY: {
        const e = r.lengthEnd(end);
        let s = "0";
        while (r.pos < e) {
          const t = r.varint(e);
          if (t !== 0x0a) throw new UnknownFieldError("resource.Quantity", t >>> 3);
          const se = r.lengthEnd(e);
          s = readString(r.buf, r.pos, se);
          r.pos = se;
        }
        return s;
      }
      case K_INTORSTRING: {
        const e = r.lengthEnd(end);
        let type = 0;
        let intVal = 0;
        let strVal = "";
        while (r.pos < e) {
          const t = r.varint(e);
          if (t === 0x08) type = r.varint(e);
          else if (t === 0x10) intVal = r.varint(e) | 0;
          else if (t === 0x1a) {
            const se = r.lengthEnd(e);
            strVal = readString(r.buf, r.pos, se);
            r.pos = se;
          } else throw new UnknownFieldError("intstr.IntOrString", t >>> 3);
        }
        return type === 1 ? strVal : intVal;
      }
      case K_RAWEXTENSION:
      case K_FIELDSV1: {
        const e = r.lengthEnd(end);
        const name = f.kind === K_FIELDSV1 ? "meta.v1.FieldsV1" : "runtime.RawExtension";
        let value: unknown = f.kind === K_FIELDSV1 ? {} : null;
        while (r.pos < e) {
          const t = r.varint(e);
          if (t !== 0x0a) throw new UnknownFieldError(name, t >>> 3);
          const re = r.lengthEnd(e);
          const text = r.buf.toString("utf8", r.pos, re);
          r.pos = re;
          if (text === "") continue;
          try {
            value = JSON.parse(text);
          } catch {
            throw new WireFormatError(`${m.name}.${f.json}: ${name} does not hold JSON`);
          }
        }
        return value;
      }
      default:
        throw new Error(`protobuf codec: field kind ${f.kind}`);
    }
  }
}

/** UTF-8 bytes [start, end) as a string; short ASCII strings without a call into the runtime. */
export function readString(buf: Buffer, start: number, end: number): string {
  if (end - start > 24) return buf.toString("utf8", start, end);
  let out = "";
  for (let i = start; i < end; i++) {
    const c = buf[i] ?? 0;
    if (c >= 0x80) return buf.toString("utf8", start, end);
    out += String.fromCharCode(c);
  }
  return out;
}

function decodeTime(r: Reader, end: number, micro: boolean): string | null {
  if (r.pos === end) return null;
  let seconds = 0;
  let nanos = 0;
  while (r.pos < end) {
    const t = r.varint(end);
    if (t === 0x08) seconds = r.varint(end);
    else if (t === 0x10) nanos = r.varint(end) | 0;
    else throw new UnknownFieldError(micro ? "meta.v1.MicroTime" : "meta.v1.Time", t >>> 3);
  }
  // metav1.Time keeps whole seconds only (its protobuf Unmarshal ignores nanos, as its JSON does).
  return micro ? formatMicroTime(seconds, nanos < 0 ? 0 : nanos) : formatTime(seconds);
}

function wrongWireType(m: Message, f: Field, wireType: number): WireFormatError {
  return new WireFormatError(`${m.name}.${f.json} (field ${f.no}, ${f.typeName}) has wire type ${wireType}, expected ${f.map ? WT_LEN : f.valueWireType}`);
}
