// Composition root of the watcher process: parse the flags once, then run on the service shell (ADR 0093). The
// runtime (NATS and Kubernetes clients) is imported after parsing so --help and flag errors answer at once.
import { ConfigError } from "../../common/src/config.ts";
import { parseWatcherConfig } from "./config.ts";

function parseOrExit(argv: readonly string[]): ReturnType<typeof parseWatcherConfig> {
  try {
    return parseWatcherConfig(argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

const config = parseOrExit(process.argv.slice(2));
const { runServiceMain } = await import("../../common/src/service.ts");
const { startWatcher } = await import("./watcher.ts");
runServiceMain({ service: "watcher", config, start: (settings, deps) => startWatcher(settings, deps) });
