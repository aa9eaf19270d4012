// Field documentation for the served kinds besides StatefulSet and ControllerRevision (descriptions.ts has those
// and the rules): Pod and what a pod template holds, PersistentVolumeClaim and PersistentVolume, Namespace,
// ConfigMap, Service, both Event APIs, Node, Lease, and the object metadata every kind shares. Written in this
// project's words from the behaviour of the API (facts checked against k8s.io/api's types.go and client-node's
// generated models), aimed at someone operating StatefulSets: what a field does, its type where the JSON does not
// say it, its default, and what the simulator's kubelet does with it where that differs from a real node.
import type { DefinitionDoc } from "./descriptions.ts";

const API_VERSION = "The group and version of the schema this object is written in, `group/version` (just `v1` for the core group). The server converts versions it knows and rejects the others.";
const KIND = "The type of the object in CamelCase. It follows from the endpoint a request is sent to; the server always sets it on what it returns.";
const OBJECT_METADATA = "Standard object metadata: name, namespace, labels, annotations, owner references and finalizers, plus the fields the server maintains (uid, resourceVersion, generation, creationTimestamp, deletionTimestamp).";
const LIST_METADATA = "Standard list metadata: the resourceVersion the list was read at, and the continue token and remaining item count of a paginated list.";
const CONDITION_STATUS = "Whether the condition holds: `True`, `False` or `Unknown`.";
const TRANSITION = "When status last changed (RFC 3339 date and time).";
const REASON = "A short, machine-readable CamelCase reason for the last transition.";
const MESSAGE = "A human-readable explanation of the last transition.";
const QUANTITIES = "Resource names (`cpu`, `memory`, `ephemeral-storage`, `storage`, extended resources) to quantities such as `500m` or `1Gi`.";
const LEGACY_VOLUME = "A volume from a storage driver built into Kubernetes. These in-tree drivers are deprecated or already removed in favour of CSI drivers; most requests are now served by the CSI migration shim.";

function list(kind: string): DefinitionDoc {
  return { description: `A list of ${kind}s.`, fields: { apiVersion: API_VERSION, kind: KIND, metadata: LIST_METADATA, items: `The ${kind}s in the list.` } };
}

