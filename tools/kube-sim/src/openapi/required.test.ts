// The `required` lists (required.ts) against their source: client-node's generated models, where a required field
// is a property declared without `?`. Every published definition is checked, so a definition that becomes reachable
// or a client-node upgrade that changes a list fails here until required.ts is brought up to date.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import { generateOpenApi } from "./generate.ts";
import { definitionName } from "./names.ts";
import { REQUIRED, requiredFields } from "./required.ts";

type Schema = { required?: string[]; properties?: Record<string, unknown> };

const modelsDir = join(dirname(createRequire(import.meta.url).resolve("@kubernetes/client-node")), "gen", "models");

/** The properties of a generated model class declared without `?`. */
function declaredRequired(model: string): string[] {
  const text = readFileSync(join(modelsDir, `${model}.d.ts`), "utf8");
  const body = text.slice(text.indexOf("export declare class"));
  return [...body.matchAll(/^\s+'([^']+)': /gm)].map((m) => m[1] ?? "").sort();
}

describe("OpenAPI required lists", () => {
  const docs = generateOpenApi();
  const v2 = (JSON.parse(docs.v2) as { definitions: Record<string, Schema> }).definitions;
  const models = new Map(Object.keys(k8s).map((name) => [definitionName(name), name]));

  it("match client-node's models for every published definition", () => {
    for (const name of Object.keys(v2)) {
      const model = models.get(name);
      if (model === undefined) continue; // Patch and IntOrString are written by hand and have none
      assert.deepEqual([...requiredFields(name)].sort(), declaredRequired(model), name);
    }
    for (const name of Object.keys(REQUIRED)) assert.ok(v2[name], `${name} is listed but not published`);
  });

  it("are published in v2 and v3, e.g. Container.name and PodSpec.containers, and ObjectMeta has none", () => {
    const core = docs.v3.get("api/v1");
    assert.ok(core);
    const v3 = (JSON.parse(core.body) as { components: { schemas: Record<string, Schema> } }).components.schemas;
    for (const schemas of [v2, v3]) {
      assert.deepEqual(schemas["io.k8s.api.core.v1.Container"]?.required, ["name"]);
      assert.deepEqual(schemas["io.k8s.api.core.v1.PodSpec"]?.required, ["containers"]);
      assert.deepEqual(schemas["io.k8s.api.core.v1.Event"]?.required, ["involvedObject", "metadata"]);
      assert.equal(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]?.required, undefined);
      assert.equal(schemas["io.k8s.api.core.v1.Pod"]?.required, undefined);
    }
    assert.deepEqual(v2["io.k8s.api.apps.v1.StatefulSetSpec"]?.required, ["selector", "template"]);
  });
});
