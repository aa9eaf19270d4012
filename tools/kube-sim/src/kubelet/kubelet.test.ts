// The simulated scheduler honours a cordoned node as the default scheduler's NodeUnschedulable plugin does: new pods
// stay Pending with PodScheduled False (reason Unschedulable) until the node is uncordoned, unless they tolerate the
// node.kubernetes.io/unschedulable taint. Checked in-process and with kubectl cordon/uncordon when kubectl is present.
// Also the kubelet's side of a pod spec: probes time Ready, and an image reference that does not parse is
// InvalidImageName.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import { INTERNAL_WRITE } from "../registry/registry.ts";
import { mustFind } from "../resources.ts";
import { Kubectl, findKubectl, simWithKubectl, until } from "../testing/kubectl.ts";
import { invalidImageMessage, probeTimingMs } from "./kubelet.ts";
import type { KubeObject } from "../types.ts";
import { getPath } from "../types.ts";

const PODS = mustFind("", "pods");
const CLAIMS = mustFind("", "persistentvolumeclaims");
const NODES = mustFind("", "nodes");
const binary = findKubectl();

const TOLERATE_CORDON = [{ key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" }];

function pod(name: string, tolerations?: unknown[], claimName?: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      containers: [{ name: "c", image: "nginx:1.27" }],
      ...(tolerations ? { tolerations } : {}),
      ...(claimName !== undefined ? { volumes: [{ name: "data", persistentVolumeClaim: { claimName } }] } : {}),
    },
  };
}

