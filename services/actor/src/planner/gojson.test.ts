import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GoJsonError, goJsonMarshal } from "./gojson.ts";

describe("goJsonMarshal (Go encoding/json of interface{} values)", () => {
  it("sorts map keys at every level and keeps array order", () => {
    assert.equal(goJsonMarshal({ b: 1, a: { d: [3, 1], c: null } }), '{"a":{"c":null,"d":[3,1]},"b":1}');
  });

  it("sorts keys by UTF-8 bytes, not UTF-16 units", () => {
    // U+FF21 (3 UTF-8 bytes, EF BC A1) sorts before U+1F600 (F0 9F 98 80) in Go; in UTF-16 units the emoji's
    // high surrogate D83D sorts first.
    const emoji = "\u{1F600}";
    assert.equal(goJsonMarshal({ [emoji]: 1, "\uff21": 2 }), `{"\uff21":2,"${emoji}":1}`);
  });

  it("escapes like Go with HTML escaping on", () => {
    assert.equal(goJsonMarshal("a<b>&c"), '"a\\u003cb\\u003e\\u0026c"');
    assert.equal(goJsonMarshal("\u2028\u2029"), '"\\u2028\\u2029"');
    assert.equal(goJsonMarshal('q"\\'), '"q\\"\\\\"');
    assert.equal(goJsonMarshal("\n\r\t\b\f"), '"\\n\\r\\t\\b\\f"');
    assert.equal(goJsonMarshal("\u0001\u001f\u007f"), '"\\u0001\\u001f\u007f"');
    assert.equal(goJsonMarshal("é\u{1F600}"), '"é\u{1F600}"');
  });

  it("writes an unpaired surrogate as U+FFFD, as Go decoded it", () => {
    assert.equal(goJsonMarshal("a\ud800b"), '"a\ufffdb"');
    assert.equal(goJsonMarshal("\udc00"), '"\ufffd"');
  });

  it("formats numbers like strconv.FormatFloat(f, 'f'|'e', -1, 64)", () => {
    assert.equal(goJsonMarshal([30, 0.5, -1.25, 1e20, 1e21, 1.5e-7, 0.000001, 123456789.125, -0]), "[30,0.5,-1.25,100000000000000000000,1e+21,1.5e-7,0.000001,123456789.125,-0]");
  });

  it("renders null, booleans and skips undefined members", () => {
    assert.equal(goJsonMarshal({ a: true, b: false, c: null, d: undefined }), '{"a":true,"b":false,"c":null}');
  });

  it("rejects values JSON cannot carry", () => {
    assert.throws(() => goJsonMarshal({ a: [Number.NaN] }), (error: unknown) => error instanceof GoJsonError && error.path === "$.a[0]");
    assert.throws(() => goJsonMarshal({ a: 1n }), GoJsonError);
  });
});
