// Ports of upstream pkg/apis/apps/validation/validation_test.go (TestValidateStatefulSet,
// TestValidateStatefulSetUpdate, TestValidateStatefulSetStatus, TestValidateControllerRevision[Update])
// comparing (reason, field) like upstream's cmpopts.IgnoreFields(BadValue, Detail), plus exact-message
// cases for the 422 bodies clients see.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { invalidStatus, validateCreate, validateUpdate, type Cause } from "../index.ts";
import { cloneJson, type JsonObject } from "../json.ts";
import { REVISIONS, STATEFULSETS as STS } from "../testing.ts";


type Tweak = (sts: JsonObject) => void;

const validTemplate = (): JsonObject => ({
  metadata: { labels: { a: "b" } },
  spec: { restartPolicy: "Always", dnsPolicy: "ClusterFirst", containers: [{ name: "abc", image: "image", imagePullPolicy: "IfNotPresent" }] },
});

/** upstream mkStatefulSet, in apps/v1 JSON. */
function mkStatefulSet(template: JsonObject, ...tweaks: Tweak[]): JsonObject {
  const sts: JsonObject = {
    metadata: { name: "abc", namespace: "default" },
    spec: {
      podManagementPolicy: "OrderedReady",
      selector: { matchLabels: { a: "b" } },
      template: cloneJson(template),
      updateStrategy: { type: "RollingUpdate" },
    },
  };
  for (const tweak of tweaks) tweak(sts);
  return sts;
}

const spec = (sts: JsonObject): JsonObject => sts["spec"] as JsonObject;
const meta = (sts: JsonObject): JsonObject => sts["metadata"] as JsonObject;
const strategy = (sts: JsonObject): JsonObject => spec(sts)["updateStrategy"] as JsonObject;
const tweakName = (name: string): Tweak => (s) => void (meta(s)["name"] = name);
const tweakNamespace = (ns: string): Tweak => (s) => void (meta(s)["namespace"] = ns);
const tweakLabels = (key: string, value: string): Tweak => (s) => void (meta(s)["labels"] = { [key]: value });
const tweakAnnotations = (key: string, value: string): Tweak => (s) => void (meta(s)["annotations"] = { [key]: value });
const tweakFinalizers = (...finalizers: string[]): Tweak => (s) => void (meta(s)["finalizers"] = finalizers);
const tweakSelectorLabels = (labels: Record<string, string> | null): Tweak => (s) =>
  void (labels === null ? delete spec(s)["selector"] : (spec(s)["selector"] = { matchLabels: labels }));
const tweakReplicas = (n: number): Tweak => (s) => void (spec(s)["replicas"] = n);
const tweakPodManagementPolicy = (p: string): Tweak => (s) => void (spec(s)["podManagementPolicy"] = p);
const tweakUpdateStrategyType = (t: string): Tweak => (s) => void (strategy(s)["type"] = t);
const rollingUpdate = (s: JsonObject): JsonObject => (strategy(s)["rollingUpdate"] ??= {}) as JsonObject;
const tweakRollingUpdatePartition = (p: number): Tweak => (s) => void (rollingUpdate(s)["partition"] = p);
const tweakMaxUnavailable = (v: number | string): Tweak => (s) => void (rollingUpdate(s)["maxUnavailable"] = v);
const tweakTemplateRestartPolicy = (p: string): Tweak => (s) =>
  void (((spec(s)["template"] as JsonObject)["spec"] as JsonObject)["restartPolicy"] = p);
const tweakPVCPolicy = (policy: JsonObject): Tweak => (s) => void (spec(s)["persistentVolumeClaimRetentionPolicy"] = policy);
const tweakOrdinalsStart = (start: number): Tweak => (s) => void (spec(s)["ordinals"] = { start });
const tweakMinReadySeconds = (n: number): Tweak => (s) => void (spec(s)["minReadySeconds"] = n);
const tweakPVCTemplate = (...claims: JsonObject[]): Tweak => (s) => void (spec(s)["volumeClaimTemplates"] = claims);
const tweakServiceName = (name: string): Tweak => (s) => void (spec(s)["serviceName"] = name);

/** (reason, field) pairs sorted, what upstream's table tests compare. */
function shape(causes: Cause[]): string[] {
  return causes.map((c) => `${c.reason} ${c.field}`).sort();
}

