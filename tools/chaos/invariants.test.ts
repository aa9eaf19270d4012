// The invariant checker on crafted audit logs, object timelines and ownership histories: each invariant passes on
// a history that keeps it and reports the history that breaks it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ALL_SHARDS, shard as shardOf } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";
import { factsOf, parseAuditLog } from "./facts.ts";
import type { AuditWrite, FaultRecord, ObjectEvent, ObjectFacts, OwnershipChange, PodFacts, SetFacts } from "./facts.ts";
import { checkInvariants } from "./invariants.ts";
import type { CheckInput, InvariantId, InvariantReport } from "./invariants.ts";

const BASE_MS = Date.parse("2026-01-01T00:00:00Z");

function micro(ms: number): string {
  const iso = new Date(Math.floor(ms)).toISOString();
  const micros = Math.round((ms - Math.floor(ms)) * 1000);
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}${String(micros).padStart(3, "0")}Z`;
}

interface Line {
  verb: string;
  resource: string;
  name: string;
  ns?: string;
  code?: number;
  reason?: string;
  service?: string;
  instance?: string;
  epoch?: string;
  /** ms after BASE when received; completed 2 ms later unless durMs. */
  at: number;
  durMs?: number;
}

/** Audit lines exactly as the simulator writes them. */
function auditText(lines: readonly Line[]): string {
  return lines
    .map((l) => {
      const annotations: Record<string, string> = { "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "" };
      if (l.epoch) annotations["stsfleet.dev/epoch"] = l.epoch;
      const code = l.code ?? (l.verb === "create" ? 201 : 200);
      return JSON.stringify({
        kind: "Event",
        apiVersion: "audit.k8s.io/v1",
        level: "Metadata",
        auditID: "x",
        stage: "ResponseComplete",
        requestURI: "/",
        verb: l.verb,
        user: { username: "kubernetes-admin", groups: [] },
        sourceIPs: ["127.0.0.1"],
        userAgent: `stsfleet-${l.service ?? "actor"}/0.1.0 (${l.instance ?? "actor-0"})`,
        objectRef: { resource: l.resource, namespace: l.ns ?? "ns", name: l.name, apiVersion: "v1" },
        responseStatus: l.reason ? { metadata: {}, status: "Failure", reason: l.reason, code } : { metadata: {}, code },
        requestReceivedTimestamp: micro(BASE_MS + l.at),
        stageTimestamp: micro(BASE_MS + l.at + (l.durMs ?? 2)),
        annotations,
      });
    })
    .join("\n");
}

const audit = (lines: readonly Line[]): AuditWrite[] => parseAuditLog(auditText(lines));
const epochOf = (set: string, epoch: number, member: string) => `${shardOf("ns", set)}/${epoch}/${member}`;

// --- objects ---------------------------------------------------------------------------------------------------

interface SetInit {
  uid?: string;
  replicas: number;
  policy?: "OrderedReady" | "Parallel";
  partition?: number;
  maxUnavailable?: number;
  generation?: number;
  observed?: number;
  deleting?: boolean;
  status?: Record<string, unknown>;
}

function setFacts(name: string, init: SetInit): SetFacts {
  return factsOf("StatefulSet", {
    metadata: { name, namespace: "ns", uid: init.uid ?? `${name}-uid`, generation: init.generation ?? 1, ...(init.deleting ? { deletionTimestamp: "x" } : {}) },
    spec: {
      replicas: init.replicas,
      podManagementPolicy: init.policy ?? "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: init.partition ?? 0, ...(init.maxUnavailable ? { maxUnavailable: init.maxUnavailable } : {}) } },
    },
    status: { observedGeneration: init.observed, ...init.status },
  }) as SetFacts;
}

interface PodInit {
  uid?: string;
  set?: string;
  rev?: string;
  ready?: boolean;
  deleting?: boolean;
}

function podFacts(name: string, init: PodInit = {}): PodFacts {
  const set = init.set ?? name.replace(/-\d+$/, "");
  return factsOf("Pod", {
    metadata: {
      name,
      namespace: "ns",
      uid: init.uid ?? `${name}-uid`,
      labels: { "controller-revision-hash": init.rev ?? "web-r1" },
      ownerReferences: [{ uid: `${set}-uid`, controller: true }],
      ...(init.deleting ? { deletionTimestamp: "x" } : {}),
    },
    status: init.ready ? { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } : { phase: "Pending" },
  }) as PodFacts;
}

function revisionEvent(rv: number, name: string, revision: number, set = "web"): ObjectEvent {
  return {
    type: "ADDED",
    rv,
    atMs: rv,
    synthetic: false,
    facts: factsOf("ControllerRevision", { metadata: { name, namespace: "ns", uid: `${name}-uid`, ownerReferences: [{ uid: `${set}-uid`, controller: true }] }, revision }),
  };
}

/** A timeline from terse steps; resourceVersions are the positions. */
function timeline(steps: readonly (readonly [ObjectEvent["type"], ObjectFacts] | ObjectEvent)[]): ObjectEvent[] {
  return steps.map((step, i) => {
    if (!Array.isArray(step)) return { ...(step as ObjectEvent), rv: i + 1 };
    const [type, facts] = step as readonly [ObjectEvent["type"], ObjectFacts];
    return { type, rv: i + 1, atMs: i + 1, synthetic: false, facts: { ...facts, rv: i + 1 } };
  });
}

function only(report: InvariantReport, id: InvariantId): string[] {
  return (report.results.find((r) => r.id === id)?.violations ?? []).map((v) => `${v.subject}: ${v.message}`);
}

function check(input: Partial<CheckInput>): InvariantReport {
  return checkInvariants({ audit: [], timeline: [], ...input });
}

// --- tests -----------------------------------------------------------------------------------------------------

describe("parseAuditLog", () => {
  it("reads verb, object, outcome, service, instance, the writer's epoch and microsecond times", () => {
    const text = `${auditText([{ verb: "create", resource: "pods", name: "web-0", epoch: "17/42/actor-1", instance: "actor-1", at: 1.5 }])}\n{"torn`;
    const [write, ...rest] = parseAuditLog(text);
    assert.equal(rest.length, 0, "a torn last line is left for the next read");
    assert.equal(write?.verb, "create");
    assert.equal(write?.name, "web-0");
    assert.equal(write?.service, "actor");
    assert.equal(write?.instance, "actor-1");
    assert.deepEqual(write?.epoch, { shard: 17, epoch: 42, member: "actor-1" });
    assert.equal(write?.receivedUs, BASE_MS * 1000 + 1500);
    assert.equal(write?.completedUs, BASE_MS * 1000 + 3500);
  });

  it("refuses a broken line in the middle", () => {
    assert.throws(() => parseAuditLog(`{"broken\n${auditText([{ verb: "create", resource: "pods", name: "a-0", at: 0 }])}`), /line 1 is not JSON/);
  });
});

