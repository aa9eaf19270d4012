import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_CONTENT_TYPE, OPENAPI_V2_PROTOBUF_DEPRECATED, prefersOpenApiV2Protobuf } from "./media.ts";

describe("/openapi/v2 Accept negotiation", () => {
  it("picks protobuf when it is the client's first choice, in either spelling", () => {
    assert.equal(prefersOpenApiV2Protobuf(OPENAPI_V2_PROTOBUF_DEPRECATED), true);
    assert.equal(prefersOpenApiV2Protobuf(OPENAPI_V2_PROTOBUF), true);
    assert.equal(prefersOpenApiV2Protobuf(`${OPENAPI_V2_PROTOBUF_DEPRECATED}, application/json`), true);
    assert.equal(prefersOpenApiV2Protobuf(`application/json;q=0.5, ${OPENAPI_V2_PROTOBUF}`), true);
    assert.equal(prefersOpenApiV2Protobuf(`*/*, ${OPENAPI_V2_PROTOBUF}`), true, "a specific type outranks a wildcard of the same q");
  });

  it("leaves JSON, wildcards and everything else to the JSON path", () => {
    assert.equal(prefersOpenApiV2Protobuf(undefined), false);
    assert.equal(prefersOpenApiV2Protobuf(""), false);
    assert.equal(prefersOpenApiV2Protobuf("application/json"), false);
    assert.equal(prefersOpenApiV2Protobuf("*/*"), false);
    assert.equal(prefersOpenApiV2Protobuf(`application/json, ${OPENAPI_V2_PROTOBUF}`), false);
    assert.equal(prefersOpenApiV2Protobuf(`${OPENAPI_V2_PROTOBUF};q=0, application/json`), false);
    assert.equal(prefersOpenApiV2Protobuf("application/vnd.kubernetes.protobuf"), false);
  });

  it("answers with the media type Go's mime parser accepts", () => {
    assert.equal(OPENAPI_V2_PROTOBUF_CONTENT_TYPE, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf");
    assert.doesNotMatch(OPENAPI_V2_PROTOBUF_CONTENT_TYPE, /@/);
  });
});