export const CORE_DESCRIPTIONS: Readonly<Record<string, DefinitionDoc>> = {
  // ---- metadata shared by every kind ----
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
    description: "The metadata every persisted object carries: its identity, labels and annotations, ownership, and the bookkeeping the server does for it.",
    fields: {
      name: "The object's name, unique among objects of its kind in its namespace. Most kinds need a DNS subdomain (lower case, digits, `-` and `.`). Fixed once created.",
      generateName: "A prefix from which the server makes a unique name when `name` is empty, by appending a random suffix. Only used on create.",
      namespace: "The namespace the object lives in; empty for cluster-scoped kinds. Defaults to the namespace of the request. Fixed once created.",
      uid: "A unique identifier the server assigns on create. An object deleted and made again under the same name gets a new one. Read only.",
      resourceVersion: "An opaque version the server changes on every write. Send it back with an update to have the write refused (409 Conflict) when the object changed in between; give it to a list or watch to say where to start. Read only.",
      generation: "A number the server raises each time the desired state (for most kinds, anything but status and metadata) changes (int64). Controllers report the generation they acted on in status. Read only.",
      creationTimestamp: "When the server stored the object first (RFC 3339, whole seconds). Read only.",
      deletionTimestamp:
        "Set by the server when deletion was requested while finalizers or a grace period keep the object: from then on it is terminating and only finalizers and a few status fields may change. For a pod it is when the kubelet will kill it at the latest. Read only.",
      deletionGracePeriodSeconds: "The grace period (seconds, int64) of the pending deletion; it can only shorten. Read only.",
      labels: "Key/value pairs that selectors match on: Services pick their pods, StatefulSets their pods, and clients filter lists by them. Keys may have a DNS prefix (`app.kubernetes.io/name`); values are at most 63 characters.",
      annotations: "Key/value pairs of free-form data for tools and controllers; not used for selection. Together at most 256 KiB.",
      ownerReferences:
        "The objects this one depends on. When every owner is gone, the garbage collector deletes the object (with foreground deletion, owners wait for dependents that block them). At most one entry is the managing controller.",
      finalizers:
        "Names of the controllers that still have to clean up before the object may go. A delete only sets deletionTimestamp while the list is non-empty; each controller removes its entry when done and the object is removed once it is empty.",
      managedFields: "Which field manager set which fields, and how (Apply or Update): the bookkeeping of server-side apply. Rarely edited by hand.",
      selfLink: "Deprecated and no longer set by servers since Kubernetes 1.20.",
    },
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta": {
    description: "The metadata of a list answer.",
    fields: {
      resourceVersion: "The version of the collection the list was read at; a watch started from it misses no later change.",
      continue: "Set when the answer was cut at the request's limit: pass it as `continue` to get the next page. It expires with the server's history; a stale token gets 410 Gone.",
      remainingItemCount: "How many items (int64) were left after this page, when the server could count them; an estimate when the list was read with a label or field selector.",
      selfLink: "Deprecated and no longer set by servers since Kubernetes 1.20.",
      shardInfo: "Set when the list was asked for one shard of the collection: which part of it the answer holds.",
    },
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": {
    description: "A pointer from a dependent to an object that owns it, in the same namespace (or cluster-scoped).",
    fields: {
      apiVersion: "The group version of the owner.",
      kind: "The kind of the owner.",
      name: "The name of the owner.",
      uid: "The uid of the owner. A reference whose uid no longer exists counts as a missing owner, even if an object of that name exists again.",
      controller: "Whether this owner is the controller that manages the object; at most one reference may say true.",
      blockOwnerDeletion: "With foreground deletion, whether the owner has to wait until this dependent is gone. Defaults to false.",
    },
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector": {
    description: "A query over labels. All the given terms must hold; an empty selector matches every object, and an absent one none.",
    fields: {
      matchLabels: "Labels the object must have with exactly these values.",
      matchExpressions: "Further requirements over label keys and sets of values.",
    },
  },
  "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": {
    description: "One requirement of a label selector.",
    fields: {
      key: "The label key the requirement is about.",
      operator: "`In` and `NotIn` compare the label's value with `values`; `Exists` and `DoesNotExist` only look at whether the key is there.",
      values: "The values for `In` and `NotIn` (at least one); must be empty for `Exists` and `DoesNotExist`.",
    },
  },

  // ---- Pod ----
  "io.k8s.api.core.v1.Pod": {
    description:
      "A pod is the unit a node runs: one or more containers that share a network namespace, an IP address and volumes, scheduled together onto one node. Pods of a StatefulSet are made by its controller from the set's template and keep their name across restarts.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "What should run: the containers, volumes, scheduling constraints and restart behaviour.",
      status: "What the kubelet last reported about the pod: its phase, conditions, IP addresses and each container's state. Written through the status subresource.",
    },
  },
  "io.k8s.api.core.v1.PodList": list("Pod"),
  "io.k8s.api.core.v1.PodTemplateSpec": {
    description: "The pod a workload controller (a StatefulSet, for example) makes its pods from: their metadata and their spec.",
    fields: {
      metadata: "Labels and annotations every made pod gets; the labels have to match the owner's selector.",
      spec: "The spec every made pod gets.",
    },
  },
  "io.k8s.api.core.v1.PodSpec": {
    description: "The desired state of a pod. Apart from a few fields (container images, activeDeadlineSeconds, tolerations added, scheduling gates removed), it cannot be changed once the pod exists.",
    fields: {
      containers: "The containers of the pod, at least one. Each needs a name unique in the pod. None can be added or removed after creation.",
      initContainers:
        "Containers run one after another before the regular ones start, each to completion; a failing one is retried as restartPolicy says. An init container with `restartPolicy: Always` is a sidecar instead: it starts in order and keeps running beside the regular containers.",
      ephemeralContainers: "Containers added to a running pod for troubleshooting (`kubectl debug`), through the pod's ephemeralcontainers subresource; they cannot be given on create.",
      volumes: "The volumes the containers can mount, each with a name unique in the pod.",
      restartPolicy: {
        description:
          "When the kubelet restarts the pod's containers after they exit: `Always` (the default, and the only value a StatefulSet's template may have), `OnFailure` (only after a non-zero exit) or `Never`.",
        enum: ["Always", "Never", "OnFailure"],
      },
      terminationGracePeriodSeconds:
        "How long (seconds, int64) the containers get between the stop signal and being killed when the pod is deleted. Defaults to 30; 0 kills at once. A delete's own grace period overrides it. The simulator's kubelet shortens it to its termination delay.",
      activeDeadlineSeconds: "How long (seconds, int64) the pod may run after it started before the kubelet fails it and kills its containers.",
      dnsPolicy: {
        description:
          "How the pod's DNS resolver is set up. `ClusterFirst` (the default) uses the cluster DNS and falls back to the node's; `ClusterFirstWithHostNet` does the same for pods on the host network; `Default` inherits the node's; `None` uses only dnsConfig.",
        enum: ["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"],
      },
      dnsConfig: "Nameservers, search domains and resolver options added to what dnsPolicy gives (all of the resolver setup with `None`).",
      nodeSelector: "Labels a node must have for the pod to be scheduled onto it.",
      nodeName:
        "The node the pod is bound to. The scheduler sets it; a pod created with it set skips the scheduler and goes straight to that node's kubelet, so it is not a way to express a preference (use affinity).",
      affinity: "Node affinity, and pod affinity and anti-affinity (for example, to spread a StatefulSet's replicas over nodes or zones).",
      tolerations: "The taints of nodes this pod tolerates: a pod is only scheduled to, or kept on, a tainted node when it tolerates the taint.",
      topologySpreadConstraints: "How evenly the scheduler has to spread matching pods across topology domains such as zones or nodes.",
      schedulerName: "The scheduler that schedules the pod. Defaults to `default-scheduler`.",
      priorityClassName: "The PriorityClass whose value becomes the pod's priority; without one the default class, or 0.",
      priority: "The pod's priority (int32), filled in from priorityClassName on create; higher-priority pods may preempt lower ones.",
      preemptionPolicy: {
        description: "Whether the pod may preempt lower-priority pods to be scheduled: `PreemptLowerPriority` (the default) or `Never`.",
        enum: ["Never", "PreemptLowerPriority"],
      },
      serviceAccountName: "The ServiceAccount the pod runs as, in its namespace. Defaults to `default`.",
      serviceAccount: "Deprecated alias of serviceAccountName.",
      automountServiceAccountToken: "Whether the service account's API token is mounted into the containers. Unset, the ServiceAccount decides (true by default).",
      hostname:
        "The pod's host name. Defaults to the pod's name, which is how a StatefulSet's pods are named `<set>-<ordinal>` inside the container too.",
      hostnameOverride: "A host name that replaces what hostname and subdomain give, without changing the pod's DNS records (feature gate HostnameOverride).",
      subdomain:
        "With a headless Service of this name in the namespace, the pod gets the DNS name `<hostname>.<subdomain>.<namespace>.svc.<cluster domain>`; a StatefulSet sets it to its serviceName.",
      setHostnameAsFQDN: "Whether the host name inside the containers is the fully qualified name instead of the short one. Defaults to false.",
      hostAliases: "Entries added to the containers' /etc/hosts.",
      hostNetwork: "Whether the pod uses the node's network namespace (its IP addresses and ports) instead of its own. Defaults to false.",
      hostPID: "Whether the containers see the node's process namespace. Defaults to false.",
      hostIPC: "Whether the containers use the node's IPC namespace. Defaults to false.",
      hostUsers: "Whether the pod runs in the node's user namespace (true, the default) or in a user namespace of its own, where root in the container is not root on the node.",
      shareProcessNamespace: "Whether the pod's containers share one process namespace, so they see and can signal each other's processes. Defaults to false.",
      securityContext: "Security settings for the whole pod (user and group IDs, fsGroup, seccomp, sysctls); a container's own securityContext overrides them for that container.",
      imagePullSecrets: "Secrets in the pod's namespace with registry credentials for pulling the images.",
      readinessGates: "Extra pod conditions that must also be True for the pod to count as Ready.",
      runtimeClassName: "The RuntimeClass that selects the container runtime handler for the pod; unset, the node's default.",
      overhead: "Resources the runtime itself needs for the pod, added to the containers' for scheduling and quota; set from the RuntimeClass on create.",
      enableServiceLinks: "Whether the containers get environment variables describing the Services of the namespace (Docker links style). Defaults to true.",
      os: "The operating system the pod needs (`linux` or `windows`); validation then rejects settings that do not apply to it.",
      schedulingGates: "While this list is not empty the pod is not scheduled (it stays `SchedulingGated`). Gates can be removed, not added, after creation.",
      schedulingGroup: "The group (a PodGroup) the pod is scheduled with, for schedulers that place a group's pods together (feature gate GenericWorkload).",
      resourceClaims: "ResourceClaims (dynamic resource allocation) that must be allocated before the pod starts; containers use them by name.",
      resources: "Requests and limits for the pod as a whole, shared by its containers, instead of or on top of the containers' own (pod-level resources).",
    },
  },
  "io.k8s.api.core.v1.Container": {
    description: "One container of a pod: the image it runs, how it is started, its ports, environment, resources, volume mounts and health checks.",
    fields: {
      name: "The container's name, a DNS label unique in the pod. Fixed once the pod exists.",
      image:
        "The image to run, as a registry reference (`registry.example/app:1.0`, or a digest). Optional so that a workload controller's template can leave it to be filled in, but a pod needs one to start. Changing the image of a StatefulSet's template rolls the set.",
      command: "The entrypoint, replacing the image's ENTRYPOINT; not run in a shell. `$(VAR)` expands to an environment variable of the container, `$$` is a literal `$`.",
      args: "The arguments to the entrypoint, replacing the image's CMD; `$(VAR)` is expanded as in command.",
      workingDir: "The working directory; unset, the image's.",
      ports:
        "Ports the container listens on. Listing them is informational (a container can listen on any port), but it gives ports names that Services and probes can refer to.",
      env: "Environment variables, set in the order given; a value may refer to earlier ones with `$(NAME)`.",
      envFrom: "ConfigMaps and Secrets all of whose keys become environment variables; a variable in env with the same name wins.",
      resources:
        "The compute resources the container asks for (requests: what the scheduler reserves) and may use at most (limits: enforced by the node). A request defaults to the limit when only the limit is given.",
      resizePolicy: "What happens when the container's resources are changed in place: restart the container or not, per resource.",
      restartPolicy:
        "Only for init containers: `Always` makes the init container a sidecar that keeps running next to the regular containers and is restarted whenever it exits. Unset, the pod's restartPolicy applies.",
      restartPolicyRules: "Rules, checked in order, that decide by exit code whether the container is restarted after it exits; the first that matches wins, otherwise restartPolicy applies.",
      volumeMounts: "Where the pod's volumes (and a StatefulSet's claim templates, by name) appear in the container's file system.",
      volumeDevices: "Block-mode volumes given to the container as raw devices.",
      livenessProbe: "A check that the container still works; when it fails failureThreshold times in a row, the kubelet restarts the container.",
      readinessProbe:
        "A check that the container can take traffic; while it fails, the container is not ready, so the pod is not Ready and is left out of Service endpoints. For a StatefulSet with OrderedReady management this also holds the next pod back.",
      startupProbe: "A check that the container has finished starting; the other probes wait until it succeeds, and failing failureThreshold times restarts the container. The simulator passes it once its initialDelaySeconds are over.",
      lifecycle: "Actions the kubelet runs right after the container starts and right before it is stopped.",
      terminationMessagePath: "The file in the container whose content becomes the termination message in its status. Defaults to `/dev/termination-log`.",
      terminationMessagePolicy: {
        description: "Where the termination message comes from: `File` (the default, from terminationMessagePath) or `FallbackToLogsOnError` (the end of the log when that file is empty and the container failed).",
        enum: ["FallbackToLogsOnError", "File"],
      },
      imagePullPolicy: {
        description: "When the image is pulled: `Always`, `IfNotPresent` or `Never`. Defaults to `Always` for a `:latest` or untagged image and to `IfNotPresent` otherwise.",
        enum: ["Always", "IfNotPresent", "Never"],
      },
      securityContext: "Security settings for this container (user, privileges, capabilities, read-only root file system); they override the pod's.",
      stdin: "Whether the container keeps a stdin open for attach. Defaults to false.",
      stdinOnce: "Whether stdin is closed after the first attached client disconnects. Defaults to false.",
      tty: "Whether the container gets a terminal; needs stdin. Defaults to false.",
    },
  },
  "io.k8s.api.core.v1.ContainerPort": {
    description: "A port a container listens on.",
    fields: {
      containerPort: "The port number in the pod's network namespace (int32, 1-65535).",
      name: "A name for the port (an IANA service name: at most 15 characters, lower case letters, digits and `-`), unique in the pod; Services and probes can use it instead of the number.",
      protocol: { description: "The protocol: `TCP` (the default), `UDP` or `SCTP`.", enum: ["SCTP", "TCP", "UDP"] },
      hostPort: "A port on the node forwarded to this one (int32). Rarely needed; it limits where the pod can be scheduled.",
      hostIP: "The node address hostPort binds to.",
    },
  },
  "io.k8s.api.core.v1.EnvVar": {
    description: "One environment variable of a container.",
    fields: {
      name: "The variable's name.",
      value: "The value. `$(NAME)` expands to a variable defined earlier in the list and `$$` is a literal `$`; an unknown reference stays as written. Defaults to the empty string.",
      valueFrom: "Where to read the value from instead (a ConfigMap or Secret key, a field of the pod, a resource of the container); not together with value.",
    },
  },
  "io.k8s.api.core.v1.EnvVarSource": {
    description: "Where an environment variable's value comes from; exactly one of the fields.",
    fields: {
      fieldRef: "A field of the pod: `metadata.name`, `metadata.namespace`, `metadata.uid`, a label or annotation, `spec.nodeName`, `status.podIP` and a few more. A StatefulSet's pods often use `metadata.name` to learn their ordinal.",
      resourceFieldRef: "A request or limit of a container, such as `limits.memory`.",
      configMapKeyRef: "A key of a ConfigMap in the pod's namespace.",
      secretKeyRef: "A key of a Secret in the pod's namespace.",
      fileKeyRef: "A key read from a file of key/value lines in one of the pod's emptyDir volumes.",
    },
  },
  "io.k8s.api.core.v1.EnvFromSource": {
    description: "A source of several environment variables at once.",
    fields: {
      prefix: "A prefix put before each key to make the variable's name.",
      configMapRef: "A ConfigMap whose keys become variables.",
      secretRef: "A Secret whose keys become variables.",
    },
  },
  "io.k8s.api.core.v1.ResourceRequirements": {
    description: "Compute resources of a container (or of a whole pod): what it is guaranteed and what it may use at most.",
    fields: {
      requests: `The amounts the scheduler reserves on the node and the pod is guaranteed. ${QUANTITIES} Defaults to the limits when only those are given.`,
      limits: `The most the container may use. Going over a memory limit gets the container killed (OOMKilled); a CPU limit throttles. ${QUANTITIES}`,
      claims: "Names of the pod's resourceClaims this container uses.",
    },
  },
  "io.k8s.api.core.v1.Probe": {
    description: "A health check the kubelet runs against a container: an HTTP GET, a TCP connect, a gRPC health check or a command, with its timing. Set exactly one action.",
    fields: {
      httpGet: "An HTTP GET; a status from 200 to 399 is a success.",
      tcpSocket: "A TCP connection attempt; connecting is a success.",
      grpc: "A call to the gRPC health checking service; SERVING is a success.",
      exec: "A command run in the container; exit code 0 is a success.",
      initialDelaySeconds: "How long (seconds, int32) after the container started the first check waits. Defaults to 0.",
      periodSeconds: "How often (seconds, int32) the check runs. Defaults to 10; at least 1.",
      timeoutSeconds: "How long (seconds, int32) one check may take before it counts as failed. Defaults to 1; at least 1.",
      successThreshold: "How many checks in a row (int32) must succeed after a failure to count as passing again. Defaults to 1, and must be 1 for liveness and startup probes.",
      failureThreshold: "How many checks in a row (int32) must fail to count as failing. Defaults to 3.",
      terminationGracePeriodSeconds: "For liveness and startup probes: the grace period (seconds, int64) a container killed for failing the probe gets, instead of the pod's.",
    },
  },
  "io.k8s.api.core.v1.HTTPGetAction": {
    description: "An HTTP GET request a probe or lifecycle hook sends.",
    fields: {
      port: "The port: a number, or the name of one of the container's ports.",
      path: "The request path.",
      host: "The host to connect to; defaults to the pod's IP. To set the Host header, use httpHeaders.",
      scheme: { description: "`HTTP` (the default) or `HTTPS` (certificates are not verified).", enum: ["HTTP", "HTTPS"] },
      httpHeaders: "Extra request headers.",
    },
  },
  "io.k8s.api.core.v1.TCPSocketAction": {
    description: "A TCP connection attempt a probe makes.",
    fields: {
      port: "The port: a number, or the name of one of the container's ports.",
      host: "The host to connect to; defaults to the pod's IP.",
    },
  },
  "io.k8s.api.core.v1.GRPCAction": {
    description: "A gRPC health check a probe makes (the standard grpc.health.v1 service).",
    fields: {
      port: "The port number (int32) of the gRPC server.",
      service: "The service name sent in the health check request; empty asks about the server as a whole.",
    },
  },
  "io.k8s.api.core.v1.ExecAction": {
    description: "A command run inside the container.",
    fields: {
      command: "The command and its arguments. It is run directly, not in a shell: use `[\"sh\", \"-c\", \"...\"]` for shell syntax. Exit code 0 is a success.",
    },
  },
  "io.k8s.api.core.v1.Lifecycle": {
    description: "Actions the kubelet takes at a container's start and stop.",
    fields: {
      postStart: "Run right after the container is created; the container is not running until it returns, and a failure kills the container.",
      preStop: "Run before the container is sent its stop signal when it is stopped (pod deletion, a failed liveness probe); it counts against the grace period.",
      stopSignal: "The signal sent to stop the container instead of the image's STOPSIGNAL or SIGTERM; needs spec.os.name to be set.",
    },
  },
  "io.k8s.api.core.v1.LifecycleHandler": {
    description: "One lifecycle action; set exactly one of its fields.",
    fields: {
      exec: "Run a command in the container.",
      httpGet: "Send an HTTP GET.",
      tcpSocket: "Deprecated; kept for compatibility and not run as a lifecycle action.",
      sleep: "Wait for a number of seconds.",
    },
  },
  "io.k8s.api.core.v1.VolumeMount": {
    description: "Where a volume appears in a container.",
    fields: {
      name: "The name of a pod volume or, in a StatefulSet's template, of a volume claim template.",
      mountPath: "The absolute path in the container; it must not contain `:`.",
      readOnly: "Whether the mount is read only. Defaults to false.",
      subPath: "A path inside the volume to mount instead of its root. Defaults to the root.",
      subPathExpr: "Like subPath, with `$(VAR)` expanded from the container's environment (for example, the pod's name); not together with subPath.",
      mountPropagation: {
        description: "Whether mounts made later propagate between the node and the container: `None` (the default), `HostToContainer` or `Bidirectional` (privileged containers only).",
        enum: ["Bidirectional", "HostToContainer", "None"],
      },
      recursiveReadOnly: "Whether a read-only mount is read only in its sub-mounts as well: `Disabled` (the default), `IfPossible` or `Enabled`.",
    },
  },
  "io.k8s.api.core.v1.Volume": {
    description: "A named volume of a pod, and where its data comes from: set the name and exactly one source.",
    fields: {
      name: "The volume's name, a DNS label unique in the pod; volumeMounts refer to it.",
      persistentVolumeClaim: "A PersistentVolumeClaim in the pod's namespace. A StatefulSet adds these itself for its volumeClaimTemplates.",
      configMap: "The keys of a ConfigMap as files.",
      secret: "The keys of a Secret as files.",
      emptyDir: "An empty directory that lives as long as the pod, on the node's disk or in memory.",
      hostPath: "A file or directory of the node. Ties the pod to the node's content and is a security risk; meant for system agents.",
      projected: "Several sources (ConfigMaps, Secrets, downward API, service account tokens) merged into one directory.",
      downwardAPI: "Fields of the pod (labels, annotations, name, resources) as files.",
      csi: "An inline volume of a CSI driver that supports ephemeral volumes.",
      ephemeral: "A volume backed by a PersistentVolumeClaim made for this pod from a template and deleted with it.",
      image: "The content of an OCI image or artifact, read only.",
      awsElasticBlockStore: LEGACY_VOLUME,
      azureDisk: LEGACY_VOLUME,
      azureFile: LEGACY_VOLUME,
      cephfs: LEGACY_VOLUME,
      cinder: LEGACY_VOLUME,
      fc: "A Fibre Channel disk attached to the node.",
      flexVolume: "A volume of a FlexVolume driver installed on the node (deprecated; use CSI).",
      flocker: LEGACY_VOLUME,
      gcePersistentDisk: LEGACY_VOLUME,
      gitRepo: "Deprecated: a directory cloned from a git repository. Use an init container that clones into an emptyDir.",
      glusterfs: LEGACY_VOLUME,
      iscsi: "An iSCSI disk attached to the node.",
      nfs: "An NFS share mounted on the node.",
      photonPersistentDisk: LEGACY_VOLUME,
      portworxVolume: LEGACY_VOLUME,
      quobyte: LEGACY_VOLUME,
      rbd: LEGACY_VOLUME,
      scaleIO: LEGACY_VOLUME,
      storageos: LEGACY_VOLUME,
      vsphereVolume: LEGACY_VOLUME,
    },
  },
  "io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource": {
    description: "A volume that mounts what a PersistentVolumeClaim is bound to.",
    fields: {
      claimName: "The claim's name, in the pod's namespace. The pod waits until the claim is bound.",
      readOnly: "Whether the volume is mounted read only. Defaults to false.",
    },
  },
  "io.k8s.api.core.v1.ConfigMapVolumeSource": {
    description: "A volume whose files are the keys of a ConfigMap; the kubelet updates them when the ConfigMap changes (except for subPath mounts).",
    fields: {
      name: "The ConfigMap's name, in the pod's namespace.",
      items: "Which keys to project and to which paths; unset, every key becomes a file of its name.",
      defaultMode: "The permission bits of the files (int32, for example 0644 in octal, 420 in JSON). Defaults to 0644.",
      optional: "Whether the pod may start without the ConfigMap (or the listed keys). Defaults to false.",
    },
  },
  "io.k8s.api.core.v1.SecretVolumeSource": {
    description: "A volume whose files are the keys of a Secret.",
    fields: {
      secretName: "The Secret's name, in the pod's namespace.",
      items: "Which keys to project and to which paths; unset, every key becomes a file of its name.",
      defaultMode: "The permission bits of the files (int32). Defaults to 0644.",
      optional: "Whether the pod may start without the Secret (or the listed keys). Defaults to false.",
    },
  },
  "io.k8s.api.core.v1.KeyToPath": {
    description: "One key of a ConfigMap or Secret and the file it becomes.",
    fields: {
      key: "The key.",
      path: "The relative path of the file in the volume; it may not contain `..`.",
      mode: "The permission bits of this file (int32); defaults to the volume's defaultMode.",
    },
  },
  "io.k8s.api.core.v1.EmptyDirVolumeSource": {
    description: "A scratch directory that starts empty when the pod is scheduled to a node and is removed with the pod.",
    fields: {
      medium: "Where the data lives: empty for the node's default storage, `Memory` for a tmpfs (which counts against the container's memory).",
      sizeLimit: "The most the volume may hold (a quantity such as `1Gi`); a pod over it is evicted.",
    },
  },
  "io.k8s.api.core.v1.HostPathVolumeSource": {
    description: "A path on the node mounted into the pod.",
    fields: {
      path: "The path on the node.",
      type: "What must be there: empty (no check), `DirectoryOrCreate`, `Directory`, `FileOrCreate`, `File`, `Socket`, `CharDevice` or `BlockDevice`.",
    },
  },
  "io.k8s.api.core.v1.Toleration": {
    description: "Lets a pod be scheduled onto, or stay on, nodes with a matching taint.",
    fields: {
      key: "The taint key to match; empty with operator `Exists` matches every taint.",
      operator: { description: "`Equal` (the default) matches a taint with the same value; `Exists` matches any value.", enum: ["Equal", "Exists"] },
      value: "The taint value to match with `Equal`.",
      effect: { description: "The taint effect to match; empty matches all effects.", enum: ["NoExecute", "NoSchedule", "PreferNoSchedule"] },
      tolerationSeconds: "For `NoExecute` taints: how long (seconds, int64) the pod may stay after the taint appears before it is evicted. Unset, it stays for good.",
    },
  },
  "io.k8s.api.core.v1.PodStatus": {
    description: "What the kubelet and the scheduler last reported about a pod. It may trail reality.",
    fields: {
      phase: {
        description:
          "Where the pod is in its life: `Pending` (accepted, not all containers started yet, which includes scheduling and image pulls), `Running` (bound to a node, containers started), `Succeeded` or `Failed` (all containers terminated, for good), `Unknown` (no longer set by current kubelets). A terminating pod keeps its phase; see metadata.deletionTimestamp.",
        enum: ["Failed", "Pending", "Running", "Succeeded", "Unknown"],
      },
      conditions: "Conditions of the pod: PodScheduled, PodReadyToStartContainers, Initialized, ContainersReady and Ready, plus readiness gates and DisruptionTarget.",
      message: "A human-readable explanation of the pod's state.",
      reason: "A short CamelCase reason for the pod's state, such as `Evicted`.",
      nominatedNodeName: "The node the scheduler preempted pods on to make room for this pod; scheduling there is not guaranteed.",
      hostIP: "The primary IP address of the node the pod runs on.",
      hostIPs: "All IP addresses of the node; the first equals hostIP.",
      podIP: "The pod's primary IP address; empty until the pod has one.",
      podIPs: "All IP addresses of the pod (one per address family); the first equals podIP.",
      startTime: "When the kubelet accepted the pod, before images were pulled (RFC 3339).",
      initContainerStatuses: "The state of each init container, in spec order.",
      containerStatuses: "The state of each regular container.",
      ephemeralContainerStatuses: "The state of each ephemeral container.",
      qosClass: {
        description:
          "The quality-of-service class, derived from the resources: `Guaranteed` (every container has equal requests and limits for CPU and memory), `Burstable` (some requests or limits) or `BestEffort` (none). It decides which pods the node evicts first under pressure.",
        enum: ["BestEffort", "Burstable", "Guaranteed"],
      },
      resize: "Deprecated: the state of an in-place resource resize. The PodResizePending and PodResizeInProgress conditions replace it.",
      resourceClaimStatuses: "The names of the ResourceClaims made for the pod's resourceClaims.",
      extendedResourceClaimStatus: "The ResourceClaim made to satisfy the pod's extended-resource requests through dynamic resource allocation.",
      nodeAllocatableResourceClaimStatuses: "Node-allocatable resources (CPU, memory, hugepages and the like) allocated to the pod through dynamic resource allocation claims.",
      allocatedResources: "The requests the node has allocated for the pod in total.",
      resources: "The pod-level resources the node has applied.",
      observedGeneration: "The metadata.generation of the pod this status was written for (int64).",
    },
  },
  "io.k8s.api.core.v1.PodCondition": {
    description: "One aspect of a pod's state.",
    fields: {
      type: "Which aspect: `PodScheduled`, `PodReadyToStartContainers`, `Initialized`, `ContainersReady`, `Ready`, `DisruptionTarget`, a readiness gate's type, and others.",
      status: CONDITION_STATUS,
      lastProbeTime: "When the condition was last checked.",
      lastTransitionTime: TRANSITION,
      reason: REASON,
      message: MESSAGE,
      observedGeneration: "The metadata.generation of the pod the condition was written for (int64).",
    },
  },
  "io.k8s.api.core.v1.ContainerStatus": {
    description: "The state of one container of a pod, as the kubelet reports it.",
    fields: {
      name: "The container's name, as in the spec.",
      state: "What the container is doing now: waiting, running or terminated.",
      lastState: "How the container's previous run ended, if it was restarted.",
      ready: "Whether the container passes its readiness probe (without one, whether it is running). A pod is Ready when all its containers are.",
      started: "Whether the container has passed its startup probe (without one, whether it has started).",
      restartCount: "How many times the container was restarted (int32).",
      image: "The image the container runs, as the runtime reports it.",
      imageID: "The image's ID, usually its digest.",
      containerID: "The runtime's ID of the container, `<runtime>://<id>`.",
      allocatedResources: "The resources the node has allocated to the container.",
      allocatedResourcesStatus: "The health of resources (devices) allocated to the container.",
      resources: "The requests and limits the runtime has actually applied to the running container.",
      volumeMounts: "The mounts of the running container.",
      user: "The user and group identities the container's first process runs with.",
      stopSignal: "The signal that stops the container, from its lifecycle or its image.",
    },
  },
  "io.k8s.api.core.v1.ContainerState": {
    description: "A container's state; exactly one of the fields is set (waiting, when none is).",
    fields: {
      waiting: "The container has not started (yet or again).",
      running: "The container is running.",
      terminated: "The container ran and exited.",
    },
  },
  "io.k8s.api.core.v1.ContainerStateWaiting": {
    description: "A container that is not running yet, and why.",
    fields: {
      reason: "Why: `ContainerCreating`, `PodInitializing`, `ErrImagePull`, `ImagePullBackOff`, `InvalidImageName`, `CrashLoopBackOff` and others.",
      message: "Details of why the container is waiting.",
    },
  },
  "io.k8s.api.core.v1.ContainerStateRunning": {
    description: "A running container.",
    fields: { startedAt: "When the container (last) started." },
  },
  "io.k8s.api.core.v1.ContainerStateTerminated": {
    description: "A container that exited.",
    fields: {
      exitCode: "The exit code of its last process (int32).",
      signal: "The signal that ended it, if one did (int32).",
      reason: "A short reason, such as `Completed`, `Error` or `OOMKilled`.",
      message: "Details, such as the termination message.",
      startedAt: "When the run started.",
      finishedAt: "When it ended.",
      containerID: "The runtime's ID of the container that ran.",
    },
  },

  // ---- PersistentVolumeClaim and PersistentVolume ----
  "io.k8s.api.core.v1.PersistentVolumeClaim": {
    description:
      "A request for storage in a namespace: how much, with which access modes and storage class. Once bound to a PersistentVolume, pods mount it by the claim's name. A StatefulSet makes one per pod and claim template, named `<template>-<set>-<ordinal>`, and they outlive the pods.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "What storage is asked for.",
      status: "Whether the claim is bound, and what it got.",
    },
  },
  "io.k8s.api.core.v1.PersistentVolumeClaimList": list("PersistentVolumeClaim"),
  "io.k8s.api.core.v1.PersistentVolumeClaimSpec": {
    description: "The storage a claim asks for. Apart from growing resources.requests.storage (and volumeAttributesClassName), it is fixed once the claim exists.",
    fields: {
      accessModes:
        "How the volume may be mounted: `ReadWriteOnce` (read-write by one node), `ReadOnlyMany`, `ReadWriteMany`, or `ReadWriteOncePod` (read-write by one pod). The volume has to support every mode listed.",
      resources: "How much storage the claim needs: `requests.storage` (required). It can be raised later to grow the volume when the storage class allows expansion; it cannot shrink.",
      storageClassName:
        "The StorageClass to provision from or bind within. Unset, the cluster's default class is used; the empty string asks for a volume without a class. The simulator's binder provisions a new volume whatever the class.",
      volumeMode: { description: "`Filesystem` (the default: mounted as a directory) or `Block` (a raw device, for volumeDevices).", enum: ["Block", "Filesystem"] },
      volumeName: "The PersistentVolume to bind to; set by the binder, or given to ask for one volume in particular.",
      selector: "A label query over existing volumes that may be bound to the claim.",
      dataSource: "An existing VolumeSnapshot or PersistentVolumeClaim to fill the new volume from.",
      dataSourceRef: "Like dataSource, but may also name a populator's custom resource, in another namespace when a ReferenceGrant allows it.",
      volumeAttributesClassName: "The VolumeAttributesClass (performance attributes such as IOPS) the volume should have; it can be changed later.",
    },
  },
  "io.k8s.api.core.v1.PersistentVolumeClaimStatus": {
    description: "The state of a claim.",
    fields: {
      phase: { description: "`Pending` (not bound yet), `Bound`, or `Lost` (its volume is gone).", enum: ["Bound", "Lost", "Pending"] },
      accessModes: "The access modes of the bound volume.",
      capacity: "The size of the bound volume (`storage`), which can exceed the request.",
      conditions: "Conditions of the claim, such as `Resizing` and `FileSystemResizePending` during an expansion.",
      allocatedResources: "The storage the resize controller is working towards; it can be above capacity during an expansion.",
      allocatedResourceStatuses: "Per resource, where an expansion stands (controller or node resize in progress, pending, infeasible).",
      currentVolumeAttributesClassName: "The VolumeAttributesClass the volume has now.",
      modifyVolumeStatus: "Where a change of the volume's attributes class stands.",
    },
  },
  "io.k8s.api.core.v1.PersistentVolumeClaimCondition": {
    description: "One aspect of a claim's state.",
    fields: {
      type: "Which aspect, such as `Resizing`, `FileSystemResizePending` or `ModifyingVolume`.",
      status: CONDITION_STATUS,
      lastProbeTime: "When the condition was last checked.",
      lastTransitionTime: TRANSITION,
      reason: REASON,
      message: MESSAGE,
    },
  },
  "io.k8s.api.core.v1.VolumeResourceRequirements": {
    description: "The storage a claim asks for.",
    fields: {
      requests: "The storage needed, `storage` to a quantity such as `10Gi`.",
      limits: "The most storage the volume may have; rarely used.",
    },
  },
  "io.k8s.api.core.v1.PersistentVolume": {
    description:
      "A piece of storage in the cluster, made by an administrator or provisioned for a claim. It is cluster-scoped and bound to at most one claim; what happens to it when the claim goes is its reclaim policy.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "The volume's capacity, access modes, backing storage and the claim it is bound to.",
      status: "The volume's phase in its life cycle.",
    },
  },
  "io.k8s.api.core.v1.PersistentVolumeList": list("PersistentVolume"),
  "io.k8s.api.core.v1.PersistentVolumeSpec": {
    description: "A volume's properties and its backing storage (set exactly one source, usually csi).",
    fields: {
      capacity: "The volume's size, `storage` to a quantity.",
      accessModes: "The access modes the volume supports.",
      claimRef: "The claim the volume is bound to; setting it in advance reserves the volume for that claim.",
      persistentVolumeReclaimPolicy: {
        description: "What happens when the bound claim is deleted: `Retain` (keep the volume and its data, the default for volumes made by hand), `Delete` (delete it, the default for provisioned volumes) or the deprecated `Recycle`.",
        enum: ["Delete", "Recycle", "Retain"],
      },
      storageClassName: "The StorageClass the volume belongs to; only claims of that class bind to it.",
      volumeMode: { description: "`Filesystem` (the default) or `Block`.", enum: ["Block", "Filesystem"] },
      mountOptions: "Mount options used when the volume is mounted on a node.",
      nodeAffinity: "The nodes the volume can be used from; pods using it are scheduled accordingly.",
      volumeAttributesClassName: "The VolumeAttributesClass of the volume.",
      csi: "Storage of a CSI driver.",
      hostPath: "A directory of a single node; for development and tests only.",
      local: "A disk or directory of one node, with nodeAffinity saying which.",
      nfs: "An NFS share.",
      iscsi: "An iSCSI disk.",
      fc: "A Fibre Channel disk.",
      flexVolume: "A FlexVolume driver's volume (deprecated; use CSI).",
      awsElasticBlockStore: LEGACY_VOLUME,
      azureDisk: LEGACY_VOLUME,
      azureFile: LEGACY_VOLUME,
      cephfs: LEGACY_VOLUME,
      cinder: LEGACY_VOLUME,
      flocker: LEGACY_VOLUME,
      gcePersistentDisk: LEGACY_VOLUME,
      glusterfs: LEGACY_VOLUME,
      photonPersistentDisk: LEGACY_VOLUME,
      portworxVolume: LEGACY_VOLUME,
      quobyte: LEGACY_VOLUME,
      rbd: LEGACY_VOLUME,
      scaleIO: LEGACY_VOLUME,
      storageos: LEGACY_VOLUME,
      vsphereVolume: LEGACY_VOLUME,
    },
  },
  "io.k8s.api.core.v1.PersistentVolumeStatus": {
    description: "Where a volume is in its life cycle.",
    fields: {
      phase: {
        description: "`Pending`, `Available` (not bound), `Bound`, `Released` (its claim was deleted, the volume not reclaimed yet) or `Failed` (automatic reclamation failed).",
        enum: ["Available", "Bound", "Failed", "Pending", "Released"],
      },
      message: "A human-readable explanation of the phase.",
      reason: "A short CamelCase reason for the phase.",
      lastPhaseTransitionTime: "When the phase last changed.",
    },
  },

  // ---- Namespace, ConfigMap ----
  "io.k8s.api.core.v1.Namespace": {
    description:
      "A namespace scopes the names of namespaced objects and is the unit of access control and quota. Deleting one deletes everything in it first; it stays `Terminating` until that is done.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "The namespace's finalizers.",
      status: "Whether the namespace is active or being deleted.",
    },
  },
  "io.k8s.api.core.v1.NamespaceList": list("Namespace"),
  "io.k8s.api.core.v1.NamespaceSpec": {
    description: "The desired state of a namespace.",
    fields: {
      finalizers: "Names that must be removed before the namespace is deleted; `kubernetes` stands for deleting its content. Changed through the finalize subresource.",
    },
  },
  "io.k8s.api.core.v1.NamespaceStatus": {
    description: "The state of a namespace.",
    fields: {
      phase: { description: "`Active`, or `Terminating` once deletion has started (no new objects can be created in it then).", enum: ["Active", "Terminating"] },
      conditions: "Conditions of a deletion in progress, such as content that could not be deleted yet.",
    },
  },
  "io.k8s.api.core.v1.NamespaceCondition": {
    description: "One aspect of a namespace's deletion.",
    fields: {
      type: "Which aspect, such as `NamespaceDeletionContentFailure` or `NamespaceContentRemaining`.",
      status: CONDITION_STATUS,
      lastTransitionTime: TRANSITION,
      reason: REASON,
      message: MESSAGE,
    },
  },
  "io.k8s.api.core.v1.ConfigMap": {
    description: "Configuration data for pods as key/value pairs, consumed as environment variables, command arguments or files in a volume. At most 1 MiB in all.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      data: "UTF-8 values by key. Keys consist of letters, digits, `-`, `_` and `.`, and may not also appear in binaryData.",
      binaryData: "Binary values by key, base64-encoded in JSON.",
      immutable: "When true, data and binaryData can no longer be changed (only deleting the ConfigMap helps), which also spares the kubelets from watching it. Unset means false.",
    },
  },
  "io.k8s.api.core.v1.ConfigMapList": list("ConfigMap"),
  "io.k8s.api.core.v1.ConfigMapKeySelector": {
    description: "One key of a ConfigMap.",
    fields: {
      name: "The ConfigMap's name, in the pod's namespace.",
      key: "The key.",
      optional: "Whether the pod may start when the ConfigMap or key is missing. Defaults to false.",
    },
  },
  "io.k8s.api.core.v1.ObjectFieldSelector": {
    description: "A field of the pod, for the downward API.",
    fields: {
      fieldPath: "The field's path, such as `metadata.name` or `metadata.labels['app']`.",
      apiVersion: "The version the path is written in. Defaults to `v1`.",
    },
  },

  // ---- Service ----
  "io.k8s.api.core.v1.Service": {
    description:
      "A stable name and address for a set of pods chosen by a label selector, with ports that forward to theirs. A StatefulSet needs a headless one (clusterIP `None`) to give its pods their DNS names.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "The Service's selector, ports and type.",
      status: "The load balancer the Service got, if any.",
    },
  },
  "io.k8s.api.core.v1.ServiceList": list("Service"),
  "io.k8s.api.core.v1.ServiceSpec": {
    description: "How a Service selects pods and exposes them.",
    fields: {
      selector: "Labels of the pods that back the Service; their ready addresses become its endpoints. Without a selector, endpoints are managed by hand.",
      ports: "The ports the Service exposes and the pod ports they lead to.",
      type: {
        description: "`ClusterIP` (the default: a virtual IP inside the cluster), `NodePort` (also a port on every node), `LoadBalancer` (also an external load balancer) or `ExternalName` (a DNS alias to externalName).",
        enum: ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"],
      },
      clusterIP: "The virtual IP. Assigned from the service range when unset; `None` makes a headless Service, whose DNS name resolves to the pods themselves. Fixed once set.",
      clusterIPs: "The virtual IPs, one per IP family; the first equals clusterIP.",
      publishNotReadyAddresses:
        "Whether pods that are not ready are published in DNS and endpoints too. StatefulSets often set it on the headless Service so that peers can find each other while starting.",
      sessionAffinity: { description: "`None` (the default) or `ClientIP`: connections from one client go to the same pod.", enum: ["ClientIP", "None"] },
      sessionAffinityConfig: "How long ClientIP affinity lasts.",
      externalName: "The DNS name an `ExternalName` Service resolves to (a CNAME).",
      externalIPs: "Extra IPs, not managed by Kubernetes, on which the nodes accept traffic for the Service.",
      externalTrafficPolicy: {
        description: "For NodePort and LoadBalancer traffic: `Cluster` (the default, any node forwards to any pod) or `Local` (only to pods on the receiving node, keeping the client's source IP).",
        enum: ["Cluster", "Local"],
      },
      internalTrafficPolicy: {
        description: "For traffic from inside the cluster: `Cluster` (the default) or `Local` (only to pods on the client's node).",
        enum: ["Cluster", "Local"],
      },
      healthCheckNodePort: "The node port (int32) a load balancer checks for `Local` external traffic policy; allocated when unset.",
      ipFamilies: "The IP families (`IPv4`, `IPv6`) of the Service's cluster IPs, in order.",
      ipFamilyPolicy: {
        description: "`SingleStack` (the default), `PreferDualStack` or `RequireDualStack`.",
        enum: ["PreferDualStack", "RequireDualStack", "SingleStack"],
      },
      loadBalancerIP: "Deprecated: the address asked of the load balancer; providers have their own annotations.",
      loadBalancerSourceRanges: "Client CIDRs a load balancer lets in.",
      loadBalancerClass: "The load balancer implementation to use instead of the cloud provider's default. Fixed once set.",
      allocateLoadBalancerNodePorts: "Whether a LoadBalancer Service gets node ports. Defaults to true.",
      trafficDistribution: "A hint for how traffic is spread over the endpoints, such as `PreferClose` to favour endpoints in the client's zone.",
    },
  },
  "io.k8s.api.core.v1.ServicePort": {
    description: "One port of a Service.",
    fields: {
      name: "The port's name, required when the Service has more than one port; endpoints and DNS SRV records use it.",
      protocol: { description: "`TCP` (the default), `UDP` or `SCTP`.", enum: ["SCTP", "TCP", "UDP"] },
      appProtocol: "The application protocol, for implementations that treat it specially (`http`, `kubernetes.io/h2c`, ...).",
      port: "The port the Service listens on (int32).",
      targetPort: "The pod port traffic goes to: a number, or the name of a container port. Defaults to port.",
      nodePort: "For NodePort and LoadBalancer Services, the port on every node (int32, from the node port range); allocated when unset.",
    },
  },
  "io.k8s.api.core.v1.ServiceStatus": {
    description: "The state of a Service.",
    fields: {
      loadBalancer: "The ingress points of the Service's load balancer, when it has one.",
      conditions: "Conditions of the Service.",
    },
  },

  // ---- Events ----
  "io.k8s.api.core.v1.Event": {
    description:
      "A report of something that happened to an object (a pod scheduled, an image pulled, a probe failing), kept for a limited time (one hour by default). `kubectl describe` and `kubectl events` show them. Repeats are folded into one Event with a count.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      involvedObject: "The object the event is about.",
      reason: "A short CamelCase reason, such as `Scheduled`, `Pulled`, `Created`, `Started`, `Unhealthy` or `SuccessfulCreate`.",
      message: "A human-readable description of what happened.",
      type: "`Normal` or `Warning`.",
      source: "The component (and host) that reported the event; the older form of reportingComponent.",
      firstTimestamp: "When the event was first seen.",
      lastTimestamp: "When the event was last seen.",
      count: "How many times it was seen (int32).",
      eventTime: "When the event was first seen, with microseconds (the events.k8s.io form).",
      series: "For repeated events of the events.k8s.io form: the count and the last time seen.",
      action: "What the reporting component did or failed to do, such as `Binding` or `Scheduling`.",
      related: "A second object involved, if any.",
      reportingComponent: "The controller that reported the event, such as `kubelet` or `statefulset-controller`.",
      reportingInstance: "Which instance of that controller reported it, such as the node name for a kubelet.",
    },
  },
  "io.k8s.api.core.v1.EventList": list("Event"),
  "io.k8s.api.core.v1.EventSource": {
    description: "The component that reported an event.",
    fields: {
      component: "The component, such as `kubelet` or `default-scheduler`.",
      host: "The node it runs on.",
    },
  },
  "io.k8s.api.core.v1.EventSeries": {
    description: "The repeats of an event.",
    fields: {
      count: "How many times the event has happened so far (int32).",
      lastObservedTime: "When it last happened.",
    },
  },
  "io.k8s.api.core.v1.ObjectReference": {
    description: "A reference to an object, by kind, namespace and name (and optionally uid and resourceVersion).",
    fields: {
      apiVersion: "The group version of the object.",
      kind: "The kind of the object.",
      namespace: "The namespace of the object.",
      name: "The name of the object.",
      uid: "The uid of the object.",
      resourceVersion: "The version of the object referred to.",
      fieldPath: "A part of the object, such as `spec.containers{app}` for one container of a pod.",
    },
  },
  "io.k8s.api.events.v1.Event": {
    description:
      "The events.k8s.io form of an Event: a report of something that happened to an object, with the reporting controller and instance required and repeats counted in series. The simulator stores core/v1 and events.k8s.io Events separately.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      eventTime: "When the event first happened, with microseconds.",
      series: "For a repeated event: the count and the last time seen.",
      reportingController: "The controller that reported the event, such as `kubernetes.io/kubelet`.",
      reportingInstance: "Which instance of that controller reported it.",
      action: "What the controller did or failed to do.",
      reason: "A short CamelCase reason for the action.",
      regarding: "The object the event is about.",
      related: "A second object involved, if any.",
      note: "A human-readable description, at most 1 kB.",
      type: "`Normal` or `Warning`.",
      deprecatedSource: "The source field of the core/v1 form, kept for conversions.",
      deprecatedFirstTimestamp: "The firstTimestamp of the core/v1 form, kept for conversions.",
      deprecatedLastTimestamp: "The lastTimestamp of the core/v1 form, kept for conversions.",
      deprecatedCount: "The count of the core/v1 form, kept for conversions (int32).",
    },
  },
  "io.k8s.api.events.v1.EventList": list("Event"),
  "io.k8s.api.events.v1.EventSeries": {
    description: "The repeats of an event.",
    fields: {
      count: "How many times the event has happened so far (int32).",
      lastObservedTime: "When it last happened.",
    },
  },

  // ---- Node ----
  "io.k8s.api.core.v1.Node": {
    description: "A machine pods run on, registered by its kubelet. The simulator serves one node, which every pod is scheduled to.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "Whether the node takes new pods, its taints and its pod address ranges.",
      status: "What the kubelet reports: capacity, conditions, addresses and versions.",
    },
  },
  "io.k8s.api.core.v1.NodeList": list("Node"),
  "io.k8s.api.core.v1.NodeSpec": {
    description: "The desired state of a node.",
    fields: {
      unschedulable: "Whether new pods are kept off the node (`kubectl cordon` sets it, `kubectl uncordon` clears it); running pods stay. Defaults to false.",
      taints: "Taints that repel pods which do not tolerate them.",
      podCIDR: "The pod IP range assigned to the node.",
      podCIDRs: "The pod IP ranges assigned to the node, one per IP family; the first equals podCIDR.",
      providerID: "The cloud provider's ID of the machine.",
      configSource: "Deprecated: dynamic kubelet configuration, removed from the kubelet.",
      externalID: "Deprecated and unused.",
    },
  },
  "io.k8s.api.core.v1.NodeStatus": {
    description: "The state of a node as its kubelet reports it.",
    fields: {
      capacity: `The node's total resources. ${QUANTITIES}`,
      allocatable: "The part of the capacity available to pods, after what the system reserves; the scheduler fits requests into it.",
      conditions: "Conditions of the node: `Ready`, and the pressure conditions `MemoryPressure`, `DiskPressure` and `PIDPressure`.",
      addresses: "The node's addresses, such as its `InternalIP` and `Hostname`.",
      daemonEndpoints: "The port the kubelet listens on.",
      nodeInfo: "Versions and identifiers of the machine, OS and runtime.",
      images: "Container images present on the node.",
      volumesInUse: "Volumes attached and mounted on the node.",
      volumesAttached: "Volumes attached to the node.",
      config: "Deprecated: the state of dynamic kubelet configuration.",
      phase: { description: "Deprecated and no longer set.", enum: ["Pending", "Running", "Terminated"] },
      runtimeHandlers: "The runtime handlers (for RuntimeClasses) the node offers and what they support.",
      features: "Optional features the node's kubelet and runtime support.",
      declaredFeatures: "Features, tied to feature gates, that the node declares it supports.",
    },
  },
  "io.k8s.api.core.v1.Taint": {
    description: "A mark on a node that keeps pods without a matching toleration away.",
    fields: {
      key: "The taint's key.",
      value: "The taint's value.",
      effect: {
        description: "`NoSchedule` (no new pods without a toleration), `PreferNoSchedule` (avoid if possible) or `NoExecute` (also evict running pods that do not tolerate it).",
        enum: ["NoExecute", "NoSchedule", "PreferNoSchedule"],
      },
      timeAdded: "When a NoExecute taint was added.",
    },
  },
  "io.k8s.api.core.v1.NodeCondition": {
    description: "One aspect of a node's state.",
    fields: {
      type: "Which aspect: `Ready`, `MemoryPressure`, `DiskPressure`, `PIDPressure` or `NetworkUnavailable`.",
      status: CONDITION_STATUS,
      lastHeartbeatTime: "When the kubelet last reported the condition.",
      lastTransitionTime: TRANSITION,
      reason: REASON,
      message: MESSAGE,
    },
  },
  "io.k8s.api.core.v1.NodeAddress": {
    description: "One address of a node.",
    fields: {
      type: "`Hostname`, `InternalIP`, `ExternalIP`, `InternalDNS` or `ExternalDNS`.",
      address: "The address.",
    },
  },
  "io.k8s.api.core.v1.NodeSystemInfo": {
    description: "Identifiers and versions of a node's machine and software.",
    fields: {
      machineID: "The machine ID (`/etc/machine-id`).",
      systemUUID: "The system UUID from the firmware.",
      bootID: "The ID of the current boot.",
      kernelVersion: "The kernel version (`uname -r`).",
      osImage: "The operating system image (`/etc/os-release`).",
      containerRuntimeVersion: "The container runtime and its version, `<runtime>://<version>`.",
      kubeletVersion: "The kubelet's version.",
      kubeProxyVersion: "Deprecated: the kube-proxy version the kubelet reported; no longer reliable.",
      operatingSystem: "The operating system, `linux` or `windows`.",
      architecture: "The CPU architecture, such as `amd64` or `arm64`.",
      swap: "The node's swap memory.",
    },
  },

  // ---- Lease ----
  "io.k8s.api.coordination.v1.Lease": {
    description: "A lease held by one holder at a time and renewed while it lives: how leader election and node heartbeats are built.",
    fields: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: OBJECT_METADATA,
      spec: "Who holds the lease, since when, and for how long.",
    },
  },
  "io.k8s.api.coordination.v1.LeaseList": list("Lease"),
  "io.k8s.api.coordination.v1.LeaseSpec": {
    description: "The state of a lease. Holders take and renew it with conditional updates (resourceVersion), so only one wins.",
    fields: {
      holderIdentity: "Who holds the lease now.",
      leaseDurationSeconds: "How long (seconds, int32) candidates wait after the last renewal before they may take the lease over.",
      acquireTime: "When the current holder acquired the lease.",
      renewTime: "When the holder last renewed it.",
      leaseTransitions: "How many times the lease changed holders (int32).",
      strategy: "How a leader is picked in coordinated leader election; unset, there is no coordination (the holders race).",
      preferredHolder: "In coordinated leader election, the candidate the holder should hand the lease to; only with strategy.",
    },
  },
};
