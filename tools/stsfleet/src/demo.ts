// The demo `stsfleet up` applies: a headless Service and a 3-replica OrderedReady StatefulSet `web` with a `data`
// claim template in namespace default, plus the progress lines shown while its pods come up in order.
import { setTimeout as sleep } from "node:timers/promises";
import { KubeApiError, KubeClient, loadKubeConfig, RESOURCES } from "../../../services/common/src/kube.ts";
import { userAgent } from "../../../services/common/src/version.ts";

export const DEMO_NAMESPACE = "default";
export const DEMO_NAME = "web";
export const DEMO_REPLICAS = 3;

export function demoService(): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: DEMO_NAME, namespace: DEMO_NAMESPACE, labels: { app: DEMO_NAME } },
    spec: { clusterIP: "None", selector: { app: DEMO_NAME }, ports: [{ name: "http", port: 80 }] },
  };
}

export function demoStatefulSet(): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: DEMO_NAME, namespace: DEMO_NAMESPACE, labels: { app: DEMO_NAME } },
    spec: {
      serviceName: DEMO_NAME,
      replicas: DEMO_REPLICAS,
      podManagementPolicy: "OrderedReady",
      selector: { matchLabels: { app: DEMO_NAME } },
      template: {
        metadata: { labels: { app: DEMO_NAME } },
        spec: {
          containers: [
            {
              name: "nginx",
              image: "registry.k8s.io/nginx-slim:0.27",
              ports: [{ name: "http", containerPort: 80 }],
              volumeMounts: [{ name: "data", mountPath: "/usr/share/nginx/html" }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  };
}

/** Creates the demo objects; ones that already exist are left as they are. Returns what it did, one line each. */
export async function applyDemo(kube: KubeClient): Promise<string[]> {
  const lines: string[] = [];
  const objects = [
    { ref: RESOURCES.services, body: demoService(), label: "service/web" },
    { ref: RESOURCES.statefulsets, body: demoStatefulSet(), label: "statefulset/web" },
  ];
  for (const { ref, body, label } of objects) {
    try {
      await kube.create({ ...ref, namespace: DEMO_NAMESPACE }, body);
      lines.push(`${label} created`);
    } catch (error) {
      if (error instanceof KubeApiError && error.isAlreadyExists) lines.push(`${label} unchanged (already exists)`);
      else throw error;
    }
  }
  return lines;
}

interface PodLike {
  metadata?: { name?: string; deletionTimestamp?: string };
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}
interface ClaimLike {
  metadata?: { name?: string };
  status?: { phase?: string };
}

interface SetLike {
  metadata?: { generation?: number };
  status?: { observedGeneration?: number; readyReplicas?: number };
}

/** What one look at the cluster found. */
export interface DemoObservation {
  readonly pods: readonly PodLike[];
  readonly claims: readonly ClaimLike[];
  /** The demo StatefulSet: "ready" also waits for its status, which is what `kubectl get sts` shows. */
  readonly set?: SetLike | undefined;
}

export interface DemoProgress {
  /** Pods already reported as created / ready. */
  readonly created: ReadonlySet<string>;
  readonly ready: ReadonlySet<string>;
  readonly done: boolean;
}

export const INITIAL_PROGRESS: DemoProgress = { created: new Set(), ready: new Set(), done: false };

function isReady(pod: PodLike): boolean {
  return (
    pod.status?.phase === "Running" &&
    pod.metadata?.deletionTimestamp === undefined &&
    (pod.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
  );
}

function ordinalOf(name: string): number {
  const match = /-(\d+)$/.exec(name);
  return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
}

/**
 * The lines to print for a new observation: a pod's creation and its first Running/Ready, in ordinal order, then
 * a summary once every replica is Ready and every claim Bound. Pure, so the wording is unit-tested.
 */
export function progressLines(previous: DemoProgress, observation: DemoObservation, elapsedMs: number): {
  lines: string[];
  progress: DemoProgress;
} {
  const created = new Set(previous.created);
  const ready = new Set(previous.ready);
  const lines: string[] = [];
  const pods = [...observation.pods]
    .filter((pod) => pod.metadata?.name?.startsWith(`${DEMO_NAME}-`))
    .sort((a, b) => ordinalOf(a.metadata?.name ?? "") - ordinalOf(b.metadata?.name ?? ""));
  for (const pod of pods) {
    const name = pod.metadata?.name ?? "";
    if (!created.has(name)) {
      created.add(name);
      if (!isReady(pod)) lines.push(`  ${name} created (${pod.status?.phase ?? "Pending"})`);
    }
    if (isReady(pod) && !ready.has(name)) {
      ready.add(name);
      lines.push(`  ${name} Running/Ready (${ready.size}/${DEMO_REPLICAS})`);
    }
  }
  const readyNow = pods.filter(isReady).length;
  const bound = observation.claims.filter((c) => c.metadata?.name?.startsWith(`data-${DEMO_NAME}-`) && c.status?.phase === "Bound").length;
  const set = observation.set;
  const statusCurrent =
    set === undefined ||
    ((set.status?.observedGeneration ?? 0) >= (set.metadata?.generation ?? 0) && (set.status?.readyReplicas ?? 0) >= DEMO_REPLICAS);
  const done = readyNow >= DEMO_REPLICAS && bound >= DEMO_REPLICAS && statusCurrent;
  if (done && !previous.done) {
    lines.push(
      `demo: statefulset/${DEMO_NAME} is ready: ${readyNow}/${DEMO_REPLICAS} pods Running/Ready, ${bound} claims Bound (${(elapsedMs / 1000).toFixed(1)} s)`,
    );
  }
  return { lines, progress: { created, ready, done } };
}

/** Applies the demo and prints progress until it is ready, `timeoutMs` passes or `signal` aborts. */
export async function runDemo(options: {
  readonly kubeconfigPath: string;
  readonly print: (line: string) => void;
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
  readonly pollMs?: number;
}): Promise<boolean> {
  const kube = new KubeClient(loadKubeConfig(options.kubeconfigPath, userAgent("stsfleet", "up")), { requestTimeoutMs: 5_000 });
  for (const line of await applyDemo(kube)) options.print(`demo: ${line} in namespace ${DEMO_NAMESPACE}`);
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 120_000;
  let progress = INITIAL_PROGRESS;
  while (!options.signal.aborted) {
    try {
      const selector = { labelSelector: `app=${DEMO_NAME}` };
      const [pods, claims, set] = await Promise.all([
        kube.list<{ items: PodLike[] }>({ ...RESOURCES.pods, namespace: DEMO_NAMESPACE }, selector),
        kube.list<{ items: ClaimLike[] }>({ ...RESOURCES.persistentvolumeclaims, namespace: DEMO_NAMESPACE }),
        kube.get<SetLike>({ ...RESOURCES.statefulsets, namespace: DEMO_NAMESPACE, name: DEMO_NAME }),
      ]);
      const next = progressLines(progress, { pods: pods.items, claims: claims.items, set }, performance.now() - started);
      next.lines.forEach((line) => options.print(line));
      progress = next.progress;
      if (progress.done) return true;
    } catch (error) {
      if (options.signal.aborted) break;
      options.print(`demo: cannot read progress: ${(error as Error).message}`);
    }
    if (performance.now() - started > timeoutMs) {
      options.print(
        `demo: statefulset/${DEMO_NAME} not ready after ${Math.round(timeoutMs / 1000)} s (${progress.ready.size}/${DEMO_REPLICAS} pods Ready); see the logs`,
      );
      return false;
    }
    await sleep(options.pollMs ?? 250, undefined, { signal: options.signal }).catch(() => undefined);
  }
  return false;
}
