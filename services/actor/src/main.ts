// stsfleet-actor: the composition root. Parses flags once, starts the service, shuts down gracefully on signals.
import { ConfigError, parseConfig } from "../../common/src/config.ts";
import { createShutdown } from "../../common/src/shutdown.ts";
import { startTelemetry } from "../../common/src/telemetry.ts";
import { startActor } from "./actor.ts";
import { ActorConfigSchema, actorCommand } from "./config.ts";

async function main(argv: readonly string[]): Promise<void> {
  let config;
  try {
    config = parseConfig(actorCommand(), ActorConfigSchema, argv);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`stsfleet-actor: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const telemetry = startTelemetry("actor", config.name);
  const actor = await startActor(config);
  const shutdown = createShutdown(actor.logger, config.shutdownTimeoutMs);
  shutdown.add("actor", () => actor.stop());
  shutdown.add("flush spans", () => telemetry.shutdown());
  shutdown.installSignalHandlers();
  actor.logger.info({ metrics: actor.metricsUrl, probes: actor.probesUrl }, "actor started");
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`stsfleet-actor: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
