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

export const StackFileSchema = z.object({
  apiServer: z.string().min(1),
  nats: z.string().min(1),
  kubeconfig: z.string().min(1),
  processes: z.array(ProcessEntrySchema),
  /** The supervising `stsfleet up` process (addition): `stsfleet down` signals it. */
  supervisor: z.object({ pid: z.number().int().positive(), startedAt: z.string() }).optional(),
  /** The simulator's audit log, when the stack runs the simulator (addition). */
  auditLog: z.string().optional(),
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
