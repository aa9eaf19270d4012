// Re-runs the invariant checker on a kept chaos state dir (STSFLEET_CHAOS_KEEP=1): its audit.log and the
// chaos-record.json the harness wrote when it stopped. `npx tsx tools/chaos/recheck.ts DIR [namespace...]`
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAuditLog } from "./facts.ts";
import type { FaultRecord, ObjectEvent, OwnershipChange } from "./facts.ts";
import { checkInvariants } from "./invariants.ts";

const [dir, ...namespaces] = process.argv.slice(2);
if (!dir) {
  process.stderr.write("usage: recheck.ts STATE_DIR [namespace...]\n");
  process.exit(2);
}
const record = JSON.parse(readFileSync(join(dir, "chaos-record.json"), "utf8")) as {
  timeline: ObjectEvent[];
  ownership: OwnershipChange[];
  faults: FaultRecord[];
  readyAtMs: number;
};
const report = checkInvariants({
  audit: parseAuditLog(readFileSync(join(dir, "audit.log"), "utf8")),
  timeline: record.timeline,
  timelineComplete: true,
  ownership: record.ownership,
  ownershipComplete: true,
  faults: record.faults,
  ...(namespaces.length > 0 ? { namespaces } : {}),
  coverage: { fromMs: record.readyAtMs, toMs: Math.max(...record.ownership.map((c) => c.atMs)), failoverBoundMs: 12_000, gracefulBoundMs: 5_000 },
});
process.stdout.write(`${report.text()}\n`);
process.exitCode = report.ok ? 0 : 1;
