// The HTTP front: routing, bodies, content negotiation, Status errors, faults and audit around the
// registry. Everything Kubernetes-specific about a verb lives in the registry; this file only translates.
import { assertNever } from "#protocol";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { load as loadYaml } from "js-yaml";
import { fieldManagerFor, forceParam, isApplyPatchContentType, parseApplyBody } from "../apply/http.ts";
import { AuditLog, EPOCH_HEADER, microTimestamp } from "../audit/audit.ts";
import type { AuditUser } from "../audit/audit.ts";
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, findGroup, SERVER_VERSION } from "../discovery/discovery.ts";
import { StatusError, badRequest, failure, internalError, methodNotAllowed, notAcceptable, notFound, pathNotFound } from "../errors.ts";
import type { Faults } from "../faults/faults.ts";
import { noneMatchHits } from "../openapi/etag.ts";
import type { OpenApiDocuments } from "../openapi/generate.ts";
import type { Registry, WriteContext } from "../registry/registry.ts";
import { parseDeleteOptions, parseListOptions, parseWatchOptions, parseWriteOptions } from "../registry/options.ts";
import { patchTypeFromContentType, resourceKey, unsupportedPatchMediaType, viewJson } from "../resources.ts";
import type { ResourceInfo } from "../resources.ts";
import { parseIncludeObject, partialMetadata, toTable } from "../table/table.ts";
import type { LogLine } from "../kubelet/kubelet.ts";
import type { KubeObject, Status } from "../types.ts";
import { getPath } from "../types.ts";
import { PROTOBUF_CONTENT_TYPE, kubeProtobuf } from "../protobuf/index.ts";
import { DISCOVERY_V2_CONTENT_TYPE, PARTIAL_CONTENT_TYPE, TABLE_CONTENT_TYPE, negotiate, statusEncoding } from "./negotiate.ts";
import type { Rendering } from "./negotiate.ts";
import type { ResourceRoute, Verb } from "./route.ts";
import { parseRoute } from "./route.ts";
import type { WatchConfig, WatchSet } from "./watch.ts";
import { serveWatch } from "./watch.ts";

const MAX_BODY_BYTES = 3 * 1024 * 1024;
const MUTATING: ReadonlySet<Verb> = new Set(["create", "update", "patch", "delete", "deletecollection"]);

export interface HttpDeps {
  registry: Registry;
  openapi: OpenApiDocuments;
  faults: Faults;
  audit: AuditLog | undefined;
  watch: WatchConfig;
  watches: WatchSet;
  /** `host:port` reported in /api's serverAddressByClientCIDRs. */
  serverAddress(): string;
  /** Bearer token of the kubeconfig the simulator wrote; requests with it are `kubernetes-admin`. */
  adminToken: string;
  /** The simulated kubelet's log of a pod's container (by pod uid), oldest first. */
  podLogs(uid: string, container: string): readonly LogLine[];
  /** Makes every store write so far durable (`--data-dir`, ADR 0095); runs before each answer to a resource request. */
  syncWrites?: () => void;
}

/** Pod subresources that need a running container process: answered with a Status saying there is none. */
const CONTAINER_STREAMS = new Set(["exec", "attach", "portforward"]);

interface Reply {
  code: number;
  /** The body, or its pieces in order (large lists: see `listPieces`); protobuf bodies are bytes. */
  body: string | Buffer | readonly (string | Buffer)[];
  contentType: string;
  headers?: Readonly<Record<string, string>>;
}

function json(code: number, value: unknown, contentType = "application/json"): Reply {
  return { code, body: JSON.stringify(value), contentType };
}

/**
 * `value` (a JSON object with apiVersion and kind: an object, a list, a Status, a Scale) in Kubernetes' protobuf
 * envelope. A value the schema cannot carry (a gap in the tables) is a 500, as the apiserver answers an object
 * it cannot encode.
 */
