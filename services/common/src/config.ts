// Flags every service shares. Each service adds its own, parses argv once in main.ts, validates with zod and
// passes the frozen result down. Flags fall back to environment variables (shown in --help) and then defaults.
import { hostname } from "node:os";
import { Command, InvalidArgumentError, Option } from "commander";
import { z } from "zod";
import { parseBindAddress } from "./address.ts";
import type { BindAddress } from "./address.ts";
import { VERSION } from "./version.ts";

export function integerOption(value: string): number {
  if (!/^-?[0-9]+$/.test(value.trim())) throw new InvalidArgumentError("expected an integer");
  return Number(value);
}

/** An integer flag with an environment fallback and a default. */
export function integerFlag(flags: string, description: string, env: string, fallback: number): Option {
  return new Option(flags, description).env(env).argParser(integerOption).default(fallback);
}

/** A commander program with the shared flags. */
export function serviceCommand(binary: string, description: string): Command {
  return new Command(binary)
    .description(description)
    .version(VERSION)
    .showHelpAfterError()
    .addOption(
      new Option("--name <name>", "instance name, used in logs, metrics and the Kubernetes User-Agent")
        .env("POD_NAME")
        .default(hostname()),
    )
    .addOption(new Option("--nats-url <urls>", "NATS server URL(s), comma-separated").env("NATS_URL").default("nats://127.0.0.1:4222"))
    .addOption(new Option("--nats-user <user>", "NATS user name").env("NATS_USER"))
    .addOption(new Option("--nats-password <password>", "NATS password").env("NATS_PASSWORD"))
    .addOption(new Option("--nats-tls-ca <file>", "CA certificate (PEM) to verify the NATS server with; turns TLS on").env("NATS_TLS_CA"))
    .addOption(new Option("--nats-tls-cert <file>", "client certificate (PEM) for mutual TLS with NATS; needs --nats-tls-key").env("NATS_TLS_CERT"))
    .addOption(new Option("--nats-tls-key <file>", "private key (PEM) of --nats-tls-cert").env("NATS_TLS_KEY"))
    .addOption(
      new Option("--nats-replicas <n>", "replicas of the streams and buckets this service creates if missing (1 locally, 3 in production)")
        .env("NATS_REPLICAS")
        .argParser(integerOption)
        .default(1),
    )
    .addOption(
      new Option(
        "--kubeconfig <path>",
        "kubeconfig file; default: $KUBECONFIG, then ~/.kube/config, then the in-cluster service account",
      ),
    )
    .addOption(
      new Option("--kube-request-timeout-ms <ms>", "timeout of each Kubernetes API request")
        .env("KUBE_REQUEST_TIMEOUT_MS")
        .argParser(integerOption)
        .default(4_000),
    )
    .addOption(
      new Option("--metrics-bind-address <addr>", 'address of /metrics ("0" disables)')
        .env("METRICS_BIND_ADDRESS")
        .default(":8080"),
    )
    .addOption(
      new Option("--health-probe-bind-address <addr>", 'address of /healthz and /readyz ("0" disables)')
        .env("HEALTH_PROBE_BIND_ADDRESS")
        .default(":8081"),
    )
    .addOption(
      new Option("--log-level <level>", "log level")
        .choices(["trace", "debug", "info", "warn", "error", "fatal", "silent"])
        .env("LOG_LEVEL")
        .default("info"),
    )
    .addOption(
      new Option("--log-format <format>", "json for machines, pretty for humans")
        .choices(["json", "pretty"])
        .env("LOG_FORMAT")
        .default("json"),
    )
    .addOption(
      new Option("--shutdown-timeout-ms <ms>", "how long a graceful shutdown may take before the process exits")
        .env("SHUTDOWN_TIMEOUT_MS")
        .argParser(integerOption)
        .default(8_000),
    );
}

const bindAddress = z.string().transform((value, ctx): BindAddress | undefined => {
  try {
    return parseBindAddress(value);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : String(error) });
    return z.NEVER;
  }
});

export const CommonConfigSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/, "letters, digits, - _ . only").max(128),
  natsUrl: z.string().min(1),
  natsUser: z.string().optional(),
  natsPassword: z.string().optional(),
  natsTlsCa: z.string().min(1).optional(),
  natsTlsCert: z.string().min(1).optional(),
  natsTlsKey: z.string().min(1).optional(),
  natsReplicas: z.number().int().min(1).max(5),
  kubeconfig: z.string().optional(),
  kubeRequestTimeoutMs: z.number().int().positive(),
  metricsBindAddress: bindAddress,
  healthProbeBindAddress: bindAddress,
  logLevel: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]),
  logFormat: z.enum(["json", "pretty"]),
  shutdownTimeoutMs: z.number().int().positive(),
});
export type CommonConfig = z.infer<typeof CommonConfigSchema>;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.problems = problems;
  }
}

/**
 * Checks across common flags, kept out of CommonConfigSchema so services can still `.extend()` it (a refined zod
 * object cannot be extended).
 */
export function commonConfigProblems(config: Partial<CommonConfig>): string[] {
  const problems: string[] = [];
  if ((config.natsTlsCert === undefined) !== (config.natsTlsKey === undefined)) {
    problems.push("--nats-tls-cert and --nats-tls-key: give both (mutual TLS) or neither");
  }
  return problems;
}

/** Parses argv with `command`, then validates with `schema`; throws ConfigError listing every problem. */
export function parseConfig<S extends z.ZodType>(command: Command, schema: S, argv: readonly string[]): Readonly<z.infer<S>> {
  command.parse([...argv], { from: "user" });
  const result = schema.safeParse(command.opts());
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `--${issue.path.map(String).join(".").replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${issue.message}`),
    );
  }
  const problems = commonConfigProblems(result.data as Partial<CommonConfig>);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(result.data);
}
