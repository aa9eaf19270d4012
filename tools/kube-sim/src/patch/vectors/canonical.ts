// Order-independent fingerprint of a JSON value, so that the recorded kubectl results of the random corpus
// can be stored as digests (the corpus itself is regenerated from its seed).
import { createHash } from "node:crypto";
import type { JsonValue } from "../json.ts";

/** JSON text with object members sorted, as Go's encoding/json writes maps. */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(",")}}`;
}

export function digest(value: JsonValue): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 32);
}
