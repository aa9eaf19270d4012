// What the container image runs, without a Docker engine: the Dockerfile's build step (deploy/docker/bundle.mjs)
// bundles every service from the files .dockerignore lets into the build context, the launcher selects a service
// and health-checks it, and the bundled services, connected as their own NATS users to a nats-server running the
// shipped configuration, take a StatefulSet to Ready on the simulator with no permission refused, no Kubernetes
// write outside the calls their code is known to make, the roles granting what OwnerReferencesPermissionEnforcement
// would ask of the owner references they wrote, and every metric the dashboard queries exported.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CODE_PERMISSIONS, EXPECTED_PERMISSIONS, ownerReferencesPermissionChecks } from "./manifests.ts";
import type { OwnerRef } from "./manifests.ts";
import { NATS_SKIP, startShippedNatsServer } from "./nats-server.ts";
import type { ShippedNatsServer } from "./nats-server.ts";
import { REPO_ROOT, SERVICES, metricNames, passwordVariable, readRepoFile, repoPath, repoTempDir, run, testPasswords } from "./support.ts";
import type { Service } from "./support.ts";

const NODE = process.execPath;
const LAUNCHER_SERVICES = [...SERVICES, "kube-sim"] as const;

interface BundleResult {
  outdir: string;
  inputs: string[];
}

/** Runs the Dockerfile's build step; the source maps say which files went into the bundles. */
async function bundleInto(outdir: string): Promise<BundleResult> {
  const result = await run(NODE, [repoPath("deploy/docker/bundle.mjs"), "--outdir", outdir], { timeoutMs: 120_000 });
  assert.equal(result.code, 0, `deploy/docker/bundle.mjs failed:\n${result.stderr}`);
  const maps = readdirSync(outdir)
    .filter((file) => file.endsWith(".mjs.map"))
    .map((file) => JSON.parse(readFileSync(join(outdir, file), "utf8")) as { sources: string[] });
  assert.equal(maps.length, LAUNCHER_SERVICES.length, "one bundle per service");
  const inputs = new Set<string>();
  for (const map of maps) for (const source of map.sources) inputs.add(relative(REPO_ROOT, join(outdir, source)));
  return { outdir, inputs: [...inputs].sort() };
}

/** .dockerignore semantics for the patterns we use: `*`, `**`, and a pattern that names a directory excludes its files. */
function dockerignored(path: string, patterns: readonly string[]): boolean {
  let excluded = false;
  for (const raw of patterns) {
    const negate = raw.startsWith("!");
    const pattern = (negate ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, "");
    const glob = (text: string) => text.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", "[^/]*").replaceAll("?", "[^/]");
    // `**/` matches zero or more directories; a trailing or inner `**` anything.
    const body = pattern
      .split("**/")
      .map((part) => part.split("**").map(glob).join(".*"))
      .join("(?:.*/)?");
    const regex = new RegExp(`^${body}(/.*)?$`);
    if (regex.test(path)) excluded = !negate;
  }
  return excluded;
}

function launcher(outdir: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  return run(NODE, [join(outdir, "stsfleet.mjs"), ...args], { env, timeoutMs: 60_000 });
}

