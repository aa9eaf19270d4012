// A StatefulSet above nats-server's default max_payload of 1 MiB is valid Kubernetes (the API server takes bodies
// up to 3 MiB; a pod template with a large environment gets there). With the default, the watcher could not publish
// the set or its pods and the set was never reconciled, while every other set went on. The fleet's servers take
// MAX_PAYLOAD_BYTES (protocol/src/limits.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack } from "../support/stack.ts";
import { createSet, listPods, statefulSet, waitForConverged } from "./helpers.ts";

const t = await useStack();
/** More than nats-server's default max_payload (1 MiB), less than the API server's request limit (3 MiB). */
const ENV_BYTES = 1_200_000;

describe("objects larger than 1 MiB", () => {
  it("a set whose template is 1.2 MiB converges, and so does a small one next to it", async () => {
    const ns = "e2e-large";
    await t.createNamespace(ns);
    const large = statefulSet(ns, "large", { replicas: 2, claims: false }) as { spec: { template: { spec: { containers: { env?: unknown[] }[] } } } };
    const [container] = large.spec.template.spec.containers;
    assert.ok(container);
    container.env = [{ name: "LARGE", value: "x".repeat(ENV_BYTES) }];
    await t.kube.create({ ...RESOURCES.statefulsets, namespace: ns }, large);
    await createSet(t.kube, ns, "small", { replicas: 2, claims: false });
    await waitForConverged(t.kube, ns, "small", 2, 30_000);
    await waitForConverged(t.kube, ns, "large", 2, 30_000);
    const pods = await listPods(t.kube, ns, "large");
    assert.equal(pods.length, 2);
  });
});
