// /openapi/v2 and /openapi/v3 documents generated from the client-node type graph: one schema per
// reachable model, with the group-version-kind and list-semantics extensions kubectl reads, and the
// REST paths of each served resource (the PATCH operations advertise fieldValidation and the patch
// content types, which is how kubectl decides to let the server validate).
import { assertNever } from "#protocol";
import { createHash } from "node:crypto";
import type { ResourceInfo } from "../resources.ts";
import { RESOURCES, groupVersion } from "../resources.ts";
import type { FieldDoc } from "./descriptions.ts";
import { definitionDoc, fieldDoc } from "./descriptions.ts";
import { fieldPatchStrategy, listSemantics } from "./extensions.ts";
import { OPENAPI_V2_PROTOBUF_CONTENT_TYPE, prefersOpenApiV2Protobuf } from "./media.ts";
import type { FieldType } from "./models.ts";
import { modelAttributes, parseFieldType, rootModel } from "./models.ts";
import { definitionName } from "./names.ts";
import { entityTag } from "./etag.ts";
import { encodeOpenApiV2 } from "./protobuf.ts";
import { requiredFields } from "./required.ts";

type Schema = Record<string, unknown>;
type RefStyle = "v2" | "v3";

const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";

function refTo(name: string, style: RefStyle): string {
  return style === "v2" ? `#/definitions/${name}` : `#/components/schemas/${name}`;
}

/**
 * A field's schema with its documentation. OpenAPI 3.0 ignores the siblings of a `$ref`, so there (like
 * upstream) a documented reference becomes `allOf: [{$ref}]` next to the description; kubectl explain prints
 * the field's description followed by the referenced type's.
 */
function documented(prop: Schema, doc: FieldDoc, style: RefStyle): Schema {
  const out: Schema = style === "v3" && prop["$ref"] !== undefined ? { allOf: [prop] } : { ...prop };
  out["description"] = doc.description;
  if (doc.enum !== undefined) out["enum"] = [...doc.enum];
  return out;
}

function primitiveSchema(type: FieldType & { kind: "primitive" }, style: RefStyle): Schema {
  switch (type.type) {
    case "string":
      return type.format === "" ? { type: "string" } : { type: "string", format: type.format };
    case "number":
      return type.format === "int32" || type.format === "int64" ? { type: "integer", format: type.format } : { type: "number", format: type.format === "" ? "double" : type.format };
    case "boolean":
      return { type: "boolean" };
    case "date":
      return { type: "string", format: type.format };
    case "int-or-string":
      return { $ref: refTo(INT_OR_STRING, style) };
    case "any":
      return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    default:
      return assertNever(type.type, "type");
  }
}

class SchemaBuilder {
  readonly schemas = new Map<string, Schema>();
  private readonly style: RefStyle;
  private readonly gvks: Map<string, { group: string; version: string; kind: string }[]>;

  constructor(style: RefStyle, gvks: Map<string, { group: string; version: string; kind: string }[]>) {
    this.style = style;
    this.gvks = gvks;
  }

  add(model: string): string {
    const name = definitionName(model);
    if (this.schemas.has(name)) return name;
    const attrs = modelAttributes(model) ?? [];
    const doc = definitionDoc(name);
    const schema: Schema = doc === undefined ? { type: "object" } : { description: doc.description, type: "object" };
    this.schemas.set(name, schema);
    const properties: Record<string, Schema> = {};
    for (const attr of attrs) {
      let prop = this.fieldSchema(parseFieldType(attr.type, attr.format));
      const isList = parseFieldType(attr.type).kind === "array";
      const semantics = isList ? listSemantics(model, attr.baseName) : undefined;
      const strategy = isList ? undefined : fieldPatchStrategy(model, attr.baseName);
      if (strategy !== undefined) {
        // OpenAPI 3.0 ignores the siblings of a `$ref`: as upstream, the reference goes into allOf.
        if (this.style === "v3" && prop["$ref"] !== undefined) prop = { allOf: [prop] };
        prop["x-kubernetes-patch-strategy"] = strategy;
      }
      if (semantics !== undefined) {
        if (semantics.mergeKey !== undefined) prop["x-kubernetes-patch-merge-key"] = semantics.mergeKey;
        if (semantics.strategy !== undefined) prop["x-kubernetes-patch-strategy"] = semantics.strategy;
        if (semantics.listType !== undefined) prop["x-kubernetes-list-type"] = semantics.listType;
        if (semantics.mapKeys !== undefined) prop["x-kubernetes-list-map-keys"] = semantics.mapKeys;
      }
      const docs = fieldDoc(name, attr.baseName);
      if (docs !== undefined) prop = documented(prop, docs, this.style);
      properties[attr.baseName] = prop;
    }
    // Upstream's required list; kubectl explain marks these fields `-required-`.
    const required = requiredFields(name).filter((field) => properties[field] !== undefined);
    if (required.length > 0) schema["required"] = required;
    schema["properties"] = properties;
    const gvk = this.gvks.get(model);
    if (gvk !== undefined) schema["x-kubernetes-group-version-kind"] = gvk;
    return name;
  }

