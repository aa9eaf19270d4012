// Validation of the core/v1 and coordination types, with the exact `field: message` text kube-apiserver
// returns. Expected texts follow pkg/apis/core/validation/validation.go and its tests (TestValidatePod,
// TestValidatePodUpdate, TestValidatePersistentVolumeClaim[Update], TestValidatePersistentVolumes,
// TestValidateService, TestValidateConfigMap, TestValidateEvent) and apimachinery's ValidateObjectMeta.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { invalidStatus, prepareForCreate, validateCreate, validateUpdate, type Cause } from "../index.ts";
import { cloneJson, type JsonObject } from "../json.ts";
import { CLAIMS, CONFIGMAPS, CORE_EVENTS, EVENTS_V1, LEASES, NAMESPACES, PODS, SERVICES, VOLUMES } from "../testing.ts";

/** `field: message` as kube-apiserver's aggregate message lists them. */
const rendered = (causes: Cause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

function pod(spec: JsonObject, metadata: JsonObject = { name: "p", namespace: "d" }): JsonObject {
  return prepareForCreate(PODS, { metadata, spec });
}
const CONTAINER = { name: "c", image: "nginx:1.25" };

/** `old` with `edit` applied to a copy. */
function edited(old: JsonObject, edit: (copy: JsonObject) => void): JsonObject {
  const copy = cloneJson(old);
  edit(copy);
  return copy;
}
const specOf = (obj: JsonObject): JsonObject => obj["spec"] as JsonObject;
const containerOf = (obj: JsonObject): JsonObject => (specOf(obj)["containers"] as JsonObject[])[0] as JsonObject;

describe("Pod create", () => {
  const cases: [string, JsonObject, string[]][] = [
    ["valid", pod({ containers: [CONTAINER] }), []],
    ["no containers", pod({}), ["spec.containers: Required value"]],
    ["container without name", pod({ containers: [{ image: "x" }] }), ["spec.containers[0].name: Required value"]],
    ["container without image", pod({ containers: [{ name: "c" }] }), ["spec.containers[0].image: Required value"]],
    [
      "duplicate container names",
      pod({ containers: [CONTAINER, { name: "c", image: "y" }] }),
      ['spec.containers[1].name: Duplicate value: "c"'],
    ],
    ["namespace missing", pod({ containers: [CONTAINER] }, { name: "p" }), ["metadata.namespace: Required value"]],
    [
      "requests above limits",
      pod({ containers: [{ ...CONTAINER, resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } }] }),
      ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
    ],
    [
      "activeDeadlineSeconds 0",
      pod({ containers: [CONTAINER], activeDeadlineSeconds: 0 }),
      ["spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive"],
    ],
  ];
  for (const [name, obj, expected] of cases) {
    it(name, () => assert.deepEqual(rendered(validateCreate(PODS, obj)), expected));
  }

  it("renders the 422 Status as kube-apiserver does", () => {
    const causes = validateCreate(PODS, pod({ containers: [{ name: "c" }, { name: "c", image: "y" }] }));
    assert.deepEqual(invalidStatus(PODS, "p", causes), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Pod "p" is invalid: [spec.containers[0].image: Required value, spec.containers[1].name: Duplicate value: "c"]',
      reason: "Invalid",
      details: {
        name: "p",
        kind: "Pod",
        causes: [
          { reason: "FieldValueRequired", message: "Required value", field: "spec.containers[0].image" },
          { reason: "FieldValueDuplicate", message: 'Duplicate value: "c"', field: "spec.containers[1].name" },
        ],
      },
      code: 422,
    });
  });
});

