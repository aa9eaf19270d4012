// Server-side apply and managedFields over real HTTP: what a client sees (status codes, Status bodies,
// managedFields entries) and what the simulator stores.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import { kubeProtobuf } from "../protobuf/index.ts";
import { mustFind } from "../resources.ts";
import { getPath } from "../types.ts";
import type { ManagedFieldsEntry } from "./managed.ts";

const STS = mustFind("apps", "statefulsets");
const CMS = mustFind("", "configmaps");
const BASE = "/apis/apps/v1/namespaces/default/statefulsets";
const APPLY = "application/apply-patch+yaml";

const STS_YAML = (replicas: number, image = "nginx:1.27") => `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: ${replicas}
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
        image: "${image}"
        ports: [{containerPort: 80}]
`;

interface Res {
  status: number;
  body: Record<string, unknown>;
}

describe("server-side apply over HTTP", () => {
  let sim: KubeSim;
  const call = async (method: string, path: string, body: string | object | undefined, contentType = "application/json", userAgent = "kube-sim-test/1.0 (linux/amd64) kubernetes/x"): Promise<Res> => {
    const init: RequestInit = { method, headers: { "Content-Type": contentType, "User-Agent": userAgent } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const res = await fetch(`${sim.url}${path}`, init);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const managed = (obj: unknown) => (getPath(obj, ["metadata", "managedFields"]) ?? []) as ManagedFieldsEntry[];

  before(async () => {
    sim = await startKubeSim({ kubelet: { startDelayMs: 10, terminationDelayMs: 10, bindDelayMs: 1 } });
  });
  after(async () => {
    await sim.stop();
  });

  it("refuses apply without fieldManager (422 PatchOptions Invalid) and force on other patch types", async () => {
    const missing = await call("PATCH", `${BASE}/web`, STS_YAML(1), APPLY);
    assert.equal(missing.status, 422);
    assert.equal(missing.body["message"], 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    assert.deepEqual(getPath(missing.body, ["details", "causes"]), [{ reason: "FieldValueRequired", message: "Required value: is required for apply patch", field: "fieldManager" }]);
    const forced = await call("PATCH", `${BASE}/web?force=true`, { spec: {} }, "application/merge-patch+json");
    assert.equal(forced.status, 422);
    assert.equal(forced.body["message"], 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it("an apply of a missing object creates it (201) with one Apply entry; a dry run stores nothing", async () => {
    const rv = sim.registry.store.currentRv;
    const dry = await call("PATCH", `${BASE}/web?fieldManager=tester&dryRun=All`, STS_YAML(2), APPLY);
    assert.equal(dry.status, 201);
    assert.equal(sim.registry.tryGet(STS, "default", "web"), undefined);
    assert.equal(sim.registry.store.currentRv, rv, "a dry run bumps no resourceVersion");
    const created = await call("PATCH", `${BASE}/web?fieldManager=tester`, STS_YAML(2), APPLY);
    assert.equal(created.status, 201);
    const entries = managed(created.body);
    assert.deepEqual(entries.map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsType]), [["tester", "Apply", "apps/v1", "FieldsV1"]]);
    assert.deepEqual(getPath(entries[0], ["fieldsV1", "f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"c"}', "f:ports"]), { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } });
    assert.equal(getPath(created.body, ["spec", "podManagementPolicy"]), "OrderedReady", "the result is defaulted");
  });

  it("a changed field from the same manager applies without conflict; JSON bodies work too", async () => {
    const res = await call("PATCH", `${BASE}/web?fieldManager=tester`, JSON.stringify({ apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "web" }, spec: { replicas: 3, serviceName: "web", selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx:1.28", ports: [{ containerPort: 80 }] }] } } } }), APPLY);
    assert.equal(res.status, 200);
    assert.equal(getPath(sim.registry.get(STS, "default", "web"), ["spec", "replicas"]), 3);
  });

  it("an update by another manager takes the field; applying a different value is a 409 with causes; force takes it back", async () => {
    const scaled = await call("PATCH", `${BASE}/web/scale`, { spec: { replicas: 5 } }, "application/merge-patch+json", "kubectl/v1.32.4 (linux/amd64) kubernetes/abc");
    assert.equal(scaled.status, 200);
    const scaleEntry = managed(sim.registry.get(STS, "default", "web")).find((e) => e.subresource === "scale");
    assert.deepEqual(scaleEntry, { manager: "kubectl", operation: "Update", apiVersion: "apps/v1", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } }, subresource: "scale" });
    const conflict = await call("PATCH", `${BASE}/web?fieldManager=tester`, STS_YAML(3, "nginx:1.28"), APPLY);
    assert.equal(conflict.status, 409);
    assert.deepEqual(conflict.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas',
      reason: "Conflict",
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "kubectl" with subresource "scale" using apps/v1', field: ".spec.replicas" }] },
      code: 409,
    });
    // The same value as the live one is shared ownership, not a conflict.
    const shared = await call("PATCH", `${BASE}/web?fieldManager=tester`, STS_YAML(5, "nginx:1.28"), APPLY);
    assert.equal(shared.status, 200);
    const forced = await call("PATCH", `${BASE}/web?fieldManager=tester&force=true`, STS_YAML(4, "nginx:1.28"), APPLY);
    assert.equal(forced.status, 200);
    assert.equal(getPath(forced.body, ["spec", "replicas"]), 4);
    assert.deepEqual(managed(forced.body).map((e) => e.manager), ["tester"], "the scale manager lost its only field");
  });

  it("an apply with nothing new is a no-op: same resourceVersion, no new entry time", async () => {
    const before = sim.registry.get(STS, "default", "web");
    const again = await call("PATCH", `${BASE}/web?fieldManager=tester`, STS_YAML(4, "nginx:1.28"), APPLY);
    assert.equal(again.status, 200);
    assert.equal(getPath(again.body, ["metadata", "resourceVersion"]), before.metadata.resourceVersion);
    assert.deepEqual(managed(again.body), managed(before));
  });

  it("rejects a wrong kind, client managedFields and undeclared fields as upstream does", async () => {
    const kind = await call("PATCH", `${BASE}/web?fieldManager=tester`, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n", APPLY);
    assert.deepEqual([kind.status, kind.body["message"]], [400, "invalid object type: /v1, Kind=ConfigMap"]);
    const mf = await call("PATCH", `${BASE}/web?fieldManager=tester`, `${STS_YAML(4)}`.replace("metadata:\n  name: web", "metadata:\n  name: web\n  managedFields: []"), APPLY);
    assert.deepEqual([mf.status, mf.body["message"]], [400, "metadata.managedFields must be nil"]);
    const unknown = await call("PATCH", `${BASE}/web?fieldManager=tester`, STS_YAML(4).replace("  serviceName: web", "  serviceName: web\n  bogus: 1"), APPLY);
    assert.equal(unknown.status, 500);
    assert.equal(unknown.body["message"], "failed to create typed patch object (/web; apps/v1, Kind=StatefulSet): .spec.bogus: field not declared in schema");
    const yaml = await call("PATCH", `${BASE}/web?fieldManager=tester`, "a: [", APPLY);
    assert.equal(yaml.status, 400);
    assert.match(String(yaml.body["message"]), /^error decoding YAML: /);
  });

  it("records Update entries for create, update and patch: fieldManager, else the User-Agent's prefix", async () => {
    const cm = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "cfg" }, data: { a: "1" } }, "application/json", "kubectl/v1.32.4 (linux/amd64) kubernetes/abc");
    assert.equal(cm.status, 201);
    assert.deepEqual(managed(cm.body).map((e) => [e.manager, e.operation, e.fieldsV1]), [["kubectl", "Update", { "f:data": { ".": {}, "f:a": {} } }]]);
    const patched = await call("PATCH", "/api/v1/namespaces/default/configmaps/cfg?fieldManager=kubectl-patch", { data: { b: "2" } }, "application/merge-patch+json");
    assert.deepEqual(managed(patched.body).map((e) => [e.manager, e.fieldsV1]), [
      ["kubectl", { "f:data": { ".": {}, "f:a": {} } }],
      ["kubectl-patch", { "f:data": { "f:b": {} } }],
    ]);
    // A PUT that sends managedFields: [] resets them; the writer then owns what it changed only.
    const current = sim.registry.get(CMS, "default", "cfg");
    const put = await call("PUT", "/api/v1/namespaces/default/configmaps/cfg?fieldManager=editor", { ...current, metadata: { ...current.metadata, managedFields: [] }, data: { a: "1", b: "3" } });
    assert.equal(put.status, 200);
    assert.deepEqual(managed(put.body).map((e) => [e.manager, e.fieldsV1]), [["editor", { "f:data": { "f:b": {} } }]]);
    // Invalid managedFields from a client are replaced by the live ones.
    const stored = sim.registry.get(CMS, "default", "cfg");
    const bad = await call("PUT", "/api/v1/namespaces/default/configmaps/cfg?fieldManager=editor", { ...stored, metadata: { ...stored.metadata, managedFields: [{ manager: "x", operation: "Sideways" }] } });
    assert.equal(bad.status, 200);
    assert.deepEqual(managed(bad.body), managed(stored));
    const tooLong = await call("POST", `/api/v1/namespaces/default/configmaps?fieldManager=${"m".repeat(129)}`, { metadata: { name: "long" } });
    assert.deepEqual([tooLong.status, tooLong.body["message"]], [422, 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes']);
  });

  it("status writes record subresource status and never own spec", async () => {
    const res = await call("PATCH", `${BASE}/web/status?fieldManager=sts-controller`, { status: { replicas: 1, availableReplicas: 0 } }, "application/merge-patch+json");
    assert.equal(res.status, 200);
    const entry = managed(res.body).find((e) => e.manager === "sts-controller");
    assert.deepEqual([entry?.subresource, entry?.fieldsV1], ["status", { "f:status": { "f:replicas": {} } }]);
  });

  it("an object with the entries of apply, update, scale and status writes round-trips through protobuf", async () => {
    const stored = sim.registry.get(STS, "default", "web");
    assert.ok(managed(stored).length >= 2);
    assert.deepEqual(kubeProtobuf().decode(kubeProtobuf().encode(stored as unknown as Record<string, unknown>)).object, stored);
    const res = await fetch(`${sim.url}${BASE}/web`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
    assert.equal(res.status, 200);
    assert.deepEqual(managed(kubeProtobuf().decode(Buffer.from(await res.arrayBuffer())).object), managed(stored));
  });

  it("415 for an unknown patch type lists apply among the accepted ones", async () => {
    const res = await call("PATCH", `${BASE}/web`, "{}", "application/apply-patch+cbor");
    assert.equal(res.status, 415);
    assert.match(String(res.body["message"]), /application\/strategic-merge-patch\+json, application\/apply-patch\+yaml$/);
  });
});
