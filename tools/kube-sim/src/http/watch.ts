// Watch streams: one JSON event per line (or, in protobuf, one length-prefixed WatchEvent frame) over a chunked
// response, with the apiserver's resourceVersion semantics, bookmarks, timeouts and the in-band 410 ERROR event.
import type { IncomingMessage, ServerResponse } from "node:http";
import { badRequest, internalError } from "../errors.ts";
import { PROTOBUF_WATCH_CONTENT_TYPE, kubeProtobuf } from "../protobuf/index.ts";
import type { Registry } from "../registry/registry.ts";
import type { WatchOptions } from "../registry/options.ts";
import { groupVersion, resourceKey, viewJson } from "../resources.ts";
import type { ResourceInfo } from "../resources.ts";
import type { EventType, StoredEntry } from "../store/store.ts";
import { ResourceVersionTooOldError } from "../store/store.ts";
import type { IncludeObject } from "../table/table.ts";
import { partialMetadata, toTable } from "../table/table.ts";
import type { KubeObject } from "../types.ts";
import type { Rendering } from "./negotiate.ts";
import { PARTIAL_CONTENT_TYPE, TABLE_CONTENT_TYPE } from "./negotiate.ts";

/**
 * Open watch streams, so faults and shutdown can end them, and the flush schedule they share.
 *
 * Fan-out delivers each event to every matching watcher within one write, so under a burst all of
 * them have unsent events at the same moments. One timer (or microtask) flushes every waiting watcher
 * together instead of one timer per watcher, and watchers whose unsent events are the same shared event
 * buffers (the common case: same resource and filter) share one concatenated chunk.
 */
export class WatchSet {
  private readonly closers = new Set<() => void>();
  /** Flushes due now (the first event after a quiet period) and those waiting for the shared timer. */
  private readonly dueNow = new Set<() => void>();
  private readonly dueLater = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private lastParts: readonly Buffer[] = [];
  private lastChunk: Buffer | undefined;
  private readonly beforeWrite: () => void;

  /** `beforeWrite` runs before any event is written (the data dir's sync: nothing unsaved reaches a client). */
  constructor(beforeWrite: () => void = () => undefined) {
    this.beforeWrite = beforeWrite;
  }

  /** Called before a stream writes events outside the shared flush (when it closes). */
  syncWrites(): void {
    this.beforeWrite();
  }

  /** Runs `flush` after `waitMs` (in a microtask when <= 0), together with the other watchers due then. */
  schedule(flush: () => void, waitMs: number): void {
    if (waitMs <= 0) {
      if (this.dueNow.size === 0) queueMicrotask(() => this.flushAll(this.dueNow));
      this.dueNow.add(flush);
      return;
    }
    // A watcher joining a pending timer leaves a little early or late (by less than one window); after
    // the flush all of them share one window again, so the schedule stays aligned.
    this.dueLater.add(flush);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushAll(this.dueLater);
    }, waitMs);
  }

  /** Drops a closed watcher's pending flush. */
  unschedule(flush: () => void): void {
    this.dueNow.delete(flush);
    this.dueLater.delete(flush);
  }

  /** `parts` as one buffer; consecutive watchers with the same parts get the same buffer, not a copy each. */
  concat(parts: readonly Buffer[]): Buffer {
    if (parts.length === 1 && parts[0] !== undefined) return parts[0];
    const last = this.lastParts;
    if (this.lastChunk !== undefined && last.length === parts.length && parts.every((p, i) => p === last[i])) return this.lastChunk;
    this.lastParts = parts;
    this.lastChunk = Buffer.concat(parts);
    return this.lastChunk;
  }

  private flushAll(set: Set<() => void>): void {
    const due = [...set];
    set.clear();
    this.beforeWrite();
    for (const flush of due) flush();
    this.lastParts = [];
    this.lastChunk = undefined;
  }

  add(close: () => void): () => void {
    this.closers.add(close);
    return () => {
      this.closers.delete(close);
    };
  }

  get size(): number {
    return this.closers.size;
  }

  closeAll(): void {
    for (const close of [...this.closers]) close();
  }
}

