// deploy/ rendered with `kubectl kustomize`: both overlays render, create their own namespace and use only built-in
// kinds; every workload meets the restricted Pod Security Standard and has probes; RBAC gives each service exactly
// the verbs its code uses plus what OwnerReferencesPermissionEnforcement asks of its owner-reference writes (checked
// mechanically, no wildcards, nothing upstream's statefulset-controller role lacks); NATS is one node in dev and a
// 3-node cluster with 3 replicas per stream in prod; NetworkPolicies and the PodDisruptionBudgets select what they
// should; the optional ServiceMonitor Component scrapes every service; the image is one `images:` entry.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { MAX_PAYLOAD_BYTES } from "#protocol";
import {
  ADMISSION_PERMISSIONS,
  CODE_PERMISSIONS,
  EXPECTED_PERMISSIONS,
  KUBECTL_SKIP,
  NOT_NEEDED_FROM_UPSTREAM,
  OWNER_REFERENCE_WRITES,
  UPSTREAM_STATEFULSET_CONTROLLER,
  isBuiltIn,
  named,
  ofKind,
  ownerReferencesPermissionChecks,
  permissions,
  renderKustomization,
  renderEditedCopy,
  renderOnTop,
  rulesOf,
  selects,
} from "./manifests.ts";
import type { K8sObject, PolicyRule, Selector } from "./manifests.ts";
import { SERVICES, parseYamlDocuments, readRepoFile } from "./support.ts";
import type { Service } from "./support.ts";

const NAMESPACE = "stsfleet-system";
const OVERLAYS = ["dev", "prod"] as const;

const WRITE_VERBS = ["create", "update", "patch", "delete", "deletecollection"];

interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: {
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    privileged?: boolean;
    runAsNonRoot?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type: string };
  };
}

interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  hostNetwork?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  containers: Container[];
  initContainers?: Container[];
}

interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    serviceName?: string;
    selector: Selector;
    template: { metadata: { labels?: Record<string, string> }; spec: PodSpec };
  };
}

interface NetworkPolicyRule {
  from?: { podSelector?: Selector; namespaceSelector?: Selector }[];
  to?: { podSelector?: Selector; namespaceSelector?: Selector }[];
  ports?: { port: number }[];
}

interface NetworkPolicy extends K8sObject {
  spec: { podSelector: Selector; policyTypes: string[]; ingress?: NetworkPolicyRule[]; egress?: NetworkPolicyRule[] };
}

interface ConfigMap extends K8sObject {
  data?: Record<string, string>;
}

function workloads(objects: readonly K8sObject[]): Workload[] {
  return [...ofKind<Workload>(objects, "Deployment"), ...ofKind<Workload>(objects, "StatefulSet")];
}

function deploymentOf(objects: readonly K8sObject[], service: Service): Workload {
  return named<Workload>(objects, "Deployment", `stsfleet-${service}`);
}

function envValue(objects: readonly K8sObject[], container: Container, name: string): string | undefined {
  const direct = container.env?.find((e) => e.name === name);
  if (direct) return direct.value;
  for (const source of container.envFrom ?? []) {
    const configMapName = source.configMapRef?.name;
    if (!configMapName) continue;
    const value = named<ConfigMap>(objects, "ConfigMap", configMapName).data?.[name];
    if (value !== undefined) return value;
  }
  return undefined;
}

