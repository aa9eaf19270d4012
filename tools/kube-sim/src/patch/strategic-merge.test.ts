// Strategic merge patch: expectations ported from upstream tests (named in each test), the patches kubectl
// sends for rollout undo/restart with real recorded objects, and the statuses each failure gets.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { PatchError} from "./index.ts";
import { applyPatch } from "./index.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { cloneJson } from "./json.ts";
import { expectPatchError } from "./testing.ts";
import { STRATEGIC_MERGE_KINDS, STRATEGIC_MERGE_STRUCTS, isStructName, lookupPatchMeta } from "./strategic-schema.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const STS = { apiVersion: "apps/v1", kind: "StatefulSet" };

function smp(target: JsonObject, patch: JsonValue, kind = POD): JsonObject {
  return applyPatch("strategic", target, patch, kind) as JsonObject;
}

function smpError(target: JsonObject, patch: JsonValue, kind = POD): PatchError {
  return expectPatchError(() => smp(target, patch, kind));
}

const names = (list: JsonValue | undefined): JsonValue[] => (list as JsonObject[]).map((item) => item["name"] ?? null);
const spec = (object: JsonObject): JsonObject => object["spec"] as JsonObject;
const meta = (object: JsonObject): JsonObject => object["metadata"] as JsonObject;
const podWith = (containers: JsonObject[], metadata: JsonObject = {}): JsonObject => ({
  ...POD,
  metadata: { name: "p", ...metadata },
  spec: { containers },
});

describe("strategic merge patch: TestCustomStrategicMergePatch (apimachinery patch_test.go)", () => {
  it("unique scalars when merging lists", () => {
    const out = smp(podWith([], { finalizers: ["1", "2"] }), { metadata: { finalizers: ["2", "3"] } });
    assert.deepEqual(meta(out)["finalizers"], ["1", "2", "3"]);
  });

  it("delete map from nested map", () => {
    const out = smp(podWith([], { labels: { key1: "1", key2: "1" } }), { metadata: { labels: { $patch: "delete" } } });
    assert.deepEqual(meta(out)["labels"], {});
  });

  it("delete all items from merging list", () => {
    const out = smp(podWith([{ name: "1" }, { name: "2" }]), { spec: { containers: [{ $patch: "replace" }] } });
    assert.deepEqual(spec(out)["containers"], []);
  });

  it("delete all keys from map / add key and delete all keys from map", () => {
    const target = { ...POD, metadata: { name: "p" }, spec: { containers: [], nodeSelector: { name: "1", value: "1" } } };
    assert.deepEqual(spec(smp(target, { spec: { nodeSelector: { $patch: "replace" } } }))["nodeSelector"], {});
    assert.deepEqual(spec(smp(target, { spec: { nodeSelector: { other: "a", $patch: "replace" } } }))["nodeSelector"], { other: "a" });
  });

  it("delete all duplicate entries in a merging list", () => {
    const out = smp(podWith([{ name: "1" }, { name: "1" }, { name: "2", image: "a" }, { name: "3" }, { name: "3" }]), {
      spec: { containers: [{ name: "1", $patch: "delete" }, { name: "3", $patch: "delete" }] },
    });
    assert.deepEqual(spec(out)["containers"], [{ name: "2", image: "a" }]);
  });
});

