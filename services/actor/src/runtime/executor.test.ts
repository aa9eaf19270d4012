// Every Kubernetes request the executor makes for a turn carries the turn's fencing token in X-Stsfleet-Epoch
// (`<shard>/<epoch>/<member>`), so the simulator's audit log can show which owner wrote what (ADR 0074).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { NatsConnection } from "@nats-io/transport-node";
import { KubeClient, UserAgentKubeConfig, WriteFencedError } from "../../../common/src/kube.ts";
import { createLogger } from "../../../common/src/logger.ts";
import type { PlanAction, PlanStep } from "../planner/index.ts";
import { Executor } from "./executor.ts";
import type { TurnContext } from "./executor.ts";

describe("Executor: the epoch on every Kubernetes request", () => {
  const seen: { method: string; url: string; epoch: string | undefined }[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const epoch = request.headers["x-stsfleet-epoch"];
      seen.push({ method: request.method ?? "", url: request.url ?? "", epoch: typeof epoch === "string" ? epoch : undefined });
      response.writeHead(request.method === "POST" ? 201 : 200, { "content-type": "application/json" });
      response.end(JSON.stringify({ metadata: { uid: "set-uid" } }));
    });
  });
  let url = "";
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("sends <shard>/<epoch>/<member> on creates, updates, patches and deletes", async () => {
    const kubeConfig = new UserAgentKubeConfig();
    kubeConfig.loadFromClusterAndUser({ name: "sim", server: url, skipTLSVerify: true }, { name: "u" });
    const executor = new Executor({
      kube: new KubeClient(kubeConfig, { requestTimeoutMs: 2_000 }),
      nats: { publish: () => undefined } as unknown as NatsConnection,
      commands: { publish: () => Promise.reject(new Error("no claim commands in this test")) },
      member: "actor-2",
      lookup: () => undefined,
      waitFor: () => Promise.resolve(true),
      claimWaitTimeoutMs: 1_000,
      logger: createLogger({ service: "test", instance: "t", level: "silent", format: "json" }),
    });
    const events = { onSuccess: [], onFailure: [] };
    const preconditions = { uid: "u", resourceVersion: "1" };
    const actions: PlanAction[] = [
      { type: "createRevision", name: "web-abc", revision: 1, raw: "{}", object: {}, bodyJson: '{"data":{}}' },
      { type: "updateRevision", name: "web-abc", preconditions, fromRevision: 1, patch: { revision: 2 } } as unknown as PlanAction,
      { type: "deleteRevision", name: "web-old", preconditions } as unknown as PlanAction,
      { type: "adoptPod", name: "web-0", uid: "p", ownerReference: { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "s" }, patch: {} },
      { type: "createPod", name: "web-1", ordinal: 1, revisionName: "web-abc", object: { metadata: { name: "web-1" } }, events },
      { type: "updatePod", name: "web-0", preconditions, object: { metadata: { name: "web-0" } }, events } as unknown as PlanAction,
      { type: "deletePod", name: "web-2", ordinal: 2, reason: "condemned", preconditions, ignoreNotFound: false, events },
    ];
    const step: PlanStep = { phase: "pods", blocking: false, actions };
    const ctx: TurnContext = {
      address: { shard: 17, namespace: "ns", name: "web" },
      set: { namespace: "ns", name: "web", uid: "s" },
      epoch: 4242,
      turn: 1,
      signal: new AbortController().signal,
      mayWrite: () => true,
    };
    const result = await executor.executeStep(step, ctx);
    assert.deepEqual(result.errors, []);
    assert.equal(seen.length, actions.length);
    for (const request of seen) assert.equal(request.epoch, "17/4242/actor-2", `${request.method} ${request.url}`);

    // The same step once the member may no longer write (its lease lapsed during a pause): nothing is sent.
    const sentBefore = seen.length;
    const fenced = await executor.executeStep(step, { ...ctx, mayWrite: () => false });
    assert.equal(fenced.ok, false);
    assert.ok(fenced.errors.length > 0 && fenced.errors.every((error) => error instanceof WriteFencedError), String(fenced.errors[0]));
    assert.equal(seen.length, sentBefore, "no request reached the server");
  });
});
