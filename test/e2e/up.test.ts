// The real `stsfleet up` as a process in a temp state dir: `ready:` on stdout, stack.json
// as the brief specifies it (live pids, metrics URLs that answer), the demo set Running and Ready (and shown by
// kubectl when it is installed), then SIGINT stops everything and leaves no process behind.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { KubeClient, loadKubeConfig, RESOURCES } from "../../services/common/src/kube.ts";
import { userAgent } from "../../services/common/src/version.ts";
import { findKubectl, Kubectl } from "../../tools/kube-sim/src/testing/kubectl.ts";
import { isAlive, readStackFile } from "../../tools/stsfleet/src/state.ts";
import { AuditLog, waitFor } from "../support/stack.ts";
import { creates, isReady, listClaims, listPods, names } from "./helpers.ts";
import { runUp } from "./up-process.ts";
import type { StatefulSet } from "./helpers.ts";

const kubectlBinary = findKubectl();

describe("stsfleet up as a process", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "stsfleet-up-"));
  const up = runUp(["--state-dir", stateDir, "--actors", "2"]);
  const { child, stdout, exited, ctrlC, line } = up;

  after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      ctrlC();
      await exited;
    }
    rmSync(stateDir, { recursive: true, force: true });
  });

  let pids: number[] = [];

  it("prints one ready: line and writes stack.json with live pids and metrics URLs that answer", async () => {
    const ready = await line((l) => l.startsWith("ready:"), "ready:", 240_000);
    assert.match(ready, new RegExp(`kubectl --kubeconfig \\S*kubeconfig get sts,pods,pvc`));
    const stack = readStackFile(stateDir);
    assert.ok(stack, "stack.json missing");
    assert.equal(stack.kubeconfig, join(stateDir, "kubeconfig"));
    assert.ok(existsSync(stack.kubeconfig));
    assert.match(stack.apiServer, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(stack.nats, /^nats:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(existsSync(join(stateDir, "audit.log")));
    const byName = new Map(stack.processes.map((p) => [p.name, p]));
    assert.deepEqual(
      [...byName.keys()].sort(),
      ["actor-0", "actor-1", "kube-sim", "nats", "pvc-provisioner", "status-writer", "watcher"],
    );
    assert.deepEqual(
      stack.processes.map((p) => `${p.service}/${p.name}`).sort(),
      ["actor/actor-0", "actor/actor-1", "kube-sim/kube-sim", "nats/nats", "pvc-provisioner/pvc-provisioner", "status-writer/status-writer", "watcher/watcher"],
    );
    for (const entry of stack.processes) {
      assert.ok(isAlive(entry.pid), `${entry.name} (pid ${entry.pid}) is not running`);
      if (entry.service === "nats" || entry.service === "kube-sim") continue;
      assert.ok(entry.metrics, `${entry.name} has no metrics URL`);
      assert.match(entry.metrics, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const response = await fetch(entry.metrics, { signal: AbortSignal.timeout(5_000) });
      assert.equal(response.status, 200);
      const text = await response.text();
      assert.match(text, /stsfleet_dropped_messages_total|process_cpu_seconds_total/, `${entry.name} /metrics`);
    }
    assert.equal(stdout.filter((l) => l.startsWith("ready:")).length, 1, "exactly one ready: line");
    pids = [...stack.processes.map((p) => p.pid), ...(stack.supervisor ? [stack.supervisor.pid] : [])];
    assert.equal(stack.supervisor?.pid, child.pid);
  });

  it("applies the demo: web-0..2 come up in order, Running and Ready, with bound claims", async () => {
    await line((l) => l.startsWith("demo: statefulset/web is ready"), "demo summary", 120_000);
    const progress = stdout.filter((l) => /^\s+web-\d Running\/Ready/.test(l)).map((l) => l.trim());
    assert.deepEqual(progress, ["web-0 Running/Ready (1/3)", "web-1 Running/Ready (2/3)", "web-2 Running/Ready (3/3)"]);

    const kubeconfig = join(stateDir, "kubeconfig");
    const kube = new KubeClient(loadKubeConfig(kubeconfig, userAgent("stsfleet", "e2e")), { requestTimeoutMs: 5_000 });
    const set = await kube.get<StatefulSet>({ ...RESOURCES.statefulsets, namespace: "default", name: "web" });
    assert.equal(set.status?.readyReplicas, 3);
    const pods = await listPods(kube, "default", "web");
    assert.deepEqual(names(pods), ["web-0", "web-1", "web-2"]);
    assert.ok(pods.every(isReady));
    const claims = await listClaims(kube, "default");
    assert.deepEqual(names(claims), ["data-web-0", "data-web-1", "data-web-2"]);
    assert.ok(claims.every((c) => c.status?.phase === "Bound"));

    const audit = new AuditLog(join(stateDir, "audit.log"));
    assert.deepEqual(creates(audit, "default", "pods").map((e) => e.name), ["web-0", "web-1", "web-2"]);
    // Every request of a service names an instance from stack.json (the brief's User-Agent contract).
    const instances = new Set(readStackFile(stateDir)?.processes.map((p) => p.name));
    for (const event of audit.all()) {
      if (event.service === undefined || event.service === "stsfleet") continue;
      assert.ok(instances.has(event.instance ?? ""), `audit user agent ${event.userAgent} names no process in stack.json`);
    }
  });

  it("kubectl --kubeconfig <dir>/kubeconfig get sts,pods,pvc shows the demo", { skip: kubectlBinary === undefined ? "kubectl is not on the PATH" : false }, async () => {
    const kubectl = new Kubectl(kubectlBinary ?? "kubectl", join(stateDir, "kubeconfig"));
    try {
      const out = await kubectl.ok(["--kubeconfig", join(stateDir, "kubeconfig"), "get", "sts,pods,pvc"]);
      assert.match(out, /statefulset\.apps\/web\s+3\/3/);
      for (const i of [0, 1, 2]) {
        assert.match(out, new RegExp(`pod/web-${i}\\s+1/1\\s+Running`));
        assert.match(out, new RegExp(`persistentvolumeclaim/data-web-${i}\\s+Bound`));
      }
    } finally {
      kubectl.cleanup();
    }
  });

  it("Ctrl-C (SIGINT to the process group) stops everything in order: exit 0, every pid in stack.json gone", async () => {
    assert.ok(pids.length >= 8, "the first test did not record the pids");
    ctrlC();
    const { code, signal } = await exited;
    assert.equal(signal, null);
    assert.equal(code, 0, `stsfleet up exited with ${code}; stderr:\n${up.stderr()}`);
    assert.ok(stdout.some((l) => l.startsWith("stsfleet: stopped")));
    const alive = await waitFor("every process to be gone", () => (pids.every((pid) => !isAlive(pid)) ? true : undefined), {
      timeoutMs: 10_000,
      describeLast: () => pids.filter(isAlive),
    });
    assert.equal(alive, true);
    assert.equal(existsSync(join(stateDir, "stack.json")), false);
    // NATS outlived the services, so no service had to give up on a graceful shutdown.
    for (const name of ["watcher", "actor-0", "actor-1", "pvc-provisioner", "status-writer"]) {
      const log = readFileSync(join(stateDir, "logs", `${name}.log`), "utf8");
      assert.match(log, /shutdown complete/, `${name} did not finish its shutdown`);
      assert.doesNotMatch(log, /graceful shutdown timed out/, `${name} timed out shutting down`);
    }
  });
});
