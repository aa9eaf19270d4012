import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toYaml } from "./yaml.ts";

describe("toYaml (vendor extensions in the protobuf /openapi/v2)", () => {
  it("writes the extension values kube-openapi publishes in go-yaml's block style", () => {
    assert.equal(toYaml([{ group: "", version: "v1", kind: "Status" }]), '- group: ""\n  version: v1\n  kind: Status\n');
    assert.equal(toYaml([{ group: "apps", version: "v1", kind: "StatefulSet" }, { group: "apps", version: "v1", kind: "Scale" }]), "- group: apps\n  version: v1\n  kind: StatefulSet\n- group: apps\n  version: v1\n  kind: Scale\n");
    assert.equal(toYaml("merge,retainKeys"), "merge,retainKeys\n");
    assert.equal(toYaml(["name"]), "- name\n");
    assert.equal(toYaml(true), "true\n");
    assert.equal(toYaml({ a: { b: [1, "x"] } }), "a:\n    b:\n        - 1\n        - x\n");
    assert.equal(toYaml({}), "{}\n");
    assert.equal(toYaml([]), "[]\n");
  });

  it("quotes strings that would read back as another type or break the layout", () => {
    for (const s of ["", "true", "no", "on", "~", "null", "1", "1.5", "0x1F", "1:20", ".inf", "a: b", "#c", "- x", "x ", "multi\nline", "é"]) {
      assert.equal(toYaml(s), `${JSON.stringify(s)}\n`, s);
    }
    assert.equal(toYaml({ "true": "v1" }), '"true": v1\n');
  });
});
