import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createCommonMetrics } from "./metrics.ts";
import { startOpsServer } from "./ops-server.ts";

describe("ops server", () => {
  it("serves /healthz, /readyz with named checks, and /metrics", async () => {
    const metrics = createCommonMetrics("test", "t-0");
    let natsConnected = false;
    const server = await startOpsServer({
      bind: { host: "127.0.0.1", port: 0 },
      registry: metrics.registry,
      readiness: new Map([
        ["nats", () => natsConnected || "not connected"],
        ["informers", () => true],
      ]),
      serve: { metrics: true, probes: true },
    });
    try {
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      const notReady = await fetch(`${server.url}/readyz`);
      assert.equal(notReady.status, 503);
      assert.match(await notReady.text(), /\[-\]nats failed: not connected/);
      natsConnected = true;
      const ready = await fetch(`${server.url}/readyz?verbose`);
      assert.equal(ready.status, 200);
      assert.match(await ready.text(), /\[\+\]nats ok/);
      metrics.droppedMessages.inc({ subject: "cmd.pvc.{shard}.{namespace}.{name}", reason: "malformed" });
      const text = await (await fetch(`${server.url}/metrics`)).text();
      assert.match(text, /stsfleet_dropped_messages_total\{subject="cmd.pvc.\{shard\}.\{namespace\}.\{name\}",reason="malformed",service="test",instance="t-0"\} 1/);
      assert.match(text, /process_cpu_seconds_total/);
      assert.equal((await fetch(`${server.url}/nope`)).status, 404);
    } finally {
      await server.close();
    }
  });
});