describe("Pod update", () => {
  const old = pod({ containers: [CONTAINER] });
  const FORBIDDEN_PREFIX =
    "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n";

  it("allows a new image", () => {
    assert.deepEqual(validateUpdate(PODS, "", edited(old, (p) => void (containerOf(p)["image"] = "nginx:1.26")), old), []);
  });
  it("allows setting activeDeadlineSeconds", () => {
    assert.deepEqual(validateUpdate(PODS, "", edited(old, (p) => void (specOf(p)["activeDeadlineSeconds"] = 10)), old), []);
  });
  it("allows adding a toleration", () => {
    const next = edited(old, (p) => (specOf(p)["tolerations"] as JsonObject[]).push({ key: "k", operator: "Exists", effect: "NoSchedule" }));
    assert.deepEqual(validateUpdate(PODS, "", next, old), []);
  });
  it("forbids removing a toleration", () => {
    const next = edited(old, (p) => (specOf(p)["tolerations"] as JsonObject[]).pop());
    assert.deepEqual(rendered(validateUpdate(PODS, "", next, old)), ["spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"]);
  });
  it("reports an emptied image twice, like upstream's spec and update checks", () => {
    const next = edited(old, (p) => void (containerOf(p)["image"] = ""));
    assert.deepEqual(rendered(validateUpdate(PODS, "", next, old)), ["spec.containers[0].image: Required value", "spec.containers[0].image: Required value"]);
  });
  it("forbids other spec changes with the upstream message and a diff", () => {
    const causes = validateUpdate(PODS, "", edited(old, (p) => void (specOf(p)["restartPolicy"] = "Never")), old);
    assert.equal(causes.length, 1);
    const [text] = rendered(causes);
    assert.ok(text?.startsWith(FORBIDDEN_PREFIX), text);
    assert.match(text ?? "", /- \tRestartPolicy: "Always",\n\+ \tRestartPolicy: "Never",/);
    assert.equal(causes[0]?.reason, "FieldValueForbidden");
  });

  const withDeadline = edited(old, (p) => void (specOf(p)["activeDeadlineSeconds"] = 10));
  it("activeDeadlineSeconds may only decrease", () => {
    const next = edited(withDeadline, (p) => void (specOf(p)["activeDeadlineSeconds"] = 20));
    assert.deepEqual(rendered(validateUpdate(PODS, "", next, withDeadline)), [
      "spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value",
    ]);
  });
  it("activeDeadlineSeconds may not be unset", () => {
    const next = edited(withDeadline, (p) => void delete specOf(p)["activeDeadlineSeconds"]);
    assert.deepEqual(rendered(validateUpdate(PODS, "", next, withDeadline)), [
      "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value",
    ]);
  });
});

describe("PersistentVolumeClaim", () => {
  const claim = (spec: JsonObject): JsonObject => prepareForCreate(CLAIMS, { metadata: { name: "c", namespace: "d" }, spec });
  const valid = claim({ accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } });

  it("requires access modes and a storage request", () => {
    assert.deepEqual(rendered(validateCreate(CLAIMS, claim({}))), [
      "spec.accessModes: Required value: at least 1 access mode is required",
      "spec.resources[storage]: Required value",
    ]);
  });
  it("rejects unknown access modes", () => {
    assert.deepEqual(rendered(validateCreate(CLAIMS, claim({ accessModes: ["Foo"], resources: { requests: { storage: "1Gi" } } }))), [
      'spec.accessModes: Unsupported value: "Foo": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ]);
  });
  it("rejects a zero request", () => {
    assert.deepEqual(rendered(validateCreate(CLAIMS, claim({ accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "0" } } }))), [
      'spec.resources[storage]: Invalid value: "0": must be greater than zero',
    ]);
  });
  it("accepts a valid claim", () => assert.deepEqual(validateCreate(CLAIMS, valid), []));

  const bound = edited(valid, (c) => {
    specOf(c)["volumeName"] = "pv";
    c["status"] = { phase: "Bound", capacity: { storage: "1Gi" } };
  });
  const storageOf = (c: JsonObject): JsonObject => (specOf(c)["resources"] as JsonObject)["requests"] as JsonObject;

  it("an unbound claim's spec is immutable, requests included", () => {
    const causes = rendered(validateUpdate(CLAIMS, "", edited(valid, (c) => void (storageOf(c)["storage"] = "2Gi")), valid));
    assert.equal(causes.length, 1);
    assert.ok(causes[0]?.startsWith("spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n"));
  });
  it("a bound claim may grow", () => {
    assert.deepEqual(validateUpdate(CLAIMS, "", edited(bound, (c) => void (storageOf(c)["storage"] = "2Gi")), bound), []);
  });
  it("a bound claim may not shrink to or below status.capacity (RecoverVolumeExpansionFailure)", () => {
    assert.deepEqual(rendered(validateUpdate(CLAIMS, "", edited(bound, (c) => void (storageOf(c)["storage"] = "500Mi")), bound)), [
      "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity",
    ]);
  });
  it("a bound claim may change volumeAttributesClassName but not accessModes", () => {
    assert.deepEqual(validateUpdate(CLAIMS, "", edited(bound, (c) => void (specOf(c)["volumeAttributesClassName"] = "gold")), bound), []);
    const causes = rendered(validateUpdate(CLAIMS, "", edited(bound, (c) => void (specOf(c)["accessModes"] = ["ReadWriteMany"])), bound));
    assert.match(causes[0] ?? "", /^spec: Forbidden: spec is immutable after creation/);
  });
  it("status capacity must not be negative; Value() rounds away from zero", () => {
    const next = edited(bound, (c) => void ((c["status"] as JsonObject)["capacity"] = { storage: "-0.5" }));
    assert.deepEqual(rendered(validateUpdate(CLAIMS, "status", next, bound)), ["status.capacity[storage]: Invalid value: -1: must be a valid resource quantity"]);
  });
});

