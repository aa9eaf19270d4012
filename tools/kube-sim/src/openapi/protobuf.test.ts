import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateOpenApi } from "./generate.ts";
import { OpenApiProtobufError, ProtoWriter, encodeOpenApiV2 } from "./protobuf.ts";
import { toYaml } from "./yaml.ts";

// --- an independent reader: the wire format, and gnostic's messages transcribed again from OpenAPIv2.proto

interface WireField {
  no: number;
  wire: number;
  /** varint value, or the fixed64 bytes, or the length-delimited bytes. */
  value: bigint | Uint8Array;
}

function readFields(bytes: Uint8Array): WireField[] {
  const out: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = bytes[pos++];
      if (b === undefined) throw new Error("truncated varint");
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < bytes.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 1) {
      out.push({ no, wire, value: bytes.subarray(pos, pos + 8) });
      pos += 8;
    } else if (wire === 2) {
      const n = Number(varint());
      if (pos + n > bytes.length) throw new Error("truncated field");
      out.push({ no, wire, value: bytes.subarray(pos, pos + n) });
      pos += n;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

type Kind = "string" | "bool" | "double" | "int64" | "strings" | "yaml" | `msg:${string}` | `msgs:${string}` | `named:${string}` | `map:${string}`;
/**
 * message -> field number -> [JSON name, kind]. `@` marks a oneof member (the JSON is the member itself),
 * `@named` a repeated Named<X> field whose entries are the message's own JSON keys, `map:X` a wrapper
 * message (Definitions, Properties, ...) holding `repeated Named<X> additional_properties = 1`.
 */
const MESSAGES: Record<string, Record<number, readonly [string, Kind]>> = {
  Document: { 1: ["swagger", "string"], 2: ["info", "msg:Info"], 8: ["paths", "msg:Paths"], 9: ["definitions", "map:Schema"], 12: ["security", "msgs:SecurityRequirement"], 13: ["securityDefinitions", "map:SecurityDefinitionsItem"], 16: ["x-", "yaml"] },
  Info: { 1: ["title", "string"], 2: ["version", "string"], 7: ["x-", "yaml"] },
  Paths: { 1: ["x-", "yaml"], 2: ["@named", "named:PathItem"] },
  PathItem: { 2: ["get", "msg:Operation"], 3: ["put", "msg:Operation"], 4: ["post", "msg:Operation"], 5: ["delete", "msg:Operation"], 8: ["patch", "msg:Operation"], 9: ["parameters", "msgs:ParametersItem"], 10: ["x-", "yaml"] },
  Operation: { 5: ["operationId", "string"], 7: ["consumes", "strings"], 8: ["parameters", "msgs:ParametersItem"], 9: ["responses", "msg:Responses"], 13: ["x-", "yaml"] },
  ParametersItem: { 1: ["@", "msg:Parameter"] },
  Parameter: { 1: ["@", "msg:BodyParameter"], 2: ["@", "msg:NonBodyParameter"] },
  BodyParameter: { 1: ["description", "string"], 2: ["name", "string"], 3: ["in", "string"], 4: ["required", "bool"], 5: ["schema", "msg:Schema"] },
  NonBodyParameter: { 3: ["@", "msg:QueryParameterSubSchema"], 4: ["@", "msg:PathParameterSubSchema"] },
  QueryParameterSubSchema: { 1: ["required", "bool"], 2: ["in", "string"], 3: ["description", "string"], 4: ["name", "string"], 6: ["type", "string"], 20: ["uniqueItems", "bool"] },
  PathParameterSubSchema: { 1: ["required", "bool"], 2: ["in", "string"], 3: ["description", "string"], 4: ["name", "string"], 5: ["type", "string"], 19: ["uniqueItems", "bool"] },
  Responses: { 1: ["@named", "named:ResponseValue"] },
  ResponseValue: { 1: ["@", "msg:Response"] },
  Response: { 1: ["description", "string"], 2: ["schema", "msg:SchemaItem"] },
  SchemaItem: { 1: ["@", "msg:Schema"] },
  Schema: {
    1: ["$ref", "string"],
    2: ["format", "string"],
    4: ["description", "string"],
    16: ["uniqueItems", "bool"],
    19: ["required", "strings"],
    20: ["enum", "yaml"],
    21: ["additionalProperties", "msg:AdditionalPropertiesItem"],
    22: ["type", "msg:TypeItem"],
    23: ["items", "msg:ItemsItem"],
    24: ["allOf", "msgs:Schema"],
    25: ["properties", "map:Schema"],
    31: ["x-", "yaml"],
  },
  AdditionalPropertiesItem: { 1: ["@", "msg:Schema"] },
  SecurityRequirement: { 1: ["@named", "named:StringArray"] },
  SecurityDefinitionsItem: { 2: ["@", "msg:ApiKeySecurity"] },
  ApiKeySecurity: { 1: ["type", "string"], 2: ["name", "string"], 3: ["in", "string"], 4: ["description", "string"] },
};

const text = (v: WireField["value"]): string => Buffer.from(v as Uint8Array).toString("utf8");

/** `Any { yaml = 2 }`, kept as its YAML text. */
function readAny(bytes: Uint8Array): string {
  const f = readFields(bytes);
  assert.deepEqual(f.map((x) => x.no), [2], "Any carries only yaml = 2");
  return text(f[0]?.value ?? new Uint8Array());
}

/** `Named<X> { name = 1; value = 2 }`. */
function readNamed(bytes: Uint8Array, read: (b: Uint8Array) => unknown): [string, unknown] {
  const f = readFields(bytes);
  const name = f.find((x) => x.no === 1);
  const value = f.find((x) => x.no === 2);
  return [name === undefined ? "" : text(name.value), value === undefined ? undefined : read(value.value as Uint8Array)];
}

function readMessage(name: string, bytes: Uint8Array): unknown {
  if (name === "TypeItem") return readFields(bytes).map((f) => text(f.value))[0];
  if (name === "ItemsItem") return readMessage("Schema", readFields(bytes)[0]?.value as Uint8Array);
  if (name === "StringArray") return readFields(bytes).map((f) => text(f.value));
  const table = MESSAGES[name];
  assert.ok(table, `no table for ${name}`);
  let out: Record<string, unknown> = {};
  for (const f of readFields(bytes)) {
    const entry: readonly [string, Kind] | undefined = table[f.no];
    assert.ok(entry, `${name}: unexpected field ${f.no}`);
    const json: string = entry[0];
    const kind: Kind = entry[1];
    const b = f.value as Uint8Array;
    if (json === "@") return readMessage(kind.slice(4), b);
    if (json === "x-") {
      const [k, v] = readNamed(b, readAny);
      out[k] = v;
      continue;
    }
    if (kind === "string") out[json] = text(f.value);
    else if (kind === "bool") out[json] = f.value === 1n;
    else if (kind === "strings") out[json] = [...((out[json] as string[] | undefined) ?? []), text(f.value)];
    else if (kind === "yaml") out[json] = [...((out[json] as string[] | undefined) ?? []), readAny(b)];
    else if (kind.startsWith("msgs:")) out[json] = [...((out[json] as unknown[] | undefined) ?? []), readMessage(kind.slice(5), b)];
    else if (kind.startsWith("msg:")) out[json] = readMessage(kind.slice(4), b);
    else if (kind.startsWith("map:")) {
      const entries = readFields(b).map((e) => {
        assert.equal(e.no, 1, `${name}.${json}: additional_properties is field 1`);
        return readNamed(e.value as Uint8Array, (x) => readMessage(kind.slice(4), x));
      });
      out[json] = Object.fromEntries(entries);
    } else if (kind.startsWith("named:")) {
      const [k, v] = readNamed(b, (x) => readMessage(kind.slice(6), x));
      if (json === "@named") out = { ...out, [k]: v };
      else out[json] = { ...((out[json]) ?? {}), [k]: v };
    } else assert.fail(`kind ${kind}`);
  }
  return out;
}

/** Repeated fields: an empty one is not on the wire (in protobuf, empty and absent are the same). */
const REPEATED = new Set(["parameters", "required", "enum", "consumes", "produces", "schemes", "tags", "allOf", "security"]);

/** The JSON document as the reader returns it: vendor extensions and enum values as their YAML text. */
function expected(value: unknown, key = ""): unknown {
  if (key.startsWith("x-")) return toYaml(value);
  if (key === "enum" && Array.isArray(value)) return value.map((v) => toYaml(v));
  if (Array.isArray(value)) return value.map((v) => expected(v));
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([k, v]) => !(REPEATED.has(k) && Array.isArray(v) && v.length === 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, expected(v, k)]));
  }
  return value;
}

