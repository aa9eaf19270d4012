// How Go sees decoded JSON (interface{} holding map[string]interface{}, []interface{}, string, bool, int64,
// float64 or nil), so that error texts and type-driven branches of the strategic merge patch port match
// k8s.io/apimachinery. The apiserver decodes patches with sigs.k8s.io/json UnmarshalCaseSensitivePreserveInts,
// so whole numbers are int64 and the rest float64.
import type { JsonValue } from "./json.ts";
import { PatchError } from "./errors.ts";

export type GoKind = "map" | "slice" | "string" | "bool" | "int64" | "float64" | "nil";

export function goKind(value: JsonValue): GoKind {
  if (value === null) return "nil";
  if (Array.isArray(value)) return "slice";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  return "map";
}

const TYPE_STRINGS: Record<GoKind, string> = {
  map: "map[string]interface {}",
  slice: "[]interface {}",
  string: "string",
  bool: "bool",
  int64: "int64",
  float64: "float64",
  // fmt's rendering of a nil reflect.Type passed to %s.
  nil: "%!s(<nil>)",
};

/** `reflect.TypeOf(value)` printed with %s. */
export function goTypeString(value: JsonValue): string {
  return TYPE_STRINGS[goKind(value)];
}

export const GO_MAP_TYPE = TYPE_STRINGS.map;
export const GO_SLICE_TYPE = TYPE_STRINGS.slice;

/** fmt's %v for a decoded JSON value: `map[a:1 b:[x y]]`, map keys sorted. */
export function goFormatV(value: JsonValue): string {
  if (value === null) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goFormatV).join(" ")}]`;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return formatNumber(value);
  const keys = Object.keys(value).sort(compareBytes);
  return `map[${keys.map((key) => `${key}:${goFormatV(value[key] as JsonValue)}`).join(" ")}]`;
}

/** fmt's %s for an interface{} (only strings print plainly). */
export function goFormatS(value: JsonValue): string {
  if (value === null) return "%!s(<nil>)";
  if (Array.isArray(value)) return `[${value.map(goFormatS).join(" ")}]`;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return `%!s(bool=${value ? "true" : "false"})`;
  if (typeof value === "number") return `%!s(${goKind(value)}=${formatNumber(value)})`;
  const keys = Object.keys(value).sort(compareBytes);
  return `map[${keys.map((key) => `${key}:${goFormatS(value[key] as JsonValue)}`).join(" ")}]`;
}

/** %q of a string; JSON quoting agrees with Go's strconv.Quote for everything a field name contains. */
export function goQuote(text: string): string {
  return JSON.stringify(text);
}

function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
  return formatFloat(value);
}

/** strconv.FormatFloat(f, 'g', -1, 64), which is what %v prints for a float64. */
export function formatFloat(value: number): string {
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  const [mantissa = "0", exponentText = "0"] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  // With the shortest precision Go decides as if the precision were 6: exponent form below 1e-4 and from 1e6 up.
  if (exponent < -4 || exponent >= 6) {
    const sign = exponent < 0 ? "-" : "+";
    const digits = String(Math.abs(exponent)).padStart(2, "0");
    return `${mantissa}e${sign}${digits}`;
  }
  return String(value);
}

/** A Go runtime panic the apiserver would have recovered from; reported as an internal error. */
export function goPanic(message: string): PatchError {
  return new PatchError({ httpStatus: 500, reason: "", message: `runtime error: ${message}` });
}

/**
 * Go's `==` on two interface{} values: different dynamic types are unequal, equal types compare by value, and
 * maps or slices of the same type panic.
 */
export function goEqual(a: JsonValue, b: JsonValue): boolean {
  const kind = goKind(a);
  if (kind !== goKind(b)) return false;
  if (kind === "map" || kind === "slice") throw goPanic(`comparing uncomparable type ${TYPE_STRINGS[kind]}`);
  return a === b;
}

/** A key for a Go map[interface{}]T; maps and slices are unhashable and panic there too. */
export function goHashKey(value: JsonValue): string {
  const kind = goKind(value);
  if (kind === "map" || kind === "slice") throw goPanic(`hash of unhashable type ${TYPE_STRINGS[kind]}`);
  return `${kind}:${JSON.stringify(value)}`;
}

/**
 * sort.SliceStable from Go's standard library, step for step. The strategic merge patch sorts with a comparator
 * that is not a strict weak order for unknown items, so only the same algorithm gives the same order.
 */
export function goSliceStable<T>(items: T[], less: (a: T, b: T) => boolean): void {
  const n = items.length;
  const lessAt = (i: number, j: number): boolean => less(items[i] as T, items[j] as T);
  const swap = (i: number, j: number): void => {
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  };
  const insertionSort = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) {
      for (let j = i; j > a && lessAt(j, j - 1); j--) swap(j, j - 1);
    }
  };
  const swapRange = (a: number, b: number, count: number): void => {
    for (let i = 0; i < count; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (lessAt(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!lessAt(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n2 = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n2 - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n2 - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!lessAt(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n2 - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}
