// TLS as an option (ADR 0065): the certificate script, the compose override (deploy/compose/tls.yml), the
// kustomize Component (deploy/components/nats-tls) on both overlays, and a real nats-server running the compose TLS
// configuration with the script's certificates, where every service connects with its own certificate and user.
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect } from "@nats-io/transport-node";
import { inboxPrefixFor } from "../../services/common/src/nats.ts";
import { KUBECTL_SKIP, named, ofKind, renderKustomization } from "./manifests.ts";
import type { K8sObject } from "./manifests.ts";
import { NATS_SKIP, startShippedNatsServer } from "./nats-server.ts";
import { SERVICES, findExecutable, parseYamlDocuments, passwordVariable, readRepoFile, repoPath, repoTempDir, run, testPasswords } from "./support.ts";

const OPENSSL_SKIP = findExecutable("openssl") ? false : "openssl is not on the PATH (Debian: apt-get install openssl), so no certificates can be made";
const DOCKER_COMPOSE = findExecutable("docker-compose");
const COMPOSE_SKIP = DOCKER_COMPOSE ? false : "docker-compose is not on the PATH (Debian: apt-get install docker-compose)";
const SCRIPT = repoPath("deploy/scripts/nats-tls.sh");
const SERVER_CERT_PATHS = ["ca.crt", "nats-server.crt", "nats-server.key"];

/** Runs the script with its defaults (the names compose and Kubernetes use) into a fresh temp dir. */
async function makeCertificates(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), "stsfleet-tls-")), "tls");
  const result = await run("bash", [SCRIPT, dir], { timeoutMs: 60_000 });
  assert.equal(result.code, 0, `nats-tls.sh failed:\n${result.stderr}`);
  return dir;
}

