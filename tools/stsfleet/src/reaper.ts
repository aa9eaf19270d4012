// Guarantees that no child outlives the supervisor, even when the supervisor is killed with SIGKILL: a tiny
// /bin/sh process in its own session reads the pids of the running children from a pipe; when the pipe reaches
// end-of-file (the supervisor exited, whatever the cause) it stops what is still registered, services first and
// infrastructure (NATS, the simulator) second, SIGTERM then SIGKILL. See docs/adr/0051.
import { spawn } from "node:child_process";
import type { Socket } from "node:net";

/** Tier "s": stopped first; tier "i": stopped after every "s" process is gone. */
export type ReaperTier = "s" | "i";

const SCRIPT = [
  "s=\" \"; i=\" \"",
  "while IFS= read -r line; do",
  "  case \"$line\" in",
  "    +s*) s=\"$s${line#+s} \" ;;",
  "    +i*) i=\"$i${line#+i} \" ;;",
  "    -*) p=\"${line#-}\"; s=$(printf '%s' \"$s\" | sed \"s/ $p / /\"); i=$(printf '%s' \"$i\" | sed \"s/ $p / /\") ;;",
  "  esac",
  "done",
  "stop() {",
  "  for p in $1; do kill -TERM -- \"-$p\" 2>/dev/null || kill -TERM \"$p\" 2>/dev/null; done",
  "  n=0",
  "  while [ $n -lt $2 ]; do",
  "    alive=\"\"",
  "    for p in $1; do kill -0 \"$p\" 2>/dev/null && alive=1; done",
  "    [ -z \"$alive\" ] && return 0",
  "    sleep 0.1; n=$((n+1))",
  "  done",
  "  for p in $1; do kill -KILL -- \"-$p\" 2>/dev/null || kill -KILL \"$p\" 2>/dev/null; done",
  "}",
  "stop \"$s\" 80",
  "stop \"$i\" 50",
].join("\n");

export interface Reaper {
  readonly pid: number | undefined;
  register(pid: number, tier: ReaperTier): void;
  unregister(pid: number): void;
  /** Normal shutdown: every child is already stopped; the reaper exits on end-of-file with nothing to do. */
  close(): void;
}

export function startReaper(): Reaper {
  const child = spawn("/bin/sh", ["-c", SCRIPT], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
    // sed and sleep must be found even when the caller's PATH is odd.
    env: { PATH: `/usr/bin:/bin:${process.env["PATH"] ?? ""}` },
  });
  child.unref();
  const stdin = child.stdin;
  // The pipe must not keep the supervisor's event loop alive; its end is what tells the reaper to act.
  (stdin as unknown as Socket | null)?.unref();
  stdin?.on("error", () => undefined);
  let closed = false;
  const write = (line: string) => {
    if (!closed && stdin && !stdin.destroyed) stdin.write(`${line}\n`);
  };
  return {
    pid: child.pid,
    register: (pid, tier) => write(`+${tier}${pid}`),
    unregister: (pid) => write(`-${pid}`),
    close() {
      if (closed) return;
      closed = true;
      stdin?.end();
    },
  };
}
