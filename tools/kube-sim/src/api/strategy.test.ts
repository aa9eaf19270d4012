// Defaulting, admission and create/update strategies of the served types, one behaviour a test. Expected
// objects are what kube-apiserver stores (pkg/apis/core/v1/defaults.go and defaults_test.go,
// pkg/apis/apps/v1/defaults.go, plugin/pkg/admission/{defaulttolerationseconds,priority,storage},
// pkg/registry/*/strategy.go).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalize, prepareForCreate, prepareForUpdate, scaleOf } from "./index.ts";
import { cloneJson, getArray, getObject, type JsonObject } from "./json.ts";
import { CLAIMS, CONFIGMAPS, CORE_EVENTS, EVENTS_V1, NAMESPACES, PODS, SERVICES, STATEFULSETS, VOLUMES } from "./testing.ts";

const GATE_OFF = { featureGates: { MaxUnavailableStatefulSet: false } };

function podSpec(obj: JsonObject): JsonObject {
  return getObject(obj, "spec") ?? {};
}
function firstContainer(obj: JsonObject): JsonObject {
  return (getArray(podSpec(obj), "containers")?.[0] ?? {}) as JsonObject;
}
function podWith(container: JsonObject, spec: JsonObject = {}): JsonObject {
  return { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "nginx:1.25", ...container }], ...spec } };
}

const NOT_READY = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
const UNREACHABLE = { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };

describe("Pod create", () => {
  it("stores every PodSpec, Container, Probe, env and volume default", () => {
    const input: JsonObject = {
      metadata: { name: "p", namespace: "d" },
      spec: {
        containers: [
          {
            name: "c",
            image: "nginx",
            ports: [{ containerPort: 80 }],
            livenessProbe: { httpGet: { port: 80 } },
            readinessProbe: { exec: { command: ["true"] } },
            env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
          },
        ],
        volumes: [{ name: "v", configMap: { name: "cm" } }, { name: "s", secret: { secretName: "x" } }, { name: "e" }, { name: "h", hostPath: { path: "/x" } }],
      },
    };
    const before = cloneJson(input);
    const out = prepareForCreate(PODS, input);
    assert.deepEqual(input, before, "the input is not modified");
    assert.deepEqual(out, {
      metadata: { name: "p", namespace: "d", generation: 1 },
      spec: {
        containers: [
          {
            name: "c",
            image: "nginx",
            ports: [{ containerPort: 80, protocol: "TCP" }],
            livenessProbe: { httpGet: { port: 80, path: "/", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
            readinessProbe: { exec: { command: ["true"] }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
            env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "metadata.name", apiVersion: "v1" } } }],
            resources: {},
            imagePullPolicy: "Always",
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
          },
        ],
        volumes: [
          { name: "v", configMap: { name: "cm", defaultMode: 420 } },
          { name: "s", secret: { secretName: "x", defaultMode: 420 } },
          { name: "e", emptyDir: {} },
          { name: "h", hostPath: { path: "/x", type: "" } },
        ],
        dnsPolicy: "ClusterFirst",
        restartPolicy: "Always",
        securityContext: {},
        terminationGracePeriodSeconds: 30,
        schedulerName: "default-scheduler",
        enableServiceLinks: true,
        tolerations: [NOT_READY, UNREACHABLE],
        priority: 0,
        preemptionPolicy: "PreemptLowerPriority",
      },
      status: { phase: "Pending", qosClass: "BestEffort" },
    });
  });

  for (const [image, policy] of [
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["nginx:1.25", "IfNotPresent"],
    ["localhost:5000/nginx", "Always"],
    ["localhost:5000/nginx:1", "IfNotPresent"],
    ["nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31", "IfNotPresent"],
    // ParseImageName keeps a sent tag next to a digest, and "latest" means Always.
    ["nginx:latest@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31", "Always"],
    // A reference that does not parse has no tag: IfNotPresent.
    ["Nginx", "IfNotPresent"],
    ["", "IfNotPresent"],
  ] as const) {
    it(`defaults imagePullPolicy of ${image} to ${policy}`, () => {
      assert.equal(firstContainer(prepareForCreate(PODS, podWith({ image })))["imagePullPolicy"], policy);
    });
  }

  it("keeps an explicit imagePullPolicy", () => {
    assert.equal(firstContainer(prepareForCreate(PODS, podWith({ image: "nginx", imagePullPolicy: "Never" })))["imagePullPolicy"], "Never");
  });

  it("canonicalises container quantities and derives the QoS class", () => {
    const out = prepareForCreate(PODS, podWith({ resources: { requests: { cpu: "0.5", memory: "1073741824" }, limits: { cpu: "1000m" } } }));
    assert.deepEqual(firstContainer(out)["resources"], { requests: { cpu: "500m", memory: "1073741824" }, limits: { cpu: "1" } });
    assert.equal(getObject(out, "status")?.["qosClass"], "Burstable");
  });

  it("copies limits to missing requests (Guaranteed)", () => {
    const out = prepareForCreate(PODS, podWith({ resources: { limits: { cpu: "1", memory: "1Gi" } } }));
    assert.deepEqual(firstContainer(out)["resources"], { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "1", memory: "1Gi" } });
    assert.equal(getObject(out, "status")?.["qosClass"], "Guaranteed");
  });

  describe("DefaultTolerationSeconds", () => {
    it("adds only the toleration that is missing", () => {
      const mine = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 };
      const out = prepareForCreate(PODS, podWith({}, { tolerations: [mine] }));
      assert.deepEqual(podSpec(out)["tolerations"], [mine, UNREACHABLE]);
    });
    it("adds nothing when an empty-key toleration tolerates every taint", () => {
      const out = prepareForCreate(PODS, podWith({}, { tolerations: [{ operator: "Exists" }] }));
      assert.deepEqual(podSpec(out)["tolerations"], [{ operator: "Exists" }]);
    });
    it("treats an empty effect as matching NoExecute", () => {
      const mine = { key: "node.kubernetes.io/unreachable", operator: "Exists" };
      const out = prepareForCreate(PODS, podWith({}, { tolerations: [mine] }));
      assert.deepEqual(podSpec(out)["tolerations"], [mine, NOT_READY]);
    });
    it("still adds both for a NoSchedule toleration of the same key", () => {
      const mine = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoSchedule" };
      const out = prepareForCreate(PODS, podWith({}, { tolerations: [mine] }));
      assert.deepEqual(podSpec(out)["tolerations"], [mine, NOT_READY, UNREACHABLE]);
    });
  });

  describe("Priority admission", () => {
    for (const [className, priority] of [
      ["system-node-critical", 2000001000],
      ["system-cluster-critical", 2000000000],
    ] as const) {
      it(`resolves ${className} to ${priority}`, () => {
        const out = prepareForCreate(PODS, podWith({}, { priorityClassName: className }));
        assert.equal(podSpec(out)["priority"], priority);
        assert.equal(podSpec(out)["preemptionPolicy"], "PreemptLowerPriority");
      });
    }
  });

  it("fills serviceAccount from serviceAccountName and back", () => {
    assert.equal(podSpec(prepareForCreate(PODS, podWith({}, { serviceAccountName: "sa" })))["serviceAccount"], "sa");
    assert.equal(podSpec(prepareForCreate(PODS, podWith({}, { serviceAccount: "old" })))["serviceAccountName"], "old");
  });

  it("drops the Go zero values a decode/encode round trip loses", () => {
    const out = prepareForCreate(PODS, podWith({}, { hostNetwork: false, nodeSelector: {}, tolerations: [], nodeName: "" }));
    assert.equal(podSpec(out)["hostNetwork"], undefined);
    assert.equal(podSpec(out)["nodeSelector"], undefined);
    assert.equal(podSpec(out)["nodeName"], undefined);
    assert.deepEqual(podSpec(out)["tolerations"], [NOT_READY, UNREACHABLE]);
  });

  it("drops deletion state a create cannot carry", () => {
    const out = prepareForCreate(PODS, { ...podWith({}), metadata: { name: "p", deletionTimestamp: "2025-01-01T00:00:00Z", deletionGracePeriodSeconds: 3 } });
    assert.deepEqual(out["metadata"], { name: "p", generation: 1 });
  });
});