describe("the image's build step and launcher", () => {
  let built: BundleResult;

  before(async () => {
    built = await bundleInto(join(repoTempDir("image-"), "dist"));
  });
  after(() => rmSync(join(built.outdir, ".."), { recursive: true, force: true }));

  it("bundles every service only from files the Docker build context contains", () => {
    const patterns = readRepoFile(".dockerignore")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    const copied = ["protocol/", "services/", "tools/", "package.json"];
    assert.ok(built.inputs.length > 50, `only ${built.inputs.length} inputs`);
    for (const input of built.inputs) {
      assert.ok(!dockerignored(input, patterns), `${input} is bundled but .dockerignore keeps it out of the build`);
      assert.ok(copied.some((prefix) => input.startsWith(prefix)), `${input} is bundled but the Dockerfile does not COPY it`);
    }
    for (const secretOrLocal of ["node_modules/x/index.js", "services/x/node_modules/y.js", ".git/HEAD", ".env", "deploy/tls/tls.key", ".stsfleet/compose.env"]) {
      assert.ok(dockerignored(secretOrLocal, patterns), `${secretOrLocal} must stay out of the build context`);
    }
  });

  it("starts each service by name and passes its flags through", async () => {
    for (const service of LAUNCHER_SERVICES) {
      const result = await launcher(built.outdir, [service, "--help"]);
      assert.equal(result.code, 0, `${service} --help: ${result.stderr}`);
      assert.match(result.stdout, /^Usage: /, service);
    }
    const bogus = await launcher(built.outdir, ["controller-manager"]);
    assert.equal(bogus.code, 2);
    assert.match(bogus.stderr, /unknown service "controller-manager"/);
    const invalid = await launcher(built.outdir, ["actor", "--nats-replicas", "zero"]);
    assert.notEqual(invalid.code, 0, "a service's own flag validation still applies");
  });

  it("health-checks /readyz on the probe address: 200 passes, anything else or nothing listening fails", async () => {
    let status = 200;
    const server = createServer((request, response) => {
      response.writeHead(request.url === "/readyz" ? status : 404).end(status === 200 ? "ok" : "[-]nats failed");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const env = { ...process.env, HEALTH_PROBE_BIND_ADDRESS: `:${port}` };
      assert.equal((await launcher(built.outdir, ["healthcheck"], env)).code, 0);
      status = 503;
      assert.equal((await launcher(built.outdir, ["healthcheck"], env)).code, 1);
      assert.equal((await launcher(built.outdir, ["healthcheck", `http://127.0.0.1:${port}/readyz`])).code, 1);
      assert.equal((await launcher(built.outdir, ["healthcheck"], { ...process.env, HEALTH_PROBE_BIND_ADDRESS: "0" })).code, 0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const nothing = await launcher(built.outdir, ["healthcheck", `http://127.0.0.1:${port}/readyz`]);
    assert.equal(nothing.code, 1);
  });

  it("builds from a pinned Node 22 image, installs production dependencies only, and runs as a non-root user", () => {
    const dockerfile = readRepoFile("Dockerfile");
    const devDependency = (JSON.parse(readRepoFile("package.json")) as { devDependencies: Record<string, string> }).devDependencies["node"] ?? "";
    const image = /^ARG NODE_IMAGE=node:(22\.\d+\.\d+)-[a-z]+-slim$/m.exec(dockerfile);
    assert.ok(image, "NODE_IMAGE pins an exact Node 22 release");
    assert.equal(devDependency.replace(/^[\^~]/, ""), image[1], "the image's Node matches the `node` devDependency");
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const final = stages.at(-1) ?? "";
    assert.match(final, /^\$\{NODE_IMAGE\} AS runtime/);
    assert.match(dockerfile, /npm ci --omit=dev/);
    assert.match(final, /^USER [1-9][0-9]*:[1-9][0-9]*$/m, "a numeric non-root user, so runAsNonRoot can be verified");
    assert.match(final, /^ENTRYPOINT \["node", "\/app\/dist\/stsfleet\.mjs"\]$/m);
    for (const line of final.split("\n").filter((l) => l.startsWith("COPY"))) {
      assert.match(line, /^COPY --from=(deps|build) /, `the final stage copies only built artefacts: ${line}`);
    }
    assert.doesNotMatch(final, /tsx|typescript|esbuild/, "no build tooling in the final stage");
  });
});

interface Running {
  readonly name: string;
  readonly child: ChildProcess;
  output(): string;
}

function start(name: string, args: readonly string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(NODE, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  const collect = (chunk: Buffer) => {
    text = (text + chunk.toString("utf8")).slice(-200_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return { name, child, output: () => text };
}

async function stopAll(processes: readonly Running[]): Promise<void> {
  await Promise.all(
    processes.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, diagnostics: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(200);
  }
  assert.fail(`timed out waiting for ${what}\n${diagnostics()}`);
}

const USER_AGENT = /^stsfleet-(watcher|actor|pvc-provisioner|status-writer)\//;

describe("the bundled services under the shipped NATS permissions", { skip: NATS_SKIP }, () => {
  const passwords = testPasswords();
  const processes: Running[] = [];
  let dir: string;
  let nats: ShippedNatsServer | undefined;
  let apiServer: string;
  const ports = new Map<Service, number>();

  const diagnostics = () => [...processes.map((p) => `--- ${p.name}\n${p.output().slice(-3_000)}`), `--- nats\n${nats?.log().slice(-3_000) ?? ""}`].join("\n");

  before(async () => {
    dir = repoTempDir("stack-");
    const { outdir } = await bundleInto(join(dir, "dist"));
    nats = await startShippedNatsServer(passwords);
    const kubeconfig = join(dir, "kubeconfig");
    const sim = start("kube-sim", [join(outdir, "stsfleet.mjs"), "kube-sim", "--port", "0", "--kubeconfig-out", kubeconfig, "--audit-log", join(dir, "audit.log")], process.env);
    processes.push(sim);
    apiServer = await waitFor("the simulator", 60_000, () => Promise.resolve(/listening on (http:\/\/\S+)/.exec(sim.output())?.[1]), diagnostics);
    for (const service of SERVICES) {
      const port = await freePort();
      ports.set(service, port);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        NATS_URL: nats.url,
        NATS_USER: service,
        NATS_PASSWORD: passwords[passwordVariable(service)],
        KUBECONFIG: kubeconfig,
        METRICS_BIND_ADDRESS: `127.0.0.1:${port}`,
        HEALTH_PROBE_BIND_ADDRESS: `127.0.0.1:${port}`,
        LOG_LEVEL: "info",
        POD_NAME: `${service}-0`,
      };
      processes.push(start(service, [join(outdir, "stsfleet.mjs"), service, ...(service === "actor" ? ["--lease-profile", "fast"] : [])], env));
    }
    for (const service of SERVICES) {
      await waitFor(`${service} /readyz`, 120_000, async () => ((await fetch(`http://127.0.0.1:${ports.get(service)}/readyz`)).ok ? true : undefined), diagnostics);
    }
  });

  after(async () => {
    await stopAll(processes);
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("take a StatefulSet with claims to Ready, with no NATS permission refused", async () => {
    const headers = { authorization: "Bearer kube-sim-admin-token", "content-type": "application/json" };
    const statefulSet = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "web", namespace: "default" },
      spec: {
        replicas: 3,
        serviceName: "web",
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } },
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
        // The claims then carry the set's owner reference (blockOwnerDeletion), for the admission check below.
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
      },
    };
    const created = await fetch(`${apiServer}/apis/apps/v1/namespaces/default/statefulsets`, { method: "POST", headers, body: JSON.stringify(statefulSet) });
    assert.equal(created.status, 201, await created.text());
    await waitFor(
      "3 ready replicas",
      90_000,
      async () => {
        const response = await fetch(`${apiServer}/apis/apps/v1/namespaces/default/statefulsets/web`, { headers });
        const body = (await response.json()) as { status?: { readyReplicas?: number } };
        return body.status?.readyReplicas === 3 ? true : undefined;
      },
      diagnostics,
    );
    const claims = (await (await fetch(`${apiServer}/api/v1/namespaces/default/persistentvolumeclaims`, { headers })).json()) as { items: { metadata: { name: string } }[] };
    assert.deepEqual(claims.items.map((c) => c.metadata.name).sort(), ["data-web-0", "data-web-1", "data-web-2"]);
    assert.doesNotMatch(nats?.log() ?? "", /Permissions Violation/, "a service was refused a subject it uses");
  });

  it("write to Kubernetes only with the calls their code is known to make (every audited write, by User-Agent)", async () => {
    type ObjectRef = { apiGroup?: string; apiVersion: string; resource: string; subresource?: string; namespace?: string; name?: string };
    const records = readFileSync(join(dir, "audit.log"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { verb: string; userAgent?: string; objectRef?: ObjectRef; responseStatus?: { code?: number } });
    const seen = new Map<Service, Set<string>>();
    const created: { service: Service; ref: ObjectRef }[] = [];
    for (const record of records) {
      const service = USER_AGENT.exec(record.userAgent ?? "")?.[1] as Service | undefined;
      if (!service || !record.objectRef) continue;
      const resource = record.objectRef.subresource ? `${record.objectRef.resource}/${record.objectRef.subresource}` : record.objectRef.resource;
      const permission = `${record.verb} ${record.objectRef.apiGroup ?? ""}/${resource}`;
      assert.ok(CODE_PERMISSIONS[service].includes(permission), `${service} did "${permission}", which is not among the calls its code is known to make`);
      seen.set(service, (seen.get(service) ?? new Set()).add(permission));
      if (record.verb === "create" && record.responseStatus?.code === 201 && record.objectRef.resource !== "events") created.push({ service, ref: record.objectRef });
    }
    // OwnerReferencesPermissionEnforcement, applied to what the services wrote: each blocking owner reference an
    // object they created carries now (at creation or added later by the same service) needs `update` on the
    // owner's finalizers, which the service's role must grant.
    const headers = { authorization: "Bearer kube-sim-admin-token" };
    let blocking = 0;
    for (const { service, ref } of created) {
      const base = ref.apiGroup ? `/apis/${ref.apiGroup}/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
      const response = await fetch(`${apiServer}${base}/namespaces/${ref.namespace ?? ""}/${ref.resource}/${ref.name ?? ""}`, { headers });
      if (response.status === 404) continue;
      const object = (await response.json()) as { metadata: { ownerReferences?: OwnerRef[] } };
      const after = object.metadata.ownerReferences ?? [];
      blocking += after.filter((r) => r.blockOwnerDeletion === true).length;
      for (const check of ownerReferencesPermissionChecks({ verb: "create", resource: `${ref.apiGroup ?? ""}/${ref.resource}`, after })) {
        assert.ok(EXPECTED_PERMISSIONS[service].includes(check), `${service} created ${ref.resource} ${ref.name ?? ""} with owner references that need "${check}"`);
      }
    }
    assert.ok(blocking >= 3 + 3 + 1, `the pods, claims and revision carry blocking owner references (${blocking} seen)`);
    assert.ok(seen.get("actor")?.has("create /pods"), "the actor created the pods");
    assert.ok(seen.get("pvc-provisioner")?.has("create /persistentvolumeclaims"), "the provisioner created the claims");
    assert.ok(seen.get("status-writer")?.has("update apps/statefulsets/status"), "the status-writer wrote status");
    assert.equal(seen.get("watcher"), undefined, "the watcher wrote nothing");
  });

  it("export every metric the dashboard queries", async () => {
    const exported = new Set<string>();
    for (const service of SERVICES) {
      const text = await (await fetch(`http://127.0.0.1:${ports.get(service)}/metrics`)).text();
      for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        const [, name = "", type] = match;
        exported.add(name);
        if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) exported.add(`${name}${suffix}`);
      }
    }
    const dashboard = JSON.parse(readRepoFile("deploy/base/monitoring/dashboards/stsfleet-fleet.json")) as { panels: { targets?: { expr: string }[] }[] };
    for (const expr of dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr))) {
      for (const name of metricNames(expr)) assert.ok(exported.has(name), `the dashboard queries ${name}, which no running service exports`);
    }
  });
});
