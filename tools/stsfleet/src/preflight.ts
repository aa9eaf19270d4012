// `stsfleet preflight`: asks a cluster what stsfleet needs before it is installed. GET /version, GET /apis/apps/v1,
// a SelfSubjectAccessReview per permission in deploy/base's ClusterRoles, and the main question, whether
// kube-controller-manager's StatefulSet controller runs: a probe StatefulSet with `replicas: 0` (no pod is ever
// made) in a namespace of its own (or --namespace), whose status only a StatefulSet controller writes; its
// managedFields name the writer (docs/adr/0092-another-statefulset-controller.md). The probe is deleted afterwards,
// on errors and on the first Ctrl-C too, unless --keep. The judging and the wording are in preflight-checks.ts.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Command, InvalidArgumentError, Option } from "commander";
import { loadAll } from "js-yaml";
import { KubeApiError, KubeClient, RESOURCES, loadKubeConfig } from "../../../services/common/src/kube.ts";
import type { ResourceRef } from "../../../services/common/src/kube.ts";
import { userAgent } from "../../../services/common/src/version.ts";
import { REPO_ROOT } from "./launch.ts";
import {
  EXIT_CODES,
  apiServerCheck,
  cleanupCheck,
  controllerCheck,
  controllerNotCheckedCheck,
  exitCodeOf,
  formatReport,
  judgeProbeStatusWriters,
  rbacCheck,
  reportJson,
  requiredAccess,
  statefulSetsApiCheck,
  statusWritersOf,
} from "./preflight-checks.ts";
import type { AccessAnswers, AccessRequirement, AppsAnswer, CheckResult, CleanupOutcome, PreflightReport, VersionAnswer } from "./preflight-checks.ts";

/** On the probe StatefulSet and on a namespace made for it: `kubectl delete ns,sts -A -l stsfleet.dev/preflight=probe` finds leftovers. */
export const PROBE_LABEL = "stsfleet.dev/preflight";
export const PROBE_LABEL_VALUE = "probe";
const PROBE_ANNOTATION = "stsfleet.dev/preflight-probe";
/** Where the fleet's ClusterRoles are (one per service). */
const CLUSTER_ROLES_DIR = join(REPO_ROOT, "deploy/base/services");

export interface PreflightOptions {
  /** Unset: client-node's default order ($KUBECONFIG, ~/.kube/config, in-cluster), as the services load it. */
  readonly kubeconfig?: string | undefined;
  /** An existing namespace for the probe; unset: a namespace of its own, deleted with it. */
  readonly namespace?: string | undefined;
  readonly timeoutMs: number;
  readonly keep: boolean;
  readonly output: "text" | "json";
}

/** How often the probe is read, and how long the wait goes on after a first status writer (to see a second one). */
export interface ProbeTimings {
  /** Defaults to 250 ms. */
  readonly pollMs: number;
  /** Defaults to 1 s: two controllers both answer within their informers' latency. */
  readonly settleMs: number;
  /** Defaults to 5 s per API request (the deletes too). */
  readonly requestTimeoutMs: number;
}

export const DEFAULT_PROBE_TIMINGS: ProbeTimings = { pollMs: 250, settleMs: 1_000, requestTimeoutMs: 5_000 };

export interface PreflightOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const STDIO: PreflightOutput = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// --- reading the cluster ----------------------------------------------------------------------------------------

async function readVersion(kube: KubeClient, signal: AbortSignal): Promise<VersionAnswer> {
  try {
    const version = await kube.request<{ gitVersion?: string; platform?: string }>({ method: "GET", path: "/version", verb: "get", resource: "version", signal });
    return { kind: "version", gitVersion: version.gitVersion, platform: version.platform };
  } catch (error) {
    return { kind: "error", status: error instanceof KubeApiError ? error.status : 0, message: messageOf(error) };
  }
}

