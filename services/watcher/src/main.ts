// stsfleet-watcher: the composition root. Parses the configuration once, starts the watcher, and turns SIGINT/SIGTERM
// into a graceful shutdown bounded by --shutdown-timeout-ms.
import { ConfigError } from "../../common/src/config.ts";
import { createLogger } from "../../common/src/logger.ts";
import { createShutdown } from "../../common/src/shutdown.ts";
import { startTelemetry } from "../../common/src/telemetry.ts";
import { parseWatcherConfig } from "./config.ts";

async function main(argv: readonly string[]): Promise<void> {
  let config;
  try {
    config = parseWatcherConfig(argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger({ service: "watcher", instance: config.name, level: config.logLevel, format: config.logFormat });
  const telemetry = startTelemetry("watcher", config.name);
  const shutdown = createShutdown(logger, config.shutdownTimeoutMs);
  shutdown.installSignalHandlers();
  process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled promise rejection"));
  // Loaded after the flags are parsed, so --help and flag errors answer without loading the NATS and Kubernetes clients.
  const { startWatcher } = await import("./watcher.ts");
  const watcher = await startWatcher(config, { logger });
  shutdown.add("watcher", () => watcher.stop());
  shutdown.add("flush spans", () => telemetry.shutdown());
  logger.info({ metrics: watcher.metricsUrl, probes: watcher.probesUrl }, "watcher running");
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`stsfleet-watcher: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
