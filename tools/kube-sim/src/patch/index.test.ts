// The public surface: content-type negotiation, the Status bodies, robustness against any input.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { PatchType } from "./index.ts";
import { PATCH_CONTENT_TYPES, PatchError, applyPatch, patchTypeFromContentType, unsupportedPatchMediaType } from "./index.ts";
import type { JsonObject } from "./json.ts";

const POD = { apiVersion: "v1", kind: "Pod" };
const TYPES: PatchType[] = ["json", "merge", "strategic"];

describe("patchTypeFromContentType", () => {
  it("maps the three patch media types, ignoring parameters", () => {
    assert.equal(patchTypeFromContentType("application/json-patch+json"), "json");
    assert.equal(patchTypeFromContentType("application/merge-patch+json; charset=utf-8"), "merge");
    assert.equal(patchTypeFromContentType("application/strategic-merge-patch+json;charset=UTF-8"), "strategic");
    for (const type of TYPES) assert.equal(patchTypeFromContentType(PATCH_CONTENT_TYPES[type]), type);
  });

  it("compares exactly like the apiserver: no trimming, case-sensitive, no apply or plain JSON", () => {
    for (const contentType of [
      undefined,
      "",
      "application/json",
      "application/apply-patch+yaml",
      "Application/Merge-Patch+JSON",
      "application/merge-patch+json ; charset=utf-8",
      ";application/merge-patch+json",
    ]) {
      assert.equal(patchTypeFromContentType(contentType), undefined, String(contentType));
    }
  });

  it("the 415 lists the accepted types", () => {
    const error = unsupportedPatchMediaType();
    assert.equal(error.httpStatus, 415);
    assert.deepEqual(error.toStatus(), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
      reason: "UnsupportedMediaType",
      code: 415,
    });
  });
});

describe("applyPatch", () => {
  it("returns a new object and leaves the target alone", () => {
    const target = { ...POD, metadata: { name: "p", labels: { a: "1" } }, spec: { containers: [{ name: "c" }] } };
    const before = JSON.stringify(target);
    for (const type of TYPES) {
      const patch = type === "json" ? [{ op: "add", path: "/metadata/labels/b", value: "2" }] : { metadata: { labels: { b: "2" } } };
      const out = applyPatch(type, target, patch, POD) as JsonObject;
      assert.deepEqual((out["metadata"] as JsonObject)["labels"], { a: "1", b: "2" });
      assert.notEqual(out, target);
    }
    assert.equal(JSON.stringify(target), before);
  });

  it("treats __proto__ and other Object.prototype names as plain members", () => {
    const target = JSON.parse('{"metadata":{"labels":{"constructor":"x"}}}') as JsonObject;
    const out = applyPatch("strategic", target, JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":true},"toString":"y"}}}'), POD) as JsonObject;
    const labels = (out["metadata"] as JsonObject)["labels"] as JsonObject;
    assert.deepEqual(Object.keys(labels).sort(), ["__proto__", "constructor", "toString"]);
    assert.equal(Object.getPrototypeOf(labels), Object.prototype);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    const merged = applyPatch("merge", target, JSON.parse('{"__proto__":{"a":1}}'), POD) as JsonObject;
    assert.equal(JSON.stringify(merged), '{"metadata":{"labels":{"constructor":"x"}},"__proto__":{"a":1}}');
  });

  it("rejects a patch that is not JSON with 400 and a target that is not a JSON object with 500", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    for (const patch of [Number.NaN, () => 1, Symbol("x"), 10n, new Date(0), cyclic]) {
      assert.throws(() => applyPatch("merge", {}, patch, POD), (error) => error instanceof PatchError && error.httpStatus === 400);
    }
    for (const target of [null, [], "x", new Map()]) {
      assert.throws(() => applyPatch("merge", target, {}, POD), (error) => error instanceof PatchError && error.httpStatus === 500);
    }
  });

  it("drops undefined members as JSON.stringify does", () => {
    assert.deepEqual(applyPatch("merge", { a: 1, b: undefined }, { c: undefined, d: 2 }, POD), { a: 1, d: 2 });
  });

  it("any garbage patch yields a result or a PatchError, never another exception", () => {
    const target = {
      ...POD,
      metadata: { name: "p", finalizers: ["a"], ownerReferences: [{ uid: "u" }] },
      spec: { containers: [{ name: "c", env: [{ name: "A" }] }], volumes: [] },
    };
    const directives = fc.constantFrom("$patch", "$retainKeys", "$setElementOrder/containers", "$deleteFromPrimitiveList/finalizers", "containers", "finalizers", "name");
    const garbage = fc.oneof(
      fc.anything({ maxDepth: 4, withNullPrototype: true, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true }),
      fc.jsonValue({ maxDepth: 5 }),
      fc.dictionary(directives, fc.jsonValue({ maxDepth: 3 })).map((spec) => ({ spec, metadata: spec })),
    );
    fc.assert(
      fc.property(fc.constantFrom<PatchType>(...TYPES), garbage, (type, patch) => {
        try {
          const out = applyPatch(type, target, patch, POD);
          assert.equal(typeof out, "object");
        } catch (error) {
          assert.ok(error instanceof PatchError, `${String(error)}`);
          assert.equal(error.toStatus().code, error.httpStatus);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
