// Curated patch cases: ports of upstream tests (named in `source`), RFC examples, and the patches kubectl
// and controllers send. generate.ts records what kubectl v1.32 makes of each; kubectl-vectors.test.ts checks
// applyPatch against those recordings.
import type { JsonObject, JsonValue } from "../json.ts";
import type { PatchType } from "../index.ts";

export interface PatchCase {
  readonly name: string;
  readonly type: PatchType;
  readonly target: JsonObject;
  readonly patch: JsonValue;
  /** Upstream test, RFC section or client the case comes from. */
  readonly source?: string;
}

export function pod(spec: JsonObject, metadata: JsonObject = {}, status?: JsonObject): JsonObject {
  const object: JsonObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", ...metadata }, spec };
  if (status !== undefined) object["status"] = status;
  return object;
}

export function statefulSet(spec: JsonObject, status?: JsonObject): JsonObject {
  const object: JsonObject = { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "s" }, spec };
  if (status !== undefined) object["status"] = status;
  return object;
}

function configMap(fields: JsonObject): JsonObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, ...fields };
}

const containers = (...names: string[]): JsonObject[] => names.map((name) => ({ name, image: `${name}:1` }));
const smp = (name: string, target: JsonObject, patch: JsonValue, source?: string): PatchCase =>
  source === undefined ? { name, type: "strategic", target, patch } : { name, type: "strategic", target, patch, source };
const merge = (name: string, target: JsonObject, patch: JsonValue, source?: string): PatchCase =>
  source === undefined ? { name, type: "merge", target, patch } : { name, type: "merge", target, patch, source };
const jsonPatch = (name: string, target: JsonObject, patch: JsonValue, source?: string): PatchCase =>
  source === undefined ? { name, type: "json", target, patch } : { name, type: "json", target, patch, source };

const UPSTREAM = "apimachinery strategicpatch/patch_test.go";
const CUSTOM = `${UPSTREAM} TestCustomStrategicMergePatch`;
const RAW = `${UPSTREAM} TestStrategicMergePatch (raw cases)`;

