// What decoding into the Go API types and encoding back does to JSON (ADR 0039): `omitempty` zero values
// disappear (`hostNetwork: false`, `nodeSelector: {}`, `args: []`), nulls on pointers disappear, and
// non-pointer structs always appear (`resources: {}`). The tables cover the fields of the served types
// that clients commonly send; keys not listed are left exactly as received.

import { get, isObject, remove, set, type JsonObject } from "./json.ts";

/**
 * s: omitempty scalar (zero dropped)      k: pointer / required scalar (only null dropped)
 * m: omitempty map ({} dropped)           l: omitempty scalar list ([] dropped)
 * t: metav1.Time without omitzero (absent -> null)   r: required string (absent -> "")
 * 0: required integer (absent -> 0)       q: resource.Quantity struct (absent -> "0")
 */
type Scalar = "s" | "k" | "m" | "l" | "t" | "r" | "0" | "q";
type Field = Scalar | { list: string; keepEmpty?: true } | { ptr: string } | { struct: string };
type Schema = Record<string, Field>;

const ANY = "any";
const list = (type: string): Field => ({ list: type });
const ptr = (type: string): Field => ({ ptr: type });
const struct = (type: string): Field => ({ struct: type });

const probeHandler: Schema = {
  exec: ptr("ExecAction"),
  httpGet: ptr("HTTPGetAction"),
  tcpSocket: ptr("TCPSocketAction"),
  grpc: ptr("GRPCAction"),
};

const volumeSource: Schema = {
  hostPath: ptr("HostPathVolumeSource"),
  emptyDir: ptr("EmptyDirVolumeSource"),
  secret: ptr("SecretVolumeSource"),
  persistentVolumeClaim: ptr("PersistentVolumeClaimVolumeSource"),
  downwardAPI: ptr("DownwardAPIVolumeSource"),
  configMap: ptr("ConfigMapVolumeSource"),
  projected: ptr("ProjectedVolumeSource"),
  ephemeral: ptr("EphemeralVolumeSource"),
  csi: ptr(ANY),
  nfs: ptr(ANY),
  image: ptr(ANY),
};

