// `stsfleet preflight` against the Kubernetes simulator, which runs no StatefulSet controller of its own: alone, with
// a stand-in for kube-controller-manager's (a loop that writes the probe's status with field manager
// `kube-controller-manager`, as test/e2e/foreign-controller.test.ts does, docs/adr/0092-another-statefulset-controller.md),
// and with one for stsfleet's status-writer. Each run must delete its probe (on an interrupt too) unless --keep.
// Then, through the CLI, an unreachable API server and a usage error exit 2.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeClient, RESOURCES, loadKubeConfig, resourcePath } from "../../../services/common/src/kube.ts";
import type { ResourceRef } from "../../../services/common/src/kube.ts";
import { kubeconfigYaml, startKubeSim } from "../../kube-sim/src/main.ts";
import type { KubeSim } from "../../kube-sim/src/main.ts";
import { PROBE_LABEL, PROBE_LABEL_VALUE, runPreflight } from "./preflight.ts";
import type { PreflightOptions } from "./preflight.ts";
import { runCli } from "./run-cli.ts";

/** kube-controller-manager's status updater, as it calls the API server. */
const KCM_USER_AGENT = "kube-controller-manager/v1.32.6 (linux/amd64) kubernetes/0a1b2c3/statefulset-controller";
const STATUS_WRITER_USER_AGENT = "stsfleet-status-writer/0.1.0 (status-writer-0)";
const SELECTOR = `${PROBE_LABEL}=${PROBE_LABEL_VALUE}`;
/** Short waits: nothing here is slow but the machine may be loaded. */
const TIMINGS = { pollMs: 50, settleMs: 200 };

const dir = mkdtempSync(join(tmpdir(), "stsfleet-preflight-"));
const kubeconfig = join(dir, "kubeconfig");
let sim: KubeSim;
let admin: KubeClient;

before(async () => {
  sim = await startKubeSim({ kubeconfigOut: kubeconfig });
  admin = new KubeClient(loadKubeConfig(kubeconfig, "preflight-test"), { requestTimeoutMs: 5_000 });
});
after(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Captured {
  readonly code: number;
  readonly out: string;
}

async function preflight(options: Partial<PreflightOptions> = {}, signal?: AbortSignal): Promise<Captured> {
  let out = "";
  const io = { out: (text: string) => (out += `${text}\n`), err: (text: string) => (out += `${text}\n`) };
  const code = await runPreflight({ kubeconfig, timeoutMs: 1_500, keep: false, output: "text", ...options }, io, { timings: TIMINGS, ...(signal ? { signal } : {}) });
  return { code, out };
}

interface Listed {
  readonly items: { metadata: { name: string; namespace?: string } }[];
}

/** The probe StatefulSets and probe namespaces that still exist (a namespace being deleted counts until it is gone). */
async function leftovers(): Promise<string[]> {
  const sets = await admin.list<Listed>(RESOURCES.statefulsets, { labelSelector: SELECTOR });
  const namespaces = await admin.list<Listed>(RESOURCES.namespaces, { labelSelector: SELECTOR });
  return [...sets.items.map((s) => `sts ${s.metadata.namespace}/${s.metadata.name}`), ...namespaces.items.map((n) => `ns ${n.metadata.name}`)];
}

async function assertCleanedUp(): Promise<void> {
  const deadline = Date.now() + 10_000;
  let left = await leftovers();
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = await leftovers();
  }
  assert.deepEqual(left, []);
}

/** Every 100 ms, `onProbe` for each probe set it has not handled yet (until `onProbe` resolves true). Returns a stop. */
function watchProbes(userAgent: string, onProbe: (kube: KubeClient, ref: ResourceRef) => Promise<boolean>): { stop: () => Promise<number> } {
  const kube = new KubeClient(loadKubeConfig(kubeconfig, userAgent), { requestTimeoutMs: 5_000 });
  const stopped = new AbortController();
  const handled = new Set<string>();
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      const sets = await kube.list<Listed>(RESOURCES.statefulsets, { labelSelector: SELECTOR }).catch(() => ({ items: [] }));
      for (const { metadata } of sets.items) {
        const key = `${metadata.namespace}/${metadata.name}`;
        if (!handled.has(key) && (await onProbe(kube, { ...RESOURCES.statefulsets, namespace: metadata.namespace, name: metadata.name }))) handled.add(key);
      }
      await sleep(100, undefined, { signal: stopped.signal }).catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      stopped.abort();
      await loop;
      return handled.size;
    },
  };
}

