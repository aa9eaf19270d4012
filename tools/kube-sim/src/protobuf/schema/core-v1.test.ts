import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { modelAttributes, parseFieldType, type FieldType } from "../../openapi/models.ts";
import { CORE_V1 } from "./core-v1.ts";
import { SCALARS, SPECIAL_TYPES } from "./types.ts";
import type { FieldDef, MessageDef } from "./types.ts";

const SCALAR_NAMES: ReadonlySet<string> = new Set(SCALARS);
const SPECIALS: ReadonlySet<string> = new Set(SPECIAL_TYPES);
/** The meta/v1 messages core/v1 refers to; they are defined by the meta/v1 table. */
const META_MESSAGES = new Set(["meta.v1.ObjectMeta", "meta.v1.ListMeta", "meta.v1.LabelSelector", "meta.v1.Condition", "meta.v1.OwnerReference"]);

function message(name: string): MessageDef {
  const def = CORE_V1[name];
  assert.ok(def !== undefined, `${name} is not in CORE_V1`);
  return def;
}

function field(msg: string, json: string): FieldDef {
  const f = flatFields(msg).get(json);
  assert.ok(f !== undefined, `${msg} has no field ${json}`);
  return f;
}

/** A message's JSON-visible fields, with inlined (`json: ""`) embedded messages expanded. */
function flatFields(name: string): Map<string, FieldDef> {
  const out = new Map<string, FieldDef>();
  for (const f of message(name).fields) {
    if (f.json === "") {
      for (const [k, v] of flatFields(f.type)) {
        assert.ok(!out.has(k), `${name}: inlined ${f.type} repeats JSON name ${k}`);
        out.set(k, v);
      }
    } else {
      assert.ok(!out.has(f.json), `${name}: JSON name ${f.json} twice`);
      out.set(f.json, f);
    }
  }
  return out;
}

