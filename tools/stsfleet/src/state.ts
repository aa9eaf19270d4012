// The state directory's stack.json: where operators' scripts, `stsfleet down` and the tests find the running
// stack. The shape is a contract (brief, "Interfaces that others rely on"); fields beyond it are additions.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";

export const SERVICE_KINDS = ["watcher", "actor", "pvc-provisioner", "status-writer"] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];
export const PROCESS_KINDS = [...SERVICE_KINDS, "kube-sim", "nats"] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];

export const ProcessEntrySchema = z.object({
  service: z.enum(PROCESS_KINDS),
  name: z.string().min(1),
  pid: z.number().int().positive(),
  /** The service's /metrics URL. */
  metrics: z.string().optional(),
  /** Base URL of /healthz and /readyz (addition). */
  probes: z.string().optional(),
  /** Times the supervisor restarted this process (addition). */
  restarts: z.number().int().nonnegative().optional(),
  /** The child's log file (addition). */
  log: z.string().optional(),
});
export type ProcessEntry = z.infer<typeof ProcessEntrySchema>;

/** How a client reaches the stack's NATS when it runs with users and TLS (`up --secure`). */
export const NatsClientAccessSchema = z.object({
  user: z.string().min(1),
  /** A file (mode 0600) holding the password, so stack.json itself carries no secret. */
  passwordFile: z.string().min(1),
  /** The inbox prefix the user may subscribe to (`_INBOX.<user>`). */
  inboxPrefix: z.string().min(1),
  tls: z.object({ caFile: z.string().min(1), certFile: z.string().min(1), keyFile: z.string().min(1) }),
});
export type NatsClientAccess = z.infer<typeof NatsClientAccessSchema>;

export const StackFileSchema = z.object({
  apiServer: z.string().min(1),
  nats: z.string().min(1),
  kubeconfig: z.string().min(1),
  processes: z.array(ProcessEntrySchema),
  /** The supervising `stsfleet up` process (addition): `stsfleet down` signals it. */
  supervisor: z.object({ pid: z.number().int().positive(), startedAt: z.string() }).optional(),
  /** The simulator's audit log, when the stack runs the simulator (addition). */
  auditLog: z.string().optional(),
  /** Credentials and TLS files of the read-only operator user when NATS is secured (addition, `up --secure`). */
  natsClient: NatsClientAccessSchema.optional(),
});
export type StackFile = z.infer<typeof StackFileSchema>;

export class StackFileError extends Error {
  override readonly name = "StackFileError";
  readonly path: string;

  constructor(path: string, problem: string, options?: ErrorOptions) {
    super(`${path}: ${problem}`, options);
    this.path = path;
  }
}

export function stackFilePath(stateDir: string): string {
  return join(stateDir, "stack.json");
}

/** Writes `value` as JSON to `path` atomically: readers see the old file or the new one, never a torn write. */
export function writeJsonAtomic(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o644 });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export function writeStackFile(stateDir: string, stack: StackFile): void {
  writeJsonAtomic(stackFilePath(stateDir), stack);
}

/** Reads and validates stack.json; undefined when there is none. */
export function readStackFile(stateDir: string): StackFile | undefined {
  const path = stackFilePath(stateDir);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StackFileError(path, `cannot read: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StackFileError(path, "not JSON", { cause: error });
  }
  const parsed = StackFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StackFileError(path, `unexpected shape: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"}`);
  }
  return parsed.data;
}

/** True when a process with this pid exists (EPERM means it exists but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** What nats.js's `connect()` needs besides its own defaults. */
export interface NatsConnectSettings {
  readonly servers: string[];
  readonly user?: string;
  readonly pass?: string;
  readonly tls?: { readonly caFile: string; readonly certFile: string; readonly keyFile: string };
  readonly inboxPrefix?: string;
}

/**
 * How to connect to the stack's NATS (commands that read the fleet from the state dir): just the URL for a plain
 * stack, the operator user's password, TLS files and inbox prefix for a secure one.
 */
export function natsConnectSettings(stack: Pick<StackFile, "nats" | "natsClient">): NatsConnectSettings {
  const servers = stack.nats.split(",").map((s) => s.trim());
  const access = stack.natsClient;
  if (access === undefined) return { servers };
  let pass: string;
  try {
    pass = readFileSync(access.passwordFile, "utf8").trim();
  } catch (error) {
    throw new StackFileError(access.passwordFile, `cannot read the NATS password: ${(error as Error).message}`, { cause: error });
  }
  return { servers, user: access.user, pass, tls: { ...access.tls }, inboxPrefix: access.inboxPrefix };
}
