// Graceful shutdown in registration order (stop intake, finish the turn, release shards, drain NATS, flush
// spans), bounded by a timeout; a second signal exits at once.
import type { Logger } from "./logger.ts";

export interface Shutdown {
  /** Registers a step; steps run in registration order. */
  add(name: string, step: () => Promise<void> | void): void;
  /** Runs the steps once (later calls return the same promise) and resolves with the exit code. */
  run(reason: string): Promise<number>;
  readonly started: boolean;
  /** Listens for SIGINT and SIGTERM and exits the process when the steps are done. */
  installSignalHandlers(): void;
}

export function createShutdown(logger: Logger, timeoutMs: number): Shutdown {
  const steps: { name: string; step: () => Promise<void> | void }[] = [];
  let running: Promise<number> | undefined;

  const run = (reason: string): Promise<number> => {
    running ??= (async () => {
      logger.info({ reason }, "shutting down");
      const timer = setTimeout(() => {
        logger.error({ timeoutMs }, "graceful shutdown timed out; exiting");
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      let code = 0;
      for (const { name, step } of steps) {
        try {
          await step();
        } catch (error) {
          code = 1;
          logger.error({ step: name, err: error }, "shutdown step failed");
        }
      }
      clearTimeout(timer);
      logger.info("shutdown complete");
      return code;
    })();
    return running;
  };

  return {
    add(name, step) {
      steps.push({ name, step });
    },
    run,
    get started() {
      return running !== undefined;
    },
    installSignalHandlers() {
      const onSignal = (signal: NodeJS.Signals) => {
        if (running) {
          logger.warn({ signal }, "second signal: exiting now");
          process.exit(1);
        }
        void run(signal).then((code) => process.exit(code));
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
    },
  };
}