describe("StatefulSet create", () => {
  const input = (): JsonObject => ({
    metadata: { name: "web", namespace: "d" },
    spec: {
      selector: { matchLabels: { a: "b" } },
      template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i:1" }] } },
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
    },
  });
  const expectedSpec = (rollingUpdate: JsonObject): JsonObject => ({
    selector: { matchLabels: { a: "b" } },
    template: {
      metadata: { labels: { a: "b" } },
      spec: {
        containers: [
          { name: "c", image: "i:1", resources: {}, imagePullPolicy: "IfNotPresent", terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File" },
        ],
        dnsPolicy: "ClusterFirst",
        restartPolicy: "Always",
        securityContext: {},
        terminationGracePeriodSeconds: 30,
        schedulerName: "default-scheduler",
      },
    },
    volumeClaimTemplates: [
      {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: "data" },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode: "Filesystem" },
        status: { phase: "Pending" },
      },
    ],
    updateStrategy: { type: "RollingUpdate", rollingUpdate },
    podManagementPolicy: "OrderedReady",
    persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    replicas: 1,
    revisionHistoryLimit: 10,
  });

  it("stores the v1.37 defaults: maxUnavailable 1 with MaxUnavailableStatefulSet on", () => {
    const out = prepareForCreate(STATEFULSETS, input());
    assert.deepEqual(out["spec"], expectedSpec({ partition: 0, maxUnavailable: 1 }));
    assert.deepEqual(out["status"], { replicas: 0, availableReplicas: 0 });
    assert.equal(getObject(out, "metadata")?.["generation"], 1);
  });

  it("stores no maxUnavailable with the gate off (as v1.32 did)", () => {
    assert.deepEqual(prepareForCreate(STATEFULSETS, input(), GATE_OFF)["spec"], expectedSpec({ partition: 0 }));
  });

  it("drops a sent maxUnavailable with the gate off", () => {
    const sent = input();
    (sent["spec"] as JsonObject)["updateStrategy"] = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "50%" } };
    const spec = prepareForCreate(STATEFULSETS, sent, GATE_OFF)["spec"] as JsonObject;
    assert.deepEqual(spec["updateStrategy"], { type: "RollingUpdate", rollingUpdate: { partition: 0 } });
  });

  it("adds no rollingUpdate to OnDelete", () => {
    const sent = input();
    (sent["spec"] as JsonObject)["updateStrategy"] = { type: "OnDelete" };
    assert.deepEqual((prepareForCreate(STATEFULSETS, sent)["spec"] as JsonObject)["updateStrategy"], { type: "OnDelete" });
  });

  it("replaces a sent status", () => {
    assert.deepEqual(prepareForCreate(STATEFULSETS, { ...input(), status: { replicas: 3, readyReplicas: 3 } })["status"], {
      replicas: 0,
      availableReplicas: 0,
    });
  });
});