async function readAppsResources(kube: KubeClient, signal: AbortSignal): Promise<AppsAnswer> {
  try {
    const list = await kube.request<{ resources?: { name?: string }[] }>({ method: "GET", path: "/apis/apps/v1", verb: "get", resource: "discovery", signal });
    return { kind: "served", resources: (list.resources ?? []).flatMap((r) => (r.name === undefined ? [] : [r.name])) };
  } catch (error) {
    return error instanceof KubeApiError && error.isNotFound ? { kind: "not-served" } : { kind: "error", message: messageOf(error) };
  }
}

/** Every ClusterRole document under deploy/base/services. */
function readClusterRoleManifests(): unknown[] {
  return readdirSync(CLUSTER_ROLES_DIR)
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .flatMap((name) => loadAll(readFileSync(join(CLUSTER_ROLES_DIR, name), "utf8")));
}

/** One SelfSubjectAccessReview per permission, cluster-wide (no namespace: what a ClusterRoleBinding grants). */
async function reviewAccess(kube: KubeClient, signal: AbortSignal): Promise<AccessAnswers> {
  let requirements: AccessRequirement[];
  try {
    requirements = requiredAccess(readClusterRoleManifests());
  } catch (error) {
    return { kind: "cannot-check", reason: `cannot read the ClusterRoles in ${CLUSTER_ROLES_DIR}: ${messageOf(error)}` };
  }
  try {
    const answers = await Promise.all(
      requirements.map(async (requirement) => {
        const review = await kube.request<{ status?: { allowed?: boolean } }>({
          method: "POST",
          path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
          body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes: requirement } },
          verb: "create",
          resource: "selfsubjectaccessreviews",
          signal,
        });
        return { requirement, allowed: review.status?.allowed === true };
      }),
    );
    return { kind: "reviewed", answers };
  } catch (error) {
    if (error instanceof KubeApiError && error.isNotFound) return { kind: "cannot-check", reason: "this API server does not serve authorization.k8s.io/v1 SelfSubjectAccessReviews" };
    if (error instanceof KubeApiError && error.status === 403) return { kind: "cannot-check", reason: "these credentials may not create SelfSubjectAccessReviews" };
    return { kind: "cannot-check", reason: messageOf(error) };
  }
}

// --- the probe ------------------------------------------------------------------------------------------------

/** The probe's names, and which creates were sent (a create cut short by Ctrl-C may still have happened). */
interface Probe {
  readonly namespace: string;
  readonly name: string;
  readonly ownNamespace: boolean;
  namespaceSent: boolean;
  setSent: boolean;
}

function newProbe(namespace: string | undefined): Probe {
  const name = `stsfleet-preflight-${randomBytes(3).toString("hex")}`;
  return { namespace: namespace ?? name, name, ownNamespace: namespace === undefined, namespaceSent: false, setSent: false };
}

function probeRef(probe: Probe): ResourceRef {
  return { ...RESOURCES.statefulsets, namespace: probe.namespace, name: probe.name };
}

/** replicas 0: no controller makes a pod for it; the template still meets the restricted Pod Security Standard. */
export function probeStatefulSet(probe: { readonly namespace: string; readonly name: string }): Record<string, unknown> {
  const selector = { "app.kubernetes.io/name": probe.name };
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: {
      name: probe.name,
      namespace: probe.namespace,
      labels: { [PROBE_LABEL]: PROBE_LABEL_VALUE },
      annotations: { [PROBE_ANNOTATION]: "made by `stsfleet preflight` to see which StatefulSet controller writes its status; deleted when it ends" },
    },
    spec: {
      replicas: 0,
      serviceName: probe.name,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: selector },
        spec: {
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: "probe",
              image: "registry.k8s.io/pause:3.10",
              resources: { requests: { cpu: "1m", memory: "8Mi" }, limits: { memory: "8Mi" } },
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
            },
          ],
        },
      },
    },
  };
}

