// The stored objects of a real kube-apiserver v1.32.6 (test/fixtures/kcm-v1.32.6.json) against what this
// module stores for the same requests. Allowed differences, and only these (ADR 0035, ADR 0036):
// - v1.32 wrote `"creationTimestamp": null` into embedded ObjectMeta; v1.34+ omits it;
// - with MaxUnavailableStatefulSet on (the v1.37 default) `rollingUpdate.maxUnavailable: 1` is added.
// Server bookkeeping (uid, resourceVersion, timestamps, generation, managedFields, controller-written
// status, the last-applied annotation) is not compared.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { prepareForCreate, prepareForUpdate, validateCreate, validateUpdate } from "./index.ts";
import { cloneJson, getObject, goJson, isObject, objectsIn, type JsonObject } from "./json.ts";
import { CLAIMS, PODS, STATEFULSETS } from "./testing.ts";

interface Revision {
  set: string;
  name: string;
  raw: string;
}

interface Vectors {
  inputs: Record<string, string>;
  controllerRevisions: Revision[];
  statefulSets: JsonObject[];
  pods: JsonObject[];
  persistentVolumeClaims: JsonObject[];
}

const vectors = JSON.parse(readFileSync(new URL("../../../../test/fixtures/kcm-v1.32.6.json", import.meta.url), "utf8")) as Vectors;


const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
const GATE_OFF = { featureGates: { MaxUnavailableStatefulSet: false } };

function stored(list: JsonObject[], name: string): JsonObject {
  const found = list.find((o) => getObject(o, "metadata")?.["name"] === name);
  if (found === undefined) throw new Error(`no vector ${name}`);
  return cloneJson(found);
}

/** The 1.32 `creationTimestamp: null` in embedded ObjectMeta, the one known version difference. */
function dropNullCreationTimestamps(spec: JsonObject): JsonObject {
  const out = cloneJson(spec);
  const templateMeta = getObject(getObject(out, "template"), "metadata");
  if (templateMeta?.["creationTimestamp"] === null) delete templateMeta["creationTimestamp"];
  for (const claim of objectsIn(out["volumeClaimTemplates"])) {
    const meta = getObject(claim, "metadata");
    if (meta?.["creationTimestamp"] === null) delete meta["creationTimestamp"];
  }
  return out;
}

/** What `kubectl apply` sent: the last-applied JSON plus the annotation holding it. */
function applied(sts: JsonObject): JsonObject {
  const lastApplied = String(getObject(getObject(sts, "metadata"), "annotations")?.[LAST_APPLIED]);
  const body = JSON.parse(lastApplied) as JsonObject;
  const metadata = getObject(body, "metadata") ?? {};
  metadata["annotations"] = { ...(getObject(metadata, "annotations") ?? {}), [LAST_APPLIED]: lastApplied };
  return body;
}

/** The YAML inputs of the fixture, converted by hand (no YAML dependency). */
const YAML_INPUTS: Record<string, JsonObject> = {
  v1: {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "v1", namespace: "vec" },
    spec: {
      serviceName: "v1",
      replicas: 2,
      selector: { matchLabels: { app: "v1" } },
      template: { metadata: { labels: { app: "v1" } }, spec: { containers: [{ name: "c", image: "nginx:1.25" }] } },
    },
  },
  "v2-db": {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "v2-db", namespace: "vec", annotations: { "kubernetes.io/change-cause": "initial rollout" } },
    spec: {
      serviceName: "db",
      replicas: 2,
      selector: { matchLabels: { app: "db", tier: "data" } },
      template: {
        metadata: { labels: { app: "db", tier: "data" }, annotations: { "prometheus.io/scrape": "true" } },
        spec: {
          terminationGracePeriodSeconds: 10,
          containers: [
            {
              name: "postgres",
              image: "postgres:16",
              ports: [{ containerPort: 5432, name: "pg" }],
              env: [
                { name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" },
                { name: "WEIRD", value: "a<b>&c \u2028 é" },
              ],
              resources: { requests: { cpu: "0.5", memory: "1Gi" }, limits: { memory: "1073741824" } },
              readinessProbe: { exec: { command: ["pg_isready"] }, periodSeconds: 5 },
              volumeMounts: [{ name: "data", mountPath: "/var/lib/postgresql/data" }],
            },
          ],
        },
      },
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } } }],
    },
  },
};

/** The later `kubectl` change to v2-db: one more env var and a new change-cause. */
function bumpEnv(sts: JsonObject): JsonObject {
  const out = cloneJson(sts);
  const container = objectsIn(getObject(getObject(getObject(out, "spec"), "template"), "spec")?.["containers"])[0];
  if (container === undefined) throw new Error("no container");
  container["env"] = [...objectsIn(container["env"]), { name: "MODE", value: "replica" }];
  const annotations = getObject(getObject(out, "metadata"), "annotations") ?? {};
  annotations["kubernetes.io/change-cause"] = "bump env";
  return out;
}