describe("I1 single writer per set", () => {
  it("passes when epochs only grow per set, and counts what it checked", () => {
    const report = check({
      audit: audit([
        { verb: "create", resource: "pods", name: "web-0", epoch: epochOf("web", 10, "actor-0"), at: 0 },
        { verb: "create", resource: "controllerrevisions", name: "web-5d8f7c9b4", epoch: epochOf("web", 10, "actor-0"), at: 5 },
        { verb: "delete", resource: "pods", name: "web-0", epoch: epochOf("web", 20, "actor-1"), at: 10 },
        { verb: "create", resource: "pods", name: "db-0", epoch: epochOf("db", 5, "actor-0"), at: 12 },
        // a rejected write of the old owner is fine: only accepted writes count
        { verb: "create", resource: "pods", name: "web-1", epoch: epochOf("web", 10, "actor-0"), at: 20, code: 409, reason: "AlreadyExists" },
      ]),
    });
    assert.deepEqual(only(report, "I1"), []);
    assert.equal(report.results[0]?.checked, 4);
  });

  it("reports an old epoch's write accepted after a newer epoch wrote to the same set", () => {
    const report = check({
      audit: audit([
        { verb: "create", resource: "pods", name: "web-0", epoch: epochOf("web", 20, "actor-1"), at: 0 },
        { verb: "delete", resource: "pods", name: "web-1", epoch: epochOf("web", 10, "actor-0"), instance: "actor-0", at: 10 },
      ]),
    });
    const violations = only(report, "I1");
    assert.equal(violations.length, 1);
    assert.match(violations[0] ?? "", /^ns\/web: delete pods\/web-1 by actor-0 epoch 10 .* after epoch 20 \(actor-1\)/);
  });

  it("does not call overlapping requests an order, and keeps sets apart", () => {
    const report = check({
      audit: audit([
        { verb: "create", resource: "pods", name: "web-0", epoch: epochOf("web", 20, "actor-1"), at: 0, durMs: 10 },
        { verb: "delete", resource: "pods", name: "web-1", epoch: epochOf("web", 10, "actor-0"), at: 5, durMs: 10 },
        { verb: "create", resource: "pods", name: "db-0", epoch: epochOf("db", 5, "actor-0"), at: 30 },
      ]),
    });
    assert.deepEqual(only(report, "I1"), []);
    assert.match(report.results[0]?.notes.join() ?? "", /1 older-epoch writes overlapped/);
  });

  it("reports a shard that does not match the set, and an epoch used by two members", () => {
    const wrong = (shardOf("ns", "web") + 1) % 256;
    const report = check({
      audit: audit([
        { verb: "create", resource: "pods", name: "web-0", epoch: `${wrong}/10/actor-0`, at: 0 },
        { verb: "create", resource: "pods", name: "db-0", epoch: epochOf("db", 7, "actor-0"), at: 1 },
        { verb: "create", resource: "pods", name: "db-1", epoch: epochOf("db", 7, "actor-1"), at: 2 },
      ]),
    });
    const violations = only(report, "I1");
    assert.equal(violations.length, 2);
    assert.match(violations[0] ?? "", /names shard \d+, but the set is in shard/);
    assert.match(violations[1] ?? "", /epoch 7 of shard \d+ was used by actor-0 and actor-1/);
  });

  it("with the whole ownership history: every epoch is a claim by its writer; writes after a newer claim are listed", () => {
    const s = shardOf("ns", "web");
    const claim = (revision: number, owner: string, atMs: number): OwnershipChange => ({
      bucket: "shards",
      key: `s.${s}`,
      revision,
      atMs: BASE_MS + atMs,
      shard: { type: "shard", shard: s, owner, incarnation: `${owner}-i`, state: "owned" },
    });
    const report = check({
      ownership: [claim(10, "actor-0", 0), claim(20, "actor-1", 100)],
      ownershipComplete: true,
      audit: audit([
        { verb: "create", resource: "pods", name: "web-0", epoch: epochOf("web", 10, "actor-0"), at: 50 },
        { verb: "create", resource: "pods", name: "web-1", epoch: epochOf("web", 10, "actor-0"), at: 150 },
        { verb: "create", resource: "pods", name: "web-2", epoch: epochOf("web", 15, "actor-0"), at: 160 },
        { verb: "create", resource: "pods", name: "web-3", epoch: epochOf("web", 20, "actor-0"), at: 170 },
      ]),
    });
    const violations = only(report, "I1");
    assert.equal(violations.length, 2);
    assert.match(violations[0] ?? "", /web-2 .* was never claimed at revision 15/);
    assert.match(violations[1] ?? "", /epoch 20 was claimed by actor-1/);
    assert.deepEqual(report.staleEpochWrites.map((w) => w.name), ["web-1", "web-2"]);
  });
});

