// resource.Quantity as kube-apiserver decodes and re-encodes it (apimachinery pkg/api/resource/quantity.go,
// amount.go, suffix.go). Values are exact: an unscaled BigInt times 10^exp. Parsing also reproduces the
// string cache upstream keeps for input already in canonical form, because that cache is what the
// apiserver writes back ("+1" and "05" survive verbatim; "0.5" becomes "500m").

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

export interface Quantity {
  /** Signed unscaled value; the quantity is `unscaled * 10^exp`. */
  readonly unscaled: bigint;
  readonly exp: number;
  readonly format: QuantityFormat;
  /** The input string when upstream would re-emit it unchanged. */
  readonly cached?: string;
}

export type QuantityParseResult = { ok: true; quantity: Quantity } | { ok: false; error: string };

/** The regular expression upstream quotes in ErrFormatWrong. */
export const QUANTITY_REGEX = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_REGEX}'`;
export const ERR_NUMERIC = "unable to parse numeric part of quantity";
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const NANO = -9;
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const MAX_INT64_FACTORS = 18;

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const DECIMAL_BY_EXPONENT = new Map([...DECIMAL_SUFFIXES].map(([suffix, exponent]) => [exponent, suffix]));
const BINARY_BY_EXPONENT = new Map([...BINARY_SUFFIXES].map(([suffix, exponent]) => [exponent, suffix]));

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const SUFFIX_CHARS = "eEinumkKMGTP";

interface Scanned {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
}

/** `parseQuantityString`: sign, numerator (leading zeros stripped), denominator and suffix. */
function scan(str: string): Scanned | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end && (str[0] === "-" || str[0] === "+")) {
    positive = str[0] === "+";
    pos++;
  }
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, num: "0", denom: "", suffix: "" };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  pos = i;
  if (num.length === 0) num = "0";
  let denom = "";
  if (pos < end && str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    pos = i;
  }
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i] ?? "\u0000")) i++;
  if (i >= end) return { positive, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, num, denom, suffix: str.slice(suffixStart) };
  return undefined;
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