  private fieldSchema(type: FieldType): Schema {
    switch (type.kind) {
      case "primitive":
        if (type.type === "int-or-string" && !this.schemas.has(INT_OR_STRING)) {
          this.schemas.set(INT_OR_STRING, { type: "string", format: "int-or-string" });
        }
        return primitiveSchema(type, this.style);
      case "array":
        return { type: "array", items: this.fieldSchema(type.items) };
      case "map":
        return { type: "object", additionalProperties: this.fieldSchema(type.values) };
      case "model":
        return { $ref: refTo(this.add(type.model), this.style) };
      default:
        return assertNever(type, "type");
    }
  }
}

/** GVKs served for each model (DeleteOptions and friends are registered in every group version). */
function gvkIndex(infos: readonly ResourceInfo[]): Map<string, { group: string; version: string; kind: string }[]> {
  const index = new Map<string, { group: string; version: string; kind: string }[]>();
  const add = (model: string, gvk: { group: string; version: string; kind: string }) => {
    const list = index.get(model) ?? [];
    if (!list.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) list.push(gvk);
    index.set(model, list);
  };
  for (const info of infos) {
    const model = rootModel(info);
    if (model === undefined) continue;
    add(model, { group: info.group, version: info.version, kind: info.kind });
    const listModel = `${model}List`;
    if (modelAttributes(listModel) !== undefined) add(listModel, { group: info.group, version: info.version, kind: `${info.kind}List` });
    add("V1DeleteOptions", { group: info.group, version: info.version, kind: "DeleteOptions" });
    add("V1WatchEvent", { group: info.group, version: info.version, kind: "WatchEvent" });
  }
  add("V1Status", { group: "", version: "v1", kind: "Status" });
  add("V1Scale", { group: "autoscaling", version: "v1", kind: "Scale" });
  add("V1Eviction", { group: "policy", version: "v1", kind: "Eviction" });
  return index;
}

const QUERY = (name: string, type: "string" | "integer" | "boolean", description: string): Schema => ({
  name,
  in: "query",
  description,
  schema: { type, uniqueItems: true },
});

