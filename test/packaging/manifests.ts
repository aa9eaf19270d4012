// Reading rendered Kubernetes manifests in tests: rendering an overlay with `kubectl kustomize`, label selectors,
// and the RBAC rules each ServiceAccount ends up with.
import { findExecutable, parseYamlDocuments, repoPath, run } from "./support.ts";
import type { Service } from "./support.ts";

/**
 * The whole RBAC contract, one line per verb and resource. A service gets exactly these; anything more is a
 * failure. Sources: services/watcher/src/adapters/kube-source.ts (list, watch), services/actor/src/runtime/executor.ts
 * (pods, revisions, the adoption read), services/pvc-provisioner/src/claims.ts, services/status-writer/src/{status,events}.ts.
 */
export const EXPECTED_PERMISSIONS: Record<Service, readonly string[]> = {
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
