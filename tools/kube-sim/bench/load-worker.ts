// The load generator of bench.ts, in its own thread so client work does not share the server's event
// loop: an open-loop mix of get/list/create/update over keep-alive HTTP, plus long-lived watchers.
import { Agent, request } from "node:http";
import { parentPort, workerData } from "node:worker_threads";

export interface LoadConfig {
  url: string;
  rps: number;
  durationMs: number;
  watchers: number;
  namespace: string;
  listNamespace: string;
}

export interface LoadResult {
  latenciesMs: Record<"get" | "list" | "create" | "update", number[]>;
  errors: number;
  conflicts: number;
  sent: number;
  elapsedMs: number;
  watchEvents: number;
  watchBytes: number;
}

const cfg = workerData as LoadConfig;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const target = new URL(cfg.url);

function send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, method, path, agent, headers: { "Content-Type": "application/json", "User-Agent": "kube-sim-bench/1.0", ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let watchEvents = 0;
let watchBytes = 0;
const watchRequests: ReturnType<typeof request>[] = [];
function openWatchers(): Promise<void> {
  const watchAgent = new Agent({ keepAlive: false });
  const started: Promise<void>[] = [];
  for (let i = 0; i < cfg.watchers; i++) {
    started.push(
      new Promise((resolve) => {
        const req = request({ host: target.hostname, port: target.port, path: `/api/v1/namespaces/${cfg.namespace}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=0`, agent: watchAgent }, (res) => {
          res.on("data", (c: Buffer) => {
            watchBytes += c.length;
            for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) watchEvents++;
          });
          resolve();
        });
        req.on("error", () => resolve());
        req.end();
        watchRequests.push(req);
      }),
    );
  }
  return Promise.all(started).then(() => undefined);
}

async function run(): Promise<LoadResult> {
  await openWatchers();
  const result: LoadResult = { latenciesMs: { get: [], list: [], create: [], update: [] }, errors: 0, conflicts: 0, sent: 0, elapsedMs: 0, watchEvents: 0, watchBytes: 0 };
  const known: { name: string; obj: Record<string, unknown> }[] = [];
  let counter = 0;
  const inflight = new Set<Promise<void>>();
  const one = async (): Promise<void> => {
    const r = Math.random();
    const t0 = performance.now();
    let kind: keyof LoadResult["latenciesMs"];
    let res: { status: number; body: string };
    if (r < 0.2 || known.length === 0) {
      kind = "create";
      const name = `cm-${counter++}`;
      res = await send("POST", `/api/v1/namespaces/${cfg.namespace}/configmaps`, JSON.stringify({ metadata: { name, labels: { bench: "true" } }, data: { v: "0" } }));
      if (res.status === 201) known.push({ name, obj: JSON.parse(res.body) as Record<string, unknown> });
    } else if (r < 0.6) {
      kind = "get";
      const pick = known[Math.floor(Math.random() * known.length)];
      res = await send("GET", `/api/v1/namespaces/${cfg.namespace}/configmaps/${pick?.name ?? "x"}`);
    } else if (r < 0.8) {
      kind = "list";
      res = await send("GET", `/api/v1/namespaces/${cfg.listNamespace}/pods?limit=50`);
    } else {
      kind = "update";
      const pick = known[Math.floor(Math.random() * known.length)];
      if (pick === undefined) return;
      const obj = { ...pick.obj, data: { v: String(counter++) } };
      res = await send("PUT", `/api/v1/namespaces/${cfg.namespace}/configmaps/${pick.name}`, JSON.stringify(obj));
      if (res.status === 200) pick.obj = JSON.parse(res.body) as Record<string, unknown>;
    }
    const dt = performance.now() - t0;
    result.latenciesMs[kind].push(dt);
    if (res.status === 409) result.conflicts++;
    else if (res.status >= 400) result.errors++;
  };
  const start = performance.now();
  if (cfg.rps <= 0) await new Promise((r) => setTimeout(r, cfg.durationMs));
  else await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = performance.now() - start;
      if (elapsed >= cfg.durationMs) {
        resolve();
        return;
      }
      const due = Math.floor((elapsed / 1000) * cfg.rps);
      while (result.sent < due) {
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
  result.elapsedMs = performance.now() - start;
  result.watchEvents = watchEvents;
  result.watchBytes = watchBytes;
  for (const req of watchRequests) req.destroy();
  agent.destroy();
  return result;
}

run().then(
  (r) => parentPort?.postMessage(r),
  (err: unknown) => parentPort?.postMessage({ error: String(err) }),
);