describe("strategic merge patch: $setElementOrder (TestStrategicMergePatch raw cases)", () => {
  const live = podWith([{ name: "1", image: "other-a" }, { name: "2", image: "v2", workingDir: "b" }, { name: "3", image: "v3" }]);

  it("add and delete an item in a list and preserve order", () => {
    const out = smp(live, {
      spec: {
        "$setElementOrder/containers": [{ name: "4" }, { name: "2" }, { name: "1" }],
        containers: [{ name: "4", image: "v4" }, { name: "3", $patch: "delete" }],
      },
    });
    assert.deepEqual(spec(out)["containers"], [
      { name: "4", image: "v4" },
      { name: "2", image: "v2", workingDir: "b" },
      { name: "1", image: "other-a" },
    ]);
  });

  it("set elements order in a list with server-only items 3", () => {
    const out = smp(podWith(["1", "2", "7", "9", "8", "3", "4"].map((name) => ({ name }))), {
      spec: { "$setElementOrder/containers": ["2", "1", "4", "3"].map((name) => ({ name })) },
    });
    assert.deepEqual(names(spec(out)["containers"]), ["2", "1", "7", "9", "8", "4", "3"]);
  });

  it("behavior of set element order for a merging list with duplicate", () => {
    const out = smp(podWith([{ name: "1" }, { name: "2", image: "dup1" }, { name: "3" }, { name: "2", image: "dup2" }, { name: "4" }]), {
      spec: { "$setElementOrder/containers": ["2", "1", "4", "3", "2"].map((name) => ({ name })) },
    });
    assert.deepEqual(spec(out)["containers"], [{ name: "2", image: "dup1" }, { name: "2", image: "dup2" }, { name: "1" }, { name: "4" }, { name: "3" }]);
  });

  it("add and delete an item in a int list and preserve order", () => {
    const out = smp(podWith([], { finalizers: ["1", "2", "3"] }), {
      metadata: { "$setElementOrder/finalizers": ["4", "2", "1"], finalizers: ["4"], "$deleteFromPrimitiveList/finalizers": ["3"] },
    });
    assert.deepEqual(meta(out)["finalizers"], ["4", "2", "1"]);
  });

  it("set elements order in a int list with server-only items 2", () => {
    const out = smp(podWith([], { finalizers: ["1", "2", "9", "3", "4"] }), {
      metadata: { "$setElementOrder/finalizers": ["2", "1", "4", "3"] },
    });
    assert.deepEqual(meta(out)["finalizers"], ["2", "1", "9", "4", "3"]);
  });

  it("server-only items keep their place when the patch deletes one item and adds another", () => {
    // kubectl apply after a webhook added INJECTED: upstream deletes B in place and appends D into the slot
    // that frees, and that shifted list is the live order INJECTED is placed by (recorded from kubectl 1.32).
    const target = podWith([{ name: "app", env: ["A", "B", "C", "INJECTED"].map((name) => ({ name, value: "1" })) }]);
    const out = smp(target, {
      spec: {
        containers: [
          {
            name: "app",
            "$setElementOrder/env": [{ name: "C" }, { name: "A" }, { name: "D" }],
            env: [{ name: "D", value: "4" }, { name: "B", $patch: "delete" }],
          },
        ],
      },
    });
    assert.deepEqual(names((spec(out)["containers"] as JsonObject[])[0]?.["env"]), ["C", "A", "INJECTED", "D"]);
  });
});

describe("strategic merge patch: $retainKeys and $deleteFromPrimitiveList", () => {
  it("switches a volume source the way kubectl apply sends it", () => {
    const target = { ...POD, metadata: { name: "p" }, spec: { containers: [], volumes: [{ name: "v", emptyDir: { medium: "Memory" } }] } };
    const out = smp(target, {
      spec: {
        "$setElementOrder/volumes": [{ name: "v" }],
        volumes: [{ $retainKeys: ["hostPath", "name"], emptyDir: null, hostPath: { path: "/x" }, name: "v" }],
      },
    });
    assert.deepEqual(spec(out)["volumes"], [{ name: "v", hostPath: { path: "/x" } }]);
  });

  it("rejects a patch member missing from $retainKeys and a $retainKeys that is not a list with 400", () => {
    const target = podWith([{ name: "c" }]);
    for (const retainKeys of [["name"], "name"]) {
      const error = smpError(target, { spec: { containers: [{ name: "c", $retainKeys: retainKeys, image: "x" }] } });
      assert.equal(error.httpStatus, 400);
      assert.equal(error.reason, "BadRequest");
      assert.equal(error.message, "invalid patch format of retainKeys");
    }
  });

  it("drops a deletion list for a list the object does not have", () => {
    const out = smp(podWith([]), { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } });
    assert.equal(meta(out)["finalizers"], undefined);
  });

  it("deletes from an atomic list of strings too", () => {
    const out = smp(podWith([{ name: "c", args: ["a", "b", "a"] }]), {
      spec: { containers: [{ name: "c", "$deleteFromPrimitiveList/args": ["a"] }] },
    });
    assert.deepEqual((spec(out)["containers"] as JsonObject[])[0]?.["args"], ["b"]);
  });
});

