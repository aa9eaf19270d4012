// `--data-dir`: the store's writes made durable (ADR 0095). Every write is appended to an in-memory group;
// `sync()` writes the group to the log and fdatasyncs it, and the HTTP layer calls it before any answer or
// watch event leaves the process, so whatever a client saw survives a crash. When the log has grown past
// the last snapshot (and a floor), a new snapshot is written to a temp file, fsynced, renamed over the old
// one, and the log is truncated. Opening loads the snapshot, replays the log and cuts off a torn tail.
import { closeSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { decodeLog, decodeSnapshot, encodeChange, encodeSnapshotHeader, encodeSnapshotObject, replay } from "./journal.ts";
import type { PersistedState, SnapshotSource, StoreChange } from "./journal.ts";

export const LOG_FILE = "wal.jsonl";
export const SNAPSHOT_FILE = "snapshot.jsonl";
/** The log is folded into a snapshot once it is larger than the last snapshot and than this. */
export const DEFAULT_SNAPSHOT_MIN_LOG_BYTES = 64 * 1024 * 1024;

export interface DataDirOptions {
  /** Defaults to DEFAULT_SNAPSHOT_MIN_LOG_BYTES. */
  snapshotMinLogBytes?: number;
}

export class DataDirClosedError extends Error {
  override readonly name = "DataDirClosedError";
  readonly code = "DATA_DIR_CLOSED";
}

/** Writes `text` whole (write(2) may write less than asked). */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class DataDir {
  readonly dir: string;
  /** What the dir held when it was opened (empty for a new dir). */
  readonly loaded: PersistedState;
  private readonly logFd: number;
  private readonly snapshotMinLogBytes: number;
  private pending: string[] = [];
  private logBytes: number;
  private snapshotBytes: number;
  private source: (() => SnapshotSource) | undefined;
  private closed = false;
  private scheduled = false;

  private constructor(dir: string, loaded: PersistedState, logFd: number, logBytes: number, snapshotBytes: number, options: DataDirOptions) {
    this.dir = dir;
    this.loaded = loaded;
    this.logFd = logFd;
    this.logBytes = logBytes;
    this.snapshotBytes = snapshotBytes;
    this.snapshotMinLogBytes = options.snapshotMinLogBytes ?? DEFAULT_SNAPSHOT_MIN_LOG_BYTES;
  }

  /** Creates `dir` if needed and loads it; throws JournalError when it holds damaged records. */
  static open(dir: string, options: DataDirOptions = {}): DataDir {
    mkdirSync(dir, { recursive: true });
    const snapshotPath = join(dir, SNAPSHOT_FILE);
    const snapshotText = existsSync(snapshotPath) ? readFileSync(snapshotPath, "utf8") : undefined;
    const snapshot = snapshotText === undefined ? undefined : decodeSnapshot(snapshotText);
    const logPath = join(dir, LOG_FILE);
    const log = decodeLog(existsSync(logPath) ? readFileSync(logPath) : Buffer.alloc(0));
    const logFd = openSync(logPath, "a");
    // The torn tail goes, so the next append starts a whole record instead of extending a broken one.
    ftruncateSync(logFd, log.validBytes);
    fsyncSync(logFd);
    return new DataDir(dir, replay(snapshot, log), logFd, log.validBytes, Buffer.byteLength(snapshotText ?? ""), options);
  }

  /** The store this dir snapshots; set once the loaded state is in it. */
  attach(source: () => SnapshotSource): void {
    this.source = source;
  }

  /** Queues one store write; it is durable after the next sync(), at the latest at the end of this event-loop turn. */
  record(change: StoreChange): void {
    if (this.closed) throw new DataDirClosedError(`data dir ${this.dir} is closed`);
    this.pending.push(encodeChange(change));
    if (this.scheduled) return;
    this.scheduled = true;
    // Writes nobody asked about yet (the simulator's own controllers') still reach the disk this turn.
    setImmediate(() => {
      this.scheduled = false;
      if (!this.closed) this.sync();
    });
  }

  /** Whether writes wait for sync(). */
  get dirty(): boolean {
    return this.pending.length > 0;
  }

  /** Appends every queued write to the log and fdatasyncs it: one sync for all writes since the last one. */
  sync(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join("");
    this.pending = [];
    writeAll(this.logFd, text);
    fdatasyncSync(this.logFd);
    this.logBytes += Buffer.byteLength(text);
    if (this.logBytes > Math.max(this.snapshotMinLogBytes, this.snapshotBytes)) this.snapshot();
  }

  /**
   * Writes the attached store as the new snapshot and empties the log. The snapshot holds every write queued so
   * far, so those need no log record. A crash before the rename keeps the old snapshot and the log; one after it
   * and before the truncation replays log records the snapshot already holds, which replay skips by version.
   */
  snapshot(): void {
    if (this.source === undefined || this.closed) return;
    const source = this.source();
    const tmp = join(this.dir, `${SNAPSHOT_FILE}.tmp`);
    const fd = openSync(tmp, "w");
    let bytes = 0;
    try {
      let chunk = encodeSnapshotHeader(source.rv, source.count);
      for (const { resourceKey, json } of source.objects()) {
        chunk += encodeSnapshotObject(resourceKey, json);
        if (chunk.length < 1 << 20) continue;
        writeAll(fd, chunk);
        bytes += Buffer.byteLength(chunk);
        chunk = "";
      }
      writeAll(fd, chunk);
      bytes += Buffer.byteLength(chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, join(this.dir, SNAPSHOT_FILE));
    fsyncDir(this.dir);
    this.pending = [];
    ftruncateSync(this.logFd, 0);
    fsyncSync(this.logFd);
    this.logBytes = 0;
    this.snapshotBytes = bytes;
  }

  /** Snapshots (so the next start loads one file) and closes the log. */
  close(): void {
    if (this.closed) return;
    if (this.logBytes > 0 || this.pending.length > 0) this.snapshot();
    this.sync();
    this.closed = true;
    closeSync(this.logFd);
  }
}
