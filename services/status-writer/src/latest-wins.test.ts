import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { LatestWins } from "./latest-wins.ts";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("LatestWins", () => {
  it("runs one entry per key at a time; a newer waiting entry replaces the older one", async () => {
    const started: string[] = [];
    const superseded: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const queue = new LatestWins<string>({
      concurrency: 8,
      run: async (_key, entry) => {
        started.push(entry);
        const gate = deferred();
        gates.set(entry, gate);
        await gate.promise;
      },
      superseded: (entry) => superseded.push(entry),
    });
    queue.submit("web", "w1");
    queue.submit("web", "w2");
    queue.submit("web", "w3");
    queue.submit("db", "d1");
    assert.deepEqual(started, ["w1", "d1"]);
    assert.deepEqual(superseded, ["w2"]);
    gates.get("w1")?.resolve();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(started, ["w1", "d1", "w3"]);
    gates.get("w3")?.resolve();
    gates.get("d1")?.resolve();
    await queue.idle();
    assert.equal(queue.size, 0);
  });

  it("never exceeds its concurrency and answers every entry exactly once (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c", "d"), fc.nat(3)), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 3 }),
        async (submissions, concurrency) => {
          let active = 0;
          let peak = 0;
          const answered: number[] = [];
          const lastRunPerKey = new Map<string, number>();
          const queue = new LatestWins<{ id: number; key: string }>({
            concurrency,
            run: async (key, entry) => {
              active += 1;
              peak = Math.max(peak, active);
              await new Promise((r) => setImmediate(r));
              active -= 1;
              answered.push(entry.id);
              lastRunPerKey.set(key, entry.id);
            },
            superseded: (entry) => answered.push(entry.id),
          });
          for (const [index, [key, pauses]] of submissions.entries()) {
            queue.submit(key, { id: index, key });
            for (let i = 0; i < pauses; i += 1) await new Promise((r) => setImmediate(r));
          }
          await queue.idle();
          assert.ok(peak <= concurrency);
          assert.deepEqual([...answered].sort((x, y) => x - y), submissions.map((_, i) => i));
          // The last submission of each key always runs (latest wins).
          for (const key of new Set(submissions.map(([k]) => k))) {
            const last = submissions.map(([k], i) => (k === key ? i : -1)).filter((i) => i >= 0).pop();
            assert.equal(lastRunPerKey.get(key), last);
          }
        },
      ),
      { numRuns: Number(process.env["FC_RUNS"] ?? 100) },
    );
  });
});
