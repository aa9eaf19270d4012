import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SAMPLE_MESSAGES } from "#protocol";
import type { StatusWrite } from "#protocol";
import { KubeApiError } from "../../common/src/kube.ts";
import { createExecutorMetrics } from "../../common/src/executor/metrics.ts";
import type { KubeApi } from "../../common/src/executor/process.ts";
import { createCommonMetrics } from "../../common/src/metrics.ts";
import { WrittenSets, decideStatusWrite, mergeStatus, sameStatus, writeStatus } from "./status.ts";
import type { ForeignOverwrite, OwnWrite } from "./status.ts";

const wanted = SAMPLE_MESSAGES["status.write"].status;

describe("status comparison", () => {
  it("treats the fields the API server omits when zero or empty as equal", () => {
    const stored = { observedGeneration: 1, replicas: 0, availableReplicas: 0, collisionCount: 0 };
    const zero = { ...wanted, observedGeneration: 1, replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0, currentRevision: "", updateRevision: "", collisionCount: 0 };
    assert.ok(sameStatus(stored, mergeStatus(stored, zero)));
    assert.ok(!sameStatus(stored, mergeStatus(stored, { ...zero, readyReplicas: 1 })));
  });

  it("keeps stored fields it does not know and stored conditions when the write has none", () => {
    const stored = { observedGeneration: 2, futureField: "x", conditions: [{ type: "A", status: "True" }] };
    const merged = mergeStatus(stored, wanted);
    assert.equal(merged["futureField"], "x");
    assert.deepEqual(merged["conditions"], stored.conditions);
    assert.deepEqual(mergeStatus(stored, { ...wanted, conditions: [] })["conditions"], []);
  });

  it("ignores key order and compares conditions", () => {
    const a = { replicas: 3, observedGeneration: 1, conditions: [{ status: "True", type: "A" }] };
    const b = { observedGeneration: 1, replicas: 3, conditions: [{ type: "A", status: "True" }] };
    assert.ok(sameStatus(a, b));
    assert.ok(!sameStatus(a, { ...b, conditions: [{ type: "A", status: "False" }] }));
  });
});

interface StoredSet {
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string; generation: number };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/**
 * One StatefulSet in memory, kept as an API server keeps it: every write bumps resourceVersion, and a PUT whose
 * resourceVersion is not the stored one gets 409 Conflict. `requests` lists what was asked, in order.
 */
function oneSetServer(uid: string) {
  const write = SAMPLE_MESSAGES["status.write"];
  let stored: StoredSet = {
    metadata: { name: write.set.name, namespace: write.set.namespace, uid, resourceVersion: "1", generation: 3 },
    spec: { replicas: 3 },
  };
  const requests: string[] = [];
  const bump = () => String(Number(stored.metadata.resourceVersion) + 1);
  const kube = {
    get: <T>() => {
      requests.push("GET");
      return Promise.resolve(structuredClone(stored) as T);
    },
    replace: <T>(_ref: unknown, body: unknown) => {
      requests.push("PUT");
      const sent = body as StoredSet;
      if (sent.metadata.resourceVersion !== stored.metadata.resourceVersion) {
        return Promise.reject(new KubeApiError({ status: 409, verb: "update", path: "statefulsets/status", body: { reason: "Conflict" } }));
      }
      stored = { ...stored, status: sent.status ?? {}, metadata: { ...stored.metadata, resourceVersion: bump() } };
      return Promise.resolve(structuredClone(stored) as T);
    },
    create: () => Promise.reject(new Error("not used")),
    patch: () => Promise.reject(new Error("not used")),
  } as unknown as KubeApi;
  /** Another client writes the set (kubectl scale, or a status patch). */
  const foreignWrite = (change: (set: StoredSet) => StoredSet) => {
    stored = change({ ...stored, metadata: { ...stored.metadata, resourceVersion: bump() } });
  };
  return { kube, requests, foreignWrite, stored: () => stored };
}