describe("I2 StatefulSet ordering", () => {
  const web = (replicas: number, extra: Partial<SetInit> = {}) => setFacts("web", { replicas, ...extra });

  it("OrderedReady: a pod is created only after its predecessors were Running and Ready", () => {
    const good = timeline([
      ["ADDED", web(3)],
      ["ADDED", podFacts("web-0")],
      ["MODIFIED", podFacts("web-0", { ready: true })],
      ["ADDED", podFacts("web-1")],
      ["MODIFIED", podFacts("web-1", { ready: true })],
      ["ADDED", podFacts("web-2")],
    ]);
    assert.deepEqual(only(check({ timeline: good }), "I2"), []);
    assert.equal(check({ timeline: good }).results[1]?.checked, 3);

    const early = timeline([["ADDED", web(3)], ["ADDED", podFacts("web-0")], ["ADDED", podFacts("web-1")]]);
    assert.match(only(check({ timeline: early }), "I2")[0] ?? "", /ns\/web-1: created at rv 3 before web-0 had been Running and Ready/);

    const skipped = timeline([["ADDED", web(3)], ["ADDED", podFacts("web-1")]]);
    assert.match(only(check({ timeline: skipped }), "I2")[0] ?? "", /while web-0 did not exist/);

    const terminating = timeline([
      ["ADDED", web(3)],
      ["ADDED", podFacts("web-0", { ready: true })],
      ["MODIFIED", podFacts("web-0", { ready: true, deleting: true })],
      ["ADDED", podFacts("web-1")],
    ]);
    assert.match(only(check({ timeline: terminating }), "I2").at(-1) ?? "", /web-1: created at rv 4 while web-0 was terminating/);
  });

  it("Parallel pods may start in any order", () => {
    const parallel = timeline([["ADDED", web(3, { policy: "Parallel" })], ["ADDED", podFacts("web-2")], ["ADDED", podFacts("web-0")]]);
    assert.deepEqual(only(check({ timeline: parallel }), "I2"), []);
  });

  it("scale-down deletes the highest ordinal first and waits for it to be gone", () => {
    const base = [
      ["ADDED", web(3)],
      ["ADDED", podFacts("web-0", { ready: true })],
      ["ADDED", podFacts("web-1", { ready: true })],
      ["ADDED", podFacts("web-2", { ready: true })],
      ["MODIFIED", web(1)],
    ] as const;
    const good = timeline([
      ...base,
      ["MODIFIED", podFacts("web-2", { ready: true, deleting: true })],
      ["DELETED", podFacts("web-2", { ready: true, deleting: true })],
      ["MODIFIED", podFacts("web-1", { ready: true, deleting: true })],
      ["DELETED", podFacts("web-1", { ready: true, deleting: true })],
    ]);
    assert.deepEqual(only(check({ timeline: good }), "I2"), []);
    const wrong = timeline([...base, ["MODIFIED", podFacts("web-1", { ready: true, deleting: true })]]);
    assert.match(only(check({ timeline: wrong }), "I2")[0] ?? "", /web-1: scale-down deleted it .* while higher web-2 still existed/);
    const overlapping = timeline([
      ...base,
      ["MODIFIED", podFacts("web-2", { ready: true, deleting: true })],
      ["MODIFIED", podFacts("web-1", { ready: true, deleting: true })],
    ]);
    assert.equal(only(check({ timeline: overlapping }), "I2").length, 1, "a terminating higher pod blocks too");
  });

  it("a rolling update goes from the highest ordinal down, one at a time, and stops at the partition", () => {
    const start = [
      ["ADDED", web(3)],
      revisionEvent(0, "web-r1", 1),
      ["ADDED", podFacts("web-0", { ready: true })],
      ["ADDED", podFacts("web-1", { ready: true })],
      ["ADDED", podFacts("web-2", { ready: true })],
      ["MODIFIED", web(3, { generation: 2 })],
      revisionEvent(0, "web-r2", 2),
    ] as const;
    const good = timeline([
      ...start,
      ["MODIFIED", podFacts("web-2", { ready: true, deleting: true })],
      ["DELETED", podFacts("web-2", { ready: true, deleting: true })],
      ["ADDED", podFacts("web-2", { uid: "web-2-new", rev: "web-r2" })],
      ["MODIFIED", podFacts("web-2", { uid: "web-2-new", rev: "web-r2", ready: true })],
      ["MODIFIED", podFacts("web-1", { ready: true, deleting: true })],
    ]);
    assert.deepEqual(only(check({ timeline: good }), "I2"), []);

    const notHighest = timeline([...start, ["MODIFIED", podFacts("web-1", { ready: true, deleting: true })]]);
    assert.match(only(check({ timeline: notHighest }), "I2")[0] ?? "", /web-1: a rolling update deleted it .* while web-2 was still at revision web-r1, not web-r2/);

    const notReady = timeline([
      ...start,
      ["MODIFIED", podFacts("web-2", { ready: true, deleting: true })],
      ["DELETED", podFacts("web-2", { ready: true, deleting: true })],
      ["ADDED", podFacts("web-2", { uid: "web-2-new", rev: "web-r2" })],
      ["MODIFIED", podFacts("web-1", { ready: true, deleting: true })],
    ]);
    assert.match(only(check({ timeline: notReady }), "I2")[0] ?? "", /while web-2 had not been Ready yet/);

    const belowPartition = timeline([
      ["ADDED", web(1, { partition: 1 })],
      revisionEvent(0, "web-r1", 1),
      ["ADDED", podFacts("web-0", { ready: true })],
      revisionEvent(0, "web-r2", 2),
      ["MODIFIED", podFacts("web-0", { ready: true, deleting: true })],
    ]);
    assert.match(only(check({ timeline: belowPartition }), "I2")[0] ?? "", /below the partition 1/);
  });

  // Upstream 1.37, PR #137666 ("Parallel does not stall on broken old pods", planner scenario 40); the soak of
  // 2026-11-30 reported these deletions as I2 violations before the checker knew the rule.
  it("Parallel: an unavailable old-revision pod may be replaced before higher ordinals, an available one may not", () => {
    const start = [
      ["ADDED", web(3, { policy: "Parallel" })],
      revisionEvent(0, "web-r1", 1),
      ["ADDED", podFacts("web-0")],
      ["ADDED", podFacts("web-1", { ready: true })],
      ["ADDED", podFacts("web-2", { ready: true })],
      ["MODIFIED", web(3, { policy: "Parallel", generation: 2 })],
      revisionEvent(0, "web-r2", 2),
    ] as const;
    const broken = timeline([...start, ["MODIFIED", podFacts("web-0", { deleting: true })]]);
    assert.deepEqual(only(check({ timeline: broken }), "I2"), [], "web-0 was not Ready: phase 1 replaces it first");
    const healthy = timeline([
      ...start,
      ["MODIFIED", podFacts("web-0", { ready: true })],
      ["MODIFIED", podFacts("web-0", { ready: true, deleting: true })],
    ]);
    assert.match(only(check({ timeline: healthy }), "I2")[0] ?? "", /web-0: a rolling update deleted it .* while web-1 was still at revision web-r1, not web-r2/);
  });

  it("judges a deletion against the set versions a lagging controller may still see", () => {
    // Scaled 3 -> 1 while a rollout ran, then back to 3: the controller, still seeing 1 replica, updates web-0.
    const lagging = timeline([
      ["ADDED", web(3)],
      revisionEvent(0, "web-r1", 1),
      ["ADDED", podFacts("web-0", { ready: true })],
      ["MODIFIED", web(1, { generation: 2 })],
      revisionEvent(0, "web-r2", 2),
      ["MODIFIED", web(3, { generation: 3 })],
      ["MODIFIED", podFacts("web-0", { ready: true, deleting: true })],
    ]);
    assert.deepEqual(only(check({ timeline: lagging }), "I2"), [], "justified by the 1-replica version");
    const strict = check({ timeline: lagging, viewLagMs: 0 });
    assert.match(only(strict, "I2")[0] ?? "", /web-0: a rolling update deleted it .* while web-1 did not exist/);
  });

  it("leaves the garbage collector's deletions and relisted (synthetic) events alone", () => {
    const gc = timeline([
      ["ADDED", web(2)],
      ["ADDED", podFacts("web-0", { ready: true })],
      ["ADDED", podFacts("web-1", { ready: true })],
      ["DELETED", web(2)],
      ["MODIFIED", podFacts("web-0", { ready: true, deleting: true })],
    ]);
    assert.deepEqual(only(check({ timeline: gc }), "I2"), []);
    const synthetic = timeline([["ADDED", web(3)], { type: "ADDED", rv: 0, atMs: 0, synthetic: true, facts: podFacts("web-2") }]);
    const report = check({ timeline: synthetic });
    assert.deepEqual(only(report, "I2"), []);
    assert.match(report.results[1]?.notes.join() ?? "", /1 events came from relists/);
  });
});

