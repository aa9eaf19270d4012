// The one retry loop of service startup: retries with backoff until the call succeeds, and lets go at shutdown.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { backoffDelayMs, retryForever } from "./backoff.ts";

const quiet = { warn: () => undefined };
const policy = { initialDelayMs: 1, maxDelayMs: 4 };

describe("retryForever", () => {
  it("retries until the call succeeds and logs every failure", async () => {
    let calls = 0;
    const warnings: unknown[] = [];
    const value = await retryForever(
      "thing",
      () => (++calls < 3 ? Promise.reject(new Error("not yet")) : Promise.resolve("done")),
      { policy, logger: { warn: (detail: unknown) => warnings.push(detail) }, signal: new AbortController().signal },
    );
    assert.equal(value, "done");
    assert.equal(calls, 3);
    assert.equal(warnings.length, 2);
  });

  it("rejects with the abort reason once the signal is aborted, also while waiting between attempts", async () => {
    const stop = new AbortController();
    const reason = new Error("shutting down");
    const pending = retryForever("thing", () => Promise.reject(new Error("down")), { policy: { initialDelayMs: 60_000, maxDelayMs: 60_000 }, logger: quiet, signal: stop.signal });
    setTimeout(() => stop.abort(reason), 10);
    await assert.rejects(pending, (error: unknown) => error === reason);
  });

  it("backs off within its cap, never to zero", () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const delay = backoffDelayMs({ initialDelayMs: 100, maxDelayMs: 1_000 }, attempt, () => 0);
      assert.ok(delay >= 50 && delay <= 1_000, String(delay));
    }
  });
});