function created(input: JsonObject, options = GATE_OFF): JsonObject {
  const out = prepareForCreate(STATEFULSETS, input, options);
  assert.deepEqual(validateCreate(STATEFULSETS, out), [], "the recorded input is valid");
  return out;
}

describe("StatefulSets stored by kube-apiserver v1.32.6", () => {
  it("the fixture's YAML inputs are what kubectl recorded as last-applied", () => {
    for (const name of ["v1", "v2-db"]) {
      const fromAnnotation = applied(stored(vectors.statefulSets, name));
      const metadata = getObject(fromAnnotation, "metadata") ?? {};
      delete metadata["annotations"];
      const expected = cloneJson(YAML_INPUTS[name] ?? {});
      delete getObject(expected, "metadata")?.["annotations"];
      assert.deepEqual(fromAnnotation, expected, name);
      assert.ok(vectors.inputs[name]?.includes(`name: ${name}`));
    }
  });

  it("v1: the stored spec equals the defaulted input (TestSetDefaultStatefulSet)", () => {
    const expected = stored(vectors.statefulSets, "v1");
    const out = created(applied(expected));
    assert.deepEqual(out["spec"], dropNullCreationTimestamps(getObject(expected, "spec") ?? {}));
    assert.deepEqual(out["status"], { replicas: 0, availableReplicas: 0 });
    assert.equal(getObject(out, "metadata")?.["generation"], 1);
  });

  it("v2-db: create then the env update store the recorded spec, quantities canonical", () => {
    const expected = stored(vectors.statefulSets, "v2-db");
    const first = created(applied(expected));
    const second = prepareForUpdate(STATEFULSETS, "", bumpEnv(first), first, GATE_OFF);
    assert.deepEqual(validateUpdate(STATEFULSETS, "", second, first), []);
    assert.deepEqual(second["spec"], dropNullCreationTimestamps(getObject(expected, "spec") ?? {}));
    assert.equal(getObject(second, "metadata")?.["generation"], 2, "a spec change bumps the generation");
    const annotations = getObject(getObject(second, "metadata"), "annotations");
    assert.equal(annotations?.["kubernetes.io/change-cause"], "bump env");
    const containers = objectsIn(getObject(getObject(getObject(second, "spec"), "template"), "spec")?.["containers"]);
    assert.deepEqual(getObject(containers[0], "resources"), { limits: { memory: "1073741824" }, requests: { cpu: "500m", memory: "1Gi" } });
  });

  it("with MaxUnavailableStatefulSet on (v1.37) the only extra field is rollingUpdate.maxUnavailable", () => {
    for (const name of ["v1", "v2-db"]) {
      const expected = stored(vectors.statefulSets, name);
      const input = name === "v2-db" ? bumpEnv(applied(expected)) : applied(expected);
      const out = created(input, { featureGates: { MaxUnavailableStatefulSet: true } });
      const spec = dropNullCreationTimestamps(getObject(expected, "spec") ?? {});
      const strategy = getObject(spec, "updateStrategy") ?? {};
      strategy["rollingUpdate"] = { partition: 0, maxUnavailable: 1 };
      assert.deepEqual(out["spec"], spec, name);
    }
    const defaults = prepareForCreate(STATEFULSETS, applied(stored(vectors.statefulSets, "v1")));
    assert.deepEqual(getObject(getObject(defaults, "spec"), "updateStrategy"), { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } });
  });

  it("is idempotent: preparing the stored object again changes nothing", () => {
    for (const sts of vectors.statefulSets) {
      const once = created(applied(sts));
      assert.deepEqual(prepareForCreate(STATEFULSETS, once, GATE_OFF)["spec"], once["spec"]);
    }
  });
});

/** A JSON value with every object's keys sorted, as Go marshals a map[string]interface{}. */
function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedDeep(value[key]);
  return out;
}

/**
 * The StatefulSet controller's getPatch (the ControllerRevision's data.raw, which the revision name hashes):
 * the stored object round-tripped through a map, so keys are sorted and strings HTML-escaped. `v132`
 * re-adds the `creationTimestamp: null` v1.32 wrote into the template metadata.
 */
function revisionRaw(sts: JsonObject, v132: boolean): string {
  const template = cloneJson(getObject(getObject(sts, "spec"), "template") ?? {});
  if (v132) template["metadata"] = { ...(getObject(template, "metadata") ?? {}), creationTimestamp: null };
  return goJson(sortedDeep({ spec: { template: { ...template, $patch: "replace" } } }));
}

function recordedRaw(name: string): string {
  const revision = vectors.controllerRevisions.find((r) => r.name === name);
  if (revision === undefined) throw new Error(`no revision ${name}`);
  return revision.raw;
}