describe("I3 convergence", () => {
  it("wants observedGeneration, ready replicas, revisions and pods to match the spec", () => {
    const status = { observedGeneration: 2, replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: "web-r2", updateRevision: "web-r2" };
    const pods = [podFacts("web-0", { ready: true, rev: "web-r2" }), podFacts("web-1", { ready: true, rev: "web-r2" })];
    const converged = setFacts("web", { replicas: 2, generation: 2, status });
    assert.deepEqual(only(check({ final: { sets: [converged], pods } }), "I3"), []);

    const behind = setFacts("web", { replicas: 3, generation: 3, status: { ...status, currentRevision: "web-r1" } });
    const [violation] = only(check({ final: { sets: [behind], pods } }), "I3");
    assert.match(violation ?? "", /observedGeneration 2 != generation 3/);
    assert.match(violation ?? "", /readyReplicas 2 != 3/);
    assert.match(violation ?? "", /currentRevision web-r1 != updateRevision web-r2/);
    assert.match(violation ?? "", /2 Ready of 2 pods, want 3/);
    assert.equal(check({}).results[2]?.skipped, "no final API state given");
  });
});

describe("I4 no duplicate side effects", () => {
  it("allows one successful create per name and deletion, and counts AlreadyExists", () => {
    const report = check({
      audit: audit([
        { verb: "create", resource: "persistentvolumeclaims", name: "data-web-0", service: "pvc-provisioner", at: 0 },
        { verb: "create", resource: "persistentvolumeclaims", name: "data-web-0", service: "pvc-provisioner", at: 1, code: 409, reason: "AlreadyExists" },
        { verb: "create", resource: "pods", name: "web-0", at: 2 },
        { verb: "create", resource: "pods", name: "web-0", at: 10 },
      ]),
      timeline: timeline([
        ["ADDED", web1()],
        ["ADDED", factsOf("PersistentVolumeClaim", { metadata: { name: "data-web-0", namespace: "ns", uid: "c" } })],
        ["ADDED", podFacts("web-0")],
        revisionEvent(0, "web-r2", 2),
        ["DELETED", podFacts("web-0")],
        ["ADDED", podFacts("web-0", { uid: "second" })],
      ]),
      timelineComplete: true,
    });
    assert.deepEqual(only(report, "I4"), []);
    assert.match(report.results[3]?.notes.join() ?? "", /1 creates answered AlreadyExists/);
  });

  it("reports a second successful create without a deletion, and creates the API never showed", () => {
    const report = check({
      audit: audit([
        { verb: "create", resource: "persistentvolumeclaims", name: "data-web-0", service: "pvc-provisioner", at: 0 },
        { verb: "create", resource: "persistentvolumeclaims", name: "data-web-0", service: "pvc-provisioner", at: 5 },
        { verb: "create", resource: "pods", name: "web-0", at: 6 },
      ]),
      timeline: timeline([["ADDED", web1()]]),
      timelineComplete: true,
    });
    const violations = only(report, "I4");
    assert.equal(violations.length, 3);
    assert.match(violations[0] ?? "", /persistentvolumeclaims:ns\/data-web-0: 2 successful creates, but it was deleted only 0 times/);
    assert.match(violations[1] ?? "", /data-web-0: 2 successful creates, but the API showed 0 incarnations/);
    assert.match(violations[2] ?? "", /pods:ns\/web-0: 1 successful creates, but the API showed 0 incarnations/);
  });

  it("reports a pod deleted for an update although it already ran the newest revision", () => {
    const report = check({
      timeline: timeline([
        ["ADDED", setFacts("web", { replicas: 1 })],
        revisionEvent(0, "web-r2", 2),
        ["ADDED", podFacts("web-0", { ready: true, rev: "web-r2" })],
        ["MODIFIED", podFacts("web-0", { ready: true, rev: "web-r2", deleting: true })],
      ]),
    });
    assert.match(only(report, "I4")[0] ?? "", /web-0: deleted at rv 4 although it already ran the newest revision web-r2/);
  });

  function web1(): SetFacts {
    return setFacts("web", { replicas: 1 });
  }
});

