// The Go compatibility helpers the strategic merge patch port relies on.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatFloat, goEqual, goFormatS, goFormatV, goSliceStable, goTypeString } from "./go.ts";

describe("fmt-compatible formatting", () => {
  it("%v of decoded JSON", () => {
    assert.equal(goFormatV({ b: [1, "x", null], a: { c: true } }), "map[a:map[c:true] b:[1 x <nil>]]");
    assert.equal(goFormatV([]), "[]");
    assert.equal(goFormatV(1.5), "1.5");
  });

  it("%s of non-strings", () => {
    assert.equal(goFormatS("merge"), "merge");
    assert.equal(goFormatS(5), "%!s(int64=5)");
    assert.equal(goFormatS(null), "%!s(<nil>)");
    assert.equal(goFormatS(true), "%!s(bool=true)");
  });

  it("floats as strconv.FormatFloat(f, 'g', -1, 64)", () => {
    assert.equal(formatFloat(0.5), "0.5");
    assert.equal(formatFloat(1234567.5), "1.2345675e+06");
    assert.equal(formatFloat(0.00001), "1e-05");
    assert.equal(formatFloat(0.0001), "0.0001");
  });

  it("reflect type names", () => {
    assert.equal(goTypeString({}), "map[string]interface {}");
    assert.equal(goTypeString([]), "[]interface {}");
    assert.equal(goTypeString(1), "int64");
    assert.equal(goTypeString(1.5), "float64");
    assert.equal(goTypeString(null), "%!s(<nil>)");
  });

  it("== on interfaces: type first, panic for maps and slices", () => {
    assert.equal(goEqual(1, 1), true);
    assert.equal(goEqual(1, 1.5), false);
    assert.equal(goEqual("1", 1), false);
    assert.equal(goEqual({}, "x"), false);
    assert.throws(() => goEqual({}, {}), /comparing uncomparable type map/);
  });
});

describe("goSliceStable", () => {
  it("is a stable sort for a strict weak order", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ key: fc.integer({ min: 0, max: 5 }), id: fc.nat() }), { maxLength: 90 }), (items) => {
        const ours = [...items];
        goSliceStable(ours, (a, b) => a.key < b.key);
        const reference = [...items].sort((a, b) => a.key - b.key);
        assert.deepEqual(ours, reference);
      }),
    );
  });

  it("follows Go's insertion sort for a comparator that is always true", () => {
    // With less() always true each element moves to the front of its block of 20, reversing it.
    const items = Array.from({ length: 5 }, (_, i) => i);
    goSliceStable(items, () => true);
    assert.deepEqual(items, [4, 3, 2, 1, 0]);
  });
});
