// The protobuf form of /openapi/v2 that kubectl asks for (`Accept:
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, e.g. for client-side validation of a `kind:
// List` manifest): gnostic's `openapi.v2.Document` message, as a real apiserver builds it from its JSON
// swagger (kube-openapi parses the JSON with gnostic's compiler and marshals the result). Field numbers are
// those of google/gnostic's openapiv2/OpenAPIv2.proto; vendor extensions become `NamedAny` entries whose
// `Any.yaml` holds the value as YAML text, exactly where gnostic puts them. The document is static, so it
// is encoded once at start-up.
import { toYaml } from "./yaml.ts";

/** A swagger value the encoder cannot place in gnostic's messages (gnostic's compiler rejects it too). */
export class OpenApiProtobufError extends Error {
  constructor(path: string, message: string) {
    super(`openapi/v2 protobuf: ${path}: ${message}`);
    this.name = "OpenApiProtobufError";
  }
}

// --- wire format ---------------------------------------------------------------------------------------

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

/**
 * A protobuf writer that builds nested messages without copying them: a sub-message is written into its
 * own writer and spliced in as a list of chunks behind its length prefix; `finish` copies once.
 */
export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private buf = new Uint8Array(512);
  private pos = 0;
  /** Bytes written so far, chunks and buffer together. */
  private flushed = 0;

  get length(): number {
    return this.flushed + this.pos;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) this.buf = new Uint8Array(n);
  }

  private flush(): void {
    if (this.pos === 0) return;
    this.chunks.push(this.buf.subarray(0, this.pos));
    this.flushed += this.pos;
    this.buf = new Uint8Array(this.buf.length);
    this.pos = 0;
  }

  private varint(value: number): void {
    this.reserve(10);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  /** proto3 scalars: zero values are not written. */
  string(field: number, value: string): void {
    if (value === "") return;
    this.bytesOf(field, value);
  }

  /** A string written even when empty (an element of a repeated field). */
  private bytesOf(field: number, value: string): void {
    const n = Buffer.byteLength(value);
    this.tag(field, WIRE_LEN);
    this.varint(n);
    this.reserve(n);
    this.pos += Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, n).write(value, "utf8");
  }

  strings(field: number, values: readonly string[]): void {
    for (const v of values) this.bytesOf(field, v);
  }

  bool(field: number, value: boolean): void {
    if (value) this.presentBool(field, value);
  }

  /** A bool with presence (a oneof member): written even when false. */
  presentBool(field: number, value: boolean): void {
    this.tag(field, WIRE_VARINT);
    this.varint(value ? 1 : 0);
  }

  int64(field: number, value: number): void {
    if (value === 0) return;
    if (!Number.isSafeInteger(value)) throw new RangeError(`int64 field ${field}: ${value} is not a safe integer`);
    this.tag(field, WIRE_VARINT);
    if (value > 0) {
      this.varint(value);
      return;
    }
    // Negative: the ten-byte two's complement form.
    let v = BigInt.asUintN(64, BigInt(value));
    this.reserve(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  double(field: number, value: number): void {
    if (value === 0) return;
    this.tag(field, WIRE_FIXED64);
    this.reserve(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  /** A sub-message, written even when empty (a set message field). */
  message(field: number, write: (w: ProtoWriter) => void): void {
    const child = new ProtoWriter();
    write(child);
    child.flush();
    this.tag(field, WIRE_LEN);
    this.varint(child.flushed);
    this.flush();
    for (const c of child.chunks) this.chunks.push(c);
    this.flushed += child.flushed;
  }

  finish(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.flushed);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

// --- gnostic openapi.v2 messages -------------------------------------------------------------------------

type Json = Record<string, unknown>;
type Encode = (w: ProtoWriter, value: unknown, path: string) => void;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asObject(value: unknown, path: string): Json {
  if (!isObject(value)) throw new OpenApiProtobufError(path, "expected an object");
  return value;
}

/** How a JSON property is written: a scalar kind, or a message encoder (`many` for a JSON array). */
type FieldKind = "string" | "bool" | "double" | "int64" | "strings" | { readonly message: () => Encode; readonly many?: true };

interface MessageSpec {
  readonly fields: Readonly<Record<string, readonly [number, FieldKind]>>;
  /** Field number of `repeated NamedAny vendor_extension` (keys starting with `x-`). */
  readonly extensions?: number;
}

/** gnostic `Any`: `yaml = 2` holds the value as YAML (`value = 1`, a google.protobuf.Any, stays unset). */
const anyValue: Encode = (w, value) => w.string(2, toYaml(value));

/** gnostic `NamedAny` entries (`name = 1`, `value = 2`) for each `x-` key of an object, in order. */
function writeExtensions(w: ProtoWriter, field: number, obj: Json): void {
  for (const [key, value] of Object.entries(obj)) {
    if (!key.startsWith("x-")) continue;
    w.message(field, (e) => {
      e.string(1, key);
      e.message(2, (a) => anyValue(a, value, key));
    });
  }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

function scalarField(w: ProtoWriter, no: number, kind: "string" | "bool" | "double" | "int64" | "strings", value: unknown, path: string): void {
  switch (kind) {
    case "string":
      if (typeof value !== "string") throw new OpenApiProtobufError(path, "expected a string");
      w.string(no, value);
      return;
    case "bool":
      if (typeof value !== "boolean") throw new OpenApiProtobufError(path, "expected a boolean");
      w.bool(no, value);
      return;
    case "double":
      if (typeof value !== "number") throw new OpenApiProtobufError(path, "expected a number");
      w.double(no, value);
      return;
    case "int64":
      if (typeof value !== "number" || !Number.isInteger(value)) throw new OpenApiProtobufError(path, "expected an integer");
      w.int64(no, value);
      return;
    case "strings":
      if (!isStringList(value)) throw new OpenApiProtobufError(path, "expected a list of strings");
      w.strings(no, value);
      return;
    default: {
      const never: never = kind;
      throw new OpenApiProtobufError(path, `unknown field kind ${String(never)}`);
    }
  }
}

/** An encoder for a message whose JSON properties map one to one onto its fields, in field-number order. */
function message(spec: MessageSpec): Encode {
  const known = new Set(Object.keys(spec.fields));
  const order = Object.entries(spec.fields).sort(([, a], [, b]) => a[0] - b[0]);
  return (w, value, path) => {
    const obj = asObject(value, path);
    for (const key of Object.keys(obj)) {
      if (!known.has(key) && !(spec.extensions !== undefined && key.startsWith("x-"))) throw new OpenApiProtobufError(path, `property "${key}" is not part of the message`);
    }
    let extensionsDone = spec.extensions === undefined;
    for (const [key, [no, kind]] of order) {
      if (!extensionsDone && spec.extensions !== undefined && spec.extensions < no) {
        writeExtensions(w, spec.extensions, obj);
        extensionsDone = true;
      }
      const v = obj[key];
      if (v === undefined) continue;
      const at = `${path}.${key}`;
      if (typeof kind === "string") {
        scalarField(w, no, kind, v, at);
        continue;
      }
      const encode = kind.message();
      if (kind.many === true) {
        if (!Array.isArray(v)) throw new OpenApiProtobufError(at, "expected a list");
        v.forEach((item, i) => w.message(no, (m) => encode(m, item, `${at}[${i}]`)));
      } else {
        w.message(no, (m) => encode(m, v, at));
      }
    }
    if (!extensionsDone && spec.extensions !== undefined) writeExtensions(w, spec.extensions, obj);
  };
}

/** A JSON object as `repeated Named<X> <field>` (`name = 1`, `value = 2`), in key order. */
function namedMap(field: number, value: () => Encode, keep: (key: string) => boolean = () => true): Encode {
  return (w, v, path) => {
    for (const [key, item] of Object.entries(asObject(v, path))) {
      if (!keep(key)) continue;
      w.message(field, (m) => {
        m.string(1, key);
        m.message(2, (x) => value()(x, item, `${path}.${key}`));
      });
    }
  };
}

/** A oneof wrapper: `choose` picks the field number and encoder of the alternative the value is. */
function oneof(choose: (value: Json, path: string) => readonly [number, Encode]): Encode {
  return (w, v, path) => {
    const obj = asObject(v, path);
    const [no, encode] = choose(obj, path);
    w.message(no, (m) => encode(m, obj, path));
  };
}

const anyField = { message: () => anyValue } as const;
const anyList = { message: () => anyValue, many: true } as const;

const externalDocs = message({ fields: { description: [1, "string"], url: [2, "string"] }, extensions: 3 });
const xml = message({ fields: { name: [1, "string"], namespace: [2, "string"], prefix: [3, "string"], attribute: [4, "bool"], wrapped: [5, "bool"] }, extensions: 6 });
const contact = message({ fields: { name: [1, "string"], url: [2, "string"], email: [3, "string"] }, extensions: 4 });
const license = message({ fields: { name: [1, "string"], url: [2, "string"] }, extensions: 3 });
const info = message({
  fields: { title: [1, "string"], version: [2, "string"], description: [3, "string"], termsOfService: [4, "string"], contact: [5, { message: () => contact }], license: [6, { message: () => license }] },
  extensions: 7,
});
const tag = message({ fields: { name: [1, "string"], description: [2, "string"], externalDocs: [3, { message: () => externalDocs }] }, extensions: 4 });
const jsonReference = message({ fields: { $ref: [1, "string"], description: [2, "string"] } });

/** `TypeItem { repeated string value = 1 }` from `"type": "x"` or `"type": ["x", "y"]`. */
const typeItem: Encode = (w, v, path) => {
  if (typeof v === "string") w.strings(1, [v]);
  else scalarField(w, 1, "strings", v, path);
};

/** `ItemsItem { repeated Schema schema = 1 }` from one schema (or a list of them). */
const itemsItem: Encode = (w, v, path) => {
  const list = Array.isArray(v) ? v : [v];
  list.forEach((s, i) => w.message(1, (m) => schema(m, s, Array.isArray(v) ? `${path}[${i}]` : path)));
};

/** `AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2; } }`. */
const additionalPropertiesItem: Encode = (w, v, path) => {
  if (typeof v === "boolean") {
    w.presentBool(2, v);
    return;
  }
  w.message(1, (m) => schema(m, v, path));
};

const schema: Encode = message({
  fields: {
    $ref: [1, "string"],
    format: [2, "string"],
    title: [3, "string"],
    description: [4, "string"],
    default: [5, anyField],
    multipleOf: [6, "double"],
    maximum: [7, "double"],
    exclusiveMaximum: [8, "bool"],
    minimum: [9, "double"],
    exclusiveMinimum: [10, "bool"],
    maxLength: [11, "int64"],
    minLength: [12, "int64"],
    pattern: [13, "string"],
    maxItems: [14, "int64"],
    minItems: [15, "int64"],
    uniqueItems: [16, "bool"],
    maxProperties: [17, "int64"],
    minProperties: [18, "int64"],
    required: [19, "strings"],
    enum: [20, anyList],
    additionalProperties: [21, { message: () => additionalPropertiesItem }],
    type: [22, { message: () => typeItem }],
    items: [23, { message: () => itemsItem }],
    allOf: [24, { message: () => schema, many: true }],
    properties: [25, { message: () => properties }],
    discriminator: [26, "string"],
    readOnly: [27, "bool"],
    xml: [28, { message: () => xml }],
    externalDocs: [29, { message: () => externalDocs }],
    example: [30, anyField],
  },
  extensions: 31,
});
const properties = namedMap(1, () => schema);

const fileSchema = message({
  fields: {
    format: [1, "string"],
    title: [2, "string"],
    description: [3, "string"],
    default: [4, anyField],
    required: [5, "strings"],
    type: [6, "string"],
    readOnly: [7, "bool"],
    externalDocs: [8, { message: () => externalDocs }],
    example: [9, anyField],
  },
  extensions: 10,
});

/** Validation keywords shared by PrimitivesItems, Header and the non-body parameters, numbered as in PrimitivesItems (`type = 1`). */
function primitiveFields(): Record<string, readonly [number, FieldKind]> {
  return {
    type: [1, "string"],
    format: [2, "string"],
    items: [3, { message: () => primitivesItems }],
    collectionFormat: [4, "string"],
    default: [5, anyField],
    maximum: [6, "double"],
    exclusiveMaximum: [7, "bool"],
    minimum: [8, "double"],
    exclusiveMinimum: [9, "bool"],
    maxLength: [10, "int64"],
    minLength: [11, "int64"],
    pattern: [12, "string"],
    maxItems: [13, "int64"],
    minItems: [14, "int64"],
    uniqueItems: [15, "bool"],
    enum: [16, anyList],
    multipleOf: [17, "double"],
  };
}
const primitivesItems: Encode = message({ fields: primitiveFields(), extensions: 18 });
const header = message({ fields: { ...primitiveFields(), description: [18, "string"] }, extensions: 19 });

/** Query and formData parameters: `allowEmptyValue = 5`, `type = 6` ... `vendor_extension = 23`. */
function parameterWithEmptyValue(): MessageSpec {
  const shifted: Record<string, readonly [number, FieldKind]> = {};
  for (const [k, [no, kind]] of Object.entries(primitiveFields())) shifted[k] = [no + 5, kind];
  return { fields: { required: [1, "bool"], in: [2, "string"], description: [3, "string"], name: [4, "string"], allowEmptyValue: [5, "bool"], ...shifted }, extensions: 23 };
}
/** Header and path parameters: `type = 5` ... `vendor_extension = 22`. */
function parameterWithoutEmptyValue(): MessageSpec {
  const shifted: Record<string, readonly [number, FieldKind]> = {};
  for (const [k, [no, kind]] of Object.entries(primitiveFields())) shifted[k] = [no + 4, kind];
  return { fields: { required: [1, "bool"], in: [2, "string"], description: [3, "string"], name: [4, "string"], ...shifted }, extensions: 22 };
}
const queryParameter = message(parameterWithEmptyValue());
const formDataParameter = message(parameterWithEmptyValue());
const headerParameter = message(parameterWithoutEmptyValue());
const pathParameter = message(parameterWithoutEmptyValue());

/** `NonBodyParameter`: header = 1, formData = 2, query = 3, path = 4, chosen by `in`. */
const nonBodyParameter = oneof((p, path) => {
  switch (p["in"]) {
    case "header":
      return [1, headerParameter];
    case "formData":
      return [2, formDataParameter];
    case "query":
      return [3, queryParameter];
    case "path":
      return [4, pathParameter];
    default:
      throw new OpenApiProtobufError(path, `parameter location ${JSON.stringify(p["in"])} is not header, formData, query, path or body`);
  }
});
const bodyParameter = message({ fields: { description: [1, "string"], name: [2, "string"], in: [3, "string"], required: [4, "bool"], schema: [5, { message: () => schema }] }, extensions: 6 });
/** `Parameter`: body_parameter = 1, non_body_parameter = 2. */
const parameter = oneof((p) => (p["in"] === "body" ? [1, bodyParameter] : [2, nonBodyParameter]));
/** `ParametersItem`: parameter = 1, json_reference = 2. */
const parametersItem = oneof((p) => (typeof p["$ref"] === "string" ? [2, jsonReference] : [1, parameter]));

/** `SchemaItem`: schema = 1, file_schema = 2. */
const schemaItem = oneof((s) => (s["type"] === "file" ? [2, fileSchema] : [1, schema]));
const response = message({
  fields: {
    description: [1, "string"],
    schema: [2, { message: () => schemaItem }],
    headers: [3, { message: () => namedMap(1, () => header) }],
    examples: [4, { message: () => namedMap(1, () => anyValue) }],
  },
  extensions: 5,
});
/** `ResponseValue`: response = 1, json_reference = 2. */
const responseValue = oneof((r) => (typeof r["$ref"] === "string" ? [2, jsonReference] : [1, response]));
const RESPONSE_CODE = /^([0-9]{3})$|^(default)$/;
/** `Responses`: response_code = 1 (NamedResponseValue), vendor_extension = 2. */
const responses: Encode = (w, v, path) => {
  const obj = asObject(v, path);
  for (const key of Object.keys(obj)) {
    if (!RESPONSE_CODE.test(key) && !key.startsWith("x-")) throw new OpenApiProtobufError(path, `"${key}" is not a response code`);
  }
  namedMap(1, () => responseValue, (k) => RESPONSE_CODE.test(k))(w, obj, path);
  writeExtensions(w, 2, obj);
};

const securityRequirement = namedMap(1, () => (w, v, path) => scalarField(w, 1, "strings", v, path));

const operation = message({
  fields: {
    tags: [1, "strings"],
    summary: [2, "string"],
    description: [3, "string"],
    externalDocs: [4, { message: () => externalDocs }],
    operationId: [5, "string"],
    produces: [6, "strings"],
    consumes: [7, "strings"],
    parameters: [8, { message: () => parametersItem, many: true }],
    responses: [9, { message: () => responses }],
    schemes: [10, "strings"],
    deprecated: [11, "bool"],
    security: [12, { message: () => securityRequirement, many: true }],
  },
  extensions: 13,
});
const pathItem = message({
  fields: {
    $ref: [1, "string"],
    get: [2, { message: () => operation }],
    put: [3, { message: () => operation }],
    post: [4, { message: () => operation }],
    delete: [5, { message: () => operation }],
    options: [6, { message: () => operation }],
    head: [7, { message: () => operation }],
    patch: [8, { message: () => operation }],
    parameters: [9, { message: () => parametersItem, many: true }],
  },
  extensions: 10,
});
/** `Paths`: vendor_extension = 1, path = 2 (NamedPathItem, keys starting with `/`). */
const paths: Encode = (w, v, path) => {
  const obj = asObject(v, path);
  for (const key of Object.keys(obj)) {
    if (!key.startsWith("/") && !key.startsWith("x-")) throw new OpenApiProtobufError(path, `"${key}" is not a path`);
  }
  writeExtensions(w, 1, obj);
  namedMap(2, () => pathItem, (k) => k.startsWith("/"))(w, obj, path);
};

/** `Oauth2Scopes { repeated NamedString additional_properties = 1 }` (`name = 1`, `value = 2`, both strings). */
const oauth2Scopes: Encode = (w, v, path) => {
  for (const [key, value] of Object.entries(asObject(v, path))) {
    w.message(1, (m) => {
      m.string(1, key);
      scalarField(m, 2, "string", value, `${path}.${key}`);
    });
  }
};
const basicSecurity = message({ fields: { type: [1, "string"], description: [2, "string"] }, extensions: 3 });
const apiKeySecurity = message({ fields: { type: [1, "string"], name: [2, "string"], in: [3, "string"], description: [4, "string"] }, extensions: 5 });
const oauth2Implicit = message({ fields: { type: [1, "string"], flow: [2, "string"], scopes: [3, { message: () => oauth2Scopes }], authorizationUrl: [4, "string"], description: [5, "string"] }, extensions: 6 });
const oauth2Password = message({ fields: { type: [1, "string"], flow: [2, "string"], scopes: [3, { message: () => oauth2Scopes }], tokenUrl: [4, "string"], description: [5, "string"] }, extensions: 6 });
const oauth2Application = oauth2Password;
const oauth2AccessCode = message({
  fields: { type: [1, "string"], flow: [2, "string"], scopes: [3, { message: () => oauth2Scopes }], authorizationUrl: [4, "string"], tokenUrl: [5, "string"], description: [6, "string"] },
  extensions: 7,
});
/** `SecurityDefinitionsItem`: basic = 1, apiKey = 2, oauth2 implicit = 3, password = 4, application = 5, accessCode = 6. */
const securityDefinitionsItem = oneof((s, path) => {
  if (s["type"] === "basic") return [1, basicSecurity];
  if (s["type"] === "apiKey") return [2, apiKeySecurity];
  if (s["type"] === "oauth2") {
    if (s["flow"] === "implicit") return [3, oauth2Implicit];
    if (s["flow"] === "password") return [4, oauth2Password];
    if (s["flow"] === "application") return [5, oauth2Application];
    if (s["flow"] === "accessCode") return [6, oauth2AccessCode];
  }
  throw new OpenApiProtobufError(path, `security scheme type ${JSON.stringify(s["type"])} is not basic, apiKey or oauth2`);
});

const document = message({
  fields: {
    swagger: [1, "string"],
    info: [2, { message: () => info }],
    host: [3, "string"],
    basePath: [4, "string"],
    schemes: [5, "strings"],
    consumes: [6, "strings"],
    produces: [7, "strings"],
    paths: [8, { message: () => paths }],
    definitions: [9, { message: () => namedMap(1, () => schema) }],
    parameters: [10, { message: () => namedMap(1, () => parameter) }],
    responses: [11, { message: () => namedMap(1, () => response) }],
    security: [12, { message: () => securityRequirement, many: true }],
    securityDefinitions: [13, { message: () => namedMap(1, () => securityDefinitionsItem) }],
    tags: [14, { message: () => tag, many: true }],
    externalDocs: [15, { message: () => externalDocs }],
  },
  extensions: 16,
});

/** The swagger 2.0 document (parsed JSON) as a serialized gnostic `openapi.v2.Document`. */
export function encodeOpenApiV2(swagger: unknown): Uint8Array {
  const w = new ProtoWriter();
  document(w, swagger, "$");
  return w.finish();
}
