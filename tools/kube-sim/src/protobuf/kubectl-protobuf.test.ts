// kubectl 1.32's typed commands speak protobuf (`Content-Type: application/vnd.kubernetes.protobuf`, `Accept:
// application/vnd.kubernetes.protobuf,application/json`), as every client-go program does. Each command here is
// checked against what the simulator stored, and against the same object sent through kubectl's JSON path
// (`--dry-run=client -o json | kubectl create -f -`): both must store the same thing.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DEFAULT_KUBELET } from "../kubelet/kubelet.ts";
import { mustFind } from "../resources.ts";
import type { ResourceInfo } from "../resources.ts";
import { findKubectl, simWithKubectl, until } from "../testing/kubectl.ts";
import type { KubeObject } from "../types.ts";

const binary = findKubectl();
const skip = binary === undefined ? "kubectl is not on the PATH (set KUBECTL to a kubectl 1.32 binary)" : false;

const NAMESPACES = mustFind("", "namespaces");
const CONFIGMAPS = mustFind("", "configmaps");
const SERVICES = mustFind("", "services");
const PODS = mustFind("", "pods");
const NODES = mustFind("", "nodes");

/** `obj` without what differs between two creations (identity, times including managedFields' entries, allocated IPs and ports), `from` renamed to `to`. */
function comparable(obj: KubeObject | undefined, from: string, to: string): unknown {
  assert.ok(obj !== undefined, `${from} was stored`);
  const text = JSON.stringify(obj).split(from).join(to);
  return JSON.parse(text, (key, value: unknown) => (["uid", "resourceVersion", "creationTimestamp", "time", "clusterIP", "clusterIPs", "nodePort"].includes(key) ? undefined : value)) as unknown;
}

