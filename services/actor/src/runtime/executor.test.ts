// Every Kubernetes request the executor makes for a turn carries the turn's fencing token in X-Stsfleet-Epoch
// (`<shard>/<epoch>/<member>`), so the simulator's audit log can show which owner wrote what (ADR 0074).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { NatsConnection } from "@nats-io/transport-node";
import { codecs } from "#protocol";
import { KubeClient, UserAgentKubeConfig, WriteFencedError } from "../../../common/src/kube.ts";
import { createLogger } from "../../../common/src/logger.ts";
import type { PlanAction, PlanStep } from "../planner/index.ts";
import { Executor } from "./executor.ts";
import type { TurnContext } from "./executor.ts";

/**
 * A stand-in API server for one describe block: answers every request with `answer` once its body is read. Returns a
 * KubeClient for it (ready inside the tests).
 */
function useApiServer(answer: (request: IncomingMessage, response: ServerResponse) => void): { client: () => KubeClient } {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => answer(request, response));
  });
  let url = "";
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    client: () => {
      const kubeConfig = new UserAgentKubeConfig();
      kubeConfig.loadFromClusterAndUser({ name: "sim", server: url, skipTLSVerify: true }, { name: "u" });
      return new KubeClient(kubeConfig, { requestTimeoutMs: 2_000 });
    },
  };
}

/** A turn of set ns/web on shard 17 at epoch 4242 that may write. */
function turnContext(): TurnContext {
  return {
    address: { shard: 17, namespace: "ns", name: "web" },
    set: { namespace: "ns", name: "web", uid: "s" },
    epoch: 4242,
    turn: 1,
    signal: new AbortController().signal,
    mayWrite: () => true,
  };
}

describe("Executor: the epoch on every Kubernetes request", () => {
  const seen: { method: string; url: string; epoch: string | undefined }[] = [];
  const api = useApiServer((request, response) => {
    const epoch = request.headers["x-stsfleet-epoch"];
    seen.push({ method: request.method ?? "", url: request.url ?? "", epoch: typeof epoch === "string" ? epoch : undefined });
    response.writeHead(request.method === "POST" ? 201 : 200, { "content-type": "application/json" });
    response.end(JSON.stringify({ metadata: { uid: "set-uid" } }));
  });

  it("sends <shard>/<epoch>/<member> on creates, updates, patches and deletes", async () => {
    const executor = new Executor({
      kube: api.client(),
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
    const ctx = turnContext();
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

describe("Executor: a write from a stale copy asks for the newest version (ADR 0090)", () => {
  // Every write answers 409 Conflict, as the API server does for a precondition on an older resourceVersion.
  const api = useApiServer((_request, response) => {
    response.writeHead(409, { "content-type": "application/json" });
    response.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Conflict", code: 409, message: "the object has been modified" }));
  });

  it("a conflicting pod delete or replace reports the pod's copy stale; a conflicting create reports nothing; claim commands carry the copy's owners", async () => {
    const stale: string[] = [];
    const commands: Record<string, unknown>[] = [];
    const claimOwners = [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "s", controller: true }];
    const executor = new Executor({
      kube: api.client(),
      nats: { publish: () => undefined } as unknown as NatsConnection,
      commands: {
        publish: (_subject: string, bytes: Uint8Array) => {
          commands.push({ ...codecs.pvcCommand.decode(bytes) });
          return Promise.resolve({ seq: 1, duplicate: false });
        },
      } as unknown as ConstructorParameters<typeof Executor>[0]["commands"],
      member: "actor-2",
      lookup: (kind, namespace, name) =>
        kind === "PersistentVolumeClaim"
          ? { kind, namespace, name, uid: "c", resourceVersion: "5", object: { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name, ownerReferences: claimOwners } } }
          : undefined,
      // The claim never shows the change: the provisioner found it stale.
      waitFor: () => Promise.resolve(false),
      claimWaitTimeoutMs: 50,
      logger: createLogger({ service: "test", instance: "t", level: "silent", format: "json" }),
      staleCopy: (ref) => stale.push(`${ref.shard} ${ref.kind} ${ref.namespace}/${ref.name}`),
    });
    const events = { onSuccess: [], onFailure: [] };
    const preconditions = { uid: "u", resourceVersion: "5" };
    const actions: PlanAction[] = [
      { type: "deletePod", name: "web-2", ordinal: 2, reason: "condemned", preconditions, ignoreNotFound: false, events },
      { type: "updatePod", name: "web-0", preconditions, object: { metadata: { name: "web-0" } }, events } as unknown as PlanAction,
      { type: "createPod", name: "web-1", ordinal: 1, revisionName: "web-abc", object: { metadata: { name: "web-1" } }, events },
      {
        type: "updateClaimOwnerRefs",
        name: "data-web-3",
        podName: "web-3",
        preconditions: { uid: "c", resourceVersion: "5" },
        ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "web-3", uid: "p3" }],
        object: {},
        events,
      },
    ];
    const ctx = turnContext();
    const result = await executor.executeStep({ phase: "pods", blocking: false, actions }, ctx);
    assert.equal(result.ok, false);
    assert.deepEqual(stale.sort(), ["17 PersistentVolumeClaim ns/data-web-3", "17 Pod ns/web-0", "17 Pod ns/web-2"]);
    assert.equal(commands.length, 1);
    assert.deepEqual(commands[0]?.["fromOwnerReferences"], claimOwners);
  });
});
