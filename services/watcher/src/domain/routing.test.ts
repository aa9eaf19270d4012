import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { claimName, shard } from "#protocol";
import { claim, pod, revision, set } from "#test-support/watcher-fixtures.ts";
import { parseWatchedObject } from "./objects.ts";
import { SetIndex, routeObject, setRoutingOf, shardsOf } from "./routing.ts";
import type { SetRouting } from "./routing.ts";

const RUNS = Number(process.env["FC_RUNS"] ?? 200);

function indexOf(...sets: ReturnType<typeof set>[]): SetIndex {
  const index = new SetIndex();
  for (const s of sets) index.upsert(s.namespace, setRoutingOf(s));
  return index;
}

function routed(object: ReturnType<typeof pod>, index: SetIndex): string[] {
  return [...routeObject(object, index).sets].sort();
}

describe("parseWatchedObject", () => {
  it("strips managedFields and fills in TypeMeta missing from list items", () => {
    const object = claim("data-web-0");
    assert.equal(object.body["apiVersion"], "v1");
    assert.equal(object.body["kind"], "PersistentVolumeClaim");
    assert.equal((object.body["metadata"] as Record<string, unknown>)["managedFields"], undefined);
    assert.equal((object.body["metadata"] as Record<string, unknown>)["name"], "data-web-0");
  });

  it("keeps who wrote a StatefulSet's status (manager, operation, time of its status entries) and nothing else of managedFields", () => {
    const managedFields = [
      { manager: "kubectl-client-side-apply", operation: "Update", time: "2026-12-02T10:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": {} } },
      { manager: "stsfleet-status-writer", operation: "Update", subresource: "status", time: "2026-12-02T10:00:01Z", fieldsType: "FieldsV1", fieldsV1: { "f:status": {} } },
      { manager: "kube-controller-manager", operation: "Update", subresource: "status", time: "2026-12-02T10:00:02Z", fieldsType: "FieldsV1", fieldsV1: { "f:status": {} } },
      { subresource: "status" },
    ];
    const raw = { metadata: { name: "web", namespace: "default", uid: "u", resourceVersion: "1", managedFields } };
    const parsed = parseWatchedObject("sts", raw);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.object.statusManagers, [
      { manager: "stsfleet-status-writer", operation: "Update", time: "2026-12-02T10:00:01Z" },
      { manager: "kube-controller-manager", operation: "Update", time: "2026-12-02T10:00:02Z" },
    ]);
    assert.equal((parsed.object.body["metadata"] as Record<string, unknown>)["managedFields"], undefined);
    const pod = parseWatchedObject("pod", raw);
    assert.ok(pod.ok);
    assert.deepEqual(pod.object.statusManagers, [], "pods' status writers are the kubelet's: not kept");
  });

  it("rejects objects without the identity a subject and a dedupe id need, without throwing", () => {
    const cases: [unknown, string][] = [
      [null, "not-an-object"],
      [[], "not-an-object"],
      [{}, "no-metadata"],
      [{ metadata: { namespace: "a", uid: "u", resourceVersion: "1" } }, "no-name"],
      [{ metadata: { name: "a", uid: "u", resourceVersion: "1" } }, "no-namespace"],
      [{ metadata: { name: "a", namespace: "n", resourceVersion: "1" } }, "no-uid"],
      [{ metadata: { name: "a", namespace: "n", uid: "u" } }, "no-resource-version"],
      [{ metadata: { name: "Bad_Name", namespace: "n", uid: "u", resourceVersion: "1" } }, "unroutable-name"],
      [{ metadata: { name: "a", namespace: "N.S", uid: "u", resourceVersion: "1" } }, "unroutable-name"],
    ];
    for (const [raw, reason] of cases) {
      const parsed = parseWatchedObject("pod", raw);
      assert.equal(parsed.ok, false, JSON.stringify(raw));
      if (!parsed.ok) assert.equal(parsed.reason, reason, JSON.stringify(raw));
    }
  });

  it("ignores malformed owner references and labels instead of failing the object", () => {
    const parsed = parseWatchedObject("pod", {
      metadata: {
        name: "web-0",
        namespace: "default",
        uid: "u",
        resourceVersion: "1",
        labels: { app: "web", bad: 3 },
        ownerReferences: [null, { kind: "StatefulSet" }, { kind: "StatefulSet", name: "web", controller: true }],
      },
    });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.object.labels, { app: "web" });
    assert.equal(parsed.object.ownerReferences.length, 1);
  });
});

