import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { objectSubjects, shard } from "#protocol";
import { claim, pod, revision, set } from "#test-support/watcher-fixtures.ts";
import type { PublishCommand } from "./ledger.ts";
import { WATCHED_KINDS } from "./objects.ts";
import { MirrorState } from "./state.ts";

function syncedState(): MirrorState {
  const state = new MirrorState();
  for (const kind of WATCHED_KINDS) state.markSynced(kind);
  state.ledger.activate([]);
  return state;
}

/** Publishes everything owed, as a perfect stream would, and returns what was published. */
function publishAll(state: MirrorState): string[] {
  const out: string[] = [];
  let seq = 1000 + state.ledger.heldCount;
  for (let command: PublishCommand | undefined = state.ledger.next(); command; command = state.ledger.next()) {
    out.push(`${command.op} ${command.subject} ${command.rv}`);
    state.ledger.acked(command, { seq: ++seq, duplicate: false, atMs: 0 });
  }
  return out.sort();
}

const at = (setName: string, kind: "pod" | "pvc" | "rev" | "sts", name: string, namespace = "default") =>
  objectSubjects.build({ shard: shard(namespace, setName), kind, namespace, name });

describe("MirrorState", () => {
  it("publishes every object on its owning set's subject once all kinds are synced", () => {
    const state = new MirrorState();
    state.ledger.activate([]);
    state.replace("sts", [set("web", { templates: ["data"] })]);
    state.replace("pod", [pod("web-0", { owners: [{ kind: "StatefulSet", name: "web", controller: true }] })]);
    state.replace("pvc", [claim("data-web-0")]);
    state.markSynced("sts");
    state.markSynced("pod");
    state.markSynced("pvc");
    assert.equal(state.ledger.next(), undefined, "revisions are not listed yet");
    state.replace("rev", [revision("web-abc", { owners: [{ kind: "StatefulSet", name: "web", controller: true }] })]);
    assert.equal(state.markSynced("rev"), true);
    assert.deepEqual(publishAll(state), [
      `PUT ${at("web", "pod", "web-0")} 1`,
      `PUT ${at("web", "pvc", "data-web-0")} 1`,
      `PUT ${at("web", "rev", "web-abc")} 1`,
      `PUT ${at("web", "sts", "web")} 1`,
    ].sort());
  });

  it("routes orphans to a set created after them, and tombstones them when the set goes (TestStatefulSetControllerAddPodOrphan)", () => {
    const state = syncedState();
    state.upsert(pod("web-0", { labels: { app: "web" } }));
    state.upsert(claim("data-web-0"));
    assert.deepEqual(publishAll(state), [], "no set selects them yet");
    state.upsert(set("web", { templates: ["data"] }));
    assert.deepEqual(publishAll(state), [
      `PUT ${at("web", "pod", "web-0")} 1`,
      `PUT ${at("web", "pvc", "data-web-0")} 1`,
      `PUT ${at("web", "sts", "web")} 1`,
    ].sort());
    state.remove("sts", "default", "web", { uid: "uid-web", rv: "9" });
    assert.deepEqual(publishAll(state), [
      `DEL ${at("web", "pod", "web-0")} 1`,
      `DEL ${at("web", "pvc", "data-web-0")} 1`,
      `DEL ${at("web", "sts", "web")} 9`,
    ].sort());
  });

  it("moves an orphan to its adopter's subject only (adoption sets the controller reference)", () => {
    const state = syncedState();
    state.upsert(set("web", { selector: { matchLabels: { tier: "x" } } }));
    state.upsert(set("db", { selector: { matchLabels: { tier: "x" } } }));
    state.upsert(pod("web-0", { labels: { tier: "x" } }));
    assert.deepEqual(publishAll(state), [
      `PUT ${at("db", "pod", "web-0")} 1`,
      `PUT ${at("db", "sts", "db")} 1`,
      `PUT ${at("web", "pod", "web-0")} 1`,
      `PUT ${at("web", "sts", "web")} 1`,
    ].sort());
    state.upsert(pod("web-0", { rv: "2", labels: { tier: "x" }, owners: [{ kind: "StatefulSet", name: "web", controller: true }] }));
    const published = publishAll(state);
    if (shard("default", "web") === shard("default", "db")) {
      assert.deepEqual(published, [`PUT ${at("web", "pod", "web-0")} 2`]);
    } else {
      assert.deepEqual(published, [`DEL ${at("db", "pod", "web-0")} 2`, `PUT ${at("web", "pod", "web-0")} 2`].sort());
    }
    assert.deepEqual(publishAll(state), []);
  });

  it("re-routes claims when a set's claim templates change, but not on status-only updates", () => {
    const state = syncedState();
    state.upsert(set("web", { templates: ["data"] }));
    state.upsert(claim("logs-web-0"));
    publishAll(state);
    state.upsert(set("web", { rv: "2", templates: ["data"], replicas: 3 }));
    assert.deepEqual(publishAll(state), [`PUT ${at("web", "sts", "web")} 2`]);
    state.upsert(set("web", { rv: "3", templates: ["data", "logs"] }));
    assert.deepEqual(publishAll(state), [`PUT ${at("web", "pvc", "logs-web-0")} 1`, `PUT ${at("web", "sts", "web")} 3`].sort());
  });

  it("applies a relist as a diff: no spurious tombstones, tombstones only for what vanished", () => {
    const state = syncedState();
    const owned = (name: string, rv = "1", labels?: Record<string, string>) =>
      pod(name, { rv, owners: [{ kind: "StatefulSet", name: "web", controller: true }], ...(labels ? { labels } : {}) });
    state.replace("pod", [owned("web-0"), owned("web-1"), owned("web-2")]);
    publishAll(state);
    assert.deepEqual(state.replace("pod", [owned("web-0"), owned("web-1"), owned("web-2")]), { added: 0, updated: 0, removed: 0 });
    assert.deepEqual(publishAll(state), []);
    // web-1 changed in what owners read (a label): a version that changed only its resourceVersion would be quiet.
    assert.deepEqual(state.replace("pod", [owned("web-0"), owned("web-1", "5", { tier: "a" }), owned("web-3")]), { added: 1, updated: 1, removed: 1 });
    assert.deepEqual(publishAll(state), [
      `DEL ${at("web", "pod", "web-2")} 1`,
      `PUT ${at("web", "pod", "web-1")} 5`,
      `PUT ${at("web", "pod", "web-3")} 1`,
    ].sort());
  });

  it("replaces an object recreated under the same name (new uid) in place", () => {
    const state = syncedState();
    const owners = [{ kind: "StatefulSet", name: "web", controller: true }];
    state.upsert(pod("web-0", { uid: "a", rv: "1", owners }));
    publishAll(state);
    state.remove("pod", "default", "web-0", { uid: "a", rv: "2" });
    state.upsert(pod("web-0", { uid: "b", rv: "3", owners }));
    assert.deepEqual(publishAll(state), [`PUT ${at("web", "pod", "web-0")} 3`]);
    assert.equal(state.get("pod", "default", "web-0")?.uid, "b");
  });

  it("ignores an event at a uid and resourceVersion it already has", () => {
    const state = syncedState();
    assert.equal(state.upsert(set("web")), true);
    assert.equal(state.upsert(set("web")), false);
    assert.equal(state.count("sts"), 1);
    assert.equal(state.remove("sts", "default", "nope"), false);
  });
});