describe("strategic merge patch: the patches kubectl rollout sends", () => {
  interface Recorded {
    statefulSets: JsonObject[];
    controllerRevisions: { set: string; revision: number; raw: string }[];
  }
  const recorded = JSON.parse(
    readFileSync(new URL("../../../../test/fixtures/kcm-v1.32.6.json", import.meta.url), "utf8"),
  ) as Recorded;

  for (const revision of recorded.controllerRevisions) {
    it(`rollout undo to ${revision.set} revision ${revision.revision} restores exactly the recorded template`, () => {
      const set = recorded.statefulSets.find((s) => meta(s)["name"] === revision.set);
      assert.ok(set !== undefined);
      const raw = JSON.parse(revision.raw) as { spec: { template: JsonObject } };
      const out = smp(set, raw, STS);
      const { $patch: _directive, ...template } = raw.spec.template;
      assert.deepEqual(spec(out)["template"], template);
      // Nothing else in the StatefulSet moves.
      assert.deepEqual({ ...spec(out), template: null }, { ...spec(set), template: null });
      assert.deepEqual(out["status"], set["status"]);
    });
  }

  it("rollout undo drops an env var the current template has (replace, not merge)", () => {
    const current = recorded.statefulSets.find((s) => meta(s)["name"] === "v2-db");
    const first = recorded.controllerRevisions.find((r) => r.set === "v2-db" && r.revision === 1);
    assert.ok(current !== undefined && first !== undefined);
    const env = (set: JsonObject): JsonValue =>
      names(((spec(spec(set)["template"] as JsonObject)["containers"] as JsonObject[])[0] as JsonObject)["env"]);
    assert.deepEqual(env(current), ["PGDATA", "WEIRD", "MODE"]);
    assert.deepEqual(env(smp(current, JSON.parse(first.raw) as JsonValue, STS)), ["PGDATA", "WEIRD"]);
  });

  it("rollout restart adds the restartedAt annotation to the template only", () => {
    const current = recorded.statefulSets[0];
    assert.ok(current !== undefined);
    const out = smp(current, { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-29T20:00:00Z" } } } } }, STS);
    const templateMeta = (spec(out)["template"] as JsonObject)["metadata"] as JsonObject;
    assert.deepEqual(templateMeta["annotations"], { "kubectl.kubernetes.io/restartedAt": "2026-11-29T20:00:00Z" });
    assert.deepEqual(templateMeta["labels"], { app: "v1" });
  });
});

describe("strategic merge patch: failures get the apiserver's status", () => {
  const target = podWith([{ name: "a", image: "a" }], { finalizers: ["x"] });
  const empty = podWith([], { finalizers: [] });
  const cases: { name: string; target?: JsonObject; patch: JsonValue; status: number; reason: string; message: string | RegExp }[] = [
    { name: "missing merge key", patch: { spec: { containers: [{ image: "y" }] } }, status: 500, reason: "", message: "map: map[image:y] does not contain declared merge key: name" },
    { name: "$patch merge on a map", patch: { spec: { $patch: "merge" } }, status: 500, reason: "", message: "unknown patch type: merge in map: map[$patch:merge]" },
    { name: "$patch merge in a list", patch: { spec: { containers: [{ $patch: "merge" }] } }, status: 500, reason: "", message: "merging lists cannot yet be specified in the patch" },
    { name: "list of lists", target: empty, patch: { metadata: { finalizers: [["y"]] } }, status: 422, reason: "Invalid", message: "the server rejected our request due to an error in our request" },
    { name: "bad $deleteFromPrimitiveList prefix", patch: { metadata: { "$deleteFromPrimitiveListX/finalizers": [] } }, status: 400, reason: "BadRequest", message: "invalid patch format of primitive list" },
    { name: "bad $setElementOrder prefix", patch: { spec: { "$setElementOrderX/containers": [] } }, status: 400, reason: "BadRequest", message: "invalid patch format of setElementOrder list" },
    { name: "patch is not an object", patch: "x", status: 400, reason: "BadRequest", message: "json: cannot unmarshal string into Go value of type map[string]interface {}" },
    { name: "mixed element types", patch: { metadata: { finalizers: [1] } }, status: 500, reason: "", message: "list element types are not identical: [[x] [1]]" },
    { name: "null element after a map", patch: { spec: { containers: [null] } }, status: 500, reason: "", message: "list element types are not identical: [[map[image:a name:a]] [<nil>]]" },
    { name: "null first element (a recovered panic upstream)", target: empty, patch: { metadata: { finalizers: [null] } }, status: 500, reason: "", message: /^runtime error: / },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.status} ${c.reason === "" ? "(no reason)" : c.reason}`, () => {
      const error = smpError(c.target ?? target, c.patch);
      assert.equal(error.httpStatus, c.status);
      assert.equal(error.reason, c.reason);
      if (typeof c.message === "string") assert.equal(error.message, c.message);
      else assert.match(error.message, c.message);
      const status = error.toStatus();
      assert.equal(status.code, c.status);
      assert.equal(status.reason, c.reason === "" ? undefined : c.reason);
    });
  }

  it("a list of lists keeps the library text as detail, like the other hidden 422s", () => {
    const error = smpError(empty, { metadata: { finalizers: [["y"]] } });
    assert.equal(error.detail, "lists of lists are not supported");
    assert.deepEqual(error.toStatus().details, {});
  });

  it("merging into ControllerRevision data fails like the RawExtension lookup upstream", () => {
    const revision = { apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "r" }, revision: 1, data: { spec: { a: 1 } } };
    const error = smpError(revision, { data: { spec: { a: 2 } } }, { apiVersion: "apps/v1", kind: "ControllerRevision" });
    assert.equal(error.message, 'unable to find api field in struct RawExtension for the json field "spec"');
    assert.equal(error.httpStatus, 500);
  });
});

describe("strategic merge metadata table", () => {
  it("every struct a field refers to exists, and every kind maps to a struct", () => {
    for (const [name, struct] of Object.entries(STRATEGIC_MERGE_STRUCTS)) {
      for (const [field, fieldMeta] of Object.entries(struct.fields as Record<string, { type?: string; strategy?: string; mergeKey?: string }>)) {
        if (fieldMeta.type !== undefined) assert.ok(isStructName(fieldMeta.type), `${name}.${field} -> ${fieldMeta.type}`);
        if (fieldMeta.mergeKey !== undefined) assert.equal(fieldMeta.strategy, "merge", `${name}.${field}`);
      }
    }
    for (const struct of Object.values(STRATEGIC_MERGE_KINDS)) assert.ok(isStructName(struct));
  });

  it("has the merge keys of the fields the StatefulSet controller and its operators touch", () => {
    const key = (struct: Parameters<typeof lookupPatchMeta>[0], field: string): string => {
      const found = lookupPatchMeta(struct, field);
      assert.ok(found !== undefined);
      return `${found.strategy}:${found.mergeKey}`;
    };
    assert.equal(key("PodSpec", "containers"), "merge:name");
    assert.equal(key("PodSpec", "volumes"), "merge:name");
    assert.equal(key("PodSpec", "tolerations"), ":");
    assert.equal(key("Container", "ports"), "merge:containerPort");
    assert.equal(key("Container", "envFrom"), ":");
    assert.equal(key("ObjectMeta", "ownerReferences"), "merge:uid");
    assert.equal(key("ObjectMeta", "finalizers"), "merge:");
    assert.equal(key("ServiceSpec", "ports"), "merge:port");
    assert.equal(key("StatefulSetSpec", "volumeClaimTemplates"), ":");
    assert.equal(key("StatefulSetStatus", "conditions"), "merge:type");
    assert.equal(lookupPatchMeta("RawExtension", "spec"), undefined);
  });

  it("unknown kinds still merge metadata by its tags", () => {
    const out = applyPatch(
      "strategic",
      { apiVersion: "x/v1", kind: "Thing", metadata: { name: "t", finalizers: ["a"] }, spec: { list: [1] } },
      { metadata: { finalizers: ["b"] }, spec: { list: [2] } },
      { apiVersion: "x/v1", kind: "Thing" },
    ) as JsonObject;
    assert.deepEqual(meta(out)["finalizers"], ["b", "a"]);
    assert.deepEqual(spec(out)["list"], [2]);
  });
});

describe("strategic merge patch properties", () => {
  const containerArb = fc.record({ name: fc.constantFrom("a", "b", "c", "d"), image: fc.string({ maxLength: 3 }) });
  const podArb = fc.record({
    containers: fc.uniqueArray(containerArb, { selector: (c) => c.name, maxLength: 4 }),
    finalizers: fc.uniqueArray(fc.constantFrom("f1", "f2", "f3"), { maxLength: 3 }),
  });

  it("never mutates the target or the patch, and is deterministic", () => {
    fc.assert(
      fc.property(podArb, fc.jsonValue({ maxDepth: 4 }), podArb, (pod, noise, other) => {
        const target = podWith(pod.containers, { finalizers: pod.finalizers });
        const patch = { spec: { containers: other.containers, extra: noise }, metadata: { finalizers: other.finalizers } } as JsonValue;
        const targetBefore = cloneJson(target);
        const patchBefore = cloneJson(patch);
        const first = smp(target, patch);
        // fast-check builds some objects without a prototype; compare as JSON.
        assert.deepEqual(cloneJson(target), targetBefore);
        assert.deepEqual(cloneJson(patch), patchBefore);
        assert.deepEqual(smp(target, patch), first);
      }),
      { numRuns: 200 },
    );
  });

  it("patching a merge list with items that are all present keeps every live item", () => {
    fc.assert(
      fc.property(podArb, fc.func(fc.string({ maxLength: 2 })), (pod, image) => {
        const target = podWith(pod.containers);
        const patch = { spec: { containers: pod.containers.map((c, i) => ({ name: c.name, image: image(i) })) } };
        const out = smp(target, patch);
        assert.deepEqual(names(spec(out)["containers"]), pod.containers.map((c) => c.name));
      }),
      { numRuns: 100 },
    );
  });
});
