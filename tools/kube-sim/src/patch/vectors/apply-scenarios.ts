// Dev tool (I/O), used by generate.ts: runs real kubectl commands (apply, label, annotate, scale, rollout
// restart) against a throwaway HTTP endpoint that serves just enough discovery for kubectl, hands out a live
// object and records the PATCH body kubectl sends. Those bodies, applied to the live object, become cases.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { PatchType } from "../index.ts";
import type { JsonObject, JsonValue } from "../json.ts";
import type { PatchCase } from "./cases.ts";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

interface Scenario {
  readonly name: string;
  /** The object kubectl GETs (server defaults and status included). */
  readonly live: JsonObject;
  /** kubectl arguments after the global flags; `{file}` is replaced by the path of `file`. */
  readonly args: readonly string[];
  /** For `apply`: the previously applied manifest (stored in the annotation) and the new one. */
  readonly lastApplied?: JsonObject;
  readonly file?: JsonObject;
}

const RESOURCES: Record<string, { group: string; resource: string; namespaced: boolean }> = {
  Pod: { group: "", resource: "pods", namespaced: true },
  Service: { group: "", resource: "services", namespaced: true },
  StatefulSet: { group: "apps", resource: "statefulsets", namespaced: true },
};

const text = (value: JsonValue | undefined): string => (typeof value === "string" ? value : "");

function objectPath(object: JsonObject): string {
  const kind = text(object["kind"]);
  const info = RESOURCES[kind];
  if (info === undefined) throw new Error(`no resource for ${kind}`);
  const name = text((object["metadata"] as JsonObject)["name"]);
  const prefix = info.group === "" ? "/api/v1" : `/apis/${info.group}/v1`;
  return `${prefix}/namespaces/default/${info.resource}/${name}`;
}

function withLastApplied(live: JsonObject, lastApplied: JsonObject | undefined): JsonObject {
  if (lastApplied === undefined) return live;
  const metadata = live["metadata"] as JsonObject;
  const annotations = { ...((metadata["annotations"] as JsonObject | undefined) ?? {}) };
  annotations[LAST_APPLIED] = `${JSON.stringify(lastApplied)}\n`;
  return { ...live, metadata: { ...metadata, annotations } };
}

const container = (name: string, image: string, extra: JsonObject = {}): JsonObject => ({ name, image, ...extra });
const defaulted = (c: JsonObject): JsonObject => ({
  imagePullPolicy: "IfNotPresent",
  resources: {},
  terminationMessagePath: "/dev/termination-log",
  terminationMessagePolicy: "File",
  ...c,
});
const podManifest = (spec: JsonObject, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "default", ...metadata },
  spec,
});
const livePod = (spec: JsonObject, metadata: JsonObject = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "default", uid: "11111111-1111-1111-1111-111111111111", resourceVersion: "10", ...metadata },
  spec: { dnsPolicy: "ClusterFirst", restartPolicy: "Always", schedulerName: "default-scheduler", ...spec },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
});
const stsManifest = (template: JsonObject, extra: JsonObject = {}): JsonObject => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "db", namespace: "default" },
  spec: { replicas: 2, serviceName: "db", selector: { matchLabels: { app: "db" } }, template, ...extra },
});
const liveSts = (template: JsonObject, extra: JsonObject = {}): JsonObject => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "db", namespace: "default", uid: "22222222-2222-2222-2222-222222222222", resourceVersion: "20", generation: 3 },
  spec: {
    replicas: 2,
    serviceName: "db",
    selector: { matchLabels: { app: "db" } },
    podManagementPolicy: "OrderedReady",
    revisionHistoryLimit: 10,
    updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    template,
    ...extra,
  },
  status: { replicas: 2, readyReplicas: 2, currentRevision: "db-1", updateRevision: "db-1", observedGeneration: 3 },
});
const template = (containers: JsonObject[], spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject => ({
  metadata: { labels: { app: "db" }, ...metadata },
  spec: { containers, ...spec },
});
const liveTemplate = (containers: JsonObject[], spec: JsonObject = {}, metadata: JsonObject = {}): JsonObject => ({
  metadata: { creationTimestamp: null, labels: { app: "db" }, ...metadata },
  spec: {
    containers: containers.map(defaulted),
    dnsPolicy: "ClusterFirst",
    restartPolicy: "Always",
    schedulerName: "default-scheduler",
    securityContext: {},
    terminationGracePeriodSeconds: 30,
    ...spec,
  },
});

const pg = (extra: JsonObject = {}): JsonObject =>
  container("postgres", "postgres:16", {
    env: [{ name: "PGDATA", value: "/data/pg" }, { name: "MODE", value: "primary" }],
    ports: [{ containerPort: 5432, name: "pg" }],
    volumeMounts: [{ name: "data", mountPath: "/data" }],
    ...extra,
  });
const pgLive = (extra: JsonObject = {}): JsonObject =>
  pg({ ports: [{ containerPort: 5432, name: "pg", protocol: "TCP" }], ...extra });
const volumeClaimTemplates = [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }];

