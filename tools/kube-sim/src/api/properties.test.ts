// Property: whatever JSON a client sends, no exported function throws; bad input comes back as causes.
// Two generators: arbitrary JSON, and valid objects of each served type with random JSON grafted into
// random places (which reaches the deep defaulting and validation paths plain random JSON never does).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  RESOURCES,
  apiResourceList,
  canonicalQuantity,
  canonicalize,
  convertEvent,
  decodeError,
  formatLabelSelector,
  groupVersionOf,
  invalidStatus,
  labelSelectorAsSelector,
  prepareForCreate,
  prepareForUpdate,
  scaleOf,
  selectorMatches,
  validateCreate,
  validateUpdate,
  type Cause,
  type ResourceInfo,
} from "./index.ts";
import { get, isObject, type JsonObject } from "./json.ts";
import { resourceId } from "./resources.ts";

const SUBS = ["", "status", "scale", "finalize", "bogus"];

const CONTAINER = {
  name: "c",
  image: "nginx:1.25",
  ports: [{ containerPort: 80 }],
  resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "128Mi" } },
  livenessProbe: { httpGet: { port: 80 } },
  env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
  volumeMounts: [{ name: "data", mountPath: "/data" }],
};
const POD_SPEC = { containers: [CONTAINER], volumes: [{ name: "data", emptyDir: {} }], tolerations: [{ key: "k", operator: "Exists" }] };
const META = { name: "x", namespace: "d", labels: { app: "x" }, annotations: { note: "y" } };

/** A valid object of each served type, the seed the grafting generator mutates. */
function seed(info: ResourceInfo): JsonObject {
  switch (resourceId(info)) {
    case "pods":
      return { metadata: META, spec: POD_SPEC };
    case "statefulsets":
      return {
        metadata: META,
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "x" } },
          template: { metadata: { labels: { app: "x" } }, spec: POD_SPEC },
          volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: "50%" } },
        },
        status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 },
      };
    case "persistentvolumeclaims":
      return { metadata: META, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } }, status: { phase: "Bound", capacity: { storage: "1Gi" } } };
    case "persistentvolumes":
      return { metadata: { name: "pv" }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/x" }, claimRef: { name: "c", namespace: "d" } } };
    case "services":
      return { metadata: META, spec: { selector: { app: "x" }, ports: [{ port: 80, targetPort: "http", name: "http" }], type: "NodePort" } };
    case "namespaces":
      return { metadata: { name: "ns" }, spec: { finalizers: ["kubernetes"] } };
    case "configmaps":
      return { metadata: META, data: { a: "1" }, binaryData: { b: "eA==" } };
    case "events":
      return {
        metadata: META,
        involvedObject: { kind: "Pod", name: "p", namespace: "d" },
        regarding: { kind: "Pod", name: "p", namespace: "d" },
        reason: "Started",
        message: "m",
        note: "n",
        type: "Normal",
        eventTime: "2025-01-01T00:00:00.000000Z",
        series: { count: 2, lastObservedTime: "2025-01-01T00:00:01.000000Z" },
      };
    case "controllerrevisions":
      return { metadata: META, data: { spec: { template: {} } }, revision: 1 };
    case "leases":
      return { metadata: META, spec: { holderIdentity: "h", leaseDurationSeconds: 15, leaseTransitions: 0 } };
    case "nodes":
      return { metadata: { name: "n" }, status: { capacity: { cpu: "4", memory: "8Gi" } } };
    case "secrets":
      return { metadata: META, type: "Opaque", data: { a: "eA==" }, stringData: { b: "y" } };
    case "deployments":
      return {
        metadata: META,
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "x" } },
          template: { metadata: { labels: { app: "x" } }, spec: POD_SPEC },
          strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: "25%" } },
        },
        status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 },
      };
    case "unknown":
      return { metadata: META };
  }
}

type Step = string | number;

