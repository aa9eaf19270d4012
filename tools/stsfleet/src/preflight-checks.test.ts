// `stsfleet preflight`'s judgements, as tables: who answered the probe (from its managedFields), what the RBAC it
// must grant is (from the ClusterRoles under deploy/base), each check's level and wording, and the exit code.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadAll } from "js-yaml";
import { REPO_ROOT } from "./launch.ts";
import {
  NOTHING_RECONCILES_ADVICE,
  SWITCH_OFF_ADVICE,
  apiServerCheck,
  cleanupCheck,
  controllerCheck,
  describeAccess,
  exitCodeOf,
  formatReport,
  judgeProbeStatusWriters,
  rbacCheck,
  reportJson,
  requiredAccess,
  statefulSetsApiCheck,
  statusWritersOf,
} from "./preflight-checks.ts";
import type { CheckResult, PreflightReport, ProbeVerdict } from "./preflight-checks.ts";

const entry = (manager: string, subresource?: string) => ({ manager, operation: "Update", apiVersion: "apps/v1", time: "2026-12-03T10:00:00Z", ...(subresource ? { subresource } : {}) });

describe("preflight: who answered the probe", () => {
  const cases: readonly { name: string; managedFields: unknown; verdict: ProbeVerdict["kind"] }[] = [
    { name: "only the create: nobody", managedFields: [entry("stsfleet-stsfleet")], verdict: "none" },
    { name: "no managedFields at all", managedFields: undefined, verdict: "none" },
    { name: "kube-controller-manager wrote the status", managedFields: [entry("kubectl"), entry("kube-controller-manager", "status")], verdict: "built-in" },
    { name: "the status-writer wrote it", managedFields: [entry("stsfleet-stsfleet"), entry("stsfleet-status-writer", "status")], verdict: "stsfleet" },
    {
      name: "both wrote it",
      managedFields: [entry("stsfleet-status-writer", "status"), entry("kube-controller-manager", "status")],
      verdict: "built-in-and-stsfleet",
    },
    { name: "k3s's embedded controller manager, by the binary's name", managedFields: [entry("k3s", "status")], verdict: "other" },
    { name: "the fleet and someone else", managedFields: [entry("stsfleet-status-writer", "status"), entry("k3s", "status")], verdict: "other" },
    { name: "a main-resource write by kube-controller-manager is not an answer", managedFields: [entry("kube-controller-manager")], verdict: "none" },
    { name: "our own manager never counts, even on status", managedFields: [entry("stsfleet-stsfleet", "status")], verdict: "none" },
  ];
  for (const { name, managedFields, verdict } of cases) {
    it(name, () => assert.equal(judgeProbeStatusWriters(statusWritersOf(managedFields), 1_500).kind, verdict));
  }

  it("names each status writer once", () => {
    assert.deepEqual(statusWritersOf([entry("a", "status"), entry("a", "status"), entry("b", "status"), { manager: 3, subresource: "status" }, null]), ["a", "b"]);
  });
});

