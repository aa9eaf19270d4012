import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  claimName,
  controllerRevisionHash,
  controllerRevisionName,
  isMemberOf,
  parseParentAndOrdinal,
  podName,
  safeEncodeString,
} from "./naming.ts";

interface RecordedRevision {
  set: string;
  name: string;
  collisionCount: number;
  hashLabel: string;
  raw: string;
}
const vectors = JSON.parse(
  readFileSync(new URL("../../test/fixtures/kcm-v1.32.6.json", import.meta.url), "utf8"),
) as { controllerRevisions: RecordedRevision[] };

describe("naming", () => {
  // Upstream TestGetParentNameAndOrdinal / TestIdentityMatches (stateful_set_utils_test.go).
  it("parses parent and ordinal with the upstream regex", () => {
    assert.deepEqual(parseParentAndOrdinal("web-0"), { parent: "web", ordinal: 0 });
    assert.deepEqual(parseParentAndOrdinal("web-12"), { parent: "web", ordinal: 12 });
    assert.deepEqual(parseParentAndOrdinal("my-web-3-07"), { parent: "my-web-3", ordinal: 7 });
    assert.deepEqual(parseParentAndOrdinal("web"), { parent: "", ordinal: -1 });
    assert.deepEqual(parseParentAndOrdinal("web-"), { parent: "", ordinal: -1 });
    assert.deepEqual(parseParentAndOrdinal("web-x1"), { parent: "", ordinal: -1 });
    assert.deepEqual(parseParentAndOrdinal("-5"), { parent: "", ordinal: 5 });
    // Fits the regex but not an int32: the parent is kept, the ordinal is -1 (strconv.ParseInt error).
    assert.deepEqual(parseParentAndOrdinal("web-2147483647"), { parent: "web", ordinal: 2147483647 });
    assert.deepEqual(parseParentAndOrdinal("web-2147483648"), { parent: "web", ordinal: -1 });
    assert.deepEqual(parseParentAndOrdinal("web-99999999999999999999"), { parent: "web", ordinal: -1 });
  });

  it("decides membership by parent name", () => {
    assert.equal(isMemberOf("web", "web-1"), true);
    assert.equal(isMemberOf("web", "web-1-1"), false);
    assert.equal(isMemberOf("web-1", "web-1-1"), true);
    assert.equal(isMemberOf("web", "webx-1"), false);
  });

  it("builds pod and claim names", () => {
    assert.equal(podName("web", 3), "web-3");
    assert.equal(claimName("data", "web", 3), "data-web-3");
  });

  it("safe-encodes digits like upstream", () => {
    assert.equal(safeEncodeString("0123456789"), "456789bcdf");
  });

  it("reproduces every recorded ControllerRevision name from its raw bytes", () => {
    assert.ok(vectors.controllerRevisions.length > 0);
    for (const revision of vectors.controllerRevisions) {
      const hash = controllerRevisionHash(revision.raw, revision.collisionCount);
      assert.equal(hash, revision.hashLabel, revision.name);
      assert.equal(controllerRevisionName(revision.set, hash), revision.name);
    }
  });

  it("truncates long revision prefixes to 223 characters", () => {
    const long = "a".repeat(300);
    assert.equal(controllerRevisionName(long, "abc"), `${"a".repeat(223)}-abc`);
  });
});
