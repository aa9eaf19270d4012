// The kinds a deployment of stsfleet itself holds (deploy/; ADR 0091), over real HTTP: discovery lists them; Secrets
// fold stringData into data and default their type; Deployments get SetDefaults_Deployment and the pod template's
// defaults, are validated as kube-apiserver validates them (selector, template, strategy) and keep their selector;
// ServiceAccounts, PodDisruptionBudgets, NetworkPolicies and RBAC objects are served generically (metadata validated,
// RBAC names as path segments, unknown fields refused under fieldValidation=Strict); a namespace's deletion removes
// them all; kubectl reads them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { KubeSim } from "./main.ts";
import { startKubeSim } from "./main.ts";
import { Kubectl, findKubectl, until } from "./testing/kubectl.ts";

interface Res {
  status: number;
  body: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const DEPLOYMENTS = "/apis/apps/v1/namespaces/kinds/deployments";
const SECRETS = "/api/v1/namespaces/kinds/secrets";

function deployment(name: string, extra: Json = {}, labels: Record<string, string> = { app: name }): Json {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "stsfleet:0.1.0", resources: { requests: { cpu: "0.5" } } }] } }, ...extra },
  };
}

function causes(res: Res): string[] {
  const details = res.body["details"] as { causes?: { field: string; message: string }[] } | undefined;
  return (details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
}

describe("kube-sim serves the kinds of deploy/", () => {
  let sim: KubeSim;
  let dir: string;
  const call = async (method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Res> => {
    const res = await fetch(`${sim.url}${path}`, { method, headers: { "Content-Type": contentType }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, body: text.startsWith("{") ? (JSON.parse(text) as Json) : { text } };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kube-sim-kinds-"));
    sim = await startKubeSim({ kubeconfigOut: join(dir, "kubeconfig") });
    assert.equal((await call("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "kinds" } })).status, 201);
  });

  after(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists them in discovery, with their scope and short names", async () => {
    const names = async (path: string) =>
      ((await call("GET", path)).body["resources"] as { name: string; kind: string; namespaced: boolean; shortNames?: string[] }[]).map(
        (r) => `${r.name} ${r.kind} ${r.namespaced ? "namespaced" : "cluster"} ${(r.shortNames ?? []).join(",")}`.trim(),
      );
    const core = await names("/api/v1");
    for (const line of ["secrets Secret namespaced", "serviceaccounts ServiceAccount namespaced sa"]) assert.ok(core.includes(line), line);
    const apps = await names("/apis/apps/v1");
    assert.ok(apps.includes("deployments Deployment namespaced deploy"));
    assert.ok(apps.includes("deployments/status Deployment namespaced"));
    assert.deepEqual(await names("/apis/policy/v1"), ["poddisruptionbudgets PodDisruptionBudget namespaced pdb"]);
    assert.deepEqual(await names("/apis/networking.k8s.io/v1"), ["networkpolicies NetworkPolicy namespaced netpol"]);
    assert.deepEqual((await names("/apis/rbac.authorization.k8s.io/v1")).sort(), [
      "clusterrolebindings ClusterRoleBinding cluster",
      "clusterroles ClusterRole cluster",
      "rolebindings RoleBinding namespaced",
      "roles Role namespaced",
    ]);
  });

  describe("Secret", () => {
    it("folds stringData into data, defaults the type to Opaque and never serves stringData", async () => {
      const res = await call("POST", SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "creds" }, data: { a: "eA==", b: "eA==" }, stringData: { b: "pass wörd", c: "" } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const served = (await call("GET", `${SECRETS}/creds`)).body;
      assert.deepEqual(served["data"], { a: "eA==", b: Buffer.from("pass wörd").toString("base64"), c: "" });
      assert.equal(served["type"], "Opaque");
      assert.equal(served["stringData"], undefined);
    });

    it("refuses invalid keys, the keys a typed Secret needs missing, and changes to an immutable one", async () => {
      const badKey = await call("POST", SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "bad" }, stringData: { "no/slash": "x" } });
      assert.equal(badKey.status, 422);
      assert.match(causes(badKey)[0] ?? "", /^data\[no\/slash\]: Invalid value: "no\/slash": a valid config key must consist of alphanumeric characters/);
      const tls = await call("POST", SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "tls" }, type: "kubernetes.io/tls", stringData: { "tls.crt": "c" } });
      assert.equal(tls.status, 422);
      assert.deepEqual(causes(tls), ["data[tls.key]: Required value"]);
      assert.equal((await call("POST", SECRETS, { apiVersion: "v1", kind: "Secret", metadata: { name: "frozen" }, immutable: true, stringData: { a: "1" } })).status, 201);
      const changed = await call("PATCH", `${SECRETS}/frozen`, { stringData: { a: "2" } }, "application/merge-patch+json");
      assert.equal(changed.status, 422);
      assert.deepEqual(causes(changed), ["data: Forbidden: field is immutable when `immutable` is set"]);
      const retyped = await call("PATCH", `${SECRETS}/creds`, { type: "kubernetes.io/basic-auth", stringData: { username: "u" } }, "application/merge-patch+json");
      assert.equal(retyped.status, 422);
      assert.deepEqual(causes(retyped), ['type: Invalid value: "kubernetes.io/basic-auth": field is immutable']);
    });
  });

  describe("Deployment", () => {
    it("gets SetDefaults_Deployment, the pod template's defaults, canonical quantities, generation 1 and an empty status", async () => {
      const res = await call("POST", DEPLOYMENTS, deployment("web"));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const spec = res.body["spec"] as Json;
      assert.equal(spec["replicas"], 1);
      assert.deepEqual(spec["strategy"], { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
      assert.equal(spec["revisionHistoryLimit"], 10);
      assert.equal(spec["progressDeadlineSeconds"], 600);
      const podSpec = (spec["template"] as Json)["spec"] as Json;
      assert.equal(podSpec["restartPolicy"], "Always");
      assert.equal(podSpec["dnsPolicy"], "ClusterFirst");
      const container = (podSpec["containers"] as Json[])[0] as Json;
      assert.equal(container["terminationMessagePolicy"], "File");
      assert.equal(container["imagePullPolicy"], "IfNotPresent");
      assert.deepEqual(container["resources"], { requests: { cpu: "500m" } });
      assert.equal((res.body["metadata"] as Json)["generation"], 1);
      assert.deepEqual(res.body["status"], {});
    });

    it("answers 422 with kube-apiserver's causes for a selector that misses the template, a bad strategy and a bad pod spec", async () => {
      const mismatch = await call("POST", DEPLOYMENTS, deployment("bad", {}, { app: "other" }));
      assert.equal(mismatch.status, 422);
      assert.deepEqual(causes(mismatch), ['spec.template.metadata.labels: Invalid value: {"app":"other"}: `selector` does not match template `labels`']);
      const zero = await call("POST", DEPLOYMENTS, deployment("zero", { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }));
      assert.equal(zero.status, 422);
      assert.deepEqual(causes(zero), ["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"]);
      const recreate = await call("POST", DEPLOYMENTS, deployment("recreate", { strategy: { type: "Recreate", rollingUpdate: {} } }));
      assert.deepEqual(causes(recreate), ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]);
      const noImage = deployment("noimage");
      ((((noImage["spec"] as Json)["template"] as Json)["spec"] as Json)["containers"] as Json[])[0] = { name: "c" };
      const pod = await call("POST", DEPLOYMENTS, noImage);
      assert.equal(pod.status, 422);
      assert.deepEqual(causes(pod), ["spec.template.spec.containers[0].image: Required value"]);
      const deadline = await call("POST", DEPLOYMENTS, deployment("deadline", { minReadySeconds: 10, progressDeadlineSeconds: 10 }));
      assert.deepEqual(causes(deadline), ["spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"]);
    });

    it("keeps its selector, bumps the generation on a spec or annotation change, and keeps status on main updates", async () => {
      const selector = await call("PATCH", `${DEPLOYMENTS}/web`, { spec: { selector: { matchLabels: { app: "web", tier: "x" } }, template: { metadata: { labels: { app: "web", tier: "x" } } } } }, "application/merge-patch+json");
      assert.equal(selector.status, 422);
      assert.match(causes(selector).join("\n"), /^spec\.selector: Invalid value: .*: field is immutable$/m);
      const scaled = await call("PATCH", `${DEPLOYMENTS}/web`, { spec: { replicas: 3 }, status: { replicas: 9 } }, "application/merge-patch+json");
      assert.equal(scaled.status, 200, JSON.stringify(scaled.body));
      assert.equal((scaled.body["metadata"] as Json)["generation"], 2);
      assert.deepEqual(scaled.body["status"], {}, "status is the /status subresource's");
      const annotated = await call("PATCH", `${DEPLOYMENTS}/web`, { metadata: { annotations: { note: "x" } } }, "application/merge-patch+json");
      assert.equal((annotated.body["metadata"] as Json)["generation"], 3);
      const status = await call("PATCH", `${DEPLOYMENTS}/web/status`, { spec: { replicas: 7 }, status: { replicas: 3, readyReplicas: 2, availableReplicas: 3 } }, "application/merge-patch+json");
      assert.equal(status.status, 422);
      assert.deepEqual(causes(status), ["status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas"]);
      const ok = await call("PATCH", `${DEPLOYMENTS}/web/status`, { spec: { replicas: 7 }, status: { replicas: 3, readyReplicas: 2, availableReplicas: 2 } }, "application/merge-patch+json");
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal((ok.body["spec"] as Json)["replicas"], 3, "a status update keeps the spec");
    });
  });

  describe("ServiceAccount, PodDisruptionBudget, NetworkPolicy and RBAC (served generically)", () => {
    it("accepts them, names RBAC objects by path segment, and drops a cluster-scoped object's namespace", async () => {
      const sa = await call("POST", "/api/v1/namespaces/kinds/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "actor" }, automountServiceAccountToken: false });
      assert.equal(sa.status, 201, JSON.stringify(sa.body));
      const pdb = await call("POST", "/apis/policy/v1/namespaces/kinds/poddisruptionbudgets", { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "actor" }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: "actor" } } } });
      assert.equal(pdb.status, 201, JSON.stringify(pdb.body));
      const policy = await call("POST", "/apis/networking.k8s.io/v1/namespaces/kinds/networkpolicies", { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "deny" }, spec: { podSelector: {}, policyTypes: ["Ingress"] } });
      assert.equal(policy.status, 201, JSON.stringify(policy.body));
      const role = await call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "system:controller:stsfleet", namespace: "kinds" }, rules: [{ apiGroups: ["apps"], resources: ["statefulsets/finalizers"], verbs: ["update"] }] });
      assert.equal(role.status, 201, JSON.stringify(role.body));
      assert.equal((role.body["metadata"] as Json)["namespace"], undefined);
      const slash = await call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "a/b" } });
      assert.equal(slash.status, 422);
      assert.deepEqual(causes(slash), ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
      const dnsOnly = await call("POST", "/api/v1/namespaces/kinds/serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "Not_DNS" } });
      assert.equal(dnsOnly.status, 422);
    });

    it("refuses a field its schema lacks under fieldValidation=Strict, as kubectl apply asks", async () => {
      const res = await call("POST", "/apis/networking.k8s.io/v1/namespaces/kinds/networkpolicies?fieldValidation=Strict", { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "typo" }, spec: { podSelector: {}, ingres: [] } });
      assert.equal(res.status, 400);
      assert.match(String(res.body["message"]), /unknown field "spec\.ingres"/);
    });
  });

  const kubectlBinary = findKubectl();
  it("kubectl gets them", { skip: kubectlBinary === undefined ? "kubectl is not on the PATH" : false }, async () => {
    const kubectl = new Kubectl(kubectlBinary ?? "kubectl", join(dir, "kubeconfig"));
    try {
      const out = await kubectl.ok(["-n", "kinds", "get", "deploy,secret,sa,pdb,netpol,role,rolebinding", "-o", "name"]);
      for (const name of ["deployment.apps/web", "secret/creds", "serviceaccount/actor", "poddisruptionbudget.policy/actor", "networkpolicy.networking.k8s.io/deny"]) {
        assert.match(out, new RegExp(`^${name.replaceAll(".", "\\.")}$`, "m"), name);
      }
      assert.match(await kubectl.ok(["get", "clusterrole", "system:controller:stsfleet"]), /system:controller:stsfleet/);
    } finally {
      kubectl.cleanup();
    }
  });

  it("removes them with their namespace", async () => {
    assert.equal((await call("DELETE", "/api/v1/namespaces/kinds")).status, 200);
    await until("namespace kinds to be gone", async () => ((await call("GET", "/api/v1/namespaces/kinds")).status === 404 ? true : undefined));
    for (const path of [DEPLOYMENTS, SECRETS, "/api/v1/namespaces/kinds/serviceaccounts", "/apis/policy/v1/namespaces/kinds/poddisruptionbudgets", "/apis/networking.k8s.io/v1/namespaces/kinds/networkpolicies"]) {
      assert.deepEqual((await call("GET", path)).body["items"], [], path);
    }
  });
});
