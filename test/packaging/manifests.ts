// Reading rendered Kubernetes manifests in tests: rendering an overlay with `kubectl kustomize` (alone or with
// Components on top, as a user's overlay would, or from an edited copy), label selectors, and the RBAC rules each
// ServiceAccount ends up with, against what the code and the admission plugins need.
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { findExecutable, parseYamlDocuments, repoPath, repoTempDir, run } from "./support.ts";
import type { Service } from "./support.ts";

/**
 * The Kubernetes calls each service's code makes, one line per verb and resource. Sources:
 * services/watcher/src/adapters/kube-source.ts (list, watch), services/actor/src/runtime/executor.ts (pods, revisions,
 * the adoption read), services/pvc-provisioner/src/claims.ts, services/status-writer/src/{status,events}.ts.
 */
export const CODE_PERMISSIONS: Record<Service, readonly string[]> = {
  watcher: ["get", "list", "watch"].flatMap((verb) => [
    `${verb} apps/statefulsets`,
    `${verb} apps/controllerrevisions`,
    `${verb} /pods`,
    `${verb} /persistentvolumeclaims`,
  ]),
  actor: [
    "get apps/statefulsets",
    ...["get", "create", "patch", "delete"].map((verb) => `${verb} apps/controllerrevisions`),
    ...["get", "create", "update", "patch", "delete"].map((verb) => `${verb} /pods`),
  ],
  "pvc-provisioner": ["get", "create", "update"].map((verb) => `${verb} /persistentvolumeclaims`),
  "status-writer": ["get apps/statefulsets", "update apps/statefulsets/status", "create /events", "patch /events"],
};

/** An owner reference as the fleet writes it; `uid` tells references apart (as the admission plugin does). */
export interface OwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** One kind of write that sets or changes owner references: the object's references before and after it. */
export interface OwnerReferenceWrite {
  readonly service: Service;
  readonly verb: "create" | "update" | "patch";
  /** `group/resource` of the written object. */
  readonly resource: string;
  readonly before?: readonly OwnerRef[];
  readonly after: readonly OwnerRef[];
  readonly what: string;
}

/** The controller references the fleet writes (upstream newControllerRef: controller and blockOwnerDeletion true). */
const SET_REF: OwnerRef = { apiVersion: "apps/v1", kind: "StatefulSet", uid: "set", controller: true, blockOwnerDeletion: true };
const POD_REF: OwnerRef = { apiVersion: "v1", kind: "Pod", uid: "pod", controller: true, blockOwnerDeletion: true };

/**
 * Every write of the fleet that sets, changes or removes owner references. Sources: services/actor/src/planner/pods.ts
 * (setControllerRef, on every pod and revision), planner/refs.ts (adoption and release patches), planner/revisions.ts,
 * planner/claims.ts (desiredOwnerRefs: the retention policy's references, the set's or, after a scale-down, the
 * pod's), services/pvc-provisioner/src/claims.ts (claims are created with the references the actor planned and
 * rewritten with pvc.updateOwnerRefs). The status-writer's and the watcher's writes carry no owner references.
 */
