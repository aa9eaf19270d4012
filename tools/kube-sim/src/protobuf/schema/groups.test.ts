import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { modelAttributes, parseFieldType, type FieldType } from "../../openapi/models.ts";
import { APPS_V1 } from "./apps-v1.ts";
import { AUTOSCALING_V1, COORDINATION_V1, EVENTS_V1, NETWORKING_V1, POLICY_V1, RBAC_V1 } from "./groups.ts";
import { META_V1 } from "./meta-v1.ts";
import { SCALARS, SPECIAL_TYPES } from "./types.ts";
import type { FieldDef, MessageDef, SchemaTable } from "./types.ts";

const TABLES: Readonly<Record<string, SchemaTable>> = {
  "meta.v1": META_V1,
  "apps.v1": APPS_V1,
  "coordination.v1": COORDINATION_V1,
  "events.v1": EVENTS_V1,
  "autoscaling.v1": AUTOSCALING_V1,
  "policy.v1": POLICY_V1,
  "networking.v1": NETWORKING_V1,
  "rbac.v1": RBAC_V1,
};

const ALL: SchemaTable = Object.assign({}, ...Object.values(TABLES)) as SchemaTable;

const SCALAR_NAMES: ReadonlySet<string> = new Set(SCALARS);
const SPECIALS: ReadonlySet<string> = new Set(SPECIAL_TYPES);
/** The core/v1 messages these tables refer to; ./core-v1.ts defines them. */
const CORE_REFS = new Set(["core.v1.PodTemplateSpec", "core.v1.PersistentVolumeClaim", "core.v1.ObjectReference", "core.v1.EventSource"]);

/**
 * Messages whose Go struct embeds metav1.TypeMeta: their JSON has kind/apiVersion, their protobuf message does not (the
 * runtime.Unknown envelope carries them).
 */
const TYPE_META_EMBEDDERS = new Set([
  "apps.v1.StatefulSet",
  "apps.v1.StatefulSetList",
  "apps.v1.ControllerRevision",
  "apps.v1.ControllerRevisionList",
  "coordination.v1.Lease",
  "coordination.v1.LeaseList",
  "events.v1.Event",
  "events.v1.EventList",
  "apps.v1.Deployment",
  "apps.v1.DeploymentList",
  "autoscaling.v1.Scale",
  "policy.v1.Eviction",
  "policy.v1.PodDisruptionBudget",
  "policy.v1.PodDisruptionBudgetList",
  "networking.v1.NetworkPolicy",
  "networking.v1.NetworkPolicyList",
  "rbac.v1.ClusterRole",
  "rbac.v1.ClusterRoleList",
  "rbac.v1.ClusterRoleBinding",
  "rbac.v1.ClusterRoleBindingList",
  "rbac.v1.Role",
  "rbac.v1.RoleList",
  "rbac.v1.RoleBinding",
  "rbac.v1.RoleBindingList",
  "meta.v1.Status",
  "meta.v1.DeleteOptions",
  "meta.v1.CreateOptions",
  "meta.v1.UpdateOptions",
  "meta.v1.PatchOptions",
  "meta.v1.ApplyOptions",
  "meta.v1.GetOptions",
  "meta.v1.ListOptions",
  "meta.v1.List",
  "meta.v1.PartialObjectMetadata",
  "meta.v1.PartialObjectMetadataList",
]);

