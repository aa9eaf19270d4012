import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Path, PathElement } from "./fieldpath.ts";
import { FieldSet, FieldsV1Error, field, pathString, serializePathElement } from "./fieldpath.ts";

const key = (fields: Record<string, string | number>): PathElement => ({
  kind: "key",
  fields: Object.keys(fields)
    .sort()
    .map((name) => ({ name, value: fields[name] ?? null })),
});

describe("FieldsV1 encoding", () => {
  it("writes `.` first for a path that is a member and has children, then elements in upstream's order", () => {
    const set = FieldSet.of(
      [field("spec"), field("template"), field("spec"), field("containers"), key({ name: "c" })],
      [field("spec"), field("template"), field("spec"), field("containers"), key({ name: "c" }), field("image")],
      [field("spec"), field("template"), field("spec"), field("containers"), key({ name: "c" }), field("name")],
      [field("metadata"), field("labels")],
      [field("metadata"), field("labels"), field("app")],
      [field("spec"), field("replicas")],
    );
    assert.equal(
      set.toJson(),
      '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}}}}}}',
    );
  });

  it("encodes list-map keys as compact JSON with the key fields sorted, values with v:, indexes with i:", () => {
    assert.equal(serializePathElement(key({ protocol: "TCP", containerPort: 80 })), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(serializePathElement({ kind: "value", value: "kubernetes.io/pvc-protection" }), 'v:"kubernetes.io/pvc-protection"');
    assert.equal(serializePathElement({ kind: "index", index: 3 }), "i:3");
    // Field names < keys < values < indexes (PathElement.Compare).
    const set = FieldSet.of([{ kind: "index", index: 0 }], [{ kind: "value", value: 1 }], [key({ a: "x" })], [field("z")]);
    assert.equal(set.toJson(), '{"f:z":{},"k:{\\"a\\":\\"x\\"}":{},"v:1":{},"i:0":{}}');
  });

  it("reads upstream's golden example back byte for byte", () => {
    const golden = `{"f:spec":{".":{},"f:apps":{".":{},"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port 🔑\\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}}`;
    assert.equal(FieldSet.fromFieldsV1(JSON.parse(golden)).toJson(), golden);
  });

  it("drops unknown element types, rejects malformed keys", () => {
    assert.equal(FieldSet.fromFieldsV1({ "x:future": {}, "f:a": {} }).toJson(), '{"f:a":{}}');
    assert.throws(() => FieldSet.fromFieldsV1({ "k:{not json": {} }), FieldsV1Error);
    assert.throws(() => FieldSet.fromFieldsV1({ f: {} }), FieldsV1Error);
    assert.throws(() => FieldSet.fromFieldsV1({ "i:x": {} }), FieldsV1Error);
  });

  it("prints paths as conflict messages do", () => {
    const p: Path = [field("spec"), field("containers"), key({ name: "c", port: 80 }), field("image"), { kind: "value", value: "x" }, { kind: "index", index: 2 }];
    assert.equal(pathString(p), '.spec.containers[name="c",port=80].image[="x"][2]');
  });
});

const element: fc.Arbitrary<PathElement> = fc.oneof(
  fc.constantFrom("a", "b", "spec", "f:x", "名").map(field),
  fc.record({ name: fc.constantFrom("a", "b", "c"), port: fc.integer({ min: 0, max: 3 }) }).map(key),
  fc.oneof(fc.constantFrom("x", "y"), fc.integer({ min: 0, max: 2 }), fc.boolean()).map((value): PathElement => ({ kind: "value", value })),
  fc.integer({ min: 0, max: 3 }).map((index): PathElement => ({ kind: "index", index })),
);
const paths = fc.array(fc.array(element, { minLength: 1, maxLength: 4 }), { maxLength: 12 });

describe("FieldSet properties", () => {
  it("FieldsV1 round-trips every set, and encoding is canonical", () => {
    fc.assert(
      fc.property(paths, (ps) => {
        const set = FieldSet.of(...ps);
        const back = FieldSet.fromFieldsV1(set.toFieldsV1());
        assert.ok(back.equals(set));
        assert.equal(back.toJson(), set.toJson());
        for (const p of ps) assert.ok(back.has(p));
      }),
    );
  });

  it("union, difference and intersection agree with the sets of paths", () => {
    fc.assert(
      fc.property(paths, paths, (xs, ys) => {
        const a = FieldSet.of(...xs);
        const b = FieldSet.of(...ys);
        const names = (s: FieldSet) => new Set(s.paths().map((p) => p.map(serializePathElement).join("\u0000")));
        const an = names(a);
        const bn = names(b);
        assert.deepEqual(names(a.union(b)), new Set([...an, ...bn]));
        assert.deepEqual(names(a.difference(b)), new Set([...an].filter((p) => !bn.has(p))));
        assert.deepEqual(names(a.intersection(b)), new Set([...an].filter((p) => bn.has(p))));
      }),
    );
  });
});
