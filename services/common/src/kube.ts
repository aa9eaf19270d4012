// Kubernetes access for every service: client-node's KubeConfig for configuration and authentication, its Watch
// for watch streams, and a small JSON client over undici for everything else so objects stay exactly as the API
// server sent them (client-node's generated models turn timestamps into Dates and drop unknown fields).
import { HttpMethod, KubeConfig, RequestContext, Watch } from "@kubernetes/client-node";
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { getGlobalDispatcher } from "undici";
import type { Dispatcher } from "undici";
import { KubeApiError, WriteFencedError } from "./errors/kube.ts";
import type { KubeStatusBody } from "./errors/kube.ts";
import type { CommonMetrics } from "./metrics.ts";

export { KubeApiError, WriteFencedError } from "./errors/kube.ts";
export type { KubeStatusBody } from "./errors/kube.ts";

/** KubeConfig that stamps our User-Agent on every request, including watches made by client-node's Watch. */
export class UserAgentKubeConfig extends KubeConfig {
  userAgent = "stsfleet";

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    context.setHeaderParam("User-Agent", this.userAgent);
  }
}

/**
 * Loads the kubeconfig: the `--kubeconfig` path when given, else client-node's default order ($KUBECONFIG,
 * ~/.kube/config, in-cluster service account). Documented in the README (it differs from controller-runtime,
 * which tries in-cluster before ~/.kube/config).
 */
export function loadKubeConfig(path: string | undefined, userAgent: string): UserAgentKubeConfig {
  const kubeConfig = new UserAgentKubeConfig();
  if (path) kubeConfig.loadFromFile(path);
  else kubeConfig.loadFromDefault();
  kubeConfig.userAgent = userAgent;
  if (!kubeConfig.getCurrentCluster()) throw new Error("the kubeconfig has no current cluster");
  return kubeConfig;
}

export interface ResourceRef {
  /** "" for the core group. */
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespace?: string | undefined;
  readonly name?: string | undefined;
  readonly subresource?: string | undefined;
}

export const RESOURCES = {
  statefulsets: { group: "apps", version: "v1", resource: "statefulsets" },
  controllerrevisions: { group: "apps", version: "v1", resource: "controllerrevisions" },
  pods: { group: "", version: "v1", resource: "pods" },
  persistentvolumeclaims: { group: "", version: "v1", resource: "persistentvolumeclaims" },
  events: { group: "events.k8s.io", version: "v1", resource: "events" },
  namespaces: { group: "", version: "v1", resource: "namespaces" },
  services: { group: "", version: "v1", resource: "services" },
} as const satisfies Record<string, ResourceRef>;

export function resourcePath(ref: ResourceRef): string {
  const base = ref.group === "" ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const ns = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : "";
  const name = ref.name ? `/${encodeURIComponent(ref.name)}` : "";
  const sub = ref.name && ref.subresource ? `/${ref.subresource}` : "";
  return `${base}${ns}/${ref.resource}${name}${sub}`;
}

/**
 * Request header carrying the writer's fencing token, `<shard>/<epoch>/<member>`: the API server ignores it, the
 * simulator records it in its audit log (annotation `stsfleet.dev/epoch`) so single-writer checks can read it.
 */
export const FENCING_EPOCH_HEADER = "X-Stsfleet-Epoch";

export function fencingEpoch(shard: number, epoch: number, member: string): string {
  return `${shard}/${epoch}/${member}`;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface KubeRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly path: string;
  readonly query?: Query;
  readonly body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body): for bodies whose exact bytes matter (ControllerRevision data). */
  readonly rawBody?: string;
  readonly contentType?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Extra request headers (e.g. the fencing epoch, which the simulator records in its audit log). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Asked at the last moment before the request's bytes go to the socket (after queueing and connecting); false
   * aborts it unsent with a WriteFencedError. A writer that may lose its right to write (a shard owner whose lease
   * lapsed while the process was paused) passes its check here: a check made before the call cannot see a pause
   * that falls between it and the socket write.
   */
  readonly mayWrite?: () => boolean;
  /** For metrics: list, get, create, update, patch, delete, … */
  readonly verb: string;
  readonly resource: string;
}