/** `obj` with the value at `path` (walked as far as it exists) replaced by `value`. */
function graft(obj: unknown, path: readonly Step[], value: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  if (Array.isArray(obj) && obj.length > 0) {
    const target = typeof head === "number" ? head % obj.length : 0;
    return obj.map((item: unknown, i) => (i === target ? graft(item, rest, value) : item));
  }
  if (isObject(obj)) {
    const keys = Object.keys(obj);
    if (keys.length === 0) return value;
    const key = typeof head === "number" ? (keys[head % keys.length] ?? "") : head;
    return { ...obj, [key]: graft(obj[key], rest, value) };
  }
  return value;
}

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const step: fc.Arbitrary<Step> = fc.oneof(fc.nat(40), fc.constantFrom("metadata", "spec", "status", "template", "containers", "resources", "requests"));
const grafted = (info: ResourceInfo): fc.Arbitrary<JsonObject> =>
  fc.array(fc.tuple(fc.array(step, { maxLength: 7 }), jsonValue), { minLength: 1, maxLength: 3 }).map((grafts) => {
    let out: unknown = seed(info);
    for (const [path, value] of grafts) out = graft(out, path, value);
    return isObject(out) ? out : { value: out };
  });
const anyJson = jsonValue.map((v) => v as unknown as JsonObject);
const resource = fc.constantFrom(...RESOURCES);
const object = (info: ResourceInfo): fc.Arbitrary<JsonObject> => fc.oneof(grafted(info), anyJson);

const cause: fc.Arbitrary<Cause> = fc.record({
  reason: fc.constantFrom("FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueNotSupported", "FieldValueDuplicate", "FieldValueTooLong", "FieldValueTypeInvalid"),
  message: fc.string(),
  field: fc.string(),
});

/** Runs every exported entry point on one request and checks the shapes of what comes back. */
function exercise(info: ResourceInfo, sub: string, body: JsonObject, stored: JsonObject): void {
  decodeError(info, body);
  const created = prepareForCreate(info, body);
  assert.ok(isObject(created));
  for (const c of validateCreate(info, created)) assert.equal(typeof c.message, "string");
  canonicalize(info, created);
  const updated = prepareForUpdate(info, sub, body, stored);
  assert.ok(isObject(updated));
  const causes = validateUpdate(info, sub, updated, stored);
  for (const c of causes) assert.equal(typeof c.field, "string");
  assert.equal(invalidStatus(info, "x", causes)["code"], 422);
  if (resourceId(info) === "statefulsets") scaleOf(updated);
  if (resourceId(info) === "events") convertEvent(body, info.group);
  const selector = labelSelectorAsSelector(get(body, "spec"));
  selectorMatches(selector, get(body, "metadata"));
  formatLabelSelector(get(body, "spec"));
}

describe("no exported function throws", () => {
  it("on arbitrary and grafted objects of every served type, for every subresource", () => {
    fc.assert(
      fc.property(
        resource.chain((info) => fc.tuple(fc.constant(info), fc.constantFrom(...SUBS), object(info), object(info))),
        ([info, sub, body, old]) => {
          exercise(info, sub, body, prepareForCreate(info, old));
          // The stored side straight from a client too: the server never guarantees it was defaulted.
          exercise(info, sub, body, old);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("invalidStatus on arbitrary causes and names", () => {
    fc.assert(
      fc.property(resource, fc.string(), fc.array(cause, { maxLength: 5 }), fc.constantFrom(...SUBS), (info, name, causes, sub) => {
        const status = invalidStatus(info, name, causes, sub);
        assert.equal(status["reason"], "Invalid");
        assert.equal(typeof status["message"], "string");
      }),
    );
  });

  it("canonicalQuantity on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[+-]?[0-9.]{0,12}(e[+-]?[0-9]{1,3}|[EPTGMk]i?|[mnu])?$/)), (q) => {
        assert.equal(typeof canonicalQuantity(q), "string");
      }),
    );
  });

  it("apiResourceList on every served and an unknown group/version", () => {
    for (const gv of [...new Set(RESOURCES.map((r) => groupVersionOf(r))), "nope/v9", ""]) assert.ok(isObject(apiResourceList(gv)));
  });
});
