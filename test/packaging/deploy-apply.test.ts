// `kubectl apply -k deploy/overlays/dev` and `.../prod` succeed on an empty cluster. Each overlay
// is applied to a fresh simulator started in-process (tools/kube-sim, nothing in it but its system namespaces):
// - with kubectl (`apply -k`, as the README says: discovery, OpenAPI, strict field validation, client-side apply),
//   after which every rendered object is served back and a second apply changes nothing;
// - over plain HTTP: discovery to find each kind's resource, then a POST of every rendered object in the rendered order
//   (no kubectl machinery), each answered 201 and read back with the labels and fields it was sent with (client-node's
//   typed models would rename fields such as NetworkPolicy's `from`, so it only reads the kubeconfig here);
// - and the deploy README's Kubernetes steps, run as written (the Docker and registry lines left out), on an empty
//   simulator each: the namespace comes from the manifests, the Secret from deploy/scripts/nats-credentials.sh.
// The simulator refuses an object in a namespace that does not exist (NamespaceLifecycle), so ordering is checked too.
// Rendering needs kubectl (`kubectl kustomize`); without it every part is skipped with that reason.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { startKubeSim } from "../../tools/kube-sim/src/main.ts";
import type { KubeSim } from "../../tools/kube-sim/src/main.ts";
import { KUBECTL, KUBECTL_SKIP, renderKustomization } from "./manifests.ts";
import type { K8sObject } from "./manifests.ts";
import { readRepoFile, run } from "./support.ts";

const OVERLAYS = ["dev", "prod"] as const;
const NAMESPACE = "stsfleet-system";

interface Cluster {
  sim: KubeSim;
  kubeconfig: string;
  kc: k8s.KubeConfig;
  dir: string;
}

async function emptyCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), "stsfleet-deploy-apply-"));
  const kubeconfig = join(dir, "kubeconfig");
  const sim = await startKubeSim({ kubeconfigOut: kubeconfig });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  return { sim, kubeconfig, kc, dir };
}

async function stopCluster(cluster: Cluster | undefined): Promise<void> {
  if (!cluster) return;
  await cluster.sim.stop();
  rmSync(cluster.dir, { recursive: true, force: true });
}

function kubectl(cluster: Cluster, args: readonly string[]) {
  if (!KUBECTL) throw new Error("kubectl missing");
  return run(KUBECTL, ["--kubeconfig", cluster.kubeconfig, ...args], { timeoutMs: 120_000 });
}

/** `kind/name` as kubectl prints it: the lowercase kind, with the group for non-core kinds. */
function kubectlName(object: K8sObject): string {
  const group = object.apiVersion.includes("/") ? object.apiVersion.split("/")[0] : "";
  return `${object.kind.toLowerCase()}${group ? `.${group}` : ""}/${object.metadata.name}`;
}

function describeObject(object: K8sObject): string {
  return `${object.apiVersion} ${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ""}${object.metadata.name}`;
}

