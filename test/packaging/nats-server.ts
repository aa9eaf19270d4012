// Starts nats-server with the configuration docker-compose.yml ships (deploy/compose/nats.conf including
// deploy/base/nats/auth.conf), changed only where a test must differ: a random loopback port for clients and
// monitoring, a temporary JetStream store, a ports file. Passwords come from the environment, as in compose.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { findExecutable, readRepoFile, repoPath } from "./support.ts";

export const NATS_SERVER = findExecutable("nats-server");
export const NATS_SKIP = NATS_SERVER
  ? false
  : "nats-server is not on the PATH (Debian: apt-get install nats-server), so the shipped permissions are not exercised";

export interface ShippedNatsServer {
  readonly url: string;
  readonly monitorUrl: string;
  /** Everything the server logged so far (it runs with -D, so permission violations are in it). */
  log(): string;
  stop(): Promise<void>;
}

/** The lines of deploy/compose/nats.conf a test replaces, and with what. Each must exist, or the file changed. */
function testOverrides(dir: string): [RegExp, string][] {
  return [
    [/^listen: .*$/m, 'listen: "127.0.0.1:-1"'],
    [/^http: .*$/m, 'http: "127.0.0.1:-1"'],
    [/^ {2}store_dir: .*$/m, `  store_dir: ${JSON.stringify(join(dir, "jetstream"))}`],
  ];
}

/**
 * With `tlsDir` (certificates from deploy/scripts/nats-tls.sh), the server runs deploy/compose/nats-tls.conf, the
 * configuration of the compose TLS override, with its `/etc/nats/tls/` paths pointed at `tlsDir`.
 */
export async function startShippedNatsServer(passwords: Readonly<Record<string, string>>, options: { tlsDir?: string } = {}): Promise<ShippedNatsServer> {
  if (!NATS_SERVER) throw new Error("nats-server missing");
  const dir = mkdtempSync(join(tmpdir(), "stsfleet-packaging-nats-"));
  let config = readRepoFile("deploy/compose/nats.conf");
  for (const [pattern, replacement] of testOverrides(dir)) {
    if (!pattern.test(config)) throw new Error(`deploy/compose/nats.conf has no line matching ${pattern}`);
    config = config.replace(pattern, replacement);
  }
  writeFileSync(join(dir, "nats.conf"), `${config}\nports_file_dir: ${JSON.stringify(dir)}\n`);
  copyFileSync(repoPath("deploy/base/nats/auth.conf"), join(dir, "auth.conf"));
  let entry = join(dir, "nats.conf");
  if (options.tlsDir !== undefined) {
    const tlsConfig = readRepoFile("deploy/compose/nats-tls.conf");
    if (!tlsConfig.includes('"/etc/nats/tls/')) throw new Error("deploy/compose/nats-tls.conf reads no file under /etc/nats/tls/");
    entry = join(dir, "nats-tls.conf");
    writeFileSync(entry, tlsConfig.replaceAll('"/etc/nats/tls/', JSON.stringify(`${options.tlsDir}/`).slice(0, -1)));
  }

  const child: ChildProcess = spawn(NATS_SERVER, ["-c", entry, "-D"], {
    env: { PATH: process.env["PATH"] ?? "", ...passwords },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => (output += chunk.toString("utf8"));
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const file = readdirSync(dir).find((name) => name.endsWith(".ports"));
    if (file) {
      try {
        const ports = JSON.parse(readFileSync(join(dir, file), "utf8")) as { nats?: string[]; monitoring?: string[] };
        const url = ports.nats?.[0];
        const monitorUrl = ports.monitoring?.[0];
        if (url && monitorUrl) return { url, monitorUrl, log: () => output, stop };
      } catch {
        // not completely written yet
      }
    }
    await sleep(25);
  }
  await stop();
  throw new Error(`nats-server did not start with the shipped configuration:\n${output}`);
}
