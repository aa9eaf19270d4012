// The YAML text of a JSON value, as gnostic stores an OpenAPI vendor extension (`x-kubernetes-...`) in the
// protobuf form of /openapi/v2: `Any.yaml`. Consumers (kube-openapi's `VendorExtensionToMap`, used by
// kubectl) only parse it back, so the layout follows go-yaml v3's block style (4-space mappings, `- ` items)
// without trying to be byte-identical: every string that could read as another type is double-quoted.

/** YAML 1.1/1.2 words that resolve to null, booleans or special floats (go-yaml v3 quotes them). */
const RESERVED = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const NUMBER_LIKE = /^[-+]?(?:\.?[0-9]|0[box])|^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_./,=+\-()' ]*$/;

function scalarString(s: string): string {
  const plain = s !== "" && PLAIN.test(s) && !s.endsWith(" ") && !RESERVED.test(s) && !NUMBER_LIKE.test(s);
  return plain ? s : JSON.stringify(s);
}

function scalar(value: unknown): string | undefined {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return scalarString(value);
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : value > 0 ? ".inf" : value < 0 ? "-.inf" : ".nan";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) return value.length === 0 ? "[]" : undefined;
  if (typeof value === "object") return Object.keys(value).length === 0 ? "{}" : undefined;
  // Not JSON (bigint, symbol, function): written as a quoted string.
  return JSON.stringify(typeof value === "bigint" ? value.toString() : typeof value === "symbol" ? value.toString() : "");
}

function lines(value: unknown, out: string[], indent: string): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      const s = scalar(item);
      if (s !== undefined) {
        out.push(`${indent}- ${s}`);
        continue;
      }
      // The item's first line follows the dash; the rest line up under it.
      const inner: string[] = [];
      lines(item, inner, "");
      inner.forEach((line, i) => out.push(i === 0 ? `${indent}- ${line}` : `${indent}  ${line}`));
    }
    return;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const s = scalar(v);
    if (s !== undefined) {
      out.push(`${indent}${scalarString(key)}: ${s}`);
      continue;
    }
    out.push(`${indent}${scalarString(key)}:`);
    lines(v, out, `${indent}    `);
  }
}

/** `value` as a YAML document without the `---` marker, ending in a newline. */
export function toYaml(value: unknown): string {
  const s = scalar(value);
  if (s !== undefined) return `${s}\n`;
  const out: string[] = [];
  lines(value, out, "");
  return `${out.join("\n")}\n`;
}
