// NATS security in the local stack (`stsfleet up --secure`, ADR 0064): nats-server runs the shipped users
// and permissions with mutual TLS; the services connect as their own users over TLS and take a StatefulSet to Ready
// without one permissions violation; a plaintext client, a client with a wrong password and one without a client
// certificate are refused; `stsfleet status`-style readers connect with what stack.json records.
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { connect as connectTcp } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Kvm } from "@nats-io/kv";
import { PermissionViolationError, connect } from "@nats-io/transport-node";
import { BUCKETS } from "#protocol";
import { readStackFile, natsConnectSettings } from "../../tools/stsfleet/src/state.ts";
import { runStatus } from "../../tools/stsfleet/src/status.ts";
import type { FleetStatus } from "../../tools/stsfleet/src/status.ts";
import { onPath } from "../../tools/stsfleet/src/which.ts";
import { useStack, waitFor } from "../support/stack.ts";
import { createSet, waitForConverged } from "./helpers.ts";

const SKIP =
  onPath("openssl") === undefined
    ? "openssl is not on the PATH (Debian: apt-get install openssl): up --secure cannot make its certificates"
    : onPath("nats-server") === undefined
      ? "nats-server is not on the PATH (Debian: apt-get install nats-server)"
      : false;

interface Connz {
  connections: { name?: string; authorized_user?: string; tls_version?: string; tls_cipher_suite?: string }[];
}

/** Everything a plaintext client receives after sending `payload`, until the server closes the socket. */
function plaintextExchange(port: number, payload: (info: string) => string, timeoutMs = 10_000): Promise<{ received: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: "127.0.0.1", port });
    let received = "";
    let sent = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received, closed: false });
    }, timeoutMs);
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (!sent && received.includes("\r\n")) {
        sent = true;
        socket.write(payload(received.slice(0, received.indexOf("\r\n"))));
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ received, closed: true });
    });
    socket.on("timeout", () => reject(new Error("socket timeout")));
  });
}

