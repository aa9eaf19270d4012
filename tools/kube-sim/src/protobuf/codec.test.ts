// The codec on small tables of its own: wire details (field order, varints, packed decode, length shifts), the
// special types' JSON forms, and the errors for unknown fields and keys.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  JsonTypeError,
  ProtobufCodec,
  UnknownFieldError,
  UnknownJsonFieldError,
  UnknownMessageError,
  WireFormatError,
  formatGoDuration,
  parseGoDuration,
  parseRfc3339,
} from "./codec.ts";
import { KubeProtobuf, PROTOBUF_MAGIC, WatchFrameReader } from "./envelope.ts";
import type { SchemaTable } from "./schema/types.ts";

const TABLE: SchemaTable = {
  "meta.v1.ObjectMeta": {
    fields: [
      { json: "name", no: 1, type: "string" },
      { json: "namespace", no: 3, type: "string" },
      { json: "generation", no: 7, type: "int64" },
      { json: "creationTimestamp", no: 8, type: "meta.v1.Time" },
      { json: "deletionGracePeriodSeconds", no: 10, type: "int64", keepZero: true },
      { json: "labels", no: 11, type: "string", map: true },
      { json: "finalizers", no: 14, type: "string", repeated: true },
    ],
  },
  "test.v1.Thing": {
    fields: [
      { json: "metadata", no: 1, type: "meta.v1.ObjectMeta" },
      { json: "spec", no: 2, type: "test.v1.ThingSpec" },
    ],
  },
  "test.v1.ThingSpec": {
    fields: [
      { json: "replicas", no: 1, type: "int32", keepZero: true },
      { json: "paused", no: 2, type: "bool" },
      { json: "ratio", no: 3, type: "double" },
      { json: "weight", no: 4, type: "float" },
      { json: "ports", no: 5, type: "int32", repeated: true },
      { json: "data", no: 6, type: "bytes" },
      { json: "binary", no: 7, type: "bytes", map: true },
      { json: "limits", no: 8, type: "resource.Quantity", map: true },
      { json: "target", no: 9, type: "intstr.IntOrString" },
      { json: "raw", no: 10, type: "runtime.RawExtension" },
      { json: "fields", no: 11, type: "meta.v1.FieldsV1" },
      { json: "renewTime", no: 12, type: "meta.v1.MicroTime" },
      { json: "timeout", no: 13, type: "meta.v1.Duration" },
      { json: "children", no: 14, type: "test.v1.ThingSpec", repeated: true },
      { json: "offset", no: 15, type: "int64" },
      { json: "note", no: 16, type: "string" },
      { json: "size", no: 17, type: "resource.Quantity" },
      { json: "tags", no: 18, type: "string", repeated: true },
      { json: "lastProbeTime", no: 19, type: "meta.v1.Time" },
      { json: "missing", no: 20, type: "test.v1.Nowhere" },
      { json: "selector", no: 21, type: "test.v1.KeySelector" },
    ],
  },
  // `json: ""`: an inlined embedded struct (ConfigMapKeySelector's LocalObjectReference).
  "test.v1.KeySelector": {
    fields: [
      { json: "", no: 1, type: "test.v1.LocalRef" },
      { json: "key", no: 2, type: "string", keepZero: true },
    ],
  },
  "test.v1.LocalRef": { fields: [{ json: "name", no: 1, type: "string" }] },
  "test.v1.ThingList": {
    fields: [
      { json: "metadata", no: 1, type: "test.v1.ListMeta" },
      { json: "items", no: 2, type: "test.v1.Thing", repeated: true },
    ],
  },
  "test.v1.ListMeta": {
    fields: [
      { json: "resourceVersion", no: 2, type: "string" },
      { json: "continue", no: 3, type: "string" },
      { json: "remainingItemCount", no: 4, type: "int64" },
    ],
  },
};

const codec = new ProtobufCodec([TABLE], { typeMetaMessages: ["test.v1.Thing", "test.v1.ThingList"] });

function roundTrip(name: string, json: Record<string, unknown>): Record<string, unknown> {
  return codec.decode(name, codec.encode(name, json));
}

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

