// The JSON client against a loopback HTTP server that answers like kube-apiserver (the simulator has its own
// client-node tests; this checks our request shaping and error mapping).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { KubeApiError, KubeClient, RESOURCES, UserAgentKubeConfig, WriteFencedError, resourcePath } from "./kube.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe("KubeClient", () => {
  const seen: Seen[] = [];
  let url = "";
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      if (request.url?.includes("conflict")) {
        response.writeHead(409, { "content-type": "application/json" }).end(
          JSON.stringify({
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            message: 'Operation cannot be fulfilled on pods "conflict": the object has been modified',
            reason: "Conflict",
            code: 409,
          }),
        );
      } else if (request.url?.includes("busy")) {
        response.writeHead(429, { "retry-after": "2", "content-type": "application/json" }).end(
          JSON.stringify({ kind: "Status", status: "Failure", reason: "TooManyRequests", code: 429 }),
        );
      } else {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, at: "2026-01-01T00:00:00Z" }));
      }
    });
  });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function client(): KubeClient {
    const kubeConfig = new UserAgentKubeConfig();
    kubeConfig.loadFromClusterAndUser({ name: "sim", server: url, skipTLSVerify: true }, { name: "u" });
    kubeConfig.userAgent = "stsfleet-actor/0.1.0 (actor-0)";
    return new KubeClient(kubeConfig, { requestTimeoutMs: 2000 });
  }

  // The soak's one single-writer violation: an actor paused (SIGSTOP) with a create already handed to the HTTP client
  // sent it on resume, after the lease had lapsed and a new owner had written. The check must run when the bytes go
  // out, not when the call is made.
  it("asks mayWrite when the request is about to be written, and sends nothing when it says no", async () => {
    const kube = client();
    const before = seen.length;
    let allowed = true;
    const call = kube.create({ ...RESOURCES.pods, namespace: "ns" }, { metadata: { name: "fenced" } }, { mayWrite: () => allowed });
    allowed = false; // the lease lapses after the call but before the request reaches the socket
    await assert.rejects(call, (error: unknown) => error instanceof WriteFencedError && error.verb === "create");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(seen.length, before, "the server received nothing");

    allowed = true;
    const created = await kube.create<{ ok: boolean }>({ ...RESOURCES.pods, namespace: "ns" }, { metadata: { name: "allowed" } }, { mayWrite: () => allowed });
    assert.equal(created.ok, true);
    assert.equal(seen.at(-1)?.method, "POST");
  });

  it("builds API paths for core and named groups", () => {
    assert.equal(resourcePath({ ...RESOURCES.pods, namespace: "ns", name: "web-0" }), "/api/v1/namespaces/ns/pods/web-0");
    assert.equal(
      resourcePath({ ...RESOURCES.statefulsets, namespace: "ns", name: "web", subresource: "status" }),
      "/apis/apps/v1/namespaces/ns/statefulsets/web/status",
    );
    assert.equal(resourcePath(RESOURCES.pods), "/api/v1/pods");
  });

  it("sends our User-Agent, query and JSON, and returns raw JSON (timestamps stay strings)", async () => {
    const result = await client().list<{ at: string }>({ ...RESOURCES.pods, namespace: "ns" }, { labelSelector: "app=web", limit: 5 });
    assert.equal(result.at, "2026-01-01T00:00:00Z");
    const request = seen.at(-1);
    assert.equal(request?.headers["user-agent"], "stsfleet-actor/0.1.0 (actor-0)");
    assert.equal(request?.url, "/api/v1/namespaces/ns/pods?labelSelector=app%3Dweb&limit=5");
  });

  it("sends delete preconditions and patch content types", async () => {
    await client().delete({ ...RESOURCES.pods, namespace: "ns", name: "web-0" }, { preconditions: { uid: "u1", resourceVersion: "7" } });
    assert.deepEqual(JSON.parse(seen.at(-1)?.body ?? "{}"), {
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions: { uid: "u1", resourceVersion: "7" },
    });
    await client().patch({ ...RESOURCES.pods, namespace: "ns", name: "web-0" }, { metadata: { labels: { a: "b" } } }, "merge");
    assert.equal(seen.at(-1)?.headers["content-type"], "application/merge-patch+json");
  });

  it("sends per-request headers (the fencing epoch) but never lets them replace our own", async () => {
    await client().create({ ...RESOURCES.pods, namespace: "ns" }, {}, { headers: { "X-Stsfleet-Epoch": "7/42/actor-0", "User-Agent": "spoofed" } });
    assert.equal(seen.at(-1)?.headers["x-stsfleet-epoch"], "7/42/actor-0");
    assert.equal(seen.at(-1)?.headers["user-agent"], "stsfleet-actor/0.1.0 (actor-0)");
    await client().delete({ ...RESOURCES.pods, namespace: "ns", name: "web-0" }, { headers: { "X-Stsfleet-Epoch": "7/43/actor-1" } });
    assert.equal(seen.at(-1)?.headers["x-stsfleet-epoch"], "7/43/actor-1");
  });

  it("maps API errors to KubeApiError with reason and Retry-After", async () => {
    await assert.rejects(
      client().replace({ ...RESOURCES.pods, namespace: "ns", name: "conflict" }, {}),
      (error) => error instanceof KubeApiError && error.isConflict && !error.isTransient && error.status === 409,
    );
    await assert.rejects(
      client().get({ ...RESOURCES.pods, namespace: "ns", name: "busy" }),
      (error) => error instanceof KubeApiError && error.isTransient && error.retryAfterMs === 2000,
    );
  });

  it("reports transport failures as status 0, transient", async () => {
    const kubeConfig = new UserAgentKubeConfig();
    kubeConfig.loadFromClusterAndUser({ name: "dead", server: "http://127.0.0.1:1", skipTLSVerify: true }, { name: "u" });
    const dead = new KubeClient(kubeConfig, { requestTimeoutMs: 500 });
    await assert.rejects(
      dead.get({ ...RESOURCES.pods, namespace: "ns", name: "x" }),
      (error) => error instanceof KubeApiError && error.status === 0 && error.isTransient,
    );
  });
});