function protobuf(code: number, value: Record<string, unknown>): Reply {
  try {
    return { code, body: kubeProtobuf().encode(value), contentType: PROTOBUF_CONTENT_TYPE };
  } catch (err) {
    throw internalError(`unable to encode ${String(value["kind"])} as protobuf: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `value` in the negotiated encoding (plain JSON or protobuf). */
function encoded(code: number, value: object, encoding: "json" | "protobuf"): Reply {
  return encoding === "protobuf" ? protobuf(code, value as Record<string, unknown>) : json(code, value);
}

function statusReply(status: Status, encoding: "json" | "protobuf" = "json"): Reply {
  if (encoding === "protobuf") {
    try {
      return protobuf(status.code, status as unknown as Record<string, unknown>);
    } catch {
      // A Status the tables cannot carry still reaches the client, in JSON (client-go reads either).
    }
  }
  return json(status.code, status);
}

function verbOf(method: string, route: ResourceRoute, params: URLSearchParams): Verb | undefined {
  const watching = route.watchPath || params.get("watch") === "true" || params.get("watch") === "1";
  switch (method) {
    case "GET":
    case "HEAD":
      if (watching) return "watch";
      return route.name === undefined ? "list" : "get";
    case "POST":
      return "create";
    case "PUT":
      return route.name === undefined ? undefined : "update";
    case "PATCH":
      return route.name === undefined ? undefined : "patch";
    case "DELETE":
      return route.name === undefined ? "deletecollection" : "delete";
    default:
      return undefined;
  }
}

const NO_BODY = Buffer.alloc(0);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new StatusError(failure(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(`couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The media type of the request's Content-Type, lower case, without parameters ("" when there is none). */
function bodyMediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * A request body as the JSON value the registry works on: protobuf (`application/vnd.kubernetes.protobuf`, the
 * envelope decoded into JSON) and YAML by their Content-Type, JSON otherwise (whether a Content-Type is accepted at
 * all is checked where the apiserver checks it: `checkBodyContentType`).
 */
function decodeBody(req: IncomingMessage, raw: Buffer): unknown {
  const type = bodyMediaType(req);
  if (type === PROTOBUF_CONTENT_TYPE) {
    if (raw.length === 0) return undefined;
    try {
      return kubeProtobuf().decode(raw).object;
    } catch (err) {
      throw badRequest(err instanceof Error ? err.message : String(err));
    }
  }
  if (type === "application/yaml") {
    const text = raw.toString("utf8");
    if (text.trim() === "") return undefined;
    try {
      return loadYaml(text);
    } catch (err) {
      throw badRequest(`couldn't get version/kind; yaml parse error: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    }
  }
  return parseJsonBody(raw.toString("utf8"));
}

function userOf(req: IncomingMessage, adminToken: string): AuditUser {
  const auth = req.headers.authorization ?? "";
  if (auth.startsWith("Bearer ")) {
    const token = auth.slice("Bearer ".length).trim();
    if (token === adminToken) return { username: "kubernetes-admin", groups: ["kubeadm:cluster-admins", "system:authenticated"] };
    return { username: `system:serviceaccount:token:${token.slice(0, 12)}`, groups: ["system:serviceaccounts", "system:authenticated"] };
  }
  if (auth.startsWith("Basic ")) {
    const user = Buffer.from(auth.slice("Basic ".length), "base64").toString("utf8").split(":")[0] ?? "";
    return { username: user, groups: ["system:authenticated"] };
  }
  return { username: "system:anonymous", groups: ["system:unauthenticated"] };
}

export function createHandler(deps: HttpDeps): (req: IncomingMessage, res: ServerResponse) => void {
  kubeProtobuf(); // built (and warmed up) now rather than on the first protobuf request
  return (req, res) => {
    handle(deps, req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        const status = err instanceof StatusError ? err.status : internalError(err instanceof Error ? err.message : String(err)).status;
        const reply = statusReply(status, statusEncoding(req.headers.accept));
        res.writeHead(status.code, { "Content-Type": reply.contentType });
        res.end(reply.body);
      } else {
        res.destroy();
      }
    });
  };
}

async function handle(deps: HttpDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const received = deps.audit === undefined ? "" : microTimestamp();
  const auditID = randomUUID();
  const url = new URL(req.url ?? "/", "http://kube-sim.local");
  const method = req.method ?? "GET";
  const route = parseRoute(url.pathname);
  const headers: Record<string, string> = { "Audit-Id": auditID };
  if (deps.faults.latencyMs > 0) await new Promise((r) => setTimeout(r, deps.faults.latencyMs));

  if (route.kind !== "resource") {
    const reply = route.kind === "unknown" ? statusReply(pathNotFound().status, statusEncoding(req.headers.accept)) : serveNonResource(deps, route.path, req);
    send(res, reply, headers, []);
    return;
  }

  const params = url.searchParams;
  const verb = verbOf(method, route, params);
  let reply: Reply | undefined;
  let failureStatus: Status | undefined;
  const warnings: string[] = [];
  let objectName = route.name;
  try {
    if (verb === undefined) throw methodNotAllowed();
    if (MUTATING.has(verb)) {
      const injected = deps.faults.writeFailure();
      if (injected !== undefined) {
        if (injected.retryAfterSeconds !== undefined) headers["Retry-After"] = String(injected.retryAfterSeconds);
        throw injected;
      }
    }
    if (verb === "watch") {
      const rendering = negotiate(req.headers.accept, { table: true, partial: true, protobuf: true });
      if (rendering === "unacceptable" || rendering === "discovery-v2") throw notAcceptable();
      const opts = parseWatchOptions(params);
      if (route.name !== undefined) opts.fieldSelector = [opts.fieldSelector, `metadata.name=${route.name}`].filter((s) => s !== "").join(",");
      serveWatch({
        req,
        res,
        registry: deps.registry,
        info: route.info,
        namespace: route.namespace,
        opts,
        rendering,
        includeObject: parseIncludeObject(params.get("includeObject")),
        config: deps.watch,
        watches: deps.watches,
        headers,
      });
      return;
    }
    const body = MUTATING.has(verb) ? await readBody(req) : NO_BODY;
    const result = dispatch(deps, req, route, verb, params, body, warnings);
    reply = result.reply;
    if (result.name !== undefined) objectName = result.name;
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    failureStatus = err.status;
    reply = statusReply(err.status, statusEncoding(req.headers.accept));
  }
  deps.syncWrites?.();
  send(res, reply, headers, warnings);
  if (verb !== undefined && MUTATING.has(verb) && deps.audit !== undefined) {
    const objectRef: Record<string, string> = { resource: route.info.resource };
    if (route.namespace !== undefined) objectRef["namespace"] = route.namespace;
    if (objectName !== undefined) objectRef["name"] = objectName;
    if (route.apiGroup !== "") objectRef["apiGroup"] = route.apiGroup;
    objectRef["apiVersion"] = route.apiVersion;
    if (route.subresource !== "") objectRef["subresource"] = route.subresource;
    const impersonate = req.headers["impersonate-user"];
    const epoch = req.headers[EPOCH_HEADER];
    deps.audit.record({
      auditID,
      verb,
      requestURI: req.url ?? "/",
      objectRef: objectRef as never,
      code: reply.code,
      failure: failureStatus,
      receivedTimestamp: received,
      stageTimestamp: microTimestamp(),
      user: userOf(req, deps.adminToken),
      impersonatedUser: typeof impersonate === "string" ? impersonate : undefined,
      sourceIPs: [req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "127.0.0.1"],
      userAgent: req.headers["user-agent"] ?? "",
      epoch: typeof epoch === "string" ? epoch : undefined,
    });
  }
}

function send(res: ServerResponse, reply: Reply, headers: Record<string, string>, warnings: string[]): void {
  const { body } = reply;
  let length = 0;
  if (typeof body === "string") length = Buffer.byteLength(body);
  else if (Buffer.isBuffer(body)) length = body.length;
  else for (const piece of body) length += typeof piece === "string" ? Buffer.byteLength(piece) : piece.length;
  // With an explicit Content-Length the head and body leave in one socket write; without it writeHead
  // commits to chunked encoding and the reply costs a writev of five pieces.
  const all: Record<string, string | string[]> = { ...headers, ...reply.headers, "Content-Type": reply.contentType, "Cache-Control": "no-cache, private", "Content-Length": String(length) };
  if (warnings.length > 0) all["Warning"] = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(reply.code, all);
  if (typeof body === "string" || Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  // Pieces written in one tick leave in one writev (the socket is corked until the next tick).
  for (const piece of body) res.write(piece);
  res.end();
}

/** Largest piece of a list body built as one string; larger lists are sent in several pieces. */
const LIST_PIECE_CHARS = 32 * 1024;

/**
 * The JSON text `{...head,"items":[a,b,...]}` as flat strings of at most about LIST_PIECE_CHARS each.
 * A string above 128 KiB is a large-object allocation (its own mmap'd pages, faulted in and unmapped
 * again), and the socket write flattens `head + body` into a second one: measured at about 1.3 ms of
 * CPU per 180 KiB list against 75 us for 32 KiB pieces. Each piece is built by one join, so it is a
 * flat string and neither Buffer.byteLength nor the socket write copies it again.
 */
function listPieces(head: string, items: readonly string[]): string[] {
  const pieces: string[] = [];
  let parts: string[] = [`${head.slice(0, -1)},"items":[`];
  let chars = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] ?? "";
    if (chars > 0 && chars + item.length > LIST_PIECE_CHARS) {
      pieces.push(parts.join(""));
      parts = [];
      chars = 0;
    }
    if (i > 0) parts.push(",");
    parts.push(item);
    chars += item.length + 1;
  }
  parts.push("]}");
  pieces.push(parts.join(""));
  return pieces;
}

function render(deps: HttpDeps, req: IncomingMessage, info: ResourceInfo, obj: KubeObject, code: number, rendering: Rendering, params: URLSearchParams): Reply {
  switch (rendering) {
    case "json":
      return json(code, obj);
    case "protobuf":
      return protobuf(code, obj);
    case "table":
      return json(code, toTable(resourceKey(info), [obj], deps.registry.now(), { includeObject: parseIncludeObject(params.get("includeObject")), noHeaders: false }), TABLE_CONTENT_TYPE);
    case "partial":
      return json(code, partialMetadata(obj), PARTIAL_CONTENT_TYPE);
    case "discovery-v2":
    case "unacceptable":
      throw notAcceptable();
    default:
      return assertNever(rendering, "rendering");
  }
}

function dispatch(
  deps: HttpDeps,
  req: IncomingMessage,
  route: ResourceRoute,
  verb: Verb,
  params: URLSearchParams,
  rawBody: Buffer,
  warnings: string[],
): { reply: Reply; name?: string } {
  const { registry } = deps;
  const { info, subresource: sub } = route;
  const ns = route.namespace ?? "";
  if (info.group === "" && info.resource === "pods" && CONTAINER_STREAMS.has(sub) && route.name !== undefined) {
    // A real API server proxies these to the node's kubelet; the simulated one runs no containers.
    registry.getEntry(info, ns, route.name);
    throw badRequest(`kube-sim runs no containers: ${sub} to pod "${route.name}" is not possible (the simulated kubelet only reports pod state; see tools/kube-sim/README.md)`);
  }
  if (sub !== "" && !info.subresources.includes(sub)) throw pathNotFound();
  if (info.namespaced && route.namespace === undefined && verb !== "list") throw pathNotFound();
  const objectVerb = verb === "get" || verb === "list";
  const rendering = objectVerb ? negotiate(req.headers.accept, { table: sub === "", partial: sub === "", protobuf: true }) : negotiate(req.headers.accept, { protobuf: true });
  if (rendering === "unacceptable") throw notAcceptable();
  // Objects and Statuses of writes, scale and deletes: protobuf when negotiated, JSON otherwise.
  const wire = rendering === "protobuf" ? "protobuf" : "json";
  const out = (code: number, value: object): Reply => encoded(code, value, wire);
  const write = (): WriteContext => ({ ...parseWriteOptions(params), warnings });
  const name = route.name ?? "";
  switch (verb) {
    case "get": {
      if (sub === "scale") return { reply: out(200, registry.getScale(info, ns, name)) };
      if (sub === "log") return { reply: podLog(deps, registry.get(info, ns, name), params) };
      if (rendering === "json" && sub !== "finalize") return { reply: { code: 200, body: viewJson(info, registry.getEntry(info, ns, name).json), contentType: "application/json" } };
      if (rendering === "protobuf") return { reply: protobuf(200, JSON.parse(viewJson(info, registry.getEntry(info, ns, name).json)) as Record<string, unknown>) };
      return { reply: render(deps, req, info, registry.get(info, ns, name), 200, rendering, params) };
    }
    case "list":
      return { reply: renderList(deps, info, route.namespace, params, rendering) };
    case "watch":
      throw new Error("watch is served before dispatch");
    case "create": {
      // The apiserver picks the body's decoder (415 for a type it has none for) before it reads the body.
      if (sub !== "eviction" && route.name === undefined) checkBodyContentType(req);
      const body = decodeBody(req, rawBody);
      if (sub === "eviction") {
        const opts = parseDeleteOptions(new URLSearchParams(), (body as { deleteOptions?: unknown } | undefined)?.deleteOptions);
        registry.delete(info, ns, name, opts, write());
        return { reply: out(201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 }), name };
      }
      if (route.name !== undefined) throw methodNotAllowed();
      const created = registry.create(info, ns, body, { ...write(), fieldManager: fieldManagerFor("CreateOptions", params, req.headers["user-agent"]) });
      return { reply: out(201, created), name: created.metadata.name ?? "" };
    }
    case "update": {
      checkBodyContentType(req);
      const fieldManager = fieldManagerFor("UpdateOptions", params, req.headers["user-agent"]);
      const { object, created } = registry.update(info, ns, name, sub === "finalize" ? "" : sub, decodeBody(req, rawBody), { ...write(), fieldManager });
      return { reply: out(created ? 201 : 200, object), name };
    }
    case "patch": {
      const ct = req.headers["content-type"] ?? "";
      const apply = isApplyPatchContentType(ct);
      const type = patchTypeFromContentType(ct);
      if (type === undefined && !apply) throw new StatusError(unsupportedPatchMediaType().toStatus());
      const fieldManager = fieldManagerFor("PatchOptions", params, req.headers["user-agent"], apply);
      if (apply || type === undefined) {
        // Apply bodies are YAML or JSON, never protobuf (apply/http.ts).
        const applied = registry.apply(info, ns, name, sub, parseApplyBody(rawBody), forceParam(params), { ...write(), fieldManager });
        return { reply: out(applied.created ? 201 : 200, applied.object), name };
      }
      // Patch bodies are JSON whatever the response encoding (the apiserver takes patches only in JSON and YAML types).
      const patched = registry.patch(info, ns, name, sub, type, parseJsonBody(rawBody.toString("utf8")), { ...write(), fieldManager });
      return { reply: out(200, patched), name };
    }
    case "delete": {
      const opts = parseDeleteOptions(params, decodeBody(req, rawBody));
      const ctx = write();
      const result = registry.delete(info, ns, name, opts, ctx);
      if (!result.deleted || registry.returnsDeletedObject(info)) return { reply: out(200, result.object), name };
      const details: Record<string, string> = { name };
      if (info.group !== "") details["group"] = info.group;
      details["kind"] = info.resource;
      details["uid"] = result.object.metadata.uid ?? "";
      return { reply: out(200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details }) };
    }
    case "deletecollection": {
      if (info.resource === "namespaces") throw methodNotAllowed();
      const opts = parseDeleteOptions(params, decodeBody(req, rawBody));
      const items = registry.deleteCollection(info, route.namespace, parseListOptions(params), opts, write());
      return { reply: out(200, { kind: `${info.kind}List`, apiVersion: info.group === "" ? info.version : `${info.group}/${info.version}`, metadata: { resourceVersion: String(registry.store.currentRv) }, items }) };
    }
    default:
      return assertNever(verb, "verb");
  }
}

/** Create and update bodies: JSON (also when no type is given), YAML or protobuf; anything else is 415. */
/**
 * `kubectl logs`: the simulated kubelet's lines for one container, with the apiserver's errors for a pod of several
 * containers without `container`, an unknown container, and a container that has not started.
 */
function podLog(deps: HttpDeps, pod: KubeObject, params: URLSearchParams): Reply {
  const podName = pod.metadata.name ?? "";
  const containers = ((getPath(pod, ["spec", "containers"]) ?? []) as { name?: unknown }[]).map((c) => (typeof c.name === "string" ? c.name : ""));
  const container = params.get("container") ?? (containers.length === 1 ? containers[0] : undefined);
  if (container === undefined) throw badRequest(`a container name must be specified for pod ${podName}, choose one of: [${containers.join(" ")}]`);
  if (!containers.includes(container)) throw badRequest(`container ${container} is not valid for pod ${podName}`);
  const statuses = (getPath(pod, ["status", "containerStatuses"]) ?? []) as { name?: unknown; state?: { waiting?: { reason?: unknown } } }[];
  const state = statuses.find((s) => s.name === container)?.state;
  if (state === undefined || state.waiting !== undefined) {
    const reason = typeof state?.waiting?.reason === "string" ? state.waiting.reason : "ContainerCreating";
    throw badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${reason}`);
  }
  let lines = deps.podLogs(pod.metadata.uid ?? "", container);
  const tail = Number(params.get("tailLines") ?? "-1");
  if (Number.isInteger(tail) && tail >= 0) lines = tail === 0 ? [] : lines.slice(-tail);
  const timestamps = params.get("timestamps") === "true";
  const body = lines.map((l) => `${timestamps ? `${l.time} ` : ""}${l.text}\n`).join("");
  return { code: 200, body, contentType: "text/plain" };
}

function checkBodyContentType(req: IncomingMessage): void {
  const ct = (req.headers["content-type"] ?? "application/json").split(";")[0]?.trim() ?? "";
  const lower = ct.toLowerCase();
  if (ct !== "application/json" && ct !== "" && ct !== "*/*" && lower !== PROTOBUF_CONTENT_TYPE && lower !== "application/yaml") {
    throw new StatusError(failure(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`));
  }
}

function renderList(deps: HttpDeps, info: ResourceInfo, namespace: string | undefined, params: URLSearchParams, rendering: Rendering): Reply {
  const result = deps.registry.list(info, namespace, parseListOptions(params));
  const apiVersion = info.group === "" ? info.version : `${info.group}/${info.version}`;
  if (rendering === "table") {
    const objects = result.entries.map((e) => JSON.parse(viewJson(info, e.json)) as KubeObject);
    const table = toTable(resourceKey(info), objects, deps.registry.now(), {
      includeObject: parseIncludeObject(params.get("includeObject")),
      noHeaders: false,
      resourceVersion: result.resourceVersion,
      ...(result.continueToken !== undefined ? { continueToken: result.continueToken } : {}),
      ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
    });
    return json(200, table, TABLE_CONTENT_TYPE);
  }
  const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continueToken !== undefined) meta["continue"] = result.continueToken;
  if (result.remainingItemCount !== undefined) meta["remainingItemCount"] = result.remainingItemCount;
  if (rendering === "partial") {
    const items = result.entries.map((e) => partialMetadata(JSON.parse(e.json) as KubeObject));
    return json(200, { kind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1", metadata: meta, items }, PARTIAL_CONTENT_TYPE);
  }
  if (rendering === "protobuf") {
    const items = result.entries.map((e) => JSON.parse(viewJson(info, e.json)) as unknown);
    return protobuf(200, { kind: `${info.kind}List`, apiVersion, metadata: meta, items });
  }
  // Items are spliced in as stored bytes: no parse/stringify per object on the hot path.
  const head = JSON.stringify({ kind: `${info.kind}List`, apiVersion, metadata: meta });
  return { code: 200, body: listPieces(head, result.entries.map((e) => viewJson(info, e.json))), contentType: "application/json" };
}

function serveNonResource(deps: HttpDeps, path: string, req: IncomingMessage): Reply {
  const accept = req.headers.accept;
  const text = (body: string): Reply => ({ code: 200, body, contentType: "text/plain; charset=utf-8" });
  if (path === "/healthz" || path === "/livez" || path === "/readyz" || /^\/(healthz|livez|readyz)\//.test(path)) return text("ok");
  if (path === "/version") return json(200, SERVER_VERSION);
  if (path === "/api" || path === "/apis") {
    const rendering = negotiate(accept, { discovery: true });
    if (rendering === "discovery-v2") return json(200, aggregatedDiscovery(path === "/api"), DISCOVERY_V2_CONTENT_TYPE);
    if (rendering === "unacceptable") return statusReply(notAcceptable().status);
    return json(200, path === "/api" ? apiVersions(deps.serverAddress()) : apiGroupList());
  }
  const groupMatch = /^\/apis\/([^/]+)$/.exec(path);
  if (groupMatch !== null) {
    const g = findGroup(groupMatch[1] ?? "");
    return g === undefined ? statusReply(pathNotFound().status) : json(200, apiGroup(g));
  }
  const gvMatch = /^\/api\/(v1)$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(path);
  if (gvMatch !== null) {
    const gv = gvMatch[1] ?? "";
    const [group, version] = gv.includes("/") ? (gv.split("/") as [string, string]) : ["", gv];
    const list = apiResourceList(group, version);
    return list === undefined ? statusReply(pathNotFound().status) : json(200, list);
  }
  if (path === "/openapi/v2") {
    const pb = deps.openapi.wantsV2Protobuf(accept);
    if (!pb && negotiate(accept, {}) === "unacceptable") return statusReply(notAcceptable().status);
    // kubectl caches the document and revalidates it by ETag (openapi/etag.ts).
    const headers = { ETag: pb ? deps.openapi.v2ProtobufETag : deps.openapi.v2ETag, Vary: "Accept" };
    const contentType = pb ? deps.openapi.v2ProtobufContentType : "application/json";
    if (noneMatchHits(req.headers["if-none-match"], headers.ETag)) return { code: 304, body: "", contentType, headers };
    return { code: 200, body: pb ? deps.openapi.v2Protobuf : deps.openapi.v2, contentType, headers };
  }
  if (path === "/openapi/v3") return { code: 200, body: deps.openapi.v3Root, contentType: "application/json" };
  if (path.startsWith("/openapi/v3/")) {
    const doc = deps.openapi.v3.get(path.slice("/openapi/v3/".length));
    if (doc === undefined) return statusReply(notFound({ group: "", resource: "openapi" }, path).status);
    return { code: 200, body: doc.body, contentType: "application/json" };
  }
  return statusReply(pathNotFound().status);
}

export { AuditLog };
