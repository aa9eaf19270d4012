// What `stsfleet preflight` concludes from what it read, and how it says so: one check result per question (is the
// API server reachable, are StatefulSets served, may these credentials grant the fleet's RBAC, is another
// StatefulSet controller running, was the probe cleaned up), the exit code, and the text and JSON renderings. Pure:
// preflight.ts does the reading and the probe, this file only judges. How the running fleet tells another
// controller from the set's status writers is docs/adr/0092-another-statefulset-controller.md; the probe asks the
// same question once, of a set nobody else knows about, so any status write on it is a controller answering.
import { assertNever } from "#protocol";
import { DEFAULT_FOREIGN_CONTROLLER_OPTIONS } from "../../../services/actor/src/domain/foreign-controller.ts";
import { fieldManager } from "../../../services/common/src/version.ts";

export type CheckLevel = "ok" | "warn" | "fail";

/** The checks, in the order they run and are shown. */
export const CHECK_IDS = ["api-server", "statefulsets-api", "rbac", "statefulset-controller", "probe-cleanup"] as const;
export type CheckId = (typeof CHECK_IDS)[number];

export interface CheckResult {
  readonly id: CheckId;
  readonly level: CheckLevel;
  /** One line: what was found. */
  readonly summary: string;
  /** What to do about it, one line each; empty when there is nothing to do. */
  readonly advice: readonly string[];
}

export interface PreflightReport {
  /** The API server's URL, from the kubeconfig. */
  readonly server: string;
  /** False when the API server could not be asked anything: the checks after `api-server` did not run. */
  readonly connected: boolean;
  readonly checks: readonly CheckResult[];
}

/** 0 every check passed (warnings included), 1 a check failed, 2 usage or connection error, 130 interrupted. */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

export function exitCodeOf(report: PreflightReport): number {
  if (!report.connected) return EXIT_CODES.usage;
  return report.checks.some((check) => check.level === "fail") ? EXIT_CODES.failed : EXIT_CODES.ok;
}

// --- the API server -------------------------------------------------------------------------------------------

/** GET /version's answer (the fields shown), or why there was none (`status` 0: no HTTP answer at all). */
export type VersionAnswer =
  | { readonly kind: "version"; readonly gitVersion?: string | undefined; readonly platform?: string | undefined }
  | { readonly kind: "error"; readonly status: number; readonly message: string };

export function apiServerCheck(server: string, answer: VersionAnswer): CheckResult {
  if (answer.kind === "version") {
    const platform = answer.platform ? ` (${answer.platform})` : "";
    return { id: "api-server", level: "ok", summary: `reachable at ${server}, Kubernetes ${answer.gitVersion ?? "(version not given)"}${platform}`, advice: [] };
  }
  if (answer.status === 401) {
    return {
      id: "api-server",
      level: "fail",
      summary: `${server} refused the kubeconfig's credentials (401 Unauthorized)`,
      advice: ["renew the credentials of the kubeconfig's current user, or pass another --kubeconfig"],
    };
  }
  const what = answer.status === 0 ? "cannot reach the API server" : `the API server answered ${answer.status}`;
  return {
    id: "api-server",
    level: "fail",
    summary: `${what} at ${server}: ${answer.message}`,
    advice: ["check the kubeconfig's server and current context (`kubectl --kubeconfig <path> version` asks the same thing)"],
  };
}

// --- apps/v1 StatefulSets -------------------------------------------------------------------------------------

/** What GET /apis/apps/v1 answered: the resource names it lists (`statefulsets`, `statefulsets/status`, …). */
export type AppsAnswer =
  | { readonly kind: "served"; readonly resources: readonly string[] }
  | { readonly kind: "not-served" }
  | { readonly kind: "error"; readonly message: string };

export function statefulSetsApiCheck(answer: AppsAnswer): CheckResult {
  const id = "statefulsets-api";
  const advice = ["stsfleet needs the apps/v1 API group with statefulsets and their status subresource (served since Kubernetes 1.9)"];
  switch (answer.kind) {
    case "not-served":
      return { id, level: "fail", summary: "apps/v1 is not served by this API server", advice };
    case "error":
      return { id, level: "fail", summary: `cannot read apps/v1's resources: ${answer.message}`, advice: [] };
    case "served": {
      const missing = ["statefulsets", "statefulsets/status"].filter((name) => !answer.resources.includes(name));
      if (missing.length > 0) return { id, level: "fail", summary: `apps/v1 does not serve ${missing.join(" and ")}`, advice };
      return { id, level: "ok", summary: "apps/v1 statefulsets and statefulsets/status are served", advice: [] };
    }
    default:
      return assertNever(answer, "apps/v1 answer");
  }
}

