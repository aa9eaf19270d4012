// Spec section 4, scenarios 17-30: start ordinal, revisions and history (statefulset-behaviour.md).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LABELS, controllerRevisionHash, controllerRevisionName } from "#protocol";
import { allActions } from "./describe.ts";
import { revisionRaw } from "./revisions.ts";
import type { ControllerRevision, StatefulSet } from "./types.ts";
import { MODES, mark, newStatefulSet, pod, podCreates, podDeletes, podNames, scenario, setImage } from "./testing/index.ts";
import type { Harness } from "./testing/index.ts";

function revisions(h: Harness): ControllerRevision[] {
  return h.cluster.list<ControllerRevision>("ControllerRevision", h.namespace).sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
}

function scaleAndStart(h: Harness, replicas: number, start: number | undefined): void {
  h.cluster.updateSet(h.namespace, h.name, (s) => {
    const spec = (s.spec ??= {});
    spec.replicas = replicas;
    if (start === undefined) delete spec.ordinals;
    else spec.ordinals = { start };
  });
}

function changeImage(h: Harness, image: string): void {
  h.cluster.updateSet(h.namespace, h.name, (s) => setImage(s, image));
}

describe("scenario 17: start ordinal [unit TestStatefulSetControl/CreatesPodsWithStartOrdinal]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: start=2, replicas=3 creates web-2, web-3, web-4 only`, () => {
      const h = scenario({ replicas: 3, start: 2, podManagementPolicy: mode.policy });
      h.driver.converge();
      assert.deepEqual(podNames(h), ["web-2", "web-3", "web-4"]);
      assert.deepEqual(pod(h, "web-3")?.metadata?.labels?.[LABELS.podIndex], "3");
    });
  }
});

describe("scenario 18: setting .spec.ordinals.start [e2e Setting .start.ordinal]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: {0,1} -> start=2 replicas=3 ends as {2,3,4}`, () => {
      const h = scenario({ replicas: 2, podManagementPolicy: mode.policy });
      h.driver.converge();
      const before = mark(h);
      scaleAndStart(h, 3, 2);
      h.driver.converge();
      assert.deepEqual(podNames(h), ["web-2", "web-3", "web-4"]);
      if (mode.policy === "OrderedReady") {
        // Creates first, one by one; then the condemned pods, highest first.
        assert.deepEqual(podCreates(h, before), ["web-2", "web-3", "web-4"]);
        assert.deepEqual(podDeletes(h, before), ["web-1", "web-0"]);
        const lastCreate = h.cluster.audit.filter((e) => e.verb === "create" && e.kind === "Pod").at(-1)?.seq ?? 0;
        const firstDelete = h.cluster.audit.find((e) => e.seq > before && e.verb === "delete" && e.kind === "Pod")?.seq ?? 0;
        assert.ok(firstDelete > lastCreate, "scale-down waits for the new range to be Ready");
      } else {
        assert.deepEqual(podCreates(h, before).sort(), ["web-2", "web-3", "web-4"]);
        assert.deepEqual(podDeletes(h, before).sort(), ["web-0", "web-1"]);
      }
    });
  }
});

describe("scenario 19: increasing .spec.ordinals.start [e2e Increasing .start.ordinal]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: start 2 -> 4 moves {2,3} to {4,5}`, () => {
      const h = scenario({ replicas: 2, start: 2, podManagementPolicy: mode.policy });
      h.driver.converge();
      scaleAndStart(h, 2, 4);
      h.driver.converge();
      assert.deepEqual(podNames(h), ["web-4", "web-5"]);
    });
  }
});

describe("scenario 20: decreasing .spec.ordinals.start [e2e Decreasing .start.ordinal]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: start 3 -> 2 moves {3,4} to {2,3} and keeps web-3`, () => {
      const h = scenario({ replicas: 2, start: 3, podManagementPolicy: mode.policy });
      h.driver.converge();
      const web3 = pod(h, "web-3")?.metadata?.uid;
      scaleAndStart(h, 2, 2);
      h.driver.converge();
      assert.deepEqual(podNames(h), ["web-2", "web-3"]);
      assert.equal(pod(h, "web-3")?.metadata?.uid, web3);
    });
  }
});

describe("scenario 21: removing .spec.ordinals.start [e2e Removing .start.ordinal]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: start 3 -> unset moves {3,4} to {0,1}`, () => {
      const h = scenario({ replicas: 2, start: 3, podManagementPolicy: mode.policy });
      h.driver.converge();
      scaleAndStart(h, 2, undefined);
      h.driver.converge();
      assert.deepEqual(podNames(h), ["web-0", "web-1"]);
    });
  }
});

