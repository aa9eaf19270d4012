// Protobuf over real HTTP against a running simulator: what client-go's typed clients (kubectl's typed commands,
// kube-controller-manager) send and ask for. Objects written in protobuf read back unchanged in JSON and the other
// way round; errors are protobuf Statuses; watches are length-prefixed WatchEvent frames.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import { CLIENT_GO_ACCEPT, KubeStatusError, ProtobufClient, jsonCall } from "../testing/protobuf-client.ts";
import type { JsonObject } from "../testing/protobuf-client.ts";
import { PROTOBUF_CONTENT_TYPE, PROTOBUF_WATCH_CONTENT_TYPE } from "./envelope.ts";

const NS = "pb";

function withoutTypeMeta(obj: JsonObject): JsonObject {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = obj;
  return rest;
}

async function statusOf(promise: Promise<unknown>): Promise<KubeStatusError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof KubeStatusError) return err;
    throw err;
  }
  assert.fail("the request succeeded");
}

function pod(name: string): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "web" }, annotations: { "note/x": "y" } },
    spec: {
      containers: [
        {
          name: "c",
          image: "nginx:1.27",
          ports: [{ containerPort: 80, name: "http", protocol: "TCP" }],
          env: [{ name: "MODE", value: "primary" }, { name: "EMPTY", value: "" }],
          resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "128Mi" } },
          readinessProbe: { httpGet: { path: "/", port: "http" }, periodSeconds: 5 },
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        },
      ],
      volumes: [{ name: "data", configMap: { name: "cm", items: [{ key: "a", path: "a.txt" }] } }],
      terminationGracePeriodSeconds: 0,
    },
  };
}