describe("I5 observedGeneration never decreases", () => {
  it("reports a step back", () => {
    const up = timeline([
      ["ADDED", setFacts("web", { replicas: 1, generation: 2, observed: 1 })],
      ["MODIFIED", setFacts("web", { replicas: 1, generation: 2, observed: 2 })],
    ]);
    assert.deepEqual(only(check({ timeline: up }), "I5"), []);
    const back = timeline([...up.map((e) => ["MODIFIED", e.facts] as const), ["MODIFIED", setFacts("web", { replicas: 1, generation: 2, observed: 1 })]]);
    assert.match(only(check({ timeline: back }), "I5")[0] ?? "", /ns\/web: observedGeneration went from 2 to 1 at rv 3/);
  });

  it("does not count a value above metadata.generation, which another client wrote (ADR 0087)", () => {
    const poisoned = timeline([
      ["ADDED", setFacts("web", { replicas: 1, generation: 2, observed: 2 })],
      ["MODIFIED", setFacts("web", { replicas: 1, generation: 2, observed: 1_000_000 })],
      ["MODIFIED", setFacts("web", { replicas: 1, generation: 3, observed: 3 })],
    ]);
    assert.deepEqual(only(check({ timeline: poisoned }), "I5"), []);
    const below = timeline([...poisoned.map((e) => ["MODIFIED", e.facts] as const), ["MODIFIED", setFacts("web", { replicas: 1, generation: 3, observed: 2 })]]);
    assert.match(only(check({ timeline: below }), "I5")[0] ?? "", /observedGeneration went from 3 to 2/);
  });
});

