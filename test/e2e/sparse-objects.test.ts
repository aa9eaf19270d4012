// Bad input (docs/RELIABILITY.md): StatefulSets with every optional field absent, or sent as JSON null (which the API server
// decodes as absent), with odd but valid names and values (the longest name whose pods are valid, unicode in an
// annotation, a 63-character label value). Each converges; a name too long for its pods' labels gets
// the planner's InvalidName Warning (upstream's pod creates would fail forever, ADR 0012).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RESOURCES } from "../../services/common/src/kube.ts";
import { useStack, waitFor } from "../support/stack.ts";
import { IMAGE_A, getSet, listEvents, waitForConverged } from "./helpers.ts";

const t = await useStack();
const CONVERGE_MS = 30_000;

function minimal(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: IMAGE_A }] } },
      ...extra,
    },
  };
}

describe("sparse and odd StatefulSets", () => {
  it("only the required fields: defaults apply (1 replica) and the set converges", async () => {
    const ns = "e2e-sparse";
    await t.createNamespace(ns);
    await t.kube.create({ ...RESOURCES.statefulsets, namespace: ns }, minimal("bare"));
    await waitForConverged(t.kube, ns, "bare", 1, CONVERGE_MS);
  });

  it("optional fields sent as null are absent, and the set converges", async () => {
    const ns = "e2e-sparse-null";
    await t.createNamespace(ns);
    const set = minimal("nulls", {
      replicas: null,
      serviceName: null,
      minReadySeconds: null,
      updateStrategy: null,
      podManagementPolicy: null,
      revisionHistoryLimit: null,
      volumeClaimTemplates: null,
      persistentVolumeClaimRetentionPolicy: null,
      ordinals: null,
    });
    (set["metadata"] as Record<string, unknown>)["annotations"] = null;
    (set["metadata"] as Record<string, unknown>)["labels"] = null;
    await t.kube.create({ ...RESOURCES.statefulsets, namespace: ns }, set);
    const stored = await getSet(t.kube, ns, "nulls");
    assert.equal(stored.spec?.replicas, 1, "replicas defaulted");
    await waitForConverged(t.kube, ns, "nulls", 1, CONVERGE_MS);
  });

  it("a 52-character name (the longest whose revision label fits), a unicode annotation and a 63-character label value converge", async () => {
    const ns = "e2e-sparse-odd";
    await t.createNamespace(ns);
    // The pods carry controller-revision-hash: <set>-<hash>, a label value (at most 63 characters) with a hash of up to
    // 10 characters: 52 is the longest name whose pods the API server accepts.
    const name = `s${"x".repeat(51)}`;
    const set = minimal(name, { replicas: 2 });
    const template = (set["spec"] as { template: { metadata: Record<string, unknown> } }).template;
    template.metadata["annotations"] = { "example.com/note": "Grüße, 世界, 🚀".repeat(100) };
    template.metadata["labels"] = { app: name, tier: "v".repeat(63) };
    await t.kube.create({ ...RESOURCES.statefulsets, namespace: ns }, set);
    await waitForConverged(t.kube, ns, name, 2, CONVERGE_MS);
  });

  it("a longer name: its pods could not be labelled, and the set says so in one InvalidName Warning (ADR 0012, quirk 7)", async () => {
    const ns = "e2e-sparse-long";
    await t.createNamespace(ns);
    const name = `l${"x".repeat(62)}`;
    await t.kube.create({ ...RESOURCES.statefulsets, namespace: ns }, minimal(name));
    const warning = await waitFor(
      `an InvalidName Warning for ${name}`,
      async () => (await listEvents(t.kube, ns)).find((e) => e.reason === "InvalidName" && e.type === "Warning" && e.involvedObject.name === name),
      { timeoutMs: CONVERGE_MS },
    );
    assert.match(warning.message ?? "", /longer than 63 characters/);
  });
});
