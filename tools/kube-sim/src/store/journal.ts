// The on-disk format of `--data-dir` (ADR 0095), pure: one line per record, `<crc32 hex> <json>\n`, in a
// write-ahead log (one record per store write) and in a snapshot (a header, then one record per object).
// Decoding rebuilds what the store held: the snapshot, then every logged write above the snapshot's
// resourceVersion. A torn last log record (a crash during the append, never acknowledged) is dropped.
import { crc32 } from "node:zlib";
import type { KubeObject } from "../types.ts";

/** One store write as the log keeps it: an object's new state, or the removal of a key. */
export type StoreChange =
  | { readonly op: "put"; readonly rv: number; readonly resourceKey: string; readonly json: string }
  | { readonly op: "delete"; readonly rv: number; readonly resourceKey: string; readonly key: string };

/** A change as read back: a put carries the parsed object. */
export type LoggedChange =
  | { readonly op: "put"; readonly rv: number; readonly resourceKey: string; readonly obj: KubeObject }
  | { readonly op: "delete"; readonly rv: number; readonly resourceKey: string; readonly key: string };

/** What a data dir held: objects in resourceVersion order and the store's resourceVersion counter. */
export interface PersistedState {
  readonly rv: number;
  readonly objects: readonly { readonly resourceKey: string; readonly obj: KubeObject }[];
}

/** What a snapshot is written from: the store's counter and every current object's stored JSON. */
export interface SnapshotSource {
  readonly rv: number;
  readonly count: number;
  objects(): Iterable<{ readonly resourceKey: string; readonly json: string }>;
}

export const SNAPSHOT_FORMAT = "kube-sim-snapshot/1";

export type JournalErrorCode = "LOG_CORRUPT" | "SNAPSHOT_CORRUPT";