describe("deploy/scripts/nats-tls.sh", { skip: OPENSSL_SKIP }, () => {
  let dir: string;
  before(async () => (dir = await makeCertificates()));
  after(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

  it("signs a server certificate for the compose and Kubernetes names and a client certificate per service", () => {
    const ca = new X509Certificate(readFileSync(join(dir, "ca.crt")));
    assert.ok(ca.ca);
    assert.equal(existsSync(join(dir, "ca.key")), false, "the CA key does not outlive the run");
    const server = new X509Certificate(readFileSync(join(dir, "nats-server.crt")));
    assert.ok(server.verify(ca.publicKey));
    for (const host of ["nats", "localhost", "nats.stsfleet-system.svc", "nats.stsfleet-system.svc.cluster.local"]) {
      assert.equal(server.checkHost(host), host, `the server certificate names ${host}`);
    }
    assert.equal(server.checkIP("127.0.0.1"), "127.0.0.1");
    for (const service of SERVICES) {
      const cert = new X509Certificate(readFileSync(join(dir, `${service}.crt`)));
      assert.equal(cert.subject, `CN=${service}`);
      assert.ok(cert.verify(ca.publicKey));
      assert.equal(statSync(join(dir, `${service}.key`)).mode & 0o077, 0, "keys are private by default");
    }
    assert.equal(statSync(dir).mode & 0o077, 0);
  });

  it("fails loudly without a usable openssl", async () => {
    const out = mkdtempSync(join(tmpdir(), "stsfleet-tls-bad-"));
    try {
      const result = await run("bash", [SCRIPT, join(out, "tls")], { env: { ...process.env, OPENSSL: "/bin/false" } });
      assert.notEqual(result.code, 0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: (string | { source?: string; target?: string })[];
}

function mounts(service: ComposeService | undefined): Map<string, string> {
  return new Map(
    (service?.volumes ?? []).map((v) => {
      if (typeof v !== "string") return [v.target ?? "", v.source ?? ""];
      const [source = "", target = ""] = v.split(":");
      return [target, source];
    }),
  );
}

describe("docker-compose.yml with deploy/compose/tls.yml", { skip: COMPOSE_SKIP }, () => {
  let services: Record<string, ComposeService>;
  const tlsDir = "/secrets/stsfleet-tls";

  before(async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...testPasswords(), STSFLEET_TLS_DIR: tlsDir };
    delete env["COMPOSE_FILE"];
    delete env["COMPOSE_PROFILES"];
    const result = await run(DOCKER_COMPOSE ?? "docker-compose", ["-f", repoPath("docker-compose.yml"), "-f", repoPath("deploy/compose/tls.yml"), "config"], {
      env,
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 0, `docker-compose config with tls.yml failed:\n${result.stderr}`);
    const [doc] = parseYamlDocuments(result.stdout);
    services = (doc?.["services"] ?? {}) as Record<string, ComposeService>;
  });

  it("runs nats-server with nats-tls.conf, which includes nats.conf and reads the mounted server files", () => {
    const nats = services["nats"];
    assert.deepEqual(nats?.command, ["-c", "/etc/nats/nats-tls.conf"]);
    const natsMounts = mounts(nats);
    assert.equal(natsMounts.get("/etc/nats/nats-tls.conf"), repoPath("deploy/compose/nats-tls.conf"));
    assert.ok(natsMounts.get("/etc/nats/nats.conf") && natsMounts.get("/etc/nats/auth.conf"), "the plain configuration stays mounted");
    const config = readRepoFile("deploy/compose/nats-tls.conf");
    assert.match(config, /^include "nats\.conf"$/m);
    assert.match(config, /^\s*verify: true$/m, "clients must present a certificate");
    for (const file of SERVER_CERT_PATHS) {
      assert.equal(natsMounts.get(`/etc/nats/tls/${file}`), `${tlsDir}/${file}`);
      assert.ok(config.includes(`"/etc/nats/tls/${file}"`), `nats-tls.conf reads ${file}`);
    }
  });

  it("points every service at tls://nats:4222 with the CA and its own certificate and key, and no one else's", () => {
    for (const service of SERVICES) {
      const entry = services[service];
      const env = entry?.environment ?? {};
      assert.equal(env["NATS_URL"], "tls://nats:4222", service);
      assert.equal(env["NATS_USER"], service, "the user and password stay as in docker-compose.yml");
      assert.ok(env["NATS_PASSWORD"]);
      const serviceMounts = mounts(entry);
      for (const [variable, file] of [["NATS_TLS_CA", "ca.crt"], ["NATS_TLS_CERT", `${service}.crt`], ["NATS_TLS_KEY", `${service}.key`]] as const) {
        const target = env[variable];
        assert.ok(target, `${service} sets ${variable}`);
        assert.equal(serviceMounts.get(target), `${tlsDir}/${file}`, `${service}: ${variable} is ${file}`);
      }
      const keys = [...serviceMounts.values()].filter((source) => source.endsWith(".key"));
      assert.deepEqual(keys, [`${tlsDir}/${service}.key`], `${service} mounts only its own key`);
    }
  });
});

interface Container {
  name: string;
  args?: string[];
  envFrom?: { configMapRef?: { name: string } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Workload extends K8sObject {
  spec: {
    template: {
      spec: {
        securityContext?: { fsGroup?: number };
        containers: Container[];
        volumes?: { name: string; secret?: { secretName: string; defaultMode?: number; items?: { key: string; path: string }[] } }[];
      };
    };
  };
}
interface ConfigMap extends K8sObject {
  data?: Record<string, string>;
}

describe("deploy/components/nats-tls on both overlays", { skip: KUBECTL_SKIP }, () => {
  const rendered = new Map<string, K8sObject[]>();
  const dir = repoTempDir("kustomize-tls-");
  after(() => rmSync(dir, { recursive: true, force: true }));

  before(async () => {
    for (const overlay of ["dev", "prod"]) {
      const root = join(dir, overlay);
      const up = relative(root, repoPath());
      mkdirSync(root, { recursive: true });
      writeFileSync(
        join(root, "kustomization.yaml"),
        [
          "apiVersion: kustomize.config.k8s.io/v1beta1",
          "kind: Kustomization",
          `resources: [${join(up, "deploy/overlays", overlay)}]`,
          `components: [${join(up, "deploy/components/nats-tls")}]`,
          "",
        ].join("\n"),
      );
      rendered.set(overlay, await renderKustomization(relative(repoPath("deploy"), root)));
    }
  });

  for (const overlay of ["dev", "prod"]) {
    it(`${overlay}: NATS runs nats-tls.conf (the overlay's nats.conf plus mutual TLS) with the server files from the Secret`, () => {
      const objects = rendered.get(overlay) ?? [];
      const nats = named<Workload>(objects, "StatefulSet", "nats");
      const container = nats.spec.template.spec.containers.find((c) => c.name === "nats");
      assert.deepEqual(container?.args, ["-c", "/etc/nats/nats-tls.conf"]);
      assert.ok(container?.volumeMounts?.some((m) => m.name === "nats-tls" && m.mountPath === "/etc/nats/tls" && m.readOnly));
      const volume = nats.spec.template.spec.volumes?.find((v) => v.name === "nats-tls");
      assert.equal(volume?.secret?.secretName, "stsfleet-nats-tls");
      assert.deepEqual(volume.secret.items?.map((i) => i.path), SERVER_CERT_PATHS);
      const config = ofKind<ConfigMap>(objects, "ConfigMap").find((c) => c.metadata.name.startsWith("nats-config"));
      const tlsConf = config?.data?.["nats-tls.conf"] ?? "";
      assert.match(tlsConf, /^include "nats\.conf"$/m);
      assert.match(tlsConf, /^\s*verify: true$/m);
      assert.ok(config?.data?.["nats.conf"] && config.data["auth.conf"], "nats.conf and auth.conf stay next to it");
      if (overlay === "prod") assert.match(config?.data?.["nats.conf"] ?? "", /cluster/, "prod keeps its cluster configuration");
    });

    it(`${overlay}: each service connects to tls://nats:4222 with the CA and its own certificate and key only`, () => {
      const objects = rendered.get(overlay) ?? [];
      const envMap = ofKind<ConfigMap>(objects, "ConfigMap").find((c) => c.metadata.name.startsWith("stsfleet-env"));
      const env = envMap?.data ?? {};
      assert.equal(env["NATS_URL"], "tls://nats:4222");
      for (const service of SERVICES) {
        const deployment = named<Workload>(objects, "Deployment", `stsfleet-${service}`);
        const pod = deployment.spec.template.spec;
        const container = pod.containers.find((c) => c.name === service);
        assert.ok(container?.envFrom?.some((e) => e.configMapRef?.name === envMap?.metadata.name), `${service} reads ${envMap?.metadata.name}`);
        const mount = container?.volumeMounts?.find((m) => m.name === "nats-tls");
        assert.ok(mount?.readOnly, `${service} mounts the Secret read-only`);
        const volume = pod.volumes?.find((v) => v.name === "nats-tls");
        const items = new Map(volume?.secret?.items?.map((i) => [`${mount.mountPath}/${i.path}`, i.key]));
        assert.equal(items.get(env["NATS_TLS_CA"] ?? ""), "ca.crt", service);
        assert.equal(items.get(env["NATS_TLS_CERT"] ?? ""), `${service}.crt`, service);
        assert.equal(items.get(env["NATS_TLS_KEY"] ?? ""), `${service}.key`, service);
        assert.equal(items.size, 3, `${service} gets no other service's key`);
        // Readable by the container's group (it runs as UID/GID 1000), by no one else.
        assert.equal(volume?.secret?.defaultMode, 0o440);
        assert.equal(pod.securityContext?.fsGroup, 1000);
      }
    });
  }
});

describe("nats-server with the compose TLS configuration and the script's certificates", { skip: NATS_SKIP || OPENSSL_SKIP }, () => {
  const passwords = testPasswords();
  let dir: string;
  let server: Awaited<ReturnType<typeof startShippedNatsServer>>;
  before(async () => {
    dir = await makeCertificates();
    server = await startShippedNatsServer(passwords, { tlsDir: dir });
  });
  after(async () => {
    await server.stop();
    rmSync(join(dir, ".."), { recursive: true, force: true });
  });

  it("lets each service in with its own certificate and password, over TLS", async () => {
    for (const service of SERVICES) {
      const nc = await connect({
        servers: server.url.replace(/^nats:/, "tls:"),
        user: service,
        pass: passwords[passwordVariable(service)],
        tls: { caFile: join(dir, "ca.crt"), certFile: join(dir, `${service}.crt`), keyFile: join(dir, `${service}.key`) },
        inboxPrefix: inboxPrefixFor(service),
        reconnect: false,
      });
      await nc.flush();
      await nc.close();
    }
    const connz = (await (await fetch(`${server.monitorUrl}/connz?state=closed&auth=true`)).json()) as {
      connections: { authorized_user?: string; tls_version?: string }[];
    };
    assert.deepEqual(connz.connections.map((c) => c.authorized_user).sort(), [...SERVICES].sort());
    assert.ok(connz.connections.every((c) => c.tls_version), "every connection used TLS");
  });

  it("refuses a client without a certificate", async () => {
    await assert.rejects(
      connect({
        servers: server.url.replace(/^nats:/, "tls:"),
        user: "actor",
        pass: passwords[passwordVariable("actor")],
        tls: { caFile: join(dir, "ca.crt") },
        reconnect: false,
        timeout: 5_000,
      }),
    );
  });
});