export const OWNER_REFERENCE_WRITES: readonly OwnerReferenceWrite[] = [
  { service: "actor", verb: "create", resource: "/pods", after: [SET_REF], what: "create a pod" },
  { service: "actor", verb: "create", resource: "apps/controllerrevisions", after: [SET_REF], what: "create a revision" },
  { service: "actor", verb: "patch", resource: "/pods", before: [], after: [SET_REF], what: "adopt an orphan pod" },
  { service: "actor", verb: "patch", resource: "/pods", before: [SET_REF], after: [], what: "release a pod" },
  { service: "actor", verb: "patch", resource: "apps/controllerrevisions", before: [], after: [SET_REF], what: "adopt an orphan revision" },
  { service: "actor", verb: "update", resource: "/pods", before: [SET_REF], after: [SET_REF], what: "update a pod in place" },
  { service: "pvc-provisioner", verb: "create", resource: "/persistentvolumeclaims", after: [], what: "create a claim (Retain/Retain)" },
  { service: "pvc-provisioner", verb: "create", resource: "/persistentvolumeclaims", after: [SET_REF], what: "create a claim (whenDeleted: Delete)" },
  { service: "pvc-provisioner", verb: "update", resource: "/persistentvolumeclaims", before: [], after: [SET_REF], what: "a policy changed to whenDeleted: Delete" },
  { service: "pvc-provisioner", verb: "update", resource: "/persistentvolumeclaims", before: [SET_REF], after: [POD_REF], what: "scale-down with whenScaled: Delete" },
  { service: "pvc-provisioner", verb: "update", resource: "/persistentvolumeclaims", before: [], after: [POD_REF], what: "scale-down with Delete/Retain" },
  { service: "pvc-provisioner", verb: "update", resource: "/persistentvolumeclaims", before: [POD_REF], after: [SET_REF], what: "scaled up again" },
  { service: "pvc-provisioner", verb: "update", resource: "/persistentvolumeclaims", before: [SET_REF], after: [], what: "a policy changed to Retain/Retain" },
];

/** The resource an owner reference's kind maps to (the admission plugin asks the RESTMapper). */
const OWNER_RESOURCES: Readonly<Record<string, string>> = { "apps/v1 StatefulSet": "apps/statefulsets", "v1 Pod": "/pods" };

function sameRef(a: OwnerRef, b: OwnerRef): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.uid === b.uid && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}

/**
 * What the OwnerReferencesPermissionEnforcement admission plugin asks the authorizer for one write, as "verb
 * group/resource" (a port of kubernetes plugin/pkg/admission/gc/gc_admission.go, Validate): nothing unless the write
 * changes owner references; for an update or patch, `delete` on the object itself; for every reference that is new,
 * or newly blockOwnerDeletion, with blockOwnerDeletion true, `update` on the owner's `finalizers` subresource.
 */
export function ownerReferencesPermissionChecks(write: Pick<OwnerReferenceWrite, "verb" | "resource" | "before" | "after">): string[] {
  const before = write.verb === "create" ? undefined : (write.before ?? []);
  const changing = before === undefined ? write.after.length > 0 : before.length !== write.after.length || before.some((ref, i) => !sameRef(ref, write.after[i] as OwnerRef));
  if (!changing) return [];
  const checks: string[] = [];
  if (write.verb !== "create") checks.push(`delete ${write.resource}`);
  for (const ref of write.after) {
    if (ref.blockOwnerDeletion !== true) continue;
    const old = before?.find((r) => r.uid === ref.uid);
    if (old !== undefined && old.blockOwnerDeletion === true) continue;
    const owner = OWNER_RESOURCES[`${ref.apiVersion} ${ref.kind}`];
    if (owner === undefined) throw new Error(`no resource known for owner kind ${ref.apiVersion} ${ref.kind}`);
    checks.push(`update ${owner}/finalizers`);
  }
  return checks;
}

/** What the roles grant on top of CODE_PERMISSIONS: OwnerReferencesPermissionEnforcement's checks of OWNER_REFERENCE_WRITES. */
export const ADMISSION_PERMISSIONS: Record<Service, readonly string[]> = {
  watcher: [],
  actor: ["update apps/statefulsets/finalizers"],
  "pvc-provisioner": ["delete /persistentvolumeclaims", "update apps/statefulsets/finalizers", "update /pods/finalizers"],
  "status-writer": [],
};

/** The whole RBAC contract: a service's roles grant exactly these, no more (kustomize.test.ts checks it). */
export const EXPECTED_PERMISSIONS: Record<Service, readonly string[]> = {
  watcher: [...CODE_PERMISSIONS.watcher, ...ADMISSION_PERMISSIONS.watcher],
  actor: [...CODE_PERMISSIONS.actor, ...ADMISSION_PERMISSIONS.actor],
  "pvc-provisioner": [...CODE_PERMISSIONS["pvc-provisioner"], ...ADMISSION_PERMISSIONS["pvc-provisioner"]],
  "status-writer": [...CODE_PERMISSIONS["status-writer"], ...ADMISSION_PERMISSIONS["status-writer"]],
};

