// Shared pieces of the chaos tests: one ChaosStack per test file (stopped after it), small workloads in their own
// namespace per scenario, and the audit-log measurements the scenarios print.
import assert from "node:assert/strict";
import { after } from "node:test";
import type { TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ChaosStack } from "../../tools/chaos/harness.ts";
import type { ChaosOptions } from "../../tools/chaos/harness.ts";
import { succeeded } from "../../tools/chaos/facts.ts";
import type { AuditWrite } from "../../tools/chaos/facts.ts";
import type { InvariantReport } from "../../tools/chaos/invariants.ts";
import type { SetRefName, SetSpec } from "../../tools/chaos/workload.ts";

/** Starts a chaos stack for the enclosing test file and stops it (removing its state dir) after the file. */
export async function useChaos(options: ChaosOptions = {}): Promise<ChaosStack> {
  const chaos = await ChaosStack.start(options);
  after(() => chaos.stop());
  return chaos;
}

/** Creates `count` sets named `<prefix>-<i>` in a fresh namespace and waits until they converged. */
export async function createSets(
  chaos: ChaosStack,
  namespace: string,
  count: number,
  spec: SetSpec | ((index: number) => SetSpec),
): Promise<SetRefName[]> {
  await chaos.workload.createNamespace(namespace);
  const sets = Array.from({ length: count }, (_, i) => ({ namespace, name: `app-${i}` }));
  await Promise.all(sets.map((set, i) => chaos.workload.createSet(namespace, set.name, typeof spec === "function" ? spec(i) : spec)));
  await chaos.waitConverged([namespace]);
  return sets;
}

/** The member owning the most of `sets` right now, and those sets. */
export function busiestOwner(chaos: ChaosStack, sets: readonly SetRefName[]): { member: string; sets: SetRefName[] } {
  const bySet = new Map<string, SetRefName[]>();
  for (const set of sets) {
    const owner = chaos.ownerOfSet(set.namespace, set.name);
    if (owner) bySet.set(owner, [...(bySet.get(owner) ?? []), set]);
  }
  const [member, owned] = [...bySet].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
  assert.ok(member && owned, "some member owns the sets");
  return { member, sets: owned };
}

/** Accepted actor writes to `sets` (pods and revisions), in completion order. */
export function actorWrites(chaos: ChaosStack, sets: readonly SetRefName[]): AuditWrite[] {
  const keys = new Set(sets.map((s) => `${s.namespace}/${s.name}`));
  return chaos.audit().filter((w) => {
    if (!w.epoch || !succeeded(w) || w.namespace === undefined || w.name === undefined) return false;
    const set = w.name.replace(/-[^-]+$/, "");
    return keys.has(`${w.namespace}/${set}`);
  });
}

/** Polls the audit log until `predicate` matches an entry; returns it. */
export async function waitForWrite(chaos: ChaosStack, what: string, predicate: (w: AuditWrite) => boolean, timeoutMs = 60_000): Promise<AuditWrite> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = chaos.audit().find(predicate);
    if (found) return found;
    if (performance.now() > deadline) throw new Error(`no audited write ${what} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Asserts every invariant held and printed the report as a test diagnostic. */
export function assertInvariants(t: TestContext, report: InvariantReport, required: readonly string[] = ["I1", "I2", "I3", "I4", "I5"]): void {
  for (const line of report.text().split("\n")) t.diagnostic(line);
  assert.ok(report.ok, `invariant violations:\n${report.text()}`);
  for (const id of required) {
    const result = report.results.find((r) => r.id === id);
    assert.ok(result && result.skipped === undefined && result.checked > 0, `${id} checked something`);
  }
}

/** Runs `work` while the sets churn (random scale and template changes every `everyMs`); returns churn counts. */
export async function underChurn<T>(
  chaos: ChaosStack,
  sets: readonly SetRefName[],
  work: () => Promise<T>,
  options: { everyMs?: number; maxReplicas?: number } = {},
): Promise<{ result: T; churn: { scales: number; templates: number; errors: number } }> {
  const stop = new AbortController();
  const churning = chaos.workload.churn({ sets, everyMs: options.everyMs ?? 400, maxReplicas: options.maxReplicas ?? 3, signal: stop.signal });
  try {
    const result = await work();
    return { result, churn: await (stop.abort(), churning) };
  } finally {
    stop.abort();
    await churning;
  }
}

export function ms(value: number): string {
  return `${Math.round(value)} ms`;
}
