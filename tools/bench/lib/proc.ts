// CPU time and peak resident memory of a process from /proc (Linux), for every process of a run.
import { readFileSync, writeFileSync } from "node:fs";

/** USER_HZ: the unit of /proc/<pid>/stat times; 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

export interface ProcSample {
  readonly cpuSeconds: number;
  /** VmHWM: the peak resident set since start or since the last resetPeak(). */
  readonly peakRssBytes: number;
  readonly rssBytes: number;
}

/** utime + stime from /proc/<pid>/stat (fields 14 and 15, counted after the parenthesised command name). */
export function parseStatCpuSeconds(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so utime (14) is fields[11] and stime (15) fields[12].
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`unreadable /proc stat line: ${stat.slice(0, 80)}`);
  return (utime + stime) / CLOCK_TICKS_PER_SECOND;
}

export function parseStatusKiB(status: string, field: "VmHWM" | "VmRSS"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  return match?.[1] ? Number(match[1]) * 1024 : 0;
}

export function sampleProcess(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return { cpuSeconds: parseStatCpuSeconds(stat), peakRssBytes: parseStatusKiB(status, "VmHWM"), rssBytes: parseStatusKiB(status, "VmRSS") };
  } catch {
    return undefined;
  }
}

/** Resets VmHWM to the current RSS (clear_refs "5"), so the next peak is the run's own; false when not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** The system load averages (1, 5, 15 minutes). */
export function loadAverage(): [number, number, number] {
  try {
    const [one, five, fifteen] = readFileSync("/proc/loadavg", "utf8").split(" ").map(Number);
    return [one ?? 0, five ?? 0, fifteen ?? 0];
  } catch {
    return [0, 0, 0];
  }
}
