import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { errors } from "@nats-io/transport-node";
import { StreamPublishError, isConsumerNotFound, isStreamNotFound, isWrongLastSequence, jetStreamApiCode, natsFailureKind } from "./nats.ts";

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

  it("tells a timeout from a server with nobody to answer by class and code, whatever the text says", () => {
    assert.equal(natsFailureKind(new StreamPublishError("timeout", "s.a", "no ack within 5000 ms")), "timeout");
    assert.equal(natsFailureKind(new errors.TimeoutError()), "timeout");
    assert.equal(natsFailureKind(new StreamPublishError("no-responders", "s.a", "no stream")), "unavailable");
    assert.equal(natsFailureKind(new StreamPublishError("closed", "s.a", "connection closed")), "unavailable");
    assert.equal(natsFailureKind(new errors.NoRespondersError("$JS.API.STREAM.INFO.S")), "unavailable");
    assert.equal(natsFailureKind(new JetStreamApiError({ code: 503, err_code: 10008, description: "JetStream system temporarily unavailable" })), "unavailable");
    assert.equal(natsFailureKind(new StreamPublishError("api", "s.a", "jetstream not enabled", 10076)), "unavailable");
    assert.equal(natsFailureKind(apiError(JetStreamApiCodes.StreamWrongLastSequence, "timeout while unavailable")), "error", "text is not read");
    assert.equal(natsFailureKind(new Error("request timeout")), "error", "an unknown error is not judged by its message");
  });
});