describe("protobuf codec", () => {
  it("writes fields in ascending field number whatever the JSON order", () => {
    const bytes = codec.encode("meta.v1.ObjectMeta", { namespace: "ns", name: "a" });
    assert.equal(hex(bytes), "0a0161" + "1a026e73");
  });

  it("round-trips scalars, maps, repeated fields and nested messages", () => {
    const obj = {
      metadata: { name: "web-0", namespace: "default", generation: 3, labels: { app: "web", "": "empty-key", k: "" }, finalizers: ["a", "", "b"] },
      spec: { replicas: 0, paused: true, ratio: 0.25, weight: 1.5, ports: [80, 443, -1], offset: -5_000_000_000, note: "héllo wörld ✓" },
    };
    assert.deepEqual(roundTrip("test.v1.Thing", obj), obj);
  });

  it("drops zero scalars read from the wire unless the field keeps zeros", () => {
    // What Go writes for a spec with every non-pointer field at its zero value.
    const bytes = Buffer.from([0x08, 0x00, 0x10, 0x00, 0x82, 0x01, 0x00, 0x78, 0x00]);
    assert.deepEqual(codec.decode("test.v1.ThingSpec", bytes), { replicas: 0 });
    // ...and a zero in JSON is written (and kept where the field keeps zeros).
    assert.deepEqual(roundTrip("meta.v1.ObjectMeta", { deletionGracePeriodSeconds: 0, generation: 0 }), { deletionGracePeriodSeconds: 0 });
  });

  it("reads packed and unpacked repeated scalars", () => {
    const unpacked = Buffer.from([0x28, 0x50, 0x28, 0xbb, 0x03]);
    const packed = Buffer.from([0x2a, 0x03, 0x50, 0xbb, 0x03]);
    assert.deepEqual(codec.decode("test.v1.ThingSpec", unpacked), { ports: [80, 443] });
    assert.deepEqual(codec.decode("test.v1.ThingSpec", packed), { ports: [80, 443] });
    assert.deepEqual(codec.decode("test.v1.ThingSpec", Buffer.concat([unpacked, packed])), { ports: [80, 443, 80, 443] });
  });

  it("writes maps as entry messages {key = 1, value = 2}", () => {
    assert.equal(hex(codec.encode("meta.v1.ObjectMeta", { labels: { a: "b" } })), "5a06" + "0a0161" + "120162");
  });

  it("writes negative int32 and int64 as ten-byte varints and reads them back", () => {
    const bytes = codec.encode("test.v1.ThingSpec", { ports: [-1] });
    assert.equal(hex(bytes), "28ffffffffffffffffff01");
    assert.deepEqual(codec.decode("test.v1.ThingSpec", bytes), { ports: [-1] });
    for (const offset of [1, 127, 128, 2 ** 31, 2 ** 32 + 5, 2 ** 53 - 1, -1, -(2 ** 31), -(2 ** 40), Number.MIN_SAFE_INTEGER]) {
      assert.deepEqual(roundTrip("test.v1.ThingSpec", { offset }), { offset }, String(offset));
    }
  });

  it("shifts a length-delimited value whose length needs more than one byte", () => {
    for (const n of [1, 41, 42, 43, 127, 128, 300, 16_384, 70_000]) {
      const note = "x".repeat(n);
      const obj = { children: [{ note, children: [{ note: `é${note}` }] }], tags: [note] };
      assert.deepEqual(roundTrip("test.v1.ThingSpec", obj), obj, String(n));
    }
    const big = { children: Array.from({ length: 2000 }, (_, i) => ({ note: `child-${i}`, ports: [i] })) };
    assert.deepEqual(roundTrip("test.v1.ThingSpec", big), big);
  });

  it("encodes bytes as base64 in JSON, binary map values included", () => {
    const data = Buffer.from([0, 1, 2, 255, 254]).toString("base64");
    const obj = { data, binary: { "a.bin": data, empty: "" } };
    assert.deepEqual(roundTrip("test.v1.ThingSpec", obj), obj);
    assert.throws(() => codec.encode("test.v1.ThingSpec", { data: "not base64!" }), JsonTypeError);
  });

  it("gives Time and MicroTime their RFC 3339 forms", () => {
    const meta = { creationTimestamp: "2026-12-02T04:00:00Z" };
    const bytes = codec.encode("meta.v1.ObjectMeta", meta);
    assert.deepEqual(codec.decode("meta.v1.ObjectMeta", bytes), meta);
    const seconds = Date.UTC(2026, 11, 2, 4) / 1000;
    assert.equal(codec.decode("meta.v1.ObjectMeta", bytes).creationTimestamp, "2026-12-02T04:00:00Z");
    // Time keeps whole seconds (as metav1.Time's protobuf and JSON do); an offset is converted to UTC.
    assert.deepEqual(roundTrip("meta.v1.ObjectMeta", { creationTimestamp: "2026-12-02T05:00:00.75+01:00" }), meta);
    assert.ok(seconds > 0);
    const renew = { renewTime: "2026-12-02T04:00:00.123456Z" };
    assert.deepEqual(roundTrip("test.v1.ThingSpec", renew), renew);
    // The zero time (an empty message, as Go writes it) is JSON null, both ways.
    assert.deepEqual(codec.decode("test.v1.ThingSpec", Buffer.from([0x9a, 0x01, 0x00])), { lastProbeTime: null });
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { lastProbeTime: null }), { lastProbeTime: null });
    assert.throws(() => codec.encode("meta.v1.ObjectMeta", { creationTimestamp: "yesterday" }), JsonTypeError);
  });

  it("parses and formats RFC 3339 like Go", () => {
    assert.deepEqual(parseRfc3339("1970-01-01T00:00:00Z"), { seconds: 0, nanos: 0 });
    assert.deepEqual(parseRfc3339("2000-02-29T23:59:59.5Z"), { seconds: Date.UTC(2000, 1, 29, 23, 59, 59) / 1000, nanos: 500_000_000 });
    assert.equal(parseRfc3339("2001-02-29T00:00:00Z"), undefined);
    assert.equal(parseRfc3339("2026-12-02 04:00:00Z"), undefined);
    assert.equal(parseRfc3339("2026-12-02T04:00:00"), undefined);
  });

  it("gives Duration Go's duration strings", () => {
    const cases: [string, number][] = [
      ["0s", 0],
      ["1h2m3s", 3723e9],
      ["500ms", 500e6],
      ["1.5s", 1.5e9],
      ["1m0s", 60e9],
      ["2h0m0s", 7200e9],
      ["1µs", 1e3],
      ["7ns", 7],
      ["-1m30s", -90e9],
      ["1.000000001s", 1e9 + 1],
    ];
    for (const [text, ns] of cases) {
      assert.equal(formatGoDuration(ns), text);
      assert.equal(parseGoDuration(text), ns);
      assert.deepEqual(roundTrip("test.v1.ThingSpec", { timeout: text }), { timeout: text });
    }
    assert.equal(parseGoDuration("90s"), 90e9);
    assert.equal(parseGoDuration("1h30m"), 5400e9);
    assert.equal(parseGoDuration("soon"), undefined);
  });

  it("gives Quantity, IntOrString, RawExtension and FieldsV1 their JSON forms", () => {
    const obj = {
      limits: { cpu: "500m", memory: "1Gi", zero: "0" },
      size: "10Gi",
      target: "http",
      raw: { kind: "Patch", spec: { a: [1, "b", null] } },
      fields: { "f:metadata": { "f:labels": {} } },
    };
    assert.deepEqual(roundTrip("test.v1.ThingSpec", obj), obj);
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { target: 8080 }), { target: 8080 });
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { target: 0 }), { target: 0 });
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { target: "" }), { target: "" });
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { raw: null }), { raw: null });
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { size: 3 }), { size: "3" });
    // IntOrString as Go writes it: type, intVal, strVal, all three.
    assert.equal(hex(codec.encode("test.v1.ThingSpec", { target: 80 })), "4a06" + "0800" + "1050" + "1a00");
  });

  it("fails on a field number the schema does not know, naming message and number", () => {
    const bytes = Buffer.from([0x12, 0x03, 0xa8, 0x06, 0x01]); // spec { field 101: 1 }
    assert.throws(
      () => codec.decode("test.v1.Thing", bytes),
      (err: unknown) => err instanceof UnknownFieldError && err.messageName === "test.v1.ThingSpec" && err.fieldNumber === 101,
    );
  });

  it("fails on truncated data and wrong wire types", () => {
    assert.throws(() => codec.decode("meta.v1.ObjectMeta", Buffer.from([0x0a, 0x05, 0x61])), WireFormatError);
    assert.throws(() => codec.decode("meta.v1.ObjectMeta", Buffer.from([0x08, 0x01])), WireFormatError);
    assert.throws(() => codec.decode("meta.v1.ObjectMeta", Buffer.from([0x38, 0xff])), WireFormatError);
  });

  it("fails on a JSON key the schema does not know, and on a wrong JSON type", () => {
    assert.throws(
      () => codec.encode("test.v1.Thing", { metadata: { name: "a", surprise: 1 } }),
      (err: unknown) => err instanceof UnknownJsonFieldError && err.messageName === "meta.v1.ObjectMeta" && err.key === "surprise",
    );
    assert.throws(() => codec.encode("test.v1.ThingSpec", { replicas: "3" }), JsonTypeError);
    assert.throws(() => codec.encode("test.v1.ThingSpec", { replicas: 2 ** 31 }), JsonTypeError);
    assert.throws(() => codec.encode("test.v1.ThingSpec", { paused: 1 }), JsonTypeError);
    assert.throws(() => codec.encode("test.v1.ThingSpec", { ports: 80 }), JsonTypeError);
    assert.throws(() => codec.encode("test.v1.ThingSpec", { missing: {} }), UnknownMessageError);
    assert.throws(() => codec.encode("test.v1.Nowhere", {}), UnknownMessageError);
    assert.deepEqual(codec.missingReferences(), ["test.v1.ThingSpec.missing -> test.v1.Nowhere"]);
  });

  it("skips apiVersion and kind of top-level kinds (they travel in the envelope), list items included", () => {
    const list = { apiVersion: "test/v1", kind: "ThingList", metadata: { resourceVersion: "5" }, items: [{ apiVersion: "test/v1", kind: "Thing", metadata: { name: "a" } }] };
    assert.deepEqual(roundTrip("test.v1.ThingList", list), { metadata: { resourceVersion: "5" }, items: [{ metadata: { name: "a" } }] });
    assert.throws(() => codec.encode("meta.v1.ObjectMeta", { kind: "x" }), UnknownJsonFieldError);
  });

  it("inlines the JSON fields of an embedded message (json: \"\") and nests them on the wire", () => {
    const bytes = codec.encode("test.v1.KeySelector", { key: "k", name: "cm" });
    assert.equal(hex(bytes), "0a04" + "0a02636d" + "12016b");
    assert.deepEqual(codec.decode("test.v1.KeySelector", bytes), { name: "cm", key: "k" });
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { selector: { key: "" } }), { selector: { key: "" } });
    assert.throws(() => codec.encode("test.v1.KeySelector", { key: "k", nme: "cm" }), UnknownJsonFieldError);
  });

  it("treats JSON null as not set, except for the types whose zero value is null", () => {
    assert.deepEqual(roundTrip("test.v1.ThingSpec", { note: null, tags: null, children: null, lastProbeTime: null }), { lastProbeTime: null });
  });
});

