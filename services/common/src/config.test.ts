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

  it("takes the NATS TLS files from flags or NATS_TLS_* variables, and wants a client certificate with its key", () => {
    const saved = { ...process.env };
    try {
      process.env["NATS_TLS_CA"] = "/etc/stsfleet/tls/ca.crt";
      const config = parseConfig(serviceCommand("test", "t"), CommonConfigSchema, ["--nats-tls-cert", "/c.crt", "--nats-tls-key", "/c.key"]);
      assert.deepEqual([config.natsTlsCa, config.natsTlsCert, config.natsTlsKey], ["/etc/stsfleet/tls/ca.crt", "/c.crt", "/c.key"]);
      assert.throws(
        () => parseConfig(serviceCommand("test", "t"), CommonConfigSchema, ["--nats-tls-cert", "/c.crt"]),
        (error) => error instanceof ConfigError && /--nats-tls-cert and --nats-tls-key/.test(error.problems.join()),
      );
    } finally {
      for (const key of ["NATS_TLS_CA", "NATS_TLS_CERT", "NATS_TLS_KEY"]) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });
});
