import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { StreamPublishError, isConsumerNotFound, isStreamNotFound, isWrongLastSequence, jetStreamApiCode } from "./nats.ts";

const apiError = (errCode: number, description: string) => new JetStreamApiError({ code: 400, err_code: errCode, description });

describe("NATS errors are read by JetStream's err_code", () => {
  it("knows a wrong last sequence by either of its two codes, from nats.js and from StreamPublisher", () => {
    assert.ok(isWrongLastSequence(apiError(JetStreamApiCodes.StreamWrongLastSequence, "wrong last sequence: 4")));
    assert.ok(isWrongLastSequence(apiError(JetStreamApiCodes.StreamWrongLastSequenceUnknown, "wrong last sequence unknown")));
    const refused = new StreamPublishError("api", "s.a", "wrong last sequence: 4", JetStreamApiCodes.StreamWrongLastSequence);
    assert.ok(isWrongLastSequence(refused));
    assert.ok(refused.isWrongLastSequence, "the getter and the function agree");
    assert.ok(!isWrongLastSequence(new StreamPublishError("timeout", "s.a", "no ack", JetStreamApiCodes.StreamWrongLastSequence)), "only an API answer has a code");
    assert.ok(!isWrongLastSequence(apiError(10060, "expected stream does not match")));
  });

  it("knows a missing stream and a missing consumer by code, not by text", () => {
    // nats.js throws its StreamNotFoundError and ConsumerNotFoundError, subclasses of JetStreamApiError, for these.
    assert.ok(isStreamNotFound(apiError(JetStreamApiCodes.StreamNotFound, "stream not found")));
    assert.ok(isConsumerNotFound(apiError(JetStreamApiCodes.ConsumerNotFound, "consumer not found")));
    assert.ok(!isStreamNotFound(apiError(JetStreamApiCodes.ConsumerNotFound, "consumer not found")));
    assert.ok(!isStreamNotFound(new Error("stream not found")), "a message that says so is no answer from the server");
    assert.ok(!isConsumerNotFound(new Error("consumer not found")));
  });

  it("has no code for what is not an API answer", () => {
    assert.equal(jetStreamApiCode(new Error("x")), undefined);
    assert.equal(jetStreamApiCode("x"), undefined);
    assert.equal(jetStreamApiCode(apiError(10071, "x")), 10071);
  });
});
