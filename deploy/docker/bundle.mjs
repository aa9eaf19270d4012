// Builds what the container image runs: one ESM bundle per service (TypeScript compiled by esbuild, `#protocol`
// and relative imports inlined, npm packages left external and installed with `npm ci --omit=dev`), plus the
// `stsfleet` launcher. Used by the Dockerfile's build stage and by test/packaging/bundle.test.ts.
// Usage: node deploy/docker/bundle.mjs [--outdir DIR]   (default: dist/ at the repository root)
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");

/** Service name (the launcher's first argument) -> entry point. Keep in sync with SERVICES in stsfleet.mjs. */
export const ENTRY_POINTS = {
  watcher: "services/watcher/src/main.ts",
  actor: "services/actor/src/main.ts",
  "pvc-provisioner": "services/pvc-provisioner/src/main.ts",
  "status-writer": "services/status-writer/src/main.ts",
  "kube-sim": "tools/kube-sim/src/cli.ts",
};

export async function bundle(outdir) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(ENTRY_POINTS).map(([name, path]) => [name, join(root, path)])),
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    // npm packages stay in node_modules: their own file layout, native add-ons and instrumentation hooks keep working.
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node22",
    sourcemap: "linked",
    logLevel: "warning",
    metafile: true,
  });
  copyFileSync(join(here, "stsfleet.mjs"), join(outdir, "stsfleet.mjs"));
  return { outdir, outputs: Object.keys(result.metafile.outputs) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outdir: { type: "string", default: join(root, "dist") } } });
  const { outputs } = await bundle(resolve(values.outdir));
  process.stdout.write(`bundled ${outputs.filter((o) => o.endsWith(".mjs")).length} entry points into ${values.outdir}\n`);
}
