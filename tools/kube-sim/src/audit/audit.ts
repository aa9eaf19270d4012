// audit.k8s.io/v1 Events, one JSON object per line, for every mutating request (level Metadata,
// stage ResponseComplete), as `kube-apiserver --audit-log-path` writes them.
import { createWriteStream } from "node:fs";
import type { WriteStream } from "node:fs";
import type { Status } from "../types.ts";

export interface AuditUser {
  username: string;
  groups: string[];
}

export interface AuditRecord {
  auditID: string;
  verb: string;
  requestURI: string;
  objectRef: {
    resource: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion: string;
    subresource?: string;
  };
  code: number;
  failure: Status | undefined;
  receivedTimestamp: string;
  stageTimestamp: string;
  user: AuditUser;
  impersonatedUser: string | undefined;
  sourceIPs: string[];
  userAgent: string;
  /** The writer's fencing token from the X-Stsfleet-Epoch request header, recorded as `stsfleet.dev/epoch`. */
  epoch?: string | undefined;
}

/** Request header whose value the audit log keeps (stsfleet's actors send `<shard>/<epoch>/<member>`). */
export const EPOCH_HEADER = "x-stsfleet-epoch";
export const EPOCH_ANNOTATION = "stsfleet.dev/epoch";

/** Wall-clock time with microseconds, as metav1.MicroTime prints it. */
export function microTimestamp(): string {
  const t = performance.timeOrigin + performance.now();
  const ms = Math.floor(t);
  const micros = Math.min(999, Math.floor((t - ms) * 1000));
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}${String(micros).padStart(3, "0")}Z`;
}

export function auditEvent(r: AuditRecord): Record<string, unknown> {
  const responseStatus: Record<string, unknown> =
    r.failure === undefined
      ? { metadata: {}, code: r.code }
      : { metadata: {}, status: "Failure", message: r.failure.message, reason: r.failure.reason, code: r.code };
  const event: Record<string, unknown> = {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: r.auditID,
    stage: "ResponseComplete",
    requestURI: r.requestURI,
    verb: r.verb,
    user: r.user,
  };
  if (r.impersonatedUser !== undefined) event["impersonatedUser"] = { username: r.impersonatedUser };
  event["sourceIPs"] = r.sourceIPs;
  event["userAgent"] = r.userAgent;
  event["objectRef"] = r.objectRef;
  event["responseStatus"] = responseStatus;
  event["requestReceivedTimestamp"] = r.receivedTimestamp;
  event["stageTimestamp"] = r.stageTimestamp;
  const annotations: Record<string, string> = { "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "" };
  if (r.epoch !== undefined) annotations[EPOCH_ANNOTATION] = r.epoch;
  event["annotations"] = annotations;
  return event;
}

export class AuditLog {
  private readonly stream: WriteStream;
  private failed: Error | undefined;

  constructor(path: string) {
    this.stream = createWriteStream(path, { flags: "a" });
    this.stream.on("error", (err) => {
      this.failed = err;
    });
  }

  record(r: AuditRecord): void {
    if (this.failed !== undefined) return;
    this.stream.write(`${JSON.stringify(auditEvent(r))}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(() => resolve()));
  }
}
