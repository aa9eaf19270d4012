import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { JsonObject } from "../patch/json.ts";
import { mustFind } from "../resources.ts";
import { FieldSet, field } from "./fieldpath.ts";
import type { ManagedFieldsEntry } from "./managed.ts";
import {
  ApplyConflictError,
  ApplyTypeError,
  MAX_UPDATE_MANAGERS,
  applyConfiguration,
  conflictMessage,
  managerIdentifier,
  managersForUpdate,
  scaleManagedFields,
  updateManagedFields,
} from "./managed.ts";
import { resetFields, zeroObject } from "./resources.ts";
import { schemaFor } from "./schema.ts";
import { compare, merge, toFieldSet } from "./typed.ts";

const STS = mustFind("apps", "statefulsets");
const schema = schemaFor(STS);
const T0 = "2026-12-02T08:00:00Z";
const T1 = "2026-12-02T08:01:00Z";

function stsConfig(replicas: number, image = "nginx:1.27", extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "web", namespace: "default" },
    spec: {
      replicas,
      serviceName: "web",
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image, ports: [{ containerPort: 80 }] }] } },
      ...extra,
    },
  };
}

const apply = (live: JsonObject | undefined, liveEntries: unknown, config: JsonObject, manager: string, force = false, now = T0) =>
  applyConfiguration({
    schema,
    apiVersion: "apps/v1",
    subresource: "",
    resetFields: resetFields(STS, ""),
    live: live ?? zeroObject(STS),
    liveEntries,
    config,
    manager,
    force,
    now,
    objectRef: "default/web; apps/v1, Kind=StatefulSet",
  });

const update = (live: JsonObject, next: JsonObject, manager: string, now = T1, subresource = "") =>
  updateManagedFields({ schema, apiVersion: "apps/v1", subresource, resetFields: resetFields(STS, subresource), live, next, sentEntries: (next["metadata"] as JsonObject)["managedFields"], liveEntries: (live["metadata"] as JsonObject)["managedFields"], manager, now });

function withEntries(obj: JsonObject, entries: ManagedFieldsEntry[] | undefined): JsonObject {
  const metadata = { ...(obj["metadata"] as JsonObject) };
  if (entries === undefined) delete metadata["managedFields"];
  else metadata["managedFields"] = entries as unknown as JsonObject[];
  return { ...obj, metadata };
}

/** A stored object after an apply: the merged object and its entries. */
function applied(live: JsonObject | undefined, config: JsonObject, manager: string, force = false, now = T0): JsonObject {
  const liveEntries = live === undefined ? undefined : (live["metadata"] as JsonObject)["managedFields"];
  const r = apply(live, liveEntries, config, manager, force, now);
  return withEntries(r.object, r.managedFields);
}

const entries = (obj: JsonObject) => ((obj["metadata"] as JsonObject)["managedFields"] ?? []) as unknown as ManagedFieldsEntry[];
const spec = (obj: JsonObject) => obj["spec"] as JsonObject;