describe("StatefulSet update", () => {
  const stored = (): JsonObject => {
    const sts = prepareForCreate(STATEFULSETS, {
      metadata: { name: "web", namespace: "d", uid: "u1", creationTimestamp: "2025-01-01T00:00:00Z" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { a: "b" } },
        template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i:1" }] } },
      },
    });
    sts["status"] = { replicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 };
    return sts;
  };

  it("keeps the stored status and bumps generation when the spec changes", () => {
    const old = stored();
    const next = cloneJson(old);
    ((next["spec"] as JsonObject)["template"] as JsonObject)["spec"] = { containers: [{ name: "c", image: "i:2" }] };
    next["status"] = { replicas: 0 };
    const out = prepareForUpdate(STATEFULSETS, "", next, old);
    assert.deepEqual(out["status"], old["status"]);
    assert.equal(getObject(out, "metadata")?.["generation"], 2);
    assert.equal(firstContainer((out["spec"] as JsonObject)["template"] as JsonObject)["imagePullPolicy"], "IfNotPresent", "the new template is defaulted");
  });

  it("does not bump generation for a metadata-only change", () => {
    const old = stored();
    const next = cloneJson(old);
    (next["metadata"] as JsonObject)["labels"] = { team: "x" };
    assert.equal(getObject(prepareForUpdate(STATEFULSETS, "", next, old), "metadata")?.["generation"], 1);
  });

  it("does not bump generation when a sent spec only lacks defaults", () => {
    const old = stored();
    const next = cloneJson(old);
    delete (next["spec"] as JsonObject)["revisionHistoryLimit"];
    assert.equal(getObject(prepareForUpdate(STATEFULSETS, "", next, old), "metadata")?.["generation"], 1);
  });

  it("keeps uid, creationTimestamp and generation from the stored object", () => {
    const old = stored();
    const next = cloneJson(old);
    const meta = next["metadata"] as JsonObject;
    meta["generation"] = 99;
    delete meta["uid"];
    meta["creationTimestamp"] = "2030-01-01T00:00:00Z";
    const out = getObject(prepareForUpdate(STATEFULSETS, "", next, old), "metadata");
    assert.equal(out?.["generation"], 1);
    assert.equal(out?.["uid"], "u1");
    assert.equal(out?.["creationTimestamp"], "2025-01-01T00:00:00Z");
  });

  it("status subresource keeps the stored spec and generation", () => {
    const old = stored();
    const next = cloneJson(old);
    (next["spec"] as JsonObject)["replicas"] = 7;
    next["status"] = { replicas: 1, observedGeneration: 1, availableReplicas: 0 };
    const out = prepareForUpdate(STATEFULSETS, "status", next, old);
    assert.deepEqual(out["spec"], old["spec"]);
    assert.deepEqual(out["status"], { replicas: 1, observedGeneration: 1, availableReplicas: 0 });
    assert.equal(getObject(out, "metadata")?.["generation"], 1);
  });

  it("scale sets spec.replicas and bumps generation only on change", () => {
    const old = stored();
    const scaled = prepareForUpdate(STATEFULSETS, "scale", { kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 5 } }, old);
    assert.equal((scaled["spec"] as JsonObject)["replicas"], 5);
    assert.equal(getObject(scaled, "metadata")?.["generation"], 2);
    assert.deepEqual(scaled["status"], old["status"]);
    const same = prepareForUpdate(STATEFULSETS, "scale", { spec: { replicas: 2 } }, old);
    assert.equal(getObject(same, "metadata")?.["generation"], 1);
  });

  it("scale to zero: a Scale without spec.replicas means 0", () => {
    assert.equal((prepareForUpdate(STATEFULSETS, "scale", { spec: {} }, stored())["spec"] as JsonObject)["replicas"], 0);
  });

  it("keeps maxUnavailable with the gate off when the stored object already used it", () => {
    const old = stored();
    const next = cloneJson(old);
    (next["spec"] as JsonObject)["updateStrategy"] = { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 2 } };
    const out = prepareForUpdate(STATEFULSETS, "", next, old, GATE_OFF);
    assert.deepEqual((out["spec"] as JsonObject)["updateStrategy"], { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 2 } });
    const fresh = prepareForUpdate(STATEFULSETS, "", next, prepareForCreate(STATEFULSETS, old, GATE_OFF), GATE_OFF);
    assert.deepEqual((fresh["spec"] as JsonObject)["updateStrategy"], { type: "RollingUpdate", rollingUpdate: { partition: 0 } });
  });

  it("scaleOf renders the autoscaling/v1 Scale", () => {
    assert.deepEqual(scaleOf(stored()), {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "web", namespace: "d", uid: "u1", creationTimestamp: "2025-01-01T00:00:00Z" },
      spec: { replicas: 2 },
      status: { replicas: 2, selector: "a=b" },
    });
  });
});