describe("writeStatus from the writer's own copy of the set", () => {
  const sample = SAMPLE_MESSAGES["status.write"];
  const uid = sample.set.uid;
  const at = (observedGeneration: number, readyReplicas: number): StatusWrite => ({ ...sample, status: { ...sample.status, observedGeneration, readyReplicas } });
  const setup = () => {
    const server = oneSetServer(uid);
    const written = new WrittenSets();
    const deps = {
      kube: server.kube,
      written,
      epochs: { isStale: () => false },
      metrics: createExecutorMetrics(createCommonMetrics("status-writer-test", "t")),
      maxConflictRetries: 4,
    };
    return { server, written, deps };
  };

  it("reads the set only for its first write; later writes go straight to the PUT", async () => {
    const { server, deps } = setup();
    assert.equal((await writeStatus(at(3, 1), deps)).outcome, "written");
    assert.equal((await writeStatus(at(3, 2), deps)).outcome, "written");
    assert.equal((await writeStatus(at(3, 3), deps)).outcome, "written");
    assert.deepEqual(server.requests, ["GET", "PUT", "PUT", "PUT"]);
    assert.equal(server.stored().status?.["readyReplicas"], 3);
  });

  it("re-reads and writes when another client changed the set since (its PUT from the copy conflicts)", async () => {
    const { server, deps } = setup();
    await writeStatus(at(3, 1), deps);
    server.foreignWrite((set) => ({ ...set, spec: { replicas: 5 } }));
    server.requests.length = 0;
    assert.equal((await writeStatus(at(3, 2), deps)).outcome, "written");
    assert.deepEqual(server.requests, ["PUT", "GET", "PUT"]);
    assert.deepEqual(server.stored().spec, { replicas: 5 }, "the other client's change stays");
  });

  it("never concludes unchanged or stale-generation from the copy: a status another client wrote is seen and replaced", async () => {
    const { server, deps } = setup();
    await writeStatus(at(3, 2), deps);
    // Someone else puts another status there; the actor, whose cache now shows it, asks for what it wants again.
    server.foreignWrite((set) => ({ ...set, status: { ...set.status, readyReplicas: 0, replicas: 7 } }));
    server.requests.length = 0;
    assert.equal((await writeStatus(at(3, 2), deps)).outcome, "written");
    assert.deepEqual(server.requests, ["GET", "PUT"], "same as the copy: verified with a GET, then written");
    assert.equal(server.stored().status?.["readyReplicas"], 2);
    assert.equal(server.stored().status?.["replicas"], sample.status.replicas);
  });

  it("counts a conflicting first try from the copy as one of the bounded tries, as upstream's cached first try is", async () => {
    const { server, deps } = setup();
    await writeStatus(at(3, 1), deps);
    (server.kube as { replace: KubeApi["replace"] }).replace = () =>
      Promise.reject(new KubeApiError({ status: 409, verb: "update", path: "statefulsets/status", body: { reason: "Conflict" } }));
    server.requests.length = 0;
    const result = await writeStatus(at(3, 2), deps);
    assert.equal(result.outcome, "failed");
    assert.match(result.message ?? "", /gave up after 5 conflicting writes/);
    assert.deepEqual(server.requests, ["GET", "GET", "GET", "GET"], "the copy's try and four re-reads, five PUTs in all");
  });

  it("keeps a bounded number of copies, forgetting the set written longest ago, and only for the same uid", () => {
    const written = new WrittenSets(2);
    const copy = (name: string, uid = `uid-${name}`) => ({ metadata: { name, namespace: "ns", uid, resourceVersion: "1" } });
    written.remember(copy("a"), 1);
    written.remember(copy("b"), 1);
    written.remember(copy("a"), 1); // a is now the most recent
    written.remember(copy("c"), 1);
    assert.ok(written.get("ns", "a", "uid-a"));
    assert.equal(written.get("ns", "b", "uid-b"), undefined, "b was written longest ago");
    assert.ok(written.get("ns", "c", "uid-c"));
    assert.equal(written.get("ns", "c", "another-uid"), undefined, "a recreated set is not the copy's set");
    written.forget("ns", "c");
    assert.equal(written.get("ns", "c", "uid-c"), undefined);
    assert.equal(written.lastWrite("ns", "c", "uid-c")?.epoch, 1, "forgetting the copy keeps the record of the last write");
    assert.equal(written.lastWrite("ns", "b", "uid-b"), undefined, "an evicted set takes its record along");
    assert.equal(written.lastWrite("ns", "c", "another-uid"), undefined);
  });
});


