// Acceptance 2: @kubernetes/client-node against the simulator: informers (list+watch, relist after
// 410 Gone), Watch with bookmarks, and optimistic concurrency.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import type { KubeSim } from "./main.ts";
import { startKubeSim } from "./main.ts";
import { INTERNAL_WRITE } from "./registry/registry.ts";
import { mustFind } from "./resources.ts";
import { until } from "./testing/kubectl.ts";

const CM = mustFind("", "configmaps");
const NS = mustFind("", "namespaces");

describe("@kubernetes/client-node against kube-sim", () => {
  let sim: KubeSim;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kube-sim-client-"));
    sim = await startKubeSim({ kubeconfigOut: join(dir, "kubeconfig"), historyWindow: 5, bookmarkIntervalMs: 50 });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(join(dir, "kubeconfig"));
    core = kc.makeApiClient(k8s.CoreV1Api);
    for (const name of ["inf", "watch", "cas"]) sim.registry.create(NS, "", { apiVersion: "v1", kind: "Namespace", metadata: { name } }, INTERNAL_WRITE);
  });

  after(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("an informer lists, watches, and relists after 410 Gone", async () => {
    await core.createNamespacedConfigMap({ namespace: "inf", body: { metadata: { name: "before" }, data: { a: "1" } } });
    let lists = 0;
    const informer = k8s.makeInformer(kc, "/api/v1/namespaces/inf/configmaps", () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: "inf" });
    });
    const added: string[] = [];
    const updated: string[] = [];
    const deleted: string[] = [];
    informer.on("add", (o) => added.push(o.metadata?.name ?? ""));
    informer.on("update", (o) => updated.push(`${o.metadata?.name ?? ""}=${o.data?.["a"] ?? ""}`));
    informer.on("delete", (o) => deleted.push(o.metadata?.name ?? ""));
    const errors: unknown[] = [];
    informer.on("error", (e) => errors.push(e));
    await informer.start();
    try {
      assert.deepEqual(added, ["before"], "the initial list");
      await core.createNamespacedConfigMap({ namespace: "inf", body: { metadata: { name: "live" }, data: { a: "1" } } });
      await core.patchNamespacedConfigMap({ namespace: "inf", name: "live", body: { data: { a: "2" } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
      await core.deleteNamespacedConfigMap({ namespace: "inf", name: "before" });
      await until("watch events", () => (deleted.includes("before") ? true : undefined));
      assert.deepEqual(added, ["before", "live"]);
      assert.deepEqual(updated, ["live=2"]);

      // Cut the watch and, before the informer can resume, push more events than the window keeps.
      sim.dropWatches();
      for (let i = 0; i < 8; i++) sim.registry.create(CM, "inf", { metadata: { name: `burst-${i}` } }, INTERNAL_WRITE);
      await until("the relist after 410", () => (lists >= 2 && added.includes("burst-7") ? true : undefined), 8000);
      assert.equal(informer.list("inf").length, 9);
      assert.deepEqual(errors, [], "410 is handled by relisting, not surfaced");
    } finally {
      await informer.stop();
    }
  });

  it("Watch streams bookmarks carrying only a resourceVersion when asked", async () => {
    const events: { type: string; obj: k8s.KubernetesObject }[] = [];
    const watch = new k8s.Watch(kc);
    const list = await core.listNamespacedConfigMap({ namespace: "watch" });
    const req = await watch.watch(
      "/api/v1/namespaces/watch/configmaps",
      { allowWatchBookmarks: true, resourceVersion: list.metadata?.resourceVersion },
      (type, obj: k8s.KubernetesObject) => events.push({ type, obj }),
      () => undefined,
    );
    try {
      await core.createNamespacedConfigMap({ namespace: "watch", body: { metadata: { name: "w" } } });
      const added = await until("the ADDED event", () => events.find((e) => e.type === "ADDED"));
      const bookmark = await until("a bookmark after it", () => events.slice(events.indexOf(added)).find((e) => e.type === "BOOKMARK"));
      assert.deepEqual(Object.keys(bookmark.obj.metadata ?? {}), ["resourceVersion"]);
      assert.equal(bookmark.obj.kind, "ConfigMap");
      assert.ok(Number(bookmark.obj.metadata?.resourceVersion) >= Number(added.obj.metadata?.resourceVersion));
    } finally {
      req.abort();
    }
  });

  it("Watch from a resourceVersion older than the window gets the 410 ERROR event", async () => {
    for (let i = 0; i < 8; i++) await core.createNamespacedConfigMap({ namespace: "watch", body: { metadata: { name: `old-${i}` } } });
    const events: { type: string; obj: Record<string, unknown> }[] = [];
    let doneErr: unknown = "not called";
    await watch410(kc, events, (err) => (doneErr = err));
    const error = await until("the ERROR event", () => events.find((e) => e.type === "ERROR"));
    assert.equal(error.obj["code"], 410);
    assert.equal(error.obj["reason"], "Expired");
    assert.match(String(error.obj["message"]), /^too old resource version: 1 \(\d+\)$/);
    await until("the stream to end", () => (doneErr !== "not called" ? true : undefined));
  });

  it("a replace with a stale resourceVersion gets 409 Conflict with the apiserver's message", async () => {
    const created = await core.createNamespacedConfigMap({ namespace: "cas", body: { metadata: { name: "c" }, data: { v: "1" } } });
    await core.replaceNamespacedConfigMap({ namespace: "cas", name: "c", body: { ...created, data: { v: "2" } } });
    await assert.rejects(
      core.replaceNamespacedConfigMap({ namespace: "cas", name: "c", body: { ...created, data: { v: "3" } } }),
      (err: unknown) => {
        assert.ok(err instanceof k8s.ApiException);
        assert.equal(err.code, 409);
        const body = JSON.parse(String(err.body)) as Record<string, unknown>;
        assert.deepEqual(body, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again',
          reason: "Conflict",
          details: { name: "c", kind: "configmaps" },
          code: 409,
        });
        return true;
      },
    );
    const stored = await core.readNamespacedConfigMap({ namespace: "cas", name: "c" });
    assert.deepEqual(stored.data, { v: "2" });
  });
});

async function watch410(kc: k8s.KubeConfig, events: { type: string; obj: Record<string, unknown> }[], done: (err: unknown) => void): Promise<void> {
  await new k8s.Watch(kc).watch("/api/v1/namespaces/watch/configmaps", { resourceVersion: "1" }, (type, obj: Record<string, unknown>) => events.push({ type, obj }), done);
}
