// Acceptance 3: ControllerRevisions are byte-compatible with a real kube-controller-manager (v1.32.6 recording in
// test/fixtures/kcm-v1.32.6.json) and survive the 1.34 serializer drift without a rollout.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS, controllerRevisionHash, controllerRevisionName } from "#protocol";
import type { RecordedRevision } from "#test-support/kcm-recording.ts";
import { loadKcmRecording } from "#test-support/kcm-recording.ts";
import { allActions } from "./describe.ts";
import { goJsonMarshal } from "./gojson.ts";
import { plan } from "./plan.ts";
import { revisionRaw, templateOfRevision } from "./revisions.ts";
import type { ControllerRevision, CreateRevisionAction, Snapshot, StatefulSet } from "./types.ts";

const recording = loadKcmRecording();
const NOW_MS = Date.parse("2026-11-29T20:00:00Z");

function recordedSet(name: string): StatefulSet {
  const set = recording.statefulSets.find((s) => s.metadata?.name === name);
  assert.ok(set, `recorded set ${name}`);
  return structuredClone(set);
}

/** A revision object as the API server serves it: `data` is the parsed raw. */
function servedRevision(recorded: RecordedRevision, set: StatefulSet): ControllerRevision {
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: recorded.name,
      namespace: set.metadata?.namespace ?? "",
      uid: `rev-${recorded.name}`,
      resourceVersion: "100",
      creationTimestamp: "2026-11-29T19:48:29Z",
      labels: recorded.labels,
      annotations: recorded.annotations ?? {},
      ownerReferences: [
        { apiVersion: "apps/v1", kind: "StatefulSet", name: set.metadata?.name ?? "", uid: set.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true },
      ],
    },
    data: JSON.parse(recorded.raw) as unknown,
    revision: recorded.revision,
  };
}

function recordedSnapshot(name: string): Snapshot {
  const set = recordedSet(name);
  return {
    set,
    pods: recording.pods.filter((p) => p.metadata?.ownerReferences?.some((r) => r.name === name)).map((p) => structuredClone(p)),
    claims: recording.persistentVolumeClaims.map((c) => structuredClone(c)),
    revisions: recording.controllerRevisions.filter((r) => r.set === name).map((r) => servedRevision(r, set)),
  };
}

/** What a ≥1.34 API server serves for the same stored set: no `creationTimestamp: null` in the template. */
function withoutNullCreationTimestamp(set: StatefulSet): StatefulSet {
  const meta = set.spec?.template?.metadata;
  assert.ok(meta && "creationTimestamp" in meta && meta.creationTimestamp === null, "the 1.32 recording carries creationTimestamp: null");
  delete meta.creationTimestamp;
  return set;
}

