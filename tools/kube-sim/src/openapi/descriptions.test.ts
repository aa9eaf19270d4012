import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DESCRIPTIONS, fieldDoc } from "./descriptions.ts";
import { generateOpenApi } from "./generate.ts";

type Schema = { description?: string; type?: string; $ref?: string; allOf?: Schema[]; enum?: string[]; properties?: Record<string, Schema> };

describe("OpenAPI descriptions", () => {
  const docs = generateOpenApi();
  const v2 = (JSON.parse(docs.v2) as { definitions: Record<string, Schema> }).definitions;
  const apps = docs.v3.get("apis/apps/v1");
  assert.ok(apps);
  const v3 = (JSON.parse(apps.body) as { components: { schemas: Record<string, Schema> } }).components.schemas;
  // Every group version's v3 document together: a definition is in those whose kinds reach it.
  const allV3: Record<string, Schema> = {};
  for (const doc of docs.v3.values()) Object.assign(allV3, (JSON.parse(doc.body) as { components: { schemas: Record<string, Schema> } }).components.schemas);

  it("documents only definitions and fields the documents have, in v2 and v3", () => {
    for (const [name, doc] of Object.entries(DESCRIPTIONS)) {
      for (const [style, schemas] of [["v2", v2], ["v3", allV3]] as const) {
        const schema = schemas[name];
        assert.ok(schema, `${style}: ${name} is not published`);
        assert.equal(schema.description, doc.description, `${style}: ${name}`);
        for (const field of Object.keys(doc.fields)) {
          const prop: Schema | undefined = schema.properties?.[field];
          assert.ok(prop, `${style}: ${name} has no field ${field}`);
          assert.equal(prop.description, fieldDoc(name, field)?.description, `${style}: ${name}.${field}`);
        }
      }
    }
  });

  it("documents every field of the StatefulSet tree and ControllerRevision", () => {
    for (const name of ["StatefulSet", "StatefulSetSpec", "StatefulSetStatus", "StatefulSetCondition", "StatefulSetUpdateStrategy", "RollingUpdateStatefulSetStrategy", "StatefulSetPersistentVolumeClaimRetentionPolicy", "StatefulSetOrdinals", "ControllerRevision"]) {
      const schema = v3[`io.k8s.api.apps.v1.${name}`];
      for (const [field, prop] of Object.entries(schema?.properties ?? {})) assert.ok(prop.description, `${name}.${field} has no description`);
    }
  });

  it("documents every field of the other served kinds' top-level trees", () => {
    const core = ["Pod", "PodSpec", "Container", "ContainerPort", "EnvVar", "ResourceRequirements", "Probe", "HTTPGetAction", "VolumeMount", "Volume", "PodStatus", "ContainerStatus", "PodCondition"];
    const storage = ["PersistentVolumeClaim", "PersistentVolumeClaimSpec", "PersistentVolumeClaimStatus", "PersistentVolume", "PersistentVolumeSpec", "PersistentVolumeStatus"];
    const others = ["Namespace", "NamespaceSpec", "NamespaceStatus", "ConfigMap", "Service", "ServiceSpec", "ServicePort", "Event", "Node", "NodeSpec", "NodeStatus"];
    const names = [...[...core, ...storage, ...others].map((n) => `io.k8s.api.core.v1.${n}`), "io.k8s.api.events.v1.Event", "io.k8s.api.coordination.v1.LeaseSpec", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
    for (const name of names) {
      const schema = allV3[name];
      assert.ok(schema?.description, `${name} has no description`);
      for (const [field, prop] of Object.entries(schema.properties ?? {})) assert.ok(prop.description, `${name}.${field} has no description`);
    }
  });

  it("wraps a documented reference in allOf in v3 and keeps it beside the $ref in v2", () => {
    const v3Field = v3["io.k8s.api.apps.v1.StatefulSetSpec"]?.properties?.["updateStrategy"];
    assert.deepEqual(v3Field?.allOf, [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.StatefulSetUpdateStrategy" }]);
    assert.equal(v3Field?.$ref, undefined);
    const v2Field = v2["io.k8s.api.apps.v1.StatefulSetSpec"]?.properties?.["updateStrategy"];
    assert.equal(v2Field?.$ref, "#/definitions/io.k8s.api.apps.v1.StatefulSetUpdateStrategy");
    assert.match(v2Field?.description ?? "", /RollingUpdate/);
    assert.deepEqual(v3["io.k8s.api.apps.v1.StatefulSetUpdateStrategy"]?.properties?.["type"]?.enum, ["OnDelete", "RollingUpdate"]);
    assert.equal(allV3["io.k8s.api.core.v1.PodDNSConfig"]?.description, undefined, "undocumented definitions stay as they were");
  });
});