describe("I6 coverage", () => {
  const member = (name: string, incarnation: string, state: MemberRecord["state"], atMs: number, revision: number): OwnershipChange => ({
    bucket: "members",
    key: `m.${name}`,
    revision,
    atMs,
    member: { type: "member", name, incarnation, state, leaseDurationMs: 8000, renewDeadlineMs: 5000, retryPeriodMs: 1000, version: "t", startedAtMs: 0 },
  });
  const shardChange = (shard: number, owner: string, incarnation: string, state: ShardRecord["state"], atMs: number, revision: number): OwnershipChange => ({
    bucket: "shards",
    key: `s.${shard}`,
    revision,
    atMs,
    shard: { type: "shard", shard, owner, incarnation, state },
  });
  /** a owns every shard at t=0; then `events` happen. */
  function history(after: (revision: () => number) => OwnershipChange[]): OwnershipChange[] {
    let revision = 0;
    const next = () => ++revision;
    return [
      member("a", "a1", "alive", 0, next()),
      member("b", "b1", "alive", 0, next()),
      ...ALL_SHARDS.map((s) => shardChange(s, "a", "a1", "owned", 0, next())),
      ...after(next),
    ];
  }
  const window = { fromMs: 0, toMs: 10_000, failoverBoundMs: 1_000, gracefulBoundMs: 500 };

  it("measures the gap between a SIGKILL and the successor's claims, against the failover bound", () => {
    const ownership = history((next) => [member("a", "a1", "dead", 1_300, next()), ...ALL_SHARDS.map((s) => shardChange(s, "b", "b1", "owned", 1_600, next()))]);
    const faults: FaultRecord[] = [{ kind: "kill", target: "a", atMs: 1_000 }];
    const ok = check({ ownership, faults, coverage: window });
    assert.deepEqual(only(ok, "I6"), []);
    assert.equal(ok.coverage?.maxOwnerlessMs, 600);
    assert.equal(ok.coverage?.failovers, 256);
    const strict = check({ ownership, faults, coverage: { ...window, failoverBoundMs: 500 } });
    assert.equal(only(strict, "I6").length, 256);
    assert.match(only(strict, "I6")[0] ?? "", /shard 0: no acting owner for 600 ms \(down/);
  });

  it("judges graceful releases by their own bound, and a pause ends with the resume", () => {
    const ownership = history((next) => [
      shardChange(7, "a", "a1", "released", 2_000, next()),
      shardChange(7, "b", "b1", "owned", 2_800, next()),
    ]);
    const slow = check({ ownership, coverage: window });
    assert.match(only(slow, "I6")[0] ?? "", /shard 7: no acting owner for 800 ms \(released/);
    assert.equal(slow.coverage?.gracefulHandoffs, 1);
    const paused = check({
      ownership: history(() => []),
      faults: [
        { kind: "pause", target: "a", atMs: 3_000 },
        { kind: "resume", target: "a", atMs: 3_400 },
      ],
      coverage: window,
    });
    assert.deepEqual(only(paused, "I6"), []);
    assert.equal(paused.coverage?.maxOwnerlessMs, 400);
  });

  it("does not count a NATS outage against the fleet, and flags a shard never claimed", () => {
    const ownership = history((next) => [member("a", "a1", "dead", 5_000, next()), ...ALL_SHARDS.map((s) => shardChange(s, "b", "b1", "owned", 6_500, next()))]);
    const faults: FaultRecord[] = [
      { kind: "nats-down", target: "nats", atMs: 5_000 },
      { kind: "nats-up", target: "nats", atMs: 6_000 },
    ];
    assert.deepEqual(only(check({ ownership, faults, coverage: window }), "I6"), []);
    const never = check({ ownership: history(() => []).filter((c) => c.key !== "s.9"), coverage: window });
    assert.match(only(never, "I6").join(), /shard 9: no acting owner for 10000 ms \(unowned/);
    assert.equal(check({}).results[5]?.skipped, "no ownership record or coverage window given");
  });
});

describe("report", () => {
  it("is ok only without violations, and prints one line per invariant", () => {
    const report = check({ timeline: timeline([["ADDED", setFacts("web", { replicas: 2 })], ["ADDED", podFacts("web-1")]]) });
    assert.equal(report.ok, false);
    assert.equal(report.violations().length, 1);
    const text = report.text();
    assert.match(text, /^I1 single writer per set/m);
    assert.match(text, /^I2 StatefulSet ordering .* 1 VIOLATIONS$/m);
    assert.match(text, /^I6 .* skipped/m);
    assert.equal(check({}).ok, true);
  });
});