function claim(name: string): KubeObject {
  return { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name, namespace: "default" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
}

describe("kube-sim scheduler: cordoned node", () => {
  let sim: KubeSim;
  let dir: string;
  const nodeName = "cordon-node";

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kube-sim-cordon-"));
    sim = await startKubeSim({ port: 0, kubeconfigOut: join(dir, "kubeconfig"), kubelet: { nodeName, startDelayMs: 20 } });
  });
  after(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (name: string): KubeObject | undefined => sim.registry.tryGet(PODS, "default", name);
  const scheduledCondition = (name: string) =>
    ((getPath(get(name) ?? { metadata: {} }, ["status", "conditions"]) ?? []) as { type: string; status: string; reason?: string; message?: string }[]).find(
      (c) => c.type === "PodScheduled",
    );
  const setUnschedulable = (value: boolean): void => {
    const node = sim.registry.get(NODES, "", nodeName);
    const spec = (node["spec"] ?? {}) as Record<string, unknown>;
    if (value) spec["unschedulable"] = true;
    else delete spec["unschedulable"];
    node["spec"] = spec;
    sim.registry.writeInternal(NODES, node);
  };

  it("keeps new pods Pending and Unschedulable while the node is cordoned, and schedules them once it is not", async () => {
    setUnschedulable(true);
    sim.registry.create(PODS, "default", pod("waits"), INTERNAL_WRITE);
    sim.registry.create(PODS, "default", pod("tolerates", TOLERATE_CORDON), INTERNAL_WRITE);
    const condition = await until("PodScheduled False", () => (scheduledCondition("waits")?.status === "False" ? scheduledCondition("waits") : undefined));
    assert.equal(condition.reason, "Unschedulable");
    assert.match(condition.message ?? "", /1 node\(s\) were unschedulable/);
    // A pod that tolerates the taint goes to the node anyway (as DaemonSet pods do).
    await until("the tolerating pod runs", () => (getPath(get("tolerates") ?? { metadata: {} }, ["status", "phase"]) === "Running" ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(getPath(get("waits") ?? { metadata: {} }, ["spec", "nodeName"]), undefined, "not bound while cordoned");
    assert.equal(getPath(get("waits") ?? { metadata: {} }, ["status", "phase"]), "Pending");
    setUnschedulable(false);
    await until("scheduled after uncordon", () => (getPath(get("waits") ?? { metadata: {} }, ["status", "phase"]) === "Running" ? true : undefined));
    assert.equal(scheduledCondition("waits")?.status, "True");
    assert.equal(getPath(get("waits") ?? { metadata: {} }, ["spec", "nodeName"]), nodeName);
  });

  it("pvc-protection counts only scheduled pods: a claim of a pod that is not scheduled can go", async () => {
    setUnschedulable(true);
    try {
      for (const name of ["of-pending", "of-running"]) sim.registry.create(CLAIMS, "default", claim(name), INTERNAL_WRITE);
      sim.registry.create(PODS, "default", pod("pending-user", undefined, "of-pending"), INTERNAL_WRITE);
      sim.registry.create(PODS, "default", pod("running-user", TOLERATE_CORDON, "of-running"), INTERNAL_WRITE);
      await until("the pending pod is Unschedulable", () => (scheduledCondition("pending-user")?.reason === "Unschedulable" ? true : undefined));
      await until("the other pod runs", () => (getPath(get("running-user") ?? { metadata: {} }, ["status", "phase"]) === "Running" ? true : undefined));
      for (const name of ["of-pending", "of-running"]) sim.registry.delete(CLAIMS, "default", name, {}, INTERNAL_WRITE);
      await until("the pending pod's claim is gone", () => (sim.registry.tryGet(CLAIMS, "default", "of-pending") === undefined ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const kept = sim.registry.tryGet(CLAIMS, "default", "of-running");
      assert.ok(kept?.metadata.deletionTimestamp !== undefined, "the running pod's claim waits for its pod");
      assert.deepEqual(kept.metadata.finalizers, ["kubernetes.io/pvc-protection"]);
    } finally {
      setUnschedulable(false);
    }
  });

  it("kubectl cordon and uncordon", { skip: binary === undefined ? "kubectl is not on the PATH (set KUBECTL to a kubectl 1.32 binary)" : false }, async () => {
    const kubectl = new Kubectl(binary ?? "", join(dir, "kubeconfig"));
    try {
      assert.match(await kubectl.ok(["cordon", nodeName]), /cordoned/);
      assert.equal(getPath(sim.registry.get(NODES, "", nodeName), ["spec", "unschedulable"]), true);
      await kubectl.ok(["run", "cordoned", "--image=nginx:1.27", "--restart=Never"]);
      await until("PodScheduled False", () => (scheduledCondition("cordoned")?.reason === "Unschedulable" ? true : undefined));
      assert.match(await kubectl.ok(["get", "node", nodeName]), /SchedulingDisabled/);
      assert.match(await kubectl.ok(["uncordon", nodeName]), /uncordoned/);
      await until("scheduled after uncordon", () => (getPath(get("cordoned") ?? { metadata: {} }, ["status", "phase"]) === "Running" ? true : undefined));
    } finally {
      kubectl.cleanup();
    }
  });
});

describe("kube-sim kubelet: image references", () => {
  it("parses what distribution/reference parses", () => {
    const digest = `sha256:${"a".repeat(64)}`;
    for (const image of ["nginx", "nginx:1.27", "docker.io/library/nginx:1.27-alpine", "registry.k8s.io/pause:3.10", "localhost:5000/a/b_c", `nginx@${digest}`, `ghcr.io/o/r:v1@${digest}`, "Registry.Example.com/app", "my__repo", "a-b--c"]) {
      assert.equal(invalidImageMessage(image), undefined, image);
    }
  });

  it("rejects what a kubelet cannot pull, with its message", () => {
    for (const image of ["nginx:", "nginx::1", "-nginx", "a//b", "nginx:tag with space", "nginx@sha256:abc", " nginx", "nginx_"]) {
      assert.match(invalidImageMessage(image) ?? "", /^Failed to apply default image tag ".*": couldn't parse image name ".*": invalid reference format$/, image);
    }
    assert.equal(invalidImageMessage("NGINX"), 'Failed to apply default image tag "NGINX": couldn\'t parse image name "NGINX": invalid reference format: repository name must be lowercase');
  });
});

describe("kube-sim kubelet: probes", () => {
  it("times started and Ready from the probes' initial delays, periods and success thresholds", () => {
    assert.deepEqual(probeTimingMs({ name: "c" }), { startedAfterMs: 0, readyAfterMs: 0 });
    assert.deepEqual(probeTimingMs({ readinessProbe: { initialDelaySeconds: 5 } }), { startedAfterMs: 0, readyAfterMs: 5_000 });
    assert.deepEqual(probeTimingMs({ readinessProbe: { initialDelaySeconds: 5, periodSeconds: 2, successThreshold: 3 } }), { startedAfterMs: 0, readyAfterMs: 9_000 });
    assert.deepEqual(probeTimingMs({ startupProbe: { initialDelaySeconds: 7 }, readinessProbe: { initialDelaySeconds: 5 } }), { startedAfterMs: 7_000, readyAfterMs: 7_000 });
  });
});

describe("kube-sim kubelet: pods over the API", () => {
  let sim: KubeSim;
  before(async () => {
    sim = await startKubeSim({ port: 0, kubelet: { startDelayMs: 20 } });
  });
  after(async () => {
    await sim.stop();
  });
  const get = (name: string): KubeObject => sim.registry.tryGet(PODS, "default", name) ?? { metadata: {} };
  const condition = (name: string, type: string) =>
    ((getPath(get(name), ["status", "conditions"]) ?? []) as { type: string; status: string }[]).find((c) => c.type === type)?.status;

  it("an image that does not parse keeps the pod Pending in InvalidImageName until the image is fixed", async () => {
    sim.registry.create(PODS, "default", { ...pod("bad-image"), spec: { containers: [{ name: "c", image: "NGINX:1.27" }] } }, INTERNAL_WRITE);
    const waiting = await until("InvalidImageName", () => {
      const statuses = (getPath(get("bad-image"), ["status", "containerStatuses"]) ?? []) as { state?: { waiting?: { reason?: string; message?: string } } }[];
      const state = statuses[0]?.state?.waiting;
      return state?.reason === "InvalidImageName" ? state : undefined;
    });
    assert.match(waiting.message ?? "", /must be lowercase/);
    assert.equal(getPath(get("bad-image"), ["status", "phase"]), "Pending");
    assert.equal(condition("bad-image", "Ready"), "False");
    const fixed = get("bad-image");
    ((fixed["spec"] as { containers: Record<string, unknown>[] }).containers[0] ?? {})["image"] = "nginx:1.27";
    sim.registry.writeInternal(PODS, fixed);
    await until("Running once the image parses", () => (getPath(get("bad-image"), ["status", "phase"]) === "Running" ? true : undefined));
  });

  it("a readiness probe's initial delay holds Ready; the ready annotation overrides it", async () => {
    const probed = (name: string, annotations?: Record<string, string>): KubeObject => ({
      ...pod(name),
      metadata: { name, namespace: "default", ...(annotations ? { annotations } : {}) },
      spec: { containers: [{ name: "c", image: "nginx:1.27", readinessProbe: { httpGet: { path: "/", port: 80 }, initialDelaySeconds: 1 } }] },
    });
    sim.registry.create(PODS, "default", probed("probed"), INTERNAL_WRITE);
    sim.registry.create(PODS, "default", probed("forced", { "sim.stsfleet.dev/ready": "true" }), INTERNAL_WRITE);
    const createdAt = Date.now();
    await until("Running", () => (getPath(get("probed"), ["status", "phase"]) === "Running" ? true : undefined));
    await until("the forced pod is Ready at once", () => (condition("forced", "Ready") === "True" ? true : undefined));
    assert.equal(condition("probed", "Ready"), "False", "not Ready before the probe's initial delay");
    await until("Ready after the initial delay", () => (condition("probed", "Ready") === "True" ? true : undefined), 5_000);
    assert.ok(Date.now() - createdAt >= 1_000, `Ready ${Date.now() - createdAt} ms after creation (initialDelaySeconds 1)`);
  });
});

describe("kube-sim kubelet: logs and container streams", () => {
  const env = simWithKubectl("kube-sim-logs-", binary);
  const podPath = (name: string, sub: string) => `${env.sim.url}/api/v1/namespaces/default/pods/${name}/${sub}`;

  it("pods/log returns the simulated kubelet's lines, with the apiserver's errors for ambiguous or waiting containers", async () => {
    env.sim.registry.create(PODS, "default", pod("logged"), INTERNAL_WRITE);
    env.sim.registry.create(PODS, "default", { ...pod("two"), spec: { containers: [{ name: "a", image: "nginx:1.27" }, { name: "b", image: "nginx:1.27" }] } }, INTERNAL_WRITE);
    env.sim.registry.create(PODS, "default", { ...pod("bad"), spec: { containers: [{ name: "c", image: "NGINX" }] } }, INTERNAL_WRITE);
    await until("running", () => (getPath(env.sim.registry.tryGet(PODS, "default", "logged") ?? { metadata: {} }, ["status", "phase"]) === "Running" ? true : undefined));
    await until("two running", () => (getPath(env.sim.registry.tryGet(PODS, "default", "two") ?? { metadata: {} }, ["status", "phase"]) === "Running" ? true : undefined));
    const log = await fetch(podPath("logged", "log"));
    assert.equal(log.status, 200);
    assert.match(await log.text(), /^kube-sim: container started from image nginx:1\.27 on node .*nothing else is logged\n$/);
    const stamped = await (await fetch(`${podPath("logged", "log")}?timestamps=true`)).text();
    assert.match(stamped, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z kube-sim: container started/);
    assert.equal(await (await fetch(`${podPath("logged", "log")}?tailLines=0`)).text(), "");
    const ambiguous = await fetch(podPath("two", "log"));
    assert.equal(ambiguous.status, 400);
    assert.equal(((await ambiguous.json()) as { message: string }).message, "a container name must be specified for pod two, choose one of: [a b]");
    assert.equal((await fetch(`${podPath("two", "log")}?container=b`)).status, 200);
    await until("bad image waits", () => (getPath(env.sim.registry.tryGet(PODS, "default", "bad") ?? { metadata: {} }, ["status", "containerStatuses"]) !== undefined ? true : undefined));
    const waiting = await fetch(podPath("bad", "log"));
    assert.equal(waiting.status, 400);
    assert.equal(((await waiting.json()) as { message: string }).message, 'container "c" in pod "bad" is waiting to start: InvalidImageName');
  });

  it("exec, attach and port-forward answer a Status that nothing runs (not a NotFound)", async () => {
    env.sim.registry.create(PODS, "default", pod("streams"), INTERNAL_WRITE);
    for (const sub of ["exec?command=sh", "attach", "portforward?ports=80"]) {
      const res = await fetch(podPath("streams", sub), { method: "POST" });
      assert.equal(res.status, 400, sub);
      const status = (await res.json()) as { reason: string; message: string };
      assert.equal(status.reason, "BadRequest");
      assert.match(status.message, /^kube-sim runs no containers: (exec|attach|portforward) to pod "streams" is not possible/);
    }
    assert.equal((await fetch(podPath("missing", "exec?command=sh"), { method: "POST" })).status, 404, "a pod that does not exist is still a NotFound");
  });

  it("kubectl logs, exec and port-forward", { skip: binary === undefined ? "kubectl is not on the PATH (set KUBECTL to a kubectl 1.32 binary)" : false }, async () => {
    await env.kubectl.ok(["run", "shell", "--image=nginx:1.27", "--restart=Never"]);
    await until("running", () => (getPath(env.sim.registry.tryGet(PODS, "default", "shell") ?? { metadata: {} }, ["status", "phase"]) === "Running" ? true : undefined));
    assert.match(await env.kubectl.ok(["logs", "shell"]), /kube-sim: container started from image nginx:1\.27/);
    const exec = await env.kubectl.run(["exec", "shell", "--", "sh", "-c", "true"]);
    assert.notEqual(exec.code, 0);
    assert.match(exec.stderr, /kube-sim runs no containers/);
  });
});
