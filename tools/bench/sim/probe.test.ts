import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SetProbe, isConverged, isReadyJson, parseProbeLine } from "./probe.ts";

const converged = {
  metadata: { name: "web", namespace: "ns", generation: 2 },
  spec: { replicas: 3 },
  status: { observedGeneration: 2, replicas: 3, readyReplicas: 3, updatedReplicas: 3, currentRevision: "web-1", updateRevision: "web-1" },
};

describe("probe", () => {
  it("a set is converged only when every replica is Ready and updated at the current generation", () => {
    assert.equal(isConverged(converged), true);
    assert.equal(isConverged({ ...converged, metadata: { ...converged.metadata, generation: 3 } }), false);
    assert.equal(isConverged({ ...converged, status: { ...converged.status, readyReplicas: 2 } }), false);
    assert.equal(isConverged({ ...converged, status: { ...converged.status, updateRevision: "web-2" } }), false);
    assert.equal(isConverged({ ...converged, status: { ...converged.status, updatedReplicas: 1 } }), false);
    assert.equal(isConverged({ metadata: { generation: 1 }, spec: { replicas: 0 }, status: {} }), false);
  });

  it("SetProbe records only changes of (generation, converged)", () => {
    const probe = new SetProbe();
    const json = JSON.stringify(converged);
    assert.deepEqual(probe.observe("u", json, 7), { k: "set", t: 7, ns: "ns", name: "web", gen: 2, done: true });
    assert.equal(probe.observe("u", json, 8), undefined);
    assert.equal(probe.observe("u", "{not json", 9), undefined);
    const record = probe.observe("u", JSON.stringify({ ...converged, metadata: { ...converged.metadata, generation: 3 } }), 10);
    assert.equal(record?.k === "set" && record.done, false);
    probe.forget("u");
    assert.ok(probe.observe("u", json, 11));
  });

  it("recognises the simulated kubelet's Ready condition and parses probe lines", () => {
    assert.equal(isReadyJson('{"status":{"conditions":[{"type":"Ready","status":"True","lastProbeTime":null}]}}'), true);
    assert.equal(isReadyJson('{"status":{"conditions":[{"type":"Ready","status":"False"}]}}'), false);
    assert.equal(isReadyJson(undefined), false);
    assert.deepEqual(parseProbeLine('{"k":"ready","t":1,"ns":"a","name":"b","uid":"c"}'), { k: "ready", t: 1, ns: "a", name: "b", uid: "c" });
    assert.equal(parseProbeLine('{"k":"other"}'), undefined);
    assert.equal(parseProbeLine("{torn"), undefined);
  });
});