/** client-node model -> message, the starting points of the completeness walk. */
const ROOTS: readonly (readonly [string, string])[] = [
  ["V1StatefulSet", "apps.v1.StatefulSet"],
  ["V1StatefulSetList", "apps.v1.StatefulSetList"],
  ["V1ControllerRevision", "apps.v1.ControllerRevision"],
  ["V1ControllerRevisionList", "apps.v1.ControllerRevisionList"],
  ["V1Lease", "coordination.v1.Lease"],
  ["V1LeaseList", "coordination.v1.LeaseList"],
  ["EventsV1Event", "events.v1.Event"],
  ["EventsV1EventList", "events.v1.EventList"],
  ["V1Scale", "autoscaling.v1.Scale"],
  ["V1Eviction", "policy.v1.Eviction"],
  ["V1Deployment", "apps.v1.Deployment"],
  ["V1DeploymentList", "apps.v1.DeploymentList"],
  ["V1PodDisruptionBudget", "policy.v1.PodDisruptionBudget"],
  ["V1PodDisruptionBudgetList", "policy.v1.PodDisruptionBudgetList"],
  ["V1NetworkPolicy", "networking.v1.NetworkPolicy"],
  ["V1NetworkPolicyList", "networking.v1.NetworkPolicyList"],
  ["V1ClusterRole", "rbac.v1.ClusterRole"],
  ["V1ClusterRoleList", "rbac.v1.ClusterRoleList"],
  ["V1ClusterRoleBinding", "rbac.v1.ClusterRoleBinding"],
  ["V1ClusterRoleBindingList", "rbac.v1.ClusterRoleBindingList"],
  ["V1Role", "rbac.v1.Role"],
  ["V1RoleList", "rbac.v1.RoleList"],
  ["V1RoleBinding", "rbac.v1.RoleBinding"],
  ["V1RoleBindingList", "rbac.v1.RoleBindingList"],
  ["V1ObjectMeta", "meta.v1.ObjectMeta"],
  ["V1ListMeta", "meta.v1.ListMeta"],
  ["V1Status", "meta.v1.Status"],
  ["V1DeleteOptions", "meta.v1.DeleteOptions"],
  ["V1Condition", "meta.v1.Condition"],
  ["V1WatchEvent", "meta.v1.WatchEvent"],
  ["V1LabelSelector", "meta.v1.LabelSelector"],
  ["V1FieldSelectorRequirement", "meta.v1.FieldSelectorRequirement"],
];

/** Messages with no client-node model (not in the OpenAPI document); checked by the spot tests below. */
const WITHOUT_MODEL = new Set([
  "meta.v1.TypeMeta",
  "meta.v1.CreateOptions",
  "meta.v1.UpdateOptions",
  "meta.v1.PatchOptions",
  "meta.v1.ApplyOptions",
  "meta.v1.GetOptions",
  "meta.v1.ListOptions",
  "meta.v1.List",
  "meta.v1.PartialObjectMetadata",
  "meta.v1.PartialObjectMetadataList",
]);

function message(name: string): MessageDef {
  const def = ALL[name];
  assert.ok(def !== undefined, `${name} is not in the tables`);
  return def;
}

function field(msg: string, json: string): FieldDef {
  const f = message(msg).fields.find((x) => x.json === json);
  assert.ok(f !== undefined, `${msg} has no field ${json}`);
  return f;
}

/** `[json, no, type]` of every field, for comparing a message with upstream at a glance. */
function shape(msg: string): [string, number, string][] {
  return message(msg).fields.map((f) => [f.json, f.no, f.type]);
}

function keepZeroFields(msg: string): string[] {
  return message(msg)
    .fields.filter((f) => f.keepZero === true)
    .map((f) => f.json)
    .sort();
}

/** Whether a message field's type fits the client-node model attribute's type (the element type for arrays and maps). */
function typeFits(f: FieldDef, t: FieldType): boolean {
  switch (t.kind) {
    case "primitive":
      switch (t.type) {
        case "string":
          return f.type === "string" || f.type === "bytes";
        case "number":
          return f.type === t.format || (t.format === "" && (f.type === "int32" || f.type === "int64"));
        case "boolean":
          return f.type === "bool";
        case "date":
          return f.type === (t.format === "date-time-micro" ? "meta.v1.MicroTime" : "meta.v1.Time");
        case "int-or-string":
          return f.type === "intstr.IntOrString";
        case "any":
          // client-node names MicroTime fields `V1MicroTime` (format date-time-micro) without defining that model.
          if (t.format === "date-time-micro") return f.type === "meta.v1.MicroTime";
          return f.type === "runtime.RawExtension" || f.type === "meta.v1.FieldsV1";
        default:
          return false;
      }
    case "model":
      return !SCALAR_NAMES.has(f.type) && !SPECIALS.has(f.type);
    case "array":
    case "map":
      return false;
    default:
      return false;
  }
}

interface Visit {
  readonly model: string;
  readonly msg: string;
}