const invalidLabels = { "NoUppercaseOrSpecialCharsLike=Equals": "b" };
const invalidTemplate: JsonObject = { metadata: { labels: invalidLabels }, spec: { restartPolicy: "Always", dnsPolicy: "ClusterFirst" } };
const deadlineTemplate: JsonObject = { metadata: { labels: { a: "b" } }, spec: { restartPolicy: "Always", dnsPolicy: "ClusterFirst", activeDeadlineSeconds: 60 } };
const hostNetTemplate: JsonObject = {
  metadata: { labels: { a: "b" } },
  spec: {
    hostNetwork: true,
    restartPolicy: "Always",
    dnsPolicy: "ClusterFirst",
    containers: [{ name: "abc", image: "image", imagePullPolicy: "IfNotPresent", ports: [{ containerPort: 12345, protocol: "TCP" }] }],
  },
};

describe("validateCreate StatefulSet (upstream TestValidateStatefulSet)", () => {
  const success: [string, JsonObject][] = [
    ["alpha name", mkStatefulSet(validTemplate(), tweakName("abc"))],
    ["alphanumeric name", mkStatefulSet(validTemplate(), tweakName("abc-123"))],
    ["hostNetwork true", mkStatefulSet(hostNetTemplate)],
    ["parallel pod management", mkStatefulSet(validTemplate(), tweakPodManagementPolicy("Parallel"))],
    ["update strategy", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakUpdateStrategyType("RollingUpdate"), tweakRollingUpdatePartition(2))],
    ["PVC policy", mkStatefulSet(validTemplate(), tweakPVCPolicy({ whenDeleted: "Delete", whenScaled: "Retain" }))],
    ["maxUnavailable", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakRollingUpdatePartition(2), tweakMaxUnavailable(2))],
    ["ordinals.start positive value", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakOrdinalsStart(2))],
  ];
  for (const [name, sts] of success) {
    it(`success case ${name}`, () => assert.deepEqual(validateCreate(STS, sts), []));
  }

  const errors: [string, JsonObject, string[]][] = [
    ["zero-length name", mkStatefulSet(validTemplate(), tweakName("")), ["FieldValueRequired metadata.name"]],
    ["name-with-dots", mkStatefulSet(validTemplate(), tweakName("abc.123")), ["FieldValueInvalid metadata.name"]],
    ["long name", mkStatefulSet(validTemplate(), tweakName("a".repeat(64))), ["FieldValueInvalid metadata.name"]],
    ["missing-namespace", mkStatefulSet(validTemplate(), tweakNamespace("")), ["FieldValueRequired metadata.namespace"]],
    [
      "empty selector",
      mkStatefulSet(validTemplate(), tweakSelectorLabels(null)),
      ["FieldValueInvalid spec.template.metadata.labels", "FieldValueRequired spec.selector"],
    ],
    ["selector_doesnt_match", mkStatefulSet(validTemplate(), tweakSelectorLabels({ foo: "bar" })), ["FieldValueInvalid spec.template.metadata.labels"]],
    ["negative_replicas", mkStatefulSet(validTemplate(), tweakReplicas(-1)), ["FieldValueInvalid spec.replicas"]],
    ["invalid_label", mkStatefulSet(validTemplate(), tweakLabels("NoUppercaseOrSpecialCharsLike=Equals", "bar")), ["FieldValueInvalid metadata.labels"]],
    [
      "invalid_label 2",
      mkStatefulSet(invalidTemplate, tweakLabels("NoUppercaseOrSpecialCharsLike=Equals", "bar"), tweakSelectorLabels(invalidLabels)),
      ["FieldValueInvalid metadata.labels", "FieldValueInvalid spec.selector", "FieldValueInvalid spec.selector.matchLabels"],
    ],
    ["invalid_annotation", mkStatefulSet(validTemplate(), tweakAnnotations("NoUppercaseOrSpecialCharsLike=Equals", "bar")), ["FieldValueInvalid metadata.annotations"]],
    ["invalid restart policy 1", mkStatefulSet(validTemplate(), tweakTemplateRestartPolicy("OnFailure")), ["FieldValueNotSupported spec.template.spec.restartPolicy"]],
    ["invalid restart policy 2", mkStatefulSet(validTemplate(), tweakTemplateRestartPolicy("Never")), ["FieldValueNotSupported spec.template.spec.restartPolicy"]],
    ["empty restart policy", mkStatefulSet(validTemplate(), tweakTemplateRestartPolicy("")), ["FieldValueNotSupported spec.template.spec.restartPolicy"]],
    ["invalid update strategy", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakUpdateStrategyType("foo")), ["FieldValueInvalid spec.updateStrategy"]],
    ["empty update strategy", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakUpdateStrategyType("")), ["FieldValueRequired spec.updateStrategy"]],
    [
      "invalid rolling update",
      mkStatefulSet(validTemplate(), tweakReplicas(3), tweakUpdateStrategyType("OnDelete"), tweakRollingUpdatePartition(1)),
      ["FieldValueInvalid spec.updateStrategy.rollingUpdate"],
    ],
    ["negative partition", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakRollingUpdatePartition(-1)), ["FieldValueInvalid spec.updateStrategy.rollingUpdate.partition"]],
    ["empty pod management policy", mkStatefulSet(validTemplate(), tweakPodManagementPolicy(""), tweakReplicas(3)), ["FieldValueRequired spec.podManagementPolicy"]],
    ["invalid pod management policy", mkStatefulSet(validTemplate(), tweakPodManagementPolicy("foo")), ["FieldValueInvalid spec.podManagementPolicy"]],
    ["set active deadline seconds", mkStatefulSet(deadlineTemplate, tweakReplicas(3)), ["FieldValueForbidden spec.template.spec.activeDeadlineSeconds"]],
    [
      "empty PersistentVolumeClaimRetentionPolicy",
      mkStatefulSet(validTemplate(), tweakPVCPolicy({})),
      ["FieldValueNotSupported spec.persistentVolumeClaimRetentionPolicy.whenDeleted", "FieldValueNotSupported spec.persistentVolumeClaimRetentionPolicy.whenScaled"],
    ],
    [
      "invalid PersistentVolumeClaimRetentionPolicy",
      mkStatefulSet(validTemplate(), tweakPVCPolicy({ whenDeleted: "invalid-retention-policy", whenScaled: "invalid-retention-policy" })),
      ["FieldValueNotSupported spec.persistentVolumeClaimRetentionPolicy.whenDeleted", "FieldValueNotSupported spec.persistentVolumeClaimRetentionPolicy.whenScaled"],
    ],
    ["zero maxUnavailable", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakMaxUnavailable(0)), ["FieldValueInvalid spec.updateStrategy.rollingUpdate.maxUnavailable"]],
    ["zero percent maxUnavailable", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakMaxUnavailable("0%")), ["FieldValueInvalid spec.updateStrategy.rollingUpdate.maxUnavailable"]],
    [
      "greater than 100 percent maxUnavailable",
      mkStatefulSet(validTemplate(), tweakReplicas(3), tweakMaxUnavailable("101%")),
      ["FieldValueInvalid spec.updateStrategy.rollingUpdate.maxUnavailable"],
    ],
    ["invalid ordinals.start", mkStatefulSet(validTemplate(), tweakReplicas(3), tweakOrdinalsStart(-2)), ["FieldValueInvalid spec.ordinals.start"]],
    ["negative minReadySeconds (TestValidateStatefulSetMinReadySeconds)", mkStatefulSet(validTemplate(), tweakMinReadySeconds(-1)), ["FieldValueInvalid spec.minReadySeconds"]],
    // Claim templates are validated as claims since 1.34.
    [
      "claim template without access modes and storage",
      mkStatefulSet(validTemplate(), (s) => (spec(s)["volumeClaimTemplates"] = [{ metadata: { name: "data" }, spec: {} }])),
      ["FieldValueRequired spec.volumeClaimTemplates[0].spec.accessModes", "FieldValueRequired spec.volumeClaimTemplates[0].spec.resources[storage]"],
    ],
    [
      "claim template with an unknown access mode",
      mkStatefulSet(validTemplate(), (s) => (spec(s)["volumeClaimTemplates"] = [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteSometimes"], resources: { requests: { storage: "1Gi" } } } }])),
      ["FieldValueNotSupported spec.volumeClaimTemplates[0].spec.accessModes"],
    ],
  ];
  for (const [name, sts, expected] of errors) {
    it(`error case ${name}`, () => assert.deepEqual(shape(validateCreate(STS, sts)), [...expected].sort()));
  }
});

