// Bad input (docs/RELIABILITY.md): thousands of sets created at once. 2,000 StatefulSets of one replica each go in through
// the API server from one client with 50 creates in flight, spread over four namespaces (so over many shards).
// Every one must converge (status observed, its pod Ready at the update revision) within the bound after the last
// create is answered, each pod and revision created once, and no service may die. The bound is sized for a 2-core
// machine running other test stacks beside this one: measured 14-40 s there, the slower figures at a load average of
// 15 (docs/RELIABILITY.md). The actor's turns are FIFO, so most sets reach Ready only near the end of the burst.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack, waitFor } from "../support/stack.ts";
import { creates, isReady, revisionOf, statefulSet, uniqueNames } from "./helpers.ts";
import type { Pod, StatefulSet } from "./helpers.ts";

const t = await useStack();
const SERVICES = ["watcher", "actor-0", "pvc-provisioner", "status-writer"] as const;
const SETS = 2_000;
const NAMESPACES = ["e2e-many-a", "e2e-many-b", "e2e-many-c", "e2e-many-d"] as const;
const IN_FLIGHT = 50;
/** After the last create is answered. */
const CONVERGE_MS = 60_000;
const POLL_MS = 2_000;

interface Wanted {
  readonly namespace: string;
  readonly name: string;
}

/** Runs `work` over `items` with at most `limit` calls in flight. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The sets of `namespace` that have not converged at one replica yet. */
async function unconverged(namespace: string, wanted: ReadonlySet<string>): Promise<string[]> {
  const [sets, pods] = await Promise.all([
    t.kube.list<{ items: StatefulSet[] }>({ ...RESOURCES.statefulsets, namespace }),
    t.kube.list<{ items: Pod[] }>({ ...RESOURCES.pods, namespace }),
  ]);
  const podsByName = new Map(pods.items.map((pod) => [pod.metadata.name ?? "", pod]));
  const done = new Set<string>();
  for (const set of sets.items) {
    const name = set.metadata.name ?? "";
    const status = set.status ?? {};
    const pod = podsByName.get(`${name}-0`);
    if (
      status.observedGeneration === set.metadata.generation &&
      status.replicas === 1 &&
      status.readyReplicas === 1 &&
      status.updatedReplicas === 1 &&
      status.currentRevision === status.updateRevision &&
      pod !== undefined &&
      isReady(pod) &&
      revisionOf(pod) === status.updateRevision
    ) {
      done.add(name);
    }
  }
  return [...wanted].filter((name) => !done.has(name));
}

describe("thousands of sets created at once", () => {
  it(`${SETS} sets of one replica, ${IN_FLIGHT} creates in flight: every one converges; no service dies`, async (test) => {
    const pids = new Map(SERVICES.map((name) => [name, t.stack.service(name).pid ?? -1]));
    for (const namespace of NAMESPACES) await t.createNamespace(namespace);
    const wanted: Wanted[] = Array.from({ length: SETS }, (_, i) => ({
      namespace: NAMESPACES[i % NAMESPACES.length] ?? NAMESPACES[0],
      name: `s${String(i).padStart(4, "0")}`,
    }));
    const byNamespace = new Map<string, Set<string>>(NAMESPACES.map((namespace) => [namespace, new Set()]));
    for (const { namespace, name } of wanted) byNamespace.get(namespace)?.add(name);

    const startedAt = performance.now();
    await pool(wanted, IN_FLIGHT, async ({ namespace, name }) => {
      await t.kube.create({ ...RESOURCES.statefulsets, namespace }, statefulSet(namespace, name, { replicas: 1, claims: false }));
    });
    const createdAt = performance.now();

    let left: string[] = [];
    const progress: string[] = [];
    await waitFor(
      `all ${SETS} sets to converge`,
      async () => {
        left = [];
        for (const [namespace, names] of byNamespace) left.push(...(await unconverged(namespace, names)).map((name) => `${namespace}/${name}`));
        progress.push(`${Math.round((performance.now() - createdAt) / 1000)}s:${left.length}`);
        return left.length === 0;
      },
      { timeoutMs: CONVERGE_MS, intervalMs: POLL_MS, describeLast: () => `${left.length} not converged, e.g. ${left.slice(0, 10).join(", ")}` },
    );
    const convergedAt = performance.now();
    const createsMs = Math.round(createdAt - startedAt);
    const afterLastMs = Math.round(convergedAt - createdAt);
    test.diagnostic(`creates took ${createsMs} ms; every set converged ${afterLastMs} ms after the last create (${Math.round(convergedAt - startedAt)} ms in all)`);
    test.diagnostic(`left after the last create: ${progress.join(" ")}`);

    // One pod and one revision per set, each created once (a duplicate create would be a wasted write or worse).
    for (const [namespace, names] of byNamespace) {
      assert.equal(uniqueNames(creates(t.audit, namespace, "pods"), `pod creates in ${namespace}`).length, names.size);
      assert.equal(uniqueNames(creates(t.audit, namespace, "controllerrevisions"), `revision creates in ${namespace}`).length, names.size);
    }
    for (const name of SERVICES) assert.equal(t.stack.service(name).pid, pids.get(name), `${name} was restarted (it died)`);
  });
});