export interface WatchConfig {
  bookmarkIntervalMs: number;
  /** Server-chosen timeout when the client gives none (the apiserver picks 30-60 minutes). */
  defaultTimeoutSeconds: number;
  /** A watcher whose unsent bytes exceed this is closed, as the apiserver drops slow watchers. */
  maxBufferedBytes: number;
  /** Minimum spacing of a watcher's socket writes under a burst of events (0 = one write per event). */
  coalesceMs: number;
}

interface WatchRequest {
  req: IncomingMessage;
  res: ServerResponse;
  registry: Registry;
  info: ResourceInfo;
  namespace: string | undefined;
  opts: WatchOptions;
  rendering: Rendering;
  includeObject: IncludeObject;
  config: WatchConfig;
  watches: WatchSet;
  headers: Record<string, string>;
}

/**
 * The JSON line of one event, encoded once and shared by every watcher it is delivered to: fan-out
 * delivers an event to all watchers before the next event, so a one-slot memo is enough.
 */
let memo: { info: ResourceInfo; type: string; entry: StoredEntry; line: Buffer } | undefined;
function jsonEvent(info: ResourceInfo, type: string, entry: StoredEntry): Buffer {
  if (memo !== undefined && memo.entry === entry && memo.type === type && memo.info === info) return memo.line;
  const line = Buffer.from(`{"type":"${type}","object":${viewJson(info, entry.json)}}\n`);
  memo = { info, type, entry, line };
  return line;
}

/** The protobuf frame of one event, shared by every watcher it reaches (one-slot memo, as for JSON). */
let pbMemo: { info: ResourceInfo; type: string; entry: StoredEntry; frame: Buffer } | undefined;
function protobufEvent(info: ResourceInfo, type: string, entry: StoredEntry): Buffer {
  if (pbMemo !== undefined && pbMemo.entry === entry && pbMemo.type === type && pbMemo.info === info) return pbMemo.frame;
  const frame = kubeProtobuf().watchFrame(type, JSON.parse(viewJson(info, entry.json)) as Record<string, unknown>);
  pbMemo = { info, type, entry, frame };
  return frame;
}

/** An event that is not a stored object (BOOKMARK, ERROR) in the stream's encoding. */
function eventChunk(rendering: Rendering, type: string, object: Record<string, unknown>): string | Buffer {
  if (rendering === "protobuf") return kubeProtobuf().watchFrame(type, object);
  return `${JSON.stringify({ type, object })}\n`;
}

