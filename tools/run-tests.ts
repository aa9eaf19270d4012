// Runs every *.test.ts under the source folders with node:test (through tsx) and the TAP reporter, so the
// run ends with node:test's `# pass N` / `# fail N` summary. Arguments narrow the run to paths that
// contain any of them: `npm run test:unit -- protocol/ kube-sim`.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

const MIN_NODE_MAJOR = 22;
const ROOTS = ["protocol", "services", "tools", "test"] as const;
const SKIP_DIRS = new Set(["node_modules", ".git", ".stsfleet", ".bench", "coverage"]);

const major = Number(process.versions.node.split(".")[0]);
if (major < MIN_NODE_MAJOR) {
  console.error(
    `stsfleet needs Node ${MIN_NODE_MAJOR}+, this is ${process.version}. ` +
      "Run tests through npm (`npm test`), which puts the pinned Node from node_modules/.bin first on the PATH.",
  );
  process.exit(1);
}

function findTests(dir: string, out: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) findTests(path, out);
    } else if (entry.name.endsWith(".test.ts")) {
      out.push(relative(process.cwd(), path));
    }
  }
}

const filters = process.argv.slice(2);
const files: string[] = [];
for (const root of ROOTS) findTests(root, files);
const selected = files.sort().filter((f) => filters.length === 0 || filters.some((needle) => f.includes(needle)));
if (selected.length === 0) {
  console.error(`no test files match ${JSON.stringify(filters)}`);
  process.exit(1);
}

const concurrency = process.env["TEST_CONCURRENCY"] ?? "2";
const child = spawn(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=tap", `--test-concurrency=${concurrency}`, ...selected],
  { stdio: ["inherit", "pipe", "inherit"] },
);
// node:test (22.23) reports a suite whose setup throws (an async describe callback, a before hook of a file's
// top-level suite) as `not ok` but leaves it out of `# fail` and exits 0: a broken suite would pass CI unnoticed.
// Every `not ok` line of the TAP stream therefore fails the run.
const NOT_OK = /^\s*not ok \d+ - (.*)$/;
const failures: string[] = [];
let pending = "";
child.stdout.on("data", (chunk: Buffer) => {
  process.stdout.write(chunk);
  const lines = (pending + chunk.toString("utf8")).split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) {
    const match = NOT_OK.exec(line);
    if (match && !/#\s*(TODO|SKIP)\b/i.test(line)) failures.push(match[1] ?? line);
  }
});
const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
process.on("SIGINT", forward("SIGINT"));
process.on("SIGTERM", forward("SIGTERM"));
child.on("close", (code, signal) => {
  const status = code ?? (signal ? 1 : 0);
  if (failures.length > 0) {
    process.stdout.write(`# not ok: ${failures.length} (tests and suites, nested ones included)\n`);
    if (status === 0) process.stdout.write("# failing the run: node:test counted none of them in # fail\n");
    process.exit(status === 0 ? 1 : status);
  }
  process.exit(status);
});