// --- RBAC -----------------------------------------------------------------------------------------------------

/** One permission as a SelfSubjectAccessReview asks it (cluster-wide: no namespace). */
export interface AccessRequirement {
  /** "" for the core group. */
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string | undefined;
  readonly verb: string;
}

interface PolicyRuleLike {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
}

function isClusterRole(doc: unknown): doc is { kind: "ClusterRole"; rules?: readonly PolicyRuleLike[] } {
  return typeof doc === "object" && doc !== null && (doc as { kind?: unknown }).kind === "ClusterRole";
}

/**
 * Granting the fleet's ClusterRoles (applying deploy/) needs every permission in them (Kubernetes lets a user grant
 * only what it holds) and `create` on ClusterRoles and ClusterRoleBindings. From the manifests' documents, once
 * each, in the manifests' order.
 */
export function requiredAccess(manifestDocuments: readonly unknown[]): AccessRequirement[] {
  const seen = new Map<string, AccessRequirement>();
  const add = (requirement: AccessRequirement) => seen.set(describeAccess(requirement), requirement);
  for (const doc of manifestDocuments.filter(isClusterRole)) {
    for (const rule of doc.rules ?? []) {
      for (const group of rule.apiGroups ?? []) {
        for (const name of rule.resources ?? []) {
          const [resource = name, subresource] = name.split("/");
          for (const verb of rule.verbs ?? []) add({ group, resource, subresource, verb });
        }
      }
    }
  }
  add({ group: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "create" });
  add({ group: "rbac.authorization.k8s.io", resource: "clusterrolebindings", verb: "create" });
  return [...seen.values()];
}

/** `update apps/statefulsets/status`, `create pods`: the verb and resource, the group left out for the core group. */
export function describeAccess(requirement: AccessRequirement): string {
  const resource = requirement.subresource ? `${requirement.resource}/${requirement.subresource}` : requirement.resource;
  return `${requirement.verb} ${requirement.group === "" ? "" : `${requirement.group}/`}${resource}`;
}

/** Each requirement with its review's answer, or why the reviews could not be asked. */
export type AccessAnswers =
  | { readonly kind: "reviewed"; readonly answers: readonly { readonly requirement: AccessRequirement; readonly allowed: boolean }[] }
  | { readonly kind: "cannot-check"; readonly reason: string };

export function rbacCheck(answers: AccessAnswers): CheckResult {
  if (answers.kind === "cannot-check") {
    return {
      id: "rbac",
      level: "warn",
      summary: `cannot check: ${answers.reason}`,
      advice: ["applying deploy/ needs every permission in deploy/base/services/*.yaml's ClusterRoles (deploy/README.md, RBAC): apply it as a cluster admin"],
    };
  }
  const missing = answers.answers.filter((answer) => !answer.allowed).map((answer) => describeAccess(answer.requirement));
  if (missing.length === 0) {
    return { id: "rbac", level: "ok", summary: `these credentials may grant the fleet's ClusterRoles (${answers.answers.length} permissions reviewed)`, advice: [] };
  }
  return {
    id: "rbac",
    level: "fail",
    summary: `these credentials lack ${missing.length} of the ${answers.answers.length} permissions applying deploy/ grants: ${missing.join(", ")}`,
    advice: [
      "Kubernetes lets you grant only permissions you hold, so `kubectl apply -k deploy/overlays/...` would be refused:",
      "apply it as a cluster admin, or with `escalate` and `bind` on clusterroles (deploy/README.md, RBAC, lists what each service gets and why)",
    ],
  };
}

// --- the StatefulSet controller --------------------------------------------------------------------------------

/** The managers of a StatefulSet's `status` subresource entries in its managedFields (ADR 0092's evidence). */
export function statusWritersOf(managedFields: unknown): string[] {
  if (!Array.isArray(managedFields)) return [];
  const managers = new Set<string>();
  for (const entry of managedFields as unknown[]) {
    if (typeof entry !== "object" || entry === null) continue;
    const { subresource, manager } = entry as { subresource?: unknown; manager?: unknown };
    if (subresource === "status" && typeof manager === "string") managers.add(manager);
  }
  return [...managers];
}

/** Who answered the probe by writing its status; `none`: nobody within the wait. */
export type ProbeVerdict =
  | { readonly kind: "none"; readonly waitedMs: number }
  | { readonly kind: "built-in"; readonly managers: readonly string[] }
  | { readonly kind: "stsfleet"; readonly managers: readonly string[] }
  | { readonly kind: "built-in-and-stsfleet"; readonly managers: readonly string[] }
  | { readonly kind: "other"; readonly managers: readonly string[] };

