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

  it("documents only definitions and fields the documents have, in v2 and v3", () => {
    for (const [name, doc] of Object.entries(DESCRIPTIONS)) {
      for (const [style, schemas] of [["v2", v2], ["v3", v3]] as const) {
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

  it("wraps a documented reference in allOf in v3 and keeps it beside the $ref in v2", () => {
    const v3Field = v3["io.k8s.api.apps.v1.StatefulSetSpec"]?.properties?.["updateStrategy"];
    assert.deepEqual(v3Field?.allOf, [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.StatefulSetUpdateStrategy" }]);
    assert.equal(v3Field?.$ref, undefined);
    const v2Field = v2["io.k8s.api.apps.v1.StatefulSetSpec"]?.properties?.["updateStrategy"];
    assert.equal(v2Field?.$ref, "#/definitions/io.k8s.api.apps.v1.StatefulSetUpdateStrategy");
    assert.match(v2Field?.description ?? "", /RollingUpdate/);
    assert.deepEqual(v3["io.k8s.api.apps.v1.StatefulSetUpdateStrategy"]?.properties?.["type"]?.enum, ["OnDelete", "RollingUpdate"]);
    assert.equal(v3["io.k8s.api.core.v1.PodSpec"]?.description, undefined, "undocumented kinds stay as they were");
  });
});
