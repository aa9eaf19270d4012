// Who wrote a StatefulSet's status, as a client reads it from managedFields over HTTP: the status-writer's PUT
// /status (manager from the User-Agent), kubectl's `patch --subresource=status` (`fieldManager=kubectl-patch`) and
// kube-controller-manager's status updater (its User-Agent `kube-controller-manager/<version> (...)/statefulset-
// controller`). The actor's check for another StatefulSet controller reads exactly these entries
// (docs/adr/0092-another-statefulset-controller.md), so they must come out as kube-apiserver 1.32 writes them: the
// manager is the `fieldManager` parameter, else the User-Agent up to its first "/" (handlers' managerOrUserAgent and
// prefixFromUserAgent); an Update moves its manager's time only when it changed something
// (managedfieldsupdater_test.go TestManagedFieldsUpdateDoesModifyTime, TestManagedFieldsUpdateWithoutChangesDoesNotModifyTime);
// taking another manager's fields leaves that manager's time alone
// (TestTakingOverManagedFieldsDuringUpdateDoesNotModifyPreviousManagerTime), and an entry left owning nothing is
// dropped.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import { getPath } from "../types.ts";
import type { ManagedFieldsEntry } from "./managed.ts";

const BASE = "/apis/apps/v1/namespaces/default/statefulsets";
const STATUS_WRITER = "stsfleet-status-writer/0.1.0 (status-writer-0)";
const KCM = "kube-controller-manager/v1.32.6 (linux/amd64) kubernetes/0a1b2c3/statefulset-controller";

describe("a StatefulSet's status writers in managedFields, over HTTP", () => {
  let sim: KubeSim;
  let nowMs = Date.parse("2026-12-02T10:00:00Z");
  const call = async (method: string, path: string, body: object | undefined, userAgent: string, contentType = "application/json") => {
    const init: RequestInit = { method, headers: { "Content-Type": contentType, "User-Agent": userAgent } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(`${sim.url}${path}`, init);
    assert.ok(res.ok, `${method} ${path}: ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };
  /** The status entries as [manager, time, owned status fields]. */
  const statusEntries = (obj: unknown) =>
    ((getPath(obj, ["metadata", "managedFields"]) ?? []) as ManagedFieldsEntry[])
      .filter((entry) => entry.subresource === "status")
      .map((entry) => [entry.manager, entry.time, Object.keys(getPath(entry.fieldsV1, ["f:status"]) ?? {}).sort()]);
  /** A PUT of /status from the set as read, as the status-writer sends it. */
  const putStatus = async (status: Record<string, unknown>, userAgent = STATUS_WRITER) => {
    const current = await call("GET", `${BASE}/web`, undefined, userAgent);
    return call("PUT", `${BASE}/web/status`, { ...current, status: { ...(current["status"] as object), ...status } }, userAgent);
  };
  const at = (clock: string) => {
    nowMs = Date.parse(`2026-12-02T${clock}Z`);
    return `2026-12-02T${clock}Z`;
  };

  before(async () => {
    sim = await startKubeSim({ clock: { now: () => new Date(nowMs) }, kubelet: { startDelayMs: 10, terminationDelayMs: 10, bindDelayMs: 1 } });
    await call(
      "POST",
      BASE,
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "web" },
        spec: { replicas: 0, serviceName: "web", selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } } },
      },
      "kubectl/v1.32.4 (linux/amd64) kubernetes/abc",
    );
  });
  after(async () => {
    await sim.stop();
  });

  it("names the status-writer, kubectl-patch and kube-controller-manager as kube-apiserver does, times moving only with a change", async () => {
    const t1 = at("10:00:01");
    assert.deepEqual(statusEntries(await putStatus({ observedGeneration: 1, replicas: 2, readyReplicas: 2 })), [["stsfleet-status-writer", t1, ["f:observedGeneration", "f:readyReplicas", "f:replicas"]]]);

    // A PUT that changes nothing takes nothing: no new time.
    at("10:00:02");
    assert.deepEqual(statusEntries(await putStatus({})), [["stsfleet-status-writer", t1, ["f:observedGeneration", "f:readyReplicas", "f:replicas"]]]);

    // kubectl patch sts web --subresource=status --type=merge -p '{"status":{"observedGeneration":1000000}}'
    const t3 = at("10:00:03");
    const patched = await call("PATCH", `${BASE}/web/status?fieldManager=kubectl-patch`, { status: { observedGeneration: 1_000_000 } }, "kubectl/v1.32.4 (linux/amd64) kubernetes/abc", "application/merge-patch+json");
    assert.deepEqual(statusEntries(patched), [
      ["stsfleet-status-writer", t1, ["f:readyReplicas", "f:replicas"]],
      ["kubectl-patch", t3, ["f:observedGeneration"]],
    ]);

    // The status-writer takes the field back: kubectl-patch owns nothing and its entry goes.
    const t4 = at("10:00:04");
    assert.deepEqual(statusEntries(await putStatus({ observedGeneration: 1 })), [["stsfleet-status-writer", t4, ["f:observedGeneration", "f:readyReplicas", "f:replicas"]]]);

    // kube-controller-manager's status updater (a PUT from its informer's copy, no fieldManager): the User-Agent's prefix.
    const t5 = at("10:00:05");
    assert.deepEqual(statusEntries(await putStatus({ replicas: 3 }, KCM)), [
      ["stsfleet-status-writer", t4, ["f:observedGeneration", "f:readyReplicas"]],
      ["kube-controller-manager", t5, ["f:replicas"]],
    ]);
    // A second write of the same value by it is a no-op; a change moves its time, not the status-writer's.
    at("10:00:06");
    assert.deepEqual(statusEntries(await putStatus({ replicas: 3 }, KCM)).at(-1), ["kube-controller-manager", t5, ["f:replicas"]]);
    const t7 = at("10:00:07");
    assert.deepEqual(statusEntries(await putStatus({ replicas: 3, readyReplicas: 3 }, KCM)), [
      ["stsfleet-status-writer", t4, ["f:observedGeneration"]],
      ["kube-controller-manager", t7, ["f:readyReplicas", "f:replicas"]],
    ]);
  });
});
