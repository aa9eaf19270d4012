// Acceptance 1: kubectl 1.32 with default flags against the simulator. Every step asserts what the
// server stored, not only kubectl's exit code.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "./main.ts";
import { startKubeSim } from "./main.ts";
import { mustFind } from "./resources.ts";
import { Kubectl, findKubectl, until } from "./testing/kubectl.ts";
import type { KubeObject } from "./types.ts";
import { getPath } from "./types.ts";

const binary = findKubectl();
const skip = binary === undefined ? "kubectl is not on the PATH (set KUBECTL to a kubectl 1.32 binary)" : false;

const STS = mustFind("apps", "statefulsets");
const PODS = mustFind("", "pods");
const SVC = mustFind("", "services");
const CR = mustFind("apps", "controllerrevisions");

function manifest(image: string, extraSpec = ""): string {
  return `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  clusterIP: None
  selector: {app: web}
  ports: [{port: 80, name: http}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: default}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: ${image}
        ports: [{containerPort: 80, name: http}]
        env: [{name: MODE, value: primary}]${extraSpec}
---
apiVersion: v1
kind: Pod
metadata: {name: solo, namespace: default, labels: {app: solo}}
spec:
  containers: [{name: c, image: busybox}]
`;
}

describe("kubectl 1.32 against kube-sim", { skip }, () => {
  let sim: KubeSim;
  let kubectl: Kubectl;
  let dir: string;

  const get = (info = STS, name = "web", ns = "default"): KubeObject | undefined => sim.registry.tryGet(info, ns, name);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kube-sim-kubectl-"));
    sim = await startKubeSim({ kubeconfigOut: join(dir, "kubeconfig"), kubelet: { startDelayMs: 20, terminationDelayMs: 10, bindDelayMs: 1 } });
    kubectl = new Kubectl(binary ?? "kubectl", join(dir, "kubeconfig"));
  });

  after(async () => {
    await sim.stop();
    kubectl.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("api-resources lists the served resources with their short names", async () => {
    const out = await kubectl.ok(["api-resources"]);
    assert.match(out, /^statefulsets\s+sts\s+apps\/v1\s+true\s+StatefulSet$/m);
    assert.match(out, /^pods\s+po\s+v1\s+true\s+Pod$/m);
    assert.match(out, /^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
  });

  it("apply -f creates a StatefulSet, a Service and a Pod, then updates them without warnings", async () => {
    const created = await kubectl.run(["apply", "-f", "-"], manifest("nginx:1.25"));
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stderr, "", "a real server causes no warnings here");
    assert.match(created.stdout, /statefulset\.apps\/web created/);
    const sts = get();
    assert.equal(sts?.metadata.generation, 1);
    assert.equal(getPath(sts, ["spec", "template", "spec", "containers", "0", "image"]), undefined); // arrays are not objects
    assert.equal((getPath(sts, ["spec", "template", "spec", "containers"]) as { image: string }[])[0]?.image, "nginx:1.25");
    assert.equal(getPath(get(SVC), ["spec", "clusterIP"]), "None");
    assert.ok(get(PODS, "solo"));

    const updated = await kubectl.run(["apply", "-f", "-"], manifest("nginx:1.26"));
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(updated.stderr, "");
    assert.match(updated.stdout, /statefulset\.apps\/web configured/);
    assert.match(updated.stdout, /service\/web unchanged/);
    const after = get();
    assert.equal(after?.metadata.generation, 2);
    const containers = getPath(after, ["spec", "template", "spec", "containers"]) as { image: string; env?: unknown[]; ports?: unknown[] }[];
    assert.equal(containers[0]?.image, "nginx:1.26");
    assert.deepEqual(containers[0]?.env, [{ name: "MODE", value: "primary" }], "strategic merge keeps the other container fields");
    assert.equal(containers[0]?.ports?.length, 1);
  });

  it("apply -f of an unknown field fails strict validation the way kubectl reports it", async () => {
    const r = await kubectl.run(["apply", "-f", "-"], manifest("nginx:1.26", "\n      bogusField: 1"));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /strict decoding error: unknown field "spec\.template\.spec\.bogusField"/);
    assert.equal(get()?.metadata.generation, 2, "nothing was written");
  });

  it("get prints the real table columns and describe works", async () => {
    await until("solo to run", () => (getPath(get(PODS, "solo"), ["status", "phase"]) === "Running" ? true : undefined));
    const pods = await kubectl.ok(["get", "pods"]);
    assert.match(pods, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    assert.match(pods, /^solo\s+1\/1\s+Running\s+0\s+\d+s$/m);
    const sts = await kubectl.ok(["get", "sts"]);
    assert.match(sts, /^NAME\s+READY\s+AGE$/m);
    assert.match(sts, /^web\s+0\/2\s+\d+s$/m);
    const wide = await kubectl.ok(["get", "pods", "-o", "wide"]);
    assert.match(wide, /^solo\s+1\/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+kube-sim-node\s+<none>\s+<none>$/m);
    const describe = await kubectl.ok(["describe", "pod", "solo"]);
    assert.match(describe, /^Status:\s+Running$/m);
    assert.match(describe, /^Node:\s+kube-sim-node\//m);
    const describeSts = await kubectl.ok(["describe", "statefulset", "web"]);
    assert.match(describeSts, /^Replicas:\s+2 desired/m);
  });

  it("annotate sim.stsfleet.dev/ready=false flips readiness live, seen by get -w and wait", async () => {
    const watcher = kubectl.spawn(["get", "pod", "solo", "-w"]);
    let out = "";
    watcher.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    await until("get -w to print the pod", () => (out.includes("solo") ? true : undefined));
    await kubectl.ok(["annotate", "pod", "solo", "sim.stsfleet.dev/ready=false"]);
    assert.equal(get(PODS, "solo")?.metadata.annotations?.["sim.stsfleet.dev/ready"], "false");
    await until("get -w to show 0/1", () => (/solo\s+0\/1\s+Running/.test(out) ? true : undefined));
    const ready = () => (getPath(get(PODS, "solo"), ["status", "conditions"]) as { type: string; status: string }[]).find((c) => c.type === "Ready")?.status;
    assert.equal(ready(), "False");
    const waiting = kubectl.run(["wait", "--for=condition=Ready", "pod/solo", "--timeout=10s"]);
    await kubectl.ok(["annotate", "pod", "solo", "sim.stsfleet.dev/ready-"]);
    const waited = await waiting;
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stdout, /pod\/solo condition met/);
    assert.equal(ready(), "True");
    await until("get -w to show 1/1 again", () => (/solo\s+1\/1\s+Running/.test(out.split("0/1").slice(1).join("0/1")) ? true : undefined));
    watcher.kill();
  });

  it("scale, label and annotate change the stored object", async () => {
    await kubectl.ok(["scale", "statefulset", "web", "--replicas=3"]);
    assert.equal(getPath(get(), ["spec", "replicas"]), 3);
    await kubectl.ok(["label", "statefulset", "web", "tier=frontend"]);
    assert.equal(get()?.metadata.labels?.["tier"], "frontend");
    await kubectl.ok(["annotate", "statefulset", "web", "owner=team-a"]);
    assert.equal(get()?.metadata.annotations?.["owner"], "team-a");
    await kubectl.ok(["label", "statefulset", "web", "tier-"]);
    assert.equal(get()?.metadata.labels?.["tier"], undefined);
  });

  it("patch applies JSON, merge and strategic merge patches", async () => {
    await kubectl.ok(["patch", "statefulset", "web", "--type=json", "-p", '[{"op":"replace","path":"/spec/replicas","value":4}]']);
    assert.equal(getPath(get(), ["spec", "replicas"]), 4);
    await kubectl.ok(["patch", "statefulset", "web", "--type=merge", "-p", '{"metadata":{"labels":{"merged":"yes"}}}']);
    assert.equal(get()?.metadata.labels?.["merged"], "yes");
    await kubectl.ok(["patch", "statefulset", "web", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","env":[{"name":"EXTRA","value":"1"}]}]}}}}']);
    const env = (getPath(get(), ["spec", "template", "spec", "containers"]) as { env: { name: string }[] }[])[0]?.env.map((e) => e.name);
    assert.deepEqual(env, ["EXTRA", "MODE"], "strategic merge merges env by name");
  });

  it("rollout history, undo, restart and status work on ControllerRevisions the test writes", async () => {
    const sts = get();
    assert.ok(sts);
    const template = (image: string) => ({
      spec: {
        template: {
          $patch: "replace",
          metadata: { creationTimestamp: null, labels: { app: "web" } },
          spec: { containers: [{ name: "nginx", image, imagePullPolicy: "IfNotPresent", resources: {}, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" }], dnsPolicy: "ClusterFirst", restartPolicy: "Always", schedulerName: "default-scheduler", securityContext: {}, terminationGracePeriodSeconds: 30 },
        },
      },
    });
    for (const [revision, image] of [[1, "nginx:1.24"], [2, "nginx:1.26"]] as const) {
      const body = {
        apiVersion: "apps/v1",
        kind: "ControllerRevision",
        metadata: {
          name: `web-rev${revision}`,
          labels: { app: "web" },
          ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: sts.metadata.uid, controller: true, blockOwnerDeletion: true }],
        },
        data: template(image),
        revision,
      };
      await kubectl.ok(["create", "-f", "-"], JSON.stringify(body));
    }
    const history = await kubectl.ok(["rollout", "history", "statefulset/web"]);
    assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
    assert.match(history, /^1\s+<none>$/m);
    assert.match(history, /^2\s+<none>$/m);

    const generation = get()?.metadata.generation ?? 0;
    await kubectl.ok(["rollout", "undo", "statefulset/web", "--to-revision=1"]);
    const undone = get();
    assert.equal((getPath(undone, ["spec", "template", "spec", "containers"]) as { image: string }[])[0]?.image, "nginx:1.24");
    assert.equal(undone?.metadata.generation, generation + 1);

    await kubectl.ok(["rollout", "restart", "statefulset/web"]);
    assert.match(String(getPath(get(), ["spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"])), /^\d{4}-\d\d-\d\dT/);

    const status = kubectl.run(["rollout", "status", "statefulset/web", "--timeout=10s"]);
    await new Promise((r) => setTimeout(r, 200));
    const current = get();
    assert.ok(current);
    const replicas = getPath(current, ["spec", "replicas"]) as number;
    const res = await fetch(`${sim.url}/apis/apps/v1/namespaces/default/statefulsets/web/status`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...current, status: { observedGeneration: current.metadata.generation, replicas, readyReplicas: replicas, currentReplicas: replicas, updatedReplicas: replicas, availableReplicas: replicas, currentRevision: "web-rev1", updateRevision: "web-rev1" } }),
    });
    assert.equal(res.status, 200);
    const done = await status;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /partitioned roll out complete: 4 new pods have been updated/);
  });

  it("delete honours --cascade=background, orphan and foreground", async () => {
    const own = async (name: string, pods: number) => {
      await kubectl.ok(["create", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } }));
      const owner = sim.registry.get(mustFind("", "configmaps"), "default", name);
      for (let i = 0; i < pods; i++) {
        await kubectl.ok(["create", "-f", "-"], JSON.stringify({
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: `${name}-${i}`, labels: { owner: name }, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }] },
          spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "c", image: "busybox" }] },
        }));
      }
      await until(`${name} pods to run`, () => (getPath(get(PODS, `${name}-0`), ["status", "phase"]) === "Running" ? true : undefined));
    };
    const podsOf = (name: string) => sim.registry.store.keys("/pods", "default").filter((k) => k.startsWith(`default/${name}-`));

    await own("bg", 2);
    await kubectl.ok(["delete", "configmap", "bg", "--cascade=background"]);
    assert.equal(get(mustFind("", "configmaps"), "bg"), undefined);
    await until("background dependents to go", () => (podsOf("bg").length === 0 ? true : undefined));

    await own("orphan", 2);
    await kubectl.ok(["delete", "configmap", "orphan", "--cascade=orphan"]);
    assert.equal(get(mustFind("", "configmaps"), "orphan"), undefined);
    assert.equal(podsOf("orphan").length, 2);
    assert.equal(get(PODS, "orphan-0")?.metadata.ownerReferences, undefined, "orphaned dependents lose the owner reference");

    await own("fg", 2);
    const deleting = kubectl.run(["delete", "configmap", "fg", "--cascade=foreground"]);
    await until("the owner to wait in foreground deletion", () => (get(mustFind("", "configmaps"), "fg")?.metadata.finalizers?.includes("foregroundDeletion") === true || get(mustFind("", "configmaps"), "fg") === undefined ? true : undefined));
    const r = await deleting;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(podsOf("fg").length, 0, "kubectl waited for the owner, which waited for its blocking dependents");
    assert.equal(get(mustFind("", "configmaps"), "fg"), undefined);

    await kubectl.ok(["delete", "statefulset", "web"]);
    assert.equal(get(), undefined);
    await until("revisions to be collected", () => (sim.registry.tryGet(CR, "default", "web-rev1") === undefined ? true : undefined));
  });
});
