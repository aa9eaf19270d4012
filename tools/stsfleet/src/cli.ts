// `stsfleet <command>`: `up` runs the whole local stack in the foreground (`npm start`), `down` stops a stack
// started elsewhere from its stack.json, `status` shows the fleet (members, shard owners, handoffs), `preflight` checks
// a cluster before stsfleet is installed on it (docs/CLUSTER.md).
// Interface: ../../../../shared/brief/README.md, "Interfaces that others rely on".
import { relative } from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Command, InvalidArgumentError, Option } from "commander";
import { prettyFactory } from "pino-pretty";
import { VERSION } from "../../../services/common/src/version.ts";
import { runDemo } from "./demo.ts";
import { stopStackFromFile } from "./down.ts";
import { StackStartError, startStack } from "./stack.ts";
import type { LogLevel, Stack, StackEvent } from "./stack.ts";
import { preflightCommand } from "./preflight.ts";
import { statusCommand } from "./status.ts";

function positiveInt(name: string) {
  return (raw: string): number => {
    if (!/^[0-9]+$/.test(raw.trim()) || Number(raw) < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return Number(raw);
  };
}

/** Paths in messages: relative to the working directory when that is shorter (`.stsfleet/kubeconfig`). */
function display(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.length > 0 && !rel.startsWith("..") && rel.length < path.length ? rel : path;
}

function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function describeEvent(event: StackEvent): string | undefined {
  switch (event.type) {
    case "step":
      return `  ${event.message}`;
    case "waiting":
      return `  waiting for ${[...event.pending].map(([name, why]) => `${name} (${why})`).join(", ")} … ${formatSeconds(event.elapsedMs)}`;
    case "ready":
      return undefined;
    case "failed":
      return `stsfleet: ${event.error.message}`;
    case "process": {
      const e = event.event;
      switch (e.type) {
        case "spawned":
          return e.restarts > 0 ? `  ${e.name} restarted (pid ${e.pid}, restart ${e.restarts})` : undefined;
        case "exited":
          if (e.expected) return undefined;
          return `  ${e.name} exited (${e.signal ? `signal ${e.signal}` : `code ${e.code}`})${
            e.restartInMs !== undefined ? `; restarting in ${formatSeconds(e.restartInMs)}` : ""
          }`;
        case "spawn-failed":
          return `  ${e.name} could not start: ${e.error.message}`;
        default:
          return assertNeverEvent(e);
      }
    }
    default:
      return assertNeverEvent(event);
  }
}

function assertNeverEvent(value: never): never {
  throw new Error(`unexpected event ${JSON.stringify(value)}`);
}

/** Children's JSON log lines, prettified and prefixed with the instance name (for --show-logs). */
function logPrinter(): (name: string, line: string) => void {
  const pretty = prettyFactory({
    colorize: process.stderr.isTTY,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,service,instance",
    singleLine: true,
  });
  return (name, line) => {
    let text = line;
    if (line.startsWith("{")) {
      try {
        text = pretty(JSON.parse(line) as Record<string, unknown>).trimEnd();
      } catch {
        // not JSON after all: print as it is
      }
    }
    process.stderr.write(`[${name}] ${text}\n`);
  };
}

interface UpOptions {
  stateDir: string;
  actors: number;
  demo: boolean;
  natsUrl?: string;
  kubeconfig?: string;
  secure: boolean;
  showLogs: boolean;
  logLevel: LogLevel;
  readyTimeoutMs: number;
  fresh: boolean;
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * The first SIGINT, SIGTERM or SIGHUP (or the death of whatever started us) aborts the returned signal: startup stops,
 * or the running stack is stopped gracefully. A second signal kills every child group at once.
 */
function interruptOnSignals(services: () => Iterable<{ signal(signal: NodeJS.Signals): void }>): { interrupt: AbortController; dispose: () => void } {
  const interrupt = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      print(`stsfleet: ${signal}: stopping the stack (again to force)`);
      interrupt.abort(signal);
      return;
    }
    // Second signal: no more patience; kill every child group now (the reaper would do the same on exit).
    for (const child of services()) child.signal("SIGKILL");
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);

  // If whatever started us dies (a terminal closed, `npm` killed), we are re-parented: stop instead of lingering.
  const parent = process.ppid;
  const parentWatch = setInterval(() => {
    if (process.ppid !== parent && !interrupt.signal.aborted) {
      print("stsfleet: parent process exited; stopping the stack");
      interrupt.abort("parent exited");
    }
  }, 1_000);
  parentWatch.unref();
  return { interrupt, dispose: () => clearInterval(parentWatch) };
}

/** The stack, or the exit code when it did not start (0 when the user interrupted the start). */
async function startForUp(options: UpOptions, signal: AbortSignal): Promise<Stack | number> {
  try {
    return await startStack({
      stateDir: options.stateDir,
      persist: true,
      fresh: options.fresh,
      actors: options.actors,
      ...(options.natsUrl !== undefined ? { natsUrl: options.natsUrl } : {}),
      ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}),
      secure: options.secure,
      logLevel: options.logLevel,
      readyTimeoutMs: options.readyTimeoutMs,
      ...(options.showLogs ? { onLog: logPrinter() } : {}),
      onEvent: (event) => {
        const line = describeEvent(event);
        if (line !== undefined) print(line);
      },
      signal,
    });
  } catch (error) {
    if (signal.aborted) {
      print("stsfleet: stopped before the stack was ready");
      return 0;
    }
    process.stderr.write(`stsfleet: ${(error as Error).message}\n`);
    if (error instanceof StackStartError && error.hint) process.stderr.write(`${error.hint}\n`);
    return 1;
  }
}

