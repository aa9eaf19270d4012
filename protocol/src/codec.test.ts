import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { pack } from "msgpackr";
import { DecodeError, codecs } from "./codec.ts";
import type { Codec } from "./codec.ts";
import { AnyMessageSchema } from "./messages.ts";
import type { AnyMessage, MessageType } from "./messages.ts";
import { SAMPLE_MESSAGES } from "./samples.ts";

/** The codec a consumer of each message type uses. */
const CODEC_OF: { readonly [T in MessageType]: Codec<unknown> } = {
  "object.put": codecs.objectEnvelope,
  "object.delete": codecs.objectEnvelope,
  "object.reread": codecs.objectReread,
  "object.reread.result": codecs.objectRereadResult,
  "pvc.create": codecs.pvcCommand,
  "pvc.updateOwnerRefs": codecs.pvcCommand,
  "status.write": codecs.statusWrite,
  "status.result": codecs.statusResult,
  "event.record": codecs.eventRecord,
  "intent.plan": codecs.intent,
  "intent.takeover": codecs.intent,
  "intent-log.layout": codecs.intentLogLayout,
  member: codecs.memberRecord,
  shard: codecs.shardRecord,
  probe: codecs.probe,
  "probe.ack": codecs.probeAck,
  poke: codecs.poke,
};

const samples: AnyMessage[] = Object.values(SAMPLE_MESSAGES);
const allCodecs = Object.values(codecs) as Codec<unknown>[];

/** Decoding must yield a value or DecodeError, never any other exception. */
function decodeOrDecodeError(codec: Codec<unknown>, bytes: Uint8Array): { ok: true } | { ok: false; error: DecodeError } {
  try {
    codec.decode(bytes);
    return { ok: true };
  } catch (error) {
    assert.ok(error instanceof DecodeError, `${codec.name} threw ${String(error)}`);
    return { ok: false, error };
  }
}

describe("codec", () => {
  it("has a sample for every message type of the union", () => {
    const unionTypes = AnyMessageSchema.options.map((option) => option.shape.type.value).sort();
    assert.deepEqual(Object.keys(SAMPLE_MESSAGES).sort(), unionTypes);
  });

  it("round-trips every message type through its own codec and through the any-codec", () => {
    for (const message of samples) {
      const codec = CODEC_OF[message.type];
      assert.deepEqual(codec.decode(codec.encode(message)), message, message.type);
      assert.deepEqual(codecs.any.decode(codecs.any.encode(message)), message, `any: ${message.type}`);
    }
  });

  it("keeps unknown fields of Kubernetes objects and drops unknown top-level fields", () => {
    const message = { ...SAMPLE_MESSAGES["object.put"], extra: 1 };
    const decoded = codecs.objectEnvelope.decode(pack(message));
    assert.equal("extra" in decoded, false);
    assert.ok(decoded.type === "object.put");
    assert.deepEqual(decoded.object, SAMPLE_MESSAGES["object.put"].object);
  });

  it("rejects empty input with reason 'empty'", () => {
    for (const codec of allCodecs) {
      assert.throws(() => codec.decode(new Uint8Array()), (e) => e instanceof DecodeError && e.reason === "empty");
    }
  });

  it("rejects a message of another type with reason 'invalid' and names the field", () => {
    const error = decodeOrDecodeError(codecs.pvcCommand, codecs.statusWrite.encode(SAMPLE_MESSAGES["status.write"]));
    assert.ok(!error.ok);
    assert.equal(error.error.reason, "invalid");
    assert.equal(error.error.codec, "PvcCommand");
    assert.match(error.error.message, /type/);
  });

  it("rejects a shard outside 0..255 and a negative epoch", () => {
    const bad = [
      { ...SAMPLE_MESSAGES["pvc.create"], shard: 256 },
      { ...SAMPLE_MESSAGES["pvc.create"], epoch: -1 },
      { ...SAMPLE_MESSAGES["pvc.create"], claims: [] },
    ];
    for (const message of bad) {
      assert.throws(() => codecs.pvcCommand.decode(pack(message)), (e) => e instanceof DecodeError && e.reason === "invalid");
    }
  });

  it("does not let a __proto__ key pollute prototypes", () => {
    const bytes = pack({ ...SAMPLE_MESSAGES.poke, ["__proto__"]: { polluted: true } });
    const result = decodeOrDecodeError(codecs.poke, bytes);
    assert.ok(result.ok);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it("property: random bytes only ever yield a message or DecodeError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 256 }), fc.constantFrom(...allCodecs), (bytes, codec) => {
        decodeOrDecodeError(codec, bytes);
      }),
      { numRuns: 3000 },
    );
  });

  it("property: every truncation of a valid message yields DecodeError", () => {
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), (message, cut) => {
        const codec = CODEC_OF[message.type];
        const bytes = codec.encode(message);
        const truncated = bytes.subarray(0, cut % bytes.length);
        const result = decodeOrDecodeError(codec, truncated);
        assert.equal(result.ok, false, `${message.type} truncated to ${truncated.length} bytes decoded`);
      }),
      { numRuns: 2000 },
    );
  });

  it("property: valid MessagePack of the wrong shape yields DecodeError 'invalid'", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...allCodecs), (value, codec) => {
        const result = decodeOrDecodeError(codec, pack(value));
        if (!result.ok) assert.ok(result.error.reason === "invalid" || result.error.reason === "malformed");
      }),
      { numRuns: 2000 },
    );
  });

  it("property: a field replaced by a value of the wrong type yields DecodeError", () => {
    const kindOf = (value: unknown) => (Array.isArray(value) ? "array" : value === null ? "null" : typeof value);
    const candidates: unknown[] = [null, true, 1.5, -3, "", "text", [], [1], { a: 1 }];
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), fc.nat(), (message, pick, pickWrong) => {
        const keys = Object.keys(message);
        const key = keys[pick % keys.length] ?? "type";
        const current: unknown = (message as Record<string, unknown>)[key];
        const wrongs = candidates.filter((value) => kindOf(value) !== kindOf(current));
        const wrong = wrongs[pickWrong % wrongs.length];
        const mutated: Record<string, unknown> = { ...message, [key]: wrong };
        const codec = CODEC_OF[message.type];
        const result = decodeOrDecodeError(codec, pack(mutated));
        // Optional fields may accept a missing value, never one of another type.
        if (result.ok) assert.fail(`${message.type}.${key} = ${JSON.stringify(wrong)} was accepted`);
      }),
      { numRuns: 2000 },
    );
  });

  it("property: single bit flips never escape as another exception", () => {
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.nat(), fc.integer({ min: 0, max: 7 }), (message, at, bit) => {
        const codec = CODEC_OF[message.type];
        const bytes = Uint8Array.from(codec.encode(message));
        const index = at % bytes.length;
        bytes[index] = (bytes[index] ?? 0) ^ (1 << bit);
        decodeOrDecodeError(codec, bytes);
      }),
      { numRuns: 3000 },
    );
  });
});