/** Every (model, message) pair reachable from the roots through fields typed by messages of these tables. */
function walk(): Visit[] {
  const seen = new Set<string>();
  const out: Visit[] = [];
  const queue: Visit[] = ROOTS.map(([model, msg]) => ({ model, msg }));
  for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
    const key = `${v.model}=${v.msg}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
    const attrs = modelAttributes(v.model);
    assert.ok(attrs !== undefined, `client-node has no model ${v.model}`);
    const fields = new Map(message(v.msg).fields.map((f) => [f.json, f]));
    for (const a of attrs) {
      const f = fields.get(a.baseName);
      if (f === undefined || ALL[f.type] === undefined) continue;
      let t = parseFieldType(a.type, a.format);
      while (t.kind === "array" || t.kind === "map") t = t.kind === "array" ? t.items : t.values;
      if (t.kind === "model") queue.push({ model: t.model, msg: f.type });
    }
  }
  return out;
}

describe("meta/apps/coordination/events/autoscaling/policy/networking/rbac schema tables", () => {
  it("names every message <package>.<Name> of its own table, with no name in two tables", () => {
    const seen = new Set<string>();
    for (const [pkg, table] of Object.entries(TABLES)) {
      for (const name of Object.keys(table)) {
        assert.ok(name.startsWith(`${pkg}.`), `${name} is in the ${pkg} table`);
        assert.match(name.slice(pkg.length + 1), /^[A-Z][A-Za-z0-9]*$/);
        assert.ok(!seen.has(name), `${name} twice`);
        seen.add(name);
      }
    }
  });

  it("defines no special type as a message", () => {
    for (const s of SPECIALS) assert.equal(ALL[s], undefined, s);
  });

  it("has no duplicate field numbers or JSON names within a message, and only valid field numbers", () => {
    for (const [name, def] of Object.entries(ALL)) {
      assert.ok(def.fields.length > 0, `${name} has no fields`);
      const numbers = new Set<number>();
      const names = new Set<string>();
      for (const f of def.fields) {
        assert.ok(Number.isInteger(f.no) && f.no >= 1 && f.no < 2 ** 29 && (f.no < 19000 || f.no > 19999), `${name}.${f.json}: bad number ${f.no}`);
        assert.ok(!numbers.has(f.no), `${name}: field number ${f.no} twice`);
        numbers.add(f.no);
        assert.match(f.json, /^[a-zA-Z][A-Za-z0-9]*$/, `${name}: JSON name ${JSON.stringify(f.json)}`);
        assert.ok(!names.has(f.json), `${name}: JSON name ${f.json} twice`);
        names.add(f.json);
      }
    }
  });

  it("refers only to scalars, special types, its own messages and the allowed core/v1 messages", () => {
    const coreUsed = new Set<string>();
    for (const [name, def] of Object.entries(ALL)) {
      for (const f of def.fields) {
        const t = f.type;
        if (CORE_REFS.has(t)) coreUsed.add(t);
        const ok = SCALAR_NAMES.has(t) || SPECIALS.has(t) || CORE_REFS.has(t) || ALL[t] !== undefined;
        assert.ok(ok, `${name}.${f.json}: unresolved type ${t}`);
      }
    }
    assert.deepEqual([...coreUsed].sort(), [...CORE_REFS].sort(), "the allow-list names exactly the core/v1 messages used");
  });

  it("puts keepZero only on singular scalars, and never makes a field both repeated and a map", () => {
    for (const [name, def] of Object.entries(ALL)) {
      for (const f of def.fields) {
        assert.ok(!(f.repeated === true && f.map === true), `${name}.${f.json}: repeated and map`);
        if (f.keepZero === true) {
          assert.ok(SCALAR_NAMES.has(f.type), `${name}.${f.json}: keepZero on ${f.type}`);
          assert.ok(f.repeated !== true && f.map !== true, `${name}.${f.json}: keepZero on a list or map`);
        }
      }
    }
  });

  it("gives no kind/apiVersion field to a message whose Go struct embeds TypeMeta", () => {
    for (const name of TYPE_META_EMBEDDERS) {
      const jsons = message(name).fields.map((f) => f.json);
      assert.ok(!jsons.includes("kind") && !jsons.includes("apiVersion"), name);
    }
  });

  it("covers every attribute of the client-node models reachable from the served kinds, with fitting types", () => {
    const visits = walk();
    const reached = new Set(visits.map((v) => v.msg));
    for (const { model, msg } of visits) {
      const attrs = modelAttributes(model) ?? [];
      const fields = new Map(message(msg).fields.map((f) => [f.json, f]));
      for (const a of attrs) {
        const where = `${model}.${a.baseName} (${msg})`;
        const f = fields.get(a.baseName);
        if (f === undefined) {
          const typeMeta = TYPE_META_EMBEDDERS.has(msg) && (a.baseName === "kind" || a.baseName === "apiVersion");
          assert.ok(typeMeta, `${where}: no field`);
          continue;
        }
        const t = parseFieldType(a.type, a.format);
        if (t.kind === "array") {
          assert.ok(f.repeated === true, `${where}: an array, the field is not repeated`);
          assert.ok(typeFits(f, t.items), `${where}: ${a.type} vs ${f.type}`);
        } else if (t.kind === "map") {
          assert.ok(f.map === true, `${where}: a map, the field is not`);
          assert.ok(typeFits(f, t.values), `${where}: ${a.type} vs ${f.type}`);
        } else {
          assert.ok(f.repeated !== true && f.map !== true, `${where}: singular, the field is a list or map`);
          assert.ok(typeFits(f, t), `${where}: ${a.type}/${a.format} vs ${f.type}`);
        }
      }
      // The other way round: no field the model lacks (a misspelt JSON name would show here).
      const baseNames = new Set(attrs.map((a) => a.baseName));
      for (const f of message(msg).fields) assert.ok(baseNames.has(f.json), `${msg}.${f.json}: not in ${model}`);
    }
    // Every message is either reached from a model or deliberately model-less.
    for (const name of Object.keys(ALL)) {
      assert.ok(reached.has(name) !== WITHOUT_MODEL.has(name), `${name}: reached=${reached.has(name)}, listed as model-less=${WITHOUT_MODEL.has(name)}`);
    }
    // The walk reaches into the StatefulSet spec's own messages but stops at the core/v1 templates.
    for (const m of ["apps.v1.RollingUpdateStatefulSetStrategy", "apps.v1.StatefulSetOrdinals", "meta.v1.LabelSelectorRequirement", "meta.v1.StatusCause", "meta.v1.ShardInfo"]) {
      assert.ok(reached.has(m), m);
    }
  });

  describe("spot checks against upstream generated.proto and types.go", () => {
    it("meta.v1.Status and its details", () => {
      assert.deepEqual(shape("meta.v1.Status"), [
        ["metadata", 1, "meta.v1.ListMeta"],
        ["status", 2, "string"],
        ["message", 3, "string"],
        ["reason", 4, "string"],
        ["details", 5, "meta.v1.StatusDetails"],
        ["code", 6, "int32"],
      ]);
      assert.deepEqual(keepZeroFields("meta.v1.Status"), []);
      assert.equal(field("meta.v1.StatusDetails", "uid").no, 6);
      assert.equal(field("meta.v1.StatusDetails", "causes").repeated, true);
      assert.deepEqual(shape("meta.v1.StatusCause").map(([j, n]) => [j, n]), [["reason", 1], ["message", 2], ["field", 3]]);
    });

    it("meta.v1.WatchEvent and List", () => {
      assert.deepEqual(shape("meta.v1.WatchEvent"), [["type", 1, "string"], ["object", 2, "runtime.RawExtension"]]);
      assert.equal(field("meta.v1.WatchEvent", "type").keepZero, true);
      assert.equal(field("meta.v1.List", "items").type, "runtime.RawExtension");
      assert.equal(field("meta.v1.List", "items").repeated, true);
    });

    it("meta.v1.ObjectMeta, ListMeta and OwnerReference", () => {
      assert.deepEqual(
        shape("meta.v1.ObjectMeta").map(([j, n]) => [j, n]),
        [
          ["name", 1], ["generateName", 2], ["namespace", 3], ["selfLink", 4], ["uid", 5], ["resourceVersion", 6],
          ["generation", 7], ["creationTimestamp", 8], ["deletionTimestamp", 9], ["deletionGracePeriodSeconds", 10],
          ["labels", 11], ["annotations", 12], ["ownerReferences", 13], ["finalizers", 14], ["managedFields", 17],
        ],
      );
      assert.equal(field("meta.v1.ObjectMeta", "labels").map, true);
      assert.deepEqual(keepZeroFields("meta.v1.ObjectMeta"), ["deletionGracePeriodSeconds"]);
      assert.deepEqual(keepZeroFields("meta.v1.ListMeta"), ["remainingItemCount"]);
      assert.deepEqual(
        shape("meta.v1.OwnerReference").map(([j, n]) => [j, n]).sort((a, b) => Number(a[1]) - Number(b[1])),
        [["kind", 1], ["name", 3], ["uid", 4], ["apiVersion", 5], ["controller", 6], ["blockOwnerDeletion", 7]],
      );
      assert.equal(message("meta.v1.OwnerReference").fields.every((f) => f.keepZero === true), true);
      assert.equal(field("meta.v1.ManagedFieldsEntry", "fieldsV1").type, "meta.v1.FieldsV1");
      assert.equal(field("meta.v1.ManagedFieldsEntry", "fieldsV1").no, 7);
    });

    it("meta.v1 option bodies", () => {
      assert.deepEqual(keepZeroFields("meta.v1.DeleteOptions"), [
        "gracePeriodSeconds",
        "ignoreStoreReadErrorWithClusterBreakingPotential",
        "orphanDependents",
        "propagationPolicy",
      ]);
      assert.equal(field("meta.v1.DeleteOptions", "propagationPolicy").type, "string");
      assert.equal(field("meta.v1.CreateOptions", "fieldManager").no, 3);
      assert.equal(field("meta.v1.UpdateOptions", "fieldManager").no, 2);
      assert.equal(field("meta.v1.PatchOptions", "fieldValidation").no, 4);
      assert.deepEqual(keepZeroFields("meta.v1.PatchOptions"), ["force"]);
      assert.deepEqual(keepZeroFields("meta.v1.Preconditions"), ["resourceVersion", "uid"]);
    });

    it("apps.v1.StatefulSetSpec and StatefulSetStatus", () => {
      assert.equal(field("apps.v1.StatefulSetSpec", "template").type, "core.v1.PodTemplateSpec");
      assert.equal(field("apps.v1.StatefulSetSpec", "volumeClaimTemplates").type, "core.v1.PersistentVolumeClaim");
      assert.equal(field("apps.v1.StatefulSetSpec", "ordinals").no, 11);
      assert.deepEqual(keepZeroFields("apps.v1.StatefulSetSpec"), ["replicas", "revisionHistoryLimit", "serviceName"]);
      assert.deepEqual(keepZeroFields("apps.v1.StatefulSetStatus"), ["availableReplicas", "collisionCount", "replicas"]);
      assert.equal(field("apps.v1.StatefulSetStatus", "collisionCount").no, 9);
      assert.equal(field("apps.v1.StatefulSetStatus", "conditions").no, 10);
      assert.equal(field("apps.v1.StatefulSetStatus", "availableReplicas").no, 11);
      assert.equal(field("apps.v1.RollingUpdateStatefulSetStrategy", "maxUnavailable").type, "intstr.IntOrString");
      assert.deepEqual(keepZeroFields("apps.v1.RollingUpdateStatefulSetStrategy"), ["partition"]);
      assert.deepEqual(keepZeroFields("apps.v1.ControllerRevision"), ["revision"]);
    });

    it("coordination, events, autoscaling and policy", () => {
      assert.equal(field("coordination.v1.LeaseSpec", "renewTime").type, "meta.v1.MicroTime");
      assert.deepEqual(keepZeroFields("coordination.v1.LeaseSpec"), [
        "holderIdentity",
        "leaseDurationSeconds",
        "leaseTransitions",
        "preferredHolder",
        "strategy",
      ]);
      assert.equal(field("events.v1.Event", "eventTime").type, "meta.v1.MicroTime");
      assert.equal(field("events.v1.Event", "deprecatedSource").type, "core.v1.EventSource");
      assert.equal(field("events.v1.Event", "deprecatedCount").no, 15);
      assert.deepEqual(keepZeroFields("events.v1.Event"), []);
      assert.deepEqual(keepZeroFields("events.v1.EventSeries"), ["count"]);
      assert.deepEqual(keepZeroFields("autoscaling.v1.ScaleSpec"), []);
      assert.deepEqual(keepZeroFields("autoscaling.v1.ScaleStatus"), ["replicas"]);
      assert.deepEqual(shape("policy.v1.Eviction"), [["metadata", 1, "meta.v1.ObjectMeta"], ["deleteOptions", 2, "meta.v1.DeleteOptions"]]);
    });
  });
});
