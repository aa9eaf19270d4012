// `stsfleet up --nats-url URL --kubeconfig PATH`: the stack uses an existing NATS and cluster (here a nats-server and
// a simulator started by the test) instead of starting its own; stack.json then lists only the services.
import assert from "node:assert/strict";
import { lstatSync, mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startKubeSim } from "../../tools/kube-sim/src/main.ts";
import type { KubeSim } from "../../tools/kube-sim/src/main.ts";
import { isAlive, readStackFile } from "../../tools/stsfleet/src/state.ts";
import { startNatsServer } from "../../tools/lib/nats-server.ts";
import type { RunningNatsServer } from "../../tools/lib/nats-server.ts";
import { waitFor } from "../support/stack.ts";
import { runUp } from "./up-process.ts";

describe("stsfleet up against an existing NATS and cluster", () => {
  const dir = mkdtempSync(join(tmpdir(), "stsfleet-up-external-"));
  const stateDir = join(dir, "state");
  let sim: KubeSim;
  let nats: RunningNatsServer;
  let natsUrl: string;

  before(async () => {
    nats = await startNatsServer();
    natsUrl = nats.url;
    sim = await startKubeSim({ port: 0, kubeconfigOut: join(dir, "cluster.kubeconfig"), kubelet: { startDelayMs: 20 } });
  });
  after(async () => {
    await sim.stop();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts only the services, points them at the given NATS and cluster, applies the demo there, and stops cleanly", async () => {
    const up = runUp(["--state-dir", stateDir, "--nats-url", natsUrl, "--kubeconfig", join(dir, "cluster.kubeconfig")]);
    try {
      await up.line((l) => l.startsWith("ready:"), "ready:", 240_000);
      const stack = readStackFile(stateDir);
      assert.ok(stack);
      assert.equal(stack.nats, natsUrl);
      assert.equal(stack.apiServer, sim.url);
      assert.equal(stack.auditLog, undefined);
      assert.deepEqual(stack.processes.map((p) => p.service).sort(), ["actor", "pvc-provisioner", "status-writer", "watcher"]);
      assert.ok(lstatSync(stack.kubeconfig).isSymbolicLink(), "DIR/kubeconfig links to the given kubeconfig");
      assert.equal(readlinkSync(stack.kubeconfig), join(dir, "cluster.kubeconfig"));
      await up.line((l) => l.startsWith("demo: statefulset/web is ready"), "demo summary", 120_000);

      const pids = stack.processes.map((p) => p.pid);
      up.ctrlC();
      const { code } = await up.exited;
      assert.equal(code, 0, up.stderr());
      await waitFor("the services to be gone", () => (pids.every((pid) => !isAlive(pid)) ? true : undefined), { timeoutMs: 10_000 });
    } finally {
      up.ctrlC();
      await up.exited;
    }
  });
});
