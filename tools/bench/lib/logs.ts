// Incremental readers for the two logs the simulator appends to: the audit log (every mutating request) and the
// probe log (pod Ready, set converged). Each read returns only the complete lines added since the last one.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { parseProbeLine } from "../sim/probe.ts";
import type { ProbeRecord } from "../sim/probe.ts";

export class LineTail {
  private readonly path: string;
  private offset = 0;
  private rest = "";

  constructor(path: string) {
    this.path = path;
  }

  /** New complete lines since the last call (none when the file does not exist yet). */
  read(): string[] {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return [];
    }
    if (size <= this.offset) return [];
    const buffer = Buffer.alloc(size - this.offset);
    const fd = openSync(this.path, "r");
    try {
      const read = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += read;
      const text = this.rest + buffer.subarray(0, read).toString("utf8");
      const lines = text.split("\n");
      this.rest = lines.pop() ?? "";
      return lines.filter((line) => line !== "");
    } finally {
      closeSync(fd);
    }
  }

  /** Bytes consumed so far (for "has anything been written since"). */
  get position(): number {
    return this.offset;
  }
}

/** The fields of an audit event the benchmark uses. */
export interface AuditRecord {
  readonly verb: string;
  readonly resource: string;
  readonly subresource: string | undefined;
  readonly namespace: string;
  readonly name: string;
  readonly code: number;
  /** `actor`, `watcher`, `bench-workqueue`, `bench` (the harness) … from `stsfleet-<service>/<v> (<instance>)`. */
  readonly service: string;
  readonly instance: string;
  /** Microseconds since the epoch. */
  readonly receivedUs: number;
}

const USER_AGENT_RE = /^stsfleet-([a-z-]+)\/\S+ \(([^)]*)\)$/;

/** `2026-01-02T03:04:05.123456Z` -> microseconds since the epoch. */
export function parseMicros(value: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(value);
  if (!match?.[1]) return Number.NaN;
  return Date.parse(`${match[1]}Z`) * 1000 + Number((match[2] ?? "").padEnd(6, "0").slice(0, 6));
}

interface RawAudit {
  verb?: string;
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
}

export function parseAuditRecord(line: string): AuditRecord | undefined {
  let raw: RawAudit;
  try {
    raw = JSON.parse(line) as RawAudit;
  } catch {
    return undefined;
  }
  const agent = USER_AGENT_RE.exec(raw.userAgent ?? "");
  return {
    verb: raw.verb ?? "",
    resource: raw.objectRef?.resource ?? "",
    subresource: raw.objectRef?.subresource,
    namespace: raw.objectRef?.namespace ?? "",
    name: raw.objectRef?.name ?? "",
    code: raw.responseStatus?.code ?? 0,
    service: agent?.[1] ?? "other",
    instance: agent?.[2] ?? "",
    receivedUs: parseMicros(raw.requestReceivedTimestamp ?? ""),
  };
}

/** Accumulates the audit log and the probe log of one simulator. */
export class SimLogs {
  readonly audit: AuditRecord[] = [];
  readonly probe: ProbeRecord[] = [];
  private readonly auditTail: LineTail;
  private readonly probeTail: LineTail;

  constructor(auditPath: string, probePath: string) {
    this.auditTail = new LineTail(auditPath);
    this.probeTail = new LineTail(probePath);
  }

  /** Reads what was appended; returns the new probe records. */
  poll(): ProbeRecord[] {
    for (const line of this.auditTail.read()) {
      const record = parseAuditRecord(line);
      if (record) this.audit.push(record);
    }
    const fresh: ProbeRecord[] = [];
    for (const line of this.probeTail.read()) {
      const record = parseProbeLine(line);
      if (record) fresh.push(record);
    }
    this.probe.push(...fresh);
    return fresh;
  }

  get auditBytes(): number {
    return this.auditTail.position;
  }
}