describe("field sets and comparisons with the StatefulSet schema", () => {
  it("an applied configuration owns its leaves; list-map items by key (protocol defaulted to TCP), atomic selector whole", () => {
    const set = toFieldSet(stsConfig(2), schema, { strict: true });
    assert.equal(
      set.toJson(),
      '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:name":{},"f:namespace":{}},"f:spec":{"f:replicas":{},"f:selector":{},"f:serviceName":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}',
    );
  });

  it("a create compared with the Go zero object marks new maps and list items with `.`, not value structs", () => {
    const c = compare(zeroObject(STS), { ...stsConfig(2), status: {} }, schema);
    const added = c.added.union(c.modified);
    assert.ok(added.has([field("spec"), field("template"), field("metadata"), field("labels")]), "labels is new: owned as a map too");
    assert.ok(!added.has([field("spec"), field("template")]), "template is a value struct, present in the zero object");
    assert.ok(!added.has([field("spec"), field("template"), field("spec"), field("containers")]), "containers is null in the zero object");
  });

  it("rejects undeclared fields and duplicate keys in a configuration, as upstream's typed conversion", () => {
    assert.throws(() => apply(undefined, undefined, stsConfig(1, "x", { bogus: 1 }), "m"), (e: unknown) => e instanceof ApplyTypeError && e.message === "failed to create typed patch object (default/web; apps/v1, Kind=StatefulSet): .spec.bogus: field not declared in schema");
    const dup = stsConfig(1);
    ((spec(dup)["template"] as JsonObject)["spec"] as JsonObject)["containers"] = [{ name: "c", image: "a" }, { name: "c", image: "b" }];
    assert.throws(() => apply(undefined, undefined, dup, "m"), /\.spec\.template\.spec\.containers: duplicate entries for key \[name="c"\]/);
  });

  it("checks scalar types as upstream's validateScalar; quantities take numbers or strings", () => {
    const env = stsConfig(1);
    ((spec(env)["template"] as JsonObject)["spec"] as JsonObject)["containers"] = [{ name: "c", image: "x", env: [{ name: "A", value: 1 }] }];
    assert.throws(() => apply(undefined, undefined, env, "m"), (e: unknown) => e instanceof ApplyTypeError && e.message.endsWith('.spec.template.spec.containers[name="c"].env[name="A"].value: expected string, got &value.valueUnstructured{Value:1}'));
    assert.throws(() => apply(undefined, undefined, { ...stsConfig(1), spec: { ...spec(stsConfig(1)), replicas: "lots" } }, "m"), /\.spec\.replicas: expected numeric \(int or float\), got string$/);
    const quantities = stsConfig(1);
    ((spec(quantities)["template"] as JsonObject)["spec"] as JsonObject)["containers"] = [{ name: "c", image: "x", resources: { limits: { cpu: 1, memory: "1Gi" } } }];
    assert.doesNotThrow(() => apply(undefined, undefined, quantities, "m"));
  });

  it("merges list-map items by key in upstream's order and replaces atomic lists", () => {
    const live = { spec: { template: { spec: { containers: [{ name: "a", image: "1" }, { name: "b", image: "2" }], tolerations: [{ key: "x" }] } } } };
    const config = { spec: { template: { spec: { containers: [{ name: "c", image: "3" }, { name: "a", image: "4" }], tolerations: [{ key: "y" }] } } } };
    const out = merge(live, config, schema) as JsonObject;
    const podSpec = (spec(out)["template"] as JsonObject)["spec"] as JsonObject;
    assert.deepEqual(podSpec["containers"], [{ name: "c", image: "3" }, { name: "a", image: "4" }, { name: "b", image: "2" }]);
    assert.deepEqual(podSpec["tolerations"], [{ key: "y" }]);
  });
});

describe("list and map types of the other served kinds", () => {
  const set = (resource: string, group: string, obj: JsonObject) => toFieldSet(obj, schemaFor(mustFind(group, resource)), { strict: true }).toJson();

  it("service ports by port and protocol, a Service's selector atomic", () => {
    assert.equal(
      set("services", "", { spec: { selector: { app: "web" }, ports: [{ port: 80, name: "http" }, { port: 53, protocol: "UDP", name: "dns" }] } }),
      '{"f:spec":{"f:ports":{"k:{\\"port\\":53,\\"protocol\\":\\"UDP\\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:name":{},"f:port":{}}},"f:selector":{}}}',
    );
  });

  it("ownerReferences by uid (atomic items), finalizers as a set, conditions by type, tolerations and nodeSelector atomic", () => {
    assert.equal(
      set("pods", "", {
        metadata: { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "u1" }], finalizers: ["a/b"] },
        spec: { tolerations: [{ key: "k" }], nodeSelector: { disk: "ssd" }, containers: [{ name: "c", resources: { limits: { cpu: "1" } } }] },
        status: { conditions: [{ type: "Ready", status: "True" }] },
      }),
      '{"f:metadata":{"f:finalizers":{"v:\\"a/b\\"":{}},"f:ownerReferences":{"k:{\\"uid\\":\\"u1\\"}":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:name":{},"f:resources":{"f:limits":{"f:cpu":{}}}}},"f:nodeSelector":{},"f:tolerations":{}},"f:status":{"f:conditions":{"k:{\\"type\\":\\"Ready\\"}":{".":{},"f:status":{},"f:type":{}}}}}',
    );
  });

  it("volumeClaimTemplates are atomic; a value of the wrong shape is a typed error", () => {
    assert.equal(set("statefulsets", "apps", { spec: { volumeClaimTemplates: [{ metadata: { name: "d" } }] } }), '{"f:spec":{"f:volumeClaimTemplates":{}}}');
    assert.throws(() => set("statefulsets", "apps", { spec: 5 }), /^Error: \.spec: expected map, got 5$|\.spec: expected map, got 5/);
  });
});

