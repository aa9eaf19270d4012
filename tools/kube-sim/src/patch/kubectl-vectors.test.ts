// Differential test: applyPatch against what kubectl v1.32 (`kubectl patch --local`, the same evanphx/json-patch
// v4 and strategicpatch code kube-apiserver vendors) returned for the curated cases, for patches captured from
// real `kubectl apply/label/annotate/rollout restart` runs, and for a seeded random corpus.
// Regenerate with `npx tsx tools/kube-sim/src/patch/vectors/generate.ts`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { PatchError, applyPatch } from "./index.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { jsonEqual } from "./json.ts";
import { digest } from "./vectors/canonical.ts";
import type { PatchCase } from "./vectors/cases.ts";
import { fuzzCases } from "./vectors/fuzz.ts";
import type { KubectlOutcome, VectorFile } from "./vectors/generate.ts";

const vectors = JSON.parse(readFileSync(new URL("./vectors/kubectl-v1.32.json", import.meta.url), "utf8")) as VectorFile;

/**
 * Cases where kube-apiserver and `kubectl patch --local` differ, or where the library crashes; checked here
 * against what the apiserver does instead (docs/adr/0030, 0032 and 0034).
 */
const KNOWN_DIVERGENCES: Record<string, (outcome: Outcome) => void> = {
  // evanphx v4.12 dereferences nil comparing a null inside a nested array and panics; we compare as the RFC says.
  "test of an array": (outcome) => assert.ok("result" in outcome),
  // kubectl decodes the patch itself ("invalid JSON document"); the apiserver answers the json decode error.
  "patch that is a list": (outcome) => {
    assert.ok("error" in outcome);
    assert.equal(outcome.error.httpStatus, 400);
    assert.equal(outcome.error.message, "json: cannot unmarshal array into Go value of type map[string]interface {}");
  },
};

type Outcome = { result: unknown } | { error: PatchError };

function run(c: PatchCase): Outcome {
  const text = (value: JsonValue | undefined): string => (typeof value === "string" ? value : "");
  const kind = { apiVersion: text(c.target["apiVersion"]), kind: text(c.target["kind"]) };
  try {
    return { result: applyPatch(c.type, c.target, c.patch, kind) };
  } catch (error) {
    if (error instanceof PatchError) return { error };
    throw error;
  }
}

function describeMismatch(c: PatchCase, expected: KubectlOutcome, actual: Outcome): string {
  const shown = "result" in actual ? { result: actual.result } : { error: actual.error.detail, status: actual.error.httpStatus };
  return `${c.type} patch ${JSON.stringify(c.patch)}\n  to ${JSON.stringify(c.target)}\n  kubectl: ${JSON.stringify(expected)}\n  ours:    ${JSON.stringify(shown)}`;
}

/** kubectl prints the library error; a Go panic there is a recovered 500 with the same text on the server. */
function assertSameError(c: PatchCase, kubectlError: string, error: PatchError): void {
  if (kubectlError.startsWith("panic: ")) {
    assert.equal(error.httpStatus, 500);
    assert.equal(error.message, kubectlError.slice("panic: ".length).split("\n")[0]);
    return;
  }
  // The JSON and merge patch texts differ by design: kubectl rewrites some, the apiserver hides them (422).
  if (c.type !== "strategic") return;
  assert.equal(error.detail.replace(/\n$/, ""), kubectlError);
}

describe("kubectl v1.32 recordings", () => {
  it("were recorded from kubectl 1.32", () => {
    assert.match(vectors.kubectl, /^v1\.32\./);
    assert.ok(vectors.cases.length >= 140);
    assert.ok(vectors.cases.some((c) => c.group === "apply"));
  });

  for (const recorded of vectors.cases) {
    it(`${recorded.group}: ${recorded.name} (${recorded.type})`, () => {
      const outcome = run(recorded);
      const divergence = KNOWN_DIVERGENCES[recorded.name];
      if (divergence !== undefined) return divergence(outcome);
      const expected = recorded.kubectl;
      if ("result" in expected) {
        assert.ok("result" in outcome && jsonEqual(outcome.result as JsonValue, expected.result), describeMismatch(recorded, expected, outcome));
      } else {
        assert.ok("error" in outcome, describeMismatch(recorded, expected, outcome));
        assertSameError(recorded, expected.error, outcome.error);
      }
    });
  }

  it(`agrees on the random corpus (seed ${vectors.fuzz.seed})`, () => {
    const cases = fuzzCases(vectors.fuzz.seed, vectors.fuzz.counts);
    assert.equal(cases.length, vectors.fuzz.outcomes.length, "the generator changed: regenerate the vectors");
    const mismatches: string[] = [];
    let errors = 0;
    cases.forEach((c, index) => {
      const expected = vectors.fuzz.outcomes[index];
      assert.ok(expected !== undefined && expected.name === c.name, "the generator changed: regenerate the vectors");
      const outcome = run(c);
      if ("digest" in expected.kubectl) {
        if (!("result" in outcome) || digest(outcome.result as JsonObject) !== expected.kubectl.digest) {
          mismatches.push(`${c.name}: ${describeMismatch(c, { result: `digest ${expected.kubectl.digest}` }, outcome)}`);
        }
      } else {
        errors++;
        if (!("error" in outcome)) mismatches.push(`${c.name}: ${describeMismatch(c, expected.kubectl, outcome)}`);
      }
    });
    assert.deepEqual(mismatches, []);
    // The corpus must keep exercising failures as well as merges.
    assert.ok(errors > 50 && errors < cases.length - 200, `errors: ${errors}`);
  });
});