const SCHEMAS: Record<string, Schema> = {
  ObjectMeta: {
    name: "s",
    generateName: "s",
    namespace: "s",
    selfLink: "s",
    uid: "s",
    resourceVersion: "s",
    generation: "s",
    // omitzero since 1.34, so a zero time is dropped rather than written as null (ADR 0035).
    creationTimestamp: "s",
    deletionTimestamp: "k",
    deletionGracePeriodSeconds: "k",
    labels: "m",
    annotations: "m",
    ownerReferences: list(ANY),
    finalizers: "l",
    managedFields: list(ANY),
  },
  PodTemplateSpec: { metadata: struct("ObjectMeta"), spec: struct("PodSpec") },
  PodSpec: {
    volumes: list("Volume"),
    initContainers: list("Container"),
    containers: { list: "Container", keepEmpty: true },
    ephemeralContainers: list("Container"),
    restartPolicy: "s",
    terminationGracePeriodSeconds: "k",
    activeDeadlineSeconds: "k",
    dnsPolicy: "s",
    nodeSelector: "m",
    serviceAccountName: "s",
    serviceAccount: "s",
    automountServiceAccountToken: "k",
    nodeName: "s",
    hostNetwork: "s",
    hostPID: "s",
    hostIPC: "s",
    shareProcessNamespace: "k",
    securityContext: ptr("PodSecurityContext"),
    imagePullSecrets: list("LocalObjectReference"),
    hostname: "s",
    subdomain: "s",
    affinity: ptr(ANY),
    schedulerName: "s",
    tolerations: list("Toleration"),
    hostAliases: list(ANY),
    priorityClassName: "s",
    priority: "k",
    dnsConfig: ptr(ANY),
    readinessGates: list(ANY),
    runtimeClassName: "k",
    enableServiceLinks: "k",
    preemptionPolicy: "k",
    overhead: "m",
    topologySpreadConstraints: list(ANY),
    setHostnameAsFQDN: "k",
    os: ptr(ANY),
    hostUsers: "k",
    schedulingGates: list(ANY),
    resourceClaims: list(ANY),
    resources: ptr("ResourceRequirements"),
    hostnameOverride: "k",
  },
  Container: {
    name: "k",
    image: "s",
    command: "l",
    args: "l",
    workingDir: "s",
    ports: list("ContainerPort"),
    envFrom: list("EnvFromSource"),
    env: list("EnvVar"),
    resources: struct("ResourceRequirements"),
    resizePolicy: list(ANY),
    restartPolicy: "k",
    restartPolicyRules: list(ANY),
    volumeMounts: list("VolumeMount"),
    volumeDevices: list(ANY),
    livenessProbe: ptr("Probe"),
    readinessProbe: ptr("Probe"),
    startupProbe: ptr("Probe"),
    lifecycle: ptr("Lifecycle"),
    terminationMessagePath: "s",
    terminationMessagePolicy: "s",
    imagePullPolicy: "s",
    securityContext: ptr("SecurityContext"),
    stdin: "s",
    stdinOnce: "s",
    tty: "s",
  },
  ResourceRequirements: { limits: "m", requests: "m", claims: list(ANY) },
  ContainerPort: { name: "s", hostPort: "s", containerPort: "k", protocol: "s", hostIP: "s" },
  EnvVar: { name: "k", value: "s", valueFrom: ptr("EnvVarSource") },
  EnvVarSource: {
    fieldRef: ptr("ObjectFieldSelector"),
    resourceFieldRef: ptr("ResourceFieldSelector"),
    configMapKeyRef: ptr("KeySelector"),
    secretKeyRef: ptr("KeySelector"),
    fileKeyRef: ptr(ANY),
  },
  ObjectFieldSelector: { apiVersion: "s", fieldPath: "k" },
  ResourceFieldSelector: { containerName: "s", resource: "k", divisor: "q" },
  KeySelector: { name: "s", key: "k", optional: "k" },
  EnvFromSource: { prefix: "s", configMapRef: ptr("NameOptional"), secretRef: ptr("NameOptional") },
  NameOptional: { name: "s", optional: "k" },
  VolumeMount: {
    name: "k",
    readOnly: "s",
    recursiveReadOnly: "k",
    mountPath: "k",
    subPath: "s",
    mountPropagation: "k",
    subPathExpr: "s",
  },
  Probe: {
    ...probeHandler,
    initialDelaySeconds: "s",
    timeoutSeconds: "s",
    periodSeconds: "s",
    successThreshold: "s",
    failureThreshold: "s",
    terminationGracePeriodSeconds: "k",
  },
  ExecAction: { command: "l" },
  HTTPGetAction: { path: "s", port: "k", host: "s", scheme: "s", httpHeaders: list(ANY) },
  TCPSocketAction: { port: "k", host: "s" },
  GRPCAction: { port: "k", service: "k" },
  Lifecycle: { postStart: ptr("LifecycleHandler"), preStop: ptr("LifecycleHandler"), stopSignal: "k" },
  LifecycleHandler: { exec: ptr("ExecAction"), httpGet: ptr("HTTPGetAction"), tcpSocket: ptr("TCPSocketAction"), sleep: ptr(ANY) },
  SecurityContext: {
    capabilities: ptr(ANY),
    privileged: "k",
    seLinuxOptions: ptr(ANY),
    windowsOptions: ptr(ANY),
    runAsUser: "k",
    runAsGroup: "k",
    runAsNonRoot: "k",
    readOnlyRootFilesystem: "k",
    allowPrivilegeEscalation: "k",
    procMount: "k",
    seccompProfile: ptr(ANY),
    appArmorProfile: ptr(ANY),
  },
  PodSecurityContext: {
    seLinuxOptions: ptr(ANY),
    windowsOptions: ptr(ANY),
    runAsUser: "k",
    runAsGroup: "k",
    runAsNonRoot: "k",
    supplementalGroups: "l",
    supplementalGroupsPolicy: "k",
    fsGroup: "k",
    sysctls: list(ANY),
    fsGroupChangePolicy: "k",
    seccompProfile: ptr(ANY),
    appArmorProfile: ptr(ANY),
    seLinuxChangePolicy: "k",
  },
  Volume: { name: "k", ...volumeSource },
  HostPathVolumeSource: { path: "k", type: "k" },
  EmptyDirVolumeSource: { medium: "s", sizeLimit: "k" },
  SecretVolumeSource: { secretName: "s", items: list("KeyToPath"), defaultMode: "k", optional: "k" },
  ConfigMapVolumeSource: { name: "s", items: list("KeyToPath"), defaultMode: "k", optional: "k" },
  KeyToPath: { key: "k", path: "k", mode: "k" },
  PersistentVolumeClaimVolumeSource: { claimName: "k", readOnly: "s" },
  DownwardAPIVolumeSource: { items: list("DownwardAPIVolumeFile"), defaultMode: "k" },
  DownwardAPIVolumeFile: { path: "k", fieldRef: ptr("ObjectFieldSelector"), resourceFieldRef: ptr("ResourceFieldSelector"), mode: "k" },
  ProjectedVolumeSource: { sources: { list: "VolumeProjection", keepEmpty: true }, defaultMode: "k" },
  VolumeProjection: {
    secret: ptr("ProjectionItems"),
    configMap: ptr("ProjectionItems"),
    downwardAPI: ptr("DownwardAPIProjection"),
    serviceAccountToken: ptr("ServiceAccountTokenProjection"),
    clusterTrustBundle: ptr(ANY),
    podCertificate: ptr(ANY),
  },
  ProjectionItems: { name: "s", items: list("KeyToPath"), optional: "k" },
  DownwardAPIProjection: { items: list("DownwardAPIVolumeFile") },
  ServiceAccountTokenProjection: { audience: "s", expirationSeconds: "k", path: "k" },
  EphemeralVolumeSource: { volumeClaimTemplate: ptr("PersistentVolumeClaimTemplate") },
  PersistentVolumeClaimTemplate: { metadata: struct("ObjectMeta"), spec: struct("PersistentVolumeClaimSpec") },
  Toleration: { key: "s", operator: "s", value: "s", effect: "s", tolerationSeconds: "k" },
  LocalObjectReference: { name: "s" },
  LabelSelector: { matchLabels: "m", matchExpressions: list("LabelSelectorRequirement") },
  LabelSelectorRequirement: { key: "k", operator: "k", values: "l" },

  StatefulSetSpec: {
    replicas: "k",
    selector: ptr("LabelSelector"),
    template: struct("PodTemplateSpec"),
    volumeClaimTemplates: list("PersistentVolumeClaim"),
    serviceName: "s",
    podManagementPolicy: "s",
    updateStrategy: struct("StatefulSetUpdateStrategy"),
    revisionHistoryLimit: "k",
    minReadySeconds: "s",
    persistentVolumeClaimRetentionPolicy: ptr("StatefulSetPersistentVolumeClaimRetentionPolicy"),
    ordinals: ptr("StatefulSetOrdinals"),
  },
  DeploymentSpec: {
    replicas: "k",
    selector: ptr("LabelSelector"),
    template: struct("PodTemplateSpec"),
    strategy: struct("DeploymentStrategy"),
    minReadySeconds: "s",
    revisionHistoryLimit: "k",
    paused: "s",
    progressDeadlineSeconds: "k",
  },
  DeploymentStrategy: { type: "s", rollingUpdate: ptr("RollingUpdateDeployment") },
  RollingUpdateDeployment: { maxUnavailable: "k", maxSurge: "k" },
  StatefulSetUpdateStrategy: { type: "s", rollingUpdate: ptr("RollingUpdateStatefulSetStrategy") },
  RollingUpdateStatefulSetStrategy: { partition: "k", maxUnavailable: "k" },
  StatefulSetPersistentVolumeClaimRetentionPolicy: { whenDeleted: "s", whenScaled: "s" },
  StatefulSetOrdinals: { start: "s" },
  StatefulSetStatus: {
    observedGeneration: "s",
    replicas: "0",
    readyReplicas: "s",
    currentReplicas: "s",
    updatedReplicas: "s",
    currentRevision: "s",
    updateRevision: "s",
    collisionCount: "k",
    conditions: list(ANY),
    availableReplicas: "0",
  },

  PersistentVolumeClaim: {
    apiVersion: "s",
    kind: "s",
    metadata: struct("ObjectMeta"),
    spec: struct("PersistentVolumeClaimSpec"),
    status: struct("PersistentVolumeClaimStatus"),
  },
  PersistentVolumeClaimSpec: {
    accessModes: "l",
    selector: ptr("LabelSelector"),
    resources: struct("VolumeResourceRequirements"),
    volumeName: "s",
    storageClassName: "k",
    volumeMode: "k",
    dataSource: ptr(ANY),
    dataSourceRef: ptr(ANY),
    volumeAttributesClassName: "k",
  },
  VolumeResourceRequirements: { limits: "m", requests: "m" },
  PersistentVolumeClaimStatus: {
    phase: "s",
    accessModes: "l",
    capacity: "m",
    conditions: list(ANY),
    allocatedResources: "m",
    allocatedResourceStatuses: "m",
    currentVolumeAttributesClassName: "k",
    modifyVolumeStatus: ptr(ANY),
  },
  PersistentVolumeSpec: {
    capacity: "m",
    accessModes: "l",
    claimRef: ptr(ANY),
    persistentVolumeReclaimPolicy: "s",
    storageClassName: "s",
    mountOptions: "l",
    volumeMode: "k",
    nodeAffinity: ptr(ANY),
    volumeAttributesClassName: "k",
    hostPath: ptr("HostPathVolumeSource"),
  },
  ServiceSpec: {
    ports: list("ServicePort"),
    selector: "m",
    clusterIP: "s",
    clusterIPs: "l",
    type: "s",
    externalIPs: "l",
    sessionAffinity: "s",
    loadBalancerIP: "s",
    loadBalancerSourceRanges: "l",
    externalName: "s",
    externalTrafficPolicy: "s",
    healthCheckNodePort: "s",
    publishNotReadyAddresses: "s",
    sessionAffinityConfig: ptr(ANY),
    ipFamilies: "l",
    ipFamilyPolicy: "k",
    allocateLoadBalancerNodePorts: "k",
    loadBalancerClass: "k",
    internalTrafficPolicy: "k",
    trafficDistribution: "k",
  },
  ServicePort: { name: "s", protocol: "s", appProtocol: "k", port: "k", targetPort: "k", nodePort: "s" },
  ServiceStatus: { loadBalancer: struct(ANY), conditions: list(ANY) },
  NamespaceSpec: { finalizers: "l" },
  LeaseSpec: {
    holderIdentity: "k",
    leaseDurationSeconds: "k",
    acquireTime: "k",
    renewTime: "k",
    leaseTransitions: "k",
    strategy: "k",
    preferredHolder: "k",
  },
};

