// An operator's day with kubectl 1.32 against the simulator alone (no StatefulSet controller runs here, so the set's
// pods and revisions do not appear): each command's exit code and the shape of its output, and what the server
// stored. Server-side apply runs as against a real server: field managers, a conflict after `kubectl scale`, its
// resolution with --force-conflicts, and `kubectl diff --server-side`.
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { mustFind } from "./resources.ts";
import { findKubectl, simWithKubectl, until } from "./testing/kubectl.ts";
import { getPath } from "./types.ts";

const binary = findKubectl();
const skip = binary === undefined ? "kubectl is not on the PATH (set KUBECTL to a kubectl 1.32 binary)" : false;
const STS = mustFind("apps", "statefulsets");
const PODS = mustFind("", "pods");
const NODES = mustFind("", "nodes");

const STATEFULSET = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: day}
spec:
  serviceName: web
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: "nginx:1.27"}]}
`;

describe("kubectl 1.32: an operator's day against the simulator", { skip, concurrency: false }, () => {
  const env = simWithKubectl("kube-sim-transcript-", binary);
  const k = (...args: string[]) => env.kubectl.ok(args);
  const sts = () => env.sim.registry.get(STS, "day", "web");

  it("creates a namespace, a ConfigMap and a Service with the typed generators (protobuf bodies)", async () => {
    assert.match(await k("create", "namespace", "day"), /^namespace\/day created$/m);
    assert.match(await k("-n", "day", "create", "configmap", "cfg", "--from-literal=a=b"), /^configmap\/cfg created$/m);
    assert.match(await k("-n", "day", "create", "service", "clusterip", "web", "--tcp=80:80"), /^service\/web created$/m);
  });

  it("applies a StatefulSet, diffs it (no change, then a change), and explains its fields", async () => {
    const file = join(env.dir, "sts.yaml");
    writeFileSync(file, STATEFULSET);
    assert.match(await k("apply", "-f", file), /^statefulset\.apps\/web created$/m);
    assert.equal(await k("diff", "-f", file), "", "no difference right after the apply");
    writeFileSync(file, STATEFULSET.replace("replicas: 2", "replicas: 4"));
    const diff = await env.kubectl.run(["diff", "-f", file]);
    assert.equal(diff.code, 1, `kubectl diff exits 1 when there is a difference: ${diff.stderr}`);
    assert.match(diff.stdout, /^- {2}replicas: 2$/m);
    assert.match(diff.stdout, /^\+ {2}replicas: 4$/m);
    assert.equal(getPath(sts(), ["spec", "replicas"]), 2, "diff is a dry run");
    assert.match(await k("explain", "statefulset.spec.updateStrategy"), /FIELDS:[\s\S]*rollingUpdate[\s\S]*type/);
  });

  it("server-side apply: create, reapply a change, conflict after kubectl scale, --force-conflicts, managed fields", async () => {
    const file = join(env.dir, "ssa.yaml");
    const manifest = STATEFULSET.replace("name: web,", "name: ssa,").replaceAll("app: web", "app: ssa").replace("serviceName: web", "serviceName: ssa");
    writeFileSync(file, manifest);
    assert.match(await k("apply", "--server-side", "-f", file), /^statefulset\.apps\/ssa serverside-applied$/m);
    writeFileSync(file, manifest.replace("nginx:1.27", "nginx:1.29"));
    assert.match(await k("apply", "--server-side", "-f", file), /serverside-applied/, "the same manager changes its own field: no conflict");
    const ssa = () => env.sim.registry.get(STS, "day", "ssa");
    assert.equal((getPath(ssa(), ["spec", "template", "spec", "containers"]) as { image: string }[])[0]?.image, "nginx:1.29");
    assert.match(await k("-n", "day", "scale", "sts", "ssa", "--replicas=3"), /scaled/);
    const conflict = await env.kubectl.run(["apply", "--server-side", "-f", file]);
    assert.equal(conflict.code, 1, conflict.stderr);
    // kubectl scale sends no fieldManager, so its User-Agent names the manager: "kubectl", or the binary's name (kubectl.1.32).
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl[.\d]*" with subresource "scale" using apps\/v1: \.spec\.replicas/);
    assert.match(conflict.stderr, /--force-conflicts/);
    assert.equal(getPath(ssa(), ["spec", "replicas"]), 3);
    assert.match(await k("apply", "--server-side", "--force-conflicts", "-f", file), /serverside-applied/);
    assert.equal(getPath(ssa(), ["spec", "replicas"]), 2);
    const yaml = await k("-n", "day", "get", "sts", "ssa", "-o", "yaml", "--show-managed-fields");
    assert.match(yaml, /managedFields:\n {2}- apiVersion: apps\/v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n {6}f:spec:\n {8}f:replicas: \{\}/);
    assert.match(yaml, /k:\{"name":"c"\}:\n {16}\.: \{\}\n {16}f:image: \{\}\n {16}f:name: \{\}/);
    assert.match(yaml, /manager: kubectl\n {4}operation: Apply\n {4}time: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/);
    assert.doesNotMatch(await k("-n", "day", "get", "sts", "ssa", "-o", "yaml"), /managedFields/, "kubectl hides them unless asked");
  });

  it("kubectl diff --server-side: nothing for an unchanged file (exit 0), a diff for a change (exit 1, nothing stored)", async () => {
    const file = join(env.dir, "ssa.yaml");
    const same = await env.kubectl.run(["diff", "--server-side", "-f", file]);
    assert.deepEqual([same.code, same.stdout], [0, ""], same.stderr);
    const rv = env.sim.registry.get(STS, "day", "ssa").metadata.resourceVersion;
    writeFileSync(file, STATEFULSET.replace("name: web,", "name: ssa,").replaceAll("app: web", "app: ssa").replace("serviceName: web", "serviceName: ssa").replace("nginx:1.27", "nginx:1.30"));
    const changed = await env.kubectl.run(["diff", "--server-side", "-f", file]);
    assert.equal(changed.code, 1, changed.stderr);
    assert.match(changed.stdout, /^- {6}- image: nginx:1\.29$/m);
    assert.match(changed.stdout, /^\+ {6}- image: nginx:1\.30$/m);
    assert.equal(env.sim.registry.get(STS, "day", "ssa").metadata.resourceVersion, rv, "a server-side dry run stores nothing");
  });

  it("server-side apply over the client-side applied set takes its fields (kubectl's upgrade path)", async () => {
    const file = join(env.dir, "sts.yaml");
    assert.match(await k("apply", "--server-side", "-f", file), /statefulset\.apps\/web serverside-applied/);
    assert.equal(getPath(sts(), ["spec", "replicas"]), 4);
    const managers = (sts().metadata["managedFields"] as { manager: string; operation: string }[]).map((e) => `${e.manager}/${e.operation}`);
    assert.ok(managers.includes("kubectl/Apply"), managers.join(" "));
  });

  it("edits with KUBE_EDITOR and waits for a jsonpath value", async () => {
    const editor = join(env.dir, "edit.sh");
    writeFileSync(editor, "#!/bin/sh\nsed -i 's/image: nginx:1.29/image: nginx:1.31/' \"$1\"\n");
    chmodSync(editor, 0o755);
    const edit = await env.kubectl.run(["-n", "day", "edit", "sts", "ssa"], undefined, { KUBE_EDITOR: editor });
    assert.equal(edit.code, 0, edit.stderr);
    assert.match(edit.stdout, /statefulset\.apps\/ssa edited/);
    const stored = env.sim.registry.get(STS, "day", "ssa");
    assert.equal((getPath(stored, ["spec", "template", "spec", "containers"]) as { image: string }[])[0]?.image, "nginx:1.31");
    assert.ok((stored.metadata["managedFields"] as { manager: string }[]).some((e) => e.manager === "kubectl-edit"));
    const wait = k("-n", "day", "wait", "--for=jsonpath={.spec.replicas}=5", "sts/ssa", "--timeout=20s");
    await k("-n", "day", "scale", "sts", "ssa", "--replicas=5");
    assert.match(await wait, /condition met/);
  });

  it("labels, annotates and patches (merge, JSON, strategic) and scales", async () => {
    assert.match(await k("-n", "day", "label", "sts", "web", "tier=backend"), /labeled/);
    assert.match(await k("-n", "day", "annotate", "sts", "web", "note=day"), /annotated/);
    assert.match(await k("-n", "day", "patch", "sts", "web", "--type=merge", "-p", '{"spec":{"replicas":3}}'), /patched/);
    assert.match(await k("-n", "day", "patch", "sts", "web", "--type=json", "-p", '[{"op":"replace","path":"/spec/minReadySeconds","value":5}]'), /patched/);
    assert.match(await k("-n", "day", "patch", "sts", "web", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}}}}'), /patched/);
    assert.match(await k("-n", "day", "scale", "sts", "web", "--replicas=1"), /scaled/);
    const stored = sts();
    assert.equal(stored.metadata.labels?.["tier"], "backend");
    assert.equal(stored.metadata.annotations?.["note"], "day");
    assert.equal(getPath(stored, ["spec", "minReadySeconds"]), 5);
    assert.equal(getPath(stored, ["spec", "replicas"]), 1);
    assert.deepEqual((getPath(stored, ["spec", "template", "spec", "containers"]) as { image: string }[]).map((c) => c.image), ["nginx:1.28"]);
  });

  it("rollout restart stamps the template; pause is refused as upstream's kubectl refuses it for StatefulSets", async () => {
    assert.match(await k("-n", "day", "rollout", "restart", "sts", "web"), /restarted/);
    assert.ok(getPath(sts(), ["spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"]) !== undefined);
    const pause = await env.kubectl.run(["-n", "day", "rollout", "pause", "sts", "web"]);
    assert.notEqual(pause.code, 0);
    assert.match(pause.stderr, /pausing is not supported/);
  });

  it("runs a pod, waits for it, reads its logs and events, watches it, cordons and drains", async () => {
    assert.match(await k("-n", "day", "run", "shell", "--image=nginx:1.27", "--restart=Never"), /pod\/shell created/);
    assert.match(await k("-n", "day", "wait", "--for=condition=Ready", "pod/shell", "--timeout=20s"), /condition met/);
    assert.match(await k("-n", "day", "logs", "shell"), /kube-sim: container started from image nginx:1\.27/);
    const watch = env.kubectl.spawn(["-n", "day", "get", "pods", "-w", "--output-watch-events"]);
    let seen = "";
    watch.stdout?.on("data", (chunk: Buffer) => (seen += chunk.toString()));
    try {
      await until("the watch lists the pod", () => (/shell/.test(seen) ? true : undefined), 10_000);
      await k("-n", "day", "label", "pod", "shell", "seen=yes");
      await until("the watch shows the change", () => (/MODIFIED\s+shell/.test(seen) ? true : undefined), 10_000);
    } finally {
      watch.kill();
    }
    const node = (await k("get", "nodes", "-o", "name")).trim().replace(/^node\//, "");
    assert.match(await k("cordon", node), /cordoned/);
    assert.equal(getPath(env.sim.registry.get(NODES, "", node), ["spec", "unschedulable"]), true);
    assert.match(await k("drain", node, "--ignore-daemonsets", "--force", "--timeout=30s"), /drained/);
    await until("the pod is evicted", () => (env.sim.registry.tryGet(PODS, "day", "shell") === undefined ? true : undefined), 10_000);
    assert.match(await k("uncordon", node), /uncordoned/);
    const events = await env.kubectl.run(["-n", "day", "events"]);
    assert.equal(events.code, 0, events.stderr);
    // No controller runs here to record Events: kubectl says so on stderr, as against a real server.
    assert.match(events.stdout + events.stderr, /LAST SEEN|No events found in day namespace/);
  });

  it("deletes with each cascade", async () => {
    assert.match(await k("-n", "day", "delete", "configmap", "cfg", "--cascade=foreground"), /deleted/);
    assert.match(await k("-n", "day", "delete", "service", "web", "--cascade=orphan"), /deleted/);
    assert.match(await k("-n", "day", "delete", "sts", "web", "--cascade=background"), /deleted/);
    await until("the set is gone", () => (env.sim.registry.tryGet(STS, "day", "web") === undefined ? true : undefined), 10_000);
    assert.match(await k("delete", "namespace", "day"), /deleted/);
  });
});