export const SCENARIOS: readonly Scenario[] = [
  {
    name: "apply: change a pod's image",
    lastApplied: podManifest({ containers: [container("nginx", "nginx:1.25")] }),
    file: podManifest({ containers: [container("nginx", "nginx:1.26")] }),
    live: livePod({ containers: [defaulted(container("nginx", "nginx:1.25"))] }),
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "apply: add, change and remove env, ports and mounts of a container",
    lastApplied: podManifest({
      containers: [
        container("app", "app:1", {
          env: [{ name: "A", value: "1" }, { name: "B", value: "2" }, { name: "C", value: "3" }],
          ports: [{ containerPort: 80 }, { containerPort: 9090, name: "metrics" }],
          volumeMounts: [{ name: "cfg", mountPath: "/etc/app" }],
        }),
      ],
      volumes: [{ name: "cfg", configMap: { name: "app" } }],
    }),
    file: podManifest({
      containers: [
        container("app", "app:1", {
          env: [{ name: "C", value: "3" }, { name: "A", value: "10" }, { name: "D", value: "4" }],
          ports: [{ containerPort: 80 }],
          volumeMounts: [],
        }),
      ],
      volumes: [{ name: "cfg", configMap: { name: "app" } }],
    }),
    live: livePod({
      containers: [
        defaulted(
          container("app", "app:1", {
            env: [{ name: "A", value: "1" }, { name: "B", value: "2" }, { name: "C", value: "3" }, { name: "INJECTED", value: "x" }],
            ports: [{ containerPort: 80, protocol: "TCP" }, { containerPort: 9090, name: "metrics", protocol: "TCP" }],
            volumeMounts: [{ name: "cfg", mountPath: "/etc/app" }, { name: "kube-api-access", mountPath: "/var/run/secrets", readOnly: true }],
          }),
        ),
      ],
      volumes: [{ name: "cfg", configMap: { name: "app", defaultMode: 420 } }, { name: "kube-api-access", projected: { sources: [] } }],
    }),
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "apply: remove a sidecar and reorder containers",
    lastApplied: podManifest({ containers: [container("a", "a:1"), container("sidecar", "s:1"), container("b", "b:1")] }),
    file: podManifest({ containers: [container("b", "b:1"), container("a", "a:2")] }),
    live: livePod({ containers: [container("a", "a:1"), container("sidecar", "s:1"), container("b", "b:1")].map(defaulted) }),
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "apply: switch a volume from emptyDir to hostPath",
    lastApplied: podManifest({ containers: [container("a", "a:1")], volumes: [{ name: "scratch", emptyDir: {} }] }),
    file: podManifest({ containers: [container("a", "a:1")], volumes: [{ name: "scratch", hostPath: { path: "/tmp/x" } }] }),
    live: livePod({ containers: [defaulted(container("a", "a:1"))], volumes: [{ name: "scratch", emptyDir: {} }] }),
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "apply: labels, annotations, finalizers and tolerations",
    lastApplied: podManifest(
      { containers: [container("a", "a:1")], tolerations: [{ key: "a", operator: "Exists" }] },
      { labels: { app: "web", tier: "fe" }, annotations: { note: "x" }, finalizers: ["example.com/a", "example.com/b"] },
    ),
    file: podManifest(
      { containers: [container("a", "a:1")], tolerations: [{ key: "b", operator: "Exists" }] },
      { labels: { app: "web", track: "canary" }, finalizers: ["example.com/c", "example.com/a"] },
    ),
    live: livePod(
      {
        containers: [defaulted(container("a", "a:1"))],
        tolerations: [{ key: "a", operator: "Exists" }, { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }],
      },
      { labels: { app: "web", tier: "fe", added: "by-hand" }, annotations: { note: "x" }, finalizers: ["example.com/a", "example.com/b", "other/z"] },
    ),
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "apply: statefulset template update",
    lastApplied: stsManifest(template([pg()], { terminationGracePeriodSeconds: 10 }), { volumeClaimTemplates }),
    file: stsManifest(
      template([pg({ image: "postgres:17", env: [{ name: "PGDATA", value: "/data/pg" }], resources: { requests: { cpu: "500m" } } })], {}, {
        annotations: { "prometheus.io/scrape": "true" },
      }),
      { replicas: 3, volumeClaimTemplates },
    ),
    live: liveSts(liveTemplate([pgLive()], { terminationGracePeriodSeconds: 10 }), {
      volumeClaimTemplates: [{ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { creationTimestamp: null, name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode: "Filesystem" }, status: { phase: "Pending" } }],
    }),
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "apply: statefulset adds a sidecar and a claim template",
    lastApplied: stsManifest(template([pg()]), { volumeClaimTemplates }),
    file: stsManifest(template([container("exporter", "exporter:1", { ports: [{ containerPort: 9187 }] }), pg()]), {
      volumeClaimTemplates: [...volumeClaimTemplates, { metadata: { name: "wal" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
    }),
    live: liveSts(liveTemplate([pgLive()]), { volumeClaimTemplates }),
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "apply: service ports",
    lastApplied: { apiVersion: "v1", kind: "Service", metadata: { name: "db", namespace: "default" }, spec: { clusterIP: "None", selector: { app: "db" }, ports: [{ port: 5432, name: "pg" }, { port: 9187, name: "metrics" }] } },
    file: { apiVersion: "v1", kind: "Service", metadata: { name: "db", namespace: "default" }, spec: { clusterIP: "None", selector: { app: "db", role: "primary" }, ports: [{ port: 5432, name: "pg" }, { port: 5433, name: "replica" }] } },
    live: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "db", namespace: "default", uid: "33333333-3333-3333-3333-333333333333", resourceVersion: "30" },
      spec: {
        clusterIP: "None",
        clusterIPs: ["None"],
        type: "ClusterIP",
        sessionAffinity: "None",
        selector: { app: "db" },
        ports: [{ port: 5432, name: "pg", protocol: "TCP", targetPort: 5432 }, { port: 9187, name: "metrics", protocol: "TCP", targetPort: 9187 }],
      },
      status: { loadBalancer: {} },
    },
    args: ["apply", "-f", "{file}"],
  },
  {
    name: "label with overwrite and removal",
    live: livePod({ containers: [defaulted(container("a", "a:1"))] }, { labels: { app: "web", old: "1" } }),
    args: ["label", "pod", "web", "tier=fe", "old-", "--overwrite"],
  },
  {
    name: "annotate",
    live: livePod({ containers: [defaulted(container("a", "a:1"))] }, { annotations: { a: "1" } }),
    args: ["annotate", "pod", "web", "sim.stsfleet.dev/ready=false"],
  },
  {
    name: "rollout restart of a statefulset",
    live: liveSts(liveTemplate([pgLive()])),
    args: ["rollout", "restart", "statefulset", "db"],
  },
];

interface Captured {
  readonly contentType: string;
  readonly body: string;
  readonly path: string;
}

function send(response: ServerResponse, status: number, body: JsonValue): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function discovery(path: string): JsonValue | undefined {
  const resource = (name: string, kind: string, subresources: string[] = []): JsonValue[] => [
    { name, singularName: kind.toLowerCase(), namespaced: true, kind, verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
    ...subresources.map((sub) => ({ name: `${name}/${sub}`, singularName: "", namespaced: true, kind: sub === "scale" ? "Scale" : kind, verbs: ["get", "patch", "update"] })),
  ];
  switch (path) {
    case "/api":
      return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:0" }] };
    case "/apis":
      return {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: [{ name: "apps", versions: [{ groupVersion: "apps/v1", version: "v1" }], preferredVersion: { groupVersion: "apps/v1", version: "v1" } }],
      };
    case "/api/v1":
      return { kind: "APIResourceList", groupVersion: "v1", resources: [...resource("pods", "Pod", ["status"]), ...resource("services", "Service", ["status"])] };
    case "/apis/apps/v1":
      return { kind: "APIResourceList", apiVersion: "v1", groupVersion: "apps/v1", resources: resource("statefulsets", "StatefulSet", ["status", "scale"]) };
    case "/version":
      return { major: "1", minor: "32", gitVersion: "v1.32.6", platform: "linux/amd64" };
    default:
      return undefined;
  }
}

async function runScenario(kubectl: string, dir: string, index: number, scenario: Scenario): Promise<PatchCase[]> {
  const live = withLastApplied(scenario.live, scenario.lastApplied);
  const livePath = objectPath(live);
  const captured: Captured[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const known = discovery(url.pathname);
      if (request.method === "GET" && known !== undefined) return send(response, 200, known);
      if (url.pathname === livePath || url.pathname.startsWith(`${livePath}/`)) {
        if (request.method === "PATCH") captured.push({ contentType: request.headers["content-type"] ?? "", body, path: url.pathname });
        return send(response, 200, live);
      }
      return send(response, 404, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "NotFound", code: 404 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    const file = join(dir, `apply-${index}.json`);
    if (scenario.file !== undefined) writeFileSync(file, JSON.stringify(scenario.file));
    const args = [
      `--server=http://127.0.0.1:${port}`,
      "--namespace=default",
      ...scenario.args.map((arg) => (arg === "{file}" ? file : arg)),
      ...(scenario.args[0] === "apply" ? ["--validate=false"] : []),
    ];
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(kubectl, args, { env: { ...process.env, KUBECONFIG: join(dir, "no-kubeconfig"), HOME: dir } });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
    if (result.code !== 0 || captured.length === 0) {
      throw new Error(`kubectl ${args.join(" ")} failed (${String(result.code)}, ${captured.length} patches): ${result.stderr}`);
    }
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return captured.map((patch) => ({
    name: scenario.name,
    type: patchTypeOf(patch.contentType),
    target: live,
    patch: JSON.parse(patch.body) as JsonValue,
    source: `kubectl ${scenario.args.filter((arg) => arg !== "{file}").join(" ")} (captured ${patch.contentType} to ${patch.path})`,
  }));
}

function patchTypeOf(contentType: string): PatchType {
  if (contentType.startsWith("application/strategic-merge-patch+json")) return "strategic";
  if (contentType.startsWith("application/merge-patch+json")) return "merge";
  if (contentType.startsWith("application/json-patch+json")) return "json";
  throw new Error(`unexpected patch content type ${contentType}`);
}

export async function captureApplyPatches(kubectl: string, dir: string): Promise<PatchCase[]> {
  const cases: PatchCase[] = [];
  for (const [index, scenario] of SCENARIOS.entries()) cases.push(...(await runScenario(kubectl, dir, index, scenario)));
  return cases;
}