// Issue 16 ("status frozen by another writer") and ADR 0087: ordering is judged against the fleet's own records.
describe("decideStatusWrite", () => {
  const sample = SAMPLE_MESSAGES["status.write"];
  const request = (observedGeneration: number, extra: Partial<StatusWrite["status"]> = {}, epoch = 7) => ({
    epoch,
    status: { ...sample.status, observedGeneration, ...extra },
  });
  const ownAt = (observedGeneration: number, epoch = 7, status: Record<string, unknown> = { ...sample.status, observedGeneration }): OwnWrite => ({
    uid: sample.set.uid,
    epoch,
    observedGeneration,
    status,
  });
  const POISON = 1_000_000;

  it("overwrites an observedGeneration above metadata.generation (kubectl patch --subresource=status), remembered or not", () => {
    const poisoned = { ...sample.status, observedGeneration: POISON, replicas: 3 };
    for (const own of [undefined, ownAt(1, 7, { ...sample.status, observedGeneration: 1, replicas: 3 })]) {
      const decision = decideStatusWrite({ write: request(2, { replicas: 5 }), current: { generation: 2, status: poisoned }, own });
      assert.equal(decision.type, "write", `own: ${JSON.stringify(own)}`);
      if (decision.type !== "write") continue;
      assert.equal(decision.status["observedGeneration"], 2);
      assert.equal(decision.status["replicas"], 5);
      assert.equal(decision.overwrites, "impossible-generation");
    }
  });

  it("still refuses a delayed write older than the fleet's own last write, whatever another client stored since", () => {
    for (const stored of [{ ...sample.status, observedGeneration: 1 }, { ...sample.status, observedGeneration: POISON }, undefined]) {
      const decision = decideStatusWrite({ write: request(2, { readyReplicas: 0 }), current: { generation: 3, status: stored }, own: ownAt(3) });
      assert.deepEqual(decision, { type: "stale-generation", floor: 3, floorFrom: "own-write" }, `stored: ${JSON.stringify(stored)}`);
    }
  });

  it("without a record (restart, another replica's write) a stored value a controller could have written is a floor", () => {
    const stored = { ...sample.status, observedGeneration: 3 };
    assert.deepEqual(decideStatusWrite({ write: request(2), current: { generation: 3, status: stored }, own: undefined }), {
      type: "stale-generation",
      floor: 3,
      floorFrom: "stored",
    });
    // Such a value cannot block convergence: the request computed from the current object carries its generation.
    const current = decideStatusWrite({ write: request(3, { readyReplicas: 1 }), current: { generation: 3, status: stored }, own: undefined });
    assert.equal(current.type, "write");
    // A server that sends no generation cannot prove a value impossible: the stored one stays a floor.
    assert.equal(decideStatusWrite({ write: request(2), current: { generation: undefined, status: { observedGeneration: POISON } }, own: undefined }).type, "stale-generation");
  });

  it("refuses a request of an older shard epoch than the one this writer last wrote for", () => {
    assert.deepEqual(decideStatusWrite({ write: request(4, {}, 6), current: { generation: 4, status: undefined }, own: ownAt(3, 7) }), {
      type: "stale-epoch",
      ownEpoch: 7,
    });
    assert.equal(decideStatusWrite({ write: request(4, {}, 8), current: { generation: 4, status: undefined }, own: ownAt(3, 7) }).type, "write");
  });

  it("an equal status is unchanged; over its own status nothing is foreign; over another's it says so", () => {
    const mine = { ...sample.status, observedGeneration: 3 };
    assert.deepEqual(decideStatusWrite({ write: request(3), current: { generation: 3, status: mine }, own: ownAt(3) }), { type: "unchanged" });
    const over = (status: Record<string, unknown>, own: OwnWrite | undefined) =>
      decideStatusWrite({ write: request(3, { readyReplicas: 9 }), current: { generation: 3, status }, own });
    assert.deepEqual(pick(over(mine, ownAt(3))), { type: "write", overwrites: null });
    assert.deepEqual(pick(over({ ...mine, replicas: 7 }, ownAt(3))), { type: "write", overwrites: "not-own-write" });
    assert.deepEqual(pick(over({ ...mine, replicas: 7 }, undefined)), { type: "write", overwrites: null }, "without a record it cannot tell");
  });
});

