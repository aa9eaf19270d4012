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
  { stdio: "inherit" },
);
const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
process.on("SIGINT", forward("SIGINT"));
process.on("SIGTERM", forward("SIGTERM"));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