describe("kubectl 1.32 typed commands in protobuf", { skip }, () => {
  const env = simWithKubectl("kube-sim-kubectl-pb-", binary);

  const stored = (info: ResourceInfo, name: string, ns = "default"): KubeObject | undefined => env.sim.registry.tryGet(info, ns, name);

  /** Runs a `kubectl create ...` twice: as is (protobuf) and through `-o json | create -f -` (JSON) under `jsonName`. */
  async function createBothWays(args: string[], name: string, jsonName: string): Promise<void> {
    const out = await env.kubectl.ok(args);
    assert.match(out, new RegExp(`/${name} created`));
    const json = await env.kubectl.ok([...args.map((a) => (a === name ? jsonName : a)), "--dry-run=client", "-o", "json"]);
    assert.match(await env.kubectl.ok(["create", "-f", "-"], json), new RegExp(`/${jsonName} created`));
  }

  it("create namespace sends and receives protobuf, and stores what the JSON path stores", async () => {
    const verbose = await env.kubectl.run(["create", "namespace", "demo", "-v=8"]);
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.match(verbose.stderr, /POST http:\/\/[^ ]+\/api\/v1\/namespaces\?/);
    assert.match(verbose.stderr, /Content-Type: application\/vnd\.kubernetes\.protobuf\n/);
    assert.match(verbose.stderr, /Accept: application\/vnd\.kubernetes\.protobuf,application\/json/);
    assert.match(verbose.stderr, /Response Status: 201 Created/);
    const ns = stored(NAMESPACES, "demo", "");
    assert.deepEqual(ns?.metadata.labels, { "kubernetes.io/metadata.name": "demo" });
    assert.deepEqual(ns?.["spec"], { finalizers: ["kubernetes"] });
    assert.deepEqual(ns?.["status"], { phase: "Active" });
    assert.match(ns?.metadata.creationTimestamp ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const json = await env.kubectl.ok(["create", "namespace", "demo-json", "--dry-run=client", "-o", "json"]);
    await env.kubectl.ok(["create", "-f", "-"], json);
    assert.deepEqual(comparable(stored(NAMESPACES, "demo", ""), "demo", "X"), comparable(stored(NAMESPACES, "demo-json", ""), "demo-json", "X"));
  });

  it("a protobuf Status reaches kubectl: create namespace twice is AlreadyExists", async () => {
    const again = await env.kubectl.run(["create", "namespace", "demo"]);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /Error from server \(AlreadyExists\): namespaces "demo" already exists/);
  });

  it("create configmap --from-literal and --from-file (binary content goes to binaryData)", async () => {
    const blob = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80, 10, 13]);
    writeFileSync(join(env.dir, "blob.bin"), blob);
    writeFileSync(join(env.dir, "conf.txt"), "line one\nline two\n");
    await createBothWays(
      ["create", "configmap", "settings", "-n", "demo", "--from-literal=a=1", "--from-literal=empty=", `--from-file=${join(env.dir, "blob.bin")}`, `--from-file=${join(env.dir, "conf.txt")}`],
      "settings",
      "settings-json",
    );
    const cm = stored(CONFIGMAPS, "settings", "demo");
    assert.deepEqual(cm?.["data"], { a: "1", empty: "", "conf.txt": "line one\nline two\n" });
    assert.deepEqual(cm?.["binaryData"], { "blob.bin": blob.toString("base64") });
    assert.deepEqual(comparable(cm, "settings", "X"), comparable(stored(CONFIGMAPS, "settings-json", "demo"), "settings-json", "X"));
  });

  it("create service clusterip, headless (--clusterip=None), nodeport, loadbalancer and externalname", async () => {
    await createBothWays(["create", "service", "clusterip", "web", "-n", "demo", "--tcp=80:8080", "--tcp=443:https"], "web", "web-json");
    const web = stored(SERVICES, "web", "demo");
    const spec = web?.["spec"] as Record<string, unknown>;
    assert.equal(spec["type"], "ClusterIP");
    assert.match(String(spec["clusterIP"]), /^10\./);
    assert.deepEqual(spec["ports"], [
      { name: "80-8080", protocol: "TCP", port: 80, targetPort: 8080 },
      { name: "443-https", protocol: "TCP", port: 443, targetPort: "https" },
    ]);
    assert.deepEqual(spec["selector"], { app: "web" });
    assert.deepEqual(comparable(web, "web", "X"), comparable(stored(SERVICES, "web-json", "demo"), "web-json", "X"));

    await createBothWays(["create", "service", "clusterip", "peers", "-n", "demo", "--clusterip=None", "--tcp=5432"], "peers", "peers-json");
    const peers = stored(SERVICES, "peers", "demo");
    assert.equal((peers?.["spec"] as Record<string, unknown>)["clusterIP"], "None");
    assert.deepEqual(comparable(peers, "peers", "X"), comparable(stored(SERVICES, "peers-json", "demo"), "peers-json", "X"));

    await createBothWays(["create", "service", "nodeport", "np", "-n", "demo", "--tcp=80:8080", "--node-port=30080"], "np", "np-json2");
    const np = stored(SERVICES, "np", "demo");
    assert.equal((np?.["spec"] as Record<string, unknown>)["type"], "NodePort");
    assert.equal(((np?.["spec"] as Record<string, unknown>)["ports"] as Record<string, unknown>[])[0]?.["nodePort"], 30080);

    await createBothWays(["create", "service", "loadbalancer", "lb", "-n", "demo", "--tcp=80:8080"], "lb", "lb-json2");
    assert.equal((stored(SERVICES, "lb", "demo")?.["spec"] as Record<string, unknown>)["type"], "LoadBalancer");
    assert.deepEqual(comparable(stored(SERVICES, "lb", "demo"), "lb", "X"), comparable(stored(SERVICES, "lb-json2", "demo"), "lb-json2", "X"));

    await createBothWays(["create", "service", "externalname", "extdb", "-n", "demo", "--external-name=db.example.com"], "extdb", "extdb-json2");
    const ext = stored(SERVICES, "extdb", "demo");
    assert.equal((ext?.["spec"] as Record<string, unknown>)["externalName"], "db.example.com");
    assert.deepEqual(comparable(ext, "extdb", "X"), comparable(stored(SERVICES, "extdb-json2", "demo"), "extdb-json2", "X"));
  });

  it("run, cordon, drain (protobuf lists, Node patches and policy/v1 Evictions) and uncordon", async () => {
    await env.kubectl.ok(["run", "solo", "-n", "demo", "--image=nginx", "--labels=app=solo"]);
    const pod = stored(PODS, "solo", "demo");
    assert.equal((pod?.["spec"] as { containers: { image: string }[] }).containers[0]?.image, "nginx");
    assert.deepEqual(pod?.metadata.labels, { app: "solo" });
    await until("solo to run", () => ((stored(PODS, "solo", "demo")?.["status"] as { phase?: string } | undefined)?.phase === "Running" ? true : undefined));
    const nodeName = DEFAULT_KUBELET.nodeName;
    assert.ok(stored(NODES, nodeName, ""), "the simulated node is served");
    assert.match(await env.kubectl.ok(["cordon", nodeName]), /cordoned/);
    assert.equal((stored(NODES, nodeName, "")?.["spec"] as { unschedulable?: boolean }).unschedulable, true);
    const drained = await env.kubectl.run(["drain", nodeName, "--force", "--ignore-daemonsets", "--timeout=20s"]);
    assert.equal(drained.code, 0, drained.stderr);
    assert.match(drained.stdout, /pod\/solo evicted/);
    assert.equal(stored(PODS, "solo", "demo"), undefined);
    assert.match(await env.kubectl.ok(["uncordon", nodeName]), /uncordoned/);
    assert.equal((stored(NODES, nodeName, "")?.["spec"] as { unschedulable?: boolean }).unschedulable, undefined);
  });
});
