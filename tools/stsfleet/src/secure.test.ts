import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import { NatsServerStartError, startNatsServer } from "../../lib/nats-server.ts";
import {
  AUTH_CONF,
  OPERATOR_USER,
  SecureSetupError,
  authorizationWithOperator,
  natsPassword,
  passwordVariable,
  passwordVariablesOf,
  prepareSecureNats,
  serviceNatsEnv,
} from "./secure.ts";
import { startStack } from "./stack.ts";
import { natsConnectSettings } from "./state.ts";
import { onPath } from "./which.ts";

const OPENSSL = onPath("openssl");

describe("NATS passwords", () => {
  // nats-server parses the value of a `$VAR` reference as config: these shapes come out of base64url and hex draws.
  const HAZARDS = ["-abcDEF123_x", "12e45abcdef", "0123456789", "1e5abcd"];
  const SCRIPT = new URL("../../../deploy/scripts/nats-credentials.sh", import.meta.url).pathname;

  async function serverTakes(password: string): Promise<boolean> {
    let server;
    try {
      server = await startNatsServer({ extraConfig: 'authorization { users: [ { user: "a", password: $PW } ] }', env: { PW: password } });
    } catch (error) {
      if (error instanceof NatsServerStartError) return false;
      throw error;
    }
    try {
      const nc = await connect({ servers: server.url, user: "a", pass: password, reconnect: false });
      await nc.close();
      return true;
    } finally {
      await server.stop();
    }
  }

  it("nats-server refuses the raw shapes and takes them behind the leading letter our passwords start with", async () => {
    for (const raw of HAZARDS) {
      assert.equal(await serverTakes(raw), false, `${raw} as it comes`);
      assert.equal(await serverTakes(`p${raw}`), true, `p${raw}`);
    }
  });

  it("are random, start with a letter and use only characters that need no quoting (up --secure and the deploy script)", () => {
    const drawn = Array.from({ length: 2_000 }, () => natsPassword());
    for (const password of drawn) assert.match(password, /^p[A-Za-z0-9_-]{32}$/);
    assert.equal(new Set(drawn).size, drawn.length);
    const env = execFileSync("bash", [SCRIPT, "env"], { encoding: "utf8" });
    const values = [...env.matchAll(/^STSFLEET_NATS_[A-Z_]+_PASSWORD=(.*)$/gm)].map((m) => m[1] ?? "");
    assert.equal(values.length, 4);
    for (const value of values) assert.match(value, /^p[0-9a-f]{48}$/);
  });
});

describe("the authorization block of up --secure", () => {
  const shipped = readFileSync(AUTH_CONF, "utf8");

  it("is auth.conf as shipped with the operator user added once", () => {
    const block = authorizationWithOperator(shipped);
    assert.equal(block.match(/\buser:\s*"stsfleet"/g)?.length, 1);
    // Nothing of the shipped file is lost or reordered: removing the insertion gives the file back.
    const inserted = block.length - shipped.length;
    const at = block.indexOf("\n    {\n      # local stack only");
    assert.ok(at > 0);
    assert.equal(block.slice(0, at) + block.slice(at + inserted), shipped);
  });

  it("refers to one password variable per service and one for the operator", () => {
    assert.deepEqual(passwordVariablesOf(authorizationWithOperator(shipped)), [
      "STSFLEET_NATS_ACTOR_PASSWORD",
      "STSFLEET_NATS_PVC_PROVISIONER_PASSWORD",
      "STSFLEET_NATS_STATUS_WRITER_PASSWORD",
      "STSFLEET_NATS_STSFLEET_PASSWORD",
      "STSFLEET_NATS_WATCHER_PASSWORD",
    ]);
    assert.equal(passwordVariable("pvc-provisioner"), "STSFLEET_NATS_PVC_PROVISIONER_PASSWORD");
  });

  it("is not combined with an external NATS (its users and TLS would not be there)", async () => {
    await assert.rejects(startStack({ stateDir: join(tmpdir(), "never-made"), secure: true, natsUrl: "nats://127.0.0.1:1" }), /cannot be combined with --nats-url/);
    assert.equal(existsSync(join(tmpdir(), "never-made")), false);
  });

  it("refuses a file without exactly one users list", () => {
    assert.throws(() => authorizationWithOperator("authorization { }"), SecureSetupError);
    assert.throws(() => authorizationWithOperator("users: [] users: []"), /found 2/);
  });
});