describe("scenarios 22-25: revisions [TestStatefulSetControl_getSetRevisions]", () => {
  it("22 creates initial revision: one revision numbered 1, current = update", () => {
    const h = scenario({ replicas: 1 });
    h.driver.turn();
    const list = revisions(h);
    assert.equal(list.length, 1);
    assert.equal(list[0]?.revision, 1);
    assert.equal(h.driver.set?.status?.currentRevision, list[0]?.metadata?.name);
    assert.equal(h.driver.set?.status?.updateRevision, list[0]?.metadata?.name);
  });

  it("23 creates revision on update; 24 must not recreate a new revision of same set", () => {
    const h = scenario({ replicas: 1 });
    h.driver.converge();
    const first = revisions(h)[0]?.metadata?.name;
    changeImage(h, "nginx:1.26");
    h.driver.turn();
    const list = revisions(h);
    assert.deepEqual(list.map((r) => r.revision), [1, 2]);
    assert.equal(h.driver.set?.status?.currentRevision, first);
    assert.equal(h.driver.set?.status?.updateRevision, list[1]?.metadata?.name);
    const again = h.driver.turn();
    assert.equal(allActions(again.plan).filter((a) => a.type === "createRevision").length, 0);
    assert.equal(revisions(h).length, 2);
  });

  it("25 must rollback to a previous revision: the old revision is renumbered, not recreated", () => {
    const h = scenario({ replicas: 1, partition: 1 });
    h.driver.converge();
    const r1 = revisions(h)[0]?.metadata?.name;
    changeImage(h, "nginx:1.26");
    h.driver.turn();
    changeImage(h, "nginx:1.27");
    h.driver.turn();
    const [, r2, r3] = revisions(h).map((r) => r.metadata?.name);
    assert.ok(r2 && r3);
    changeImage(h, "nginx:1.26");
    const report = h.driver.turn();
    assert.deepEqual(
      allActions(report.plan).filter((a) => a.type === "createRevision" || a.type === "updateRevision").map((a) => a.type),
      ["updateRevision"],
    );
    const list = revisions(h);
    assert.equal(list.length, 3);
    assert.deepEqual(list.map((r) => [r.metadata?.name, r.revision]), [[r1, 1], [r3, 3], [r2, 4]]);
    assert.equal(h.driver.set?.status?.updateRevision, r2);
    assert.equal(h.driver.set?.status?.currentRevision, r1, "current unchanged");
  });
});

describe("scenario 26: revision object shape [TestStatefulSetCompatibility]", () => {
  it("is named <set>-<hash>, labelled with the template labels and the hash, owned by the set, raw is the template patch", () => {
    const h = scenario({ replicas: 1 });
    h.driver.turn();
    const [revision] = revisions(h);
    assert.ok(revision);
    const raw = h.cluster.revisionDataRaw(h.namespace, revision.metadata?.name ?? "") ?? "";
    assert.ok(raw.startsWith('{"spec":{"template":{"$patch":"replace","metadata":'));
    const hash = controllerRevisionHash(raw, 0);
    assert.equal(revision.metadata?.name, controllerRevisionName("web", hash));
    assert.deepEqual(revision.metadata?.labels, { app: "web", [LABELS.controllerRevisionHash]: hash });
    const owner = revision.metadata?.ownerReferences?.[0];
    assert.deepEqual(owner && [owner.apiVersion, owner.kind, owner.name, owner.uid, owner.controller, owner.blockOwnerDeletion], [
      "apps/v1",
      "StatefulSet",
      "web",
      h.driver.set?.metadata?.uid,
      true,
      true,
    ]);
  });
});

describe("scenario 27: no spurious rollout on serializer drift [TestStatefulSetCompatibility, PR #135017]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: revisions written with "creationTimestamp":null cause zero writes once the template lacks it`, () => {
      const set = newStatefulSet({ replicas: 3, podManagementPolicy: mode.policy });
      const templateMeta = set.spec?.template?.metadata as Record<string, unknown>;
      templateMeta.creationTimestamp = null;
      const h = scenario();
      h.cluster.delete("StatefulSet", h.namespace, h.name);
      const created = h.cluster.create<StatefulSet>("StatefulSet", set);
      assert.ok(created);
      h.driver.converge();
      const name = h.driver.set?.status?.updateRevision ?? "";
      assert.ok(h.cluster.revisionDataRaw(h.namespace, name)?.includes('"creationTimestamp":null'));
      // The API server is upgraded: the same stored object is now served without the null.
      h.cluster.mutate<StatefulSet>("StatefulSet", h.namespace, h.name, (s) => {
        delete (s.spec?.template?.metadata as Record<string, unknown>).creationTimestamp;
      });
      const calls = JSON.stringify([...h.cluster.calls]);
      const report = h.driver.turn();
      assert.deepEqual(allActions(report.plan), []);
      assert.equal(report.execution.statusWritten, false);
      assert.equal(JSON.stringify([...h.cluster.calls]), calls, "no create, update, patch or delete of any kind");
      assert.equal(report.plan.revisions.update, name);
    });
  }
});

