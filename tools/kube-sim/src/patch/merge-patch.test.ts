// JSON merge patch: RFC 7386 appendix A, the evanphx/json-patch v4 MergePatch behaviours kube-apiserver uses
// (evanphx merge_test.go), and the round-trip property with createMergePatch.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { PatchError, applyPatch, createMergePatch } from "./index.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { expectPatchError } from "./testing.ts";
import { cloneJson } from "./json.ts";

const KIND = { apiVersion: "v1", kind: "ConfigMap" };

function merge(target: JsonObject, patch: JsonValue): JsonValue {
  return applyPatch("merge", target, patch, KIND) as JsonValue;
}

function failure(target: JsonObject, patch: JsonValue): PatchError {
  return expectPatchError(() => merge(target, patch));
}

describe("JSON merge patch: RFC 7386 appendix A", () => {
  const examples: [JsonObject, JsonValue, JsonValue][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, expected] of examples) {
    it(`${JSON.stringify(target)} + ${JSON.stringify(patch)} = ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(merge(target, patch), expected);
    });
  }
});

describe("JSON merge patch: evanphx v4 (what kube-apiserver runs)", () => {
  it("null and scalar patches are a 400 Invalid JSON Patch (the RFC would return them as the document)", () => {
    for (const patch of [null, "bar", 1, true]) {
      const error = failure({ a: "foo" }, patch);
      assert.equal(error.httpStatus, 400);
      assert.equal(error.message, "Invalid JSON Patch");
    }
  });

  it("an array patch replaces the document, which then is not an object: 422", () => {
    const error = failure({ a: 1 }, ["c"]);
    assert.equal(error.httpStatus, 422);
    assert.equal(error.reason, "Invalid");
    assert.match(error.message, /^ "" is invalid: patch: Invalid value: "\[\\"c\\"\]": couldn't get version\/kind/);
    assert.equal(error.details?.causes?.[0]?.field, "patch");
  });

  it("prunes null members of stored values, also inside arrays, but keeps null array elements", () => {
    assert.deepEqual(merge({}, { a: [1, null, { b: null, c: 2 }] }), { a: [1, null, { c: 2 }] });
    assert.deepEqual(merge({ a: 1 }, { a: { b: null, c: { d: null } } }), { a: { c: {} } });
    // An object replaced by a non-object keeps the patch value exactly.
    assert.deepEqual(merge({ a: { b: 1 } }, { a: [{ x: null }] }), { a: [{ x: null }] });
  });

  it("kubectl label and scale send merge patches", () => {
    assert.deepEqual(merge({ metadata: { labels: { a: "1", b: "2" } } }, { metadata: { labels: { a: null, c: "3" } } }), { metadata: { labels: { b: "2", c: "3" } } });
    assert.deepEqual(merge({ spec: { replicas: 1, x: 1 } }, { spec: { replicas: 5 } }), { spec: { replicas: 5, x: 1 } });
  });
});

/** JSON without null anywhere: the only values a merge patch cannot express. */
const noNulls: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ maxLength: 4 }),
    fc.integer(),
    fc.boolean(),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie("value"), { maxKeys: 4 }),
  ),
})).value;
const objectNoNulls = fc.dictionary(fc.string({ maxLength: 3 }), noNulls, { maxKeys: 5 });

describe("JSON merge patch properties", () => {
  it("merge(a, createMergePatch(a, b)) == b for any a and any null-free b", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }), objectNoNulls, (a, b) => {
        const original = cloneJson(a) as JsonObject;
        const modified = cloneJson(b) as JsonObject;
        assert.deepEqual(merge(original, createMergePatch(original, modified)), modified);
      }),
      { numRuns: 500 },
    );
  });

  it("createMergePatch of equal documents is empty, and merging {} changes nothing", () => {
    fc.assert(
      fc.property(objectNoNulls, (a) => {
        const doc = cloneJson(a) as JsonObject;
        assert.deepEqual(createMergePatch(doc, cloneJson(doc) as JsonObject), {});
        assert.deepEqual(merge(doc, {}), doc);
      }),
    );
  });

  it("never mutates its inputs and fails only with PatchError", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 3 })), fc.jsonValue({ maxDepth: 4 }), (target, patch) => {
        const targetBefore = cloneJson(target);
        const patchBefore = cloneJson(patch);
        try {
          merge(target as JsonObject, patch as JsonValue);
        } catch (error) {
          assert.ok(error instanceof PatchError, String(error));
        }
        assert.deepEqual(cloneJson(target), targetBefore);
        assert.deepEqual(cloneJson(patch), patchBefore);
      }),
      { numRuns: 300 },
    );
  });
});
