// JSON -> protobuf -> JSON is the identity for every served kind, on objects as the server stores and serves them:
// realistic shapes (the ones the simulator's own tests and kubectl write, defaulted and completed by the registry,
// the kubelet and the volume binder), then fast-check variations of names, labels, annotations, quantities,
// int-or-strings and times written through the registry. The one known difference is Go's too: an embedded object
// of a kind (a StatefulSet's volumeClaimTemplates) has no type meta on the wire.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import type { KubeSim } from "../main.ts";
import { startKubeSim } from "../main.ts";
import type { WriteContext } from "../registry/registry.ts";
import { RESOURCES, groupVersion, mustFind, resourceKey, scaleOf, viewJson } from "../resources.ts";
import type { ResourceInfo } from "../resources.ts";
import { alreadyExists, conflict, failure, internalError, notFound, tooManyRequests } from "../errors.ts";
import { invalidStatus } from "../resources.ts";
import { until } from "../testing/kubectl.ts";
import type { KubeObject } from "../types.ts";
import { kubeProtobuf } from "./index.ts";

type Json = Record<string, unknown>;

const pb = kubeProtobuf();
const WRITE: WriteContext = { dryRun: false, fieldValidation: "Strict", warnings: [] };

const NAMESPACES = mustFind("", "namespaces");
const PODS = mustFind("", "pods");
const CLAIMS = mustFind("", "persistentvolumeclaims");
const SERVICES = mustFind("", "services");
const CONFIGMAPS = mustFind("", "configmaps");
const CORE_EVENTS = mustFind("", "events");
const EVENTS_V1 = mustFind("events.k8s.io", "events");
const STATEFULSETS = mustFind("apps", "statefulsets");
const REVISIONS = mustFind("apps", "controllerrevisions");
const LEASES = mustFind("coordination.k8s.io", "leases");
const SECRETS = mustFind("", "secrets");
const SERVICE_ACCOUNTS = mustFind("", "serviceaccounts");
const DEPLOYMENTS = mustFind("apps", "deployments");
const PDBS = mustFind("policy", "poddisruptionbudgets");
const NETWORK_POLICIES = mustFind("networking.k8s.io", "networkpolicies");
const CLUSTER_ROLES = mustFind("rbac.authorization.k8s.io", "clusterroles");
const CLUSTER_ROLE_BINDINGS = mustFind("rbac.authorization.k8s.io", "clusterrolebindings");
const ROLES = mustFind("rbac.authorization.k8s.io", "roles");
const ROLE_BINDINGS = mustFind("rbac.authorization.k8s.io", "rolebindings");

/** What protobuf carries of `obj`: the same, without the type meta of embedded kinds. */
function wireForm(obj: Json): Json {
  const spec = obj["spec"] as Json | undefined;
  if (obj["kind"] !== "StatefulSet" || !Array.isArray(spec?.["volumeClaimTemplates"])) return obj;
  const templates = (spec["volumeClaimTemplates"] as Json[]).map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
  return { ...obj, spec: { ...spec, volumeClaimTemplates: templates } };
}

function roundTrip(obj: Json): Json {
  return pb.decode(pb.encode(obj)).object;
}

function assertRoundTrip(obj: Json, what: string): void {
  assert.deepStrictEqual(roundTrip(obj), wireForm(obj), what);
}

function served(sim: KubeSim, info: ResourceInfo, ns: string, name: string): Json {
  return JSON.parse(viewJson(info, sim.registry.getEntry(info, ns, name).json)) as Json;
}

const containers = (image: string): Json[] => [
  {
    name: "app",
    image,
    command: ["/bin/app", "--serve"],
    args: ["--port=8080", ""],
    workingDir: "/srv",
    ports: [
      { name: "http", containerPort: 8080, protocol: "TCP" },
      { name: "metrics", containerPort: 9090, hostPort: 9090, protocol: "UDP" },
    ],
    env: [
      { name: "MODE", value: "primary" },
      { name: "EMPTY", value: "" },
      { name: "POD", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
      { name: "CFG", valueFrom: { configMapKeyRef: { name: "settings", key: "mode", optional: true } } },
      { name: "MEM", valueFrom: { resourceFieldRef: { containerName: "app", resource: "limits.memory", divisor: "1Mi" } } },
    ],
    envFrom: [{ prefix: "CFG_", configMapRef: { name: "settings" } }],
    resources: { requests: { cpu: "250m", memory: "64Mi", "ephemeral-storage": "1Gi" }, limits: { cpu: "1", memory: "128Mi" } },
    volumeMounts: [
      { name: "data", mountPath: "/data" },
      { name: "config", mountPath: "/etc/app", readOnly: true, subPath: "app" },
    ],
    livenessProbe: { httpGet: { path: "/healthz", port: "http", scheme: "HTTP", httpHeaders: [{ name: "X-Probe", value: "1" }] }, initialDelaySeconds: 3, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 5 },
    startupProbe: { exec: { command: ["cat", "/tmp/ready"] }, failureThreshold: 30 },
    lifecycle: { preStop: { exec: { command: ["sleep", "5"] } }, postStart: { httpGet: { path: "/started", port: 8080 } } },
    securityContext: { runAsUser: 1000, runAsNonRoot: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] }, readOnlyRootFilesystem: true },
    imagePullPolicy: "IfNotPresent",
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    stdin: false,
    tty: false,
  },
];