describe("preflight: the controller check", () => {
  const cases: readonly { verdict: ProbeVerdict; level: CheckResult["level"]; summary: RegExp; advice: readonly string[] }[] = [
    { verdict: { kind: "none", waitedMs: 1_480 }, level: "ok", summary: /^no StatefulSet controller answered in 1\.5 s/, advice: NOTHING_RECONCILES_ADVICE },
    { verdict: { kind: "stsfleet", managers: ["stsfleet-status-writer"] }, level: "ok", summary: /^stsfleet is running: .*stsfleet-status-writer/, advice: [] },
    { verdict: { kind: "built-in", managers: ["kube-controller-manager"] }, level: "fail", summary: /^kube-controller-manager's StatefulSet controller is running/, advice: SWITCH_OFF_ADVICE },
    { verdict: { kind: "built-in-and-stsfleet", managers: ["kube-controller-manager", "stsfleet-status-writer"] }, level: "fail", summary: /two StatefulSet controllers/, advice: SWITCH_OFF_ADVICE },
    { verdict: { kind: "other", managers: ["k3s"] }, level: "fail", summary: /another StatefulSet controller .*manager k3s/, advice: SWITCH_OFF_ADVICE },
  ];
  for (const { verdict, level, summary, advice } of cases) {
    it(`${verdict.kind}: ${level}`, () => {
      const check = controllerCheck(verdict);
      assert.equal(check.level, level);
      assert.match(check.summary, summary);
      assert.deepEqual(check.advice, advice);
    });
  }

  it("the fix names every control plane, with the flags as upstream spells them", () => {
    const text = SWITCH_OFF_ADVICE.join("\n");
    for (const expected of [
      "/etc/kubernetes/manifests/kube-controller-manager.yaml",
      "--controllers=*,bootstrapsigner,tokencleaner,-statefulset-controller",
      "kubeadm-config ConfigMap",
      "kube-controller-manager-arg",
      "kubeadmConfigPatches",
      'controllers: "*,bootstrapsigner,tokencleaner,-statefulset-controller"',
      "--kube-controller-manager-arg=controllers=*,-statefulset-controller",
      'kube-controller-manager-arg: ["controllers=*,-statefulset-controller"]',
      "/etc/rancher/k3s/config.yaml",
      "--controllers=*,-statefulset-controller",
      "EKS, GKE, AKS",
      "CRD mode",
    ]) {
      assert.ok(text.includes(expected), `missing ${expected}`);
    }
  });
});

describe("preflight: the RBAC it must grant", () => {
  it("is every rule of deploy/base's ClusterRoles, subresources split, plus creating the roles and bindings", () => {
    const dir = join(REPO_ROOT, "deploy/base/services");
    const documents = readdirSync(dir).flatMap((name) => loadAll(readFileSync(join(dir, name), "utf8")));
    const required = requiredAccess(documents).map(describeAccess);
    for (const expected of ["list apps/statefulsets", "watch pods", "create apps/controllerrevisions", "delete pods", "update apps/statefulsets/finalizers", "update pods/finalizers", "update apps/statefulsets/status", "patch events", "create rbac.authorization.k8s.io/clusterroles", "create rbac.authorization.k8s.io/clusterrolebindings"]) {
      assert.ok(required.includes(expected), `${expected} not in ${required.join(", ")}`);
    }
    assert.equal(new Set(required).size, required.length, "each permission once");
    assert.ok(!required.some((r) => r.includes("secrets")), "nothing the ClusterRoles do not grant");
  });

  it("reads only ClusterRoles", () => {
    const required = requiredAccess([{ kind: "Role", rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }] }, null, "text"]);
    assert.deepEqual(required.map(describeAccess), ["create rbac.authorization.k8s.io/clusterroles", "create rbac.authorization.k8s.io/clusterrolebindings"]);
  });

  const update = { group: "apps", resource: "statefulsets", subresource: "status", verb: "update" };
  const get = { group: "", resource: "pods", verb: "get" };
  const cases: readonly { name: string; answers: Parameters<typeof rbacCheck>[0]; level: CheckResult["level"]; summary: RegExp }[] = [
    { name: "all allowed", answers: { kind: "reviewed", answers: [{ requirement: update, allowed: true }, { requirement: get, allowed: true }] }, level: "ok", summary: /may grant .*2 permissions/ },
    { name: "one missing", answers: { kind: "reviewed", answers: [{ requirement: update, allowed: false }, { requirement: get, allowed: true }] }, level: "fail", summary: /lack 1 of the 2 .*update apps\/statefulsets\/status$/ },
    { name: "the API is not served", answers: { kind: "cannot-check", reason: "not served" }, level: "warn", summary: /^cannot check: not served/ },
  ];
  for (const { name, answers, level, summary } of cases) {
    it(`${name}: ${level}`, () => {
      const check = rbacCheck(answers);
      assert.equal(check.level, level);
      assert.match(check.summary, summary);
    });
  }
});

