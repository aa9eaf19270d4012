// stack.json while the stack runs: every process with its pid, a process between restarts with its last one, and no
// write once the stack is stopping.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { StackRecord } from "./stack-record.ts";
import { stackFilePath } from "./state.ts";
import { ManagedProcess } from "./supervisor.ts";

describe("stack record", () => {
  const dir = mkdtempSync(join(tmpdir(), "stsfleet-record-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const child = (name: string) =>
    new ManagedProcess({ service: "actor", name, logPath: join(dir, "logs", `${name}.log`), restart: false, launch: () => ({ command: "true", args: [] }) });

  it("lists NATS, and a service that is down between restarts under its last pid; stops writing when closed", () => {
    const services = new Map([["actor-0", child("actor-0")], ["actor-1", child("actor-1")]]);
    let natsPid: number | undefined = 4_000;
    const record = new StackRecord(dir, join(dir, "logs"), { natsPid: () => natsPid, kubeSim: () => undefined, services });
    record.note({ type: "spawned", name: "actor-0", pid: 4_001, restarts: 0 });
    record.begin({ apiServer: "http://127.0.0.1:1", nats: "nats://127.0.0.1:2", kubeconfig: join(dir, "kubeconfig") });

    const written = JSON.parse(readFileSync(stackFilePath(dir), "utf8")) as { processes: { name: string; pid: number }[] };
    assert.deepEqual(written.processes.map((p) => [p.name, p.pid]), [["nats", 4_000], ["actor-0", 4_001]], "actor-1 never ran: not listed");

    natsPid = 4_100;
    record.close();
    record.persist();
    const after = JSON.parse(readFileSync(stackFilePath(dir), "utf8")) as { processes: { name: string; pid: number }[] };
    assert.equal(after.processes[0]?.pid, 4_000, "no write after close");
    assert.equal(record.snapshot({ apiServer: "a", nats: "n", kubeconfig: "k" }).apiServer, "http://127.0.0.1:1");
  });

  it("answers a snapshot before the first write from what it knows", () => {
    const empty = mkdtempSync(join(tmpdir(), "stsfleet-record-"));
    const record = new StackRecord(empty, join(empty, "logs"), { natsPid: () => undefined, kubeSim: () => undefined, services: new Map() });
    assert.deepEqual(record.snapshot({ apiServer: "a", nats: "n", kubeconfig: "k" }), { apiServer: "a", nats: "n", kubeconfig: "k", processes: [] });
    assert.equal(existsSync(stackFilePath(empty)), false);
    rmSync(empty, { recursive: true, force: true });
  });
});
