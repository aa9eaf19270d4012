// The container image's entry point: `stsfleet <service> [flags]` runs one service bundle from this folder with its
// own flags; `stsfleet healthcheck [url]` exits 0 when the service's /readyz answers 200 (Docker HEALTHCHECK and
// compose health checks; Kubernetes uses its own probes). Plain JavaScript: it is copied, not compiled.
import { fileURLToPath, pathToFileURL } from "node:url";

/** Keep in sync with ENTRY_POINTS in bundle.mjs. */
const SERVICES = ["watcher", "actor", "pvc-provisioner", "status-writer", "kube-sim"];

const USAGE = `usage: stsfleet <${SERVICES.join("|")}> [flags]   run a service (--help lists its flags)
       stsfleet healthcheck [url]   exit 0 when url (default: /readyz on $HEALTH_PROBE_BIND_ADDRESS, else :8081) answers 200
`;

/** ":8081", "0.0.0.0:8081", "[::]:8081" -> a loopback URL of the same port; "0" (probes off) -> undefined. */
function probeUrl(bindAddress) {
  if (bindAddress === "0" || bindAddress === "") return undefined;
  const port = bindAddress.slice(bindAddress.lastIndexOf(":") + 1);
  if (!/^[0-9]{1,5}$/.test(port)) throw new Error(`cannot read a port from HEALTH_PROBE_BIND_ADDRESS=${JSON.stringify(bindAddress)}`);
  return `http://127.0.0.1:${port}/readyz`;
}

async function healthcheck(url) {
  const target = url ?? probeUrl(process.env.HEALTH_PROBE_BIND_ADDRESS ?? ":8081");
  if (target === undefined) {
    process.stdout.write("probes are disabled (HEALTH_PROBE_BIND_ADDRESS=0); nothing to check\n");
    return 0;
  }
  try {
    const response = await fetch(target, { signal: AbortSignal.timeout(3_000) });
    const body = await response.text();
    process.stdout.write(`${target}: ${response.status} ${body.trim().split("\n").slice(-1)[0] ?? ""}\n`);
    return response.status === 200 ? 0 : 1;
  } catch (error) {
    process.stdout.write(`${target}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

const [command, ...rest] = process.argv.slice(2);
if (command === "healthcheck") {
  process.exitCode = await healthcheck(rest[0]);
} else if (command !== undefined && SERVICES.includes(command)) {
  const bundlePath = fileURLToPath(new URL(`./${command}.mjs`, import.meta.url));
  // The service reads its flags from argv[2..] and kube-sim checks argv[1] to know it is the main module.
  process.argv.splice(1, 2, bundlePath);
  await import(pathToFileURL(bundlePath).href);
} else {
  process.stderr.write(command === undefined || command === "--help" || command === "-h" ? USAGE : `stsfleet: unknown service ${JSON.stringify(command)}\n${USAGE}`);
  process.exitCode = command === "--help" || command === "-h" ? 0 : 2;
}
