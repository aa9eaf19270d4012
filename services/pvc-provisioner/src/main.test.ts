// The real process: --help, then a run against nats-server and the simulator (ready, one command carried out
// with our User-Agent in the audit log, graceful exit on SIGTERM).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { codecs, pvcCommandSubjects, shard as shardOf } from "#protocol";
import { eventually, harnessArgs, helpOutput, spawnService, startExecutorHarness } from "#test-support/executor-harness.ts";
import type { Harness } from "#test-support/executor-harness.ts";
import { RESOURCES } from "../../common/src/kube.ts";
import { VERSION } from "../../common/src/version.ts";

const ENTRY = "services/pvc-provisioner/src/main.ts";

describe("pvc-provisioner process", () => {
  let h: Harness;
  before(async () => {
    h = await startExecutorHarness({ service: "pvc-provisioner" });
  });
  after(() => h.close());

  it("prints --help with every flag and its environment variable, exit 0", async () => {
    const flags = ["--kubeconfig", "--nats-url", "--concurrency", "--ack-wait-ms", "--max-deliver", "--redelivery-backoff-ms", "--retry-backoff-ms", "--max-ack-pending"];
    assert.match(await helpOutput(ENTRY, flags), /env:\s+PVC_CONCURRENCY/);
  });

  it("refuses invalid flags with exit 2 and names them", async () => {
    const run = spawnService(ENTRY, ["--max-deliver", "2", "--redelivery-backoff-ms", "1000,2000"]);
    assert.equal(await run.exited, 2);
    assert.match(run.output(), /--max-deliver: .*greater than the number of --redelivery-backoff-ms values/);
  });

  it("becomes ready, carries out a command as stsfleet-pvc-provisioner/<version> (<name>), exits 0 on SIGTERM", async () => {
    const shard = shardOf("default", "web");
    const epoch = await h.claimShard(shard, "actor-0");
    const run = spawnService(ENTRY, harnessArgs(h, "pvc-1"));
    try {
      const url = await run.opsUrl;
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      await eventually(async () => (await fetch(`${url}/readyz`)).status === 200, "ready", 15_000);
      const command = {
        type: "pvc.create" as const,
        shard,
        epoch,
        commandId: "p/1",
        issuedBy: "actor-0",
        set: { namespace: "default", name: "web", uid: "u-web" },
        podName: "web-0",
        ordinal: 0,
        claims: [{ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data-web-0" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
      };
      await jetstream(h.nats).publish(pvcCommandSubjects.build({ shard, namespace: "default", name: "web" }), codecs.pvcCommand.encode(command));
      await eventually(async () => {
        try {
          await h.kube.get({ ...RESOURCES.persistentvolumeclaims, namespace: "default", name: "data-web-0" });
          return true;
        } catch {
          return false;
        }
      }, "claim created by the process", 10_000);
      await eventually(() => readFileSync(h.auditLogPath, "utf8").includes(`"userAgent":"stsfleet-pvc-provisioner/${VERSION} (pvc-1)"`), "user agent in the audit log");
      assert.match(await (await fetch(await run.metricsUrl)).text(), /stsfleet_pvc_commands_total\{type="pvc.create",outcome="created",service="pvc-provisioner",instance="pvc-1"\} 1/);
    } finally {
      run.child.kill("SIGTERM");
    }
    assert.equal(await run.exited, 0);
    assert.ok(run.logLines.some((line) => line["msg"] === "shutdown complete"));
  });
});
