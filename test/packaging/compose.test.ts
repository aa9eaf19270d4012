// docker-compose.yml as `docker-compose config` resolves it: the stack's services, three actors, health checks,
// loopback-only ports, tracing to Jaeger, one NATS user per service, and no default passwords.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { before, describe, it } from "node:test";
import { MAX_PAYLOAD_BYTES } from "#protocol";
import { SERVICES, findExecutable, parseYamlDocuments, passwordVariable, readRepoFile, repoPath, run, testPasswords } from "./support.ts";

const DOCKER_COMPOSE = findExecutable("docker-compose");
const SKIP = DOCKER_COMPOSE
  ? false
  : "docker-compose is not on the PATH (Debian: apt-get install docker-compose), so docker-compose.yml is not validated";

/** Ports the README documents as published on the host (all on 127.0.0.1). */
const DOCUMENTED_PORTS = new Map([
  [4222, "nats"],
  [8222, "nats"],
  [6443, "kube-sim"],
  [16686, "jaeger"],
  [4318, "jaeger"],
  [9090, "prometheus"],
  [3000, "grafana"],
]);
/** Host addresses a port may be published on without being reachable from the network. */
const LOOPBACK = new Set(["127.0.0.1", "::1"]);

interface ComposeService {
  image?: string;
  command?: string[];
  profiles?: string[];
  deploy?: { replicas?: number };
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  ports?: (string | { host_ip?: string; published?: number | string; target?: number })[];
  volumes?: (string | { source?: string; target?: string })[];
  depends_on?: Record<string, { condition?: string }> | string[];
}

interface ComposeConfig {
  services: Record<string, ComposeService>;
}

async function composeConfig(args: readonly string[], env: Record<string, string>, unset: readonly string[] = []) {
  const cleanEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of ["COMPOSE_PROFILES", "COMPOSE_FILE", ...unset]) delete cleanEnv[name];
  return run(DOCKER_COMPOSE ?? "docker-compose", ["-f", repoPath("docker-compose.yml"), ...args, "config"], { env: cleanEnv, timeoutMs: 60_000 });
}

function parseConfig(stdout: string): ComposeConfig {
  const [doc] = parseYamlDocuments(stdout);
  assert.ok(doc && typeof doc["services"] === "object", "docker-compose config printed no services");
  return doc as unknown as ComposeConfig;
}

/** "127.0.0.1:4222:4222/tcp" or the long form -> host address and published port. */
function publishedPorts(service: ComposeService): { host: string; port: number }[] {
  return (service.ports ?? []).map((entry) => {
    if (typeof entry === "string") {
      const parts = entry.replace(/\/(tcp|udp)$/, "").split(":");
      if (parts.length === 3) return { host: parts[0] ?? "", port: Number(parts[1]) };
      return { host: "0.0.0.0", port: Number(parts[0]) };
    }
    return { host: entry.host_ip ?? "0.0.0.0", port: Number(entry.published) };
  });
}

