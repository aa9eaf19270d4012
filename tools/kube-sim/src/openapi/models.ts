// The type graph of the served API, read from @kubernetes/client-node's generated models
// (`attributeTypeMap`), so schemas and unknown-field checks follow the upstream OpenAPI without a
// hand-written field list. See docs/adr/0021-kube-sim-openapi-from-client-models.md.
import { assertNever } from "#protocol";
import * as k8s from "@kubernetes/client-node";
import type { ResourceInfo } from "../resources.ts";

export interface Attribute {
  readonly name: string;
  readonly baseName: string;
  readonly type: string;
  readonly format: string;
}

interface ModelClass {
  getAttributeTypeMap(): Attribute[];
}

function isModel(value: unknown): value is ModelClass {
  return typeof value === "function" && typeof (value as Partial<ModelClass>).getAttributeTypeMap === "function";
}

const MODELS = new Map<string, readonly Attribute[]>();
for (const [name, value] of Object.entries(k8s)) {
  if (isModel(value)) MODELS.set(name, value.getAttributeTypeMap());
}

export function modelAttributes(model: string): readonly Attribute[] | undefined {
  return MODELS.get(model);
}

/** A field's type as the generator spelled it, decoded. */
export type FieldType =
  | { readonly kind: "primitive"; readonly type: "string" | "number" | "boolean" | "date" | "any" | "int-or-string"; readonly format: string }
  | { readonly kind: "array"; readonly items: FieldType }
  | { readonly kind: "map"; readonly values: FieldType }
  | { readonly kind: "model"; readonly model: string };

export function parseFieldType(type: string, format = ""): FieldType {
  const arr = /^Array<(.+)>$/.exec(type);
  if (arr !== null) return { kind: "array", items: parseFieldType(arr[1] ?? "any") };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map !== null) return { kind: "map", values: parseFieldType(map[1] ?? "any") };
  switch (type) {
    case "string":
    case "number":
    case "boolean":
    case "any":
      return { kind: "primitive", type, format };
    case "Date":
      return { kind: "primitive", type: "date", format: format === "" ? "date-time" : format };
    case "IntOrString":
      return { kind: "primitive", type: "int-or-string", format: "int-or-string" };
    default:
      return MODELS.has(type) ? { kind: "model", model: type } : { kind: "primitive", type: "any", format };
  }
}

/** The client-node model of a served kind (`V1StatefulSet`, `CoreV1Event`, `EventsV1Event`). */
export function rootModel(info: Pick<ResourceInfo, "group" | "version" | "kind">): string | undefined {
  const version = info.version.charAt(0).toUpperCase() + info.version.slice(1);
  const candidates =
    info.kind === "Event"
      ? [info.group === "" ? "CoreV1Event" : "EventsV1Event"]
      : [`${version}${info.kind}`, `${info.group.split(".")[0] ?? ""}${version}${info.kind}`];
  for (const c of candidates) {
    const direct = MODELS.has(c) ? c : undefined;
    if (direct !== undefined) return direct;
    const capitalized = c.charAt(0).toUpperCase() + c.slice(1);
    if (MODELS.has(capitalized)) return capitalized;
  }
  return undefined;
}

const ESCAPE_RE = /[.[\]]/;

/**
 * Paths of fields the schema does not declare, spelled like the apiserver's strict decoding errors
 * (`spec.template.spec.containers[0].foo`).
 */
export function unknownFields(model: string, value: unknown, prefix = ""): string[] {
  const out: string[] = [];
  walkModel(model, value, prefix, out);
  return out;
}

/** Field name -> decoded type, per model, built on first use (the walk runs on every write). */
const FIELDS = new Map<string, Map<string, FieldType>>();

function fieldsOf(model: string): Map<string, FieldType> | undefined {
  let fields = FIELDS.get(model);
  if (fields === undefined) {
    const attrs = MODELS.get(model);
    if (attrs === undefined) return undefined;
    fields = new Map(attrs.map((a) => [a.baseName, parseFieldType(a.type, a.format)]));
    FIELDS.set(model, fields);
  }
  return fields;
}

function walkModel(model: string, value: unknown, path: string, out: string[]): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return;
  const fields = fieldsOf(model);
  if (fields === undefined) return;
  for (const key in value) {
    const type = fields.get(key);
    if (type === undefined) {
      out.push(ESCAPE_RE.test(key) ? `${path}[${JSON.stringify(key)}]` : path === "" ? key : `${path}.${key}`);
      continue;
    }
    if (type.kind === "primitive") continue;
    walkType(type, (value as Record<string, unknown>)[key], path === "" ? key : `${path}.${key}`, out);
  }
}

function walkType(type: FieldType, value: unknown, path: string, out: string[]): void {
  switch (type.kind) {
    case "primitive":
      return;
    case "model":
      walkModel(type.model, value, path, out);
      return;
    case "array":
      if (Array.isArray(value)) value.forEach((item, i) => walkType(type.items, item, `${path}[${i}]`, out));
      return;
    case "map":
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value)) walkType(type.values, v, `${path}[${k}]`, out);
      }
      return;
    default:
      return assertNever(type, "type");
  }
}