describe("stsfleet up --secure", { skip: SKIP }, async () => {
  if (SKIP !== false) return;
  const t = await useStack({ secure: true, actors: 1 });
  const nats = t.stack.nats;
  const security = t.stack.natsSecurity;
  assert.ok(nats && security, "the secure stack runs its own nats-server");
  const port = nats.port;
  const natsLog = join(t.stateDir, "logs", "nats.log");

  it("the services connect as their own users over TLS and converge a StatefulSet with no permissions violation", async () => {
    await t.createNamespace("secure");
    await createSet(t.kube, "secure", "web", { replicas: 2 });
    const { pods } = await waitForConverged(t.kube, "secure", "web", 2);
    assert.equal(pods.length, 2);

    const connz = (await (await fetch(`${nats.monitorUrl}/connz?auth=true&limit=1024`)).json()) as Connz;
    // Connection names: `<service>/<instance>`, set by the service shell (ADR 0093).
    const serviceOf = (name = "") => /^(watcher|actor|pvc-provisioner|status-writer)\//.exec(name)?.[1];
    const services = connz.connections.filter((c) => serviceOf(c.name) !== undefined);
    assert.deepEqual(
      [...new Set(services.map((c) => c.authorized_user))].sort(),
      ["actor", "pvc-provisioner", "status-writer", "watcher"],
      JSON.stringify(connz.connections),
    );
    for (const c of services) {
      assert.equal(c.authorized_user, serviceOf(c.name), `${c.name} connects as its own user`);
      assert.match(c.tls_version ?? "", /^1\.[23]$/, `${c.name} uses TLS`);
    }
    // Every connection at all is authenticated and encrypted.
    for (const c of connz.connections) assert.ok(c.authorized_user && c.tls_version, JSON.stringify(c));
    assert.doesNotMatch(readFileSync(natsLog, "utf8"), /Violation/);

    // Passwords travel in the environment only: no log line and no command line shows one.
    const passwords = [...Object.values(security.services), security.operator].map((u) => u.password);
    for (const file of readdirSync(join(t.stateDir, "logs"))) {
      const text = readFileSync(join(t.stateDir, "logs", file), "utf8");
      for (const password of passwords) assert.equal(text.includes(password), false, `logs/${file} shows a password`);
    }
    for (const child of t.stack.services.values()) {
      // Linux only (/proc); elsewhere the environment-only rule is still checked through the logs.
      if (child.pid === undefined || !existsSync(`/proc/${child.pid}/cmdline`)) continue;
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, "utf8");
      for (const password of passwords) assert.equal(argv.includes(password), false, `${child.name}'s command line shows a password`);
    }
  });

  it("refuses a plaintext client even with the right password", async () => {
    const { received, closed } = await plaintextExchange(port, () => {
      const connect = { user: "watcher", pass: security.services.watcher.password, verbose: false, pedantic: false, tls_required: false };
      return `CONNECT ${JSON.stringify(connect)}\r\nPING\r\n`;
    });
    assert.match(received, /^INFO .*"tls_required":true/);
    assert.ok(closed, "the server closed the plaintext connection");
    assert.doesNotMatch(received, /PONG|\+OK/, "no protocol answer over plaintext");
  });

  it("refuses a TLS client with a wrong password, and one without a client certificate", async () => {
    const watcher = security.services.watcher;
    await assert.rejects(
      connect({ servers: nats.url, user: "watcher", pass: `${watcher.password}x`, tls: { ...watcher.tls }, reconnect: false, timeout: 5_000 }),
      /Authorization Violation/,
    );
    await assert.rejects(
      connect({ servers: nats.url, user: "watcher", pass: watcher.password, tls: { caFile: watcher.tls.caFile }, reconnect: false, timeout: 5_000 }),
      /certificate|handshake|closed|CONNECTION_REFUSED|ECONNRESET/i,
    );
  });

  it("stsfleet status reads the secure stack from its state dir", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runStatus({ stateDir: t.stateDir, output: "json", handoffs: 5 }, { out: (text) => out.push(text), err: (text) => err.push(text) });
    assert.equal(code, 0, err.join("\n"));
    const status = JSON.parse(out.join("\n")) as FleetStatus;
    assert.equal(status.ownedShards, 256, "the one actor owns every shard");
    assert.ok(status.sets >= 1, "the StatefulSet is counted");
  });

  it("stack.json leads readers to the read-only operator user: it reads the fleet and may not publish fleet subjects", async () => {
    const stackFile = readStackFile(t.stateDir);
    assert.ok(stackFile?.natsClient, "stack.json records natsClient");
    assert.equal(JSON.stringify(stackFile).includes(security.operator.password), false, "no password in stack.json");
    const nc = await connect({ ...natsConnectSettings(stackFile), name: "stsfleet-status", reconnect: false, timeout: 5_000 });
    const violations: PermissionViolationError[] = [];
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "error" && status.error instanceof PermissionViolationError) violations.push(status.error);
      }
    })();
    try {
      const members = await new Kvm(nc).open(BUCKETS.members, { bindOnly: true });
      const keys: string[] = [];
      for await (const key of await members.keys()) keys.push(key);
      assert.ok(keys.length >= 1, "the operator user lists the members");

      // Not a fleet subject, not the pvc-provisioner's durable consumer, not a stream.
      for (const subject of ["intent.0.secure.web", "$JS.API.CONSUMER.DELETE.STS_CMD.pvc", "$JS.API.STREAM.DELETE.K8S_OBJS"]) {
        nc.publish(subject, new Uint8Array([1]));
        await waitFor(`the refused publish to ${subject}`, () => violations.find((v) => v.operation === "publish" && v.subject === subject), {
          timeoutMs: 5_000,
        });
      }
      // The server logs violations, so the clean log of the first test means something.
      await waitFor("the violation in nats.log", () => /Violation/.test(readFileSync(natsLog, "utf8")), { timeoutMs: 5_000 });
    } finally {
      await nc.close();
    }
  });
});
