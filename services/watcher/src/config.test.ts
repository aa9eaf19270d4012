import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError } from "../../common/src/config.ts";
import { parseWatcherConfig } from "./config.ts";

describe("watcher configuration", () => {
  it("has defaults in the client-go ranges", () => {
    const config = parseWatcherConfig(["--name", "watcher-0"]);
    assert.equal(config.namespace, undefined);
    assert.equal(config.watchTimeoutSeconds, 300);
    assert.equal(config.leaseDurationMs, 15_000);
    assert.equal(config.leaseRenewDeadlineMs, 10_000);
    assert.equal(config.leaseRetryPeriodMs, 2_000);
    assert.equal(config.listPageSize, 500);
  });

  it("parses every watcher flag", () => {
    const config = parseWatcherConfig([
      "--namespace", "team-a",
      "--list-page-size", "50",
      "--watch-timeout-seconds", "10",
      "--watch-stall-timeout-ms", "5000",
      "--relist-period-ms", "0",
      "--lease-duration-ms", "3000",
      "--lease-renew-deadline-ms", "2000",
      "--lease-retry-period-ms", "500",
      "--tombstone-ttl-ms", "1000",
      "--publish-concurrency", "8",
    ]);
    assert.equal(config.namespace, "team-a");
    assert.equal(config.listPageSize, 50);
    assert.equal(config.relistPeriodMs, 0);
    assert.equal(config.publishConcurrency, 8);
  });

  it("refuses a renew deadline that is not shorter than the lease, and a bad namespace", () => {
    assert.throws(
      () => parseWatcherConfig(["--lease-duration-ms", "1000", "--lease-renew-deadline-ms", "1000", "--namespace", "Bad_NS"]),
      (error) =>
        error instanceof ConfigError &&
        error.problems.some((p) => p.startsWith("--lease-renew-deadline-ms:")) &&
        error.problems.some((p) => p.startsWith("--namespace:")),
    );
  });
});