function portNumber(container: Container, port: string | number | undefined): number | undefined {
  if (typeof port === "number") return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

for (const overlay of OVERLAYS) {
  describe(`deploy/overlays/${overlay}`, { skip: KUBECTL_SKIP }, () => {
    let objects: K8sObject[];

    before(async () => {
      objects = await renderKustomization(`overlays/${overlay}`);
    });

    it("uses only kinds an empty cluster serves: no CustomResourceDefinition needed (no ServiceMonitor by default)", () => {
      const foreign = objects.filter((o) => !isBuiltIn(o)).map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`);
      assert.deepEqual(foreign, []);
    });

    it("renders, into one namespace that enforces the restricted Pod Security Standard", () => {
      const namespace = named(objects, "Namespace", NAMESPACE);
      assert.equal(namespace.metadata.labels?.["pod-security.kubernetes.io/enforce"], "restricted");
      for (const object of objects) {
        if (["Namespace", "ClusterRole", "ClusterRoleBinding"].includes(object.kind)) continue;
        assert.equal(object.metadata.namespace, NAMESPACE, `${object.kind} ${object.metadata.name}`);
      }
    });

    it("commits no secret: no Secret objects, passwords only as $STSFLEET_NATS_* references", () => {
      assert.deepEqual(ofKind(objects, "Secret"), []);
      const auth = named<ConfigMap>(objects, "ConfigMap", ofKind<ConfigMap>(objects, "ConfigMap").find((c) => c.metadata.name.startsWith("nats-config"))?.metadata.name ?? "nats-config").data?.["auth.conf"] ?? "";
      const passwords = [...auth.matchAll(/password:\s*(\S+)/g)].map((m) => m[1] ?? "");
      assert.equal(passwords.length, SERVICES.length);
      for (const password of passwords) assert.match(password, /^\$STSFLEET_NATS_[A-Z_]+_PASSWORD$/);
    });

    it("runs every pod with the restricted security settings", () => {
      for (const workload of workloads(objects)) {
        const pod = workload.spec.template.spec;
        const where = `${workload.kind} ${workload.metadata.name}`;
        assert.equal(pod.securityContext?.runAsNonRoot, true, `${where}: runAsNonRoot`);
        assert.ok((pod.securityContext?.runAsUser ?? 0) > 0, `${where}: a non-root runAsUser`);
        assert.equal(pod.securityContext?.seccompProfile?.type, "RuntimeDefault", `${where}: seccompProfile`);
        assert.notEqual(pod.hostNetwork, true, where);
        for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
          const sc = container.securityContext;
          assert.equal(sc?.readOnlyRootFilesystem, true, `${where}/${container.name}: readOnlyRootFilesystem`);
          assert.equal(sc?.allowPrivilegeEscalation, false, `${where}/${container.name}: allowPrivilegeEscalation`);
          assert.deepEqual(sc?.capabilities?.drop, ["ALL"], `${where}/${container.name}: capabilities.drop`);
          assert.equal(sc?.capabilities?.add, undefined, `${where}/${container.name}: no added capabilities`);
          assert.notEqual(sc?.privileged, true, `${where}/${container.name}`);
          assert.match(container.image, /:[0-9][^:]*$|:dev$/, `${where}/${container.name}: image ${container.image} must carry a version tag`);
        }
      }
    });

    it("gives every service liveness on /healthz and readiness on /readyz at the probe port, and a metrics port", () => {
      for (const service of SERVICES) {
        const container = deploymentOf(objects, service).spec.template.spec.containers[0];
        assert.ok(container, service);
        assert.equal(container.livenessProbe?.httpGet?.path, "/healthz", service);
        assert.equal(container.readinessProbe?.httpGet?.path, "/readyz", service);
        const probePort = portNumber(container, container.readinessProbe?.httpGet?.port);
        assert.equal(portNumber(container, container.livenessProbe?.httpGet?.port), probePort, service);
        assert.equal(envValue(objects, container, "HEALTH_PROBE_BIND_ADDRESS"), `:${probePort}`, `${service}: probes listen where they are probed`);
        assert.equal(envValue(objects, container, "METRICS_BIND_ADDRESS"), `:${portNumber(container, "metrics")}`, `${service}: metrics port`);
        assert.deepEqual(container.args, [service], `${service}: the launcher's first argument selects the service`);
      }
    });

    it("labels everything the app.kubernetes.io way, and names each pod after its service", () => {
      for (const workload of workloads(objects)) {
        const labels = workload.metadata.labels ?? {};
        for (const key of ["name", "instance", "component", "part-of", "version", "managed-by"]) {
          assert.ok(labels[`app.kubernetes.io/${key}`], `${workload.metadata.name}: app.kubernetes.io/${key}`);
        }
        assert.ok(selects(workload.spec.selector, workload.spec.template.metadata.labels), `${workload.metadata.name}: selector`);
      }
      for (const service of SERVICES) {
        assert.equal(deploymentOf(objects, service).spec.template.metadata.labels?.["app.kubernetes.io/component"], service);
      }
    });

    it("passes the pod name and namespace to the services (downward API) and into the trace resource", () => {
      for (const service of SERVICES) {
        const container = deploymentOf(objects, service).spec.template.spec.containers[0];
        assert.ok(container);
        const env = container.env ?? [];
        const index = (name: string) => env.findIndex((e) => e.name === name);
        assert.equal(env[index("POD_NAME")]?.valueFrom?.fieldRef?.fieldPath, "metadata.name", service);
        assert.equal(env[index("POD_NAMESPACE")]?.valueFrom?.fieldRef?.fieldPath, "metadata.namespace", service);
        assert.equal(envValue(objects, container, "OTEL_RESOURCE_ATTRIBUTES"), "k8s.pod.name=$(POD_NAME),k8s.namespace.name=$(POD_NAMESPACE)");
        // $(VAR) expands only variables defined earlier in the list.
        assert.ok(index("POD_NAME") < index("OTEL_RESOURCE_ATTRIBUTES") && index("POD_NAMESPACE") < index("OTEL_RESOURCE_ATTRIBUTES"), service);
        assert.equal(envValue(objects, container, "OTEL_SERVICE_NAME"), `stsfleet-${service}`);
      }
    });

    it("connects each service to NATS as its own user with its password from the Secret", () => {
      for (const service of SERVICES) {
        const container = deploymentOf(objects, service).spec.template.spec.containers[0];
        assert.ok(container);
        assert.equal(envValue(objects, container, "NATS_USER"), service);
        const secret = container.env?.find((e) => e.name === "NATS_PASSWORD")?.valueFrom?.secretKeyRef;
        assert.deepEqual([secret?.name, secret?.key], ["stsfleet-nats-credentials", service]);
        assert.equal(envValue(objects, container, "NATS_URL"), "nats://nats:4222");
      }
      const nats = named<Workload>(objects, "StatefulSet", "nats").spec.template.spec.containers[0];
      const keys = (nats?.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef.key] : []));
      assert.deepEqual(keys.sort(), [...SERVICES].sort());
    });

    it("lets each service finish its work before the kill: grace period above the shutdown timeout, 45 s for actors", () => {
      for (const service of SERVICES) {
        const pod = deploymentOf(objects, service).spec.template.spec;
        const container = pod.containers[0];
        assert.ok(container);
        const shutdownMs = Number(envValue(objects, container, "SHUTDOWN_TIMEOUT_MS") ?? 8_000);
        const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
        assert.ok(graceMs >= shutdownMs + 5_000, `${service}: grace ${graceMs} ms vs shutdown timeout ${shutdownMs} ms`);
      }
      assert.ok((deploymentOf(objects, "actor").spec.template.spec.terminationGracePeriodSeconds ?? 0) >= 45);
    });

    it("has a PodDisruptionBudget that lets one actor go at a time", () => {
      const budget = named<K8sObject & { spec: { maxUnavailable?: number; selector: Selector } }>(objects, "PodDisruptionBudget", "stsfleet-actor");
      assert.equal(budget.spec.maxUnavailable, 1);
      assert.ok(selects(budget.spec.selector, deploymentOf(objects, "actor").spec.template.metadata.labels));
      for (const service of SERVICES.filter((s) => s !== "actor")) {
        assert.ok(!selects(budget.spec.selector, deploymentOf(objects, service).spec.template.metadata.labels), service);
      }
    });

    it("grants each service exactly the verbs its code uses, through its own ServiceAccount, with no wildcard", () => {
      for (const role of [...ofKind<K8sObject & { rules?: PolicyRule[] }>(objects, "ClusterRole"), ...ofKind<K8sObject & { rules?: PolicyRule[] }>(objects, "Role")]) {
        for (const rule of role.rules ?? []) {
          for (const value of [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs]) {
            assert.ok(!value.includes("*"), `${role.kind} ${role.metadata.name} has a wildcard: ${JSON.stringify(rule)}`);
          }
          assert.equal(rule.nonResourceURLs, undefined, `${role.metadata.name}: no non-resource URLs`);
        }
      }
      for (const service of SERVICES) {
        const pod = deploymentOf(objects, service).spec.template.spec;
        assert.equal(pod.serviceAccountName, `stsfleet-${service}`);
        named(objects, "ServiceAccount", `stsfleet-${service}`);
        const granted = [...permissions(rulesOf(objects, NAMESPACE, `stsfleet-${service}`))].sort();
        assert.deepEqual(granted, [...EXPECTED_PERMISSIONS[service]].sort(), `${service} RBAC`);
      }
      assert.deepEqual(rulesOf(objects, NAMESPACE, "nats"), [], "NATS needs no Kubernetes API access");
      assert.equal(named<Workload>(objects, "StatefulSet", "nats").spec.template.spec.automountServiceAccountToken, false);
    });

    it("grants what OwnerReferencesPermissionEnforcement asks of every owner-reference write, and nothing else beyond the code's calls", () => {
      const asked = new Map<Service, Set<string>>(SERVICES.map((service) => [service, new Set<string>()]));
      for (const write of OWNER_REFERENCE_WRITES) {
        const granted = permissions(rulesOf(objects, NAMESPACE, `stsfleet-${write.service}`));
        assert.ok(granted.has(`${write.verb} ${write.resource}`), `${write.service} may ${write.verb} ${write.resource} (${write.what})`);
        for (const check of ownerReferencesPermissionChecks(write)) {
          assert.ok(granted.has(check), `${write.service}: "${write.what}" needs "${check}" with OwnerReferencesPermissionEnforcement`);
          asked.get(write.service)?.add(check);
        }
      }
      for (const service of SERVICES) {
        const extra = [...(asked.get(service) ?? [])].filter((p) => !CODE_PERMISSIONS[service].includes(p)).sort();
        assert.deepEqual(extra, [...ADMISSION_PERMISSIONS[service]].sort(), `${service}: the verbs granted only for the admission plugin`);
      }
    });

    it("grants no service anything upstream's statefulset-controller role lacks, and says why the rest is not needed", () => {
      const upstream = new Set(UPSTREAM_STATEFULSET_CONTROLLER);
      const fleet = new Set<string>();
      for (const service of SERVICES) {
        for (const permission of permissions(rulesOf(objects, NAMESPACE, `stsfleet-${service}`))) {
          assert.ok(upstream.has(permission), `${service} holds "${permission}", which system:controller:statefulset-controller does not`);
          fleet.add(permission);
        }
      }
      const unused = [...upstream].filter((p) => !fleet.has(p)).sort();
      assert.deepEqual(unused, Object.keys(NOT_NEEDED_FROM_UPSTREAM).sort(), "upstream permissions no service holds");
    });

    it("splits the writes: only the actor writes pods and revisions, only the pvc-provisioner claims, only the status-writer status and Events", () => {
      const writers = (resource: string) =>
        SERVICES.filter((service) => {
          const granted = permissions(rulesOf(objects, NAMESPACE, `stsfleet-${service}`));
          return WRITE_VERBS.some((verb) => granted.has(`${verb} ${resource}`));
        });
      assert.deepEqual(writers("/pods"), ["actor"]);
      assert.deepEqual(writers("apps/controllerrevisions"), ["actor"]);
      assert.deepEqual(writers("/persistentvolumeclaims"), ["pvc-provisioner"]);
      assert.deepEqual(writers("apps/statefulsets/status"), ["status-writer"]);
      assert.deepEqual(writers("/events"), ["status-writer"]);
      assert.deepEqual(writers("apps/statefulsets"), [], "nobody changes a StatefulSet's spec");
      const watcher = permissions(rulesOf(objects, NAMESPACE, "stsfleet-watcher"));
      for (const permission of watcher) assert.match(permission, /^(get|list|watch) /, "the watcher only reads");
    });

    it("isolates the namespace with NetworkPolicies: metrics scrape in, NATS, DNS and the API server out", () => {
      const policies = ofKind<NetworkPolicy>(objects, "NetworkPolicy");
      const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress);
      assert.ok(deny && deny.spec.policyTypes.includes("Ingress") && deny.spec.policyTypes.includes("Egress"), "a default-deny policy");
      const natsPod = named<Workload>(objects, "StatefulSet", "nats").spec.template.metadata.labels;
      for (const service of SERVICES) {
        const labels = deploymentOf(objects, service).spec.template.metadata.labels;
        const mine: NetworkPolicy[] = policies.filter((p) => p !== deny && selects(p.spec.podSelector, labels));
        const ingressPorts: number[] = mine.flatMap((p) => (p.spec.ingress ?? []).flatMap((rule) => (rule.ports ?? []).map((port) => port.port)));
        assert.deepEqual(ingressPorts, [8080], `${service}: only the metrics port is reachable`);
        const egress: NetworkPolicyRule[] = mine.flatMap((p) => p.spec.egress ?? []);
        assert.ok(egress.some((rule) => rule.ports?.some((p) => p.port === 4222) && rule.to?.some((peer) => selects(peer.podSelector, natsPod))), `${service}: NATS`);
        assert.ok(egress.some((rule) => rule.ports?.some((p) => p.port === 53)), `${service}: DNS`);
        assert.ok(egress.some((rule) => rule.ports?.some((p) => p.port === 443) && rule.ports.some((p) => p.port === 6443)), `${service}: API server`);
        // NATS accepts this service's connections.
        const natsIngress: NetworkPolicyRule[] = policies.filter((p) => selects(p.spec.podSelector, natsPod)).flatMap((p) => p.spec.ingress ?? []);
        assert.ok(natsIngress.some((rule) => rule.ports?.some((p) => p.port === 4222) && rule.from?.some((peer) => selects(peer.podSelector, labels))), `nats admits ${service}`);
      }
    });

    it("has the optional ServiceMonitor Component scrape the metrics port of every service, and add nothing else", async () => {
      type Monitor = K8sObject & { spec: { selector: Selector; endpoints: { port: string; path?: string; honorLabels?: boolean }[] } };
      type Svc = K8sObject & { spec: { selector?: Record<string, string>; ports: { name?: string; port: number }[] } };
      const withMonitor = await renderOnTop(`overlays/${overlay}`, { components: ["components/servicemonitor"] });
      const added = withMonitor.filter((o) => !objects.some((p) => p.kind === o.kind && p.metadata.name === o.metadata.name));
      assert.deepEqual(added.map((o) => `${o.apiVersion} ${o.kind}`), ["monitoring.coreos.com/v1 ServiceMonitor"]);
      const monitor = named<Monitor>(withMonitor, "ServiceMonitor", "stsfleet");
      assert.equal(monitor.metadata.namespace, NAMESPACE);
      assert.deepEqual(monitor.spec.endpoints.map((e) => [e.port, e.path ?? "/metrics", e.honorLabels]), [["metrics", "/metrics", true]]);
      for (const service of SERVICES) {
        const podLabels = deploymentOf(withMonitor, service).spec.template.metadata.labels;
        const scraped = ofKind<Svc>(withMonitor, "Service").filter(
          (s) => selects(monitor.spec.selector, s.metadata.labels) && selects({ matchLabels: s.spec.selector ?? {} }, podLabels),
        );
        assert.equal(scraped.length, 1, `${service}: one metrics Service`);
        const port = scraped[0]?.spec.ports.find((p) => p.name === "metrics");
        assert.equal(port?.port, 8080, service);
      }
    });

    it("ships the fleet dashboard as a ConfigMap for Grafana's sidecar", () => {
      const dashboards = ofKind<ConfigMap>(objects, "ConfigMap").find((c) => c.metadata.labels?.["grafana_dashboard"] === "1");
      assert.ok(dashboards, "a ConfigMap labelled grafana_dashboard=1");
      assert.equal(dashboards.data?.["stsfleet-fleet.json"], readRepoFile("deploy/base/monitoring/dashboards/stsfleet-fleet.json"));
    });
  });
}