/** Top-level shapes of the served kinds, keyed like `resourceId`. */
const TOP_LEVEL: Record<string, Schema> = {
  pods: { metadata: struct("ObjectMeta"), spec: struct("PodSpec"), status: struct(ANY) },
  statefulsets: { metadata: struct("ObjectMeta"), spec: struct("StatefulSetSpec"), status: struct("StatefulSetStatus") },
  persistentvolumeclaims: {
    metadata: struct("ObjectMeta"),
    spec: struct("PersistentVolumeClaimSpec"),
    status: struct("PersistentVolumeClaimStatus"),
  },
  persistentvolumes: { metadata: struct("ObjectMeta"), spec: struct("PersistentVolumeSpec"), status: struct(ANY) },
  services: { metadata: struct("ObjectMeta"), spec: struct("ServiceSpec"), status: struct("ServiceStatus") },
  namespaces: { metadata: struct("ObjectMeta"), spec: struct("NamespaceSpec"), status: struct(ANY) },
  nodes: { metadata: struct("ObjectMeta"), spec: struct(ANY), status: struct(ANY) },
  configmaps: { metadata: struct("ObjectMeta"), immutable: "k", data: "m", binaryData: "m" },
  secrets: { metadata: struct("ObjectMeta"), immutable: "k", data: "m", stringData: "m", type: "s" },
  deployments: { metadata: struct("ObjectMeta"), spec: struct("DeploymentSpec"), status: struct(ANY) },
  // The kinds served generically (ServiceAccount, PodDisruptionBudget, NetworkPolicy, RBAC): their metadata only.
  unknown: { metadata: struct("ObjectMeta") },
  controllerrevisions: { metadata: struct("ObjectMeta"), data: "k", revision: "0" },
  leases: { metadata: struct("ObjectMeta"), spec: struct("LeaseSpec") },
  events: {
    metadata: struct("ObjectMeta"),
    involvedObject: struct(ANY),
    reason: "s",
    message: "s",
    source: struct(ANY),
    firstTimestamp: "t",
    lastTimestamp: "t",
    count: "s",
    type: "s",
    eventTime: "t",
    series: ptr(ANY),
    action: "s",
    related: ptr(ANY),
    reportingComponent: "r",
    reportingInstance: "r",
  },
};

