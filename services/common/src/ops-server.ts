// The operations endpoints every service serves: /healthz (liveness: the event loop answers), /readyz (readiness:
// every named check passes, e.g. "nats connected", "caches synced"), /metrics (Prometheus text format).
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { BindAddress } from "./address.ts";

export type ReadinessCheck = () => boolean | string;

export interface OpsServerOptions {
  readonly bind: BindAddress;
  readonly registry: Registry;
  /** Named readiness checks; a check returns true when ready, or false / a reason string when not. */
  readonly readiness: ReadonlyMap<string, ReadinessCheck>;
  /** Which endpoints this listener serves (metrics and probes can be split across two listeners). */
  readonly serve: { readonly metrics: boolean; readonly probes: boolean };
}

export interface OpsServer {
  readonly url: string;
  close(): Promise<void>;
}

function evaluate(readiness: ReadonlyMap<string, ReadinessCheck>): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  let ok = true;
  for (const [name, check] of readiness) {
    let result: boolean | string;
    try {
      result = check();
    } catch (error) {
      result = error instanceof Error ? error.message : String(error);
    }
    if (result === true) {
      lines.push(`[+]${name} ok`);
    } else {
      ok = false;
      lines.push(`[-]${name} failed${typeof result === "string" ? `: ${result}` : ""}`);
    }
  }
  return { ok, lines };
}

export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    const verbose = (request.url ?? "").includes("verbose");
    if (options.serve.probes && (path === "/healthz" || path === "/livez")) {
      response.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    if (options.serve.probes && path === "/readyz") {
      const { ok, lines } = evaluate(options.readiness);
      const body = verbose || !ok ? `${lines.join("\n")}\nreadyz check ${ok ? "passed" : "failed"}\n` : "ok";
      response.writeHead(ok ? 200 : 503, { "content-type": "text/plain" }).end(body);
      return;
    }
    if (options.serve.metrics && path === "/metrics") {
      options.registry
        .metrics()
        .then((text) => response.writeHead(200, { "content-type": options.registry.contentType }).end(text))
        .catch((error: unknown) => response.writeHead(500).end(String(error)));
      return;
    }
    response.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.bind.port, options.bind.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface OpsEndpoints {
  /** `<url>/metrics`, when metrics are enabled. */
  readonly metricsUrl: string | undefined;
  /** Base URL of /healthz and /readyz, when probes are enabled. */
  readonly probesUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * Starts the listeners for `--metrics-bind-address` and `--health-probe-bind-address` (one listener when both name
 * the same fixed address; none for "0").
 */
export async function startOpsEndpoints(options: {
  readonly metricsBind: BindAddress | undefined;
  readonly probesBind: BindAddress | undefined;
  readonly registry: Registry;
  readonly readiness: ReadonlyMap<string, ReadinessCheck>;
}): Promise<OpsEndpoints> {
  const { metricsBind, probesBind, registry, readiness } = options;
  const shared =
    metricsBind !== undefined &&
    probesBind !== undefined &&
    metricsBind.port !== 0 &&
    metricsBind.host === probesBind.host &&
    metricsBind.port === probesBind.port;
  const servers: OpsServer[] = [];
  let metricsUrl: string | undefined;
  let probesUrl: string | undefined;
  try {
    if (metricsBind) {
      const server = await startOpsServer({ bind: metricsBind, registry, readiness, serve: { metrics: true, probes: shared } });
      servers.push(server);
      metricsUrl = `${server.url}/metrics`;
      if (shared) probesUrl = server.url;
    }
    if (probesBind && !shared) {
      const server = await startOpsServer({ bind: probesBind, registry, readiness, serve: { metrics: false, probes: true } });
      servers.push(server);
      probesUrl = server.url;
    }
  } catch (error) {
    await Promise.all(servers.map((server) => server.close()));
    throw error;
  }
  return { metricsUrl, probesUrl, close: async () => void (await Promise.all(servers.map((server) => server.close()))) };
}