/**
 * A StatefulSet controller as far as the probe can tell: it writes the status of each probe set once (a status it
 * computed: observed generation 1, no replicas) under `userAgent`, whose prefix is the manager unless `fieldManager`.
 */
function answerProbes(userAgent: string, fieldManager?: string): { stop: () => Promise<number> } {
  return watchProbes(userAgent, (kube, ref) =>
    kube
      .request({
        method: "PATCH",
        path: resourcePath({ ...ref, subresource: "status" }),
        query: fieldManager ? { fieldManager } : {},
        body: { status: { observedGeneration: 1, replicas: 0, currentRevision: `${ref.name}-5d8c7b9f4`, updateRevision: `${ref.name}-5d8c7b9f4`, collisionCount: 0 } },
        contentType: "application/merge-patch+json",
        verb: "patch",
        resource: "statefulsets",
      })
      .then(
        () => true,
        () => false,
      ),
  );
}

describe("stsfleet preflight against the simulator", () => {
  it("with no StatefulSet controller: says none answered, exits 0 and deletes the probe and its namespace", async () => {
    const { code, out } = await preflight();
    assert.equal(code, 0, out);
    assert.match(out, /^ok {4}api-server {14}reachable at http:\/\/127\.0\.0\.1:\d+, Kubernetes v1\.37/m);
    assert.match(out, /^ok {4}statefulsets-api/m);
    // The simulator does not serve SelfSubjectAccessReviews: a warning, not a failure.
    assert.match(out, /^warn {2}rbac {20}cannot check: .*SelfSubjectAccessReviews/m);
    assert.match(out, /^ok {4}statefulset-controller {2}no StatefulSet controller answered in 1\.\d s/m);
    assert.match(out, /^ok {4}probe-cleanup {11}deleted the probe: namespace stsfleet-preflight-[0-9a-f]{6} with its statefulset stsfleet-preflight-/m);
    await assertCleanedUp();
  });

  it("with kube-controller-manager's controller running: fails with the fix per control plane, exits 1, deletes the probe", async () => {
    const kcm = answerProbes(KCM_USER_AGENT, "kube-controller-manager");
    const { code, out } = await preflight({ timeoutMs: 10_000 });
    assert.ok((await kcm.stop()) >= 1, "the stand-in answered the probe");
    assert.equal(code, 1, out);
    assert.match(out, /^fail {2}statefulset-controller {2}kube-controller-manager's StatefulSet controller is running: .*manager kube-controller-manager/m);
    for (const fix of ["kubeadm:", "kube-controller-manager.yaml", "kind:", "kubeadmConfigPatches", "k3s:", "--kube-controller-manager-arg=controllers=*,-statefulset-controller", "EKS, GKE, AKS"]) {
      assert.ok(out.includes(fix), `${fix} missing from:\n${out}`);
    }
    assert.match(out, /^1 check\(s\) failed/m);
    await assertCleanedUp();
  });

  it("with stsfleet running: says so and exits 0", async () => {
    const fleet = answerProbes(STATUS_WRITER_USER_AGENT);
    const { code, out } = await preflight({ timeoutMs: 10_000 });
    await fleet.stop();
    assert.equal(code, 0, out);
    assert.match(out, /^ok {4}statefulset-controller {2}stsfleet is running: .*manager stsfleet-status-writer/m);
    await assertCleanedUp();
  });

  it("--namespace: the probe goes into that namespace, which stays; JSON output", async () => {
    await admin.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } });
    const { code, out } = await preflight({ namespace: "team", timeoutMs: 500, output: "json" });
    assert.equal(code, 0, out);
    const report = JSON.parse(out) as { exitCode: number; checks: { id: string; summary: string }[] };
    assert.equal(report.exitCode, 0);
    assert.match(report.checks.find((c) => c.id === "probe-cleanup")?.summary ?? "", /^deleted the probe: statefulset team\/stsfleet-preflight-/);
    await admin.get({ ...RESOURCES.namespaces, name: "team" });
    await assertCleanedUp();
  });

  it("--keep leaves the probe and says how to delete it", async () => {
    const { code, out } = await preflight({ keep: true, timeoutMs: 300 });
    assert.equal(code, 0, out);
    const left = await leftovers();
    assert.equal(left.length, 2, left.join(", "));
    const namespace = /^ns (\S+)$/m.exec(left.join("\n"))?.[1] ?? "";
    assert.ok(out.includes(`kept statefulset ${namespace}/`) && out.includes(`kubectl delete namespace ${namespace}`), out);
    await admin.delete({ ...RESOURCES.namespaces, name: namespace });
    await assertCleanedUp();
  });

  it("an interrupt while it waits still deletes the probe, then exits 130", async () => {
    const interrupt = new AbortController();
    // Ctrl-C as soon as the probe exists; nobody answers it.
    const watcher = watchProbes("interrupter/1.0", () => {
      interrupt.abort("SIGINT");
      return Promise.resolve(true);
    });
    const { code, out } = await preflight({ timeoutMs: 10_000 }, interrupt.signal);
    await watcher.stop();
    assert.equal(code, 130, out);
    assert.match(out, /^fail {2}statefulset-controller {2}cannot tell whether another StatefulSet controller runs: interrupted/m);
    assert.match(out, /^ok {4}probe-cleanup {11}deleted the probe/m);
    await assertCleanedUp();
  });
});

