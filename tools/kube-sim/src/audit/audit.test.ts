// The fencing epoch a writer sends in X-Stsfleet-Epoch ends up in its audit event as annotation
// `stsfleet.dev/epoch`, next to the authorization annotations a real apiserver writes; requests without the header
// have no such annotation.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ADMIN_TOKEN, startKubeSim } from "../main.ts";
import type { KubeSim } from "../main.ts";
import { EPOCH_ANNOTATION, auditEvent } from "./audit.ts";

describe("audit log: the writer's epoch", () => {
  const dir = mkdtempSync(join(tmpdir(), "kube-sim-audit-"));
  const path = join(dir, "audit.log");
  let sim: KubeSim;
  before(async () => {
    sim = await startKubeSim({ auditLog: path });
  });
  after(async () => {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (name: string, headers: Record<string, string>) =>
    fetch(`${sim.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ metadata: { name } }),
    });

  it("records X-Stsfleet-Epoch as the stsfleet.dev/epoch annotation, and nothing without it", async () => {
    assert.equal((await post("with-epoch", { "X-Stsfleet-Epoch": "17/4242/actor-1" })).status, 201);
    assert.equal((await post("with-epoch", { "X-Stsfleet-Epoch": "17/4243/actor-2" })).status, 409);
    assert.equal((await post("without-epoch", {})).status, 201);
    let events: Record<string, unknown>[] = [];
    for (let i = 0; i < 100 && events.length < 3; i++) {
      await sleep(20);
      events = readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    }
    const annotations = events.map((e) => e["annotations"] as Record<string, string>);
    assert.equal(annotations[0]?.[EPOCH_ANNOTATION], "17/4242/actor-1");
    assert.equal(annotations[1]?.[EPOCH_ANNOTATION], "17/4243/actor-2", "rejected writes carry the epoch too");
    assert.equal(annotations[2]?.[EPOCH_ANNOTATION], undefined);
    assert.equal(annotations[2]?.["authorization.k8s.io/decision"], "allow");
  });

  it("auditEvent() leaves the annotation out when there is no epoch", () => {
    const base = {
      auditID: "a",
      verb: "create",
      requestURI: "/",
      objectRef: { resource: "pods", apiVersion: "v1" },
      code: 201,
      failure: undefined,
      receivedTimestamp: "",
      stageTimestamp: "",
      user: { username: "u", groups: [] },
      impersonatedUser: undefined,
      sourceIPs: [],
      userAgent: "",
    };
    assert.deepEqual(Object.keys(auditEvent(base)["annotations"] as object), ["authorization.k8s.io/decision", "authorization.k8s.io/reason"]);
    assert.equal((auditEvent({ ...base, epoch: "1/2/m" })["annotations"] as Record<string, string>)[EPOCH_ANNOTATION], "1/2/m");
  });
});