const podSpec = (image: string, claim?: string): Json => ({
  initContainers: [{ name: "init", image: "busybox", command: ["sh", "-c", "true"] }],
  containers: containers(image),
  volumes: [
    { name: "config", configMap: { name: "settings", items: [{ key: "app", path: "app.conf", mode: 420 }], defaultMode: 420, optional: false } },
    { name: "scratch", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
    { name: "secret", secret: { secretName: "creds", defaultMode: 256 } },
    { name: "info", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
    { name: "proj", projected: { sources: [{ configMap: { name: "settings" } }, { serviceAccountToken: { path: "token", expirationSeconds: 3600, audience: "api" } }] } },
    ...(claim === undefined ? [] : [{ name: "data", persistentVolumeClaim: { claimName: claim } }]),
  ],
  restartPolicy: "Always",
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  nodeSelector: { "kubernetes.io/os": "linux" },
  serviceAccountName: "default",
  securityContext: { fsGroup: 2000, runAsGroup: 3000, seccompProfile: { type: "RuntimeDefault" }, sysctls: [{ name: "net.core.somaxconn", value: "1024" }] },
  affinity: {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] }, topologyKey: "kubernetes.io/hostname" } }],
    },
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64", "arm64"] }] }] } },
  },
  tolerations: [
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    { key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" },
  ],
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: { app: "web" } } }],
  hostname: "web-0",
  subdomain: "web",
  enableServiceLinks: true,
  priority: 0,
});

function statefulSet(name: string, replicas: number, maxUnavailable: number | string): Json {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, labels: { app: name }, annotations: { "stsfleet.dev/owner": "test" } },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name }, annotations: { "kubectl.kubernetes.io/restartedAt": "2026-12-01T10:00:00Z" } }, spec: podSpec("nginx:1.27") },
      volumeClaimTemplates: [
        { metadata: { name: "data", labels: { tier: "db" } }, spec: { accessModes: ["ReadWriteOnce"], storageClassName: "standard", resources: { requests: { storage: "10Gi" } } } },
      ],
      podManagementPolicy: "Parallel",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable } },
      revisionHistoryLimit: 5,
      minReadySeconds: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
      ordinals: { start: 1 },
    },
  };
}

