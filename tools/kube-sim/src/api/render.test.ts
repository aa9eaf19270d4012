// The Go renderings error messages are built from: strconv.Quote (%q), encoding/json strings, fmt %v of
// numbers, field.Error.Error() and the de-duplicating aggregate of apierrors.NewInvalid.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { aggregateMessage, invalid, notSupported, required } from "./field.ts";
import { invalidStatus } from "./index.ts";
import { goFormatNumber, goJson, goJsonString, goQuote } from "./json.ts";
import { regexError } from "./names.ts";
import { STATEFULSETS } from "./testing.ts";

describe("Go renderings", () => {
  for (const [input, expected] of [
    ["plain", '"plain"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["\n\t\r\x07\x00", '"\\n\\t\\r\\a\\x00"'],
    ["\x7f", '"\\x7f"'],
    ["é☺😀", '"é☺😀"'],
    ["\u00a0", '"\\u00a0"'],
    ["\u200b", '"\\u200b"'],
    ["\ud800", '"\ufffd"'],
  ] as const) {
    it(`strconv.Quote(${JSON.stringify(input)})`, () => assert.equal(goQuote(input), expected));
  }

  it("encoding/json escapes HTML characters and line separators", () => {
    assert.equal(goJsonString("<a&b>\u2028\b\f"), '"\\u003ca\\u0026b\\u003e\\u2028\\b\\f"');
    assert.equal(goJson({ b: [1, "x", null, true], a: {} }), '{"b":[1,"x",null,true],"a":{}}');
  });

  for (const [value, expected] of [
    [0, "0"],
    [-3, "-3"],
    [2147483648, "2147483648"],
    [0.5, "0.5"],
    [1234567.5, "1.2345675e+06"],
    [0.00001, "1e-05"],
    [0.0001, "0.0001"],
  ] as const) {
    it(`fmt %v of ${value}`, () => assert.equal(goFormatNumber(value), expected));
  }

  it("validation.RegexError joins examples the way upstream does (the double space is real)", () => {
    assert.equal(regexError("bad", "[a-z]+", "a", "b"), "bad (e.g. 'a',  or 'b', regex used for validation is '[a-z]+')");
    assert.equal(regexError("bad", "[a-z]+"), "bad (regex used for validation is '[a-z]+')");
  });
});

describe("field errors and their aggregate", () => {
  it("renders each error type", () => {
    assert.equal(invalid("spec.replicas", -1, "must be greater than or equal to 0").message, "Invalid value: -1: must be greater than or equal to 0");
    assert.equal(invalid("metadata.name", "a b", "bad").message, 'Invalid value: "a b": bad');
    assert.equal(required("spec.selector").message, "Required value");
    assert.equal(notSupported("spec.podManagementPolicy", "X", ["OrderedReady", "Parallel"]).message, 'Unsupported value: "X": supported values: "OrderedReady", "Parallel"');
  });

  it("one error alone, several bracketed, repeats once", () => {
    const a = required("spec.selector");
    const b = invalid("spec.replicas", -1, "must be greater than or equal to 0");
    assert.equal(aggregateMessage([a]), "spec.selector: Required value");
    assert.equal(aggregateMessage([a, a]), "spec.selector: Required value");
    assert.equal(aggregateMessage([a, b, a]), "[spec.selector: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]");
  });

  it("NewInvalid: group in details, name %q-quoted, causes kept even when repeated", () => {
    const a = required("spec.selector");
    const status = invalidStatus(STATEFULSETS, "web", [a, a]);
    assert.equal(status["message"], 'StatefulSet.apps "web" is invalid: spec.selector: Required value');
    assert.deepEqual(status["details"], {
      name: "web",
      group: "apps",
      kind: "StatefulSet",
      causes: [
        { reason: "FieldValueRequired", message: "Required value", field: "spec.selector" },
        { reason: "FieldValueRequired", message: "Required value", field: "spec.selector" },
      ],
    });
    assert.equal(invalidStatus(STATEFULSETS, "web", [])["message"], 'StatefulSet.apps "web" is invalid');
    assert.equal(invalidStatus(STATEFULSETS, "web", [a], "scale")["message"], 'Scale.autoscaling "web" is invalid: spec.selector: Required value');
  });
});
