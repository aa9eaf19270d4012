// The crash test of `--data-dir` (ADR 0095): the simulator as a process takes a burst of parallel creates, is
// SIGKILLed in the middle of it, and restarts on the same dir. Every create that was answered with success is
// there with the same uid and resourceVersion, a watch from before the restart gets 410 Gone, and later writes get
// higher resourceVersions.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { describe, it } from "node:test";

const CLI = new URL("./cli.ts", import.meta.url).pathname;
const CREATES = 500;

type Sim = ChildProcessByStdio<null, Readable, Readable>;

async function startSim(dataDir: string): Promise<{ child: Sim; url: string; output: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", CLI, "--port", "0", "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /kube-sim listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => reject(new Error(`kube-sim exited ${String(code)} before listening:\n${out}`)));
  });
  return { child, url, output: () => out };
}

function configMap(i: number): string {
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `burst-${i}` }, data: { i: String(i), pad: "x".repeat(512) } });
}

interface Acked {
  readonly name: string;
  readonly uid: string;
  readonly rv: number;
}

describe("kube-sim --data-dir after SIGKILL", () => {
  it("keeps every acknowledged create with its uid and resourceVersion, and continues above them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-sim-crash-"));
    try {
      const first = await startSim(dir);
      const exited = new Promise<void>((resolve) => first.child.once("exit", () => resolve()));
      const acked: Acked[] = [];
      let failed = 0;
      const creates = Array.from({ length: CREATES }, async (_, i) => {
        try {
          const res = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "Content-Type": "application/json" }, body: configMap(i) });
          if (res.status !== 201) {
            failed++;
            return;
          }
          const body = (await res.json()) as { metadata: { name: string; uid: string; resourceVersion: string } };
          acked.push({ name: body.metadata.name, uid: body.metadata.uid, rv: Number(body.metadata.resourceVersion) });
          // Mid-burst: the kill lands while most creates are still in flight.
          if (acked.length === CREATES / 5) first.child.kill("SIGKILL");
        } catch {
          failed++;
        }
      });
      await Promise.all(creates);
      await exited;
      assert.ok(acked.length >= CREATES / 5, `acknowledged ${acked.length}`);
      assert.ok(failed > 0, "the kill came before the burst ended");

      const second = await startSim(dir);
      try {
        assert.match(second.output(), /kube-sim resumed \d+ objects/);
        const list = (await (await fetch(`${second.url}/api/v1/namespaces/default/configmaps`)).json()) as {
          metadata: { resourceVersion: string };
          items: { metadata: { name: string; uid: string; resourceVersion: string } }[];
        };
        const byName = new Map(list.items.map((item) => [item.metadata.name, item.metadata]));
        for (const a of acked) {
          const found = byName.get(a.name);
          assert.ok(found, `${a.name} was acknowledged and is gone`);
          assert.equal(found.uid, a.uid, a.name);
          assert.equal(Number(found.resourceVersion), a.rv, a.name);
        }
        // The watch history is gone: a watch from before the restart is told to re-list, as after a compaction.
        const stale = await (await fetch(`${second.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1`)).text();
        assert.match(stale, /"type":"ERROR".*"code":410/);
        const highest = Math.max(...acked.map((a) => a.rv), Number(list.metadata.resourceVersion));
        const after = await fetch(`${second.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "Content-Type": "application/json" }, body: configMap(CREATES) });
        assert.equal(after.status, 201);
        const rv = Number(((await after.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
        assert.ok(rv > highest, `a write after the restart got resourceVersion ${rv}, not above ${highest}`);
      } finally {
        second.child.kill("SIGKILL");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
