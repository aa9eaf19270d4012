// The stack's service processes as data: which processes a stack runs and the command line each gets.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { serviceArgs, serviceNames } from "./service-set.ts";

describe("service set", () => {
  it("runs one watcher, N actors, one pvc-provisioner and one status-writer, in start order", () => {
    assert.deepEqual(
      serviceNames(2).map((s) => s.name),
      ["watcher", "actor-0", "actor-1", "pvc-provisioner", "status-writer"],
    );
    assert.deepEqual(serviceNames(1).filter((s) => s.service === "actor").map((s) => s.name), ["actor-0"]);
  });

  it("passes the stack's endpoints and loopback ops ports, then local defaults, then the caller's flags (the last wins)", () => {
    const args = serviceArgs(
      { service: "actor", name: "actor-1" },
      { natsUrl: "nats://127.0.0.1:4222", kubeconfigPath: "/s/kubeconfig", logLevel: "debug", serviceArgs: { actor: ["--lease-profile", "default"], watcher: ["--x"] } },
      { metrics: 10_001, probes: 10_002 },
    );
    const value = (flag: string) => args[args.lastIndexOf(flag) + 1];
    assert.equal(value("--name"), "actor-1");
    assert.equal(value("--nats-url"), "nats://127.0.0.1:4222");
    assert.equal(value("--kubeconfig"), "/s/kubeconfig");
    assert.equal(value("--metrics-bind-address"), "127.0.0.1:10001");
    assert.equal(value("--health-probe-bind-address"), "127.0.0.1:10002");
    assert.equal(value("--log-level"), "debug");
    assert.equal(value("--lease-profile"), "default", "the caller's flag comes after the local default");
    assert.ok(args.indexOf("--lease-profile") < args.lastIndexOf("--lease-profile"), "the local default is there too");
    assert.ok(!args.includes("--x"), "another service's flags are not passed");
  });

  it("gives the watcher lease timings that let a restarted watcher take over within seconds", () => {
    const args = serviceArgs({ service: "watcher", name: "watcher" }, { natsUrl: "n", kubeconfigPath: "k", logLevel: "info", serviceArgs: undefined }, { metrics: 1, probes: 2 });
    assert.equal(args[args.indexOf("--lease-duration-ms") + 1], "8000");
  });
});