describe("validateUpdate StatefulSet (upstream TestValidateStatefulSetUpdate)", () => {
  const withRV = (sts: JsonObject): JsonObject => {
    meta(sts)["resourceVersion"] = "1";
    return sts;
  };
  const claim = (storage: string, storageClassName?: string): JsonObject => ({
    metadata: { name: "pvc-abc" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage } }, ...(storageClassName === undefined ? {} : { storageClassName }) },
  });
  const template2 = (): JsonObject => ({ ...validTemplate(), metadata: { labels: { c: "d" } } });

  const success: [string, JsonObject, JsonObject][] = [
    ["update replica count", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), tweakReplicas(3))],
    ["update containers 1", mkStatefulSet(validTemplate()), mkStatefulSet(template2(), tweakSelectorLabels({ a: "b" }), (s) => {
      ((spec(s)["template"] as JsonObject)["metadata"] as JsonObject)["labels"] = { a: "b", c: "d" };
    })],
    ["update containers and pvc retention policy 1", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), tweakPVCPolicy({ whenDeleted: "Retain", whenScaled: "Retain" }))],
    ["update update strategy", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), tweakUpdateStrategyType("OnDelete"))],
    ["update min ready seconds 1", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), tweakMinReadySeconds(10))],
    ["update min ready seconds 2", mkStatefulSet(validTemplate(), tweakMinReadySeconds(5)), mkStatefulSet(validTemplate(), tweakMinReadySeconds(10))],
    ["update existing instance with now-invalid name", mkStatefulSet(validTemplate(), tweakFinalizers("final")), mkStatefulSet(validTemplate(), tweakFinalizers())],
    ["update existing instance with .spec.ordinals.start", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), tweakOrdinalsStart(3))],
    // Mutable since 1.33 (the allow-list message names it).
    ["update revision history limit", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), (s) => (spec(s)["revisionHistoryLimit"] = 3))],
  ];
  for (const [name, old, update] of success) {
    it(`success case ${name}`, () => assert.deepEqual(validateUpdate(STS, "", withRV(update), withRV(old)), []));
  }

  const errors: [string, JsonObject, JsonObject, string[]][] = [
    ["update name", mkStatefulSet(validTemplate(), tweakName("abc")), mkStatefulSet(validTemplate(), tweakName("abc2")), ["FieldValueInvalid metadata.name"]],
    ["update namespace", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), tweakNamespace("default1")), ["FieldValueInvalid metadata.namespace"]],
    [
      "update selector",
      mkStatefulSet(validTemplate()),
      mkStatefulSet(template2(), tweakSelectorLabels({ c: "d" })),
      ["FieldValueForbidden spec"],
    ],
    ["update pod management policy 1", mkStatefulSet(validTemplate(), tweakPodManagementPolicy("")), mkStatefulSet(validTemplate()), ["FieldValueForbidden spec"]],
    ["update pod management policy 2", mkStatefulSet(validTemplate(), tweakPodManagementPolicy("Parallel")), mkStatefulSet(validTemplate()), ["FieldValueForbidden spec"]],
    ["update to negative replicas", mkStatefulSet(validTemplate()), mkStatefulSet(validTemplate(), tweakReplicas(-1)), ["FieldValueInvalid spec.replicas"]],
    ["update pvc template size", mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("1Gi"))), mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("2Gi"))), ["FieldValueForbidden spec"]],
    [
      "update pvc template storage class",
      mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("1Gi"))),
      mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("1Gi", "changed"))),
      ["FieldValueForbidden spec"],
    ],
    ["add new pvc template", mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("1Gi"))), mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("1Gi"), claim("1Gi"))), ["FieldValueForbidden spec"]],
    ["update serviceName", mkStatefulSet(validTemplate(), tweakServiceName("a")), mkStatefulSet(validTemplate(), tweakServiceName("b")), ["FieldValueForbidden spec"]],
  ];
  for (const [name, old, update, expected] of errors) {
    it(`error case ${name}`, () => assert.deepEqual(shape(validateUpdate(STS, "", withRV(update), withRV(old))), [...expected].sort()));
  }

  it("words a claim template without access modes as a 1.34+ API server does", () => {
    const sts = mkStatefulSet(validTemplate(), (s) => (spec(s)["volumeClaimTemplates"] = [{ metadata: { name: "data" }, spec: { resources: { requests: { storage: "1Gi" } } } }]));
    assert.equal(
      invalidStatus(STS, "abc", validateCreate(STS, sts))["message"],
      'StatefulSet.apps "abc" is invalid: spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required',
    );
  });

  it("names the allow-list exactly as upstream does", () => {
    const causes = validateUpdate(STS, "", mkStatefulSet(validTemplate(), tweakServiceName("b")), mkStatefulSet(validTemplate(), tweakServiceName("a")));
    assert.equal(
      invalidStatus(STS, "abc", causes)["message"],
      "StatefulSet.apps \"abc\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
  });

  it("a quantity written differently is not a change (Semantic.DeepEqual)", () => {
    const old = mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("1Gi")));
    const update = mkStatefulSet(validTemplate(), tweakPVCTemplate(claim("1024Mi")));
    assert.deepEqual(validateUpdate(STS, "", update, old), []);
  });
});

