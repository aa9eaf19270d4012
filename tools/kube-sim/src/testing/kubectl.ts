// Test helpers: find kubectl 1.32 and run it against a simulator without blocking the event loop
// (the simulator under test runs in the same process).
import { execFile, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { accessSync, constants, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { after, before } from "node:test";
import type { KubeSim, KubeSimOptions } from "../main.ts";
import { startKubeSim } from "../main.ts";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `$KUBECTL`, else `kubectl` on the PATH. The gcloud SDK installs a dispatcher as `kubectl` that picks a
 * binary by server version; its `kubectl.1.32` sibling is the 1.32 client these tests are written for.
 */
export function findKubectl(): string | undefined {
  const fromEnv = process.env["KUBECTL"];
  if (fromEnv !== undefined && fromEnv !== "" && executable(fromEnv)) return fromEnv;
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    const candidate = join(dir, "kubectl");
    if (!executable(candidate)) continue;
    const pinned = join(dirname(realpathSync(candidate)), "kubectl.1.32");
    return executable(pinned) ? pinned : candidate;
  }
  return undefined;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class Kubectl {
  readonly binary: string;
  readonly kubeconfig: string;
  private readonly cacheDir: string;

  constructor(binary: string, kubeconfig: string) {
    this.binary = binary;
    this.kubeconfig = kubeconfig;
    this.cacheDir = mkdtempSync(join(tmpdir(), "kube-sim-kubectl-cache-"));
  }

  private env(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
    return { PATH: process.env["PATH"] ?? "", HOME: this.cacheDir, KUBECONFIG: this.kubeconfig, KUBECACHEDIR: this.cacheDir, ...extra };
  }

  /** `env` adds variables to kubectl's otherwise minimal environment (e.g. KUBE_EDITOR for `kubectl edit`). */
  run(args: string[], stdin?: string, env: Readonly<Record<string, string>> = {}): Promise<KubectlResult> {
    return new Promise((resolve) => {
      const child = execFile(this.binary, args, { env: this.env(env), timeout: 30_000 }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1;
        resolve({ code, stdout, stderr });
      });
      if (stdin !== undefined) child.stdin?.end(stdin);
      else child.stdin?.end();
    });
  }

  /** Runs kubectl and fails with its stderr when it exits non-zero. */
  async ok(args: string[], stdin?: string): Promise<string> {
    const r = await this.run(args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  }

  spawn(args: string[]): ChildProcess {
    return spawn(this.binary, args, { env: this.env(), stdio: ["ignore", "pipe", "pipe"] });
  }

  cleanup(): void {
    rmSync(this.cacheDir, { recursive: true, force: true });
  }
}

export async function until<T>(what: string, fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A simulator on a free port, its kubeconfig in a temporary directory, and a Kubectl for it (see simWithKubectl). */
export interface SimWithKubectl {
  readonly sim: KubeSim;
  readonly kubectl: Kubectl;
  /** The temporary directory (the kubeconfig is `kubeconfig` in it); removed after the suite. */
  readonly dir: string;
}

/**
 * Registers before/after hooks in the calling suite that start a simulator (fast kubelet timings unless `options`
 * say otherwise) and a Kubectl against it, and stop and remove both. Read the fields inside tests, not at suite level.
 */
export function simWithKubectl(prefix: string, binary: string | undefined, options: KubeSimOptions = {}): SimWithKubectl {
  let current: SimWithKubectl | undefined;
  const env = (): SimWithKubectl => {
    if (current === undefined) throw new Error("simWithKubectl: read inside a test (the simulator starts in before())");
    return current;
  };
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const sim = await startKubeSim({ port: 0, kubeconfigOut: join(dir, "kubeconfig"), ...options, kubelet: { startDelayMs: 20, terminationDelayMs: 10, bindDelayMs: 1, ...options.kubelet } });
    current = { sim, kubectl: new Kubectl(binary ?? "kubectl", join(dir, "kubeconfig")), dir };
  });
  after(async () => {
    if (current === undefined) return;
    await current.sim.stop();
    current.kubectl.cleanup();
    rmSync(current.dir, { recursive: true, force: true });
  });
  return {
    get sim() {
      return env().sim;
    },
    get kubectl() {
      return env().kubectl;
    },
    get dir() {
      return env().dir;
    },
  };
}