/**
 * The simulator behind a front that answers SelfSubjectAccessReviews (which the simulator does not serve) as an
 * RBAC authorizer would, denying what `denied` names, and passes every other request through.
 */
async function withAccessReviews(denied: (attributes: Record<string, string>) => boolean): Promise<{ kubeconfig: string; close: () => Promise<void> }> {
  const front = createServer((req, res) => {
    if (req.method === "POST" && (req.url ?? "").startsWith("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")) {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const review = JSON.parse(body) as { spec: { resourceAttributes: Record<string, string> } };
        res.writeHead(201, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...review, status: { allowed: !denied(review.spec.resourceAttributes) } }));
      });
      return;
    }
    const upstream = request(`${sim.url}${req.url ?? "/"}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const path = join(dir, "reviews.kubeconfig");
  writeFileSync(path, kubeconfigYaml(`http://127.0.0.1:${(front.address() as AddressInfo).port}`));
  return { kubeconfig: path, close: () => new Promise((resolve) => {
    front.close(() => resolve());
    front.closeAllConnections();
  }) };
}

describe("stsfleet preflight's RBAC check, where access reviews are served", () => {
  it("passes when every permission of the ClusterRoles is held", async () => {
    const front = await withAccessReviews(() => false);
    const { code, out } = await preflight({ kubeconfig: front.kubeconfig, timeoutMs: 300 });
    await front.close();
    assert.equal(code, 0, out);
    assert.match(out, /^ok {4}rbac {20}these credentials may grant the fleet's ClusterRoles \(\d+ permissions reviewed\)/m);
    await assertCleanedUp();
  });

  it("fails, naming what is missing, when one is not", async () => {
    const front = await withAccessReviews((a) => a["resource"] === "statefulsets" && a["subresource"] === "status");
    const { code, out } = await preflight({ kubeconfig: front.kubeconfig, timeoutMs: 300 });
    await front.close();
    assert.equal(code, 1, out);
    assert.match(out, /^fail {2}rbac {20}these credentials lack 1 of the \d+ permissions applying deploy\/ grants: update apps\/statefulsets\/status$/m);
    await assertCleanedUp();
  });
});

describe("stsfleet preflight through the CLI", () => {
  it("exits 2 with a clear message when the API server cannot be reached", async () => {
    const unreachable = join(dir, "unreachable.kubeconfig");
    writeFileSync(unreachable, kubeconfigYaml("http://127.0.0.1:1"));
    const result = await runCli(["preflight", "--kubeconfig", unreachable, "--timeout-ms", "1500"]);
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stdout, /^fail {2}api-server {14}cannot reach the API server at http:\/\/127\.0\.0\.1:1: /m);
    assert.match(result.stdout, /^not connected: nothing else was checked$/m);
  });

  it("exits 2 when the kubeconfig cannot be loaded", async () => {
    const { code, out } = await preflight({ kubeconfig: join(dir, "missing.kubeconfig") });
    assert.equal(code, 2, out);
    assert.match(out, /^stsfleet preflight: cannot load the kubeconfig .*missing\.kubeconfig: /m);
  });

  it("exits 2 on a usage error", async () => {
    const result = await runCli(["preflight", "--kubeconfig", kubeconfig, "--timeout-ms", "0"]);
    assert.equal(result.code, 2, result.stdout + result.stderr);
    assert.match(result.stderr, /--timeout-ms must be a positive integer/);
  });
});
