// The real process: --help, then a run against nats-server and the simulator (ready, a status write answered and
// an Event written with our User-Agent in the audit log, graceful exit on SIGTERM).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { SAMPLE_MESSAGES, codecs, eventSubjects, shard as shardOf, statusSubjects } from "#protocol";
import { eventually, harnessArgs, helpOutput, spawnService, startExecutorHarness, statefulSetManifest } from "#test-support/executor-harness.ts";
import type { Harness } from "#test-support/executor-harness.ts";
import { RESOURCES } from "../../common/src/kube.ts";
import { VERSION } from "../../common/src/version.ts";

const ENTRY = "services/status-writer/src/main.ts";

describe("status-writer process", () => {
  let h: Harness;
  before(async () => {
    h = await startExecutorHarness({ service: "status-writer" });
  });
  after(() => h.close());

  it("prints --help with every flag and its environment variable, exit 0", async () => {
    const flags = ["--kubeconfig", "--nats-url", "--status-concurrency", "--status-conflict-retries", "--event-burst", "--event-refill-interval-ms", "--event-aggregate-max"];
    assert.match(await helpOutput(ENTRY, flags), /env:\s+EVENT_BURST/);
  });

  it("becomes ready, writes status and an Event as stsfleet-status-writer/<version> (<name>), exits 0 on SIGTERM", async () => {
    const set = await h.kube.create<{ metadata: { uid: string } }>(
      { ...RESOURCES.statefulsets, namespace: "default" },
      statefulSetManifest("web"),
    );
    const shard = shardOf("default", "web");
    const epoch = await h.claimShard(shard, "actor-0");
    const run = spawnService(ENTRY, harnessArgs(h, "status-1"));
    try {
      const url = await run.opsUrl;
      await eventually(async () => (await fetch(`${url}/readyz`)).status === 200, "ready", 15_000);
      const ref = { namespace: "default", name: "web", uid: set.metadata.uid };
      const reply = await h.nats.request(
        statusSubjects.build({ shard, namespace: "default", name: "web" }),
        codecs.statusWrite.encode({ ...SAMPLE_MESSAGES["status.write"], shard, epoch, set: ref }),
        { timeout: 5_000 },
      );
      assert.equal(codecs.statusResult.decode(reply.data).outcome, "written");
      h.nats.publish(
        eventSubjects.build({ shard, namespace: "default", name: "web" }),
        codecs.eventRecord.encode({ ...SAMPLE_MESSAGES["event.record"], shard, epoch, regarding: { apiVersion: "apps/v1", kind: "StatefulSet", ...ref } }),
      );
      const agent = `"userAgent":"stsfleet-status-writer/${VERSION} (status-1)"`;
      await eventually(() => {
        const audit = readFileSync(h.auditLogPath, "utf8").split("\n").filter((line) => line.includes(agent));
        return audit.some((line) => line.includes("/status")) && audit.some((line) => line.includes("/events"));
      }, "status and event written with the user agent");
    } finally {
      run.child.kill("SIGTERM");
    }
    assert.equal(await run.exited, 0);
    assert.ok(run.logLines.some((line) => line["msg"] === "shutdown complete"));
  });
});