describe("PersistentVolume", () => {
  const volume = (spec: JsonObject): JsonObject => prepareForCreate(VOLUMES, { metadata: { name: "pv" }, spec });
  const valid = volume({ capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/x" } });

  it("accepts a hostPath volume", () => assert.deepEqual(validateCreate(VOLUMES, valid), []));
  it("requires access modes, capacity and a source", () => {
    assert.deepEqual(rendered(validateCreate(VOLUMES, volume({}))), [
      "spec.accessModes: Required value",
      "spec.capacity: Required value",
      'spec.capacity: Unsupported value: {}: supported values: "storage"',
      "spec: Required value: must specify a volume type",
    ]);
  });
  it("the volume source is immutable", () => {
    const next = edited(valid, (v) => void (specOf(v)["hostPath"] = { path: "/y", type: "" }));
    assert.match(rendered(validateUpdate(VOLUMES, "", next, valid))[0] ?? "", /^spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation\n/);
  });
});

describe("Service", () => {
  const service = (name: string, spec: JsonObject): JsonObject => prepareForCreate(SERVICES, { metadata: { name, namespace: "d" }, spec });
  it("names are DNS-1035 labels; ports must be valid", () => {
    assert.deepEqual(rendered(validateCreate(SERVICES, service("1s", { ports: [{ port: 0 }] }))), [
      "metadata.name: Invalid value: \"1s\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
      "spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
    ]);
  });
  it("requires ports", () => assert.deepEqual(rendered(validateCreate(SERVICES, service("s", {}))), ["spec.ports: Required value"]));
  it("accepts a headless service", () => assert.deepEqual(validateCreate(SERVICES, service("s", { clusterIP: "None", ports: [{ port: 80 }] })), []));
});

describe("Namespace, ConfigMap, Lease, Events", () => {
  it("namespace names are DNS labels and immutable", () => {
    assert.deepEqual(rendered(validateCreate(NAMESPACES, prepareForCreate(NAMESPACES, { metadata: { name: "a.b" } }))), [
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
    const old = prepareForCreate(NAMESPACES, { metadata: { name: "ns" } });
    const next = edited(old, (n) => void ((n["metadata"] as JsonObject)["name"] = "other"));
    assert.deepEqual(rendered(validateUpdate(NAMESPACES, "", next, old)), ['metadata.name: Invalid value: "other": field is immutable']);
  });

  it("configmap keys and immutability", () => {
    assert.deepEqual(rendered(validateCreate(CONFIGMAPS, { metadata: { name: "cm", namespace: "d" }, data: { "a b": "x" } })), [
      "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    const old = { metadata: { name: "cm", namespace: "d" }, immutable: true, data: { a: "1" } };
    assert.deepEqual(rendered(validateUpdate(CONFIGMAPS, "", { ...old, data: { a: "2" } }, old)), ["data: Forbidden: field is immutable when `immutable` is set"]);
  });

  it("object meta: labels, annotations, names", () => {
    const causes = validateCreate(CONFIGMAPS, { metadata: { name: "cm", namespace: "d", labels: { ok: "-bad" }, annotations: { a: "x".repeat(262145) } } });
    assert.deepEqual(rendered(causes), [
      "metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      "metadata.annotations: Too long: may not be more than 262144 bytes",
    ]);
    assert.deepEqual(rendered(validateCreate(CONFIGMAPS, { metadata: { namespace: "d" } })), ["metadata.name: Required value: name or generateName is required"]);
  });

  it("lease durations", () => {
    assert.deepEqual(rendered(validateCreate(LEASES, { metadata: { name: "l", namespace: "d" }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1 } })), [
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
    ]);
  });

  it("core events: the involved object's namespace must match", () => {
    assert.deepEqual(rendered(validateCreate(CORE_EVENTS, { metadata: { name: "e", namespace: "d" }, involvedObject: { namespace: "other" } })), [
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ]);
  });

  it("events.k8s.io events get strict validation, reported with internal field names", () => {
    assert.deepEqual(rendered(validateCreate(EVENTS_V1, prepareForCreate(EVENTS_V1, { metadata: { name: "e", namespace: "d" } }))), [
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
      "eventTime: Required value",
      'type: Invalid value: "": has invalid value: ',
    ]);
  });
});