describe("validateUpdate StatefulSet status (upstream TestValidateStatefulSetStatus[Update])", () => {
  const withStatus = (status: JsonObject): JsonObject => ({ ...mkStatefulSet(validTemplate()), status });
  const cases: [string, JsonObject, boolean][] = [
    ["valid status", { replicas: 3, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1 }, false],
    ["invalid replicas", { replicas: -1, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1 }, true],
    ["invalid readyReplicas", { replicas: 3, readyReplicas: -1 }, true],
    ["invalid currentReplicas", { replicas: 3, currentReplicas: -1 }, true],
    ["invalid updatedReplicas", { replicas: 3, updatedReplicas: -1 }, true],
    ["invalid observedGeneration", { replicas: 3, observedGeneration: -1 }, true],
    ["invalid collisionCount", { replicas: 3, collisionCount: -1 }, true],
    ["readyReplicas greater than replicas", { replicas: 3, readyReplicas: 4 }, true],
    ["currentReplicas greater than replicas", { replicas: 3, currentReplicas: 4 }, true],
    ["updatedReplicas greater than replicas", { replicas: 3, updatedReplicas: 4 }, true],
    ["availableReplicas greater than replicas", { replicas: 3, readyReplicas: 3, availableReplicas: 4 }, true],
    ["availableReplicas greater than readyReplicas", { replicas: 3, readyReplicas: 2, availableReplicas: 3 }, true],
  ];
  for (const [name, status, expectErr] of cases) {
    it(name, () => assert.equal(validateUpdate(STS, "status", withStatus(status), withStatus({})).length > 0, expectErr));
  }

  it("collisionCount may not decrease", () => {
    const causes = validateUpdate(STS, "status", withStatus({ collisionCount: 1 }), withStatus({ collisionCount: 2 }));
    assert.deepEqual(causes, [{ reason: "FieldValueInvalid", field: "status.collisionCount", message: "Invalid value: 1: cannot be decremented" }]);
  });

  it("reports counts above replicas with upstream's text", () => {
    const causes = validateUpdate(STS, "status", withStatus({ replicas: 1, readyReplicas: 2, availableReplicas: 2 }), withStatus({}));
    assert.deepEqual(
      causes.map((c) => `${c.field}: ${c.message}`),
      [
        "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
        "status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas",
      ],
    );
  });
});