describe("ControllerRevision bytes recorded from v1.32.6", () => {
  const v1 = (): JsonObject => created(YAML_INPUTS["v1"] ?? {});
  const v2 = (): JsonObject => created(YAML_INPUTS["v2-db"] ?? {});
  const withImage = (sts: JsonObject, image: string): JsonObject => {
    const out = cloneJson(sts);
    const container = objectsIn(getObject(getObject(getObject(out, "spec"), "template"), "spec")?.["containers"])[0];
    if (container !== undefined) container["image"] = image;
    return out;
  };

  it("the stored templates re-derive data.raw byte for byte", () => {
    assert.equal(revisionRaw(v1(), true), recordedRaw("v1-d6c75f94f"));
    const v1Updated = prepareForUpdate(STATEFULSETS, "", withImage(v1(), "nginx:1.26"), v1(), GATE_OFF);
    assert.equal(revisionRaw(v1Updated, true), recordedRaw("v1-6b8d6b8f76"));
    assert.equal(revisionRaw(v2(), true), recordedRaw("v2-db-6dc74d46"));
    const v2Updated = prepareForUpdate(STATEFULSETS, "", bumpEnv(v2()), v2(), GATE_OFF);
    assert.equal(revisionRaw(v2Updated, true), recordedRaw("v2-db-7d58ccf5dc"));
  });

  it("MaxUnavailableStatefulSet does not reach the template, so it cannot change a revision", () => {
    const gateOn = created(YAML_INPUTS["v2-db"] ?? {}, { featureGates: { MaxUnavailableStatefulSet: true } });
    assert.equal(revisionRaw(gateOn, true), recordedRaw("v2-db-6dc74d46"));
  });

  it("v1.37 form: the same bytes without creationTimestamp", () => {
    assert.equal(revisionRaw(v1(), false), recordedRaw("v1-d6c75f94f").replace('"creationTimestamp":null,', ""));
  });
});

/** The pod the StatefulSet controller sends: the raw template plus identity, labels and claim volumes. */
function controllerPod(setName: string, ordinal: number, template: JsonObject, storedPod: JsonObject): JsonObject {
  const storedMeta = getObject(storedPod, "metadata") ?? {};
  const templateMeta = getObject(template, "metadata") ?? {};
  const spec = cloneJson(getObject(template, "spec") ?? {});
  spec["hostname"] = `${setName}-${ordinal}`;
  spec["subdomain"] = getObject(storedPod, "spec")?.["subdomain"];
  const volumes = objectsIn(getObject(storedPod, "spec")?.["volumes"]);
  if (volumes.length > 0) spec["volumes"] = cloneJson(volumes);
  const metadata: JsonObject = {
    name: `${setName}-${ordinal}`,
    generateName: `${setName}-`,
    namespace: "vec",
    labels: cloneJson(storedMeta["labels"]),
    ownerReferences: cloneJson(storedMeta["ownerReferences"]),
  };
  if (isObject(templateMeta["annotations"])) metadata["annotations"] = cloneJson(templateMeta["annotations"]);
  return { apiVersion: "v1", kind: "Pod", metadata, spec };
}

describe("Pods stored by kube-apiserver v1.32.6", () => {
  const rawTemplates: Record<string, JsonObject> = {
    v1: getObject(YAML_INPUTS["v1"]?.["spec"], "template") ?? {},
    "v2-db": getObject(bumpEnv(YAML_INPUTS["v2-db"] ?? {})["spec"], "template") ?? {},
  };

  for (const storedPod of vectors.pods) {
    const name = String(getObject(storedPod, "metadata")?.["name"]);
    it(`${name}: defaults, DefaultTolerationSeconds and Priority admission give the recorded spec (TestSetDefaultPod)`, () => {
      const setName = name.replace(/-\d+$/, "");
      const ordinal = Number(name.slice(setName.length + 1));
      for (const template of [rawTemplates[setName] ?? {}, getObject(stored(vectors.statefulSets, setName)["spec"], "template") ?? {}]) {
        const out = prepareForCreate(PODS, controllerPod(setName, ordinal, template, storedPod));
        assert.deepEqual(validateCreate(PODS, out), []);
        assert.deepEqual(out["spec"], storedPod["spec"]);
        assert.equal(getObject(out, "status")?.["qosClass"], getObject(storedPod, "status")?.["qosClass"]);
        assert.equal(getObject(out, "status")?.["phase"], "Pending");
        assert.deepEqual(getObject(getObject(out, "metadata"), "labels"), getObject(getObject(storedPod, "metadata"), "labels"));
      }
    });
  }
});

describe("PersistentVolumeClaims stored by kube-apiserver v1.32.6", () => {
  for (const storedClaim of vectors.persistentVolumeClaims) {
    const name = String(getObject(storedClaim, "metadata")?.["name"]);
    it(`${name}: pvc-protection finalizer, volumeMode and Pending status as recorded`, () => {
      const input: JsonObject = {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name, namespace: "vec", labels: { app: "db", tier: "data" } },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
      };
      const out = prepareForCreate(CLAIMS, input);
      assert.deepEqual(validateCreate(CLAIMS, out), []);
      const expected = cloneJson(storedClaim);
      const metadata = getObject(expected, "metadata") ?? {};
      for (const key of ["uid", "resourceVersion", "creationTimestamp"]) delete metadata[key];
      assert.deepEqual(out, expected);
    });
  }
});