describe("managedFields on updates", () => {
  it("records the writer's changed fields, merges repeated writes, drops emptied entries, keeps times of untouched ones", () => {
    const created = withEntries({ ...stsConfig(2), status: {} }, update(zeroObject(STS), { ...stsConfig(2), status: {} }, "kubectl-create", T0));
    assert.deepEqual(entries(created).map((e) => [e.manager, e.operation, e.time]), [["kubectl-create", "Update", T0]]);
    // A second manager changes replicas: it takes the field, the creator loses it.
    const scaled = withEntries({ ...created, spec: { ...spec(created), replicas: 5 } }, undefined);
    const afterScale = withEntries(scaled, update(created, { ...scaled, metadata: created["metadata"] as JsonObject }, "hpa", T1));
    const [first, second] = entries(afterScale);
    assert.equal(first?.manager, "kubectl-create");
    assert.equal(first?.time, T0, "the creator's entry keeps its time");
    assert.equal(JSON.stringify(first?.fieldsV1).includes("f:replicas"), false);
    assert.deepEqual(second?.fieldsV1, { "f:spec": { "f:replicas": {} } });
    // A no-op write takes nothing: entries unchanged, no time bump.
    assert.deepEqual(update(afterScale, afterScale, "hpa", "2026-12-02T09:00:00Z"), entries(afterScale));
    // Removing the only field an entry owns removes the entry.
    const noReplicas = { ...afterScale, spec: { ...spec(afterScale) } };
    delete noReplicas.spec["replicas"];
    assert.deepEqual((update(afterScale, noReplicas, "someone") ?? []).map((e) => e.manager), ["kubectl-create"]);
  });

  it("never owns status through the main resource nor spec through /status; never owns server metadata", () => {
    const live = { ...stsConfig(1), status: {} };
    const next = { ...stsConfig(1), metadata: { name: "web", namespace: "default", uid: "u", resourceVersion: "9", generation: 3 }, status: { replicas: 1 } };
    assert.equal(update(live, next, "x"), undefined);
    const viaStatus = update(live, { ...stsConfig(4), status: { replicas: 1 } }, "sts-controller", T1, "status");
    assert.deepEqual(viaStatus?.map((e) => [e.manager, e.subresource, e.fieldsV1]), [["sts-controller", "status", { "f:status": { "f:replicas": {} } }]]);
  });

  it("a client's managedFields: [] resets, valid ones replace, invalid or empty ones fall back to the live managers", () => {
    const live = [{ manager: "a", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:data": {} } }];
    assert.equal(managersForUpdate(live, [], "").fields.size, 0);
    assert.equal(managersForUpdate(live, [{}], "").fields.size, 0);
    assert.deepEqual([...managersForUpdate(live, [{ manager: "b", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }], "").fields.keys()], ['{"manager":"b","operation":"Apply"}']);
    for (const bad of [[{ manager: "b", operation: "Patch", apiVersion: "v1", fieldsType: "FieldsV1" }], [{ manager: "b", operation: "Update", apiVersion: "", fieldsType: "FieldsV1" }], [{ manager: "b", operation: "Update", apiVersion: "v1" }], [{ manager: "b", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "k:{": {} } }], "nope"]) {
      assert.deepEqual([...managersForUpdate(live, bad, "").fields.keys()], ['{"manager":"a","operation":"Update","apiVersion":"v1"}'], JSON.stringify(bad));
    }
    // A subresource write cannot set managedFields.
    assert.equal(managersForUpdate(live, [], "status").fields.size, 1);
  });

  it(`keeps at most ${MAX_UPDATE_MANAGERS} update entries, merging the oldest into ancient-changes`, () => {
    let obj: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: {} };
    const cm = mustFind("", "configmaps");
    for (let i = 0; i < 12; i++) {
      const next = { ...obj, data: { ...(obj["data"] as JsonObject), [`k${i}`]: "v" } };
      const e = updateManagedFields({ schema: schemaFor(cm), apiVersion: "v1", subresource: "", resetFields: new FieldSet(), live: obj, next, sentEntries: undefined, liveEntries: (obj["metadata"] as JsonObject)["managedFields"], manager: `m${i}`, now: `2026-12-02T08:00:${String(i).padStart(2, "0")}Z` });
      obj = withEntries(next, e);
    }
    const managers = entries(obj).map((e) => e.manager);
    assert.equal(managers.length, MAX_UPDATE_MANAGERS);
    assert.equal(managers[0], "ancient-changes");
    assert.deepEqual(entries(obj)[0]?.fieldsV1, { "f:data": { "f:k0": {}, "f:k1": {}, "f:k2": {} } });
  });
});