function pick(decision: ReturnType<typeof decideStatusWrite>): { type: string; overwrites?: string | null } {
  return decision.type === "write" ? { type: decision.type, overwrites: decision.overwrites } : { type: decision.type };
}

describe("writeStatus over a status someone else wrote (issue 16)", () => {
  const sample = SAMPLE_MESSAGES["status.write"];
  const at = (observedGeneration: number, readyReplicas: number): StatusWrite => ({ ...sample, status: { ...sample.status, observedGeneration, readyReplicas } });
  const setup = (written = new WrittenSets()) => {
    const server = oneSetServer(sample.set.uid);
    const overwrites: ForeignOverwrite[] = [];
    const deps = {
      kube: server.kube,
      written,
      epochs: { isStale: () => false },
      metrics: createExecutorMetrics(createCommonMetrics("status-writer-test", "t")),
      maxConflictRetries: 4,
      onForeignOverwrite: (overwrite: ForeignOverwrite) => overwrites.push(overwrite),
    };
    return { server, deps, overwrites };
  };
  const poison = (server: ReturnType<typeof oneSetServer>) =>
    server.foreignWrite((set) => ({ ...set, status: { ...set.status, observedGeneration: 1_000_000 } }));

  it("replaces an observedGeneration above metadata.generation, and reports it", async () => {
    const { server, deps, overwrites } = setup();
    assert.equal((await writeStatus(at(3, 1), deps)).outcome, "written");
    poison(server);
    assert.equal((await writeStatus(at(3, 2), deps)).outcome, "written");
    assert.equal(server.stored().status?.["observedGeneration"], 3);
    assert.equal(server.stored().status?.["readyReplicas"], 2);
    assert.deepEqual(overwrites, [{ reason: "impossible-generation", storedObservedGeneration: 1_000_000, generation: 3 }]);
  });

  it("replaces it after a restart too (no record of its own writes)", async () => {
    const { server, deps } = setup();
    poison(server);
    assert.equal((await writeStatus(at(3, 2), deps)).outcome, "written");
    assert.equal(server.stored().status?.["observedGeneration"], 3);
  });

  it("still refuses a delayed older write after another client lowered the stored observedGeneration", async () => {
    const { server, deps } = setup();
    assert.equal((await writeStatus(at(3, 3), deps)).outcome, "written");
    server.foreignWrite((set) => ({ ...set, status: { ...set.status, observedGeneration: 1 } }));
    const late = await writeStatus(at(2, 0), deps);
    assert.equal(late.outcome, "stale-generation");
    assert.match(late.message ?? "", /already wrote observedGeneration 3/);
    assert.equal(server.stored().status?.["readyReplicas"], 3);
  });
});

