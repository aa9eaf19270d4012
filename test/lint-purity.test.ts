// The purity fence (eslint.config.js, PURE block): code in protocol/, the actor's planner and every service's
// domain/ folder may not import I/O modules or read the clock, the environment or randomness. `npm test` runs
// ESLint with --max-warnings=0, so any of these errors fails the build.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

// The virtual files below are not part of the TypeScript project, so type-aware rules are switched off for them;
// the purity rules are syntactic and come from the real config unchanged.
const eslint = new ESLint({
  cwd: repoRoot,
  overrideConfig: [
    { ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false } } },
  ],
});

async function purityErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  assert.ok(result);
  return result.messages
    .filter((m) => m.severity === 2)
    .filter((m) => m.ruleId?.startsWith("no-restricted-") ?? false)
    .map((m) => `${m.ruleId}: ${m.message}`);
}

const PURE_PATHS = [
  "protocol/src/purity-fixture.ts",
  "services/actor/src/planner/purity-fixture.ts",
  "services/watcher/src/domain/purity-fixture.ts",
];
const IMPURE_PATH = "services/watcher/src/purity-fixture.ts";

const FORBIDDEN: Record<string, string> = {
  "node: built-in": `import { readFileSync } from "node:fs";\nexport const x = readFileSync;`,
  "bare built-in": `import { createServer } from "http";\nexport const x = createServer;`,
  "built-in subpath": `import { setTimeout as sleep } from "node:timers/promises";\nexport const x = sleep;`,
  "re-export of a built-in": `export { spawn } from "node:child_process";`,
  "NATS client": `import { connect } from "@nats-io/transport-node";\nexport const x = connect;`,
  "JetStream client": `import { jetstream } from "@nats-io/jetstream";\nexport const x = jetstream;`,
  "Kubernetes client": `import { KubeConfig } from "@kubernetes/client-node";\nexport const x = KubeConfig;`,
  "OpenTelemetry SDK": `import { NodeSDK } from "@opentelemetry/sdk-node";\nexport const x = NodeSDK;`,
  logger: `import pino from "pino";\nexport const x = pino;`,
  "dynamic import": `export const x = () => import("node:fs");`,
  "environment read": `export const x = process.env["HOME"];`,
  "clock read": `export const x = Date.now();`,
  "implicit clock read": `export const x = new Date();`,
  randomness: `export const x = Math.random();`,
  "timer": `export const x = setTimeout(() => undefined, 1);`,
};

describe("lint: pure folders import no I/O", () => {
  for (const path of PURE_PATHS) {
    for (const [what, code] of Object.entries(FORBIDDEN)) {
      it(`${path.split("/").slice(0, -1).join("/")}: rejects ${what}`, async () => {
        const errors = await purityErrors(code, path);
        assert.ok(errors.length > 0, `expected a purity error for ${what}`);
      });
    }
  }

  it("accepts pure code that uses zod, msgpackr, the OpenTelemetry API and parses given timestamps", async () => {
    const code = [
      `import { z } from "zod";`,
      `import { Packr } from "msgpackr";`,
      `import { trace } from "@opentelemetry/api";`,
      `export const s = z.string();`,
      `export const p = new Packr();`,
      `export const t = trace;`,
      `export const at = (iso: string): number => Date.parse(iso);`,
      `export const d = (ms: number): Date => new Date(ms);`,
    ].join("\n");
    for (const path of PURE_PATHS) assert.deepEqual(await purityErrors(code, path), [], path);
  });

  it("allows I/O outside pure folders and in tests inside them", async () => {
    for (const code of Object.values(FORBIDDEN)) {
      assert.deepEqual(await purityErrors(code, IMPURE_PATH), []);
      assert.deepEqual(await purityErrors(code, "protocol/src/purity-fixture.test.ts"), []);
    }
  });
});
