// Selector grammar and matching, after k8s.io/apimachinery/pkg/labels TestParse / TestRequirementMatches
// and pkg/fields TestSelectorParse.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  SelectorParseError,
  labelSelectorToRequirements,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  requirementsToString,
} from "./selectors.ts";

const labels = { app: "web", tier: "db", n: "7" };
const match = (selector: string) => matchesLabels(parseLabelSelector(selector), labels);

describe("label selectors", () => {
  it("supports =, ==, !=, in, notin, exists, !exists, gt and lt", () => {
    assert.equal(match(""), true);
    assert.equal(match("app=web"), true);
    assert.equal(match("app==web"), true);
    assert.equal(match("app!=web"), false);
    assert.equal(match("missing!=x"), true, "!= matches objects without the label");
    assert.equal(match("app in (api, web)"), true);
    assert.equal(match("app notin (api,web)"), false);
    assert.equal(match("missing notin (a)"), true);
    assert.equal(match("tier"), true);
    assert.equal(match("!tier"), false);
    assert.equal(match("!missing"), true);
    assert.equal(match("n>5,n<8"), true);
    assert.equal(match("n>7"), false);
    assert.equal(match("app=web,tier in (db),!missing"), true);
    assert.equal(match("app in ()"), false);
  });

  it("rejects malformed selectors with a parse error", () => {
    for (const bad of ["app=we b", "a in", "=x", "app=web,", "-bad=1", "n>x"]) {
      assert.throws(() => parseLabelSelector(bad), SelectorParseError, bad);
    }
  });

  it("turns a LabelSelector into the string form the Scale subresource reports", () => {
    const reqs = labelSelectorToRequirements({ matchLabels: { tier: "t", app: "s" }, matchExpressions: [{ key: "env", operator: "In", values: ["b", "a"] }, { key: "x", operator: "DoesNotExist" }] });
    assert.equal(requirementsToString(reqs), "!x,app=s,env in (a,b),tier=t");
  });

  it("round-trips equality selectors (property)", () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
    const value = fc.stringMatching(/^[a-z0-9]{0,8}$/);
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 5 }), (set) => {
        const selector = Object.entries(set).map(([k, v]) => `${k}=${v}`).join(",");
        assert.equal(matchesLabels(parseLabelSelector(selector), set), true);
      }),
    );
  });
});

describe("field selectors", () => {
  const allowed = new Set(["metadata.name", "status.phase"]);
  it("matches = and != and unescapes values", () => {
    const fields = { "metadata.name": "a,b", "status.phase": "Running" };
    assert.equal(matchesFields(parseFieldSelector("metadata.name=a\\,b", allowed), fields), true);
    assert.equal(matchesFields(parseFieldSelector("status.phase!=Running", allowed), fields), false);
    assert.equal(matchesFields(parseFieldSelector("status.phase==Running,metadata.name!=x", allowed), fields), true);
  });

  it("refuses fields the resource does not index, with the apiserver's message", () => {
    assert.throws(() => parseFieldSelector("spec.foo=1", allowed), { message: "field label not supported: spec.foo" });
    assert.throws(() => parseFieldSelector("nonsense", allowed), SelectorParseError);
  });
});