function isScalarZero(value: unknown): boolean {
  return value === null || value === "" || value === 0 || value === false;
}

function applyScalar(obj: JsonObject, key: string, kind: Scalar): void {
  const value = get(obj, key);
  switch (kind) {
    case "s":
      if (isScalarZero(value)) remove(obj, key);
      return;
    case "k":
      if (value === null) remove(obj, key);
      return;
    case "m":
      if (value === null || (isObject(value) && Object.keys(value).length === 0)) remove(obj, key);
      return;
    case "l":
      if (value === null || (Array.isArray(value) && value.length === 0)) remove(obj, key);
      return;
    case "t":
      if (value === undefined) set(obj, key, null);
      return;
    case "r":
      if (value === undefined || value === null) set(obj, key, "");
      return;
    case "0":
      if (value === undefined || value === null) set(obj, key, 0);
      return;
    case "q":
      if (value === undefined || value === null) set(obj, key, "0");
      return;
  }
}

function normalizeStruct(obj: JsonObject, type: string): void {
  const schema = SCHEMAS[type];
  if (schema !== undefined) normalizeWith(obj, schema);
}

function normalizeWith(obj: JsonObject, schema: Schema): void {
  for (const key of Object.keys(schema)) {
    const field = schema[key];
    if (field === undefined) continue;
    if (typeof field === "string") {
      applyScalar(obj, key, field);
      continue;
    }
    const value = get(obj, key);
    if ("list" in field) {
      if (value === null || (Array.isArray(value) && value.length === 0 && field.keepEmpty !== true)) remove(obj, key);
      else if (Array.isArray(value)) for (const item of value) if (isObject(item)) normalizeStruct(item, field.list);
    } else if ("ptr" in field) {
      if (value === null) remove(obj, key);
      else if (isObject(value)) normalizeStruct(value, field.ptr);
    } else if (value === undefined || value === null) {
      const created: JsonObject = {};
      set(obj, key, created);
      normalizeStruct(created, field.struct);
    } else if (isObject(value)) {
      normalizeStruct(value, field.struct);
    }
  }
}

/** Normalizes a served object in place, as a decode into the Go type and an encode back would. */
export function normalizeObject(resource: string, obj: JsonObject): void {
  const schema = TOP_LEVEL[resource];
  if (schema !== undefined) normalizeWith(obj, schema);
}

/** Normalizes a nested pod template (used for the template a StatefulSet stores). */
export function normalizePodTemplate(template: JsonObject): void {
  normalizeStruct(template, "PodTemplateSpec");
}