describe("routing: StatefulSets, pods and revisions", () => {
  it("routes a StatefulSet to its own key's shard", () => {
    const web = set("web");
    assert.deepEqual(routed(web, new SetIndex()), ["web"]);
    assert.deepEqual([...shardsOf("default", routeObject(web, new SetIndex()).sets)], [shard("default", "web")]);
  });

  it("routes an owned pod by its controller reference, whether or not the set is known (key.ForController)", () => {
    const owned = pod("web-0", { labels: { app: "other" }, owners: [{ kind: "StatefulSet", name: "web", controller: true }] });
    assert.deepEqual(routed(owned, new SetIndex()), ["web"]);
    assert.deepEqual(routed(owned, indexOf(set("other"))), ["web"], "selector matches do not matter once owned");
    assert.equal(routeObject(owned, new SetIndex()).dependsOnSets, false);
  });

  it("routes nowhere a pod controlled by something else (upstream resolveControllerRef ignores foreign kinds)", () => {
    const foreign = pod("web-0", { labels: { app: "web" }, owners: [{ kind: "ReplicaSet", name: "rs", controller: true }] });
    assert.deepEqual(routed(foreign, indexOf(set("web"))), []);
  });

  it("uses the controller reference, not the first owner reference", () => {
    const owned = pod("web-0", {
      owners: [
        { kind: "StatefulSet", name: "not-controller" },
        { kind: "StatefulSet", name: "web", controller: true },
      ],
    });
    assert.deepEqual(routed(owned, new SetIndex()), ["web"]);
  });

  it("routes an orphan pod to every set whose selector matches (TestStatefulSetControllerAddPodOrphan)", () => {
    const orphan = pod("web-0", { labels: { app: "web", tier: "db" } });
    const index = indexOf(
      set("web"),
      set("db", { selector: { matchLabels: { tier: "db" } } }),
      set("cache", { selector: { matchLabels: { app: "cache" } } }),
      set("other-ns", { namespace: "other", selector: { matchLabels: { app: "web" } } }),
    );
    assert.deepEqual(routed(orphan, index), ["db", "web"]);
    assert.equal(routeObject(orphan, index).dependsOnSets, true);
  });

  it("never matches a set whose selector is missing, empty or malformed (GetPodStatefulSets)", () => {
    const orphan = pod("web-0", { labels: { app: "web" } });
    const index = indexOf(
      set("empty", { selector: {} }),
      set("nil", { selector: null }),
      set("bad-op", { selector: { matchExpressions: [{ key: "app", operator: "Near", values: ["web"] }] } }),
      set("not-exists", { selector: { matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] } }),
    );
    assert.deepEqual(routed(orphan, index), ["not-exists"]);
  });

  it("matches set-based requirements (In, NotIn, Exists, DoesNotExist)", () => {
    const orphan = pod("a-0", { labels: { app: "web", env: "prod" } });
    const index = indexOf(
      set("in", { selector: { matchExpressions: [{ key: "env", operator: "In", values: ["prod", "qa"] }] } }),
      set("notin", { selector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["prod"] }] } }),
      set("exists", { selector: { matchExpressions: [{ key: "app", operator: "Exists" }] } }),
      set("dne", { selector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] } }),
    );
    assert.deepEqual(routed(orphan, index), ["exists", "in"]);
  });

  it("routes an orphan pod without labels nowhere, even for selectors that would match it", () => {
    const index = indexOf(set("dne", { selector: { matchExpressions: [{ key: "app", operator: "DoesNotExist" }] } }));
    assert.deepEqual(routed(pod("x-0"), index), []);
    // Revisions are matched by selector alone (history.ListControllerRevisions + ClaimControllerRevisions).
    assert.deepEqual(routed(revision("x-1234"), index), ["dne"]);
  });

  it("routes revisions like pods: controller reference first, selector for orphans", () => {
    const owned = revision("web-5d8f", { owners: [{ kind: "StatefulSet", name: "web", controller: true }] });
    assert.deepEqual(routed(owned, new SetIndex()), ["web"]);
    const orphan = revision("web-5d8f", { labels: { app: "web" } });
    assert.deepEqual(routed(orphan, indexOf(set("web"))), ["web"]);
  });
});