describe("protobuf envelope", () => {
  const kinds = [
    { apiVersion: "test/v1", kind: "Thing", message: "test.v1.Thing" },
    { apiVersion: "test/v1", kind: "ThingList", message: "test.v1.ThingList" },
  ];
  const pb = new KubeProtobuf([TABLE], kinds);

  it("wraps the object in k8s\\0 and runtime.Unknown with its type meta", () => {
    const bytes = pb.encode({ apiVersion: "test/v1", kind: "Thing", metadata: { name: "a" } });
    assert.deepEqual(bytes.subarray(0, 4), PROTOBUF_MAGIC);
    // Unknown { typeMeta { "test/v1", "Thing" }, raw { metadata { name "a" } }, "", "" }
    assert.equal(hex(bytes.subarray(4)), "0a10" + "0a07746573742f7631" + "1205546869 6e67".replace(/ /g, "") + "1205" + "0a03" + "0a0161" + "1a00" + "2200");
    assert.deepEqual(pb.decode(bytes), { apiVersion: "test/v1", kind: "Thing", object: { kind: "Thing", apiVersion: "test/v1", metadata: { name: "a" } } });
  });

  it("rejects data without the magic, an unknown kind and unknown envelope fields", () => {
    assert.throws(() => pb.decode(Buffer.from("{}")), /does not appear to be a protobuf message/);
    assert.throws(() => pb.decode(Buffer.alloc(0)), /empty data/);
    const other = pb.encode({ apiVersion: "test/v1", kind: "Thing", metadata: {} });
    const patched = Buffer.from(other);
    patched.write("Thang", 4 + 2 + 2 + 7 + 2);
    assert.throws(() => pb.decode(patched), /no kind "Thang" is registered for version "test\/v1"/);
    assert.throws(() => pb.decode(Buffer.concat([other, Buffer.from([0x28, 0x01])])), UnknownFieldError);
  });

  it("frames watch events: length, WatchEvent {type, object {raw: envelope}}", () => {
    const frame = pb.watchFrame("ADDED", { apiVersion: "test/v1", kind: "Thing", metadata: { name: "a" } });
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const reader = new WatchFrameReader();
    const second = pb.watchFrame("DELETED", { metadata: { name: "b".repeat(300) } }, { apiVersion: "test/v1", kind: "Thing" });
    const stream = Buffer.concat([frame, second]);
    const frames = [...reader.push(stream.subarray(0, 7)), ...reader.push(stream.subarray(7, frame.length + 10)), ...reader.push(stream.subarray(frame.length + 10))];
    assert.equal(frames.length, 2);
    assert.equal(reader.buffered, 0);
    const [a, b] = frames.map((f) => pb.decodeWatchEvent(f));
    assert.equal(a?.type, "ADDED");
    assert.deepEqual(a?.object.object, { kind: "Thing", apiVersion: "test/v1", metadata: { name: "a" } });
    assert.equal(b?.type, "DELETED");
    assert.equal((b?.object.object["metadata"] as { name: string }).name.length, 300);
  });
});
