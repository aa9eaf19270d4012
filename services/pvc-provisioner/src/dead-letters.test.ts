import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { advisoryStreamSequence } from "./dead-letters.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("advisoryStreamSequence (MAX_DELIVERIES advisories)", () => {
  it("reads the stream sequence the advisory names", () => {
    assert.equal(advisoryStreamSequence(bytes('{"type":"io.nats.jetstream.advisory.v1.max_deliver","stream_seq":42,"deliveries":5}')), 42);
  });

  it("names none for an advisory without one, or for bytes that are no JSON", () => {
    assert.equal(advisoryStreamSequence(bytes('{"stream_seq":"42"}')), undefined);
    assert.equal(advisoryStreamSequence(bytes("{")), undefined);
    assert.equal(advisoryStreamSequence(bytes("null")), undefined);
  });
});