export const STRATEGIC_CASES: readonly PatchCase[] = [
  // TestCustomStrategicMergePatch, with mergingList -> spec.containers, mergingIntList -> metadata.finalizers,
  // simpleMap -> metadata.labels.
  smp("unique scalars when merging lists", pod({ containers: [] }, { finalizers: ["1", "2"] }), { metadata: { finalizers: ["2", "3"] } }, CUSTOM),
  smp("delete map from nested map", pod({ containers: [] }, { labels: { key1: "1", key2: "1" } }), { metadata: { labels: { $patch: "delete" } } }, CUSTOM),
  smp("delete all items from merging list", pod({ containers: containers("1", "2") }), { spec: { containers: [{ $patch: "replace" }] } }, CUSTOM),
  smp("merge empty merging lists", pod({ containers: [] }), { spec: { containers: [] } }, CUSTOM),
  smp("delete all keys from map", pod({ containers: [], nodeSelector: { name: "1", value: "1" } }), { spec: { nodeSelector: { $patch: "replace" } } }, CUSTOM),
  smp("add key and delete all keys from map", pod({ containers: [], nodeSelector: { name: "1", value: "1" } }), { spec: { nodeSelector: { other: "a", $patch: "replace" } } }, CUSTOM),
  smp(
    "delete all duplicate entries in a merging list",
    pod({ containers: [{ name: "1" }, { name: "1" }, { name: "2", image: "a" }, { name: "3" }, { name: "3" }] }),
    { spec: { containers: [{ name: "1", $patch: "delete" }, { name: "3", $patch: "delete" }] } },
    CUSTOM,
  ),
  // createStrategicMergePatchTestCaseData results (three-way patch applied to current).
  smp("add field and delete field from map", pod({ containers: [], nodeSelector: { name: "1", other: "a" } }), { spec: { nodeSelector: { name: null, value: "1" } } }, UPSTREAM),
  smp("replace list of scalars", pod({ containers: [{ name: "c", command: ["1", "2"] }] }), { spec: { containers: [{ name: "c", command: ["2", "3"] }] } }, UPSTREAM),
  smp(
    "merge lists of maps",
    pod({ containers: [{ name: "1", image: "a" }, { name: "2", image: "b", workingDir: "2" }] }),
    { spec: { containers: [{ name: "3", workingDir: "3" }, { name: "4", workingDir: "4" }] } },
    UPSTREAM,
  ),
  smp("merge lists of scalars", pod({ containers: [] }, { finalizers: ["1", "2", "4"] }), { metadata: { finalizers: ["3"] } }, UPSTREAM),
  // Raw cases with $setElementOrder / $deleteFromPrimitiveList / $retainKeys.
  smp(
    "delete an item in a list and preserve order",
    pod({ containers: [{ name: "1", image: "a" }, { name: "2", workingDir: "2", image: "b" }, { name: "3", workingDir: "3" }] }),
    { spec: { "$setElementOrder/containers": [{ name: "2" }, { name: "1" }], containers: [{ name: "3", $patch: "delete" }] } },
    RAW,
  ),
  smp(
    "change an item in a list and preserve order",
    pod({ containers: [{ name: "1", image: "a" }, { name: "2", workingDir: "2", image: "b" }, { name: "3", workingDir: "3" }] }),
    { spec: { "$setElementOrder/containers": [{ name: "2" }, { name: "3" }, { name: "1" }], containers: [{ name: "3", workingDir: "x" }] } },
    RAW,
  ),
  smp(
    "add and delete an item in a list and preserve order",
    pod({ containers: [{ name: "1", image: "a" }, { name: "2", workingDir: "2", image: "b" }, { name: "3", workingDir: "3" }] }),
    {
      spec: {
        "$setElementOrder/containers": [{ name: "4" }, { name: "2" }, { name: "1" }],
        containers: [{ name: "4", workingDir: "4" }, { name: "3", $patch: "delete" }],
      },
    },
    RAW,
  ),
  smp(
    "set elements order in a list with server-only items 3",
    pod({ containers: ["1", "2", "7", "9", "8", "3", "4"].map((name) => ({ name })) }),
    { spec: { "$setElementOrder/containers": ["2", "1", "4", "3"].map((name) => ({ name })) } },
    RAW,
  ),
  smp(
    "behavior of set element order for a merging list with duplicate",
    pod({ containers: [{ name: "1" }, { name: "2", image: "dup1" }, { name: "3" }, { name: "2", image: "dup2" }, { name: "4" }] }),
    { spec: { "$setElementOrder/containers": ["2", "1", "4", "3", "2"].map((name) => ({ name })) } },
    RAW,
  ),
  smp("add an item in a int list and preserve order", pod({ containers: [] }, { finalizers: ["1", "2"] }), { metadata: { "$setElementOrder/finalizers": ["3", "1", "2"], finalizers: ["3"] } }, RAW),
  smp("delete an item in a int list and preserve order", pod({ containers: [] }, { finalizers: ["1", "2", "3"] }), { metadata: { "$setElementOrder/finalizers": ["2", "1"], "$deleteFromPrimitiveList/finalizers": ["3"] } }, RAW),
  smp(
    "set elements order in a int list with server-only items 2",
    pod({ containers: [] }, { finalizers: ["1", "2", "9", "3", "4"] }),
    { metadata: { "$setElementOrder/finalizers": ["2", "1", "4", "3"] } },
    RAW,
  ),
  smp("behavior of set element order for a merging int list with duplicate", pod({ containers: [] }, { finalizers: ["1", "2", "3", "2", "4"] }), { metadata: { "$setElementOrder/finalizers": ["2", "1", "4", "3", "2"] } }, RAW),
  smp(
    "retainKeys map should clear defaulted field (volume source switch)",
    pod({ containers: [], volumes: [{ name: "v", emptyDir: {} }] }),
    { spec: { "$setElementOrder/volumes": [{ name: "v" }], volumes: [{ $retainKeys: ["hostPath", "name"], hostPath: { path: "/x" }, name: "v" }] } },
    RAW,
  ),
  smp("retainKeys map deletes a field", pod({ containers: [{ name: "c", image: "a", workingDir: "w", tty: true }] }), { spec: { containers: [{ name: "c", $retainKeys: ["name", "image"], workingDir: null }] } }, RAW),
  smp("retainKeys with a patch member it does not list", pod({ containers: [{ name: "c" }] }), { spec: { containers: [{ name: "c", $retainKeys: ["name"], image: "x" }] } }, RAW),
  smp("retainKeys that is not a list", pod({ containers: [{ name: "c" }] }), { spec: { containers: [{ name: "c", $retainKeys: "name" }] } }),
  smp(
    "setElementOrder that the patch list does not follow",
    pod({ containers: containers("a", "b") }),
    { spec: { "$setElementOrder/containers": [{ name: "a" }, { name: "b" }], containers: [{ name: "b", image: "x" }, { name: "a", image: "y" }] } },
    RAW,
  ),
  smp("setElementOrder that is not a list", pod({ containers: containers("a") }), { spec: { "$setElementOrder/containers": { name: "a" } } }),
  smp("setElementOrder with a bad prefix", pod({ containers: containers("a") }), { spec: { "$setElementOrderX/containers": [{ name: "a" }] } }),
  smp("setElementOrder without a list name", pod({ containers: containers("a") }), { spec: { $setElementOrder: [{ name: "a" }] } }),
  smp("setElementOrder item without the merge key", pod({ containers: containers("a") }), { spec: { "$setElementOrder/containers": [{ image: "a" }], containers: [{ name: "a" }] } }),
  smp("setElementOrder on an atomic list", pod({ containers: [], tolerations: [{ key: "a" }, { key: "b" }] }), { spec: { "$setElementOrder/tolerations": [{ key: "b" }, { key: "a" }] } }),
  smp("setElementOrder on an empty list", pod({ containers: [] }, { finalizers: [] }), { metadata: { "$setElementOrder/finalizers": [] } }),
  smp("deleteFromPrimitiveList with a bad prefix", pod({ containers: [] }, { finalizers: ["a"] }), { metadata: { "$deleteFromPrimitiveListX/finalizers": ["a"] } }),
  smp("deleteFromPrimitiveList of a list the object lacks", pod({ containers: [] }), { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } }),
  smp("deleteFromPrimitiveList on an atomic list", pod({ containers: [{ name: "c", args: ["a", "b"] }] }), { spec: { containers: [{ name: "c", "$deleteFromPrimitiveList/args": ["a"] }] } }),
  smp("deleteFromPrimitiveList without a list name", pod({ containers: [] }, { finalizers: ["a"] }), { metadata: { "$deleteFromPrimitiveList/": ["a"] } }),

  // Directives in lists and maps.
  smp("$patch merge in a list is not supported", pod({ containers: containers("a") }), { spec: { containers: [{ $patch: "merge" }] } }),
  smp("$patch merge on a map is an unknown patch type", pod({ containers: [] }), { spec: { $patch: "merge" } }),
  smp("unknown $patch value in a list", pod({ containers: containers("a") }), { spec: { containers: [{ name: "a", $patch: "zap" }] } }),
  smp("$patch delete in a list without the merge key", pod({ containers: containers("a") }), { spec: { containers: [{ $patch: "delete" }] } }),
  smp("$patch replace on a list keeps the other patch items", pod({ containers: containers("a", "b") }), { spec: { containers: [{ name: "c", image: "c" }, { $patch: "replace" }] } }),
  smp("$patch delete on a map member that is absent stores the directive", pod({ containers: [] }), { spec: { securityContext: { $patch: "delete" } } }),
  smp("$patch delete on a map member empties it", pod({ containers: [], securityContext: { runAsUser: 1 } }), { spec: { securityContext: { $patch: "delete" } } }),
  smp("list item without the merge key", pod({ containers: containers("a") }), { spec: { containers: [{ image: "y" }] } }),
  smp("list of lists", pod({ containers: [] }, { finalizers: ["a"] }), { metadata: { finalizers: [["b"]] } }),
  smp("list element types differ", pod({ containers: [] }, { finalizers: ["a"] }), { metadata: { finalizers: [1] } }),
  smp("merging list element that is not a map", pod({ containers: [] }), { spec: { containers: ["a"] } }),
  smp("type change replaces the value", pod({ containers: containers("a") }), { spec: { containers: "none" } }),
  smp("null removes a member", pod({ containers: containers("a"), nodeName: "n" }), { spec: { nodeName: null, hostname: null } }),
  smp("patch that is a list", pod({ containers: [] }), [{ spec: {} }]),
  smp("patch that is null", pod({ containers: containers("a") }), null),

  // The merge keys of the served kinds (k8s.io/api types.go tags).
  smp(
    "container env, ports, volumeMounts and volumeDevices merge by key",
    pod({
      containers: [
        {
          name: "c",
          env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
          ports: [{ containerPort: 80, name: "http" }],
          volumeMounts: [{ mountPath: "/a", name: "a" }],
          volumeDevices: [{ devicePath: "/dev/a", name: "a" }],
          envFrom: [{ configMapRef: { name: "x" } }],
        },
      ],
    }),
    {
      spec: {
        containers: [
          {
            name: "c",
            env: [{ name: "B", value: "3" }, { name: "C", value: "4" }, { name: "A", $patch: "delete" }],
            ports: [{ containerPort: 443, name: "https" }],
            volumeMounts: [{ mountPath: "/a", readOnly: true }],
            volumeDevices: [{ devicePath: "/dev/b", name: "b" }],
            envFrom: [{ secretRef: { name: "y" } }],
          },
        ],
      },
    },
  ),
  smp(
    "container ports merge by containerPort only",
    pod({ containers: [{ name: "c", ports: [{ containerPort: 53, protocol: "UDP" }] }] }),
    { spec: { containers: [{ name: "c", ports: [{ containerPort: 53, protocol: "TCP" }] }] } },
  ),
  smp(
    "pod spec merge lists",
    pod({
      containers: containers("c"),
      initContainers: containers("i"),
      ephemeralContainers: [{ name: "e", env: [{ name: "A", value: "1" }] }],
      imagePullSecrets: [{ name: "s1" }],
      hostAliases: [{ ip: "10.0.0.1", hostnames: ["a"] }],
      topologySpreadConstraints: [{ topologyKey: "zone", maxSkew: 1, whenUnsatisfiable: "DoNotSchedule" }],
      schedulingGates: [{ name: "g1" }],
      resourceClaims: [{ name: "r1", resourceClaimName: "x" }],
      volumes: [{ name: "v1", emptyDir: {} }],
      tolerations: [{ key: "a", operator: "Exists" }],
      readinessGates: [{ conditionType: "x" }],
    }),
    {
      spec: {
        initContainers: [{ name: "i2", image: "i2" }],
        ephemeralContainers: [{ name: "e", env: [{ name: "B", value: "2" }] }],
        imagePullSecrets: [{ name: "s2" }],
        hostAliases: [{ ip: "10.0.0.1", hostnames: ["b"] }, { ip: "10.0.0.2", hostnames: ["c"] }],
        topologySpreadConstraints: [{ topologyKey: "zone", maxSkew: 2 }],
        schedulingGates: [{ name: "g1", $patch: "delete" }],
        resourceClaims: [{ name: "r2", resourceClaimName: "y" }],
        volumes: [{ name: "v2", configMap: { name: "cm" } }],
        tolerations: [{ key: "b", operator: "Exists" }],
        readinessGates: [{ conditionType: "y" }],
      },
    },
  ),
  smp(
    "pod status lists",
    pod(
      { containers: containers("c") },
      {},
      {
        phase: "Pending",
        conditions: [{ type: "PodScheduled", status: "True" }, { type: "Ready", status: "False" }],
        podIPs: [{ ip: "10.1.0.1" }],
        hostIPs: [{ ip: "192.168.0.1" }],
        containerStatuses: [{ name: "c", ready: false, restartCount: 0 }],
      },
    ),
    {
      status: {
        phase: "Running",
        conditions: [{ type: "Ready", status: "True" }, { type: "Initialized", status: "True" }],
        podIPs: [{ ip: "fd00::1" }],
        hostIPs: [{ ip: "192.168.0.1", extra: "x" }],
        containerStatuses: [{ name: "c", ready: true }],
      },
    },
  ),
  smp(
    "ownerReferences merge by uid",
    pod({ containers: [] }, { ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "a", uid: "u1" }] }),
    { metadata: { ownerReferences: [{ uid: "u1", controller: true }, { apiVersion: "v1", kind: "Node", name: "n", uid: "u2" }] } },
  ),
  smp(
    "ownerReferences delete by uid",
    pod({ containers: [] }, { ownerReferences: [{ name: "a", uid: "u1" }, { name: "b", uid: "u2" }] }),
    { metadata: { ownerReferences: [{ uid: "u1", $patch: "delete" }] } },
  ),
  smp(
    "labels and annotations merge member by member",
    pod({ containers: [] }, { labels: { a: "1", b: "2" }, annotations: { x: "1" } }),
    { metadata: { labels: { a: null, c: "3" }, annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-29T20:00:00Z" } } },
  ),
  smp(
    "service ports merge by port",
    { apiVersion: "v1", kind: "Service", metadata: { name: "svc" }, spec: { ports: [{ port: 53, protocol: "UDP", name: "dns" }, { port: 80, name: "http" }], selector: { app: "a" } } },
    { spec: { ports: [{ port: 53, protocol: "TCP", name: "dns-tcp" }, { port: 443, name: "https" }], selector: { app: null, tier: "b" } } },
  ),
  smp(
    "service status conditions merge by type",
    { apiVersion: "v1", kind: "Service", metadata: { name: "svc" }, spec: {}, status: { conditions: [{ type: "A", status: "True" }], loadBalancer: { ingress: [{ ip: "1.1.1.1" }] } } },
    { status: { conditions: [{ type: "B", status: "False" }], loadBalancer: { ingress: [{ ip: "2.2.2.2" }] } } },
  ),
  smp(
    "persistentvolumeclaim status conditions and atomic accessModes",
    {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "pvc", finalizers: ["kubernetes.io/pvc-protection"] },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      status: { phase: "Pending", conditions: [{ type: "Resizing", status: "True" }] },
    },
    {
      metadata: { finalizers: ["example.com/x"] },
      spec: { accessModes: ["ReadWriteMany"], resources: { requests: { storage: "2Gi" } } },
      status: { phase: "Bound", conditions: [{ type: "FileSystemResizePending", status: "True" }] },
    },
  ),
  smp(
    "persistentvolume spec merges maps and replaces lists",
    {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: "pv", finalizers: ["kubernetes.io/pv-protection"] },
      spec: { accessModes: ["ReadWriteOnce"], capacity: { storage: "1Gi" }, hostPath: { path: "/a" }, mountOptions: ["ro"] },
    },
    { spec: { claimRef: { name: "pvc", namespace: "ns" }, mountOptions: ["rw"], capacity: { storage: "2Gi" } } },
  ),
  smp(
    "namespace metadata.finalizers merge but spec.finalizers is atomic",
    {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns", finalizers: ["a"] },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active", conditions: [{ type: "NamespaceDeletionDiscoveryFailure", status: "False" }] },
    },
    {
      metadata: { finalizers: ["b"] },
      spec: { finalizers: ["other"] },
      status: { conditions: [{ type: "NamespaceContentRemaining", status: "True" }] },
    },
  ),
  smp(
    "configmap data merges",
    configMap({ data: { a: "1", b: "2" }, binaryData: { c: "AA==" } }),
    { data: { a: null, d: "4" }, binaryData: { $patch: "replace", e: "AQ==" } },
  ),
  smp(
    "lease spec merges",
    { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15 } },
    { spec: { holderIdentity: "b", renewTime: "2026-11-29T20:00:00.000000Z" } },
  ),
  smp(
    "events.k8s.io event",
    { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: "e" }, eventTime: "2026-11-29T20:00:00.000000Z", reason: "A", series: { count: 1, lastObservedTime: "2026-11-29T20:00:00.000000Z" } },
    { series: { count: 2 }, note: "again" },
  ),
  smp(
    "core event",
    { apiVersion: "v1", kind: "Event", metadata: { name: "e" }, involvedObject: { kind: "Pod", name: "p" }, reason: "A", count: 1 },
    { count: 2, lastTimestamp: "2026-11-29T20:00:00Z" },
  ),
  smp(
    "controllerrevision data members cannot be merged",
    { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "r" }, revision: 1, data: { spec: { template: {} } } },
    { data: { spec: { template: { x: 1 } } } },
  ),
  smp(
    "controllerrevision data new members and type changes are fine",
    { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "r" }, revision: 1, data: { spec: "x" } },
    { revision: 2, data: { spec: { template: {} }, other: "y" } },
  ),
  smp(
    "statefulset template merges and volumeClaimTemplates are atomic",
    statefulSet(
      {
        replicas: 1,
        selector: { matchLabels: { app: "a" } },
        serviceName: "a",
        template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "c:1", env: [{ name: "A", value: "1" }] }] } },
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }],
      },
      { replicas: 1, conditions: [{ type: "X", status: "True" }] },
    ),
    {
      spec: {
        replicas: 3,
        template: { spec: { containers: [{ name: "c", image: "c:2", env: [{ name: "B", value: "2" }] }] } },
        volumeClaimTemplates: [{ metadata: { name: "logs" } }],
      },
      status: { conditions: [{ type: "Y", status: "False" }] },
    },
  ),
  smp(
    "kubectl rollout restart",
    statefulSet({ template: { metadata: { labels: { app: "a" } }, spec: { containers: containers("c") } } }),
    { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-29T20:00:00Z" } } } } },
    "kubectl rollout restart (polymorphichelpers.defaultObjectRestarter)",
  ),
  smp(
    "kubectl rollout undo replaces the template",
    statefulSet({
      template: {
        metadata: { labels: { app: "a" }, annotations: { x: "1" } },
        spec: { containers: [{ name: "c", image: "c:2", env: [{ name: "NEW", value: "1" }] }, { name: "sidecar", image: "s" }] },
      },
    }),
    { spec: { template: { $patch: "replace", metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "c:1" }] } } } },
    "kubectl rollout undo (StatefulSetRollbacker sends ControllerRevision data.raw)",
  ),
  smp(
    "top-level $patch replace",
    pod({ containers: containers("a") }, { labels: { a: "1" } }),
    { $patch: "replace", apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [] } },
  ),
];