/** Objects compared without regard to key order (protobuf fields come in field-number order). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sortKeys(v)]));
  return value;
}

describe("openapi/v2 as gnostic protobuf", () => {
  const docs = generateOpenApi();
  const swagger = JSON.parse(docs.v2) as Record<string, unknown>;

  it("decodes back to the JSON document", () => {
    const decoded = readMessage("Document", docs.v2Protobuf);
    assert.deepEqual(sortKeys(decoded), sortKeys(expected(swagger)));
  });

  it("puts definitions at Document field 9 and GVK extensions in Schema.vendor_extension as YAML", () => {
    const top = readFields(docs.v2Protobuf);
    assert.deepEqual([...new Set(top.map((f) => f.no))], [1, 2, 8, 9, 12, 13]);
    const defs = top.filter((f) => f.no === 9).flatMap((f) => readFields(f.value as Uint8Array));
    const sts = defs.map((d) => readFields(d.value as Uint8Array)).find((named) => text(named[0]?.value ?? new Uint8Array()) === "io.k8s.api.apps.v1.StatefulSet");
    assert.ok(sts);
    const schemaFields = readFields(sts[1]?.value as Uint8Array);
    const ext = schemaFields.filter((f) => f.no === 31).map((f) => readNamed(f.value as Uint8Array, readAny));
    assert.deepEqual(ext, [["x-kubernetes-group-version-kind", "- group: apps\n  version: v1\n  kind: StatefulSet\n"]]);
    const type = schemaFields.find((f) => f.no === 22);
    assert.deepEqual(readFields(type?.value as Uint8Array).map((f) => text(f.value)), ["object"]);
  });

  it("encodes every scalar kind on the wire as protobuf does", () => {
    const w = new ProtoWriter();
    w.string(1, "");
    w.string(2, "é");
    w.bool(3, false);
    w.bool(4, true);
    w.int64(5, 300);
    w.int64(6, -1);
    w.double(7, 1.5);
    w.presentBool(8, false);
    w.message(9, (m) => m.string(1, "x".repeat(200)));
    const bytes = w.finish();
    assert.deepEqual([...bytes.subarray(0, 11)], [0x12, 2, 0xc3, 0xa9, 0x20, 1, 0x28, 0xac, 0x02, 0x30, 0xff]);
    const fields = readFields(bytes);
    assert.deepEqual(fields.map((f) => f.no), [2, 4, 5, 6, 7, 8, 9]);
    assert.equal(fields[3]?.value, 0xffffffffffffffffn);
    assert.equal(Buffer.from(fields[4]?.value as Uint8Array).readDoubleLE(0), 1.5);
    assert.equal(fields[5]?.value, 0n);
    const nested = readFields(fields[6]?.value as Uint8Array);
    assert.equal(text(nested[0]?.value ?? new Uint8Array()), "x".repeat(200));
  });

  it("refuses what gnostic's compiler refuses", () => {
    assert.throws(() => encodeOpenApiV2({ swagger: "2.0", paths: { "/a": { get: { parameters: [{ name: "p", in: "query", schema: { type: "string" } }] } } } }), OpenApiProtobufError);
    assert.throws(() => encodeOpenApiV2({ swagger: "2.0", definitions: { A: { nullable: true } } }), /property "nullable"/);
    assert.throws(() => encodeOpenApiV2({ swagger: "2.0", paths: { "/a": { get: { parameters: [{ name: "p", in: "cookie", type: "string" }] } } } }), /cookie/);
  });

  it("writes additionalProperties: false as the boolean member of its oneof", () => {
    const bytes = encodeOpenApiV2({ definitions: { A: { type: "object", additionalProperties: false } } });
    const definitions = readFields(readFields(bytes)[0]?.value as Uint8Array);
    const named = readFields(definitions[0]?.value as Uint8Array);
    const schema = readFields(named[1]?.value as Uint8Array);
    const additional = schema.find((f) => f.no === 21);
    assert.deepEqual(readFields(additional?.value as Uint8Array), [{ no: 2, wire: 0, value: 0n }]);
  });
});