describe("CORE_V1 schema", () => {
  it("names every message core.v1.<Name>", () => {
    for (const name of Object.keys(CORE_V1)) assert.match(name, /^core\.v1\.[A-Z][A-Za-z0-9]*$/);
  });

  it("refers only to scalars, special types, its own messages and known meta/v1 messages", () => {
    for (const [name, def] of Object.entries(CORE_V1)) {
      for (const f of def.fields) {
        const t = f.type;
        const ok = SCALAR_NAMES.has(t) || SPECIALS.has(t) || META_MESSAGES.has(t) || (t.startsWith("core.v1.") && CORE_V1[t] !== undefined);
        assert.ok(ok, `${name}.${f.json || "(inline)"}: unresolved type ${t}`);
      }
    }
  });

  it("has no duplicate field numbers or JSON names within a message", () => {
    for (const [name, def] of Object.entries(CORE_V1)) {
      const numbers = new Set<number>();
      for (const f of def.fields) {
        assert.ok(Number.isInteger(f.no) && f.no > 0, `${name}.${f.json}: bad field number ${f.no}`);
        assert.ok(!numbers.has(f.no), `${name}: field number ${f.no} twice`);
        numbers.add(f.no);
      }
      flatFields(name); // asserts JSON names are unique, inlined messages included
    }
  });

  it("puts keepZero only on singular scalars, and inlines only singular core/v1 messages", () => {
    for (const [name, def] of Object.entries(CORE_V1)) {
      for (const f of def.fields) {
        if (f.keepZero === true) {
          assert.ok(SCALAR_NAMES.has(f.type) && f.repeated !== true && f.map !== true, `${name}.${f.json}: keepZero on a non-scalar`);
        }
        assert.ok(!(f.repeated === true && f.map === true), `${name}.${f.json}: both repeated and map`);
        if (f.json === "") {
          assert.ok(f.type.startsWith("core.v1.") && f.repeated !== true && f.map !== true, `${name}.${f.no}: bad inline`);
        }
      }
    }
  });

  it("has upstream's wire facts for a sample of fields", () => {
    const facts: [string, string, number, string, boolean][] = [
      ["core.v1.Pod", "spec", 2, "core.v1.PodSpec", false],
      ["core.v1.Pod", "status", 3, "core.v1.PodStatus", false],
      ["core.v1.PodSpec", "containers", 2, "core.v1.Container", false],
      ["core.v1.PodSpec", "terminationGracePeriodSeconds", 4, "int64", true],
      ["core.v1.PodSpec", "hostNetwork", 11, "bool", false],
      ["core.v1.Container", "name", 1, "string", true],
      ["core.v1.ContainerPort", "containerPort", 3, "int32", true],
      ["core.v1.ContainerStatus", "ready", 4, "bool", true],
      ["core.v1.ContainerStatus", "restartCount", 5, "int32", true],
      ["core.v1.ContainerStatus", "started", 9, "bool", true],
      ["core.v1.ConfigMap", "binaryData", 3, "bytes", false],
      ["core.v1.ConfigMap", "immutable", 4, "bool", true],
      ["core.v1.Volume", "persistentVolumeClaim", 10, "core.v1.PersistentVolumeClaimVolumeSource", false],
      ["core.v1.Probe", "httpGet", 2, "core.v1.HTTPGetAction", false],
      ["core.v1.Probe", "initialDelaySeconds", 2, "int32", false],
      ["core.v1.Event", "eventTime", 10, "meta.v1.MicroTime", false],
      ["core.v1.Event", "count", 8, "int32", false],
      ["core.v1.PersistentVolumeClaimSpec", "resources", 2, "core.v1.VolumeResourceRequirements", false],
      ["core.v1.ResourceRequirements", "limits", 1, "resource.Quantity", false],
      ["core.v1.ServicePort", "targetPort", 4, "intstr.IntOrString", false],
    ];
    for (const [msg, json, no, type, keepZero] of facts) {
      const f = field(msg, json);
      assert.deepEqual([f.no, f.type, f.keepZero === true], [no, type, keepZero], `${msg}.${json}`);
    }
    assert.equal(field("core.v1.ConfigMap", "binaryData").map, true);
    assert.equal(field("core.v1.ResourceRequirements", "limits").map, true);
    assert.equal(field("core.v1.PodSpec", "volumes").repeated, true);
  });

  it("has a field for every JSON name client-node's models have, for every core/v1 model reachable from the served kinds", () => {
    const roots: [string, string][] = [
      ["V1Pod", "core.v1.Pod"],
      ["V1PodList", "core.v1.PodList"],
      ["V1PodTemplate", "core.v1.PodTemplate"],
      ["V1PodTemplateList", "core.v1.PodTemplateList"],
      ["V1PersistentVolumeClaim", "core.v1.PersistentVolumeClaim"],
      ["V1PersistentVolumeClaimList", "core.v1.PersistentVolumeClaimList"],
      ["V1PersistentVolume", "core.v1.PersistentVolume"],
      ["V1PersistentVolumeList", "core.v1.PersistentVolumeList"],
      ["V1Service", "core.v1.Service"],
      ["V1ServiceList", "core.v1.ServiceList"],
      ["V1ConfigMap", "core.v1.ConfigMap"],
      ["V1ConfigMapList", "core.v1.ConfigMapList"],
      ["V1Namespace", "core.v1.Namespace"],
      ["V1NamespaceList", "core.v1.NamespaceList"],
      ["V1Node", "core.v1.Node"],
      ["V1NodeList", "core.v1.NodeList"],
      ["CoreV1Event", "core.v1.Event"],
      ["CoreV1EventList", "core.v1.EventList"],
      ["V1ObjectReference", "core.v1.ObjectReference"],
      ["V1Secret", "core.v1.Secret"],
      ["V1ServiceAccount", "core.v1.ServiceAccount"],
      ["V1Endpoints", "core.v1.Endpoints"],
    ];
    const seen = new Set<string>();
    const missing: string[] = [];
    const mismatched: string[] = [];
    const walk = (model: string, msg: string): void => {
      const key = `${model} ${msg}`;
      if (seen.has(key)) return;
      seen.add(key);
      const attrs = modelAttributes(model);
      assert.ok(attrs !== undefined, `client-node has no model ${model}`);
      const fields = flatFields(msg);
      for (const attr of attrs) {
        // apiVersion and kind are TypeMeta: the envelope carries them, not the message.
        if (attr.baseName === "apiVersion" || attr.baseName === "kind") continue;
        const f = fields.get(attr.baseName);
        if (f === undefined) {
          missing.push(`${msg}.${attr.baseName} (${model})`);
          continue;
        }
        let t: FieldType = parseFieldType(attr.type, attr.format);
        if (t.kind === "array") {
          if (f.repeated !== true) mismatched.push(`${msg}.${attr.baseName}: client-node has an array`);
          t = t.items;
        } else if (t.kind === "map") {
          if (f.map !== true) mismatched.push(`${msg}.${attr.baseName}: client-node has a map`);
          t = t.values;
        } else if (f.repeated === true || f.map === true) {
          mismatched.push(`${msg}.${attr.baseName}: client-node has a single value`);
        }
        if (t.kind === "model" && f.type.startsWith("core.v1.")) walk(t.model, f.type);
        else if (t.kind === "model" && !f.type.startsWith("meta.v1.")) mismatched.push(`${msg}.${attr.baseName}: ${f.type} vs model ${t.model}`);
        else if (t.kind !== "model" && f.type.startsWith("core.v1.")) mismatched.push(`${msg}.${attr.baseName}: ${f.type} vs ${attr.type}`);
      }
    };
    for (const [model, msg] of roots) walk(model, msg);
    assert.deepEqual(missing, []);
    assert.deepEqual(mismatched, []);
    assert.ok(seen.size > 100, `walked only ${seen.size} models`);
  });
});