export interface ProbeJudgeOptions {
  /** Managers that are kube-controller-manager's StatefulSet controller by name. */
  readonly builtInManagers: readonly string[];
  /** Our own manager (the probe's create): never an answer, whatever it wrote. */
  readonly ownManager: string;
}

/** Defaults to the fleet's own list of known StatefulSet controllers (`kube-controller-manager`, ADR 0092). */
export const DEFAULT_PROBE_JUDGE_OPTIONS: ProbeJudgeOptions = {
  builtInManagers: DEFAULT_FOREIGN_CONTROLLER_OPTIONS.knownControllers,
  ownManager: fieldManager("stsfleet"),
};

/** Every status writer of the probe is a controller answering it: nobody but controllers knows it exists. */
export function judgeProbeStatusWriters(
  writers: readonly string[],
  waitedMs: number,
  options: ProbeJudgeOptions = DEFAULT_PROBE_JUDGE_OPTIONS,
): ProbeVerdict {
  const managers = writers.filter((manager) => manager !== options.ownManager);
  if (managers.length === 0) return { kind: "none", waitedMs };
  const builtIn = managers.some((manager) => options.builtInManagers.includes(manager));
  const fleet = managers.some((manager) => manager.startsWith("stsfleet-"));
  if (builtIn && fleet) return { kind: "built-in-and-stsfleet", managers };
  if (builtIn) return { kind: "built-in", managers };
  if (fleet && managers.every((manager) => manager.startsWith("stsfleet-"))) return { kind: "stsfleet", managers };
  return { kind: "other", managers };
}

/** The flag value that switches it off on a plain kube-controller-manager (its controller is `statefulset-controller`). */
export const CONTROLLERS_FLAG = "--controllers=*,-statefulset-controller";

/**
 * What to change, per control plane. kubeadm (and so kind) already passes `--controllers=*,bootstrapsigner,tokencleaner`
 * and an extraArgs entry replaces that value, so theirs keeps both (without bootstrapsigner, `kubeadm join` fails).
 */
export const SWITCH_OFF_ADVICE: readonly string[] = [
  "switch kube-controller-manager's StatefulSet controller off, then run `stsfleet preflight` again (docs/CLUSTER.md):",
  "- kubeadm: on every control-plane node, in /etc/kubernetes/manifests/kube-controller-manager.yaml, change",
  "  `--controllers=*,bootstrapsigner,tokencleaner` to `--controllers=*,bootstrapsigner,tokencleaner,-statefulset-controller`",
  "  (the kubelet restarts the static pod); for `kubeadm upgrade` to keep it, add the same `controllers` value to",
  "  controllerManager.extraArgs in the kubeadm-config ConfigMap (kube-system) too",
  "- kind: create the cluster with a config whose kubeadmConfigPatches set ClusterConfiguration controllerManager.extraArgs",
  '  `controllers: "*,bootstrapsigner,tokencleaner,-statefulset-controller"` (the file is in docs/CLUSTER.md)',
  "- k3s: start the server with `--kube-controller-manager-arg=controllers=*,-statefulset-controller`, or put",
  '  `kube-controller-manager-arg: ["controllers=*,-statefulset-controller"]` in /etc/rancher/k3s/config.yaml, and restart it;',
  "  if its log line `Running kube-controller-manager` shows a --controllers value of its own, keep that and append `,-statefulset-controller`",
  `- a control plane you run yourself: start kube-controller-manager with \`${CONTROLLERS_FLAG}\` (or append \`,-statefulset-controller\` to the list it has)`,
  "- EKS, GKE, AKS and other managed control planes do not let you change kube-controller-manager's flags: stsfleet cannot run",
  "  there until it has a CRD mode (it does not yet)",
];