export function serveWatch(w: WatchRequest): void {
  const { registry, info, opts, res } = w;
  const store = registry.store;
  const key = resourceKey(info);
  const { matches } = registry.matcher(info, opts.labelSelector, opts.fieldSelector);
  let sinceRv: number | undefined;
  if (opts.resourceVersion !== "" && opts.resourceVersion !== "0") {
    if (!/^\d+$/.test(opts.resourceVersion)) throw badRequest(`resourceVersion: Invalid value: "${opts.resourceVersion}": must be a non-negative integer`);
    sinceRv = Number(opts.resourceVersion);
  }
  const ns = info.namespaced ? w.namespace : undefined;
  const contentType =
    w.rendering === "table" ? TABLE_CONTENT_TYPE : w.rendering === "partial" ? PARTIAL_CONTENT_TYPE : w.rendering === "protobuf" ? PROTOBUF_WATCH_CONTENT_TYPE : "application/json";
  res.writeHead(200, { ...w.headers, "Content-Type": contentType, "Cache-Control": "no-cache, private", "Transfer-Encoding": "chunked" });
  res.flushHeaders();

  let headersSent = false;
  const now = () => registry.now();
  const encode = (type: EventType | "BOOKMARK", entry: StoredEntry): string | Buffer => {
    if (w.rendering === "json") return jsonEvent(info, type, entry);
    if (w.rendering === "protobuf") return protobufEvent(info, type, entry);
    const json = viewJson(info, entry.json);
    const obj = JSON.parse(json) as KubeObject;
    if (w.rendering === "partial") return `${JSON.stringify({ type, object: partialMetadata(obj) })}\n`;
    const table = toTable(key, [obj], now(), { includeObject: w.includeObject, noHeaders: headersSent });
    headersSent = true;
    return `${JSON.stringify({ type, object: table })}\n`;
  };

  let closed = false;
  let cancel: (() => void) | undefined;
  const timers: NodeJS.Timeout[] = [];
  const close = () => {
    if (closed) return;
    closed = true;
    cancel?.();
    for (const t of timers) clearInterval(t);
    untrack();
    w.watches.unschedule(flush);
    if (pending.length > 0) {
      w.watches.syncWrites();
      res.write(Buffer.concat(pending));
    }
    pending = [];
    res.end();
  };
  const untrack = w.watches.add(close);
  // Coalescing: an event after a quiet period leaves at once; under a burst, a watcher's events leave
  // together at most every coalesceMs, so 100 watchers of a busy resource cost 100 writes per window
  // instead of 100 per event.
  let pending: Buffer[] = [];
  let lastFlushAt = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    lastFlushAt = performance.now();
    if (pending.length === 0 || closed) return;
    const chunks = pending;
    pending = [];
    // One HTTP chunk per flush, so one writev syscall. Not res.cork()/uncork(): ServerResponse.uncork
    // uncorks the socket first and then sends the length, every buffered chunk and the trailing CRLF
    // as separate socket writes, one syscall each.
    res.write(w.watches.concat(chunks));
    if (res.writableLength > w.config.maxBufferedBytes) close();
  };
  const write = (chunk: string | Buffer) => {
    if (closed) return;
    pending.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    if (scheduled) return;
    scheduled = true;
    w.watches.schedule(flush, lastFlushAt + w.config.coalesceMs - performance.now());
  };
  const bookmark = (annotations?: Record<string, string>) => {
    const metadata: Record<string, unknown> = { resourceVersion: String(store.currentRv) };
    if (annotations !== undefined) metadata["annotations"] = annotations;
    const object = w.rendering === "partial" ? { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata } : { kind: info.kind, apiVersion: groupVersion(info), metadata };
    write(eventChunk(w.rendering, "BOOKMARK", object));
  };

  w.req.on("close", close);
  res.on("close", close);

  const initial = sinceRv === undefined || opts.sendInitialEvents;
  try {
    if (initial) {
      const from = store.currentRv;
      for (const k of store.keys(key, ns)) {
        const entry = store.getByKey(key, k);
        if (entry !== undefined && matches(entry)) write(encode("ADDED", entry));
      }
      if (opts.sendInitialEvents && opts.allowWatchBookmarks) bookmark({ "k8s.io/initial-events-end": "true" });
      sinceRv = from;
    }
    cancel = store.watch(key, sinceRv ?? store.currentRv, { namespace: ns, matches }, (type, entry) => {
      let chunk: string | Buffer;
      try {
        chunk = encode(type, entry);
      } catch (err) {
        // An object the protobuf schema cannot carry: the stream ends with an ERROR event, the other watchers go on.
        write(eventChunk(w.rendering, "ERROR", internalError(`unable to encode watch object: ${err instanceof Error ? err.message : String(err)}`).status as unknown as Record<string, unknown>));
        queueMicrotask(close);
        return;
      }
      write(chunk);
    });
  } catch (err) {
    if (err instanceof ResourceVersionTooOldError) {
      write(eventChunk(w.rendering, "ERROR", { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: err.message, reason: "Expired", code: 410 }));
      close();
      return;
    }
    close();
    throw err;
  }
  if (opts.allowWatchBookmarks && w.config.bookmarkIntervalMs > 0) {
    timers.push(setInterval(() => bookmark(), w.config.bookmarkIntervalMs));
  }
  const timeoutSeconds = opts.timeoutSeconds ?? w.config.defaultTimeoutSeconds;
  if (timeoutSeconds > 0) timers.push(setTimeout(close, timeoutSeconds * 1000));
}