async function createProbe(kube: KubeClient, probe: Probe, signal: AbortSignal): Promise<void> {
  if (probe.ownNamespace) {
    probe.namespaceSent = true;
    await kube.create(RESOURCES.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: probe.namespace, labels: { [PROBE_LABEL]: PROBE_LABEL_VALUE } } }, { signal });
  }
  probe.setSent = true;
  await kube.create({ ...RESOURCES.statefulsets, namespace: probe.namespace }, probeStatefulSet(probe), { signal });
}

/**
 * Reads the probe until a status writer shows, then `settleMs` longer (a second controller answers as fast), or
 * until `timeoutMs` passes with none. Returns the writers and how long it waited.
 */
async function waitForStatusWriters(kube: KubeClient, probe: Probe, timeoutMs: number, timings: ProbeTimings, signal: AbortSignal): Promise<{ writers: string[]; waitedMs: number }> {
  const started = performance.now();
  let firstSeenMs: number | undefined;
  for (;;) {
    const set = await kube.get<{ metadata?: { managedFields?: unknown } }>(probeRef(probe), { signal });
    const writers = statusWritersOf(set.metadata?.managedFields);
    const nowMs = performance.now();
    if (writers.length > 0) firstSeenMs ??= nowMs;
    if (firstSeenMs !== undefined ? nowMs - firstSeenMs >= timings.settleMs : nowMs - started >= timeoutMs) {
      return { writers, waitedMs: nowMs - started };
    }
    await sleep(timings.pollMs, undefined, { signal });
  }
}

/** Deletes what was sent, without the interrupt's signal (cleanup is what an interrupt asks for); 404 is fine. */
async function deleteProbe(kube: KubeClient, probe: Probe, timings: ProbeTimings): Promise<CleanupOutcome> {
  const gone = (error: unknown) => {
    if (!(error instanceof KubeApiError && error.isNotFound)) throw error;
  };
  try {
    if (probe.setSent) await kube.delete(probeRef(probe), { propagationPolicy: "Background", timeoutMs: timings.requestTimeoutMs }).catch(gone);
    if (probe.namespaceSent) await kube.delete({ ...RESOURCES.namespaces, name: probe.namespace }, { timeoutMs: timings.requestTimeoutMs }).catch(gone);
    return { kind: "deleted", namespace: probe.namespace, name: probe.name, namespaceDeleted: probe.namespaceSent };
  } catch (error) {
    return { kind: "left", namespace: probe.namespace, name: probe.name, ownNamespace: probe.ownNamespace, error: messageOf(error) };
  }
}

/** The controller check and the cleanup check: the probe made, watched, judged and (unless --keep) deleted. */
async function probeController(kube: KubeClient, options: PreflightOptions, timings: ProbeTimings, signal: AbortSignal): Promise<CheckResult[]> {
  const probe = newProbe(options.namespace);
  let verdict: CheckResult;
  try {
    await createProbe(kube, probe, signal);
    const { writers, waitedMs } = await waitForStatusWriters(kube, probe, options.timeoutMs, timings, signal);
    verdict = controllerCheck(judgeProbeStatusWriters(writers, waitedMs));
  } catch (error) {
    verdict = controllerNotCheckedCheck(signal.aborted ? "interrupted" : messageOf(error));
  }
  let cleanup: CleanupOutcome = { kind: "not-created" };
  if (probe.setSent || probe.namespaceSent) {
    cleanup = options.keep ? { kind: "kept", namespace: probe.namespace, name: probe.name, ownNamespace: probe.ownNamespace } : await deleteProbe(kube, probe, timings);
  }
  const cleaned = cleanupCheck(cleanup);
  return cleaned ? [verdict, cleaned] : [verdict];
}