/** Per-call options of the convenience methods. */
export interface RequestOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly mayWrite?: () => boolean;
}

/** `error` or the first of its causes that is an instance of `type` (undici may wrap the reason of an abort). */
function causeOfType<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof type) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/**
 * `base` with a last check per request: undici calls onRequestStart right before it writes the request to the
 * socket, and a request aborted there is never written.
 */
function fencedDispatcher(base: Dispatcher, mayWrite: () => boolean, fenced: () => Error): Dispatcher {
  return base.compose((dispatch) => (options, handler) =>
    dispatch(options, {
      ...bindAll(handler),
      onRequestStart(controller, context) {
        handler.onRequestStart?.(controller, context);
        if (!mayWrite()) controller.abort(fenced());
      },
    }),
  );
}

/** The handler's callbacks, bound to it (handlers may be class instances with private state). */
function bindAll(handler: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
  const bound: Record<string, unknown> = {};
  for (const key of ["onRequestUpgrade", "onResponseStart", "onResponseData", "onResponseEnd", "onResponseError", "onRequestSent", "onResponseStarted"] as const) {
    const callback = (handler as Record<string, unknown>)[key];
    if (typeof callback === "function") bound[key] = callback.bind(handler);
  }
  return bound;
}

export interface KubeClientOptions {
  readonly requestTimeoutMs: number;
  readonly metrics?: CommonMetrics;
  /** How long authentication headers and the TLS dispatcher are reused before being rebuilt. */
  readonly authRefreshMs?: number;
}

interface AuthSnapshot {
  readonly headers: Record<string, string>;
  readonly dispatcher: Dispatcher | undefined;
  readonly expiresAtMs: number;
}

