// REST semantics over real HTTP: error bodies (acceptance 3), object lifecycle, selectors, pagination,
// watch, discovery, OpenAPI, kubelet, volume binder, audit log and faults.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import { mustFind } from "../resources.ts";
import { until } from "../testing/kubectl.ts";
import type { KubeObject, Status } from "../types.ts";
import { getPath } from "../types.ts";

interface Res {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

function client(base: () => string, userAgent = "kube-sim-test/1.0") {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> => {
    const init: RequestInit = { method, headers: { "User-Agent": userAgent, "Content-Type": "application/json", ...headers } };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const res = await fetch(`${base()}${path}`, init);
    const text = await res.text();
    return { status: res.status, body: text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : { text }, headers: res.headers };
  };
}

const STS_PATH = "/apis/apps/v1/namespaces/default/statefulsets";

function sts(name: string, selector: Record<string, string>, labels: Record<string, string>): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: { serviceName: name, replicas: 1, selector: { matchLabels: selector }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
  };
}

describe("kube-sim REST semantics", () => {
  let sim: KubeSim;
  let dir: string;
  let call: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kube-sim-api-"));
    sim = await startKubeSim({ auditLog: join(dir, "audit.log"), kubelet: { startDelayMs: 10, terminationDelayMs: 10, bindDelayMs: 1 } });
    call = client(() => sim.url);
  });

  after(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe("invalid objects (acceptance 3)", () => {
    it("a StatefulSet whose selector does not match its template gets 422 Invalid with causes", async () => {
      const res = await call("POST", STS_PATH, sts("bad", { app: "web" }, { app: "other" }));
      assert.equal(res.status, 422);
      const status = res.body as unknown as Status;
      assert.equal(status.kind, "Status");
      assert.equal(status.apiVersion, "v1");
      assert.equal(status.status, "Failure");
      assert.equal(status.reason, "Invalid");
      assert.equal(status.code, 422);
      assert.equal(status.details?.name, "bad");
      assert.equal(status.details?.group, "apps");
      assert.equal(status.details?.kind, "StatefulSet");
      const cause = status.details?.causes?.find((c) => c.field === "spec.template.metadata.labels");
      assert.equal(cause?.reason, "FieldValueInvalid");
      assert.match(cause?.message ?? "", /`selector` does not match template `labels`/);
      assert.match(status.message ?? "", /^StatefulSet\.apps "bad" is invalid: .*spec\.template\.metadata\.labels: Invalid value: /);
      assert.equal(sim.registry.store.get("apps/statefulsets", "default", "bad"), undefined);
    });

    it("a change to an immutable StatefulSet field gets 422 Forbidden on spec", async () => {
      const created = await call("POST", STS_PATH, sts("immut", { app: "i" }, { app: "i" }));
      assert.equal(created.status, 201);
      const obj = created.body as unknown as KubeObject;
      (obj["spec"] as Record<string, unknown>)["serviceName"] = "changed";
      const res = await call("PUT", `${STS_PATH}/immut`, obj);
      assert.equal(res.status, 422);
      const status = res.body as unknown as Status;
      assert.equal(status.reason, "Invalid");
      const cause = status.details?.causes?.find((c) => c.field === "spec");
      assert.equal(cause?.reason, "FieldValueForbidden");
      assert.match(cause?.message ?? "", /^Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', .*are forbidden$/);
    });

    it("unknown fields: Strict is a 400, the default warns", async () => {
      const strict = await call("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", { metadata: { name: "strict" }, bogus: 1 });
      assert.equal(strict.status, 400);
      assert.equal(strict.body["message"], 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"');
      const warn = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "warned" }, bogus: 1 });
      assert.equal(warn.status, 201);
      assert.equal(warn.headers.get("warning"), '299 - "unknown field \\"bogus\\""');
    });
  });

  describe("object semantics", () => {
    it("NotFound, AlreadyExists, missing namespace and Conflict bodies match the apiserver", async () => {
      const missing = await call("GET", `${STS_PATH}/nope`);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: 'statefulsets.apps "nope" not found', reason: "NotFound", details: { name: "nope", group: "apps", kind: "statefulsets" }, code: 404 });
      const noNs = await call("POST", "/apis/apps/v1/namespaces/ghost/statefulsets", sts("x", { a: "b" }, { a: "b" }));
      assert.equal(noNs.status, 404);
      assert.equal(noNs.body["message"], 'namespaces "ghost" not found');
      assert.deepEqual(noNs.body["details"], { name: "ghost", kind: "namespaces" });
      const first = await call("POST", STS_PATH, sts("web", { app: "web" }, { app: "web" }));
      assert.equal(first.status, 201);
      const dup = await call("POST", STS_PATH, sts("web", { app: "web" }, { app: "web" }));
      assert.equal(dup.status, 409);
      assert.equal(dup.body["reason"], "AlreadyExists");
      assert.equal(dup.body["message"], 'statefulsets.apps "web" already exists');
      const stale = first.body as unknown as KubeObject;
      (stale["spec"] as Record<string, unknown>)["replicas"] = 2;
      assert.equal((await call("PUT", `${STS_PATH}/web`, stale)).status, 200);
      const conflict = await call("PUT", `${STS_PATH}/web`, stale);
      assert.equal(conflict.status, 409);
      assert.deepEqual(conflict.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'Operation cannot be fulfilled on statefulsets.apps "web": the object has been modified; please apply your changes to the latest version and try again',
        reason: "Conflict",
        details: { name: "web", group: "apps", kind: "statefulsets" },
        code: 409,
      });
    });

    it("collects a dependent whose owner reference, added later, names an object that is already gone", async () => {
      const owner = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "gc-owner" } });
      assert.equal(owner.status, 201);
      const ownerUid = getPath(owner.body, ["metadata", "uid"]) as string;
      assert.equal((await call("DELETE", "/api/v1/namespaces/default/configmaps/gc-owner")).status, 200);
      const dependent = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "gc-dependent" } });
      assert.equal(dependent.status, 201);
      const patched = await call(
        "PATCH",
        "/api/v1/namespaces/default/configmaps/gc-dependent",
        { metadata: { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "gc-owner", uid: ownerUid }] } },
        { "Content-Type": "application/merge-patch+json" },
      );
      assert.equal(patched.status, 200);
      await until("the dangling dependent to be collected", async () =>
        (await call("GET", "/api/v1/namespaces/default/configmaps/gc-dependent")).status === 404 ? true : undefined,
      );
    });

    it("assigns uid, creationTimestamp, increasing resourceVersions, generation and generateName", async () => {
      const a = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { generateName: "gen-" } });
      const b = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { generateName: "gen-" } });
      const ma = (a.body as unknown as KubeObject).metadata;
      const mb = (b.body as unknown as KubeObject).metadata;
      assert.match(ma.name ?? "", /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.match(ma.uid ?? "", /^[0-9a-f-]{36}$/);
      assert.match(String(ma.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(Number(mb.resourceVersion) > Number(ma.resourceVersion));
      const web = sim.registry.get(await stsInfo(), "default", "web");
      assert.equal(web.metadata.generation, 2, "a spec change bumps generation");
    });

    it("delete preconditions and finalizers", async () => {
      const created = (await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "fin", finalizers: ["example.com/hold"] } })).body as unknown as KubeObject;
      const wrongUid = await call("DELETE", "/api/v1/namespaces/default/configmaps/fin", { preconditions: { uid: "nope" } });
      assert.equal(wrongUid.status, 409);
      assert.equal(wrongUid.body["message"], `Operation cannot be fulfilled on configmaps "fin": Precondition failed: UID in precondition: nope, UID in object meta: ${created.metadata.uid ?? ""}`);
      const del = await call("DELETE", "/api/v1/namespaces/default/configmaps/fin", { preconditions: { uid: created.metadata.uid } });
      assert.equal(del.status, 200);
      const held = del.body as unknown as KubeObject;
      assert.equal(held.kind, "ConfigMap", "an object kept by finalizers is returned, not a Status");
      assert.ok(held.metadata.deletionTimestamp);
      assert.equal(held.metadata.deletionGracePeriodSeconds, 0);
      const released = await call("PATCH", "/api/v1/namespaces/default/configmaps/fin", { metadata: { finalizers: null } }, { "Content-Type": "application/merge-patch+json" });
      assert.equal(released.status, 200);
      assert.equal(sim.registry.store.get("/configmaps", "default", "fin"), undefined);
      const gone = await call("DELETE", `${STS_PATH}/web`);
      assert.deepEqual(gone.body["status"], "Success", "StatefulSet deletion answers with a Status");
    });

    it("pods bound to a node terminate gracefully and the kubelet finishes them", async () => {
      await call("POST", "/api/v1/namespaces/default/pods", { metadata: { name: "g" }, spec: { terminationGracePeriodSeconds: 5, containers: [{ name: "c", image: "x" }] } });
      await until("g to run", () => (getPath(sim.registry.tryGet(podsInfo(), "default", "g"), ["status", "phase"]) === "Running" ? true : undefined));
      const pod = sim.registry.get(podsInfo(), "default", "g");
      assert.equal(getPath(pod, ["spec", "nodeName"]), "kube-sim-node");
      assert.match(String(getPath(pod, ["status", "podIP"])), /^10\.244\./);
      const conditions = (getPath(pod, ["status", "conditions"]) as { type: string; status: string; lastTransitionTime: string }[]).map((c) => `${c.type}=${c.status}`);
      for (const c of ["PodScheduled=True", "Initialized=True", "ContainersReady=True", "Ready=True"]) assert.ok(conditions.includes(c), c);
      const del = await call("DELETE", "/api/v1/namespaces/default/pods/g");
      assert.equal(del.status, 200);
      const terminating = del.body as unknown as KubeObject;
      assert.equal(terminating.metadata.deletionGracePeriodSeconds, 5);
      assert.ok(terminating.metadata.deletionTimestamp, "answered with the Terminating pod, not removed at once");
      await until("the kubelet to finish g", () => (sim.registry.tryGet(podsInfo(), "default", "g") === undefined ? true : undefined));
    });

    it("kubelet annotations: phase Failed and start-delay-ms", async () => {
      await call("POST", "/api/v1/namespaces/default/pods", { metadata: { name: "f", annotations: { "sim.stsfleet.dev/phase": "Failed" } }, spec: { containers: [{ name: "c", image: "x" }] } });
      await until("f to fail", () => (getPath(sim.registry.tryGet(podsInfo(), "default", "f"), ["status", "phase"]) === "Failed" ? true : undefined));
      await call("POST", "/api/v1/namespaces/default/pods", { metadata: { name: "slow", annotations: { "sim.stsfleet.dev/start-delay-ms": "300" } }, spec: { containers: [{ name: "c", image: "x" }] } });
      await new Promise((r) => setTimeout(r, 100));
      assert.notEqual(getPath(sim.registry.tryGet(podsInfo(), "default", "slow"), ["status", "phase"]), "Running");
      await until("slow to run", () => (getPath(sim.registry.tryGet(podsInfo(), "default", "slow"), ["status", "phase"]) === "Running" ? true : undefined));
    });

    it("binds a pending claim to a new volume and reclaims it with the claim", async () => {
      const res = await call("POST", "/api/v1/namespaces/default/persistentvolumeclaims", { metadata: { name: "data-0" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
      assert.equal(res.status, 201);
      assert.deepEqual((res.body as unknown as KubeObject).metadata.finalizers, ["kubernetes.io/pvc-protection"]);
      const bound = await until("the claim to bind", () => {
        const pvc = sim.registry.tryGet(pvcInfo(), "default", "data-0");
        return getPath(pvc, ["status", "phase"]) === "Bound" ? pvc : undefined;
      });
      const volume = String(getPath(bound, ["spec", "volumeName"]));
      const pv = (await call("GET", `/api/v1/persistentvolumes/${volume}`)).body;
      assert.equal(getPath(pv, ["status", "phase"]), "Bound");
      assert.equal(getPath(pv, ["spec", "claimRef", "uid"]), bound.metadata.uid);
      assert.equal(getPath(pv, ["spec", "capacity", "storage"]), "1Gi");
      const resized = await call("PATCH", "/api/v1/namespaces/default/persistentvolumeclaims/data-0", { spec: { resources: { requests: { storage: "2Gi" } } } }, { "Content-Type": "application/merge-patch+json" });
      assert.equal(resized.status, 200, JSON.stringify(resized.body));
      await until("the volume to grow", async () => (getPath((await call("GET", `/api/v1/persistentvolumes/${volume}`)).body, ["spec", "capacity", "storage"]) === "2Gi" ? true : undefined));
      assert.equal(getPath(sim.registry.tryGet(pvcInfo(), "default", "data-0"), ["status", "capacity", "storage"]), "2Gi");
      await call("DELETE", "/api/v1/namespaces/default/persistentvolumeclaims/data-0");
      await until("claim and volume to go", async () => ((await call("GET", `/api/v1/persistentvolumes/${volume}`)).status === 404 && sim.registry.tryGet(pvcInfo(), "default", "data-0") === undefined ? true : undefined));
    });

    it("namespace deletion removes the content, then the namespace; system namespaces are protected", async () => {
      assert.equal((await call("POST", "/api/v1/namespaces", { metadata: { name: "doomed" } })).status, 201);
      await call("POST", "/api/v1/namespaces/doomed/configmaps", { metadata: { name: "a" } });
      await call("POST", "/api/v1/namespaces/doomed/configmaps", { metadata: { name: "held", finalizers: ["example.com/hold"] } });
      await call("POST", "/api/v1/namespaces/doomed/pods", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "x" }] } });
      const del = await call("DELETE", "/api/v1/namespaces/doomed");
      assert.equal(getPath(del.body, ["status", "phase"]), "Terminating");
      const refused = await call("POST", "/api/v1/namespaces/doomed/configmaps", { metadata: { name: "late" } });
      assert.equal(refused.status, 403);
      assert.equal(refused.body["message"], 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');
      await until("the rest of the content to go", () => (sim.registry.store.count("/configmaps", "doomed") === 1 && sim.registry.store.count("/pods", "doomed") === 0 ? true : undefined));
      assert.ok(getPath(sim.registry.tryGet(mustFind("", "configmaps"), "doomed", "held"), ["metadata", "deletionTimestamp"]));
      await call("PATCH", "/api/v1/namespaces/doomed/configmaps/held", { metadata: { finalizers: null } }, { "Content-Type": "application/merge-patch+json" });
      await until("doomed to go", async () => ((await call("GET", "/api/v1/namespaces/doomed")).status === 404 ? true : undefined));
      assert.equal(sim.registry.store.count("/configmaps", "doomed"), 0);
      const protectedNs = await call("DELETE", "/api/v1/namespaces/default");
      assert.equal(protectedNs.status, 403);
      assert.equal(protectedNs.body["message"], 'namespaces "default" is forbidden: this namespace may not be deleted');
    });
  });

  it("core/v1 and events.k8s.io/v1 Events are two views of the same objects", async () => {
    const res = await call("POST", "/apis/events.k8s.io/v1/namespaces/default/events", {
      metadata: { name: "ev1" },
      eventTime: "2026-01-01T00:00:00.000000Z",
      reportingController: "stsfleet.dev/status-writer",
      reportingInstance: "status-writer-0",
      action: "Create",
      reason: "SuccessfulCreate",
      note: "create Pod web-0 in StatefulSet web successful",
      type: "Normal",
      regarding: { kind: "StatefulSet", namespace: "default", name: "web", apiVersion: "apps/v1" },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body["note"], "create Pod web-0 in StatefulSet web successful");
    const core = await call("GET", "/api/v1/namespaces/default/events/ev1");
    assert.equal(core.body["apiVersion"], "v1");
    assert.equal(core.body["message"], "create Pod web-0 in StatefulSet web successful");
    assert.equal(getPath(core.body, ["involvedObject", "name"]), "web");
    assert.equal(core.body["reportingComponent"], "stsfleet.dev/status-writer");
    const byField = await call("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DStatefulSet,involvedObject.name%3Dweb");
    assert.deepEqual((byField.body["items"] as KubeObject[]).map((e) => e.metadata.name), ["ev1"]);
    const viaV1 = await call("GET", "/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dweb");
    const items = viaV1.body["items"] as Record<string, unknown>[];
    assert.deepEqual(items.map((e) => getPath(e, ["regarding", "name"])), ["web"]);
    assert.equal(items[0]?.["apiVersion"], "events.k8s.io/v1");
  });

  describe("lists and watches", () => {
    it("paginates with limit/continue and remainingItemCount", async () => {
      assert.equal((await call("POST", "/api/v1/namespaces", { metadata: { name: "pages" } })).status, 201);
      for (let i = 0; i < 5; i++) await call("POST", "/api/v1/namespaces/pages/configmaps", { metadata: { name: `cm-${i}`, labels: { i: String(i), even: String(i % 2 === 0) } } });
      const names: string[] = [];
      let cont = "";
      let pages = 0;
      const rvs = new Set<string>();
      do {
        const res = await call("GET", `/api/v1/namespaces/pages/configmaps?limit=2${cont === "" ? "" : `&continue=${encodeURIComponent(cont)}`}`);
        pages++;
        const meta = res.body["metadata"] as { continue?: string; remainingItemCount?: number; resourceVersion: string };
        rvs.add(meta.resourceVersion);
        for (const item of res.body["items"] as KubeObject[]) names.push(item.metadata.name ?? "");
        if (pages === 1) assert.equal(meta.remainingItemCount, 3);
        cont = meta.continue ?? "";
      } while (cont !== "");
      assert.equal(pages, 3);
      assert.deepEqual(names, ["cm-0", "cm-1", "cm-2", "cm-3", "cm-4"]);
      assert.equal(rvs.size, 1, "every page reports the first page's resourceVersion");
    });

    it("label and field selectors", async () => {
      const names = async (query: string, ns = "pages", resource = "configmaps") =>
        ((await call("GET", `/api/v1/namespaces/${ns}/${resource}?${query}`)).body["items"] as KubeObject[]).map((o) => o.metadata.name);
      assert.deepEqual(await names("labelSelector=i%20in%20(1,3)"), ["cm-1", "cm-3"]);
      assert.deepEqual(await names("labelSelector=i%20notin%20(1,3),even!=true"), []);
      assert.deepEqual(await names("labelSelector=even==true,i"), ["cm-0", "cm-2", "cm-4"]);
      assert.deepEqual(await names("labelSelector=!nolabel,i=4"), ["cm-4"]);
      assert.deepEqual(await names("fieldSelector=metadata.name%3Dcm-2"), ["cm-2"]);
      assert.deepEqual(await names("fieldSelector=metadata.name!%3Dcm-2&labelSelector=even%3Dtrue"), ["cm-0", "cm-4"]);
      const failed = await names("fieldSelector=status.phase%3DFailed", "default", "pods");
      assert.deepEqual(failed, ["f"]);
      const running = await names("fieldSelector=spec.nodeName%3Dkube-sim-node,status.phase%3DRunning", "default", "pods");
      assert.ok(running.includes("slow"));
      const bad = await call("GET", "/api/v1/namespaces/pages/configmaps?fieldSelector=spec.foo%3D1");
      assert.equal(bad.status, 400);
      assert.equal(bad.body["message"], "field label not supported: spec.foo");
      const badLabel = await call("GET", "/api/v1/namespaces/pages/configmaps?labelSelector=a%20in");
      assert.equal(badLabel.status, 400);
    });

    it("watch: unset rv replays state as ADDED, then live events; selector transitions become ADDED/DELETED", async () => {
      const controller = new AbortController();
      const res = await fetch(`${sim.url}/api/v1/namespaces/pages/configmaps?watch=true&labelSelector=even%3Dtrue`, { signal: controller.signal });
      const reader = res.body?.getReader();
      assert.ok(reader);
      const events: { type: string; object: KubeObject }[] = [];
      let buf = "";
      const pump = (async () => {
        for (;;) {
          const chunk: { value?: Uint8Array; done: boolean } = await reader.read().catch(() => ({ done: true }));
          const { value, done } = chunk;
          if (done === true || value === undefined) return;
          buf += Buffer.from(value).toString();
          let nl;
          while ((nl = buf.indexOf("\n")) >= 0) {
            events.push(JSON.parse(buf.slice(0, nl)) as { type: string; object: KubeObject });
            buf = buf.slice(nl + 1);
          }
        }
      })();
      await until("initial events", () => (events.length >= 3 ? true : undefined));
      assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name ?? ""}`), ["ADDED cm-0", "ADDED cm-2", "ADDED cm-4"]);
      await call("PATCH", "/api/v1/namespaces/pages/configmaps/cm-0", { metadata: { labels: { even: "no" } } }, { "Content-Type": "application/merge-patch+json" });
      await call("PATCH", "/api/v1/namespaces/pages/configmaps/cm-1", { metadata: { labels: { even: "true" } } }, { "Content-Type": "application/merge-patch+json" });
      await call("PATCH", "/api/v1/namespaces/pages/configmaps/cm-2", { data: { x: "y" } }, { "Content-Type": "application/merge-patch+json" });
      await until("live events", () => (events.length >= 6 ? true : undefined));
      assert.deepEqual(events.slice(3).map((e) => `${e.type} ${e.object.metadata.name ?? ""}`), ["DELETED cm-0", "ADDED cm-1", "MODIFIED cm-2"]);
      controller.abort();
      await pump;
    });

    it("watch with timeoutSeconds ends the stream; a specific resourceVersion replays only later changes", async () => {
      const list = await call("GET", "/api/v1/namespaces/pages/configmaps");
      const rv = (list.body["metadata"] as { resourceVersion: string }).resourceVersion;
      await call("DELETE", "/api/v1/namespaces/pages/configmaps/cm-3");
      const started = Date.now();
      const res = await fetch(`${sim.url}/api/v1/namespaces/pages/configmaps?watch=1&timeoutSeconds=1&resourceVersion=${rv}`);
      const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l) as { type: string; object: KubeObject });
      assert.ok(Date.now() - started >= 900);
      assert.deepEqual(lines.map((e) => `${e.type} ${e.object.metadata.name ?? ""}`), ["DELETED cm-3"]);
    });
  });

  describe("discovery, openapi and tables", () => {
    it("serves aggregated discovery and per group-version lists", async () => {
      const agg = await fetch(`${sim.url}/apis`, { headers: { Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json" } });
      assert.equal(agg.headers.get("content-type"), "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
      const body = (await agg.json()) as { items: { metadata: { name: string }; versions: { resources: { resource: string; subresources?: { subresource: string; responseKind: { kind: string } }[] }[] }[] }[] };
      const apps = body.items.find((i) => i.metadata.name === "apps");
      const stsRes = apps?.versions[0]?.resources.find((r) => r.resource === "statefulsets");
      assert.equal(stsRes?.subresources?.find((s) => s.subresource === "scale")?.responseKind.kind, "Scale");
      const v1 = await call("GET", "/api/v1");
      assert.ok((v1.body["resources"] as { name: string }[]).some((r) => r.name === "pods/status"));
      const version = await call("GET", "/version");
      assert.match(String(version.body["gitVersion"]), /^v1\.37\./);
      assert.equal((await fetch(`${sim.url}/readyz`)).status, 200);
    });

    it("OpenAPI v3 documents carry the GVK and patch-merge extensions and fieldValidation", async () => {
      const root = (await call("GET", "/openapi/v3")).body as { paths: Record<string, { serverRelativeURL: string }> };
      const url = root.paths["apis/apps/v1"]?.serverRelativeURL;
      assert.ok(url);
      const doc = (await call("GET", url)).body as { paths: Record<string, { patch?: { parameters: { name: string }[] } }>; components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; "x-kubernetes-group-version-kind"?: unknown }> } };
      const schemas = doc.components.schemas;
      assert.deepEqual(schemas["io.k8s.api.apps.v1.StatefulSet"]?.["x-kubernetes-group-version-kind"], [{ group: "apps", version: "v1", kind: "StatefulSet" }]);
      assert.equal(schemas["io.k8s.api.core.v1.PodSpec"]?.properties?.["containers"]?.["x-kubernetes-patch-merge-key"], "name");
      assert.equal(schemas["io.k8s.api.core.v1.Container"]?.properties?.["env"]?.["x-kubernetes-patch-strategy"], "merge");
      const patch = doc.paths["/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}"]?.patch;
      assert.ok(patch?.parameters.some((p) => p.name === "fieldValidation"));
    });

    it("renders Tables for kubectl get", async () => {
      const res = await fetch(`${sim.url}/api/v1/namespaces/default/pods`, { headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" } });
      const table = (await res.json()) as { kind: string; columnDefinitions: { name: string; priority: number }[]; rows: { cells: unknown[]; object: { kind: string } }[] };
      assert.equal(table.kind, "Table");
      assert.deepEqual(table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name), ["Name", "Ready", "Status", "Restarts", "Age"]);
      const failed = table.rows.find((r) => r.cells[0] === "f");
      assert.equal(failed?.cells[2], "Error");
      assert.equal(failed?.object.kind, "PartialObjectMetadata");
    });

    it("the scale subresource reads and writes replicas", async () => {
      await call("POST", STS_PATH, sts("scaled", { app: "s", tier: "t" }, { app: "s", tier: "t" }));
      const scale = await call("GET", `${STS_PATH}/scaled/scale`);
      assert.equal(scale.body["kind"], "Scale");
      assert.equal(scale.body["apiVersion"], "autoscaling/v1");
      assert.deepEqual(scale.body["status"], { replicas: 0, selector: "app=s,tier=t" });
      const patched = await call("PATCH", `${STS_PATH}/scaled/scale`, { spec: { replicas: 5 } }, { "Content-Type": "application/merge-patch+json" });
      assert.equal(getPath(patched.body, ["spec", "replicas"]), 5);
      assert.equal(getPath(sim.registry.get(await stsInfo(), "default", "scaled"), ["spec", "replicas"]), 5);
    });
  });

  it("writes an audit.k8s.io/v1 Event per mutating request with the client's user agent", async () => {
    const actor = client(() => sim.url, "stsfleet-actor/0.1.0 (actor-0)");
    await actor("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "audited" } }, { Authorization: "Bearer kube-sim-admin-token" });
    await actor("PATCH", "/api/v1/namespaces/default/configmaps/audited", { data: { a: "b" } }, { "Content-Type": "application/merge-patch+json" });
    await actor("GET", "/api/v1/namespaces/default/configmaps/audited");
    await actor("DELETE", "/api/v1/namespaces/default/configmaps/audited");
    await actor("DELETE", "/api/v1/namespaces/default/configmaps/audited");
    const events = await until("audit lines", () => {
      const lines = readFileSync(join(dir, "audit.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
      const mine = lines.filter((e) => e["userAgent"] === "stsfleet-actor/0.1.0 (actor-0)");
      return mine.length >= 4 ? mine : undefined;
    });
    assert.deepEqual(events.map((e) => `${String(e["verb"])} ${String(getPath(e, ["responseStatus", "code"]))}`), ["create 201", "patch 200", "delete 200", "delete 404"]);
    const create = events[0] ?? {};
    assert.equal(create["kind"], "Event");
    assert.equal(create["apiVersion"], "audit.k8s.io/v1");
    assert.equal(create["stage"], "ResponseComplete");
    assert.equal(create["requestURI"], "/api/v1/namespaces/default/configmaps");
    assert.deepEqual(create["objectRef"], { resource: "configmaps", namespace: "default", name: "audited", apiVersion: "v1" });
    assert.equal(getPath(create, ["user", "username"]), "kubernetes-admin");
    assert.match(String(create["auditID"]), /^[0-9a-f-]{36}$/);
    assert.match(String(create["requestReceivedTimestamp"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.match(String(create["stageTimestamp"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(getPath(events[3], ["responseStatus", "reason"]), "NotFound");
  });
});

describe("kube-sim faults", () => {
  it("--error-rate fails writes with 500 or 429 + Retry-After and leaves reads alone", async () => {
    const sim = await startKubeSim({ faults: { errorRate: 1 } });
    try {
      const call = client(() => sim.url);
      const codes = new Set<number>();
      for (let i = 0; i < 20; i++) {
        const res = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: `e${i}` } });
        codes.add(res.status);
        if (res.status === 429) assert.equal(res.headers.get("retry-after"), "1");
      }
      assert.deepEqual([...codes].sort(), [429, 500]);
      assert.equal((await call("GET", "/api/v1/namespaces/default/configmaps")).status, 200);
    } finally {
      await sim.stop();
    }
  });

  it("--conflict-rate answers 409 to writes that carry a resourceVersion only", async () => {
    const sim = await startKubeSim({ faults: { conflictRate: 1, latencyMs: 5 } });
    try {
      const call = client(() => sim.url);
      const created = (await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "c" } })).body as unknown as KubeObject;
      assert.equal((await call("PUT", "/api/v1/namespaces/default/configmaps/c", created)).status, 409);
      const { resourceVersion: _rv, ...meta } = created.metadata;
      assert.equal((await call("PUT", "/api/v1/namespaces/default/configmaps/c", { ...created, metadata: meta })).status, 200);
    } finally {
      await sim.stop();
    }
  });
});

const stsInfo = () => Promise.resolve(mustFind("apps", "statefulsets"));
const podsInfo = () => mustFind("", "pods");
const pvcInfo = () => mustFind("", "persistentvolumeclaims");