describe("protobuf over HTTP", () => {
  let sim: KubeSim;
  let pb: ProtobufClient;
  const json = (method: string, path: string, body?: unknown) => jsonCall(sim.url, method, path, body);

  before(async () => {
    // Pods stay unscheduled, so nothing changes an object between the write and the read-back.
    sim = await startKubeSim({ port: 0, kubelet: { scheduleDelayMs: 600_000 } });
    pb = new ProtobufClient(sim.url);
    await pb.create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
  });

  after(async () => {
    await sim.stop();
  });

  it("creates a Namespace in protobuf and serves it back the same in JSON and protobuf", async () => {
    const res = await pb.raw("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "pb-ns", labels: { team: "a" } } });
    assert.equal(res.status, 201);
    assert.equal(res.headers["content-type"], PROTOBUF_CONTENT_TYPE);
    assert.deepEqual(res.body.subarray(0, 4), Buffer.from("k8s\0"));
    const created = pb.decode(res);
    assert.equal(created["kind"], "Namespace");
    assert.equal(created["apiVersion"], "v1");
    const viaJson = await json("GET", "/api/v1/namespaces/pb-ns");
    assert.equal(viaJson.contentType, "application/json");
    assert.deepEqual(viaJson.body, created);
    assert.deepEqual(await pb.get("/api/v1/namespaces/pb-ns"), created);
    assert.deepEqual((viaJson.body["metadata"] as JsonObject)["labels"], { team: "a", "kubernetes.io/metadata.name": "pb-ns" });
  });

  it("creates a ConfigMap with data and binaryData in protobuf", async () => {
    const binary = Buffer.from([0, 1, 2, 200, 255]).toString("base64");
    const created = await pb.create(`/api/v1/namespaces/${NS}/configmaps`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "cm" },
      data: { a: "1", "b.txt": "two\nlines", empty: "" },
      binaryData: { "blob.bin": binary },
    });
    const viaJson = await json("GET", `/api/v1/namespaces/${NS}/configmaps/cm`);
    assert.deepEqual(viaJson.body, created);
    assert.deepEqual(viaJson.body["data"], { a: "1", "b.txt": "two\nlines", empty: "" });
    assert.deepEqual(viaJson.body["binaryData"], { "blob.bin": binary });
  });

  it("creates a Service in protobuf (int and named target ports) and reads it back in JSON", async () => {
    const created = await pb.create(`/api/v1/namespaces/${NS}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: {
        selector: { app: "web" },
        ports: [
          { name: "http", port: 80, targetPort: 8080 },
          { name: "metrics", port: 9090, targetPort: "metrics", protocol: "TCP" },
        ],
      },
    });
    const spec = created["spec"] as JsonObject;
    assert.match(String(spec["clusterIP"]), /^10\./);
    assert.deepEqual((spec["ports"] as JsonObject[]).map((p) => p["targetPort"]), [8080, "metrics"]);
    assert.deepEqual((await json("GET", `/api/v1/namespaces/${NS}/services/web`)).body, created);
  });

  it("creates a StatefulSet in protobuf and serves its scale subresource in protobuf", async () => {
    const created = await pb.create(`/apis/apps/v1/namespaces/${NS}/statefulsets`, {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "web" },
      spec: {
        serviceName: "web",
        replicas: 0,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx", ports: [{ containerPort: 80 }] }] } },
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: "50%" } },
      },
    });
    assert.equal((created["spec"] as JsonObject)["replicas"], 0);
    // The stored claim templates carry apiVersion and kind (defaulted, as the apiserver does); protobuf has no
    // place for them in an embedded object, so they are the one difference, as with a real apiserver.
    const stored = (await json("GET", `/apis/apps/v1/namespaces/${NS}/statefulsets/web`)).body;
    const storedSpec = stored["spec"] as JsonObject;
    const templates = storedSpec["volumeClaimTemplates"] as JsonObject[];
    assert.deepEqual(templates.map((t) => [t["apiVersion"], t["kind"]]), [["v1", "PersistentVolumeClaim"]]);
    assert.deepEqual({ ...stored, spec: { ...storedSpec, volumeClaimTemplates: templates.map(withoutTypeMeta) } }, created);

    const scaleRes = await pb.raw("GET", `/apis/apps/v1/namespaces/${NS}/statefulsets/web/scale`);
    assert.equal(scaleRes.headers["content-type"], PROTOBUF_CONTENT_TYPE);
    const scale = pb.decode(scaleRes);
    assert.equal(scale["kind"], "Scale");
    assert.equal(scale["apiVersion"], "autoscaling/v1");
    assert.deepEqual(scale, (await json("GET", `/apis/apps/v1/namespaces/${NS}/statefulsets/web/scale`)).body);
    const scaled = await pb.update(`/apis/apps/v1/namespaces/${NS}/statefulsets/web/scale`, { ...scale, spec: { replicas: 3 } });
    assert.equal((scaled["spec"] as JsonObject)["replicas"], 3);
    assert.equal(((await json("GET", `/apis/apps/v1/namespaces/${NS}/statefulsets/web`)).body["spec"] as JsonObject)["replicas"], 3);
  });

  it("creates a Pod in protobuf, updates it and its status, evicts and deletes with protobuf bodies", async () => {
    const created = await pb.create(`/api/v1/namespaces/${NS}/pods`, pod("p1"));
    assert.deepEqual((await json("GET", `/api/v1/namespaces/${NS}/pods/p1`)).body, created);
    const container = ((created["spec"] as JsonObject)["containers"] as JsonObject[])[0] as JsonObject;
    assert.deepEqual(container["env"], [{ name: "MODE", value: "primary" }, { name: "EMPTY" }]);

    const updated = await pb.update(`/api/v1/namespaces/${NS}/pods/p1`, { ...created, metadata: { ...(created["metadata"] as JsonObject), labels: { app: "web", tier: "x" } } });
    assert.deepEqual((updated["metadata"] as JsonObject)["labels"], { app: "web", tier: "x" });
    const status = await pb.updateStatus(`/api/v1/namespaces/${NS}/pods/p1`, {
      ...updated,
      status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", lastProbeTime: null, lastTransitionTime: "2026-12-02T04:00:00Z" }] },
    });
    assert.equal((status["status"] as JsonObject)["phase"], "Pending");
    assert.deepEqual((await json("GET", `/api/v1/namespaces/${NS}/pods/p1`)).body, status);

    const eviction = await pb.raw("POST", `/api/v1/namespaces/${NS}/pods/p1/eviction`, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "p1" }, deleteOptions: { gracePeriodSeconds: 0 } });
    assert.equal(eviction.status, 201);
    assert.equal(pb.decode(eviction)["status"], "Success");
    assert.equal((await json("GET", `/api/v1/namespaces/${NS}/pods/p1`)).status, 404);

    await pb.create(`/api/v1/namespaces/${NS}/pods`, pod("p2"));
    const deleted = await pb.delete(`/api/v1/namespaces/${NS}/pods/p2`, { gracePeriodSeconds: 0, propagationPolicy: "Background" });
    assert.equal(deleted["kind"], "Pod");
    assert.equal((await json("GET", `/api/v1/namespaces/${NS}/pods/p2`)).status, 404);
  });

  it("serves JSON-written objects in protobuf, single and listed", async () => {
    const body = pod("from-json");
    const created = await json("POST", `/api/v1/namespaces/${NS}/pods`, body);
    assert.equal(created.status, 201);
    assert.deepEqual(await pb.get(`/api/v1/namespaces/${NS}/pods/from-json`), created.body);
    const cm = await json("POST", `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-json" }, data: { k: "v" } });
    assert.deepEqual(await pb.get(`/api/v1/namespaces/${NS}/configmaps/from-json`), cm.body);

    const listRes = await pb.raw("GET", `/api/v1/namespaces/${NS}/configmaps?limit=1`);
    assert.equal(listRes.headers["content-type"], PROTOBUF_CONTENT_TYPE);
    const list = pb.decode(listRes);
    const jsonList = (await json("GET", `/api/v1/namespaces/${NS}/configmaps?limit=1`)).body;
    assert.equal(list["kind"], "ConfigMapList");
    // Items travel without their type meta in protobuf (the list's envelope names the kind), as Go writes them.
    assert.deepEqual({ ...list, items: (list["items"] as JsonObject[]).map(withoutTypeMeta) }, { ...jsonList, items: (jsonList["items"] as JsonObject[]).map(withoutTypeMeta) });
    assert.equal(typeof (list["metadata"] as JsonObject)["continue"], "string");
    assert.equal((list["metadata"] as JsonObject)["remainingItemCount"], 1);
  });

  it("answers errors with protobuf Statuses: 404, 409 AlreadyExists and Conflict, 422 with causes", async () => {
    const notFound = await statusOf(pb.get(`/api/v1/namespaces/${NS}/configmaps/nope`));
    assert.equal(notFound.code, 404);
    assert.equal(notFound.contentType, PROTOBUF_CONTENT_TYPE);
    assert.deepEqual(notFound.status, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "nope" not found',
      reason: "NotFound",
      details: { name: "nope", kind: "configmaps" },
      code: 404,
    });
    assert.deepEqual(notFound.status, (await json("GET", `/api/v1/namespaces/${NS}/configmaps/nope`)).body);

    const exists = await statusOf(pb.create(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" } }));
    assert.equal(exists.code, 409);
    assert.equal(exists.status["reason"], "AlreadyExists");

    const current = await pb.get(`/api/v1/namespaces/${NS}/configmaps/cm`);
    const stale = { ...current, metadata: { ...(current["metadata"] as JsonObject), resourceVersion: "1" }, data: { a: "2" } };
    const conflict = await statusOf(pb.update(`/api/v1/namespaces/${NS}/configmaps/cm`, stale));
    assert.equal(conflict.code, 409);
    assert.equal(conflict.status["reason"], "Conflict");

    const invalid = await statusOf(pb.create(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Not_Valid" } }));
    assert.equal(invalid.code, 422);
    assert.equal(invalid.contentType, PROTOBUF_CONTENT_TYPE);
    assert.equal(invalid.status["reason"], "Invalid");
    const causes = (invalid.status["details"] as JsonObject)["causes"] as JsonObject[];
    assert.equal(causes[0]?.["field"], "metadata.name");
    assert.equal(causes[0]?.["reason"], "FieldValueInvalid");

    const missingNs = await statusOf(pb.create("/api/v1/namespaces/nowhere/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }));
    assert.equal(missingNs.code, 404);
    const unknownPath = await statusOf(pb.get("/apis/batch/v1/namespaces/default/jobs"));
    assert.equal(unknownPath.code, 404);
    assert.equal(unknownPath.contentType, PROTOBUF_CONTENT_TYPE);
  });

  it("answers 400 to an unknown field number and to bytes that are not an envelope", async () => {
    const good = pb.pb.encode({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "odd" } });
    // Unknown {typeMeta, raw, "", ""}: raw is the second field; append ConfigMap field 99 (varint 1) to it.
    const unknownField = pb.pb.codec.encode("core.v1.ConfigMap", { metadata: { name: "odd" } });
    const raw = Buffer.concat([unknownField, Buffer.from([0x98, 0x06, 0x01])]);
    const tm = Buffer.from([0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, ...Buffer.from("ConfigMap")]);
    const envelope = Buffer.concat([Buffer.from("k8s\0"), tm, Buffer.from([0x12, raw.length]), raw]);
    const res = await pb.raw("POST", `/api/v1/namespaces/${NS}/configmaps`, undefined, { rawBody: envelope });
    assert.equal(res.status, 400);
    assert.equal(res.headers["content-type"], PROTOBUF_CONTENT_TYPE);
    const status = pb.decode(res);
    assert.equal(status["reason"], "BadRequest");
    assert.match(String(status["message"]), /core\.v1\.ConfigMap has no field number 99/);
    assert.equal((await json("GET", `/api/v1/namespaces/${NS}/configmaps/odd`)).status, 404);

    const notEnvelope = await pb.raw("POST", `/api/v1/namespaces/${NS}/configmaps`, undefined, { rawBody: '{"kind":"ConfigMap"}' });
    assert.equal(notEnvelope.status, 400);
    assert.match(String(pb.decode(notEnvelope)["message"]), /does not appear to be a protobuf message/);
    const wrongKind = await pb.raw("POST", `/api/v1/namespaces/${NS}/configmaps`, undefined, { rawBody: Buffer.from(good.toString("latin1").replace("ConfigMap", "ConfigMop"), "latin1") });
    assert.equal(wrongKind.status, 400);
    assert.match(String(pb.decode(wrongKind)["message"]), /no kind "ConfigMop" is registered for version "v1"/);
  });

  it("answers 415 to an unsupported Content-Type, accepts YAML, and keeps patches JSON", async () => {
    const res = await pb.raw("POST", `/api/v1/namespaces/${NS}/configmaps`, undefined, { rawBody: "a=b", contentType: "text/plain" });
    assert.equal(res.status, 415);
    const status = pb.decode(res);
    assert.equal(status["reason"], "UnsupportedMediaType");
    assert.equal(res.headers["content-type"], PROTOBUF_CONTENT_TYPE);

    const yaml = await pb.raw("POST", `/api/v1/namespaces/${NS}/configmaps`, undefined, {
      rawBody: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n",
      contentType: "application/yaml",
    });
    assert.equal(yaml.status, 201);
    assert.deepEqual(pb.decode(yaml)["data"], { k: "v" });

    const patched = await pb.raw("PATCH", `/api/v1/namespaces/${NS}/configmaps/from-yaml`, undefined, { rawBody: '{"data":{"k":"w"}}', contentType: "application/merge-patch+json" });
    assert.equal(patched.status, 200);
    assert.equal(patched.headers["content-type"], PROTOBUF_CONTENT_TYPE);
    assert.deepEqual(pb.decode(patched)["data"], { k: "w" });
  });

  it("keeps Table and metadata-only renderings in JSON, and JSON for clients that prefer it", async () => {
    const table = await pb.raw("GET", `/api/v1/namespaces/${NS}/configmaps`, undefined, { accept: "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json" });
    assert.match(String(table.headers["content-type"]), /as=Table/);
    const partial = await pb.raw("GET", `/api/v1/namespaces/${NS}/configmaps`, undefined, {
      accept: "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
    });
    assert.match(String(partial.headers["content-type"]), /as=PartialObjectMetadata/);
    assert.equal(pb.decode(partial)["kind"], "PartialObjectMetadataList");
    const jsonFirst = await pb.raw("GET", `/api/v1/namespaces/${NS}/configmaps/cm`, undefined, { accept: "application/json, application/vnd.kubernetes.protobuf" });
    assert.equal(jsonFirst.headers["content-type"], "application/json");
    const onlyProtobuf = await pb.raw("GET", `/api/v1/namespaces/${NS}/configmaps/cm`, undefined, { accept: PROTOBUF_CONTENT_TYPE });
    assert.equal(onlyProtobuf.headers["content-type"], PROTOBUF_CONTENT_TYPE);
    // Discovery stays JSON whatever the client prefers.
    const discovery = await pb.raw("GET", "/api/v1", undefined, { accept: CLIENT_GO_ACCEPT });
    assert.equal(discovery.headers["content-type"], "application/json");
  });

  it("watches in protobuf: ADDED, MODIFIED and DELETED frames", async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const list = await pb.list(path);
    const rv = String((list["metadata"] as JsonObject)["resourceVersion"]);
    const watch = await pb.watch(`${path}?resourceVersion=${rv}&labelSelector=w%3D1`);
    try {
      assert.equal(watch.contentType, PROTOBUF_WATCH_CONTENT_TYPE);
      const created = await pb.create(path, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "watched", labels: { w: "1" } }, data: { n: "1" } });
      const added = await watch.next();
      assert.equal(added?.type, "ADDED");
      assert.deepEqual(added?.object, created);
      const updated = await pb.update(`${path}/watched`, { ...created, data: { n: "2" } });
      const modified = await watch.next();
      assert.equal(modified?.type, "MODIFIED");
      assert.deepEqual(modified?.object, updated);
      await pb.delete(`${path}/watched`);
      const deleted = await watch.next();
      assert.equal(deleted?.type, "DELETED");
      assert.equal((deleted?.object["metadata"] as JsonObject)["name"], "watched");
    } finally {
      watch.close();
    }
  });

  it("sends BOOKMARK events and the 410 ERROR event in protobuf", async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const initial = await pb.watch(`${path}?sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&labelSelector=none%3Dx`);
    try {
      const bookmark = await initial.next();
      assert.equal(bookmark?.type, "BOOKMARK");
      assert.equal(bookmark?.object["kind"], "ConfigMap");
      assert.deepEqual((bookmark?.object["metadata"] as JsonObject)["annotations"], { "k8s.io/initial-events-end": "true" });
    } finally {
      initial.close();
    }
    const small = await startKubeSim({ port: 0, historyWindow: 2 });
    try {
      const client = new ProtobufClient(small.url);
      for (let i = 0; i < 5; i++) await client.create("/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `c${i}` } });
      const expired = await client.watch("/api/v1/namespaces/default/configmaps?resourceVersion=2");
      const error = await expired.next();
      assert.equal(error?.type, "ERROR");
      assert.equal(error?.object["kind"], "Status");
      assert.equal(error?.object["code"], 410);
      assert.equal(error?.object["reason"], "Expired");
      assert.equal(await expired.next(), undefined);
    } finally {
      await small.stop();
    }
  });

  it("answers a protobuf DeleteOptions body of another group version (apps/v1)", async () => {
    await pb.create(`/apis/apps/v1/namespaces/${NS}/statefulsets`, {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "gone" },
      spec: { serviceName: "gone", selector: { matchLabels: { app: "gone" } }, template: { metadata: { labels: { app: "gone" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    });
    const res = await pb.delete(`/apis/apps/v1/namespaces/${NS}/statefulsets/gone`, { propagationPolicy: "Orphan" }, "apps/v1");
    assert.equal(res["kind"], "StatefulSet");
    assert.deepEqual((res["metadata"] as JsonObject)["finalizers"], ["orphan"]);
  });

  it("leaves JSON clients' bytes as they were", async () => {
    const res = await new Promise<{ type: string; body: string }>((resolve, reject) => {
      const req = request(new URL(`/api/v1/namespaces/${NS}/configmaps/nope`, sim.url), { headers: { Accept: "application/json" } }, (r) => {
        let body = "";
        r.on("data", (c: Buffer) => (body += c.toString()));
        r.on("end", () => resolve({ type: r.headers["content-type"] ?? "", body }));
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(res.type, "application/json");
    assert.equal(res.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"nope\\" not found","reason":"NotFound","code":404,"details":{"name":"nope","kind":"configmaps"}}');
  });
});