/**
 * kube-controller-manager's own role, system:controller:statefulset-controller, as "verb group/resource"
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go, kubernetes/kubernetes 003e3121c8bd; the
 * events rule is eventsRule(): create, update, patch on core and events.k8s.io Events).
 */
export const UPSTREAM_STATEFULSET_CONTROLLER: readonly string[] = [
  ...["list", "watch"].map((verb) => `${verb} /pods`),
  ...["get", "list", "watch"].map((verb) => `${verb} apps/statefulsets`),
  "update apps/statefulsets/status",
  "update apps/statefulsets/finalizers",
  ...["get", "create", "delete", "update", "patch"].map((verb) => `${verb} /pods`),
  ...["get", "create", "delete", "update", "patch", "list", "watch"].map((verb) => `${verb} apps/controllerrevisions`),
  ...["get", "create", "list", "watch"].map((verb) => `${verb} /persistentvolumeclaims`),
  ...["update", "delete"].map((verb) => `${verb} /persistentvolumeclaims`),
  "update /pods/finalizers",
  ...["create", "update", "patch"].flatMap((verb) => [`${verb} /events`, `${verb} events.k8s.io/events`]),
];

/** Upstream's permissions no stsfleet service holds, and why none needs them. */
export const NOT_NEEDED_FROM_UPSTREAM: Readonly<Record<string, string>> = {
  "update apps/controllerrevisions": "the actor bumps a revision with a patch (upstream history.UpdateControllerRevision does an update)",
  "update /events": "the status-writer aggregates Events with a patch, as the legacy recorder does",
  "create events.k8s.io/events": "the status-writer writes core/v1 Events only (ADR 0045)",
  "update events.k8s.io/events": "the status-writer writes core/v1 Events only (ADR 0045)",
  "patch events.k8s.io/events": "the status-writer writes core/v1 Events only (ADR 0045)",
};