/** Runs the demo if asked, then waits for an interrupt or a failure of the stack; 1 when the stack failed. */
async function runUntilInterrupted(stack: Stack, options: UpOptions, interrupt: AbortController): Promise<number> {
  let exitCode = 0;
  void stack.failed.then((error) => {
    exitCode = 1;
    interrupt.abort(error);
  });
  if (options.demo) {
    try {
      await runDemo({ kubeconfigPath: stack.kubeconfigPath, print, signal: interrupt.signal });
    } catch (error) {
      if (!interrupt.signal.aborted) print(`demo: could not be applied: ${(error as Error).message}`);
    }
  }
  if (!interrupt.signal.aborted) print("stsfleet: running; Ctrl-C stops the stack");
  await new Promise<void>((resolve) => {
    if (interrupt.signal.aborted) resolve();
    else interrupt.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  return exitCode;
}

async function up(options: UpOptions): Promise<number> {
  // A closed terminal or pipe must not crash the supervisor before it has stopped its children.
  process.stdout.on("error", () => undefined);
  process.stderr.on("error", () => undefined);
  // Set once started: a second signal kills its children.
  const running: { stack?: Stack } = {};
  const { interrupt, dispose } = interruptOnSignals(() => running.stack?.services.values() ?? []);

  const started = performance.now();
  print(`stsfleet ${VERSION}: starting the local stack in ${display(options.stateDir)}`);
  const outcome = await startForUp(options, interrupt.signal);
  if (typeof outcome === "number") {
    dispose();
    return outcome;
  }
  const stack = (running.stack = outcome);

  const kubeconfig = display(stack.kubeconfigPath);
  print(
    `ready: kubeconfig ${kubeconfig} (try \`kubectl --kubeconfig ${kubeconfig} get sts,pods,pvc\`), ` +
      `stack ${display(stack.stackFile)}, logs ${display(`${stack.stateDir}/logs`)}/, ` +
      `${stack.services.size} services up in ${formatSeconds(performance.now() - started)}`,
  );
  const exitCode = await runUntilInterrupted(stack, options, interrupt);
  const stopping = performance.now();
  await stack.stop();
  print(`stsfleet: stopped in ${formatSeconds(performance.now() - stopping)}`);
  dispose();
  return exitCode;
}

export function buildProgram(): Command {
  const program = new Command("stsfleet")
    .description("Run stsfleet locally: NATS, a Kubernetes simulator and the four services, supervised.")
    .version(VERSION)
    .showHelpAfterError();

  program
    .command("up")
    .description("start the whole stack in the foreground; Ctrl-C stops it")
    .addOption(new Option("--state-dir <dir>", "kubeconfig, stack.json, audit.log and logs/ go here").env("STSFLEET_STATE_DIR").default(".stsfleet"))
    .addOption(new Option("--actors <n>", "actor replicas, each a separate process").argParser(positiveInt("--actors")).default(1))
    .option("--no-demo", "start empty instead of applying the demo StatefulSet")
    .addOption(new Option("--nats-url <url>", "use this NATS instead of starting nats-server"))
    .addOption(new Option("--kubeconfig <path>", "use this cluster instead of starting the simulator"))
    .addOption(
      new Option("--secure", "NATS with one user per service (deploy/base/nats/auth.conf), random passwords and mutual TLS (certificates in <state-dir>/secure)")
        .default(false)
        .conflicts("natsUrl"),
    )
    .option("--show-logs", "also print the children's logs (pretty) on stderr", false)
    .option("--fresh", "wipe the state dir first: no objects from the last run, an empty NATS store", false)
    .addOption(
      new Option("--log-level <level>", "the services' log level")
        .choices(["trace", "debug", "info", "warn", "error", "fatal", "silent"])
        .default("info"),
    )
    .addOption(
      new Option("--ready-timeout-ms <ms>", "how long to wait for every service's /readyz")
        .argParser(positiveInt("--ready-timeout-ms"))
        .default(120_000),
    )
    .action(async (options: UpOptions) => {
      process.exitCode = await up(options);
    });

  program
    .command("down")
    .description("stop a stack started by `stsfleet up` (from its stack.json)")
    .addOption(new Option("--state-dir <dir>", "the state dir the stack runs in").env("STSFLEET_STATE_DIR").default(".stsfleet"))
    .action(async (options: { stateDir: string }) => {
      process.exitCode = await stopStackFromFile(options.stateDir, (line) => process.stdout.write(`${line}\n`));
    });

  program
    .command("bench")
    .description("benchmark the fleet against the workqueue baseline and the floor (`stsfleet bench --help`; docs/BENCHMARKS.md)")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument("[args...]", "the bench's own flags")
    .action(async (args: string[]) => {
      // Loaded on use: the bench pulls in the workqueue baseline and the report code, which `up` does not need.
      const bench = await import("../../bench/cli.ts");
      process.exitCode = await bench.main([process.argv[0] ?? "node", "stsfleet-bench", ...args]);
    });

  program.addCommand(statusCommand());
  program.addCommand(preflightCommand());

  return program;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildProgram()
    .parseAsync(process.argv)
    .then(async () => {
      // Let stdout drain, then exit even if a stray handle is left.
      await sleep(20);
      process.exit(process.exitCode ?? 0);
    })
    .catch((error: unknown) => {
      process.stderr.write(`stsfleet: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
