import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BindAddressError, parseBindAddress } from "./address.ts";

describe("parseBindAddress", () => {
  it("parses controller-runtime style addresses", () => {
    assert.deepEqual(parseBindAddress(":8080"), { host: "0.0.0.0", port: 8080 });
    assert.deepEqual(parseBindAddress("127.0.0.1:0"), { host: "127.0.0.1", port: 0 });
    assert.deepEqual(parseBindAddress("[::1]:9090"), { host: "::1", port: 9090 });
    assert.equal(parseBindAddress("0"), undefined);
  });

  it("rejects malformed addresses", () => {
    for (const bad of ["8080", "host:", "host:99999", "host:abc"]) assert.throws(() => parseBindAddress(bad), BindAddressError);
  });
});
