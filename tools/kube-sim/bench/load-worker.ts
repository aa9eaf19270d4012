// The clients of bench.ts, each in its own process so client work never shares the server's event loop
// or heap (the server is the bench process): an open-loop mix of get/list/create/update over keep-alive
// HTTP/1.1, or long-lived watchers. bench.ts forks this file and sends it a LoadConfig over IPC.
import { connect } from "node:net";
import type { Socket } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { PROTOBUF_CONTENT_TYPE, kubeProtobuf } from "../src/protobuf/index.ts";

export interface LoadConfig {
  url: string;
  rps: number;
  durationMs: number;
  watchers: number;
  namespace: string;
  /** Lists go to a random one of `load-0` .. `load-<listNamespaces-1>`, selecting one set's pods by label. */
  listNamespaces: number;
  /** Pods of a namespace carry `app: set-<k>` for k below this. */
  setsPerNamespace: number;
  /** Prefix of created ConfigMap names, so repeated runs against one server do not collide. */
  namePrefix: string;
  /**
   * Share (0..1) of requests, and of watchers, that speak protobuf as client-go does (bodies in protobuf, Accept
   * protobuf then JSON); the others speak JSON.
   */
  protobufShare: number;
}

const JSON_HEADERS = "Accept: application/json\r\nContent-Type: application/json";
const PROTOBUF_HEADERS = `Accept: ${PROTOBUF_CONTENT_TYPE}, application/json\r\nContent-Type: ${PROTOBUF_CONTENT_TYPE}`;

/** A client's view of an object: its body in the client's encoding, and back. */
interface Encoding {
  readonly headers: string;
  encode(value: Record<string, unknown>): Buffer;
  decode(body: Buffer): Record<string, unknown>;
}

const JSON_ENCODING: Encoding = {
  headers: JSON_HEADERS,
  encode: (value) => Buffer.from(JSON.stringify(value)),
  decode: (body) => JSON.parse(body.toString("utf8")) as Record<string, unknown>,
};

const PROTOBUF_ENCODING: Encoding = {
  headers: PROTOBUF_HEADERS,
  encode: (value) => Buffer.from(kubeProtobuf().encode(value)),
  decode: (body) => kubeProtobuf().decode(body).object,
};

export interface LoadResult {
  latenciesMs: Record<"get" | "list" | "create" | "update", number[]>;
  /** All latencies by the second of the run their request was due in: whether a run's tail is its start (a cold server) or spread out. */
  latenciesBySecondMs: number[][];
  errors: number;
  conflicts: number;
  sent: number;
  elapsedMs: number;
  /** How late requests left against the open-loop schedule: a lagging client would hide server latency. */
  issueLagMs: { p50: number; p99: number; max: number };
  /** CPU time of this client process during its run. */
  cpuMs: number;
  watchEvents: number;
  watchBytes: number;
}

/** Messages from bench.ts: the config to run, then (for watchers) when to stop and report. */
export type ClientCommand = { kind: "run"; config: LoadConfig } | { kind: "stop" };
/** Messages to bench.ts. */
export type ClientReport = { kind: "ready" } | { kind: "result"; result: LoadResult } | { kind: "error"; error: string };

function report(msg: ClientReport, then?: () => void): void {
  process.send?.(msg, undefined, {}, () => then?.());
}

/**
 * A minimal HTTP/1.1 keep-alive client: one request at a time per connection, up to `maxConnections`,
 * requests queue when all are busy. node:http's client costs as much CPU per request as the server
 * does, and on a 2-core machine a load generator that busy takes the CPU the server is measured on.
 */
