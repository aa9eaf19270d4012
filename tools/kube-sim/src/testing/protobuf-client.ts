// A test client that speaks protobuf the way client-go's typed clients do: bodies in
// `application/vnd.kubernetes.protobuf` (the k8s\0 envelope), `Accept: application/vnd.kubernetes.protobuf,
// application/json`, DeleteOptions as a protobuf body of the client's group version, watch streams read as
// length-prefixed WatchEvent frames whose object.raw is an envelope.
import { request } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { KubeProtobuf } from "../protobuf/envelope.ts";
import { PROTOBUF_CONTENT_TYPE, WatchFrameReader } from "../protobuf/envelope.ts";
import { kubeProtobuf } from "../protobuf/index.ts";

export const CLIENT_GO_ACCEPT = "application/vnd.kubernetes.protobuf, application/json";

export type JsonObject = Record<string, unknown>;

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A non-2xx answer, with the Status it carried (decoded from protobuf, or from JSON if the server sent JSON). */
export class KubeStatusError extends Error {
  readonly code: number;
  readonly contentType: string;
  readonly status: JsonObject;
  constructor(code: number, contentType: string, status: JsonObject) {
    super(`HTTP ${code}: ${String(status["reason"])}: ${String(status["message"])}`);
    this.name = "KubeStatusError";
    this.code = code;
    this.contentType = contentType;
    this.status = status;
  }
}

export interface WatchEvent {
  type: string;
  object: JsonObject;
}

export interface ProtobufWatch {
  /** The response's Content-Type. */
  readonly contentType: string;
  /** The next event (waits for it); undefined when the stream ended. */
  next(timeoutMs?: number): Promise<WatchEvent | undefined>;
  close(): void;
}

export interface RequestOptions {
  accept?: string;
  contentType?: string;
  /** Sent as is instead of encoding `body`. */
  rawBody?: Buffer | string;
}

export class ProtobufClient {
  readonly baseUrl: string;
  readonly pb: KubeProtobuf;
  private readonly userAgent = "kube-sim-protobuf-test/v0.0.0 (linux/amd64) kubernetes/none";

  constructor(baseUrl: string, pb: KubeProtobuf = kubeProtobuf()) {
    this.baseUrl = baseUrl;
    this.pb = pb;
  }

  /** One request; the body (a JSON object with apiVersion and kind) goes as a protobuf envelope. */
  raw(method: string, path: string, body?: JsonObject, opts: RequestOptions = {}): Promise<RawResponse> {
    const payload = opts.rawBody ?? (body === undefined ? undefined : this.pb.encode(body));
    const headers: Record<string, string> = { Accept: opts.accept ?? CLIENT_GO_ACCEPT, "User-Agent": this.userAgent };
    if (payload !== undefined) {
      headers["Content-Type"] = opts.contentType ?? PROTOBUF_CONTENT_TYPE;
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.baseUrl), { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** Decodes a response as client-go does: by its Content-Type (protobuf envelope or JSON). */
  decode(res: RawResponse): JsonObject {
    const type = (res.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
    if (type === PROTOBUF_CONTENT_TYPE) return this.pb.decode(res.body).object;
    return JSON.parse(res.body.toString("utf8")) as JsonObject;
  }

  /** The decoded object of a 2xx answer; a KubeStatusError otherwise. */
  async call(method: string, path: string, body?: JsonObject, opts: RequestOptions = {}): Promise<JsonObject> {
    const res = await this.raw(method, path, body, opts);
    const decoded = this.decode(res);
    if (res.status < 200 || res.status > 299) throw new KubeStatusError(res.status, res.headers["content-type"] ?? "", decoded);
    return decoded;
  }

  create(collectionPath: string, obj: JsonObject): Promise<JsonObject> {
    return this.call("POST", collectionPath, obj);
  }

  get(path: string): Promise<JsonObject> {
    return this.call("GET", path);
  }

  list(collectionPath: string): Promise<JsonObject> {
    return this.call("GET", collectionPath);
  }

  update(path: string, obj: JsonObject): Promise<JsonObject> {
    return this.call("PUT", path, obj);
  }

  /** PUT of the status subresource (client-go's UpdateStatus). */
  updateStatus(path: string, obj: JsonObject): Promise<JsonObject> {
    return this.call("PUT", `${path}/status`, obj);
  }

  /** DELETE with a DeleteOptions body of `apiVersion` (client-go sends its client's group version). */
  delete(path: string, options: JsonObject = {}, apiVersion = "v1"): Promise<JsonObject> {
    return this.call("DELETE", path, { apiVersion, kind: "DeleteOptions", ...options });
  }

  /** A watch (`?watch=true` is added): frames decoded as they arrive. */
  watch(collectionPath: string): Promise<ProtobufWatch> {
    const url = new URL(collectionPath, this.baseUrl);
    url.searchParams.set("watch", "true");
    const frames = new WatchFrameReader();
    const queue: WatchEvent[] = [];
    const waiters: ((e: WatchEvent | undefined) => void)[] = [];
    let ended = false;
    let failure: Error | undefined;
    const deliver = (e: WatchEvent | undefined) => {
      const waiter = waiters.shift();
      if (waiter !== undefined) waiter(e);
      else if (e !== undefined) queue.push(e);
    };
    return new Promise((resolve, reject) => {
      const req = request(url, { method: "GET", headers: { Accept: CLIENT_GO_ACCEPT, "User-Agent": this.userAgent } }, (res) => {
        const contentType = res.headers["content-type"] ?? "";
        if ((res.statusCode ?? 0) !== 200) {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => reject(new KubeStatusError(res.statusCode ?? 0, contentType, this.decode({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))));
          return;
        }
        res.on("data", (chunk: Buffer) => {
          try {
            for (const frame of frames.push(chunk)) {
              const event = this.pb.decodeWatchEvent(frame);
              deliver({ type: event.type, object: event.object.object });
            }
          } catch (err) {
            failure = err instanceof Error ? err : new Error(String(err));
            req.destroy();
          }
        });
        const end = () => {
          if (ended) return;
          ended = true;
          while (waiters.length > 0) deliver(undefined);
        };
        res.on("end", end);
        res.on("close", end);
        resolve({
          contentType,
          next: (timeoutMs = 5000) => {
            if (failure !== undefined) return Promise.reject(failure);
            const queued = queue.shift();
            if (queued !== undefined) return Promise.resolve(queued);
            if (ended) return Promise.resolve(undefined);
            return new Promise<WatchEvent | undefined>((res2, rej2) => {
              const timer = setTimeout(() => {
                const i = waiters.indexOf(waiter);
                if (i >= 0) waiters.splice(i, 1);
                rej2(new Error(`no watch event within ${timeoutMs} ms`));
              }, timeoutMs);
              const waiter = (e: WatchEvent | undefined) => {
                clearTimeout(timer);
                if (failure !== undefined) rej2(failure);
                else res2(e);
              };
              waiters.push(waiter);
            });
          },
          close: () => req.destroy(),
        });
      });
      req.on("error", (err) => {
        if (!ended) reject(err);
      });
      req.end();
    });
  }
}

/** A JSON request (what kubectl with `-o json` and client-node send). */
export async function jsonCall(baseUrl: string, method: string, path: string, body?: unknown): Promise<{ status: number; contentType: string; body: JsonObject }> {
  const init: RequestInit = { method, headers: { Accept: "application/json", "Content-Type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(new URL(path, baseUrl), init);
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", body: text === "" ? {} : (JSON.parse(text) as JsonObject) };
}
