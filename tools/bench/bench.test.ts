// The harness end to end at tiny scale: every mode (the fleet's real services over NATS, the workqueue baseline,
// the floor) over its own simulator, 2 StatefulSets of 2 replicas in Parallel (then a rollout) and in
// OrderedReady, and the report built from the results. The three environments run side by side to keep it short.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runEnvironment } from "./cli.ts";
import { MODES } from "./environment.ts";
import { PRESETS, expand } from "./presets.ts";
import type { Preset } from "./presets.ts";
import { renderConvergeChart, renderMarkdown } from "./report/markdown.ts";
import type { BenchReport } from "./report/markdown.ts";
import type { RunResult } from "./runs.ts";

const TINY: Preset = {
  ...PRESETS.quick,
  latencies: [0],
  sizes: [2],
  replicas: 2,
  chainSets: 2,
  scenarios: ["converge", "rollout", "chain"],
  timeoutMs: 60_000,
};

describe("npm run bench at tiny scale", { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "stsfleet-bench-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("converges, rolls out and chains in every mode and reports every figure", async () => {
    const plans = expand(TINY, []);
    assert.deepEqual(
      plans.map((plan) => plan.spec.mode),
      [...MODES],
    );
    const outcomes = await Promise.all(
      plans.map((plan, index) => runEnvironment(plan, join(dir, String(index)), TINY, (message) => process.stderr.write(`${message}\n`))),
    );
    assert.deepEqual(outcomes.map((o) => o.error), [undefined, undefined, undefined]);
    const runs: RunResult[] = outcomes.flatMap((o) => o.results);
    assert.deepEqual(
      runs.map((run) => `${run.mode}/${run.scenario}/${run.policy}`),
      MODES.flatMap((mode) => [`${mode}/converge/Parallel`, `${mode}/rollout/Parallel`, `${mode}/chain/OrderedReady`]),
    );
    for (const run of runs) {
      assert.equal(run.converged, true, `${run.id} converged`);
      assert.equal(run.pods, 4);
      assert.ok(run.wallMs > 0 && run.podsPerSecond > 0, run.id);
      assert.ok((run.requests.byResource["pods"] ?? 0) >= 4, `${run.id} created or replaced every pod`);
      assert.ok((run.requests.byResource["statefulsets/status"] ?? 0) >= 2, `${run.id} wrote every status`);
      const names = run.processes.map((p) => p.name);
      assert.ok(names.includes("kube-sim") && names.includes("harness"), `${run.id}: ${names.join(",")}`);
      assert.ok(run.processes.every((p) => p.cpuSeconds >= 0 && p.peakRssMiB > 0), run.id);
      if (run.mode === "fleet") {
        assert.ok(names.includes("actor-0") && names.includes("nats"), names.join(","));
        assert.ok(run.nats && run.nats.inMsgs > 0, "NATS traffic counted");
      } else {
        assert.ok(names.includes(run.mode), names.join(","));
        assert.equal(run.nats, undefined);
      }
      if (run.scenario === "rollout") assert.equal(run.requests.byVerb["delete"], 4, `${run.id} replaced each pod once`);
      if (run.scenario === "chain") {
        assert.equal(run.chain?.samples, 2, `${run.id}: one sample per set (pod 0 -> pod 1)`);
        assert.equal(run.chain.early, 0);
      }
    }
    const floor = runs.find((run) => run.mode === "floor" && run.scenario === "converge");
    assert.equal(floor?.requests.byResource["events"], undefined, "the floor writes no Events");
    assert.equal(floor?.requests.byResource["controllerrevisions"], undefined, "nor revisions");

    const report: BenchReport = {
      version: 1,
      preset: "tiny",
      command: "test",
      startedAt: new Date().toISOString(),
      durationSeconds: 1,
      machine: { cores: 2, cpuModel: "x", memoryGiB: 1, node: process.version, platform: "linux", commit: "test", loadAverageStart: [0, 0, 0], loadAverageEnd: [0, 0, 0] },
      settings: {},
      runs,
      profiles: [],
      errors: [],
    };
    const markdown = renderMarkdown(report);
    assert.match(markdown, /\| 2 × 2 \| 0 ms \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+× \| [\d.]+× \|/);
    assert.equal(markdown.match(/^\| (fleet \(1 actor\)|workqueue|floor) \| 0 ms \| 2 × 2 \| 2 \|/gm)?.length, 3, "a chain row per mode");
    assert.equal((renderConvergeChart(report).match(/<circle /g) ?? []).length, 3);
  });
});