describe("prepareSecureNats", { skip: OPENSSL === undefined ? "openssl is not on the PATH (Debian: apt-get install openssl)" : false }, () => {
  const stateDir = mkdtempSync(join(tmpdir(), "stsfleet-secure-"));
  after(() => rmSync(stateDir, { recursive: true, force: true }));

  it("makes a CA, a loopback server certificate and a client certificate per user, keys and passwords private", async () => {
    const secure = await prepareSecureNats(stateDir, { openssl: OPENSSL ?? "openssl" });
    const ca = new X509Certificate(readFileSync(secure.caFile));
    assert.ok(ca.ca, "the CA certificate is a CA");
    assert.equal(existsSync(join(secure.dir, "ca.key")), false, "the CA key is gone once everything is signed");

    const server = new X509Certificate(readFileSync(secure.server.certFile));
    assert.ok(server.checkIssued(ca) && server.verify(ca.publicKey));
    assert.equal(server.checkIP("127.0.0.1"), "127.0.0.1");
    assert.equal(server.checkHost("localhost"), "localhost");
    assert.match(server.keyUsage?.join(",") ?? "", /1\.3\.6\.1\.5\.5\.7\.3\.1/, "serverAuth");

    const users = [...Object.values(secure.services), secure.operator];
    assert.deepEqual(users.map((u) => u.user).sort(), ["actor", "pvc-provisioner", "status-writer", OPERATOR_USER, "watcher"].sort());
    for (const user of users) {
      const cert = new X509Certificate(readFileSync(user.tls.certFile));
      assert.equal(cert.subject, `CN=${user.user}`);
      assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), `${user.user} is signed by the CA`);
      assert.match(cert.keyUsage?.join(",") ?? "", /1\.3\.6\.1\.5\.5\.7\.3\.2/, "clientAuth");
      assert.equal(statSync(user.tls.keyFile).mode & 0o077, 0, `${user.tls.keyFile} is private`);
      assert.ok(user.password.length >= 32);
    }
    assert.equal(new Set(users.map((u) => u.password)).size, users.length, "every user has its own password");
    assert.equal(statSync(secure.server.keyFile).mode & 0o077, 0);
    assert.equal(statSync(secure.dir).mode & 0o077, 0, "only the owner may enter the secure dir");

    // The server gets exactly the passwords the authorization block refers to.
    assert.deepEqual(Object.keys(secure.serverEnv).sort(), passwordVariablesOf(secure.authorization));
    assert.equal(secure.serverEnv["STSFLEET_NATS_ACTOR_PASSWORD"], secure.services.actor.password);
    assert.deepEqual(serviceNatsEnv(secure.services.watcher), {
      NATS_USER: "watcher",
      NATS_PASSWORD: secure.services.watcher.password,
      NATS_TLS_CA: secure.caFile,
      NATS_TLS_CERT: secure.services.watcher.tls.certFile,
      NATS_TLS_KEY: secure.services.watcher.tls.keyFile,
    });

    // stack.json's record leads other commands to the operator user without holding the password itself.
    assert.equal(JSON.stringify(secure.clientAccess).includes(secure.operator.password), false);
    assert.equal(statSync(secure.clientAccess.passwordFile).mode & 0o077, 0);
    const settings = natsConnectSettings({ nats: "tls://127.0.0.1:4222", natsClient: secure.clientAccess });
    assert.deepEqual(settings, {
      servers: ["tls://127.0.0.1:4222"],
      user: OPERATOR_USER,
      pass: secure.operator.password,
      tls: secure.operator.tls,
      inboxPrefix: "_INBOX.stsfleet",
    });
  });

  it("a plain stack needs only the URL", () => {
    assert.deepEqual(natsConnectSettings({ nats: "nats://a:1, nats://b:2" }), { servers: ["nats://a:1", "nats://b:2"] });
  });

  it("reports a failing openssl with the step and its message", async () => {
    await assert.rejects(prepareSecureNats(join(stateDir, "x"), { openssl: "/bin/false" }), (error: unknown) => {
      assert.ok(error instanceof SecureSetupError);
      assert.equal(error.step, "certificates");
      return true;
    });
  });
});
