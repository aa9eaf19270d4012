import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CommonConfigSchema, ConfigError, parseConfig, serviceCommand } from "./config.ts";

describe("service configuration", () => {
  it("applies defaults and parses flags", () => {
    const config = parseConfig(serviceCommand("test", "t"), CommonConfigSchema, [
      "--name",
      "actor-0",
      "--metrics-bind-address",
      "127.0.0.1:0",
      "--health-probe-bind-address",
      "0",
      "--kube-request-timeout-ms",
      "2500",
    ]);
    assert.equal(config.name, "actor-0");
    assert.deepEqual(config.metricsBindAddress, { host: "127.0.0.1", port: 0 });
    assert.equal(config.healthProbeBindAddress, undefined);
    assert.equal(config.kubeRequestTimeoutMs, 2500);
    assert.equal(config.logFormat, "json");
    assert.ok(Object.isFrozen(config));
  });

  it("reports every invalid value with its flag name", () => {
    assert.throws(
      () =>
        parseConfig(serviceCommand("test", "t"), CommonConfigSchema, [
          "--name",
          "bad name!",
          "--metrics-bind-address",
          "nope",
        ]),
      (error) =>
        error instanceof ConfigError &&
        error.problems.some((p) => p.startsWith("--name:")) &&
        error.problems.some((p) => p.startsWith("--metrics-bind-address:")),
    );
  });
});