function parseRetryAfterMs(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

const tracer = trace.getTracer("stsfleet-kube-client");

export class KubeClient {
  readonly kubeConfig: UserAgentKubeConfig;
  readonly server: string;
  private readonly serverHost: string;
  private readonly options: KubeClientOptions;
  private auth: Promise<AuthSnapshot> | undefined;

  constructor(kubeConfig: UserAgentKubeConfig, options: KubeClientOptions) {
    this.kubeConfig = kubeConfig;
    this.options = options;
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    this.server = cluster.server.replace(/\/+$/, "");
    this.serverHost = new URL(this.server).hostname;
  }

  private async authSnapshot(): Promise<AuthSnapshot> {
    const now = Date.now();
    const current = this.auth ? await this.auth : undefined;
    if (current && current.expiresAtMs > now) return current;
    this.auth = (async () => {
      const context = new RequestContext(this.server, HttpMethod.GET);
      await this.kubeConfig.applySecurityAuthentication(context);
      return {
        headers: context.getHeaders(),
        dispatcher: context.getDispatcher(),
        expiresAtMs: Date.now() + (this.options.authRefreshMs ?? 60_000),
      };
    })();
    this.auth.catch(() => (this.auth = undefined));
    return this.auth;
  }

  /** A CLIENT span per request (watches do not come through here, so no hour-long spans). */
  request<T>(request: KubeRequest): Promise<T> {
    return tracer.startActiveSpan(
      `${request.method} ${request.resource}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "http.request.method": request.method,
          "url.path": request.path,
          "server.address": this.serverHost,
          "k8s.verb": request.verb,
          "k8s.resource": request.resource,
        },
      },
      async (span) => {
        try {
          return await this.send<T>(request);
        } catch (error) {
          if (error instanceof KubeApiError) {
            span.setAttribute("http.response.status_code", error.status);
            span.setAttribute("error.type", error.reason);
          }
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
          throw error;
        } finally {
          span.end();
        }
      },
    );
  }

  private async send<T>(request: KubeRequest): Promise<T> {
    const url = new URL(this.server + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const auth = await this.authSnapshot();
    const headers: Record<string, string> = { ...request.headers, ...auth.headers, accept: "application/json" };
    let body: string | undefined;
    if (request.rawBody !== undefined || request.body !== undefined) {
      body = request.rawBody ?? JSON.stringify(request.body);
      headers["content-type"] = request.contentType ?? "application/json";
    }
    const timeout = AbortSignal.timeout(request.timeoutMs ?? this.options.requestTimeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    const started = performance.now();
    let status = 0;
    try {
      const { mayWrite } = request;
      const base = auth.dispatcher ?? getGlobalDispatcher();
      const dispatcher = mayWrite ? fencedDispatcher(base, mayWrite, () => new WriteFencedError({ verb: request.verb, path: request.path })) : base;
      // undici's request() rather than fetch(): no WHATWG Request, Response and web streams per call, which cost
      // about 100 µs of CPU per request (ADR 0085, decision 10), in every process that writes to the API server.
      const response = await dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method,
        headers,
        body,
        signal,
      });
      status = response.statusCode;
      const text = await response.body.text();
      let parsed: unknown;
      try {
        parsed = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        parsed = { message: text.slice(0, 500) };
      }
      if (status < 200 || status > 299) {
        throw new KubeApiError({
          status,
          verb: request.verb,
          path: request.path,
          body: parsed as KubeStatusBody | undefined,
          retryAfterMs: parseRetryAfterMs(response.headers["retry-after"]),
        });
      }
      return parsed as T;
    } catch (error) {
      if (error instanceof KubeApiError) throw error;
      const fenced = causeOfType(error, WriteFencedError);
      if (fenced) throw fenced;
      throw new KubeApiError({
        status: 0,
        verb: request.verb,
        path: request.path,
        message: `${request.verb} ${request.path}: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    } finally {
      const metrics = this.options.metrics;
      if (metrics) {
        metrics.kubeRequests.inc({ verb: request.verb, resource: request.resource, code: String(status || "error") });
        metrics.kubeRequestDuration.observe(
          { verb: request.verb, resource: request.resource },
          (performance.now() - started) / 1000,
        );
      }
    }
  }

  get<T>(ref: ResourceRef, options: RequestOptions = {}): Promise<T> {
    return this.request<T>({ method: "GET", path: resourcePath(ref), verb: "get", resource: ref.resource, ...options });
  }

  list<T>(ref: ResourceRef, query: Query = {}, options: RequestOptions = {}): Promise<T> {
    return this.request<T>({
      method: "GET",
      path: resourcePath(ref),
      query,
      verb: "list",
      resource: ref.resource,
      ...options,
    });
  }

  create<T>(ref: ResourceRef, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request<T>({
      method: "POST",
      path: resourcePath({ ...ref, name: undefined, subresource: undefined }),
      body,
      verb: "create",
      resource: ref.resource,
      ...options,
    });
  }

  /** PUT; the body's metadata.resourceVersion is the optimistic-concurrency precondition. */
  replace<T>(ref: ResourceRef, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request<T>({
      method: "PUT",
      path: resourcePath(ref),
      body,
      verb: ref.subresource ? `update-${ref.subresource}` : "update",
      resource: ref.resource,
      ...options,
    });
  }

  patch<T>(
    ref: ResourceRef,
    patch: unknown,
    type: "merge" | "json" | "strategic",
    options: RequestOptions = {},
  ): Promise<T> {
    const contentType = {
      merge: "application/merge-patch+json",
      json: "application/json-patch+json",
      strategic: "application/strategic-merge-patch+json",
    }[type];
    return this.request<T>({
      method: "PATCH",
      path: resourcePath(ref),
      body: patch,
      contentType,
      verb: "patch",
      resource: ref.resource,
      ...options,
    });
  }

  /** DELETE with optional uid/resourceVersion preconditions and propagation policy. */
  delete<T>(
    ref: ResourceRef,
    options: {
      preconditions?: { uid?: string; resourceVersion?: string };
      propagationPolicy?: "Background" | "Foreground" | "Orphan";
      gracePeriodSeconds?: number;
    } & RequestOptions = {},
  ): Promise<T> {
    const { preconditions, propagationPolicy, gracePeriodSeconds, ...rest } = options;
    return this.request<T>({
      method: "DELETE",
      path: resourcePath(ref),
      body: { kind: "DeleteOptions", apiVersion: "v1", preconditions, propagationPolicy, gracePeriodSeconds },
      verb: "delete",
      resource: ref.resource,
      ...rest,
    });
  }

  /** A client-node Watch bound to this client's configuration (it carries our User-Agent too). */
  newWatch(): Watch {
    return new Watch(this.kubeConfig);
  }
}