/** Plain HTTP to the cluster of `kubeconfig`, with its bearer token. */
async function request(cluster: Cluster, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const server = cluster.kc.getCurrentCluster()?.server ?? "";
  const token = cluster.kc.getCurrentUser()?.token ?? "";
  const response = await fetch(`${server}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the message
  }
  return { status: response.status, body: parsed };
}

/** The collection path of an object's kind, from the server's discovery document for its group version. */
async function collectionPath(cluster: Cluster, object: K8sObject): Promise<string> {
  const base = object.apiVersion.includes("/") ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const discovery = await request(cluster, "GET", base);
  assert.equal(discovery.status, 200, `${base} is not served: ${JSON.stringify(discovery.body)}`);
  const resources = (discovery.body as { resources: { name: string; kind: string; namespaced: boolean }[] }).resources;
  const resource = resources.find((r) => r.kind === object.kind && !r.name.includes("/"));
  assert.ok(resource, `${base} serves no ${object.kind}`);
  return resource.namespaced ? `${base}/namespaces/${object.metadata.namespace ?? "default"}/${resource.name}` : `${base}/${resource.name}`;
}

/** The object as the simulator serves it now. */
async function readBack(cluster: Cluster, object: K8sObject): Promise<K8sObject> {
  const read = await request(cluster, "GET", `${await collectionPath(cluster, object)}/${object.metadata.name}`);
  assert.equal(read.status, 200, `${describeObject(object)}: ${JSON.stringify(read.body)}`);
  return read.body as K8sObject;
}

/** What must survive a round trip: the labels, and every top-level field but metadata and status (defaults may add). */
function assertServedAsSent(sent: K8sObject, served: K8sObject): void {
  const where = describeObject(sent);
  assert.equal(served.apiVersion, sent.apiVersion, where);
  assert.equal(served.kind, sent.kind, where);
  for (const [key, value] of Object.entries(sent.metadata.labels ?? {})) assert.equal(served.metadata.labels?.[key], value, `${where}: label ${key}`);
  for (const [field, value] of Object.entries(sent)) {
    if (["apiVersion", "kind", "metadata", "status"].includes(field)) continue;
    assertContains(served[field], value, `${where}: ${field}`);
  }
}

/** Every value in `sent` is in `served` (which may hold more: server-side defaults). Lists must match item by item. */
function assertContains(served: unknown, sent: unknown, where: string): void {
  if (Array.isArray(sent)) {
    assert.ok(Array.isArray(served) && served.length === sent.length, `${where}: ${JSON.stringify(served)} vs ${JSON.stringify(sent)}`);
    sent.forEach((item, i) => assertContains((served as unknown[])[i], item, `${where}[${i}]`));
  } else if (sent !== null && typeof sent === "object") {
    assert.ok(served !== null && typeof served === "object", `${where}: missing`);
    for (const [key, value] of Object.entries(sent)) assertContains((served as Record<string, unknown>)[key], value, `${where}.${key}`);
  } else {
    assert.equal(served, sent, where);
  }
}

describe("kubectl apply -k of each overlay on an empty cluster", { skip: KUBECTL_SKIP }, () => {
  for (const overlay of OVERLAYS) {
    describe(`deploy/overlays/${overlay}`, () => {
      let cluster: Cluster | undefined;
      let objects: K8sObject[];

      before(async () => {
        objects = await renderKustomization(`overlays/${overlay}`);
        cluster = await emptyCluster();
      });
      after(() => stopCluster(cluster));

      it("creates every rendered object, namespace first, with no error or warning", async () => {
        assert.ok(cluster);
        const result = await kubectl(cluster, ["apply", "-k", `deploy/overlays/${overlay}`]);
        assert.equal(result.code, 0, `kubectl apply -k failed:\n${result.stderr}`);
        assert.equal(result.stderr, "", "no warnings");
        const lines = result.stdout.trim().split("\n");
        assert.deepEqual(lines, objects.map((o) => `${kubectlName(o)} created`));
        assert.equal(lines[0], `namespace/${NAMESPACE} created`);
      });

      it("serves every object back as it was sent", async () => {
        assert.ok(cluster);
        for (const object of objects) assertServedAsSent(object, await readBack(cluster, object));
        const namespace = await readBack(cluster, objects[0] as K8sObject);
        assert.equal(namespace.metadata.labels?.["pod-security.kubernetes.io/enforce"], "restricted");
      });

      it("changes nothing when applied again", async () => {
        assert.ok(cluster);
        const before = await Promise.all(objects.map(async (o) => (await readBack(cluster as Cluster, o)).metadata));
        const result = await kubectl(cluster, ["apply", "-k", `deploy/overlays/${overlay}`]);
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stderr, "");
        // kubectl sends a patch, and says "configured", wherever its three-way diff cannot be empty: a PodDisruptionBudget's
        // selector has patchStrategy=replace (always in the patch), and a StatefulSet's volumeClaimTemplates are an
        // atomic list the server completes (apiVersion, kind, volumeMode, status), so the live list never equals the
        // manifest's. A real API server answers the same way. The patch must not change the objects.
        const patched = (o: K8sObject) => o.kind === "PodDisruptionBudget" || (o.kind === "StatefulSet" && Array.isArray((o["spec"] as { volumeClaimTemplates?: unknown[] }).volumeClaimTemplates));
        assert.deepEqual(result.stdout.trim().split("\n"), objects.map((o) => `${kubectlName(o)} ${patched(o) ? "configured" : "unchanged"}`));
        const after = await Promise.all(objects.map(async (o) => (await readBack(cluster as Cluster, o)).metadata));
        assert.deepEqual(
          after.map((m) => [m.name, (m as { resourceVersion?: string }).resourceVersion, (m as { generation?: number }).generation]),
          before.map((m) => [m.name, (m as { resourceVersion?: string }).resourceVersion, (m as { generation?: number }).generation]),
          "no object was written",
        );
      });
    });
  }
});

describe("plain HTTP creates each overlay's objects on an empty cluster, in the rendered order", { skip: KUBECTL_SKIP }, () => {
  for (const overlay of OVERLAYS) {
    it(`deploy/overlays/${overlay}: every object is accepted (201) and served back`, async () => {
      const objects = await renderKustomization(`overlays/${overlay}`);
      const cluster = await emptyCluster();
      try {
        const refused: string[] = [];
        for (const object of objects) {
          const created = await request(cluster, "POST", await collectionPath(cluster, object), object);
          if (created.status !== 201) refused.push(`${describeObject(object)}: ${created.status} ${JSON.stringify(created.body)}`);
        }
        assert.deepEqual(refused, [], "objects the API server refused");
        for (const object of objects) assertServedAsSent(object, await readBack(cluster, object));
      } finally {
        await stopCluster(cluster);
      }
    });
  }

  it("is refused a namespaced object before its namespace exists (what the old README order hit)", async () => {
    const cluster = await emptyCluster();
    try {
      const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "stsfleet-nats-credentials", namespace: NAMESPACE }, stringData: { actor: "x" } };
      const created = await request(cluster, "POST", await collectionPath(cluster, secret), secret);
      assert.equal(created.status, 404, JSON.stringify(created.body));
      assert.equal((created.body as { message?: string }).message, 'namespaces "stsfleet-system" not found');
    } finally {
      await stopCluster(cluster);
    }
  });
});

/** The shell blocks of deploy/README.md's "## Kubernetes" section, each a list of lines. */
function readmeKubernetesBlocks(): string[][] {
  const readme = readRepoFile("deploy/README.md");
  const start = readme.indexOf("\n## Kubernetes\n");
  assert.ok(start >= 0, 'deploy/README.md has a "## Kubernetes" section');
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => (m[1] ?? "").split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("#")));
}

/** Lines the test cannot run here: building, loading and pushing the image, and editing the overlay in the repository. */
const NOT_RUN = [/^docker /, /^kind /, /^REGISTRY=/, /^\(cd deploy\/overlays\/prod && kustomize edit /];

describe("the deploy README's Kubernetes steps, on an empty cluster", { skip: KUBECTL_SKIP }, () => {
  const blocks = readmeKubernetesBlocks();

  it("has a block for each overlay, each ending in `kubectl apply -k`", () => {
    const applied = blocks.map((lines) => lines.filter((l) => /^kubectl apply -k deploy\/overlays\/\w+$/.test(l.replace(/\s+#.*$/, ""))).map((l) => l.split(/\s+/)[3]));
    assert.deepEqual(applied, [["deploy/overlays/dev"], ["deploy/overlays/prod"]]);
  });

  blocks.forEach((lines, index) => {
    it(`block ${index + 1} runs command by command without an error`, async () => {
      const cluster = await emptyCluster();
      try {
        const env = { ...process.env, KUBECONFIG: cluster.kubeconfig, PATH: `${dirname(KUBECTL ?? "kubectl")}:${process.env["PATH"] ?? ""}` };
        for (const line of lines) {
          if (NOT_RUN.some((pattern) => pattern.test(line))) continue;
          assert.match(line, /^(kubectl|deploy\/scripts\/)/, `a README line this test does not know how to run; add it to NOT_RUN or run it: ${line}`);
          const result = await run("bash", ["-euo", "pipefail", "-c", line], { env, timeoutMs: 120_000 });
          assert.equal(result.code, 0, `${line}\n${result.stderr}`);
          assert.doesNotMatch(result.stderr, /error|warning/i, line);
        }
        const secret = (await readBack(cluster, { apiVersion: "v1", kind: "Secret", metadata: { name: "stsfleet-nats-credentials", namespace: NAMESPACE } })) as K8sObject & { data?: Record<string, string> };
        assert.deepEqual(Object.keys(secret.data ?? {}).sort(), ["actor", "pvc-provisioner", "status-writer", "watcher"], "the Secret's keys, stringData folded into data");
      } finally {
        await stopCluster(cluster);
      }
    });
  });
});