/** Every check in order; only `api-server` when the API server cannot be asked anything. */
export async function collectReport(kube: KubeClient, options: PreflightOptions, timings: ProbeTimings, signal: AbortSignal): Promise<PreflightReport> {
  const api = apiServerCheck(kube.server, await readVersion(kube, signal));
  if (api.level === "fail") return { server: kube.server, connected: false, checks: [api] };
  const apps = statefulSetsApiCheck(await readAppsResources(kube, signal));
  const rbac = rbacCheck(await reviewAccess(kube, signal));
  const controller = apps.level === "ok" ? await probeController(kube, options, timings, signal) : [controllerNotCheckedCheck("apps/v1 statefulsets are not served")];
  return { server: kube.server, connected: true, checks: [api, apps, rbac, ...controller] };
}

/** Returns the exit code (EXIT_CODES). `signal` is the interrupt: the probe is still deleted, then 130. */
export async function runPreflight(
  options: PreflightOptions,
  io: PreflightOutput = STDIO,
  context: { readonly signal?: AbortSignal; readonly timings?: Partial<ProbeTimings> } = {},
): Promise<number> {
  const timings = { ...DEFAULT_PROBE_TIMINGS, ...context.timings };
  const signal = context.signal ?? new AbortController().signal;
  let kube: KubeClient;
  try {
    kube = new KubeClient(loadKubeConfig(options.kubeconfig, userAgent("stsfleet", "preflight")), { requestTimeoutMs: timings.requestTimeoutMs });
  } catch (error) {
    io.err(`stsfleet preflight: cannot load the kubeconfig${options.kubeconfig ? ` ${options.kubeconfig}` : ""}: ${messageOf(error)}`);
    return EXIT_CODES.usage;
  }
  const report = await collectReport(kube, options, timings, signal);
  io.out(options.output === "json" ? reportJson(report) : formatReport(report));
  return signal.aborted ? EXIT_CODES.interrupted : exitCodeOf(report);
}

// --- the command ----------------------------------------------------------------------------------------------

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The first signal aborts the run (the probe is deleted, then exit 130); a second one leaves at once. */
async function runInterruptible(options: PreflightOptions, io: PreflightOutput): Promise<number> {
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (!interrupt.signal.aborted) {
      io.err(`stsfleet preflight: ${signal}: deleting the probe (again to leave it)`);
      interrupt.abort(signal);
      return;
    }
    io.err(`stsfleet preflight: the probe may be left: \`kubectl delete namespace,statefulset -A -l ${PROBE_LABEL}=${PROBE_LABEL_VALUE}\` deletes it`);
    process.exit(EXIT_CODES.interrupted);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return await runPreflight(options, io, { signal: interrupt.signal });
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}

function positiveMs(raw: string): number {
  if (!/^[0-9]+$/.test(raw.trim()) || Number(raw) < 1) throw new InvalidArgumentError("--timeout-ms must be a positive integer");
  return Number(raw);
}

export function preflightCommand(io: PreflightOutput = STDIO): Command {
  return new Command("preflight")
    .description("check a cluster before installing stsfleet: the API server, RBAC, and whether kube-controller-manager's StatefulSet controller runs (docs/CLUSTER.md)")
    .addOption(new Option("--kubeconfig <path>", "the cluster to check (default: $KUBECONFIG, then ~/.kube/config, as the services load it)"))
    .addOption(new Option("--namespace <name>", "make the probe StatefulSet in this existing namespace instead of a new one"))
    .addOption(new Option("--timeout-ms <ms>", "how long to wait for a controller to write the probe's status").argParser(positiveMs).default(15_000))
    .option("--keep", "leave the probe in place afterwards (to look at it)", false)
    .addOption(new Option("-o, --output <format>", "text or json").choices(["text", "json"]).default("text"))
    // Usage errors exit 2, as the exit codes promise (commander's own is 1, which means "a check failed" here).
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : EXIT_CODES.usage))
    .action(async (options: PreflightOptions) => {
      process.exitCode = await runInterruptible(options, io);
    });
}