describe("routing: PersistentVolumeClaims", () => {
  it("routes by an owner reference to the set (retention policy WhenDeleted=Delete)", () => {
    const owned = claim("data-web-0", { owners: [{ kind: "StatefulSet", name: "web" }] });
    assert.deepEqual(routed(owned, new SetIndex()), ["web"]);
  });

  it("routes by an owner reference to a pod of the set (retention policy WhenScaled=Delete)", () => {
    const owned = claim("data-web-3", { owners: [{ kind: "Pod", name: "web-3" }] });
    assert.deepEqual(routed(owned, new SetIndex()), ["web"]);
    const notStateful = claim("scratch", { owners: [{ kind: "Pod", name: "job-abcde" }] });
    assert.deepEqual(routed(notStateful, new SetIndex()), []);
  });

  it("routes by name against the claim templates of the namespace's sets (getPersistentVolumeClaimName)", () => {
    const index = indexOf(set("web", { templates: ["data", "logs"] }), set("db", { templates: ["data"] }));
    assert.deepEqual(routed(claim("data-web-0"), index), ["web"]);
    assert.deepEqual(routed(claim("logs-web-12"), index), ["web"]);
    assert.deepEqual(routed(claim("data-db-1"), index), ["db"]);
    assert.deepEqual(routed(claim("cache-web-0"), index), [], "no template named cache");
    assert.deepEqual(routed(claim("data-web-x"), index), [], "no ordinal");
    assert.deepEqual(routed(claim("data-web"), index), []);
    assert.deepEqual(routed(claim("data-web-0", { namespace: "other" }), index), [], "other namespace");
  });

  it("routes an ambiguous claim name to every set it could belong to", () => {
    // <data>-<a-b>-0 and <data-a>-<b>-0 are the same name.
    const index = indexOf(set("a-b", { templates: ["data"] }), set("b", { templates: ["data-a"] }));
    assert.deepEqual(routed(claim("data-a-b-0"), index), ["a-b", "b"]);
  });

  it("routes to the union of owners and name matches", () => {
    const index = indexOf(set("web", { templates: ["data"] }));
    const odd = claim("data-web-0", { owners: [{ kind: "StatefulSet", name: "legacy" }] });
    assert.deepEqual(routed(odd, index), ["legacy", "web"]);
  });

  it("maps every claim name the controller generates back to its set (property)", () => {
    const label = fc.stringMatching(/^[a-z]([-a-z0-9]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(label, label, fc.integer({ min: 0, max: 100_000 }), fc.array(label, { maxLength: 4 }), (template, setName, ordinal, others) => {
        const index = indexOf(...others.map((o) => set(o, { templates: ["data"] })), set(setName, { templates: [template] }));
        const routes = routeObject(claim(claimName(template, setName, ordinal)), index).sets;
        assert.ok(routes.has(setName));
        for (const other of routes) {
          const routing = index.get("default", other);
          assert.ok(routing?.claimTemplates.some((t) => claimName(t, other, ordinal) === claimName(template, setName, ordinal)));
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("SetIndex", () => {
  it("reports a change only when routing inputs change (status updates do not re-route)", () => {
    const index = new SetIndex();
    const base = set("web", { templates: ["data"] });
    assert.equal(index.upsert("default", setRoutingOf(base)), true);
    assert.equal(index.upsert("default", setRoutingOf(set("web", { templates: ["data"], rv: "2", replicas: 5 }))), false);
    assert.equal(index.upsert("default", setRoutingOf(set("web", { templates: ["data", "logs"], rv: "3" }))), true);
    assert.equal(index.upsert("default", setRoutingOf(set("web", { templates: ["logs"], selector: { matchLabels: { a: "b" } } }))), true);
    assert.deepEqual([...index.setsWithClaimPrefix("default", "data-web")], []);
    assert.deepEqual([...index.setsWithClaimPrefix("default", "logs-web")], ["web"]);
    assert.equal(index.remove("default", "web"), true);
    assert.equal(index.remove("default", "web"), false);
    assert.deepEqual([...index.setsWithClaimPrefix("default", "logs-web")], []);
  });

  it("routes the same whatever the order sets were added or removed in (property)", () => {
    const names = ["web", "db", "a-b", "b", "cache"] as const;
    const routings: SetRouting[] = names.map((name, i) =>
      setRoutingOf(set(name, { templates: i % 2 === 0 ? ["data"] : ["data-a", "logs"], selector: { matchLabels: { tier: i < 3 ? "x" : "y" } } })),
    );
    const probes = [
      pod("web-0", { labels: { tier: "x" } }),
      pod("b-1", { labels: { tier: "y" } }),
      claim("data-a-b-0"),
      claim("logs-b-2"),
      claim("data-web-7"),
    ];
    fc.assert(
      fc.property(fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 0, maxLength: 5 }), fc.subarray([0, 1, 2, 3, 4]), (order, removed) => {
        const index = new SetIndex();
        for (const i of order) index.upsert("default", routings[i]!);
        for (const i of removed) index.remove("default", names[i]!);
        const reference = new SetIndex();
        for (const i of [...order].sort()) if (!removed.includes(i)) reference.upsert("default", routings[i]!);
        for (const probe of probes) assert.deepEqual(routed(probe, index), routed(probe, reference));
      }),
      { numRuns: RUNS },
    );
  });
});