class KeepAlivePool {
  private readonly idle: Connection[] = [];
  private readonly queue: { head: string; body: Buffer; resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  private open = 0;
  private readonly target: URL;
  private readonly maxConnections: number;

  constructor(target: URL, maxConnections: number) {
    this.target = target;
    this.maxConnections = maxConnections;
  }

  /** Opens every connection the pool may use and waits until the server has answered a request on each. */
  async openAll(): Promise<void> {
    await Promise.all(Array.from({ length: this.maxConnections }, () => this.send("GET", "/readyz")));
  }

  send(method: string, path: string, body: Buffer = Buffer.alloc(0), headers = JSON_HEADERS): Promise<Reply> {
    const head = `${method} ${path} HTTP/1.1\r\nHost: ${this.target.host}\r\nUser-Agent: kube-sim-bench/1.0\r\n${headers}\r\nContent-Length: ${body.length}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.queue.push({ head, body, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let conn = this.idle.pop();
      while (conn?.closed === true) conn = this.idle.pop();
      if (conn === undefined) {
        if (this.open >= this.maxConnections) return;
        this.open++;
        conn = new Connection(connect({ host: this.target.hostname, port: Number(this.target.port) }), () => {
          this.open--;
          this.pump();
        });
      }
      const job = this.queue.shift();
      if (job === undefined) {
        this.idle.push(conn);
        return;
      }
      const c = conn;
      c.request(Buffer.concat([Buffer.from(job.head, "latin1"), job.body])).then(
        (reply) => {
          this.idle.push(c);
          job.resolve(reply);
          this.pump();
        },
        (err: unknown) => job.reject(err instanceof Error ? err : new Error(String(err))),
      );
    }
  }

  close(): void {
    for (const c of this.idle) c.close();
  }
}

interface Reply {
  status: number;
  body: Buffer;
}

/** One keep-alive connection; responses are framed by Content-Length or chunked encoding. */
class Connection {
  private readonly socket: Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | undefined;
  closed = false;

  constructor(socket: Socket, onClose: () => void) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    const fail = (err: Error) => {
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(err);
    };
    socket.on("error", fail);
    socket.on("close", () => {
      this.closed = true;
      fail(new Error("connection closed"));
      onClose();
    });
  }

  request(bytes: Buffer): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    const headEnd = this.buffer.indexOf("\r\n\r\n");
    if (headEnd < 0 || this.waiting === undefined) return;
    const head = this.buffer.toString("latin1", 0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let body: Buffer;
    let consumed: number;
    if (length !== null) {
      consumed = headEnd + 4 + Number(length[1]);
      if (this.buffer.length < consumed) return;
      body = Buffer.from(this.buffer.subarray(headEnd + 4, consumed));
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const parts: Buffer[] = [];
      let at = headEnd + 4;
      for (;;) {
        const lineEnd = this.buffer.indexOf("\r\n", at);
        if (lineEnd < 0) return;
        const size = parseInt(this.buffer.toString("latin1", at, lineEnd), 16);
        if (this.buffer.length < lineEnd + 2 + size + 2) return;
        if (size === 0) {
          consumed = lineEnd + 4;
          break;
        }
        parts.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      this.waiting.reject(new Error(`response without Content-Length or chunked encoding: ${head.split("\r\n")[0] ?? ""}`));
      this.waiting = undefined;
      this.socket.destroy();
      return;
    }
    this.buffer = this.buffer.subarray(consumed);
    const w = this.waiting;
    this.waiting = undefined;
    w.resolve({ status, body });
  }
}

function emptyResult(): LoadResult {
  return {
    latenciesMs: { get: [], list: [], create: [], update: [] },
    latenciesBySecondMs: [],
    errors: 0,
    conflicts: 0,
    sent: 0,
    elapsedMs: 0,
    issueLagMs: { p50: 0, p99: 0, max: 0 },
    cpuMs: 0,
    watchEvents: 0,
    watchBytes: 0,
  };
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/** Opens the watchers (raw keep-alive sockets, like the request pool) and counts the events they receive until bench.ts says stop. */
async function watch(cfg: LoadConfig): Promise<LoadResult> {
  const target = new URL(cfg.url);
  const result = emptyResult();
  const jsonMarkers = [Buffer.from('{"type":"')];
  // A protobuf watch frame is a WatchEvent whose field 1 is the event type: tag 0x0a, length, name.
  const protobufMarkers = ["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"].map((type) => Buffer.concat([Buffer.from([0x0a, type.length]), Buffer.from(type)]));
  const sockets: Socket[] = [];
  const protobufWatchers = Math.round(cfg.watchers * cfg.protobufShare);
  await Promise.all(
    Array.from(
      { length: cfg.watchers },
      (_, index) =>
        new Promise<void>((resolve) => {
          const protobuf = index < protobufWatchers;
          const markers = protobuf ? protobufMarkers : jsonMarkers;
          const longest = Math.max(...markers.map((m) => m.length));
          const socket = connect({ host: target.hostname, port: Number(target.port) });
          sockets.push(socket);
          // Events are counted by their opening bytes; the tail of a chunk is kept so a marker split
          // across two reads is still counted once.
          let carry: Buffer = Buffer.alloc(0);
          let started = false;
          socket.on("data", (chunk: Buffer) => {
            if (!started) {
              started = true;
              resolve();
            }
            result.watchBytes += chunk.length;
            const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
            for (const marker of markers) {
              for (let i = data.indexOf(marker); i >= 0; i = data.indexOf(marker, i + marker.length)) result.watchEvents++;
            }
            carry = data.subarray(Math.max(0, data.length - longest + 1));
          });
          socket.on("error", () => resolve());
          socket.write(`GET /api/v1/namespaces/${cfg.namespace}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=0 HTTP/1.1\r\nHost: ${target.host}\r\nUser-Agent: kube-sim-bench/1.0\r\nAccept: ${protobuf ? `${PROTOBUF_CONTENT_TYPE}, application/json` : "application/json"}\r\n\r\n`);
        }),
    ),
  );
  const cpu = process.cpuUsage();
  const start = performance.now();
  report({ kind: "ready" });
  await new Promise<void>((resolve) => process.once("message", () => resolve()));
  result.elapsedMs = performance.now() - start;
  result.cpuMs = cpuMsSince(cpu);
  for (const socket of sockets) socket.destroy();
  return result;
}

/** The open-loop request mix at cfg.rps for cfg.durationMs. */
async function load(cfg: LoadConfig): Promise<LoadResult> {
  const pool = new KeepAlivePool(new URL(cfg.url), 64);
  const result = emptyResult();
  const known: { name: string; obj: Record<string, unknown> }[] = [];
  let counter = 0;
  const inflight = new Set<Promise<void>>();
  const one = async (): Promise<void> => {
    const r = Math.random();
    const encoding = Math.random() < cfg.protobufShare ? PROTOBUF_ENCODING : JSON_ENCODING;
    const send = (method: string, path: string, body?: Record<string, unknown>) => pool.send(method, path, body === undefined ? undefined : encoding.encode(body), encoding.headers);
    const t0 = performance.now();
    let kind: keyof LoadResult["latenciesMs"];
    let res: Reply;
    if (r < 0.2 || known.length === 0) {
      kind = "create";
      const name = `${cfg.namePrefix}${counter++}`;
      res = await send("POST", `/api/v1/namespaces/${cfg.namespace}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { bench: "true" } }, data: { v: "0" } });
      if (res.status === 201) known.push({ name, obj: encoding.decode(res.body) });
    } else if (r < 0.6) {
      kind = "get";
      const pick = known[Math.floor(Math.random() * known.length)];
      res = await send("GET", `/api/v1/namespaces/${cfg.namespace}/configmaps/${pick?.name ?? "x"}`);
    } else if (r < 0.8) {
      kind = "list";
      // What a controller lists: one workload's pods in one namespace by label selector, paginated
      // with client-go's default page size (the response holds one set's pods, not a namespace).
      const namespace = `load-${Math.floor(Math.random() * cfg.listNamespaces)}`;
      const set = `set-${Math.floor(Math.random() * cfg.setsPerNamespace)}`;
      res = await send("GET", `/api/v1/namespaces/${namespace}/pods?labelSelector=app%3D${set}&limit=500`);
    } else {
      kind = "update";
      const pick = known[Math.floor(Math.random() * known.length)];
      if (pick === undefined) return;
      const obj = { ...pick.obj, data: { v: String(counter++) } };
      res = await send("PUT", `/api/v1/namespaces/${cfg.namespace}/configmaps/${pick.name}`, obj);
      if (res.status === 200) pick.obj = encoding.decode(res.body);
    }
    const latencyMs = performance.now() - t0;
    result.latenciesMs[kind].push(latencyMs);
    (result.latenciesBySecondMs[Math.floor((t0 - start) / 1000)] ??= []).push(latencyMs);
    if (res.status === 409) result.conflicts++;
    else if (res.status >= 400) result.errors++;
  };
  // The clock starts on a client that is ready, as a long-running client-go program is, and as the watchers are:
  // its protobuf codec is built (building it on the first protobuf request stalled this process for 50-80 ms inside
  // the measured second) and its connections are open. Opened on demand, the first second's ramp (and the burst
  // after a stall) asked for tens of connections at once, and the server accepts one per event-loop turn (Node's
  // libuv does), so on a busy first second the last of them waited 150-650 ms before the server read its request.
  // Both were this process starting, measured as server latency; the README's Performance section keeps the accept
  // behaviour as a property of the simulator.
  if (cfg.protobufShare > 0) kubeProtobuf();
  await pool.openAll();
  const lag = monitorEventLoopDelay({ resolution: 5 });
  const lateness: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  lag.enable();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = performance.now() - start;
      if (elapsed >= cfg.durationMs) {
        resolve();
        return;
      }
      const due = Math.floor((elapsed / 1000) * cfg.rps);
      while (result.sent < due) {
        lateness.push(elapsed - (result.sent * 1000) / cfg.rps);
        result.sent++;
        const p: Promise<void> = one().catch(() => {
          result.errors++;
        });
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
      setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(inflight);
  lag.disable();
  result.elapsedMs = performance.now() - start;
  result.cpuMs = cpuMsSince(cpu);
  lateness.sort((a, b) => a - b);
  const at = (p: number) => lateness[Math.min(lateness.length - 1, Math.floor(p * lateness.length))] ?? 0;
  result.issueLagMs = { p50: at(0.5), p99: at(0.99), max: lateness[lateness.length - 1] ?? 0 };
  pool.close();
  return result;
}

process.once("message", (msg: ClientCommand) => {
  if (msg.kind !== "run") return;
  const run = msg.config.watchers > 0 ? watch(msg.config) : load(msg.config);
  // The last report ends the process; bench.ts waits for it instead of killing the client.
  run.then(
    (result) => report({ kind: "result", result }, () => process.exit(0)),
    (err: unknown) => report({ kind: "error", error: String(err) }, () => process.exit(1)),
  );
});