const FIELD_VALIDATION = QUERY(
  "fieldValidation",
  "string",
  "fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict",
);
const DRY_RUN = QUERY("dryRun", "string", "When present, indicates that modifications should not be persisted. Valid values are: - All");
const FIELD_MANAGER = QUERY("fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes.");
const PRETTY = QUERY("pretty", "string", "If 'true', then the output is pretty printed.");
const LIST_PARAMS = [
  QUERY("allowWatchBookmarks", "boolean", "allowWatchBookmarks requests watch events with type \"BOOKMARK\"."),
  QUERY("continue", "string", "The continue option should be set when retrieving more results from the server."),
  QUERY("fieldSelector", "string", "A selector to restrict the list of returned objects by their fields."),
  QUERY("labelSelector", "string", "A selector to restrict the list of returned objects by their labels."),
  QUERY("limit", "integer", "limit is a maximum number of responses to return for a list call."),
  QUERY("resourceVersion", "string", "resourceVersion sets a constraint on what resource versions a request may be served from."),
  QUERY("resourceVersionMatch", "string", "resourceVersionMatch determines how resourceVersion is applied to list calls."),
  QUERY("sendInitialEvents", "boolean", "`sendInitialEvents=true` may be set together with `watch=true`."),
  QUERY("timeoutSeconds", "integer", "Timeout for the list/watch call."),
  QUERY("watch", "boolean", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."),
];
const PATH_PARAM = (name: string): Schema => ({ name, in: "path", required: true, description: `${name} of the object`, schema: { type: "string", uniqueItems: true } });

const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"];

/**
 * Parameters in the document's style: v3 nests the type in `schema`, a swagger 2.0 non-body parameter
 * carries it directly (gnostic, which builds the protobuf form of /openapi/v2, rejects a `schema` there).
 */
function parametersFor(style: RefStyle, params: Schema[]): Schema[] {
  if (style === "v3") return params;
  return params.map((p) => {
    const { schema, ...rest } = p;
    return { ...rest, type: (schema as { type?: string } | undefined)?.type ?? "string", uniqueItems: true };
  });
}

function operation(
  style: RefStyle,
  action: string,
  gvk: { group: string; version: string; kind: string },
  schemaName: string,
  params: Schema[],
  opId: string,
  body: "object" | "patch" | "deleteOptions" | "none",
): Schema {
  const ref = { $ref: refTo(schemaName, style) };
  const op: Schema = {
    operationId: opId,
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk,
  };
  if (style === "v3") {
    op["parameters"] = params;
    op["responses"] = { "200": { description: "OK", content: { "application/json": { schema: ref } } } };
    if (body === "object") op["requestBody"] = { content: { "*/*": { schema: ref } }, required: true };
    if (body === "patch") {
      const content: Record<string, unknown> = {};
      for (const t of PATCH_TYPES) content[t] = { schema: { $ref: refTo("io.k8s.apimachinery.pkg.apis.meta.v1.Patch", style) } };
      op["requestBody"] = { content, required: true };
    }
    if (body === "deleteOptions") {
      op["requestBody"] = { content: { "*/*": { schema: { $ref: refTo("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", style) } } } };
    }
  } else {
    const v2params = parametersFor("v2", params);
    if (body === "object") v2params.push({ name: "body", in: "body", required: true, schema: ref });
    if (body === "patch") v2params.push({ name: "body", in: "body", required: true, schema: { $ref: refTo("io.k8s.apimachinery.pkg.apis.meta.v1.Patch", style) } });
    op["parameters"] = v2params;
    op["responses"] = { "200": { description: "OK", schema: ref } };
    if (body === "patch") op["consumes"] = PATCH_TYPES;
  }
  return op;
}

function pathsFor(info: ResourceInfo, style: RefStyle, builder: SchemaBuilder): Record<string, Schema> {
  const model = rootModel(info);
  if (model === undefined) return {};
  const objSchema = builder.add(model);
  const listModel = `${model}List`;
  const listSchema = modelAttributes(listModel) !== undefined ? builder.add(listModel) : objSchema;
  const gvk = { group: info.group, version: info.version, kind: info.kind };
  const base = info.group === "" ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const collection = info.namespaced ? `${base}/namespaces/{namespace}/${info.resource}` : `${base}/${info.resource}`;
  const nsParams = info.namespaced ? [PATH_PARAM("namespace")] : [];
  const id = `${info.group.split(".")[0] ?? ""}${info.version}${info.kind}`;
  const paths: Record<string, Schema> = {};
  paths[collection] = {
    parameters: parametersFor(style, [...nsParams, PRETTY]),
    get: operation(style, "list", gvk, listSchema, LIST_PARAMS, `list${id}`, "none"),
    post: operation(style, "post", gvk, objSchema, [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], `create${id}`, "object"),
    delete: operation(style, "deletecollection", gvk, "io.k8s.apimachinery.pkg.apis.meta.v1.Status", LIST_PARAMS, `deletecollection${id}`, "deleteOptions"),
  };
  paths[`${collection}/{name}`] = {
    parameters: parametersFor(style, [PATH_PARAM("name"), ...nsParams, PRETTY]),
    get: operation(style, "get", gvk, objSchema, [], `read${id}`, "none"),
    put: operation(style, "put", gvk, objSchema, [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], `replace${id}`, "object"),
    patch: operation(style, "patch", gvk, objSchema, [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, QUERY("force", "boolean", "Force is going to \"force\" Apply requests.")], `patch${id}`, "patch"),
    delete: operation(style, "delete", gvk, "io.k8s.apimachinery.pkg.apis.meta.v1.Status", [DRY_RUN, QUERY("gracePeriodSeconds", "integer", "The duration in seconds before the object should be deleted."), QUERY("propagationPolicy", "string", "Whether and how garbage collection will be performed.")], `delete${id}`, "deleteOptions"),
  };
  for (const sub of info.subresources) {
    if (sub !== "status" && sub !== "scale") continue;
    const subSchema = sub === "scale" ? builder.add("V1Scale") : objSchema;
    const subGvk = sub === "scale" ? { group: "autoscaling", version: "v1", kind: "Scale" } : gvk;
    const cap = sub.charAt(0).toUpperCase() + sub.slice(1);
    paths[`${collection}/{name}/${sub}`] = {
      parameters: parametersFor(style, [PATH_PARAM("name"), ...nsParams, PRETTY]),
      get: operation(style, "get", subGvk, subSchema, [], `read${id}${cap}`, "none"),
      put: operation(style, "put", subGvk, subSchema, [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], `replace${id}${cap}`, "object"),
      patch: operation(style, "patch", subGvk, subSchema, [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], `patch${id}${cap}`, "patch"),
    };
  }
  if (info.namespaced) {
    paths[`${base}/${info.resource}`] = {
      parameters: parametersFor(style, [PRETTY]),
      get: operation(style, "list", gvk, listSchema, LIST_PARAMS, `list${id}ForAllNamespaces`, "none"),
    };
  }
  return paths;
}

function commonSchemas(builder: SchemaBuilder): void {
  builder.schemas.set("io.k8s.apimachinery.pkg.apis.meta.v1.Patch", { type: "object", description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body." });
  builder.add("V1Status");
  builder.add("V1DeleteOptions");
  builder.add("V1WatchEvent");
}

const VERSION_INFO = { title: "Kubernetes", version: "v1.37.0" };

export interface OpenApiDocuments {
  v2: string;
  /** The entity tag of `v2` (the `ETag` of a JSON /openapi/v2). */
  v2ETag: string;
  /** The same swagger as gnostic's `openapi.v2.Document` protobuf (what kubectl asks /openapi/v2 for). */
  v2Protobuf: Buffer;
  /** The Content-Type of `v2Protobuf`. */
  v2ProtobufContentType: string;
  /** The entity tag of `v2Protobuf`. */
  v2ProtobufETag: string;
  /** Whether a GET /openapi/v2 with this Accept header gets `v2Protobuf` (else JSON or 406, as before). */
  wantsV2Protobuf(accept: string | undefined): boolean;
  v3Root: string;
  /** Keyed by `api/v1`, `apis/apps/v1`, ... */
  v3: Map<string, { body: string; hash: string }>;
}

export function generateOpenApi(): OpenApiDocuments {
  const gvks = gvkIndex(RESOURCES);
  const v2Builder = new SchemaBuilder("v2", gvks);
  commonSchemas(v2Builder);
  const v2Paths: Record<string, Schema> = {};
  for (const info of RESOURCES) Object.assign(v2Paths, pathsFor(info, "v2", v2Builder));
  const v2Document = {
    swagger: "2.0",
    info: VERSION_INFO,
    paths: v2Paths,
    definitions: Object.fromEntries([...v2Builder.schemas.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
    securityDefinitions: { BearerToken: { description: "Bearer Token authentication", type: "apiKey", name: "authorization", in: "header" } },
    security: [{ BearerToken: [] }],
  };
  const v2 = JSON.stringify(v2Document);
  const encoded = encodeOpenApiV2(v2Document);
  const v2Protobuf = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.length);

  const byGv = new Map<string, ResourceInfo[]>();
  for (const info of RESOURCES) {
    const key = info.group === "" ? `api/${info.version}` : `apis/${groupVersion(info)}`;
    byGv.set(key, [...(byGv.get(key) ?? []), info]);
  }
  const v3 = new Map<string, { body: string; hash: string }>();
  for (const [key, infos] of byGv) {
    const builder = new SchemaBuilder("v3", gvks);
    commonSchemas(builder);
    const paths: Record<string, Schema> = {};
    for (const info of infos) Object.assign(paths, pathsFor(info, "v3", builder));
    const body = JSON.stringify({
      openapi: "3.0.0",
      info: VERSION_INFO,
      paths,
      components: {
        schemas: Object.fromEntries([...builder.schemas.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
        securitySchemes: { BearerToken: { type: "apiKey", description: "Bearer Token authentication", name: "authorization", in: "header" } },
      },
    });
    const hash = createHash("sha512").update(body).digest("hex").toUpperCase().slice(0, 128);
    v3.set(key, { body, hash });
  }
  const rootPaths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, doc] of [...v3.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    rootPaths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.hash}` };
  }
  return {
    v2,
    v2ETag: entityTag(v2),
    v2Protobuf,
    v2ProtobufContentType: OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
    v2ProtobufETag: entityTag(v2Protobuf),
    wantsV2Protobuf: prefersOpenApiV2Protobuf, v3Root: JSON.stringify({ paths: rootPaths }), v3 };
}