/** `suffixHandler.interpret`, including the int32 truncation of decimal exponents. */
function interpretSuffix(suffix: string): Suffix | undefined {
  const decimal = DECIMAL_SUFFIXES.get(suffix);
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: "DecimalSI" };
  const binary = BINARY_SUFFIXES.get(suffix);
  if (binary !== undefined) return { base: 2, exponent: binary, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const digits = suffix.slice(1);
    if (!/^[+-]?\d+$/.test(digits)) return undefined;
    const parsed = BigInt(digits);
    if (parsed > MAX_INT64 || parsed < MIN_INT64) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (v: bigint): bigint => (v < 0n ? -v : v);

/** Divides by 10^digits, rounding away from zero (inf.RoundUp / divideByScaleInt64). */
function divideRoundUp(value: bigint, digits: number): bigint {
  const divisor = pow10(digits);
  const quotient = value / divisor;
  if (value % divisor === 0n) return quotient;
  return value < 0n ? quotient - 1n : quotient + 1n;
}

/** ParseQuantity(str) after the whitespace trim UnmarshalJSON applies. */
export function parseQuantity(input: string): QuantityParseResult {
  const str = input.trim();
  if (str.length === 0) return { ok: false, error: ERR_FORMAT_WRONG };
  if (str === "0") return { ok: true, quantity: { unscaled: 0n, exp: 0, format: "DecimalSI", cached: "0" } };
  const scanned = scan(str);
  if (scanned === undefined) return { ok: false, error: ERR_FORMAT_WRONG };
  const { positive, num, denom, suffix } = scanned;
  const interpreted = interpretSuffix(suffix);
  if (interpreted === undefined) return { ok: false, error: ERR_SUFFIX };
  const { base, exponent } = interpreted;
  let format = interpreted.format;

  const fast = fastPath(str, scanned, interpreted);
  if (fast !== undefined) return { ok: true, quantity: fast };

  // The inf.Dec path: exact value, rounded up to nano, binary capped at 2^63-1.
  const digits = BigInt(num + denom);
  let magnitude = digits;
  let exp = -denom.length;
  if (base === 10) exp += exponent;
  else magnitude *= 1n << BigInt(exponent);
  if (magnitude !== 0n && exp < NANO) {
    magnitude = divideRoundUp(magnitude, NANO - exp);
    exp = NANO;
  }
  if (format === "BinarySI" && compare(magnitude, exp, MAX_INT64, 0) > 0) {
    magnitude = MAX_INT64;
    exp = 0;
  }
  if (format === "BinarySI" && magnitude > 0n && compare(magnitude, exp, 1n, 0) < 0) format = "DecimalSI";
  return { ok: true, quantity: { unscaled: positive ? magnitude : -magnitude, exp, format } };
}

/** The int64 fast path of ParseQuantity; undefined when upstream falls back to inf.Dec. */
function fastPath(str: string, { positive, num, denom }: Scanned, { base, exponent, format }: Suffix): Quantity | undefined {
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (base === 10) {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  } else if (exponent >= 0 && denom.length === 0) {
    mantissa = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision < 0) return undefined;
  scale -= denom.length;
  if (scale < NANO) return undefined;
  const shifted = num + denom;
  const value = BigInt(shifted);
  const product = value * mantissa;
  if (product > MAX_INT64) return undefined;
  const unscaled = positive ? product : -product;
  let canonicalInput: boolean;
  if (format === "BinarySI") canonicalInput = exponent % 10 === 0 && (value & 7n) !== 0n;
  else canonicalInput = scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
  return canonicalInput ? { unscaled, exp: scale, format, cached: str } : { unscaled, exp: scale, format };
}

/** Compares a*10^ea with b*10^eb. */
function compare(a: bigint, ea: number, b: bigint, eb: number): number {
  const e = Math.min(ea, eb);
  const x = a * pow10(ea - e);
  const y = b * pow10(eb - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareQuantities(a: Quantity, b: Quantity): number {
  return compare(a.unscaled, a.exp, b.unscaled, b.exp);
}

export function sign(q: Quantity): number {
  return q.unscaled < 0n ? -1 : q.unscaled > 0n ? 1 : 0;
}

/** `Quantity.RoundUp(scale)`: rounds away from zero to 10^scale; a rounding drops the cached string. */
export function roundUp(q: Quantity, scale: number): Quantity {
  if (q.exp >= scale) return q;
  return { unscaled: divideRoundUp(q.unscaled, scale - q.exp), exp: scale, format: q.format };
}

/** Removes factors of `base` from a magnitude, as removeInt64Factors / removeBigIntFactors do. */
function removeFactors(value: bigint, base: bigint): { value: bigint; times: number } {
  let result = abs(value);
  let times = 0;
  while (result >= base && result % base === 0n) {
    result /= base;
    times++;
  }
  return { value: value < 0n ? -result : result, times };
}

/** `AsCanonicalBytes`: no trailing zeros, exponent a multiple of 3. */
function decimalCanonical(unscaled: bigint, exp: number): { number: string; exponent: number } {
  const removed = removeFactors(unscaled, 10n);
  let amount = removed.value;
  let exponent = exp + removed.times;
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  return { number: amount.toString(), exponent };
}

/** `String()` / MarshalJSON: the cached input, or CanonicalizeBytes. */
export function formatQuantity(q: Quantity): string {
  if (q.cached !== undefined) return q.cached;
  if (q.unscaled === 0n) return "0";
  let format = q.format;
  let integral = 0n;
  if (format === "BinarySI") {
    const fitsDecimal = compare(q.unscaled, q.exp, -1024n, 0) > 0 && compare(q.unscaled, q.exp, 1024n, 0) < 0;
    const rounded = roundUp(q, 0);
    const exact = compare(rounded.unscaled, rounded.exp, q.unscaled, q.exp) === 0;
    if (fitsDecimal || !exact) format = "DecimalSI";
    else integral = rounded.unscaled * pow10(rounded.exp);
  }
  if (format === "BinarySI") {
    const { value, times } = removeFactors(integral, 1024n);
    const suffix = BINARY_BY_EXPONENT.get(times * 10) ?? "";
    return `${value}${suffix}`;
  }
  const { number, exponent } = decimalCanonical(q.unscaled, q.exp);
  if (format === "DecimalExponent") return exponent === 0 ? number : `${number}e${exponent}`;
  const suffix = DECIMAL_BY_EXPONENT.get(exponent);
  // DecimalSI has no suffix past E (10^18); upstream falls back to exponent notation there.
  return suffix === undefined ? `${number}e${exponent}` : `${number}${suffix}`;
}

/** JSON input for a Quantity: a string, or a number (YAML `cpu: 1` arrives as a JSON number). */
export function quantityText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * How the apiserver stores a quantity held in a ResourceList: parsed, rounded up to milli-units
 * (SetDefaults_ResourceList) and re-emitted. Unparsable input is returned unchanged; the server rejects
 * it with a 400 before storing (see `decodeError`).
 */
export function canonicalQuantity(q: string): string {
  const parsed = parseQuantity(q);
  if (!parsed.ok) return q;
  return formatQuantity(roundUp(parsed.quantity, -3));
}

/** How a quantity outside a ResourceList (emptyDir.sizeLimit, divisor) is re-emitted: no rounding. */
export function canonicalQuantityExact(q: string): string {
  const parsed = parseQuantity(q);
  return parsed.ok ? formatQuantity(parsed.quantity) : q;
}

/** Semantic equality of two quantity strings (equality.Semantic compares by value). */
export function quantitiesEqual(a: string, b: string): boolean {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  return x.ok && y.ok && compareQuantities(x.quantity, y.quantity) === 0;
}

/** `Quantity.Value()` rounded up to an integer, and MilliValue. */
export function milliValue(q: Quantity): bigint {
  const rounded = roundUp(q, -3);
  return rounded.unscaled * pow10(rounded.exp + 3);
}