describe("server-side apply", () => {
  it("creates the object with one Apply entry owning exactly the applied fields", () => {
    const obj = applied(undefined, stsConfig(2), "kubectl");
    const [only, ...rest] = entries(obj);
    assert.equal(rest.length, 0);
    assert.deepEqual([only?.manager, only?.operation, only?.apiVersion, only?.time], ["kubectl", "Apply", "apps/v1", T0]);
    assert.equal(Object.hasOwn(only?.fieldsV1 ?? {}, "f:metadata"), false, "name and namespace are never owned");
  });

  it("conflicts with another manager's differing value: 409 text and causes as upstream; force takes the field", () => {
    const obj = applied(undefined, stsConfig(2), "kubectl");
    const other = withEntries(obj, [...entries(obj), { manager: "kubectl-client-side-apply", operation: "Update", apiVersion: "apps/v1", time: T0, fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } } }]);
    const err = (() => {
      try {
        applied(other, stsConfig(3), "kubectl");
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(err instanceof ApplyConflictError);
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
    assert.deepEqual(err.causes(), [{ reason: "FieldManagerConflict", message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: ".spec.replicas" }]);
    const forced = applied(other, stsConfig(3), "kubectl", true, T1);
    assert.equal(spec(forced)["replicas"], 3);
    assert.deepEqual(entries(forced).map((e) => e.manager), ["kubectl"], "the other manager lost its only field");
    assert.equal(entries(forced)[0]?.time, T1);
  });

  it("groups several conflicts by manager", () => {
    const a = managerIdentifier({ manager: "a", operation: "Update", apiVersion: "apps/v1", subresource: "" });
    const b = managerIdentifier({ manager: "b", operation: "Apply", apiVersion: "apps/v1", subresource: "scale" });
    assert.equal(
      conflictMessage([
        { manager: b, path: [field("spec"), field("replicas")] },
        { manager: a, path: [field("spec"), field("x")] },
        { manager: a, path: [field("spec"), field("y")] },
      ]),
      'Apply failed with 3 conflicts: conflicts with "a" using apps/v1:\n- .spec.x\n- .spec.y\nconflicts with "b" with subresource "scale":\n- .spec.replicas',
    );
  });

  it("the same value applied by a second manager is shared, not a conflict", () => {
    const obj = applied(undefined, stsConfig(2), "one");
    const both = applied(obj, stsConfig(2), "two");
    assert.deepEqual(entries(both).map((e) => e.manager).sort(), ["one", "two"]);
    // Now "one" stops applying replicas: "two" still owns it, so the value stays.
    const config = stsConfig(2);
    delete spec(config)["replicas"];
    const dropped = applied(both, config, "one");
    assert.equal(spec(dropped)["replicas"], 2);
  });

  it("removes fields the manager applied before and nobody owns now; keeps fields others own", () => {
    const withEnv = stsConfig(2);
    (((spec(withEnv)["template"] as JsonObject)["spec"] as JsonObject)["containers"] as JsonObject[]).push({ name: "sidecar", image: "busybox" });
    const obj = applied(undefined, withEnv, "kubectl");
    const after = applied(obj, stsConfig(2), "kubectl");
    const containers = ((spec(after)["template"] as JsonObject)["spec"] as JsonObject)["containers"] as JsonObject[];
    assert.deepEqual(containers.map((c) => c["name"]), ["c"]);
    // A label another manager added by update survives the applier's next apply.
    const labelled = withEntries({ ...after, metadata: { ...(after["metadata"] as JsonObject), labels: { team: "x" } } }, undefined);
    const next = withEntries(labelled, update(after, { ...labelled, metadata: { ...(labelled["metadata"] as JsonObject), managedFields: entries(after) as unknown as JsonObject[] } }, "kubectl-label"));
    const reapplied = applied(next, stsConfig(2), "kubectl");
    assert.deepEqual((reapplied["metadata"] as JsonObject)["labels"], { team: "x" });
  });

  it("lets kubectl take fields its client-side last-applied annotation lists (upgrade from client-side apply)", () => {
    const config = stsConfig(2);
    const live = { ...config, metadata: { ...(config["metadata"] as JsonObject), annotations: { "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify(config) } } };
    const csa = withEntries(live, update(zeroObject(STS), live, "kubectl-client-side-apply", T0));
    const upgraded = applied(csa, stsConfig(3), "kubectl");
    assert.equal(spec(upgraded)["replicas"], 3);
    const annotation = ((upgraded["metadata"] as JsonObject)["annotations"] as JsonObject)["kubectl.kubernetes.io/last-applied-configuration"] as string;
    assert.equal((JSON.parse(annotation) as JsonObject)["spec"] !== undefined && ((JSON.parse(annotation) as { spec: { replicas: number } }).spec.replicas), 3, "the annotation follows the applied configuration");
  });

  it("moves .spec.replicas to the scale manager, with subresource scale and the parent's version", () => {
    const obj = applied(undefined, stsConfig(2), "kubectl");
    const scaled = scaleManagedFields({ liveEntries: entries(obj), apiVersion: "apps/v1", oldReplicas: 2, newReplicas: 4, manager: "kubectl", now: T1 });
    const scaleEntry = scaled?.find((e) => e.subresource === "scale");
    assert.deepEqual(scaleEntry, { manager: "kubectl", operation: "Update", apiVersion: "apps/v1", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } }, subresource: "scale" });
    assert.equal(JSON.stringify(scaled?.find((e) => e.operation === "Apply")?.fieldsV1).includes("f:replicas"), false);
    const err = (() => {
      try {
        applied(withEntries({ ...obj, spec: { ...spec(obj), replicas: 4 } }, scaled), stsConfig(2), "kubectl");
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(err instanceof ApplyConflictError);
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas');
  });
});

const configs = fc
  .record({
    replicas: fc.integer({ min: 0, max: 5 }),
    image: fc.constantFrom("a:1", "b:2"),
    // Non-empty: an applied empty map or list is owned, but is not stored (upstream stores null, Go drops it).
    labels: fc.dictionary(fc.constantFrom("app", "tier", "x"), fc.constantFrom("1", "2"), { minKeys: 1, maxKeys: 3 }),
    containers: fc.uniqueArray(fc.constantFrom("c", "d", "e"), { minLength: 1, maxLength: 3 }),
    ports: fc.uniqueArray(fc.integer({ min: 80, max: 83 }), { minLength: 1, maxLength: 2 }),
  })
  .map(({ replicas, image, labels, containers, ports }) => {
    const config = stsConfig(replicas, image);
    (config["metadata"] as JsonObject)["labels"] = labels;
    ((spec(config)["template"] as JsonObject)["spec"] as JsonObject)["containers"] = containers.map((name) => ({ name, image, ports: ports.map((containerPort) => ({ containerPort })) }));
    return JSON.parse(JSON.stringify(config)) as JsonObject;
  });

describe("server-side apply properties", () => {
  it("applying the same configuration twice is idempotent and leaves one Apply entry", () => {
    fc.assert(
      fc.property(configs, (config) => {
        const once = applied(undefined, config, "kubectl");
        const r = apply(once, entries(once), config, "kubectl", false, T1);
        assert.equal(r.changed, false);
        assert.deepEqual(withEntries(r.object, r.managedFields), once);
        assert.equal(entries(once).filter((e) => e.operation === "Apply").length, 1);
      }),
      { numRuns: 60 },
    );
  });

  it("the stored object contains every applied field, whatever was applied before", () => {
    fc.assert(
      fc.property(configs, configs, (first, second) => {
        const obj = applied(applied(undefined, first, "kubectl"), second, "kubectl", true, T1);
        const want = toFieldSet(second, schema);
        const have = toFieldSet(obj, schema);
        assert.ok(want.difference(have).isEmpty(), want.difference(have).toJson());
        // And what the applier owns is exactly the last configuration's fields (identity metadata aside).
        const mine = FieldSet.fromFieldsV1(entries(obj).find((e) => e.manager === "kubectl" && e.operation === "Apply")?.fieldsV1);
        assert.ok(mine.difference(want).isEmpty());
      }),
      { numRuns: 60 },
    );
  });
});
