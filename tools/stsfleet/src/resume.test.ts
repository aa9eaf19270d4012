// A stack restarted on the same state dir resumes it (ADR 0095): a StatefulSet made through the first run, with
// its revision, claims and pods, is back after a stop and a start with the same uids, and the fleet converges
// without recreating a pod. `fresh` starts empty.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FAST_KUBE_SIM_ARGS, FAST_SERVICE_ARGS, waitFor } from "#test-support/stack.ts";
import { startStack } from "./stack.ts";
import type { Stack, StackEvent } from "./stack.ts";

const NS = "default";
const REPLICAS = 2;

interface Meta {
  readonly name: string;
  readonly uid: string;
}
interface Listed {
  readonly items: { metadata: Meta; status?: { phase?: string; readyReplicas?: number; updateRevision?: string } }[];
}

async function list(stack: Stack, path: string): Promise<Listed> {
  const response = await fetch(`${stack.apiServer}${path}`);
  assert.equal(response.status, 200, path);
  return (await response.json()) as Listed;
}

/** name -> uid of the set, its revisions, claims and pods. */
async function inventory(stack: Stack): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [kind, path] of [
    ["sts", `/apis/apps/v1/namespaces/${NS}/statefulsets`],
    ["rev", `/apis/apps/v1/namespaces/${NS}/controllerrevisions`],
    ["pvc", `/api/v1/namespaces/${NS}/persistentvolumeclaims`],
    ["pod", `/api/v1/namespaces/${NS}/pods`],
  ] as const) {
    for (const item of (await list(stack, path)).items) out[`${kind}/${item.metadata.name}`] = item.metadata.uid;
  }
  return out;
}

async function converged(stack: Stack): Promise<boolean> {
  const sets = await list(stack, `/apis/apps/v1/namespaces/${NS}/statefulsets`);
  const pods = await list(stack, `/api/v1/namespaces/${NS}/pods`);
  return sets.items[0]?.status?.readyReplicas === REPLICAS && pods.items.length === REPLICAS && pods.items.every((p) => p.status?.phase === "Running");
}

const stateDir = mkdtempSync(join(tmpdir(), "stsfleet-resume-"));
after(() => rmSync(stateDir, { recursive: true, force: true }));

function start(steps: string[], fresh = false): Promise<Stack> {
  return startStack({
    stateDir,
    persist: true,
    fresh,
    kubeSimArgs: FAST_KUBE_SIM_ARGS,
    serviceArgs: FAST_SERVICE_ARGS,
    readyTimeoutMs: 150_000,
    stopTimeoutMs: 5_000,
    onEvent: (event: StackEvent) => {
      if (event.type === "step") steps.push(event.message);
    },
  });
}

describe("stsfleet up on the same state dir", () => {
  it("resumes the set, its revision, claims and pods with their uids, and converges without recreating pods", async () => {
    const firstSteps: string[] = [];
    const first = await start(firstSteps);
    let before: Record<string, string>;
    try {
      const set = {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "resume" },
        spec: {
          replicas: REPLICAS,
          serviceName: "resume",
          selector: { matchLabels: { app: "resume" } },
          template: { metadata: { labels: { app: "resume" } }, spec: { containers: [{ name: "c", image: "registry.k8s.io/pause:3.10" }] } },
          volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
        },
      };
      const created = await fetch(`${first.apiServer}/apis/apps/v1/namespaces/${NS}/statefulsets`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(set) });
      assert.equal(created.status, 201);
      await waitFor("the set converges", () => converged(first), { timeoutMs: 60_000 });
      before = await inventory(first);
    } finally {
      await first.stop();
    }
    assert.ok(firstSteps.some((s) => s.startsWith("state kept in")), firstSteps.join("\n"));
    assert.equal(Object.keys(before).filter((k) => k.startsWith("pvc/")).length, REPLICAS);
    assert.ok(Object.keys(before).some((k) => k.startsWith("rev/")));

    const secondSteps: string[] = [];
    const second = await start(secondSteps);
    try {
      assert.ok(secondSteps.some((s) => /^resuming \d+ objects from .*kube-sim$/.test(s)), secondSteps.join("\n"));
      assert.deepEqual(await inventory(second), before);
      // Converged again with the same objects: nothing was deleted and recreated on the way.
      await waitFor("the resumed set converges", () => converged(second), { timeoutMs: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.deepEqual(await inventory(second), before);
    } finally {
      await second.stop();
    }

    const third = await start([], true);
    try {
      assert.deepEqual(await inventory(third), {});
    } finally {
      await third.stop();
    }
  });
});