describe("MirrorState: quiet changes (ADR 0090)", () => {
  const owners = [{ kind: "StatefulSet", name: "web", controller: true }] as const;
  /** The same pod at `rv`; `bound` adds what the scheduler writes (quiet), `labels` what owners read. */
  const webPod = (rv: string, init: { bound?: boolean; labels?: Record<string, string> } = {}) => {
    const object = pod("web-0", { rv, owners, ...(init.labels ? { labels: init.labels } : {}) });
    if (!init.bound) return object;
    return { ...object, body: { ...object.body, spec: { ...(object.body["spec"] as object), nodeName: "node-1" } } };
  };
  const subject = at("web", "pod", "web-0");

  it("mirrors a quiet change without publishing it; the next change owners read publishes the newest version", () => {
    const quiet: string[] = [];
    const state = new MirrorState({ onQuiet: (kind) => quiet.push(kind) });
    for (const kind of WATCHED_KINDS) state.markSynced(kind);
    state.ledger.activate([]);
    state.upsert(webPod("1"));
    assert.deepEqual(publishAll(state), [`PUT ${subject} 1`]);
    state.upsert(webPod("2", { bound: true }));
    assert.deepEqual(publishAll(state), [], "the binding is not published");
    assert.deepEqual(quiet, ["pod"]);
    assert.equal(state.get("pod", "default", "web-0")?.resourceVersion, "2", "the mirror has it");
    state.upsert(webPod("3", { bound: true, labels: { tier: "a" } }));
    assert.deepEqual(publishAll(state), [`PUT ${subject} 3`]);
  });

  it("a quiet change while the previous version is in flight publishes nothing more once that one is stored", () => {
    const state = syncedState();
    state.upsert(webPod("1"));
    const command = state.ledger.next();
    assert.equal(command?.rv, "1");
    state.upsert(webPod("2", { bound: true }));
    assert.ok(command);
    state.ledger.acked(command, { seq: 7, duplicate: false, atMs: 0 });
    assert.deepEqual(publishAll(state), []);
  });

  it("a quiet change after a version that was never published publishes the newest one", () => {
    const state = syncedState();
    state.upsert(webPod("1"));
    publishAll(state);
    state.upsert(webPod("2", { labels: { tier: "a" } }));
    state.upsert(webPod("3", { bound: true, labels: { tier: "a" } }));
    assert.deepEqual(publishAll(state), [`PUT ${subject} 3`], "2 was still owed: 3 carries it");
  });

  it("an owner's re-read (its copy turned out stale) publishes the newest version", () => {
    const state = syncedState();
    state.upsert(webPod("1"));
    publishAll(state);
    state.upsert(webPod("2", { bound: true }));
    assert.deepEqual(publishAll(state), []);
    const held = state.ledger.heldAt(subject);
    assert.ok(held);
    assert.equal(state.ledger.verified(subject, { ...held }), "republishing");
    assert.deepEqual(publishAll(state), [`PUT ${subject} 2`]);
    state.upsert(webPod("3", { bound: true }));
    assert.deepEqual(publishAll(state), [], "quiet again from the version it now holds");
  });

  it("a watcher that becomes active with an older version held publishes the newest", () => {
    const state = new MirrorState();
    for (const kind of WATCHED_KINDS) state.markSynced(kind);
    state.upsert(webPod("2", { bound: true }));
    state.ledger.activate([{ subject, uid: "uid-web-0", rv: "1", op: "PUT", seq: 5, atMs: 0 }]);
    assert.deepEqual(publishAll(state), [`PUT ${subject} 2`], "it cannot tell what changed between 1 and 2");
  });
});