const RFC6902 = "RFC 6902 appendix A";
const EVANPHX = "evanphx/json-patch patch_test.go";
const base = (fields: JsonObject): JsonObject => configMap(fields);

export const JSON_PATCH_CASES: readonly PatchCase[] = [
  jsonPatch("A.1 adding an object member", base({ foo: "bar" }), [{ op: "add", path: "/baz", value: "qux" }], RFC6902),
  jsonPatch("A.2 adding an array element", base({ foo: ["bar", "baz"] }), [{ op: "add", path: "/foo/1", value: "qux" }], RFC6902),
  jsonPatch("A.3 removing an object member", base({ baz: "qux", foo: "bar" }), [{ op: "remove", path: "/baz" }], RFC6902),
  jsonPatch("A.4 removing an array element", base({ foo: ["bar", "qux", "baz"] }), [{ op: "remove", path: "/foo/1" }], RFC6902),
  jsonPatch("A.5 replacing a value", base({ baz: "qux", foo: "bar" }), [{ op: "replace", path: "/baz", value: "boo" }], RFC6902),
  jsonPatch(
    "A.6 moving a value",
    base({ foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } }),
    [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
    RFC6902,
  ),
  jsonPatch("A.7 moving an array element", base({ foo: ["all", "grass", "cows", "eat"] }), [{ op: "move", from: "/foo/1", path: "/foo/3" }], RFC6902),
  jsonPatch(
    "A.8 testing a value: success",
    base({ baz: "qux", foo: ["a", 2, "c"] }),
    [{ op: "test", path: "/baz", value: "qux" }, { op: "test", path: "/foo/1", value: 2 }],
    RFC6902,
  ),
  jsonPatch("A.9 testing a value: error", base({ baz: "qux" }), [{ op: "test", path: "/baz", value: "bar" }], RFC6902),
  jsonPatch("A.10 adding a nested member object", base({ foo: "bar" }), [{ op: "add", path: "/child", value: { grandchild: {} } }], RFC6902),
  jsonPatch("A.11 ignoring unrecognized elements", base({ foo: "bar" }), [{ op: "add", path: "/baz", value: "qux", xyz: 123 }], RFC6902),
  jsonPatch("A.12 adding to a nonexistent target", base({ foo: "bar" }), [{ op: "add", path: "/baz/bat", value: "qux" }], RFC6902),
  jsonPatch("A.14 ~ escape ordering", base({ "/": 9, "~1": 10 }), [{ op: "test", path: "/~01", value: 10 }], RFC6902),
  jsonPatch("A.15 comparing strings and numbers", base({ "/": 9, "~1": 10 }), [{ op: "test", path: "/~01", value: "10" }], RFC6902),
  jsonPatch("A.16 adding an array value", base({ foo: ["bar"] }), [{ op: "add", path: "/foo/-", value: ["abc", "def"] }], RFC6902),
  jsonPatch("escaped member names", base({ data: {} }), [{ op: "add", path: "/data/a~1b~0c", value: "1" }], EVANPHX),
  jsonPatch("replace of a missing member adds it (v4)", base({ data: { k: "v" } }), [{ op: "replace", path: "/data/missing", value: "x" }], EVANPHX),
  jsonPatch("replace past the end of an array", base({ arr: [1, 2, 3] }), [{ op: "replace", path: "/arr/5", value: 1 }], EVANPHX),
  jsonPatch("negative array indices count from the end", base({ arr: [1, 2, 3] }), [{ op: "add", path: "/arr/-1", value: 9 }, { op: "remove", path: "/arr/-2" }, { op: "replace", path: "/arr/-1", value: 7 }], EVANPHX),
  jsonPatch("index with a leading zero", base({ arr: [1, 2, 3] }), [{ op: "add", path: "/arr/01", value: 7 }], EVANPHX),
  jsonPatch("index that is not a number", base({ arr: [1] }), [{ op: "add", path: "/arr/x", value: 7 }], EVANPHX),
  jsonPatch("path without a leading slash addresses the root", base({ data: { k: "v" } }), [{ op: "add", path: "data/z", value: "q" }], EVANPHX),
  jsonPatch("add without a value adds null", base({ data: {} }), [{ op: "add", path: "/data/z" }], EVANPHX),
  jsonPatch("copy", base({ data: { k: "v" } }), [{ op: "copy", from: "/data", path: "/data2" }, { op: "add", path: "/data2/k", value: "w" }], EVANPHX),
  jsonPatch("copy of a missing member copies null", base({ data: {} }), [{ op: "copy", from: "/data/nope", path: "/data/x" }], EVANPHX),
  jsonPatch("move into its own child", base({ data: { k: "v" } }), [{ op: "move", from: "/data", path: "/data/x" }], EVANPHX),
  jsonPatch("remove a missing member", base({ data: {} }), [{ op: "remove", path: "/data/nope" }], EVANPHX),
  jsonPatch("the root path", base({}), [{ op: "add", path: "", value: {} }], EVANPHX),
  jsonPatch("test of a missing member against null", base({ data: {} }), [{ op: "test", path: "/data/missing", value: null }], EVANPHX),
  jsonPatch("test of an object with extra members", base({ labels: { a: "1" } }), [{ op: "test", path: "/labels", value: { a: "1", b: "2" } }], EVANPHX),
  jsonPatch("test of an array", base({ arr: [1, { a: [true, null] }] }), [{ op: "test", path: "/arr", value: [1, { a: [true, null] }] }], EVANPHX),
  jsonPatch("failed test keeps earlier operations from applying", base({ a: 1 }), [{ op: "add", path: "/b", value: 2 }, { op: "test", path: "/a", value: 2 }], EVANPHX),
  jsonPatch("unknown operation", base({}), [{ op: "frob", path: "/a" }], EVANPHX),
  jsonPatch("operation without op", base({}), [{ path: "/a" }], EVANPHX),
  jsonPatch("null operation", base({}), [null], EVANPHX),
  jsonPatch("operation without a path", base({}), [{ op: "remove" }], EVANPHX),
  jsonPatch("path that is not a string", base({}), [{ op: "replace", path: 1, value: 2 }], EVANPHX),
  jsonPatch("patch that is an object", base({}), { op: "add", path: "/a", value: 1 }, EVANPHX),
  jsonPatch("patch item that is a number", base({}), [1], EVANPHX),
  jsonPatch("patch that is null", base({ a: 1 }), null, EVANPHX),
  jsonPatch("kubectl scale style replace", statefulSet({ replicas: 1 }), [{ op: "replace", path: "/spec/replicas", value: 3 }]),
];