/** deploy/ runs NATS as a StatefulSet: with no controller at all, its pods are never made, and the fleet needs them. */
export const NOTHING_RECONCILES_ADVICE: readonly string[] = [
  "no new StatefulSet gets pods now, deploy/'s NATS included: install in the order docs/CLUSTER.md gives",
];

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export function controllerCheck(verdict: ProbeVerdict): CheckResult {
  const id = "statefulset-controller";
  const by = (managers: readonly string[]) => `manager ${managers.join(", ")}`;
  switch (verdict.kind) {
    case "none":
      return { id, level: "ok", summary: `no StatefulSet controller answered in ${seconds(verdict.waitedMs)}: nothing reconciles StatefulSets (as a fresh install wants)`, advice: NOTHING_RECONCILES_ADVICE };
    case "stsfleet":
      return { id, level: "ok", summary: `stsfleet is running: it wrote the probe's status (${by(verdict.managers)})`, advice: [] };
    case "built-in":
      return { id, level: "fail", summary: `kube-controller-manager's StatefulSet controller is running: it wrote the probe's status (${by(verdict.managers)}); with stsfleet both would reconcile every set`, advice: SWITCH_OFF_ADVICE };
    case "built-in-and-stsfleet":
      return {
        id,
        level: "fail",
        summary: `two StatefulSet controllers are running: kube-controller-manager's and stsfleet (${by(verdict.managers)}); stsfleet leaves each set the other writes alone (ADR 0092)`,
        advice: SWITCH_OFF_ADVICE,
      };
    case "other":
      return {
        id,
        level: "fail",
        summary: `another StatefulSet controller wrote the probe's status (${by(verdict.managers)}); k3s's embedded kube-controller-manager may write under the binary's name`,
        advice: SWITCH_OFF_ADVICE,
      };
    default:
      return assertNever(verdict, "probe verdict");
  }
}

/** The probe could not be made or read: the question stays open, which fails the check. */
export function controllerNotCheckedCheck(reason: string): CheckResult {
  return {
    id: "statefulset-controller",
    level: "fail",
    summary: `cannot tell whether another StatefulSet controller runs: ${reason}`,
    advice: ["the probe needs create, get and delete on apps/statefulsets (and on namespaces, unless --namespace names one that exists)"],
  };
}

// --- the probe's cleanup --------------------------------------------------------------------------------------

/** What became of the probe: `kept` (--keep), or deleted, or left behind because a delete failed. */
export type CleanupOutcome =
  | { readonly kind: "not-created" }
  | { readonly kind: "kept"; readonly namespace: string; readonly name: string; readonly ownNamespace: boolean }
  | { readonly kind: "deleted"; readonly namespace: string; readonly name: string; readonly namespaceDeleted: boolean }
  | { readonly kind: "left"; readonly namespace: string; readonly name: string; readonly ownNamespace: boolean; readonly error: string };

function deleteCommand(probe: { readonly namespace: string; readonly name: string; readonly ownNamespace: boolean }): string {
  return probe.ownNamespace ? `kubectl delete namespace ${probe.namespace}` : `kubectl -n ${probe.namespace} delete sts ${probe.name}`;
}

export function cleanupCheck(outcome: CleanupOutcome): CheckResult | undefined {
  const id = "probe-cleanup";
  switch (outcome.kind) {
    case "not-created":
      return undefined;
    case "kept":
      return { id, level: "ok", summary: `kept statefulset ${outcome.namespace}/${outcome.name} (--keep)`, advice: [`delete it with \`${deleteCommand(outcome)}\``] };
    case "deleted":
      return { id, level: "ok", summary: `deleted the probe: ${outcome.namespaceDeleted ? `namespace ${outcome.namespace} with its statefulset ${outcome.name}` : `statefulset ${outcome.namespace}/${outcome.name}`}`, advice: [] };
    case "left":
      return { id, level: "warn", summary: `could not delete the probe statefulset ${outcome.namespace}/${outcome.name}: ${outcome.error}`, advice: [`delete it with \`${deleteCommand(outcome)}\``] };
    default:
      return assertNever(outcome, "cleanup outcome");
  }
}

// --- rendering ------------------------------------------------------------------------------------------------

const ID_WIDTH = Math.max(...CHECK_IDS.map((id) => id.length));

export function formatReport(report: PreflightReport): string {
  const lines = [`stsfleet preflight: ${report.server}`];
  for (const check of report.checks) {
    lines.push(`${check.level.padEnd(4)}  ${check.id.padEnd(ID_WIDTH)}  ${check.summary}`);
    for (const line of check.advice) lines.push(`      ${line}`);
  }
  const failed = report.checks.filter((check) => check.level === "fail").length;
  const warned = report.checks.filter((check) => check.level === "warn").length;
  if (!report.connected) lines.push("not connected: nothing else was checked");
  else lines.push(failed > 0 ? `${failed} check(s) failed, ${warned} warning(s)` : `all checks passed${warned > 0 ? `, ${warned} warning(s)` : ""}`);
  return lines.join("\n");
}

export function reportJson(report: PreflightReport): string {
  return JSON.stringify({ ...report, exitCode: exitCodeOf(report) }, null, 2);
}
