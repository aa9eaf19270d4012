import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { isAlive, readStackFile, StackFileError, stackFilePath, writeStackFile } from "./state.ts";
import type { StackFile } from "./state.ts";

const dir = mkdtempSync(join(tmpdir(), "stsfleet-state-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const sample: StackFile = {
  apiServer: "http://127.0.0.1:1234",
  nats: "nats://127.0.0.1:4222",
  kubeconfig: "/x/kubeconfig",
  processes: [
    { service: "nats", name: "nats", pid: 10 },
    { service: "actor", name: "actor-0", pid: 11, metrics: "http://127.0.0.1:9/metrics", restarts: 2 },
  ],
};

describe("stack.json", () => {
  it("round-trips and leaves no temp file behind (atomic rename)", () => {
    writeStackFile(dir, sample);
    writeStackFile(dir, { ...sample, processes: [] });
    assert.deepEqual(readStackFile(dir), { ...sample, processes: [] });
    assert.deepEqual(readdirSync(dir), ["stack.json"]);
  });

  it("is undefined when missing", () => {
    assert.equal(readStackFile(join(dir, "nope")), undefined);
  });

  it("names the file and the problem when it is not JSON or has the wrong shape", () => {
    const bad = mkdtempSync(join(dir, "bad-"));
    writeFileSync(stackFilePath(bad), "{not json");
    assert.throws(() => readStackFile(bad), (error: unknown) => error instanceof StackFileError && /not JSON/.test(error.message));
    writeFileSync(stackFilePath(bad), JSON.stringify({ ...sample, processes: [{ service: "dns", name: "x", pid: 1 }] }));
    assert.throws(() => readStackFile(bad), (error: unknown) => error instanceof StackFileError && /processes\.0\.service/.test(error.message));
  });

  it("isAlive tells running pids from gone ones", () => {
    assert.equal(isAlive(process.pid), true);
    assert.equal(isAlive(2 ** 22 + 12345), false);
  });
});
