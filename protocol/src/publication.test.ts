import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { PublicationClock, comparePublicationVersions, formatPublicationVersion, parsePublicationVersion } from "./publication.ts";

const version = fc.record({ epoch: fc.nat({ max: Number.MAX_SAFE_INTEGER }), counter: fc.nat({ max: Number.MAX_SAFE_INTEGER }) });

describe("publication versions", () => {
  it("round-trip through the header value", () => {
    fc.assert(fc.property(version, (v) => assert.deepEqual(parsePublicationVersion(formatPublicationVersion(v)), { epoch: v.epoch, counter: v.counter })));
  });

  it("read a malformed or missing header as no version", () => {
    for (const value of [undefined, "", "1", "1.", ".1", "01.2", "1.02", "-1.2", "1.2.3", "1e3.1", " 1.2", "99999999999999999.1"]) {
      assert.equal(parsePublicationVersion(value), undefined, String(value));
    }
  });

  it("order by epoch first, then by counter", () => {
    assert.ok(comparePublicationVersions({ epoch: 2, counter: 0 }, { epoch: 1, counter: 900 }) > 0);
    assert.ok(comparePublicationVersions({ epoch: 1, counter: 3 }, { epoch: 1, counter: 4 }) < 0);
    assert.equal(comparePublicationVersions({ epoch: 5, counter: 5 }, { epoch: 5, counter: 5 }), 0);
    fc.assert(
      fc.property(version, version, (a, b) => {
        assert.equal(Math.sign(comparePublicationVersions(a, b)), -Math.sign(comparePublicationVersions(b, a)));
      }),
    );
  });

  it("a clock hands out increasing versions of one epoch", () => {
    const clock = new PublicationClock(42);
    const first = clock.next();
    const second = clock.next();
    assert.deepEqual(first, { epoch: 42, counter: 0 });
    assert.ok(comparePublicationVersions(first, second) < 0);
    assert.ok(comparePublicationVersions(second, new PublicationClock(43).next()) < 0);
    assert.throws(() => new PublicationClock(-1), RangeError);
  });
});