const RFC7386 = "RFC 7386 appendix A";
export const MERGE_PATCH_CASES: readonly PatchCase[] = [
  merge("member change", base({ a: "b" }), { a: "c" }, RFC7386),
  merge("member add", base({ a: "b" }), { b: "c" }, RFC7386),
  merge("member delete", base({ a: "b" }), { a: null }, RFC7386),
  merge("one member delete", base({ a: "b", b: "c" }), { a: null }, RFC7386),
  merge("array replaced by a string", base({ a: ["b"] }), { a: "c" }, RFC7386),
  merge("string replaced by an array", base({ a: "c" }), { a: ["b"] }, RFC7386),
  merge("nested merge with null", base({ a: { b: "c" } }), { a: { b: "d", c: null } }, RFC7386),
  merge("array of objects replaced", base({ a: [{ b: "c" }] }), { a: [1] }, RFC7386),
  merge("existing null kept", base({ e: null }), { a: 1 }, RFC7386),
  merge("nested null in a new member is dropped", base({}), { a: { bb: { ccc: null } } }, RFC7386),
  merge("patch that is null", base({ a: "foo" }), null, RFC7386),
  merge("patch that is a string", base({ a: "foo" }), "bar", RFC7386),
  merge("nulls inside a new array are dropped (v4)", base({}), { a: [1, null, { b: null, c: 2 }] }, "evanphx/json-patch merge_test.go"),
  merge("object replaced by an array keeps nulls (v4)", base({ a: { b: 1 } }), { a: [1, null] }, "evanphx/json-patch merge_test.go"),
  merge("scalar replaced by an object drops nested nulls", base({ a: 1 }), { a: { b: null, c: { d: null } } }, "evanphx/json-patch merge_test.go"),
  merge("kubectl label", pod({ containers: [] }, { labels: { a: "1" } }), { metadata: { labels: { a: null, b: "2" } } }, "kubectl label"),
  merge("kubectl scale", statefulSet({ replicas: 1 }), { spec: { replicas: 5 } }, "kubectl scale"),
  merge("merge patch replaces lists", pod({ containers: containers("a", "b") }), { spec: { containers: [{ name: "c" }] } }),
];

export const ALL_CASES: readonly PatchCase[] = [...STRATEGIC_CASES, ...JSON_PATCH_CASES, ...MERGE_PATCH_CASES];
