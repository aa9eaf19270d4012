// Finding executables on the PATH (nats-server, setsid, openssl) without running a shell.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** The absolute path of `binary` in the first PATH directory that has it executable, or undefined. */
export function onPath(binary: string): string | undefined {
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