describe("Pod update", () => {
  const old = (): JsonObject => {
    const pod = prepareForCreate(PODS, podWith({}));
    pod["status"] = { phase: "Running", qosClass: "BestEffort", podIP: "10.0.0.1" };
    return pod;
  };

  it("keeps status on a main-resource update and bumps generation on a spec change", () => {
    const before = old();
    const next = cloneJson(before);
    next["status"] = {};
    podSpec(next)["activeDeadlineSeconds"] = 30;
    const out = prepareForUpdate(PODS, "", next, before);
    assert.deepEqual(out["status"], before["status"]);
    assert.equal(getObject(out, "metadata")?.["generation"], 2);
  });

  it("keeps the spec on a status update", () => {
    const before = old();
    const next = cloneJson(before);
    podSpec(next)["nodeName"] = "elsewhere";
    next["status"] = { phase: "Succeeded", qosClass: "BestEffort" };
    const out = prepareForUpdate(PODS, "status", next, before);
    assert.deepEqual(out["spec"], before["spec"]);
    assert.deepEqual(out["status"], { phase: "Succeeded", qosClass: "BestEffort" });
  });
});

describe("PersistentVolumeClaim and PersistentVolume create", () => {
  it("claim: volumeMode, protection finalizer, canonical requests, Pending status", () => {
    const out = prepareForCreate(CLAIMS, {
      metadata: { name: "c", namespace: "d" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1.5Gi" } } },
      status: { phase: "Bound" },
    });
    assert.deepEqual(out, {
      metadata: { name: "c", namespace: "d", finalizers: ["kubernetes.io/pvc-protection"] },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1536Mi" } }, volumeMode: "Filesystem" },
      status: { phase: "Pending" },
    });
  });

  it("claim: the finalizer is not added twice", () => {
    const out = prepareForCreate(CLAIMS, { metadata: { name: "c", finalizers: ["kubernetes.io/pvc-protection"] }, spec: {} });
    assert.deepEqual(getObject(out, "metadata")?.["finalizers"], ["kubernetes.io/pvc-protection"]);
  });

  it("volume: reclaim policy, volumeMode, plugin defaults, finalizer, Pending with transition time", () => {
    const out = prepareForCreate(
      VOLUMES,
      { metadata: { name: "pv", namespace: "ignored" }, spec: { capacity: { storage: "0.5Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/x" } } },
      { now: "2025-01-01T00:00:00Z" },
    );
    assert.deepEqual(out, {
      metadata: { name: "pv", finalizers: ["kubernetes.io/pv-protection"] },
      spec: {
        capacity: { storage: "512Mi" },
        accessModes: ["ReadWriteOnce"],
        hostPath: { path: "/x", type: "" },
        persistentVolumeReclaimPolicy: "Retain",
        volumeMode: "Filesystem",
      },
      status: { phase: "Pending", lastPhaseTransitionTime: "2025-01-01T00:00:00Z" },
    });
  });
});

describe("Service create and update", () => {
  it("ClusterIP defaults on a single-stack IPv4 cluster", () => {
    const out = prepareForCreate(SERVICES, { metadata: { name: "s", namespace: "d" }, spec: { ports: [{ port: 80 }], selector: { a: "b" } } });
    assert.deepEqual(out["spec"], {
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      selector: { a: "b" },
      sessionAffinity: "None",
      type: "ClusterIP",
      internalTrafficPolicy: "Cluster",
      ipFamilyPolicy: "SingleStack",
      ipFamilies: ["IPv4"],
    });
    assert.deepEqual(out["status"], { loadBalancer: {} });
  });

  it("headless without selector: RequireDualStack, clusterIPs mirrors clusterIP", () => {
    const spec = prepareForCreate(SERVICES, { metadata: { name: "s" }, spec: { clusterIP: "None", ports: [{ port: 80, targetPort: "http" }] } })["spec"] as JsonObject;
    assert.deepEqual(spec["clusterIPs"], ["None"]);
    assert.equal(spec["ipFamilyPolicy"], "RequireDualStack");
    assert.deepEqual(spec["ports"], [{ port: 80, targetPort: "http", protocol: "TCP" }]);
  });

  it("NodePort with ClientIP affinity", () => {
    const spec = prepareForCreate(SERVICES, { metadata: { name: "s" }, spec: { type: "NodePort", sessionAffinity: "ClientIP", ports: [{ port: 80 }] } })[
      "spec"
    ] as JsonObject;
    assert.deepEqual(spec["sessionAffinityConfig"], { clientIP: { timeoutSeconds: 10800 } });
    assert.equal(spec["externalTrafficPolicy"], "Cluster");
  });

  it("an update that omits allocated values keeps them", () => {
    const old = prepareForCreate(SERVICES, { metadata: { name: "s" }, spec: { clusterIP: "10.96.0.10", ports: [{ port: 53 }] } });
    const out = prepareForUpdate(SERVICES, "", { metadata: { name: "s" }, spec: { ports: [{ port: 53 }] } }, old);
    assert.equal((out["spec"] as JsonObject)["clusterIP"], "10.96.0.10");
    assert.deepEqual((out["spec"] as JsonObject)["clusterIPs"], ["10.96.0.10"]);
  });
});

describe("Namespace", () => {
  it("create: name label, kubernetes finalizer, Active", () => {
    assert.deepEqual(prepareForCreate(NAMESPACES, { metadata: { name: "ns" } }), {
      metadata: { name: "ns", labels: { "kubernetes.io/metadata.name": "ns" } },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    });
  });

  it("canonicalize labels a namespace named by generateName", () => {
    const out = canonicalize(NAMESPACES, { metadata: { name: "gen-abcde", generateName: "gen-" }, spec: {}, status: { phase: "Active" } });
    assert.deepEqual(getObject(out, "metadata")?.["labels"], { "kubernetes.io/metadata.name": "gen-abcde" });
  });

  it("update keeps spec.finalizers; finalize keeps status", () => {
    const old = prepareForCreate(NAMESPACES, { metadata: { name: "ns" } });
    const updated = prepareForUpdate(NAMESPACES, "", { metadata: { name: "ns" }, spec: { finalizers: [] } }, old);
    assert.deepEqual(updated["spec"], { finalizers: ["kubernetes"] });
    const finalized = prepareForUpdate(NAMESPACES, "finalize", { metadata: { name: "ns" }, spec: { finalizers: [] }, status: { phase: "Terminating" } }, old);
    assert.deepEqual(finalized["spec"], {});
    assert.deepEqual(finalized["status"], { phase: "Active" });
  });
});

describe("other types", () => {
  it("configmaps are stored as sent", () => {
    const cm = { metadata: { name: "cm", namespace: "d" }, data: { a: "1" } };
    assert.deepEqual(prepareForCreate(CONFIGMAPS, cm), cm);
  });

  it("an events.k8s.io Event is returned in its own shape after core defaulting", () => {
    const event = {
      metadata: { name: "e", namespace: "d" },
      eventTime: "2025-01-01T00:00:00.000000Z",
      reportingController: "kubelet",
      reportingInstance: "node-1",
      action: "Pulling",
      reason: "Pulling",
      regarding: { kind: "Pod", name: "p", namespace: "d" },
      note: "Pulling image",
      type: "Normal",
    };
    const out = prepareForCreate(EVENTS_V1, event);
    assert.equal(out["note"], "Pulling image");
    assert.deepEqual(out["regarding"], { kind: "Pod", name: "p", namespace: "d" });
    assert.equal(out["message"], undefined);
  });

  it("a core Event keeps its fields", () => {
    const out = prepareForCreate(CORE_EVENTS, {
      metadata: { name: "e", namespace: "d" },
      involvedObject: { kind: "Pod", name: "p", namespace: "d" },
      reason: "Started",
      message: "Started container",
      type: "Normal",
      count: 1,
    });
    assert.equal(out["message"], "Started container");
    assert.equal(out["count"], 1);
  });
});