describe("deploy/overlays: dev against prod", { skip: KUBECTL_SKIP }, () => {
  it("runs one NATS server with unreplicated streams in dev, and a 3-node cluster with 3 replicas per stream in prod", async () => {
    for (const [overlay, servers] of [["dev", 1], ["prod", 3]] as const) {
      const objects = await renderKustomization(`overlays/${overlay}`);
      const nats = named<Workload>(objects, "StatefulSet", "nats");
      assert.equal(nats.spec.replicas, servers, `${overlay}: NATS servers`);
      for (const service of SERVICES) {
        const container = deploymentOf(objects, service).spec.template.spec.containers[0];
        assert.ok(container);
        // Every service provisions the streams and buckets (services/common/src/topology.ts); they must agree.
        assert.equal(envValue(objects, container, "NATS_REPLICAS"), String(servers), `${overlay}: ${service} --nats-replicas`);
      }
      // The actors' quorum intent log (ADR 0084): one replica per NATS server, placed by the server's tag (its name).
      const actor = deploymentOf(objects, "actor").spec.template.spec.containers[0];
      assert.ok(actor);
      const placement = envValue(objects, actor, "INTENT_LOG_PLACEMENT");
      const config = ofKind<ConfigMap>(objects, "ConfigMap").find((c) => c.metadata.name.startsWith("nats-config"))?.data?.["nats.conf"] ?? "";
      const routes = [...config.matchAll(/nats:\/\/([a-z0-9-]+)\.([a-z0-9-]+):6222/g)];
      if (servers === 1) {
        assert.doesNotMatch(config, /cluster\s*\{/, "dev runs no cluster");
        assert.equal(placement ?? "", "", "dev keeps the intent log in one stream");
      } else {
        assert.deepEqual(routes.map((m) => m[1]), ["nats-0", "nats-1", "nats-2"]);
        assert.match(config, /^server_tags: \[\$SERVER_NAME\]$/m, "each server is tagged with its name");
        assert.equal(placement, routes.map((m) => m[1]).join(","), "one intent log replica per server");
        for (const route of routes) assert.equal(route[2], nats.spec.serviceName, "routes use the headless Service's per-pod names");
        named(objects, "Service", nats.spec.serviceName ?? "");
        const budget = named<K8sObject & { spec: { maxUnavailable?: number; selector: Selector } }>(objects, "PodDisruptionBudget", "nats");
        assert.equal(budget.spec.maxUnavailable, 1);
        assert.ok(selects(budget.spec.selector, nats.spec.template.metadata.labels));
      }
      assert.match(config, /server_name: \$SERVER_NAME/);
      assert.match(config, /include "auth\.conf"/);
      // A valid Kubernetes object can be larger than nats-server's default 1 MiB (protocol/src/limits.ts).
      assert.match(config, new RegExp(`^max_payload: ${MAX_PAYLOAD_BYTES}$`, "m"), `${overlay}: max_payload`);
    }
  });

  it("takes the prod image from one `images:` entry, stsfleet, whose one line a user sets for every service container", async () => {
    const text = readRepoFile("deploy/overlays/prod/kustomization.yaml");
    const kustomization = parseYamlDocuments(text)[0] as { images?: { name: string; newName?: string; newTag?: string }[] };
    const entries = kustomization.images ?? [];
    assert.deepEqual(entries.map((e) => e.name), ["stsfleet"], "one images: entry, named stsfleet");
    // The four services are the Deployments; NATS is the only StatefulSet.
    const images = (objects: readonly K8sObject[]) => [...new Set(ofKind<Workload>(objects, "Deployment").flatMap((w) => w.spec.template.spec.containers.map((c) => c.image)))];
    assert.deepEqual(images(await renderKustomization("overlays/prod")), [`${entries[0]?.newName}:${entries[0]?.newTag}`]);
    // What `kustomize edit set image stsfleet=ghcr.io/example/stsfleet:1.2.3` (or editing the line) leaves, on a copy.
    const lines = text.split("\n").filter((line) => /^\s*- \{name: stsfleet,/.test(line));
    assert.equal(lines.length, 1, "the entry is one line");
    const edited = text.replace(lines[0] ?? "", '  - {name: stsfleet, newName: ghcr.io/example/stsfleet, newTag: "1.2.3"}');
    const mine = await renderEditedCopy({ "overlays/prod/kustomization.yaml": edited }, "overlays/prod");
    assert.deepEqual(images(mine), ["ghcr.io/example/stsfleet:1.2.3"]);
    const nats = named<Workload>(mine, "StatefulSet", "nats").spec.template.spec.containers.map((c) => c.image);
    assert.ok(nats.every((image) => image.startsWith("nats:")), "the NATS image is not touched");
  });

  it("keeps three actors in prod", async () => {
    const prod = await renderKustomization("overlays/prod");
    assert.equal(deploymentOf(prod, "actor").spec.replicas, 3);
    assert.ok((deploymentOf(prod, "watcher").spec.replicas ?? 1) >= 2, "an active and a standby watcher");
  });
});
