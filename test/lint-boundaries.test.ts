// The boundary rules of eslint.config.js, each shown failing on a violating snippet at a virtual path: domain
// folders are pure like the planner, a service imports no other service (services/common and protocol/ are the
// shared front doors), and production source imports neither tools/ nor test/. `npm test` runs ESLint with
// --max-warnings=0, so any of these errors fails the build. The full purity matrix is in lint-purity.test.ts.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

// The virtual files are not part of the TypeScript project, so type-aware rules are switched off for them; the
// boundary rules are syntactic and come from the real config unchanged.
const eslint = new ESLint({
  cwd: repoRoot,
  overrideConfig: [
    { ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false } } },
  ],
});

/** `ruleId: message` of every error `ruleId` reports on `code` linted as `filePath`. */
async function errorsOf(ruleId: string, code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  assert.ok(result);
  return result.messages.filter((m) => m.severity === 2 && m.ruleId === ruleId).map((m) => `${m.ruleId}: ${m.message}`);
}

interface Case {
  readonly rule: string;
  readonly code: string;
  readonly paths: readonly string[];
}

const VIOLATIONS: Record<string, Case> = {
  "a domain folder is pure": {
    rule: "no-restricted-imports",
    code: `import { readFileSync } from "node:fs";\nexport const x = readFileSync;`,
    paths: ["services/actor/src/domain/fixture.ts", "services/pvc-provisioner/src/domain/deep/fixture.ts"],
  },
  "a service does not import another service": {
    rule: "stsfleet/no-cross-service-import",
    code: `import { compileSelector } from "../../../actor/src/planner/selector.ts";\nexport const x = compileSelector;`,
    paths: ["services/watcher/src/domain/fixture.ts", "services/watcher/src/domain/fixture.test.ts"],
  },
  "production source does not import tools/ or test/": {
    rule: "stsfleet/no-test-or-tools-import",
    code: [
      `import { startNatsServer } from "../../../tools/lib/nats-server.ts";`,
      `import type { SimHandle } from "#test-support/watcher-harness.ts";`,
      `export const x = startNatsServer;`,
      `export type Y = SimHandle;`,
    ].join("\n"),
    paths: ["services/common/src/fixture.ts", "protocol/src/fixture.ts"],
  },
};

describe("lint: import boundaries", () => {
  for (const [what, { rule, code, paths }] of Object.entries(VIOLATIONS)) {
    it(`${what} (${rule})`, async () => {
      for (const path of paths) {
        const errors = await errorsOf(rule, code, path);
        assert.ok(errors.length > 0, `expected ${rule} to report on ${path}`);
      }
    });
  }

  it("accepts a service importing itself, services/common, protocol/ and packages; tests may import tools/ and test/", async () => {
    const production = [
      `import { z } from "zod";`,
      `import { shard } from "#protocol";`,
      `import { KubeClient } from "../../common/src/kube.ts";`,
      `import { parseWatcherConfig } from "./config.ts";`,
      `export const x = [z, shard, KubeClient, parseWatcherConfig];`,
    ].join("\n");
    const test = [
      `import { startNatsServer } from "../../../tools/lib/nats-server.ts";`,
      `import { useNatsServer } from "#test-support/nats.ts";`,
      `export const x = [startNatsServer, useNatsServer];`,
    ].join("\n");
    const cases: [string, string][] = [
      [production, "services/watcher/src/fixture.ts"],
      [test, "services/watcher/src/fixture.test.ts"],
      [test, "protocol/src/fixture.test.ts"],
    ];
    for (const [code, path] of cases) {
      const [result] = await eslint.lintText(code, { filePath: path });
      assert.ok(result);
      assert.deepEqual(result.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId}: ${m.message}`), [], path);
    }
  });
});
