// JSON patch: RFC 6902 appendix A, the evanphx/json-patch v4 behaviours kube-apiserver inherits
// (evanphx patch_test.go), the apiserver's statuses (handlers/patch.go) and properties.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { MAX_JSON_PATCH_OPERATIONS, PatchError, applyPatch } from "./index.ts";
import type { JsonObject, JsonValue } from "./json.ts";
import { expectPatchError } from "./testing.ts";
import { cloneJson } from "./json.ts";

const KIND = { apiVersion: "v1", kind: "ConfigMap" };

function apply(target: JsonObject, patch: JsonValue): JsonObject {
  return applyPatch("json", target, patch, KIND) as JsonObject;
}

function failure(target: JsonObject, patch: JsonValue): PatchError {
  return expectPatchError(() => apply(target, patch));
}

describe("JSON patch: RFC 6902 appendix A", () => {
  it("A.1 adds an object member and A.2 an array element", () => {
    assert.deepEqual(apply({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }]), { foo: "bar", baz: "qux" });
    assert.deepEqual(apply({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }]), { foo: ["bar", "qux", "baz"] });
  });

  it("A.3/A.4 remove, A.5 replace", () => {
    assert.deepEqual(apply({ baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }]), { foo: "bar" });
    assert.deepEqual(apply({ foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }]), { foo: ["bar", "baz"] });
    assert.deepEqual(apply({ baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }]), { baz: "boo", foo: "bar" });
  });

  it("A.6/A.7 move", () => {
    assert.deepEqual(
      apply({ foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } }, [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }]),
      { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
    );
    assert.deepEqual(apply({ foo: ["all", "grass", "cows", "eat"] }, [{ op: "move", from: "/foo/1", path: "/foo/3" }]), {
      foo: ["all", "cows", "eat", "grass"],
    });
  });

  it("A.8 test succeeds, A.9 fails, A.14 unescapes ~01 as ~1, A.15 never equates strings and numbers", () => {
    const doc = { baz: "qux", foo: ["a", 2, "c"], "/": 9, "~1": 10 };
    assert.deepEqual(apply(doc, [{ op: "test", path: "/baz", value: "qux" }, { op: "test", path: "/foo/1", value: 2 }, { op: "test", path: "/~01", value: 10 }]), doc);
    assert.equal(failure(doc, [{ op: "test", path: "/baz", value: "bar" }]).detail, "testing value /baz failed: test failed");
    assert.equal(failure(doc, [{ op: "test", path: "/~01", value: "10" }]).httpStatus, 422);
  });

  it("A.10 adds a nested member, A.12 cannot add below a missing member, A.16 appends with -", () => {
    assert.deepEqual(apply({ foo: "bar" }, [{ op: "add", path: "/child", value: { grandchild: {} } }]), { foo: "bar", child: { grandchild: {} } });
    assert.equal(failure({ foo: "bar" }, [{ op: "add", path: "/baz/bat", value: "qux" }]).detail, 'add operation does not apply: doc is missing path: "/baz/bat": missing value');
    assert.deepEqual(apply({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: ["abc", "def"] }]), { foo: ["bar", ["abc", "def"]] });
  });
});

describe("JSON patch: evanphx/json-patch v4.12 behaviour", () => {
  it("replace of a missing object member adds it; of a missing index fails", () => {
    assert.deepEqual(apply({ data: {} }, [{ op: "replace", path: "/data/x", value: 1 }]), { data: { x: 1 } });
    assert.equal(failure({ arr: [1] }, [{ op: "replace", path: "/arr/5", value: 1 }]).detail, "replace operation does not apply: doc is missing key: /arr/5: missing value");
  });

  it("negative indices count from the end; add at -1 appends", () => {
    assert.deepEqual(apply({ arr: [1, 2, 3] }, [{ op: "add", path: "/arr/-1", value: 9 }]), { arr: [1, 2, 3, 9] });
    assert.deepEqual(apply({ arr: [1, 2, 3] }, [{ op: "remove", path: "/arr/-1" }]), { arr: [1, 2] });
    assert.deepEqual(apply({ arr: [1, 2, 3] }, [{ op: "replace", path: "/arr/-3", value: 0 }]), { arr: [0, 2, 3] });
  });

  it("a missing value adds null, copying a missing member copies null", () => {
    assert.deepEqual(apply({}, [{ op: "add", path: "/a" }]), { a: null });
    assert.deepEqual(apply({ a: {} }, [{ op: "copy", from: "/a/missing", path: "/b" }]), { a: {}, b: null });
  });

  it("copies are independent of their source", () => {
    const out = apply({ a: { x: [1] } }, [{ op: "copy", from: "/a", path: "/b" }, { op: "add", path: "/b/x/-", value: 2 }]);
    assert.deepEqual(out, { a: { x: [1] }, b: { x: [1, 2] } });
  });

  it("test of a missing member passes only against null", () => {
    assert.deepEqual(apply({ a: 1 }, [{ op: "test", path: "/b", value: null }]), { a: 1 });
    assert.equal(failure({ a: 1 }, [{ op: "test", path: "/b", value: 0 }]).httpStatus, 422);
    assert.equal(failure({ a: 1 }, [{ op: "test", path: "/b" }]).httpStatus, 422);
  });

  it("applies all operations or none", () => {
    const target = { a: 1 };
    failure(target, [{ op: "add", path: "/b", value: 2 }, { op: "test", path: "/a", value: 2 }]);
    assert.deepEqual(target, { a: 1 });
  });

  it("escapes, the root path and the path without a leading slash", () => {
    assert.deepEqual(apply({}, [{ op: "add", path: "/a~1b~0c", value: 1 }]), { "a/b~c": 1 });
    assert.equal(failure({}, [{ op: "add", path: "", value: {} }]).httpStatus, 422);
    assert.deepEqual(apply({ data: {} }, [{ op: "add", path: "data/z", value: 1 }]), { data: {}, z: 1 });
  });
});