describe("preflight: the API server and apps/v1", () => {
  const cases: readonly { name: string; check: CheckResult; level: CheckResult["level"]; summary: RegExp }[] = [
    { name: "a version", check: apiServerCheck("https://k:6443", { kind: "version", gitVersion: "v1.32.6", platform: "linux/amd64" }), level: "ok", summary: /reachable at https:\/\/k:6443, Kubernetes v1\.32\.6 \(linux\/amd64\)/ },
    { name: "no answer", check: apiServerCheck("https://k:6443", { kind: "error", status: 0, message: "connect ECONNREFUSED" }), level: "fail", summary: /^cannot reach the API server at https:\/\/k:6443: connect ECONNREFUSED/ },
    { name: "bad credentials", check: apiServerCheck("https://k:6443", { kind: "error", status: 401, message: "Unauthorized" }), level: "fail", summary: /refused the kubeconfig's credentials/ },
    { name: "apps/v1 served", check: statefulSetsApiCheck({ kind: "served", resources: ["statefulsets", "statefulsets/status", "statefulsets/scale"] }), level: "ok", summary: /are served/ },
    { name: "no status subresource", check: statefulSetsApiCheck({ kind: "served", resources: ["statefulsets"] }), level: "fail", summary: /does not serve statefulsets\/status/ },
    { name: "apps/v1 not served", check: statefulSetsApiCheck({ kind: "not-served" }), level: "fail", summary: /not served/ },
  ];
  for (const { name, check, level, summary } of cases) {
    it(`${name}: ${level}`, () => {
      assert.equal(check.level, level);
      assert.match(check.summary, summary);
    });
  }
});

describe("preflight: cleanup, exit code and rendering", () => {
  it("says what became of the probe and how to delete a leftover", () => {
    assert.equal(cleanupCheck({ kind: "not-created" }), undefined);
    assert.match(cleanupCheck({ kind: "deleted", namespace: "p", name: "p", namespaceDeleted: true })?.summary ?? "", /namespace p with its statefulset p$/);
    assert.deepEqual(cleanupCheck({ kind: "kept", namespace: "p", name: "p", ownNamespace: true })?.advice, ["delete it with `kubectl delete namespace p`"]);
    const left = cleanupCheck({ kind: "left", namespace: "team", name: "p", ownNamespace: false, error: "timeout" });
    assert.equal(left?.level, "warn");
    assert.deepEqual(left?.advice, ["delete it with `kubectl -n team delete sts p`"]);
  });

  const ok: CheckResult = { id: "api-server", level: "ok", summary: "reachable", advice: [] };
  const warn: CheckResult = { id: "rbac", level: "warn", summary: "cannot check", advice: ["do this"] };
  const fail: CheckResult = { id: "statefulset-controller", level: "fail", summary: "running", advice: ["switch it off"] };
  const cases: readonly { name: string; report: PreflightReport; exitCode: number; last: RegExp }[] = [
    { name: "all ok", report: { server: "s", connected: true, checks: [ok] }, exitCode: 0, last: /^all checks passed$/ },
    { name: "a warning", report: { server: "s", connected: true, checks: [ok, warn] }, exitCode: 0, last: /^all checks passed, 1 warning/ },
    { name: "a failure", report: { server: "s", connected: true, checks: [ok, warn, fail] }, exitCode: 1, last: /^1 check\(s\) failed, 1 warning/ },
    { name: "not connected", report: { server: "s", connected: false, checks: [{ ...ok, level: "fail" }] }, exitCode: 2, last: /^not connected/ },
  ];
  for (const { name, report, exitCode, last } of cases) {
    it(`${name}: exit ${exitCode}`, () => {
      assert.equal(exitCodeOf(report), exitCode);
      const lines = formatReport(report).split("\n");
      assert.equal(lines[0], "stsfleet preflight: s");
      assert.match(lines.at(-1) ?? "", last);
      assert.equal((JSON.parse(reportJson(report)) as { exitCode: number }).exitCode, exitCode);
    });
  }

  it("lines up a check per line, its advice indented below", () => {
    assert.deepEqual(formatReport({ server: "s", connected: true, checks: [ok, warn] }).split("\n").slice(1, 4), [
      "ok    api-server              reachable",
      "warn  rbac                    cannot check",
      "      do this",
    ]);
  });
});