describe("the 422 bodies clients see", () => {
  it("missing selector: two causes, labels rendered as JSON (v1.34+ field.Error)", () => {
    const sts = mkStatefulSet(validTemplate(), tweakName("web"), tweakSelectorLabels(null));
    assert.deepEqual(invalidStatus(STS, "web", validateCreate(STS, sts)), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'StatefulSet.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"a":"b"}: `selector` does not match template `labels`]',
      reason: "Invalid",
      details: {
        name: "web",
        group: "apps",
        kind: "StatefulSet",
        causes: [
          { reason: "FieldValueRequired", message: "Required value", field: "spec.selector" },
          { reason: "FieldValueInvalid", message: 'Invalid value: {"a":"b"}: `selector` does not match template `labels`', field: "spec.template.metadata.labels" },
        ],
      },
      code: 422,
    });
  });

  const messages: [string, JsonObject, string][] = [
    ["empty selector", mkStatefulSet(validTemplate(), (s) => void (spec(s)["selector"] = {})), "spec.selector: Invalid value: {}: empty selector is invalid for statefulset"],
    [
      "unknown update strategy, internal Go field names",
      mkStatefulSet(validTemplate(), tweakUpdateStrategyType("foo")),
      'spec.updateStrategy: Invalid value: {"Type":"foo","RollingUpdate":null}: must be \'RollingUpdate\' or \'OnDelete\'',
    ],
    ["zero maxUnavailable", mkStatefulSet(validTemplate(), tweakMaxUnavailable(0)), "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"],
    [
      "restartPolicy Never",
      mkStatefulSet(validTemplate(), tweakTemplateRestartPolicy("Never")),
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ],
    ["name with dots", mkStatefulSet(validTemplate(), tweakName("abc.123")), 'metadata.name: Invalid value: "abc.123": must not contain dots'],
    [
      "uppercase name",
      mkStatefulSet(validTemplate(), tweakName("Web")),
      "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
    ["negative replicas", mkStatefulSet(validTemplate(), tweakReplicas(-1)), "spec.replicas: Invalid value: -1: must be greater than or equal to 0"],
    ["ordinals.start", mkStatefulSet(validTemplate(), tweakOrdinalsStart(-1)), "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"],
    [
      "activeDeadlineSeconds",
      mkStatefulSet(deadlineTemplate),
      "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported",
    ],
  ];
  for (const [name, sts, expected] of messages) {
    it(name, () => {
      const causes = validateCreate(STS, sts);
      assert.equal(causes.length, 1, JSON.stringify(causes));
      assert.equal(invalidStatus(STS, "abc", causes)["message"], `StatefulSet.apps "abc" is invalid: ${expected}`);
    });
  }

  it("a /scale update below zero is a Scale.autoscaling 422", () => {
    const scale = { metadata: { name: "abc", namespace: "default" }, spec: { replicas: -1 } };
    const causes = validateUpdate(STS, "scale", scale, mkStatefulSet(validTemplate()));
    const status = invalidStatus(STS, "abc", causes, "scale");
    assert.equal(status["message"], 'Scale.autoscaling "abc" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    assert.deepEqual((status["details"] as JsonObject)["kind"], "Scale");
  });
});

describe("ControllerRevision (upstream TestValidateControllerRevision[Update])", () => {
  const revision = (data: unknown, extra: JsonObject = {}): JsonObject => ({
    metadata: { name: "validname", namespace: "validns", ...extra },
    data,
    revision: 0,
  });
  const cases: [string, JsonObject, boolean][] = [
    ["valid", revision({ spec: {} }), true],
    ["negative revision", { ...revision({}), revision: -1 }, false],
    ["empty name", revision({}, { name: "" }), false],
    ["invalid name", revision({}, { name: "NoUppercaseOrSpecialCharsLike=Equals" }), false],
    ["empty namespace", revision({}, { namespace: "" }), false],
    ["nil data", { metadata: { name: "validname", namespace: "validns" }, revision: 0 }, false],
    ["json bool", revision(true), false],
    ["json int", revision(0), false],
    ["json null", revision(null), false],
    ["json array", revision([]), false],
    ["json string", revision("test"), false],
    ["json object", revision({}), true],
  ];
  for (const [name, value, valid] of cases) {
    it(name, () => assert.equal(validateCreate(REVISIONS, value).length === 0, valid, JSON.stringify(validateCreate(REVISIONS, value))));
  }

  it("data is immutable, revision is not", () => {
    const old = revision({ spec: { template: { a: 1 } } }, { resourceVersion: "1" });
    assert.deepEqual(validateUpdate(REVISIONS, "", { ...old, revision: 1 }, old), []);
    const changed = validateUpdate(REVISIONS, "", { ...old, data: { spec: { template: { a: 2 } } } }, old);
    assert.deepEqual(changed, [{ reason: "FieldValueInvalid", field: "data", message: 'Invalid value: {"spec":{"template":{"a":2}}}: field is immutable' }]);
  });
});