describe("ControllerRevision byte compatibility (kcm-v1.32.6 recording)", () => {
  it("re-encodes every recorded raw byte for byte and re-derives its name and hash label", () => {
    assert.equal(recording.controllerRevisions.length, 4);
    for (const revision of recording.controllerRevisions) {
      const parsed = JSON.parse(revision.raw) as ControllerRevision["data"];
      assert.equal(goJsonMarshal(parsed), revision.raw, revision.name);
      const template = templateOfRevision({ data: parsed });
      assert.ok(template, revision.name);
      assert.equal(revisionRaw(template), revision.raw, `${revision.name}: template -> raw`);
      const hash = controllerRevisionHash(revision.raw, revision.collisionCount);
      assert.equal(hash, revision.hashLabel);
      assert.equal(revision.labels[LABELS.controllerRevisionHash], hash);
      assert.equal(controllerRevisionName(revision.set, hash), revision.name);
    }
  });

  it("serializes each recorded StatefulSet's template into its update revision's raw, HTML escapes included", () => {
    for (const set of recording.statefulSets) {
      const updateRevision = recording.controllerRevisions.find((r) => r.name === set.status?.updateRevision);
      assert.ok(updateRevision, `${set.metadata?.name}: recorded update revision`);
      const template = set.spec?.template;
      assert.ok(template);
      assert.equal(revisionRaw(template), updateRevision.raw);
    }
    const db = recording.controllerRevisions.find((r) => r.set === "v2-db" && r.raw.includes("WEIRD"));
    assert.ok(db?.raw.includes("a\\u003cb\\u003e\\u0026c \\u2028 é"), "the recording exercises Go's HTML-safe escaping");
  });

  // Upstream TestStatefulSetCompatibility: existing objects + current controller => zero writes.
  for (const name of ["v1", "v2-db"]) {
    it(`makes no writes for recorded set ${name} as a 1.32 API server serves it (TestStatefulSetCompatibility)`, () => {
      const result = plan(recordedSnapshot(name), NOW_MS);
      assert.deepEqual(allActions(result), []);
      assert.equal(result.status.write, false);
      assert.equal(result.syncError, null);
      assert.equal(result.revisions.update, recordedSet(name).status?.updateRevision);
    });

    it(`treats ${name}'s revision with "creationTimestamp":null as equal to the 1.34+ template without it`, () => {
      const snapshot = recordedSnapshot(name);
      snapshot.set = withoutNullCreationTimestamp(snapshot.set);
      const template = snapshot.set.spec?.template;
      assert.ok(template);
      const recorded = recordedSet(name).status?.updateRevision;
      assert.notEqual(revisionRaw(template), recording.controllerRevisions.find((r) => r.name === recorded)?.raw, "bytes differ");
      const result = plan(snapshot, NOW_MS);
      assert.deepEqual(allActions(result), [], "no new revision, no pod touched");
      assert.equal(result.status.write, false);
      assert.equal(result.revisions.update, recorded);
      assert.equal(result.revisions.current, recorded);
    });
  }

  it("without StatefulSetSemanticRevisionComparison the drift creates a revision (the 1.34.0 regression, issue #134773)", () => {
    const snapshot = recordedSnapshot("v1");
    snapshot.set = withoutNullCreationTimestamp(snapshot.set);
    const result = plan(snapshot, NOW_MS, { semanticRevisionComparison: false });
    const creates = allActions(result).filter((a) => a.type === "createRevision");
    assert.equal(creates.length, 1);
    assert.notEqual(result.revisions.update, "v1-d6c75f94f");
  });

  it("reproduces upstream's TestStatefulSetCompatibility revision name test-c77f6d978", () => {
    const raw =
      '{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}';
    const template = templateOfRevision({ data: JSON.parse(raw) as unknown });
    assert.ok(template);
    assert.equal(revisionRaw(template), raw);
    assert.equal(controllerRevisionName("test", controllerRevisionHash(raw, 0)), "test-c77f6d978");
  });

  it("rolls back to the recorded older revision by renumbering it, not by creating one (kubectl rollout undo)", () => {
    const snapshot = recordedSnapshot("v1");
    const older = recording.controllerRevisions.find((r) => r.set === "v1" && r.name !== "v1-d6c75f94f");
    assert.ok(older);
    const olderTemplate = templateOfRevision({ data: JSON.parse(older.raw) as unknown });
    assert.ok(olderTemplate && snapshot.set.spec);
    snapshot.set.spec.template = olderTemplate;
    const result = plan(snapshot, NOW_MS);
    const revisionActions = allActions(result).filter((a) => a.type === "createRevision" || a.type === "updateRevision");
    assert.deepEqual(
      revisionActions.map((a) => (a.type === "updateRevision" ? [a.type, a.name, a.fromRevision, a.revision] : [a.type])),
      [["updateRevision", older.name, older.revision, 4]],
    );
    assert.equal(result.revisions.update, older.name);
    assert.equal(result.revisions.current, "v1-d6c75f94f");
  });

  it("sends the create body with data spliced in verbatim", () => {
    const snapshot = recordedSnapshot("v2-db");
    snapshot.revisions = [];
    snapshot.set.status = {};
    const create = allActions(plan(snapshot, NOW_MS)).find((a): a is CreateRevisionAction => a.type === "createRevision");
    assert.ok(create);
    const updateRevision = recordedSet("v2-db").status?.updateRevision;
    assert.equal(create.name, updateRevision);
    assert.ok(create.bodyJson.includes(`"data":${create.raw},`));
    assert.deepEqual(JSON.parse(create.bodyJson), create.object);
    const annotations = create.object.metadata?.annotations ?? {};
    assert.equal(annotations["kubernetes.io/change-cause"], "bump env", "the set's annotations are copied for rollout history");
    assert.equal(create.object.metadata?.labels?.[LABELS.controllerRevisionHash], updateRevision?.slice("v2-db-".length));
  });
});