describe("docker-compose.yml", { skip: SKIP }, () => {
  const passwords = testPasswords();
  let stack: ComposeConfig;
  let withObservability: ComposeConfig;

  before(async () => {
    const plain = await composeConfig([], passwords);
    assert.equal(plain.code, 0, `docker-compose config failed:\n${plain.stderr}`);
    stack = parseConfig(plain.stdout);
    const observability = await composeConfig(["--profile", "observability"], passwords);
    assert.equal(observability.code, 0, `docker-compose --profile observability config failed:\n${observability.stderr}`);
    withObservability = parseConfig(observability.stdout);
  });

  it("defines NATS, Jaeger, the simulator and the four services, with Prometheus and Grafana in the observability profile", () => {
    const expected = ["nats", "jaeger", "kube-sim", ...SERVICES];
    for (const name of expected) assert.ok(stack.services[name], `service ${name} missing`);
    for (const name of ["prometheus", "grafana"]) {
      assert.deepEqual(withObservability.services[name]?.profiles, ["observability"], `${name} must be in the observability profile`);
    }
    // Compose v2 lists profile services in `config` too; what matters is that nothing outside the profile needs them.
    for (const [name, service] of Object.entries(withObservability.services)) {
      if (service.profiles?.includes("observability")) continue;
      const dependencies = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
      for (const dependency of dependencies) {
        assert.ok(!withObservability.services[dependency]?.profiles, `${name} depends on ${dependency}, which runs only in a profile`);
      }
    }
  });

  it("runs three actor replicas and one of every other service", () => {
    assert.equal(stack.services["actor"]?.deploy?.replicas, 3);
    for (const name of ["watcher", "pvc-provisioner", "status-writer"]) assert.ok((stack.services[name]?.deploy?.replicas ?? 1) === 1, name);
  });

  it("gives every service a health check, and the stsfleet services one through the image's launcher", () => {
    for (const [name, service] of Object.entries(withObservability.services)) {
      assert.ok(service.healthcheck?.test && service.healthcheck.test.length > 0 && service.healthcheck.disable !== true, `${name} has no health check`);
    }
    for (const name of [...SERVICES, "kube-sim"]) {
      const test = stack.services[name]?.healthcheck?.test ?? [];
      assert.deepEqual(test.slice(0, 4), ["CMD", "node", "/app/dist/stsfleet.mjs", "healthcheck"], name);
      assert.deepEqual(stack.services[name]?.command?.[0], name, `${name} must start its own service from the shared image`);
      assert.equal(stack.services[name]?.image, "stsfleet:dev");
    }
  });

  it("publishes ports on the loopback address only, and only the documented ones", () => {
    for (const [name, service] of Object.entries(withObservability.services)) {
      for (const { host, port } of publishedPorts(service)) {
        assert.ok(LOOPBACK.has(host), `${name} publishes ${port} on ${host}, reachable from the network`);
        assert.equal(DOCUMENTED_PORTS.get(port), name, `${name} publishes undocumented port ${port}`);
      }
    }
    assert.deepEqual(publishedPorts(stack.services["actor"] ?? {}), [], "replicated actors cannot publish a host port");
  });

  it("sends every service's traces to Jaeger over OTLP/HTTP under its own service name", () => {
    const names = new Set<string>();
    for (const name of SERVICES) {
      const env = stack.services[name]?.environment ?? {};
      assert.equal(env["OTEL_EXPORTER_OTLP_ENDPOINT"], "http://jaeger:4318", name);
      assert.equal(env["OTEL_SERVICE_NAME"], `stsfleet-${name}`);
      names.add(env["OTEL_SERVICE_NAME"] ?? "");
    }
    assert.equal(names.size, SERVICES.length);
  });

  it("connects each service to NATS as its own user, with the password NATS checks for that user", () => {
    const natsEnv = stack.services["nats"]?.environment ?? {};
    for (const name of SERVICES) {
      const env = stack.services[name]?.environment ?? {};
      assert.equal(env["NATS_USER"], name);
      assert.equal(env["NATS_URL"], "nats://nats:4222");
      const variable = passwordVariable(name);
      assert.equal(env["NATS_PASSWORD"], passwords[variable], `${name} must use ${variable}`);
      assert.equal(natsEnv[variable], passwords[variable], `nats must receive ${variable}`);
    }
    const auth = readRepoFile("deploy/base/nats/auth.conf");
    for (const name of SERVICES) assert.match(auth, new RegExp(`user: "${name}"\\s+password: \\$${passwordVariable(name)}\\b`));
  });

  it("has no default NATS passwords: config fails and says how to make them", async () => {
    const variable = passwordVariable("actor");
    const others = Object.fromEntries(Object.entries(passwords).filter(([name]) => name !== variable));
    const result = await composeConfig([], others, [variable]);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /nats-credentials\.sh env/);
  });

  it("mounts files that exist: the NATS config and users, the kubeconfig, Prometheus and Grafana provisioning", () => {
    for (const [name, service] of Object.entries(withObservability.services)) {
      for (const volume of service.volumes ?? []) {
        const source = typeof volume === "string" ? volume.split(":")[0] ?? "" : (volume.source ?? "");
        if (!source.startsWith("/")) continue; // a named volume
        assert.ok(existsSync(source), `${name} mounts ${source}, which does not exist`);
      }
    }
    const natsMounts = (stack.services["nats"]?.volumes ?? []).map((v) => (typeof v === "string" ? v : `${v.source ?? ""}:${v.target ?? ""}`));
    assert.ok(natsMounts.some((m) => m.includes("deploy/base/nats/auth.conf") && m.includes("/etc/nats/auth.conf")), "auth.conf next to nats.conf");
  });

  it("lets NATS carry objects above 1 MiB, which Kubernetes accepts (protocol/src/limits.ts)", () => {
    assert.match(readRepoFile("deploy/compose/nats.conf"), new RegExp(`^max_payload: ${MAX_PAYLOAD_BYTES}$`, "m"));
  });
});

describe("deploy/compose/prometheus.yml", () => {
  it("scrapes every stsfleet service on its metrics port and keeps the services' own labels", () => {
    const [config] = parseYamlDocuments(readRepoFile("deploy/compose/prometheus.yml"));
    const jobs = (config?.["scrape_configs"] ?? []) as { job_name: string; honor_labels?: boolean; dns_sd_configs?: { names: string[]; port: number }[] }[];
    const stsfleet = jobs.find((job) => job.job_name === "stsfleet");
    assert.ok(stsfleet, "job stsfleet");
    assert.equal(stsfleet.honor_labels, true);
    const names = new Set((stsfleet.dns_sd_configs ?? []).flatMap((sd) => (sd.port === 8080 ? sd.names : [])));
    assert.deepEqual([...names].sort(), [...SERVICES].sort());
  });

  it("is Grafana's datasource, and Grafana loads the fleet dashboard from the mounted folder", () => {
    const [datasources] = parseYamlDocuments(readRepoFile("deploy/compose/grafana/provisioning/datasources/prometheus.yaml"));
    const list = (datasources?.["datasources"] ?? []) as { type: string; url: string; uid: string }[];
    assert.deepEqual(list.map((d) => [d.type, d.url]), [["prometheus", "http://prometheus:9090"]]);
    const [providers] = parseYamlDocuments(readRepoFile("deploy/compose/grafana/provisioning/dashboards/stsfleet.yaml"));
    const provider = ((providers?.["providers"] ?? []) as { options: { path: string } }[])[0];
    assert.equal(provider?.options.path, "/var/lib/grafana/dashboards/stsfleet");
    assert.match(readRepoFile("docker-compose.yml"), /\.\/deploy\/base\/monitoring\/dashboards:\/var\/lib\/grafana\/dashboards\/stsfleet:ro/);
  });
});
