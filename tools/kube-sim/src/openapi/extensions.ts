// List semantics the generated client models do not carry: the `patchMergeKey`/`patchStrategy` and
// `listType`/`listMapKey` struct tags of k8s.io/api for the list fields of the served types. Strategic
// merge patch (kubectl apply, rollout undo) and server-side apply read these from /openapi/v3.
export interface ListSemantics {
  mergeKey?: string;
  strategy?: string;
  listType?: "map" | "set" | "atomic";
  mapKeys?: string[];
}

const mapBy = (mergeKey: string, mapKeys: string[] = [mergeKey], strategy = "merge"): ListSemantics => ({
  mergeKey,
  strategy,
  listType: "map",
  mapKeys,
});

const CONTAINER: Record<string, ListSemantics> = {
  env: mapBy("name"),
  ports: mapBy("containerPort", ["containerPort", "protocol"]),
  volumeMounts: mapBy("mountPath"),
  volumeDevices: mapBy("devicePath"),
  resizePolicy: { listType: "atomic" },
};

/** Keyed by client-node model name, then field name. */
export const LIST_SEMANTICS: Record<string, Record<string, ListSemantics>> = {
  V1ObjectMeta: {
    finalizers: { strategy: "merge", listType: "set" },
    ownerReferences: mapBy("uid"),
  },
  V1PodSpec: {
    containers: mapBy("name"),
    initContainers: mapBy("name"),
    ephemeralContainers: mapBy("name"),
    volumes: mapBy("name", ["name"], "merge,retainKeys"),
    imagePullSecrets: mapBy("name"),
    hostAliases: mapBy("ip"),
    topologySpreadConstraints: mapBy("topologyKey", ["topologyKey", "whenUnsatisfiable"]),
    resourceClaims: mapBy("name", ["name"], "merge,retainKeys"),
    schedulingGates: mapBy("name"),
    tolerations: { listType: "atomic" },
  },
  V1Container: CONTAINER,
  V1EphemeralContainer: CONTAINER,
  V1PodStatus: {
    conditions: mapBy("type"),
    podIPs: mapBy("ip"),
    hostIPs: mapBy("ip"),
    resourceClaimStatuses: mapBy("name", ["name"], "merge,retainKeys"),
  },
  V1ServiceSpec: { ports: mapBy("port", ["port", "protocol"]) },
  V1ServiceStatus: { conditions: mapBy("type") },
  V1StatefulSetStatus: { conditions: mapBy("type") },
  V1PersistentVolumeClaimStatus: { conditions: mapBy("type") },
  V1NamespaceStatus: { conditions: mapBy("type") },
  V1NodeStatus: { conditions: mapBy("type"), addresses: mapBy("type") },
  V1NodeSpec: { podCIDRs: { strategy: "merge", listType: "set" } },
};
