// A compact stand-in for the go-cmp `cmp.Diff` text that some Forbidden messages append (pod spec and
// claim spec immutability). The first line of those messages is exact; the diff body only approximates
// go-cmp's layout (ADR 0037): changed top-level fields as `-`/`+` lines, the rest counted.

import { goJson, isObject, semanticEqual } from "../json.ts";
import { quantitiesEqual } from "../quantity.ts";

function goFieldName(key: string): string {
  return key.length === 0 ? key : `${key[0]?.toUpperCase() ?? ""}${key.slice(1)}`;
}

export function structDiff(typeName: string, oldValue: unknown, newValue: unknown): string {
  const before = isObject(oldValue) ? oldValue : {};
  const after = isObject(newValue) ? newValue : {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const lines = [`  ${typeName}{`];
  let identical = 0;
  for (const key of keys) {
    const a = before[key];
    const b = after[key];
    if (semanticEqual(a, b, quantitiesEqual)) {
      identical++;
      continue;
    }
    lines.push(`- \t${goFieldName(key)}: ${a === undefined ? "nil" : goJson(a)},`);
    lines.push(`+ \t${goFieldName(key)}: ${b === undefined ? "nil" : goJson(b)},`);
  }
  if (identical > 0) lines.push(`  \t... // ${identical} identical ${identical === 1 ? "field" : "fields"}`);
  lines.push("  }");
  return `${lines.join("\n")}\n`;
}
