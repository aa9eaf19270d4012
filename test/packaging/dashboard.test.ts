// The Grafana fleet dashboard: valid JSON that Grafana provisions as is, every panel queries Prometheus through
// the dashboard's datasource variable, and every metric it queries is registered by some service.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { metricNames, readRepoFile, repoPath } from "./support.ts";

const DASHBOARD = "deploy/base/monitoring/dashboards/stsfleet-fleet.json";
const HISTOGRAM_SUFFIXES = ["_bucket", "_sum", "_count"];

interface Target {
  refId: string;
  expr: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Target[];
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: string }[] };
}

function metricsTsFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") metricsTsFiles(path, out);
    else if (entry.name === "metrics.ts") out.push(path);
  }
  return out;
}

/** Every `name: "..."` declared in a services/**\/metrics.ts file: what the services register with prom-client. */
function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  for (const file of metricsTsFiles(repoPath("services"))) {
    const text = readRepoFile(file.slice(repoPath().length));
    for (const match of text.matchAll(/\bname:\s*"([a-zA-Z_:][a-zA-Z0-9_:]*)"/g)) if (match[1]) names.add(match[1]);
  }
  return names;
}

function baseName(metric: string, registered: Set<string>): string {
  if (registered.has(metric)) return metric;
  const suffix = HISTOGRAM_SUFFIXES.find((s) => metric.endsWith(s));
  return suffix ? metric.slice(0, -suffix.length) : metric;
}

describe(DASHBOARD, () => {
  const dashboard = JSON.parse(readRepoFile(DASHBOARD)) as Dashboard;
  const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target })));

  it("parses, with a stable uid and unique panel ids", () => {
    assert.equal(dashboard.uid, "stsfleet-fleet");
    assert.ok(dashboard.title.length > 0 && dashboard.schemaVersion > 30);
    const ids = dashboard.panels.map((panel) => panel.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const panel of dashboard.panels) assert.ok(panel.gridPos.x + panel.gridPos.w <= 24, `${panel.title} fits the 24-column grid`);
  });

  it("queries Prometheus only through the ${datasource} variable", () => {
    const variable = dashboard.templating.list.find((v) => v.name === "datasource");
    assert.deepEqual([variable?.type, variable?.query], ["datasource", "prometheus"]);
    assert.ok(queries.length >= 20, `only ${queries.length} queries`);
    for (const { panel, target } of queries) {
      assert.deepEqual(panel.datasource, { type: "prometheus", uid: "${datasource}" }, panel.title);
      assert.ok(target.expr.trim().length > 0, `${panel.title}/${target.refId}: empty query`);
    }
  });

  it("covers the fleet: reconcile rate and latency, shards per member, handoffs, mailbox depth, API errors, drops, watch restarts and relists", () => {
    const all = queries.map(({ target }) => target.expr).join("\n");
    for (const needed of [
      "controller_runtime_reconcile_total",
      "controller_runtime_reconcile_time_seconds_bucket",
      "stsfleet_shards_owned",
      "stsfleet_shard_handoffs_total",
      "workqueue_depth",
      'rest_client_requests_total{code!~"2.."}',
      "stsfleet_dropped_messages_total",
      "stsfleet_watcher_watch_restarts_total",
      "stsfleet_watcher_relists_total",
    ]) {
      assert.ok(all.includes(needed), `no panel queries ${needed}`);
    }
    assert.match(all, /sum by \(instance\) \(stsfleet_shards_owned/, "shard ownership is shown per member");
  });

  it("queries only metrics that some service registers", () => {
    const registered = registeredMetrics();
    assert.ok(registered.has("controller_runtime_reconcile_total"), "the metrics.ts scan found the actor's metrics");
    for (const { panel, target } of queries) {
      const names = metricNames(target.expr);
      assert.ok(names.length > 0, `${panel.title}: no metric selector in ${target.expr} (write selectors as name{...})`);
      for (const name of names) {
        assert.ok(registered.has(baseName(name, registered)), `${panel.title}: ${name} is not registered by any service`);
      }
    }
  });

  it("finds metric names the way PromQL reads them", () => {
    assert.deepEqual(metricNames('sum by (le) (rate(a_seconds_bucket{service="actor"}[5m]))'), ["a_seconds_bucket"]);
    assert.deepEqual(metricNames("count(b{}) / sum(c_total[1m])"), ["b", "c_total"]);
    assert.deepEqual(metricNames("sum by (instance) (up)"), []);
  });
});
