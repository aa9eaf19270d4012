// Seeding (Registry.seed, `startKubeSim({ seed })`, `--seed FILE`): objects recorded from another API server are
// served exactly as recorded, resourceVersions included, later writes and watches continue above the highest seeded
// version, and the simulator's controllers see the seeded objects as they see new ones.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readSeedFile } from "../cli.ts";
import { startKubeSim } from "../main.ts";
import { until } from "../testing/kubectl.ts";
import type { KubeObject } from "../types.ts";
import { getPath } from "../types.ts";

const NAMESPACE: KubeObject = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "rec", uid: "ns-uid", resourceVersion: "101", creationTimestamp: "2026-11-29T19:48:00Z", labels: { "kubernetes.io/metadata.name": "rec" } },
  spec: { finalizers: ["kubernetes"] },
  status: { phase: "Active" },
};

/** A pod as a real API server stored it: no node yet, a status another kubelet wrote, no managedFields. */
const POD: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-0", namespace: "rec", uid: "pod-uid", resourceVersion: "194", creationTimestamp: "2026-11-29T19:48:58Z", labels: { app: "web" } },
  spec: { containers: [{ name: "c", image: "nginx:1.25" }], restartPolicy: "Always" },
  status: { phase: "Running", podIP: "10.1.0.1", conditions: [{ type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: "2026-11-29T19:48:58Z" }] },
};

const CONFIG: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "no-rv", namespace: "rec" }, data: { k: "v" } };

async function getJson(url: string): Promise<KubeObject & { items?: KubeObject[] }> {
  const res = await fetch(url);
  assert.equal(res.status, 200, url);
  return (await res.json()) as KubeObject & { items?: KubeObject[] };
}

describe("kube-sim seed", () => {
  it("serves seeded objects as recorded; writes and watches continue above the highest seeded resourceVersion", async () => {
    const sim = await startKubeSim({ port: 0, kubelet: { scheduleDelayMs: 60_000 }, seed: [POD, NAMESPACE, CONFIG] });
    try {
      assert.deepEqual(await getJson(`${sim.url}/api/v1/namespaces/rec/pods/web-0`), POD, "byte for byte what was recorded");
      const config = await getJson(`${sim.url}/api/v1/namespaces/rec/configmaps/no-rv`);
      assert.equal(config.metadata.resourceVersion, "195", "an object without one gets the next after the highest seeded");
      assert.match(config.metadata.uid ?? "", /^[0-9a-f-]{36}$/, "a missing uid is filled in as a create would");
      assert.equal(typeof config.metadata.creationTimestamp, "string");

      const list = await getJson(`${sim.url}/api/v1/namespaces/rec/configmaps`);
      const listRv = Number(list.metadata.resourceVersion);
      assert.ok(listRv >= 195, `list resourceVersion ${listRv}`);
      const watch = await fetch(`${sim.url}/api/v1/namespaces/rec/configmaps?watch=true&resourceVersion=${listRv}`);
      const events = watch.body?.getReader();
      assert.ok(events);

      const update = { ...config, data: { k: "w" } };
      const res = await fetch(`${sim.url}/api/v1/namespaces/rec/configmaps/no-rv`, { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(update) });
      assert.equal(res.status, 200, "an update guarded by the seeded resourceVersion is accepted");
      const updated = (await res.json()) as KubeObject;
      assert.ok(Number(updated.metadata.resourceVersion) > 195, `new resourceVersion ${String(updated.metadata.resourceVersion)}`);
      const chunk = await events.read();
      const event = JSON.parse(new TextDecoder().decode(chunk.value as Uint8Array | undefined).split("\n")[0] ?? "") as { type: string; object: KubeObject };
      assert.equal(event.type, "MODIFIED");
      assert.equal(event.object.metadata.resourceVersion, updated.metadata.resourceVersion);
      await events.cancel();
    } finally {
      await sim.stop();
    }
  });

  it("hands seeded objects to the simulator's controllers: the scheduler binds a seeded pod that has no node", async () => {
    const sim = await startKubeSim({ port: 0, kubelet: { scheduleDelayMs: 1 }, seed: [NAMESPACE, POD] });
    try {
      const pod = await until("the seeded pod to be scheduled", async () => {
        const got = await getJson(`${sim.url}/api/v1/namespaces/rec/pods/web-0`);
        return getPath(got, ["spec", "nodeName"]) === "kube-sim-node" ? got : undefined;
      });
      assert.equal(getPath(pod, ["status", "phase"]), "Running", "the recorded status is kept");
      assert.equal(pod.metadata.uid, "pod-uid");
    } finally {
      await sim.stop();
    }
  });

  it("refuses kinds it does not serve, a missing namespace and a cluster-scoped kind with one", async () => {
    const cases: [unknown[], RegExp][] = [
      [[{ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "rec" } }, NAMESPACE], /example\.com\/v1 Widget is not served/],
      [[POD], /namespace rec neither exists nor is seeded/],
      [[{ ...NAMESPACE, metadata: { ...NAMESPACE.metadata, namespace: "rec" } }], /a cluster-scoped kind takes no metadata\.namespace/],
      [[{ ...CONFIG, metadata: { name: "x" } }], /a namespaced kind needs metadata\.namespace/],
      [["text"], /object 0 is not a Kubernetes object/],
    ];
    for (const [seed, message] of cases) await assert.rejects(startKubeSim({ port: 0, seed }), message);
  });

  it("--seed reads a JSON array or a List (what kubectl get -o json prints)", () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-sim-seed-"));
    try {
      const file = join(dir, "seed.json");
      writeFileSync(file, JSON.stringify([NAMESPACE, POD]));
      assert.deepEqual(readSeedFile(file), [NAMESPACE, POD]);
      writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "List", items: [NAMESPACE] }));
      assert.deepEqual(readSeedFile(file), [NAMESPACE]);
      writeFileSync(file, JSON.stringify({ kind: "Pod" }));
      assert.throws(() => readSeedFile(file), /expected a JSON array of objects or a List/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