describe("protobuf round trip of every served kind", () => {
  let sim: KubeSim;

  before(async () => {
    sim = await startKubeSim({ port: 0, kubelet: { scheduleDelayMs: 1, startDelayMs: 5, bindDelayMs: 1 } });
    const r = sim.registry;
    r.create(NAMESPACES, "", { apiVersion: "v1", kind: "Namespace", metadata: { name: "rt", labels: { team: "a" }, annotations: { note: "é ✓ 日本" } } }, WRITE);
    r.create(CONFIGMAPS, "rt", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { mode: "primary", app: "x=1\n", empty: "" }, binaryData: { "b.bin": Buffer.from([0, 255, 1]).toString("base64") }, immutable: false }, WRITE);
    r.create(SERVICES, "rt", { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }, { name: "m", port: 9090, targetPort: 9090, protocol: "UDP" }], sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } } } }, WRITE);
    r.create(SERVICES, "rt", { apiVersion: "v1", kind: "Service", metadata: { name: "peers" }, spec: { clusterIP: "None", selector: { app: "web" }, ports: [{ port: 5432 }], publishNotReadyAddresses: true } }, WRITE);
    r.create(SERVICES, "rt", { apiVersion: "v1", kind: "Service", metadata: { name: "np" }, spec: { type: "NodePort", selector: { app: "web" }, ports: [{ port: 80, nodePort: 30081 }], externalTrafficPolicy: "Local" } }, WRITE);
    r.create(SERVICES, "rt", { apiVersion: "v1", kind: "Service", metadata: { name: "ext" }, spec: { type: "ExternalName", externalName: "db.example.com" } }, WRITE);
    r.create(PODS, "rt", { apiVersion: "v1", kind: "Pod", metadata: { name: "web-0", labels: { app: "web" }, finalizers: ["example.com/keep"], ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "6b1d1d6e-0000-4000-8000-000000000001", controller: true, blockOwnerDeletion: true }] }, spec: podSpec("nginx:1.27", "data-web-0") }, WRITE);
    r.create(PODS, "rt", { apiVersion: "v1", kind: "Pod", metadata: { name: "plain" }, spec: { containers: [{ name: "c", image: "busybox" }] } }, WRITE);
    r.create(CLAIMS, "rt", { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data-web-0" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode: "Filesystem" } }, WRITE);
    r.create(STATEFULSETS, "rt", statefulSet("web", 3, "25%"), WRITE);
    r.create(STATEFULSETS, "rt", statefulSet("zero", 0, 1), WRITE);
    r.update(STATEFULSETS, "rt", "web", "status", {
      ...served(sim, STATEFULSETS, "rt", "web"),
      status: { observedGeneration: 1, replicas: 3, readyReplicas: 2, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 2, currentRevision: "web-7d4b9c", updateRevision: "web-7d4b9c", collisionCount: 0, conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-12-02T04:00:00Z", reason: "Waiting", message: "1 pod not ready" }] },
    }, WRITE);
    r.create(REVISIONS, "rt", { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "web-7d4b9c", labels: { "controller.kubernetes.io/hash": "7d4b9c" } }, data: { spec: { template: { $patch: "replace", spec: { containers: [{ name: "app", image: "nginx:1.27" }] } } } }, revision: 3 }, WRITE);
    // What deploy/ holds: a Deployment, its ServiceAccount and RBAC, a Secret, a PodDisruptionBudget, NetworkPolicies.
    r.create(SECRETS, "rt", { apiVersion: "v1", kind: "Secret", metadata: { name: "creds" }, stringData: { actor: "p0123", empty: "" }, data: { "b.bin": Buffer.from([0, 255]).toString("base64") } }, WRITE);
    r.create(SECRETS, "rt", { apiVersion: "v1", kind: "Secret", metadata: { name: "tls" }, type: "kubernetes.io/tls", data: { "tls.crt": "Y3J0", "tls.key": "a2V5" }, immutable: true }, WRITE);
    r.create(SERVICE_ACCOUNTS, "rt", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "actor" }, automountServiceAccountToken: false, imagePullSecrets: [{ name: "registry" }], secrets: [{ name: "creds" }] }, WRITE);
    r.create(DEPLOYMENTS, "rt", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "actor", labels: { app: "actor" } },
      spec: { replicas: 0, selector: { matchLabels: { app: "actor" } }, template: { metadata: { labels: { app: "actor" } }, spec: podSpec("stsfleet:0.1.0", "data") }, strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "50%" } }, revisionHistoryLimit: 0, paused: true },
    }, WRITE);
    r.create(DEPLOYMENTS, "rt", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "recreate" }, spec: { selector: { matchExpressions: [{ key: "app", operator: "In", values: ["r"] }] }, template: { metadata: { labels: { app: "r" } }, spec: { containers: [{ name: "c", image: "busybox" }] } }, strategy: { type: "Recreate" }, minReadySeconds: 5 } }, WRITE);
    r.update(DEPLOYMENTS, "rt", "actor", "status", {
      ...served(sim, DEPLOYMENTS, "rt", "actor"),
      status: { observedGeneration: 1, replicas: 2, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 1, collisionCount: 0, conditions: [{ type: "Available", status: "False", lastUpdateTime: "2026-12-02T04:00:00Z", lastTransitionTime: "2026-12-02T04:00:00Z", reason: "MinimumReplicasUnavailable", message: "not enough" }] },
    }, WRITE);
    r.create(PDBS, "rt", { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "actor" }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: "actor" } }, unhealthyPodEvictionPolicy: "AlwaysAllow" } }, WRITE);
    r.create(PDBS, "rt", { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "half" }, spec: { minAvailable: "50%", selector: {} }, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 2, disruptedPods: { "web-0": "2026-12-02T04:00:00Z" } } }, WRITE);
    r.create(NETWORK_POLICIES, "rt", { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "default-deny" }, spec: { podSelector: {}, policyTypes: ["Ingress", "Egress"] } }, WRITE);
    r.create(NETWORK_POLICIES, "rt", {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "services" },
      spec: {
        podSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["actor", "watcher"] }] },
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { metrics: "enabled" } } }], ports: [{ protocol: "TCP", port: 8080 }] }],
        egress: [{ to: [{ podSelector: { matchLabels: { app: "nats" } } }, { ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }], ports: [{ port: "client" }, { protocol: "UDP", port: 53, endPort: 54 }] }, { ports: [{ port: 443 }] }],
      },
    }, WRITE);
    r.create(CLUSTER_ROLES, "", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "system:controller:actor" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "create"] }, { apiGroups: ["apps"], resources: ["statefulsets/finalizers"], resourceNames: ["web"], verbs: ["update"] }, { nonResourceURLs: ["/healthz"], verbs: ["get"] }] }, WRITE);
    r.create(CLUSTER_ROLES, "", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "aggregate" }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate": "true" } }] } }, WRITE);
    r.create(CLUSTER_ROLE_BINDINGS, "", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "actor" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:controller:actor" }, subjects: [{ kind: "ServiceAccount", name: "actor", namespace: "rt" }, { kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "admins" }] }, WRITE);
    r.create(ROLES, "rt", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "reader" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] }] }, WRITE);
    r.create(ROLE_BINDINGS, "rt", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "reader" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" }, subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" }] }, WRITE);
    r.create(LEASES, "rt", { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "leader" }, spec: { holderIdentity: "actor-1", leaseDurationSeconds: 15, acquireTime: "2026-12-02T04:00:00.000000Z", renewTime: "2026-12-02T04:00:05.123456Z", leaseTransitions: 0 } }, WRITE);
    r.create(CORE_EVENTS, "rt", {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "web-0.1" },
      involvedObject: { apiVersion: "v1", kind: "Pod", name: "web-0", namespace: "rt", uid: "u-1", resourceVersion: "5", fieldPath: "spec.containers{app}" },
      reason: "Started",
      message: "Started container app",
      source: { component: "kubelet", host: "kube-sim-node" },
      firstTimestamp: "2026-12-02T04:00:00Z",
      lastTimestamp: "2026-12-02T04:00:10Z",
      count: 2,
      type: "Normal",
      reportingComponent: "kubelet",
      reportingInstance: "kube-sim-node",
    }, WRITE);
    r.create(EVENTS_V1, "rt", {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "web-0.2" },
      eventTime: "2026-12-02T04:00:00.250000Z",
      series: { count: 3, lastObservedTime: "2026-12-02T04:01:00.000000Z" },
      reportingController: "stsfleet.dev/actor",
      reportingInstance: "actor-1",
      action: "Scale",
      reason: "ScaledUp",
      regarding: { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", namespace: "rt" },
      note: "scaled to 3",
      type: "Normal",
    }, WRITE);
    // The kubelet runs the pods and the binder binds the claim (a PersistentVolume appears).
    await until("pods to run", () => (["plain"].every((n) => (served(sim, PODS, "rt", n)["status"] as Json | undefined)?.["phase"] === "Running") ? true : undefined));
    await until("the claim to bind", () => ((served(sim, CLAIMS, "rt", "data-web-0")["status"] as Json | undefined)?.["phase"] === "Bound" ? true : undefined));
  });

  after(async () => {
    await sim.stop();
  });

  it("has a message for every served kind and its list, and no schema gaps", () => {
    for (const info of RESOURCES) {
      assert.ok(pb.messageFor(groupVersion(info), info.kind), `${groupVersion(info)} ${info.kind}`);
      assert.ok(pb.messageFor(groupVersion(info), `${info.kind}List`), `${groupVersion(info)} ${info.kind}List`);
    }
    assert.deepEqual(pb.missingKinds(), []);
    assert.deepEqual(pb.codec.missingReferences(), []);
  });

  it("round-trips every stored object of every served kind, and their lists", () => {
    let objects = 0;
    for (const info of RESOURCES) {
      const items: Json[] = [];
      for (const key of sim.registry.store.keys(resourceKey(info), undefined)) {
        const entry = sim.registry.store.getByKey(resourceKey(info), key);
        if (entry === undefined) continue;
        const obj = JSON.parse(viewJson(info, entry.json)) as Json;
        assertRoundTrip(obj, `${info.kind} ${key}`);
        items.push(obj);
        objects++;
      }
      const list = { kind: `${info.kind}List`, apiVersion: groupVersion(info), metadata: { resourceVersion: "42", continue: "abc", remainingItemCount: 3 }, items };
      const decoded = roundTrip(list);
      assert.deepStrictEqual(decoded, { ...list, items: items.map((i) => wireForm(i)).map(({ apiVersion: _a, kind: _k, ...rest }) => rest) }, `${info.kind}List`);
    }
    assert.ok(objects >= 16, `${objects} objects`);
    const kinds = new Set(RESOURCES.filter((info) => [...sim.registry.store.keys(resourceKey(info), undefined)].length > 0).map((i) => `${i.group}/${i.kind}`));
    assert.equal(kinds.size, RESOURCES.length, `every served kind has objects: ${[...kinds].join(", ")}`);
  });

  it("round-trips the objects a real kube-apiserver v1.32.6 stored (statuses, claim templates, revisions)", () => {
    const vectors = JSON.parse(readFileSync(new URL("../../../../test/fixtures/kcm-v1.32.6.json", import.meta.url), "utf8")) as {
      statefulSets: Json[];
      pods: Json[];
      persistentVolumeClaims: Json[];
      controllerRevisions: { name: string; raw: string }[];
    };
    const objects = [...vectors.statefulSets, ...vectors.pods, ...vectors.persistentVolumeClaims];
    assert.ok(objects.length >= 8);
    for (const obj of objects) {
      assertRoundTrip(obj, `${String(obj["kind"])} ${String((obj["metadata"] as Json)["name"])}`);
    }
    for (const rev of vectors.controllerRevisions) {
      const obj = { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: rev.name }, data: JSON.parse(rev.raw) as unknown, revision: 1 };
      assertRoundTrip(obj, `ControllerRevision ${rev.name}`);
    }
  });

  it("round-trips Status (every error the simulator writes), Scale, DeleteOptions and Eviction", () => {
    const statuses = [
      notFound(PODS, "x").status,
      alreadyExists(STATEFULSETS, "web").status,
      conflict(CONFIGMAPS, "c", "the object has been modified").status,
      tooManyRequests(1).status,
      internalError("boom").status,
      failure(415, "UnsupportedMediaType", "no"),
      invalidStatus(PODS, "p", [{ reason: "FieldValueRequired", message: "Required value", field: "spec.containers" }, { reason: "FieldValueInvalid", message: "bad", field: "metadata.name" }]),
      { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: "p", kind: "pods", uid: "u" } },
      { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 },
    ];
    for (const s of statuses) assertRoundTrip(s as unknown as Json, JSON.stringify(s));
    // A cause without a field: the simulator's JSON says `"field": ""`, which Go's omitempty (and so the wire) drops.
    const noField = invalidStatus(PODS, "p", [{ reason: "FieldValueInvalid", message: "bad" }]) as unknown as Json;
    const causes = ((roundTrip(noField)["details"] as Json)["causes"] as Json[]);
    assert.deepEqual(causes, [{ reason: "FieldValueInvalid", message: "bad" }]);
    assertRoundTrip(scaleOf(sim.registry.get(STATEFULSETS, "rt", "web")), "Scale");
    assertRoundTrip({ kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0, propagationPolicy: "Foreground", preconditions: { uid: "u", resourceVersion: "7" }, dryRun: ["All"] }, "DeleteOptions");
    assertRoundTrip({ kind: "DeleteOptions", apiVersion: "apps/v1", orphanDependents: false }, "DeleteOptions apps/v1");
    assertRoundTrip({
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "m", managedFields: [{ manager: "kubectl-client-side-apply", operation: "Update", apiVersion: "v1", time: "2026-12-02T04:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:data": { ".": {}, "f:a": {} } } }] },
      data: { a: "1" },
    }, "managedFields");
    assertRoundTrip({ kind: "Eviction", apiVersion: "policy/v1", metadata: { name: "web-0", namespace: "rt" }, deleteOptions: { gracePeriodSeconds: 30 } }, "Eviction");
  });

  // ---- fast-check variations, written through the registry ----

  const dnsLabel = fc.stringMatching(/^[a-z]([-a-z0-9]{0,18}[a-z0-9])?$/);
  const labelKey = fc.tuple(fc.option(fc.constantFrom("example.com/", "app.kubernetes.io/", "a.b-c.d/"), { nil: undefined }), fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,15}[A-Za-z0-9])?$/)).map(([p, n]) => `${p ?? ""}${n}`);
  const labelValue = fc.stringMatching(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,15}[A-Za-z0-9])?)?$/);
  const text = fc.string({ unit: "binary", maxLength: 24 }).filter((s) => Buffer.from(s, "utf8").toString("utf8") === s);
  const labels = fc.dictionary(labelKey, labelValue, { maxKeys: 4 });
  const annotations = fc.dictionary(labelKey, text, { maxKeys: 3 });
  const quantity = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 4096 }), fc.constantFrom("", "m", "k", "M", "G", "Ki", "Mi", "Gi", "Ti")).map(([n, s]) => `${n}${s}`),
    fc.constantFrom("0.5", "1.5Gi", "100m", "2"),
  );
  const intOrString = fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.stringMatching(/^[a-z]([-a-z0-9]{0,10}[a-z])?$/).filter((s) => /[a-z]/.test(s) && !s.includes("--")));
  const seconds = fc.integer({ min: 0, max: 4_102_444_799 });
  const time = seconds.map((s) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"));
  const microTime = fc.tuple(seconds, fc.integer({ min: 0, max: 999_999 })).map(([s, us]) => `${new Date(s * 1000).toISOString().slice(0, 19)}.${String(us).padStart(6, "0")}Z`);

  let serial = 0;
  const write = (info: ResourceInfo, body: Json): Json => {
    const name = `v${serial++}`;
    const obj = { ...body, metadata: { ...(body["metadata"] as Json), name } } as KubeObject;
    sim.registry.create(info, info.namespaced ? "rt" : "", obj, WRITE);
    return served(sim, info, info.namespaced ? "rt" : "", name);
  };

  it("round-trips variations of names, labels, annotations, quantities, int-or-strings and times", () => {
    fc.assert(
      fc.property(dnsLabel, labels, annotations, quantity, quantity, intOrString, fc.integer({ min: 0, max: 50 }), time, microTime, microTime, text, (name, lbls, notes, q1, q2, port, replicas, t, mt1, mt2, note) => {
        const meta = { labels: lbls, annotations: notes, generateName: `${name}-` };
        assertRoundTrip(write(CONFIGMAPS, { apiVersion: "v1", kind: "ConfigMap", metadata: meta, data: { [name]: note, "k.txt": note } }), "ConfigMap");
        assertRoundTrip(write(SERVICES, { apiVersion: "v1", kind: "Service", metadata: meta, spec: { selector: { app: name }, ports: [{ name: "p", port: typeof port === "number" ? port : 80, targetPort: port }] } }), "Service");
        const pod = { apiVersion: "v1", kind: "Pod", metadata: meta, spec: { containers: [{ name, image: `${name}:1`, resources: { requests: { cpu: q1 }, limits: { memory: q2 } }, readinessProbe: { httpGet: { path: "/", port } } }] } };
        assertRoundTrip(write(PODS, pod), "Pod");
        const sts = statefulSet(name, replicas, typeof port === "number" ? port : "10%");
        (sts["metadata"] as Json)["labels"] = { ...lbls, app: name };
        assertRoundTrip(write(STATEFULSETS, sts), "StatefulSet");
        assertRoundTrip(write(CLAIMS, { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: meta, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: q2 } } } }), "PersistentVolumeClaim");
        assertRoundTrip(write(LEASES, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: meta, spec: { holderIdentity: note, leaseDurationSeconds: replicas + 1, acquireTime: mt1, renewTime: mt2 } }), "Lease");
        assertRoundTrip(write(CORE_EVENTS, { apiVersion: "v1", kind: "Event", metadata: meta, involvedObject: { kind: "Pod", name, namespace: "rt" }, reason: "R", message: note, firstTimestamp: t, lastTimestamp: t, count: replicas, type: "Normal", source: { component: "x" } }), "Event");
        assertRoundTrip(write(EVENTS_V1, { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: meta, eventTime: mt1, reportingController: "c", reportingInstance: "i", action: "A", reason: "R", regarding: { kind: "Pod", name, namespace: "rt" }, note, type: "Warning" }), "events.k8s.io Event");
        assertRoundTrip(write(REVISIONS, { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: meta, data: { note, n: replicas, list: [t, null, true] }, revision: replicas + 1 }), "ControllerRevision");
      }),
      { numRuns: 60, includeErrorInReport: true },
    );
  });
});