describe("JSON patch: statuses (k8s.io/apiserver handlers/patch.go)", () => {
  it("a patch that is not a list of operations is a 400 with the decode error", () => {
    const cases: [JsonValue, string][] = [
      [{ op: "add" }, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"],
      ["x", "json: cannot unmarshal string into Go value of type jsonpatch.Patch"],
      [[1], "json: cannot unmarshal number into Go value of type jsonpatch.Operation"],
    ];
    for (const [patch, message] of cases) {
      const error = failure({}, patch);
      assert.equal(error.httpStatus, 400);
      assert.equal(error.reason, "BadRequest");
      assert.equal(error.message, message);
    }
  });

  it("null is no operation at all", () => {
    assert.deepEqual(apply({ a: 1 }, null), { a: 1 });
  });

  it("an operation that does not apply is a 422 whose message does not say why", () => {
    const error = failure({}, [{ op: "remove", path: "/nope" }]);
    assert.equal(error.httpStatus, 422);
    assert.equal(error.reason, "Invalid");
    assert.equal(error.message, "the server rejected our request due to an error in our request");
    assert.equal(error.detail, "error in remove for path: '/nope': Unable to remove nonexistent key: nope: missing value");
    assert.deepEqual(error.toStatus(), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server rejected our request due to an error in our request",
      reason: "Invalid",
      details: {},
      code: 422,
    });
  });

  it("unknown and missing ops are 422 too", () => {
    assert.equal(failure({}, [{ op: "frob", path: "/a" }]).detail, "Unexpected kind: frob");
    assert.equal(failure({}, [null]).detail, "Unexpected kind: unknown");
    assert.equal(failure({}, [{ op: "remove" }]).detail, "remove operation failed to decode path: missing value");
  });

  it(`more than ${MAX_JSON_PATCH_OPERATIONS} operations is a 413`, () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: "test", path: "/a", value: 1 }));
    const error = failure({ a: 1 }, ops);
    assert.equal(error.httpStatus, 413);
    assert.equal(error.reason, "RequestEntityTooLarge");
    assert.equal(error.message, "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001");
    assert.deepEqual(apply({ a: 1 }, ops.slice(1)), { a: 1 });
  });
});

describe("JSON patch properties", () => {
  const path = fc.constantFrom("", "/", "/a", "/a/b", "/a/0", "/a/-", "/b", "/b/1", "/c/~0/x", "/__proto__", "/a/-1", "x/y");
  const op = fc.record(
    {
      op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"),
      path,
      from: path,
      value: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: ["op"] },
  );
  const doc = fc.dictionary(fc.constantFrom("a", "b", "c", "__proto__"), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });

  it("never mutates its inputs and fails only with PatchError", () => {
    fc.assert(
      fc.property(doc, fc.array(op, { maxLength: 6 }), (target, patch) => {
        const targetBefore = cloneJson(target);
        const patchBefore = cloneJson(patch);
        try {
          apply(target as JsonObject, patch as JsonValue);
        } catch (error) {
          assert.ok(error instanceof PatchError, String(error));
          assert.ok([400, 413, 422, 500].includes(error.httpStatus));
        }
        assert.deepEqual(cloneJson(target), targetBefore);
        assert.deepEqual(cloneJson(patch), patchBefore);
      }),
      { numRuns: 500 },
    );
  });

  it("add then remove of a new member is the identity", () => {
    fc.assert(
      fc.property(doc, fc.jsonValue({ maxDepth: 3 }), (target, value) => {
        fc.pre(!Object.hasOwn(target, "new"));
        const out = apply(target as JsonObject, [{ op: "add", path: "/new", value: value as JsonValue }, { op: "remove", path: "/new" }]);
        assert.deepEqual(out, cloneJson(target));
      }),
    );
  });
});