describe("conditions-only writes (a set another controller writes, ADR 0092)", () => {
  const sample = SAMPLE_MESSAGES["status.write"];
  const condition = (status: "True" | "False", lastTransitionTime: string, message = "m") => ({ type: "ForeignController", status, reason: "ForeignControllerDetected", message, lastTransitionTime });
  const conditionsOnly = (conditions: StatusWrite["status"]["conditions"], epoch = sample.epoch): StatusWrite => ({
    ...sample,
    epoch,
    scope: "conditions",
    // The counters of a conditions-only request are not written: these are deliberately not the stored ones.
    status: { ...sample.status, observedGeneration: 1, replicas: 99, conditions },
  });

  it("sets conditions by type as meta.SetStatusCondition does: new appended, a changed status takes the new time, counters stay", () => {
    const stored = { ...sample.status, observedGeneration: 3, replicas: 5, conditions: [{ type: "Progressing", status: "True" }] };
    const added = decideStatusWrite({ write: conditionsOnly([condition("True", "T1")]), current: { generation: 3, status: stored }, own: undefined });
    assert.equal(added.type, "write");
    const written = added.type === "write" ? added.status : {};
    assert.deepEqual([written["observedGeneration"], written["replicas"]], [3, 5], "the stored counters, not the request's");
    assert.deepEqual(written["conditions"], [{ type: "Progressing", status: "True" }, condition("True", "T1")]);
    assert.equal(added.type === "write" ? added.overwrites : "?", null);

    const again = decideStatusWrite({ write: conditionsOnly([condition("True", "T2")]), current: { generation: 3, status: written }, own: undefined });
    assert.equal(again.type, "unchanged", "the same status keeps its lastTransitionTime: asking again writes nothing");
    const reworded = decideStatusWrite({ write: conditionsOnly([condition("True", "T2", "n")]), current: { generation: 3, status: written }, own: undefined });
    assert.deepEqual(reworded.type === "write" ? reworded.status["conditions"] : undefined, [{ type: "Progressing", status: "True" }, condition("True", "T1", "n")]);
    const cleared = decideStatusWrite({ write: conditionsOnly([condition("False", "T3")]), current: { generation: 3, status: written }, own: undefined });
    assert.deepEqual(cleared.type === "write" ? cleared.status["conditions"] : undefined, [{ type: "Progressing", status: "True" }, condition("False", "T3")]);
  });

  it("ignores the generation floors (no counter is written) but not the epoch", () => {
    const own: OwnWrite = { uid: sample.set.uid, epoch: sample.epoch, observedGeneration: 3, status: sample.status };
    const poisoned = { ...sample.status, observedGeneration: 1_000_000 };
    assert.equal(decideStatusWrite({ write: conditionsOnly([condition("True", "T1")]), current: { generation: 3, status: poisoned }, own }).type, "write");
    assert.equal(decideStatusWrite({ write: conditionsOnly([condition("True", "T1")], sample.epoch - 1), current: { generation: 3, status: sample.status }, own }).type, "stale-epoch");
  });

  it("over a status another controller wrote: writes the condition only, and its counters never become this writer's floor", async () => {
    const server = oneSetServer(sample.set.uid);
    const written = new WrittenSets();
    const deps = { kube: server.kube, written, epochs: { isStale: () => false }, metrics: createExecutorMetrics(createCommonMetrics("status-writer-test", "t")), maxConflictRetries: 4 };
    assert.equal((await writeStatus({ ...sample, status: { ...sample.status, observedGeneration: 3 } }, deps)).outcome, "written");
    server.foreignWrite((set) => ({ ...set, status: { ...set.status, observedGeneration: 1_000_000, replicas: 7 } }));
    assert.equal((await writeStatus(conditionsOnly([condition("True", "T1")]), deps)).outcome, "written");
    assert.deepEqual([server.stored().status?.["observedGeneration"], server.stored().status?.["replicas"]], [1_000_000, 7]);
    assert.deepEqual(server.stored().status?.["conditions"], [condition("True", "T1")]);
    assert.equal(written.lastWrite(sample.set.namespace, sample.set.name, sample.set.uid)?.observedGeneration, 3, "the own record did not move");
    // Acting again later: the fleet's write of its own generation is not refused by the foreign value.
    const resumed = await writeStatus({ ...sample, status: { ...sample.status, observedGeneration: 3, replicas: 3 } }, deps);
    assert.equal(resumed.outcome, "written");
    assert.deepEqual([server.stored().status?.["observedGeneration"], server.stored().status?.["replicas"]], [3, 3]);
    assert.deepEqual(server.stored().status?.["conditions"], [condition("True", "T1")], "a full write without conditions leaves them");
  });
});