/** A data dir the simulator cannot load; it refuses to start rather than serve part of the state. */
export class JournalError extends Error {
  override readonly name = "JournalError";
  readonly code: JournalErrorCode;
  constructor(code: JournalErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

function line(json: string): string {
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`;
}

/** The log line of one change; a put embeds the stored JSON as it is, without encoding it again. */
export function encodeChange(change: StoreChange): string {
  const head = `{"rv":${change.rv},"op":"${change.op}","r":${JSON.stringify(change.resourceKey)}`;
  return line(change.op === "put" ? `${head},"o":${change.json}}` : `${head},"k":${JSON.stringify(change.key)}}`);
}

export function encodeSnapshotHeader(rv: number, count: number): string {
  return line(JSON.stringify({ format: SNAPSHOT_FORMAT, rv, count }));
}

export function encodeSnapshotObject(resourceKey: string, json: string): string {
  return line(`{"r":${JSON.stringify(resourceKey)},"o":${json}}`);
}

/** The JSON of one line if its checksum holds, else undefined. */
function verified(text: string): unknown {
  const space = text.indexOf(" ");
  if (space !== 8) return undefined;
  const json = text.slice(9);
  if (crc32(json).toString(16).padStart(8, "0") !== text.slice(0, 8)) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

function asChange(value: unknown): LoggedChange | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as { rv?: unknown; op?: unknown; r?: unknown; o?: unknown; k?: unknown };
  if (typeof v.rv !== "number" || !Number.isInteger(v.rv) || v.rv < 1 || typeof v.r !== "string") return undefined;
  if (v.op === "put" && typeof v.o === "object" && v.o !== null) return { op: "put", rv: v.rv, resourceKey: v.r, obj: v.o as KubeObject };
  if (v.op === "delete" && typeof v.k === "string") return { op: "delete", rv: v.rv, resourceKey: v.r, key: v.k };
  return undefined;
}

export interface DecodedLog {
  readonly changes: readonly LoggedChange[];
  /** Bytes of the log that hold whole, valid records; the rest is a torn tail to cut off. */
  readonly validBytes: number;
}

/**
 * The records of a log. The first record that does not verify ends the log when nothing valid follows it (a torn
 * append: the answer to it was never sent); a valid record after an invalid one is corruption and throws.
 */
export function decodeLog(bytes: Buffer): DecodedLog {
  const changes: LoggedChange[] = [];
  let offset = 0;
  let lastRv = 0;
  while (offset < bytes.length) {
    const end = bytes.indexOf(0x0a, offset);
    const change = end < 0 ? undefined : asChange(verified(bytes.toString("utf8", offset, end)));
    if (change === undefined) {
      if (end >= 0 && hasValidRecordAfter(bytes, end + 1)) throw new JournalError("LOG_CORRUPT", `log record at byte ${offset} is damaged and valid records follow it`);
      break;
    }
    if (change.rv <= lastRv) throw new JournalError("LOG_CORRUPT", `log record at byte ${offset}: resourceVersion ${change.rv} does not follow ${lastRv}`);
    lastRv = change.rv;
    changes.push(change);
    offset = end + 1;
  }
  return { changes, validBytes: offset };
}

function hasValidRecordAfter(bytes: Buffer, from: number): boolean {
  let offset = from;
  while (offset < bytes.length) {
    const end = bytes.indexOf(0x0a, offset);
    if (end < 0) return false;
    if (asChange(verified(bytes.toString("utf8", offset, end))) !== undefined) return true;
    offset = end + 1;
  }
  return false;
}

export interface DecodedSnapshot {
  readonly rv: number;
  readonly objects: readonly { readonly resourceKey: string; readonly obj: KubeObject }[];
}

/** A snapshot is renamed into place whole, so any damage in it is corruption, never a torn write. */
export function decodeSnapshot(text: string): DecodedSnapshot {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const header = verified(lines[0] ?? "") as { format?: unknown; rv?: unknown; count?: unknown } | undefined;
  if (header?.format !== SNAPSHOT_FORMAT || typeof header.rv !== "number" || typeof header.count !== "number") {
    throw new JournalError("SNAPSHOT_CORRUPT", `snapshot header is not ${SNAPSHOT_FORMAT}`);
  }
  if (lines.length - 1 !== header.count) throw new JournalError("SNAPSHOT_CORRUPT", `snapshot holds ${lines.length - 1} objects, its header says ${header.count}`);
  const objects = lines.slice(1).map((text, i) => {
    const record = verified(text) as { r?: unknown; o?: unknown } | undefined;
    if (typeof record?.r !== "string" || typeof record.o !== "object" || record.o === null) throw new JournalError("SNAPSHOT_CORRUPT", `snapshot object ${i} is damaged`);
    return { resourceKey: record.r, obj: record.o as KubeObject };
  });
  return { rv: header.rv, objects };
}

function keyOf(obj: KubeObject): string {
  const namespace = obj.metadata.namespace ?? "";
  const name = obj.metadata.name ?? "";
  return namespace === "" ? name : `${namespace}/${name}`;
}

/** The snapshot's objects with the log's later writes applied; writes at or below the snapshot's version are in it. */
export function replay(snapshot: DecodedSnapshot | undefined, log: DecodedLog): PersistedState {
  const byResource = new Map<string, Map<string, KubeObject>>();
  const bucket = (resourceKey: string) => {
    let b = byResource.get(resourceKey);
    if (b === undefined) {
      b = new Map();
      byResource.set(resourceKey, b);
    }
    return b;
  };
  for (const { resourceKey, obj } of snapshot?.objects ?? []) bucket(resourceKey).set(keyOf(obj), obj);
  let rv = snapshot?.rv ?? 0;
  for (const change of log.changes) {
    if (change.rv <= rv) continue;
    rv = change.rv;
    if (change.op === "delete") bucket(change.resourceKey).delete(change.key);
    else bucket(change.resourceKey).set(keyOf(change.obj), change.obj);
  }
  const objects = [...byResource].flatMap(([resourceKey, b]) => [...b.values()].map((obj) => ({ resourceKey, obj })));
  objects.sort((a, b) => Number(a.obj.metadata.resourceVersion) - Number(b.obj.metadata.resourceVersion));
  return { rv, objects };
}
