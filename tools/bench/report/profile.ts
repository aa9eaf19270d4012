// Summaries of V8 CPU profiles (`--cpu-prof`): where a process spent its busy time, by function and by origin
// (project folder, npm package, Node internals, GC), so BENCHMARKS.md can say why a target is missed.
import { readFileSync } from "node:fs";
import { basename, relative } from "node:path";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  readonly functionName: string;
  readonly location: string;
  readonly selfMs: number;
  readonly selfPercent: number;
}

export interface ProfileSummary {
  readonly process: string;
  readonly file: string;
  /** Sampled time excluding idle. */
  readonly totalMs: number;
  readonly top: readonly ProfileEntry[];
  readonly byOrigin: readonly { readonly origin: string; readonly selfPercent: number }[];
}

/** Where code comes from: `node_modules/<package>`, a project folder, `node:` internals, or a V8 pseudo-frame. */
export function originOf(url: string, functionName: string, root: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return "node internals";
  const path = url.replace(/^file:\/\//, "");
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (modules?.[1]) return `npm ${modules[1]}`;
  const rel = relative(root, path);
  if (rel.startsWith("..")) return path;
  const parts = rel.split("/");
  return parts.slice(0, Math.min(parts.length - 1, 3)).join("/") || rel;
}

/**
 * Self time by function and by origin. With `windows` (µs on the profile's clock, CLOCK_MONOTONIC, which the
 * harness reads as process.hrtime), only samples inside them count: the runs, not the start-up.
 */
/** A project-relative path (npm packages by name); the line only where it means something (tsx output is not). */
function locationOf(frame: CallFrame, root: string): string {
  const path = frame.url.replace(/^file:\/\//, "");
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  const shown = modules ? `${modules[1]}/${basename(modules[2] ?? "")}` : path.startsWith(root) ? relative(root, path) : path;
  return frame.lineNumber > 0 && !shown.endsWith(".ts") ? `${shown}:${frame.lineNumber + 1}` : shown;
}

export function summarizeProfile(
  profile: CpuProfile,
  process: string,
  file: string,
  root: string,
  windows?: readonly (readonly [number, number])[],
  topCount = 15,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  // timeDeltas[i] is the time from sample i-1 to sample i; charge it to sample i.
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (windows && !windows.some(([from, to]) => at >= from && at <= to)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const functions = new Map<string, { functionName: string; location: string; us: number }>();
  const origins = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === "(idle)") continue;
    busyUs += us;
    const location = frame.url ? locationOf(frame, root) : "";
    const key = `${frame.functionName}@${location}`;
    const entry = functions.get(key) ?? { functionName: frame.functionName || "(anonymous)", location, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    const origin = originOf(frame.url, frame.functionName, root);
    origins.set(origin, (origins.get(origin) ?? 0) + us);
  }
  const percent = (us: number) => (busyUs > 0 ? (us / busyUs) * 100 : 0);
  return {
    process,
    file,
    totalMs: busyUs / 1000,
    top: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, topCount)
      .map((entry) => ({ functionName: entry.functionName, location: entry.location, selfMs: entry.us / 1000, selfPercent: percent(entry.us) })),
    byOrigin: [...origins.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([origin, us]) => ({ origin, selfPercent: percent(us) })),
  };
}

export function summarizeProfileFile(path: string, process: string, root: string, windows?: readonly (readonly [number, number])[]): ProfileSummary {
  return summarizeProfile(JSON.parse(readFileSync(path, "utf8")) as CpuProfile, process, basename(path), root, windows);
}