export const KUBECTL = findExecutable("kubectl");
export const KUBECTL_SKIP = KUBECTL
  ? false
  : "kubectl is not on the PATH, so the kustomize overlays are not rendered (install kubectl >= 1.27 to run these tests)";

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** `kubectl kustomize deploy/<path>`, parsed. Throws with kubectl's message when it fails. */
export async function renderKustomization(path: string): Promise<K8sObject[]> {
  if (!KUBECTL) throw new Error("kubectl missing");
  const result = await run(KUBECTL, ["kustomize", repoPath("deploy", path)], { timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`kubectl kustomize deploy/${path} failed:\n${result.stderr}`);
  return parseYamlDocuments(result.stdout) as unknown as K8sObject[];
}

/** What a user's own overlay may add on top of one of ours. */
export interface OverlayOnTop {
  /** Paths under deploy/, e.g. "components/servicemonitor". */
  readonly components?: readonly string[];
}

/**
 * Renders a throwaway kustomization (in the repository's .tmp/, removed afterwards) whose resource is
 * deploy/<overlay> and that adds the given Components, as a user's overlay would.
 */
export async function renderOnTop(overlay: string, onTop: OverlayOnTop): Promise<K8sObject[]> {
  const dir = repoTempDir("kustomize-on-top-");
  try {
    const up = relative(dir, repoPath());
    const lines = ["apiVersion: kustomize.config.k8s.io/v1beta1", "kind: Kustomization", `resources: [${join(up, "deploy", overlay)}]`];
    if (onTop.components) lines.push(`components: [${onTop.components.map((c) => join(up, "deploy", c)).join(", ")}]`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "kustomization.yaml"), `${lines.join("\n")}\n`);
    return await renderKustomization(relative(repoPath("deploy"), dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Renders deploy/<path> from a copy of deploy/ (in .tmp/, removed afterwards) in which the given files, relative to
 * deploy/, have the given contents: what a user's edit of an overlay would render, without touching the repository.
 */
export async function renderEditedCopy(files: Readonly<Record<string, string>>, path: string): Promise<K8sObject[]> {
  const dir = repoTempDir("kustomize-edited-");
  try {
    cpSync(repoPath("deploy"), join(dir, "deploy"), { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, "deploy", file), text);
    return await renderKustomization(relative(repoPath("deploy"), join(dir, "deploy", path)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** apiVersion -> the kinds of it an empty cluster serves that the manifests use (no CRD needed). */
export const BUILT_IN_KINDS: Readonly<Record<string, readonly string[]>> = {
  v1: ["Namespace", "ServiceAccount", "Service", "ConfigMap", "Secret"],
  "apps/v1": ["Deployment", "StatefulSet"],
  "policy/v1": ["PodDisruptionBudget"],
  "networking.k8s.io/v1": ["NetworkPolicy"],
  "rbac.authorization.k8s.io/v1": ["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
};

export function isBuiltIn(object: Pick<K8sObject, "apiVersion" | "kind">): boolean {
  return BUILT_IN_KINDS[object.apiVersion]?.includes(object.kind) ?? false;
}

export function ofKind<T extends K8sObject = K8sObject>(objects: readonly K8sObject[], kind: string): T[] {
  return objects.filter((o) => o.kind === kind) as T[];
}

export function named<T extends K8sObject = K8sObject>(objects: readonly K8sObject[], kind: string, name: string): T {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind} ${name} is not in the rendered manifests`);
  return found as T;
}

/** Kubernetes label-selector semantics (matchLabels AND every matchExpression). */
export function selects(selector: Selector | undefined, labels: Record<string, string> | undefined): boolean {
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) if (have[key] !== value) return false;
  for (const expression of selector?.matchExpressions ?? []) {
    const value = have[expression.key];
    const values = expression.values ?? [];
    switch (expression.operator) {
      case "In":
        if (value === undefined || !values.includes(value)) return false;
        break;
      case "NotIn":
        if (value !== undefined && values.includes(value)) return false;
        break;
      case "Exists":
        if (value === undefined) return false;
        break;
      case "DoesNotExist":
        if (value !== undefined) return false;
        break;
      default:
        throw new Error(`unknown selector operator ${expression.operator}`);
    }
  }
  return true;
}

interface Binding extends K8sObject {
  roleRef: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** Every rule granted to ServiceAccount `namespace/name` through (Cluster)RoleBindings in `objects`. */
export function rulesOf(objects: readonly K8sObject[], namespace: string, name: string): PolicyRule[] {
  const bindings = [...ofKind<Binding>(objects, "ClusterRoleBinding"), ...ofKind<Binding>(objects, "RoleBinding")];
  const rules: PolicyRule[] = [];
  for (const binding of bindings) {
    const bound = (binding.subjects ?? []).some(
      (s) => s.kind === "ServiceAccount" && s.name === name && (s.namespace ?? binding.metadata.namespace) === namespace,
    );
    if (!bound) continue;
    const role = objects.find(
      (o) =>
        o.kind === binding.roleRef.kind &&
        o.metadata.name === binding.roleRef.name &&
        (binding.roleRef.kind === "ClusterRole" || o.metadata.namespace === binding.metadata.namespace),
    );
    if (!role) throw new Error(`${binding.kind} ${binding.metadata.name} refers to missing ${binding.roleRef.kind} ${binding.roleRef.name}`);
    rules.push(...((role["rules"] ?? []) as PolicyRule[]));
  }
  return rules;
}

/** "verb group/resource" for every combination a rule set allows, e.g. "create /pods", "update apps/statefulsets/status". */
export function permissions(rules: readonly PolicyRule[]): Set<string> {
  const out = new Set<string>();
  for (const rule of rules) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) for (const verb of rule.verbs) out.add(`${verb} ${group}/${resource}`);
    }
  }
  return out;
}