describe("scenario 28: history limit [TestStatefulSetControlLimitsHistory, TestStatefulSetHonorRevisionHistoryLimit]", () => {
  for (const mode of MODES) {
    it(`${mode.label}: 12 template changes never leave more than revisionHistoryLimit+2 revisions, even with failed status writes`, () => {
      const limit = 2;
      const h = scenario({ replicas: 2, revisionHistoryLimit: limit, podManagementPolicy: mode.policy });
      h.driver.converge();
      h.cluster.failOn({ verb: "updateStatus", kind: "StatefulSet", nth: 3, times: 4 });
      for (let i = 0; i < 12; i++) {
        changeImage(h, `nginx:1.${30 + i}`);
        h.driver.converge();
        assert.ok(revisions(h).length <= limit + 2, `after change ${i}: ${revisions(h).length} revisions`);
      }
      assert.equal(revisions(h).length, limit + 1, "the live revision plus the history limit");
    });
  }
});

describe("scenario 29: name collisions [history tests; TestCreateControllerRevision collision]", () => {
  function squatter(h: Harness): ControllerRevision {
    const set = h.driver.set;
    const template = set?.spec?.template;
    assert.ok(template);
    const name = controllerRevisionName("web", controllerRevisionHash(revisionRaw(template), 0));
    return { metadata: { name, namespace: h.namespace, labels: { other: "owner" } }, data: { unrelated: true }, revision: 1 };
  }

  it("bumps collisionCount when the computed name is taken by a revision with other data", () => {
    const h = scenario({ replicas: 1 });
    const taken = squatter(h);
    h.cluster.create("ControllerRevision", taken);
    h.driver.converge();
    const status = h.driver.set?.status;
    assert.equal(status?.collisionCount, 1);
    assert.notEqual(status?.updateRevision, taken.metadata?.name);
    assert.equal(status?.updateRevision, controllerRevisionName("web", controllerRevisionHash(revisionRaw(h.driver.set?.spec?.template ?? {}), 1)));
    h.driver.turn();
    assert.equal(h.driver.set?.status?.collisionCount, 1, "never decreases");
  });

  it("recovers when the collision is only discovered by the API server (AlreadyExists with other data)", () => {
    let hide = true;
    const h = scenario({ replicas: 1 }, {
      snapshotHook: (snapshot) => (hide ? { ...snapshot, revisions: snapshot.revisions.filter((r) => r.metadata?.labels?.other !== "owner") } : snapshot),
    });
    h.cluster.create("ControllerRevision", squatter(h));
    const first = h.driver.turn();
    assert.equal(first.execution.failed?.step.phase, "revision");
    assert.equal(first.execution.statusWritten, false);
    hide = false;
    h.driver.converge();
    assert.equal(h.driver.set?.status?.collisionCount, 1);
    assert.deepEqual(podNames(h), ["web-0"]);
  });
});

describe("scenario 30: orphan revision adoption [ctrl TestAdoptOrphanRevisions]", () => {
  it("gives a matching revision without owner a controller reference to the set", () => {
    const h = scenario({ replicas: 1 });
    h.cluster.create<ControllerRevision>("ControllerRevision", {
      metadata: { name: "web-orphan", namespace: h.namespace, labels: { app: "web" } },
      data: { spec: { template: { $patch: "replace" } } },
      revision: 1,
    });
    h.cluster.create<ControllerRevision>("ControllerRevision", {
      metadata: { name: "other-orphan", namespace: h.namespace, labels: { app: "other" } },
      data: { spec: {} },
      revision: 1,
    });
    const report = h.driver.turn();
    assert.deepEqual(report.plan.steps.slice(0, 2).map((s) => s.actions.map((a) => a.type)), [["verifySetForAdoption"], ["adoptRevision"]]);
    const adopted = h.cluster.get<ControllerRevision>("ControllerRevision", h.namespace, "web-orphan");
    assert.equal(adopted?.metadata?.ownerReferences?.[0]?.uid, h.driver.set?.metadata?.uid);
    assert.equal(adopted?.metadata?.ownerReferences?.[0]?.controller, true);
    assert.deepEqual(h.cluster.get<ControllerRevision>("ControllerRevision", h.namespace, "other-orphan")?.metadata?.ownerReferences ?? [], []);
  });
});
