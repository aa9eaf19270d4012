import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { shard } from "./shard.ts";
import {
  MAX_INTENT_LOG_REPLICAS,
  SubjectError,
  eventSubjects,
  intentReplicaStream,
  intentReplicaSubjects,
  intentSubjects,
  liveObjectSubjects,
  memberKeys,
  objectSubjects,
  pokeSubjects,
  probeSubjects,
  pvcCommandSubjects,
  rereadSubjects,
  shardKeys,
  statusSubjects,
} from "./subjects.ts";
import type { ObjectKindToken } from "./subjects.ts";

const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/);
const dnsSubdomain = fc.array(dnsLabel, { minLength: 1, maxLength: 4 }).map((labels) => labels.join("."));
const setAddress = fc
  .tuple(dnsLabel, dnsSubdomain)
  .map(([namespace, name]) => ({ shard: shard(namespace, name), namespace, name }));
const setFamilies = [intentSubjects, intentReplicaSubjects(0), intentReplicaSubjects(2), pvcCommandSubjects, statusSubjects, eventSubjects, pokeSubjects];

describe("subjects", () => {
  it("builds the documented subjects", () => {
    const address = { shard: 88, namespace: "default", name: "web.v2" };
    assert.equal(objectSubjects.build({ ...address, kind: "pod" }), "k8s.88.pod.default.web_v2");
    assert.equal(intentSubjects.build(address), "intent.88.default.web_v2");
    assert.equal(pvcCommandSubjects.build(address), "cmd.pvc.88.default.web_v2");
    assert.equal(statusSubjects.build(address), "svc.status.88.default.web_v2");
    assert.equal(eventSubjects.build(address), "svc.event.88.default.web_v2");
    assert.equal(pokeSubjects.build(address), "sts.poke.88.default.web_v2");
    assert.equal(objectSubjects.shardFilter(88), "k8s.88.>");
    assert.equal(intentSubjects.shardFilter(3), "intent.3.>");
    assert.equal(probeSubjects.build("actor-0"), "fleet.probe.actor-0");
    assert.equal(memberKeys.build("actor-0"), "m.actor-0");
    assert.equal(shardKeys.build(255), "s.255");
    assert.equal(liveObjectSubjects.build({ ...address, kind: "pod" }), "live.88.pod.default.web_v2");
    assert.equal(liveObjectSubjects.fromObjectSubject("k8s.88.pod.default.web_v2"), "live.88.pod.default.web_v2");
    assert.equal(liveObjectSubjects.toObjectSubject("live.88.pod.default.web_v2"), "k8s.88.pod.default.web_v2");
    assert.equal(liveObjectSubjects.shardFilter(88), "live.88.>");
    assert.equal(intentReplicaSubjects(1).build(address), "qintent.1.88.default.web_v2");
    assert.equal(intentReplicaSubjects(1).all, "qintent.1.>");
    assert.equal(intentReplicaStream(2), "STS_INTENT_2");
    assert.equal(rereadSubjects.build({ ...address, kind: "pod" }), "svc.reread.88.pod.default.web_v2");
    assert.equal(rereadSubjects.toObjectSubject("svc.reread.88.pod.default.web_v2"), "k8s.88.pod.default.web_v2");
  });

  it("keeps the quorum intent log's subjects apart from STS_INTENT's and from each other", () => {
    // nats-server refuses a stream whose subjects overlap another stream's.
    const address = { shard: 7, namespace: "default", name: "web" };
    for (let replica = 0; replica < MAX_INTENT_LOG_REPLICAS; replica++) {
      const subject = intentReplicaSubjects(replica).build(address);
      assert.ok(!subject.startsWith("intent."), subject);
      assert.deepEqual(intentReplicaSubjects(replica).parse(subject), address);
      for (let other = 0; other < MAX_INTENT_LOG_REPLICAS; other++) {
        if (other !== replica) assert.throws(() => intentReplicaSubjects(other).parse(subject), SubjectError);
      }
    }
    assert.throws(() => intentReplicaSubjects(MAX_INTENT_LOG_REPLICAS), SubjectError);
    assert.throws(() => intentReplicaStream(-1), SubjectError);
    assert.throws(() => intentReplicaStream(0.5), SubjectError);
  });

  it("property: every builder round-trips through its parser", () => {
    const kinds: ObjectKindToken[] = ["sts", "pod", "pvc", "rev"];
    fc.assert(
      fc.property(setAddress, fc.constantFrom(...kinds), (address, kind) => {
        for (const family of setFamilies) assert.deepEqual(family.parse(family.build(address)), address);
        const object = { ...address, kind };
        assert.deepEqual(objectSubjects.parse(objectSubjects.build(object)), object);
        assert.deepEqual(liveObjectSubjects.parse(liveObjectSubjects.build(object)), object);
        assert.equal(liveObjectSubjects.fromObjectSubject(objectSubjects.build(object)), liveObjectSubjects.build(object));
        assert.deepEqual(rereadSubjects.parse(rereadSubjects.build(object)), object);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), (n) => assert.equal(shardKeys.parse(shardKeys.build(n)), n)),
    );
  });

  it("rejects malformed subjects and unsafe tokens with SubjectError", () => {
    const bad = [
      () => intentSubjects.parse("intent.88.default"),
      () => intentSubjects.parse("intent.256.default.web"),
      () => intentSubjects.parse("intent.-1.default.web"),
      () => intentSubjects.parse("intent.08.default.web"),
      () => intentSubjects.parse("status.88.default.web"),
      () => intentSubjects.parse("intent.88.Default.web"),
      () => objectSubjects.parse("k8s.1.node.default.web"),
      () => intentSubjects.build({ shard: 1, namespace: "a.b", name: "web" }),
      () => intentSubjects.build({ shard: 1, namespace: "default", name: "we b" }),
      () => intentSubjects.build({ shard: 1, namespace: "default", name: "web.>" }),
      () => intentSubjects.build({ shard: 1.5, namespace: "default", name: "web" }),
      () => probeSubjects.build("a.b"),
      () => probeSubjects.build("*"),
      () => shardKeys.parse("s.x"),
      () => memberKeys.parse("m"),
      () => liveObjectSubjects.parse("k8s.1.pod.default.web"),
      () => liveObjectSubjects.fromObjectSubject("intent.1.default.web"),
      () => liveObjectSubjects.toObjectSubject("k8s.1.pod.default.web"),
      () => liveObjectSubjects.shardFilter(256),
      () => rereadSubjects.parse("k8s.1.pod.default.web"),
      () => rereadSubjects.parse("svc.reread.1.pod.default"),
      () => rereadSubjects.toObjectSubject("svc.status.1.default.web"),
    ];
    for (const attempt of bad) assert.throws(attempt, SubjectError);
  });

  it("property: parsers only throw SubjectError on arbitrary strings", () => {
    const parsers: ((subject: string) => unknown)[] = [
      ...setFamilies.map((family) => (subject: string) => family.parse(subject)),
      (subject) => objectSubjects.parse(subject),
      (subject) => liveObjectSubjects.parse(subject),
      (subject) => rereadSubjects.parse(subject),
      (subject) => probeSubjects.parse(subject),
      (subject) => shardKeys.parse(subject),
    ];
    fc.assert(
      fc.property(fc.string(), fc.constantFrom(...parsers), (subject, parse) => {
        try {
          parse(subject);
        } catch (error) {
          assert.ok(error instanceof SubjectError);
        }
      }),
    );
  });
});
