// Go encoding/json, as json.Marshal renders a value decoded into interface{}: map keys sorted by their UTF-8
// bytes at every level, HTML-safe escaping (< > & U+2028 U+2029 as \u003c …), shortest float formatting.
// ControllerRevision `data.raw` is produced this way upstream (getPatch), so byte compatibility depends on it.

import { assertNever } from "#protocol";

export class GoJsonError extends Error {
  override readonly name = "GoJsonError";
  readonly path: string;

  constructor(message: string, path: string) {
    super(`${message} at ${path}`);
    this.path = path;
  }
}

const HEX = "0123456789abcdef";
/** Characters that force the slow path of string encoding (controls, quote, backslash, HTML, separators, surrogates). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point: Go escapes them.
const NEEDS_ESCAPE = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const HAS_SURROGATE = /[\ud800-\udfff]/;

function escapeString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    switch (code) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += "\\\\";
        continue;
      case 0x0a:
        out += "\\n";
        continue;
      case 0x0d:
        out += "\\r";
        continue;
      case 0x09:
        out += "\\t";
        continue;
      case 0x08:
        out += "\\b";
        continue;
      case 0x0c:
        out += "\\f";
        continue;
      case 0x3c:
      case 0x3e:
      case 0x26:
      case 0x2028:
      case 0x2029:
        out += `\\u${code.toString(16).padStart(4, "0")}`;
        continue;
      default:
        break;
    }
    if (code < 0x20) {
      out += `\\u00${HEX[code >> 4]}${HEX[code & 0xf]}`;
    } else if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value[i] + (value[i + 1] ?? "");
        i++;
      } else {
        // Go decoded an unpaired surrogate escape into U+FFFD, which it then writes unescaped.
        out += "\ufffd";
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      out += "\ufffd";
    } else {
      out += value[i];
    }
  }
  return `${out}"`;
}

/** Go sorts map keys with strings.Compare on UTF-8 bytes, which is code point order (not UTF-16 unit order). */
function compareKeys(a: string, b: string): number {
  if (!HAS_SURROGATE.test(a) && !HAS_SURROGATE.test(b)) {
    // Without surrogates, UTF-16 unit order and code point order agree.
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const left = Array.from(a);
  const right = Array.from(b);
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const l = left[i]?.codePointAt(0) ?? 0;
    const r = right[i]?.codePointAt(0) ?? 0;
    if (l !== r) return l - r;
  }
  return left.length - right.length;
}

function formatNumber(value: number, path: string): string {
  if (!Number.isFinite(value)) throw new GoJsonError(`unsupported value ${String(value)}`, path);
  // Go prints float64(-0) as "-0"; JavaScript's String() drops the sign.
  if (Object.is(value, -0)) return "-0";
  // strconv.FormatFloat(f, 'f' or 'e', -1, 64) with Go's exponent clean-up yields exactly JavaScript's
  // shortest round-trip form, including the switch to exponent notation below 1e-6 and from 1e21.
  return String(value);
}

function encode(value: unknown, path: string): string {
  if (value === null || value === undefined) return "null";
  const kind = typeof value;
  switch (kind) {
    case "string":
      return escapeString(value as string);
    case "number":
      return formatNumber(value as number, path);
    case "boolean":
      return value === true ? "true" : "false";
    case "object":
      break;
    case "bigint":
    case "function":
    case "symbol":
    case "undefined":
      throw new GoJsonError(`unsupported ${kind}`, path);
    default:
      return assertNever(kind, "typeof");
  }
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (let i = 0; i < value.length; i++) parts.push(encode(value[i], `${path}[${i}]`));
    return `[${parts.join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort(compareKeys);
  const parts: string[] = [];
  for (const key of keys) parts.push(`${escapeString(key)}:${encode(record[key], `${path}.${key}`)}`);
  return `{${parts.join(",")}}`;
}

/** json.Marshal of a JSON value held in interface{}. Throws GoJsonError for values JSON cannot carry. */
export function goJsonMarshal(value: unknown): string {
  return encode(value, "$");
}
