// kubectl 1.32 as the consumer of the OpenAPI documents: the protobuf /openapi/v2 it validates `kind: List`
// manifests against, and the v3 descriptions `kubectl explain` prints.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import { mustFind } from "../resources.ts";
import { findKubectl, simWithKubectl } from "../testing/kubectl.ts";
import { getPath } from "../types.ts";
import { fieldDoc, definitionDoc } from "./descriptions.ts";
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DEPRECATED } from "./media.ts";

const binary = findKubectl();
const skip = binary === undefined ? "kubectl is not on the PATH (set KUBECTL to a kubectl 1.32 binary)" : false;

const STS = mustFind("apps", "statefulsets");
const CM = mustFind("", "configmaps");

function list(configMap: Record<string, unknown>, replicas: unknown): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "List",
    items: [
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "listed", namespace: "default" }, data: { a: "b" }, ...configMap },
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "listed", namespace: "default" },
        spec: {
          serviceName: "listed",
          replicas,
          selector: { matchLabels: { app: "listed" } },
          template: { metadata: { labels: { app: "listed" } }, spec: { containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80, name: "http" }] }] } },
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        },
      },
    ],
  });
}

/** kubectl's output with its line wrapping and indentation undone. */
const flat = (s: string): string => s.replace(/\s+/g, " ");

describe("/openapi/v2 protobuf over HTTP", () => {
  let sim: KubeSim;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kube-sim-openapi-"));
    sim = await startKubeSim({ port: 0, kubeconfigOut: join(dir, "kubeconfig") });
  });
  after(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the gnostic Document for the protobuf media types, JSON otherwise, 406 for neither", async () => {
    for (const accept of [OPENAPI_V2_PROTOBUF_DEPRECATED, OPENAPI_V2_PROTOBUF]) {
      const res = await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: accept } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), OPENAPI_V2_PROTOBUF);
      const body = new Uint8Array(await res.arrayBuffer());
      assert.equal(Number(res.headers.get("content-length")), body.length);
      assert.equal(Buffer.from(body.subarray(0, 5)).toString("latin1"), "\n\x032.0", "Document.swagger = 1 comes first");
    }
    const json = await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: "application/json" } });
    assert.equal(json.headers.get("content-type"), "application/json");
    assert.equal(((await json.json()) as { swagger: string }).swagger, "2.0");
    assert.equal((await fetch(`${sim.url}/openapi/v2`, { headers: { Accept: "text/html" } })).status, 406);
  });
});

describe("kubectl 1.32 and the OpenAPI documents", { skip }, () => {
  const env = simWithKubectl("kube-sim-openapi-kubectl-", binary);

  it("apply -f of a List validates against the protobuf /openapi/v2 (dry run, then for real)", async () => {
    const file = join(env.dir, "list.json");
    writeFileSync(file, list({}, 2));
    const dry = await env.kubectl.ok(["apply", "-f", file, "--dry-run=server"]);
    assert.match(dry, /configmap\/listed created \(server dry run\)/);
    assert.match(dry, /statefulset\.apps\/listed created \(server dry run\)/);
    assert.equal(env.sim.registry.tryGet(CM, "default", "listed"), undefined);
    const out = await env.kubectl.ok(["apply", "-f", file]);
    assert.match(out, /statefulset\.apps\/listed created/);
    assert.equal(getPath(env.sim.registry.tryGet(STS, "default", "listed"), ["spec", "replicas"]), 2);
    assert.deepEqual(env.sim.registry.tryGet(CM, "default", "listed")?.["data"], { a: "b" });
  });

  it("client-side validation of a List reads the schemas: unknown fields and wrong types", async () => {
    const file = join(env.dir, "bad.json");
    writeFileSync(file, list({ bogus: 1 }, "two"));
    const r = await env.kubectl.run(["apply", "-f", file, "--dry-run=server"]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unknown field "bogus" in io\.k8s\.api\.core\.v1\.ConfigMap/);
    assert.match(r.stderr, /invalid type for io\.k8s\.api\.apps\.v1\.StatefulSetSpec\.replicas: got "string", expected "integer"/);
  });

  it("explain statefulset.spec prints the spec's and its fields' descriptions", async () => {
    const out = await env.kubectl.ok(["explain", "statefulset.spec"]);
    assert.match(out, /^FIELD: spec <StatefulSetSpec>$/m);
    const text = flat(out);
    assert.ok(text.includes(flat(fieldDoc("io.k8s.api.apps.v1.StatefulSet", "spec")?.description ?? "?")), out);
    assert.ok(text.includes(flat(definitionDoc("io.k8s.api.apps.v1.StatefulSetSpec")?.description ?? "?")), out);
    assert.match(out, /^ {2}podManagementPolicy\t<string>\n {2}enum: OrderedReady, Parallel$/m);
    for (const field of ["replicas", "serviceName", "volumeClaimTemplates", "persistentVolumeClaimRetentionPolicy", "ordinals", "minReadySeconds"]) {
      assert.ok(text.includes(flat(fieldDoc("io.k8s.api.apps.v1.StatefulSetSpec", field)?.description ?? "?")), `${field}: ${out}`);
    }
    assert.doesNotMatch(out, /<no description>|<empty>/);
  });

  it("explain statefulset.spec.updateStrategy prints the field, its type and its sub-fields' descriptions", async () => {
    const out = await env.kubectl.ok(["explain", "statefulset.spec.updateStrategy"]);
    assert.match(out, /^KIND: {7}StatefulSet$/m);
    assert.match(out, /^FIELD: updateStrategy <StatefulSetUpdateStrategy>$/m);
    const text = flat(out);
    const [description, fields] = text.split(" FIELDS: ");
    assert.ok(description?.includes(flat(fieldDoc("io.k8s.api.apps.v1.StatefulSetSpec", "updateStrategy")?.description ?? "?")), out);
    assert.ok(description?.includes(flat(definitionDoc("io.k8s.api.apps.v1.StatefulSetUpdateStrategy")?.description ?? "?")), out);
    assert.match(out, /^ {2}rollingUpdate\t<RollingUpdateStatefulSetStrategy>$/m);
    assert.match(out, /^ {2}type\t<string>\n {2}enum: OnDelete, RollingUpdate$/m);
    for (const field of ["type", "rollingUpdate"]) {
      assert.ok(fields?.includes(flat(fieldDoc("io.k8s.api.apps.v1.StatefulSetUpdateStrategy", field)?.description ?? "?")), `${field}: ${out}`);
    }
    const deeper = flat(await env.kubectl.ok(["explain", "statefulset.spec.updateStrategy.rollingUpdate"]));
    assert.ok(deeper.includes(flat(fieldDoc("io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy", "partition")?.description ?? "?")));
    assert.ok(deeper.includes(flat(fieldDoc("io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy", "maxUnavailable")?.description ?? "?")));
  });

  it("explain controllerrevision and statefulset.status.conditions are documented too", async () => {
    const cr = flat(await env.kubectl.ok(["explain", "controllerrevision"]));
    assert.ok(cr.includes(flat(definitionDoc("io.k8s.api.apps.v1.ControllerRevision")?.description ?? "?")));
    const conditions = await env.kubectl.ok(["explain", "statefulset.status.conditions"]);
    assert.match(conditions, /^FIELD: conditions <\[\]StatefulSetCondition>$/m);
    assert.doesNotMatch(conditions, /<no description>|<empty>/);
  });
});
