// OpenTelemetry tracing, configured only through the standard OTEL_* variables. Off unless an OTLP endpoint (or
// another exporter) is configured, so a plain `npm start` exports nothing. Metrics stay on prom-client's
// /metrics; the SDK's own metric and log exporters default to "none" unless OTEL_METRICS_EXPORTER /
// OTEL_LOGS_EXPORTER say otherwise.
import { NodeSDK } from "@opentelemetry/sdk-node";

export interface Telemetry {
  readonly enabled: boolean;
  /** Flushes buffered spans; part of graceful shutdown. */
  shutdown(): Promise<void>;
}

export type Environment = Record<string, string | undefined>;

/** Whether the environment asks for trace export at all. */
export function tracingRequested(env: Environment): boolean {
  if (env["OTEL_SDK_DISABLED"]?.toLowerCase() === "true") return false;
  const exporters = (env["OTEL_TRACES_EXPORTER"] ?? "otlp").split(",").map((s) => s.trim()).filter(Boolean);
  if (exporters.length === 0 || exporters.every((e) => e === "none")) return false;
  const otlpOnly = exporters.every((e) => e === "otlp");
  const endpoint = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  return !otlpOnly || Boolean(endpoint);
}

/**
 * Starts the SDK when requested. `env` must be the process environment (the SDK reads it directly); defaults are
 * filled in only where the user set nothing: service name `stsfleet-<service>`, `service.instance.id` = the
 * instance name, metric and log exporters off.
 */
export function startTelemetry(service: string, instance: string, env: Environment = process.env): Telemetry {
  if (!tracingRequested(env)) return { enabled: false, shutdown: () => Promise.resolve() };
  env["OTEL_SERVICE_NAME"] ??= `stsfleet-${service}`;
  env["OTEL_METRICS_EXPORTER"] ??= "none";
  env["OTEL_LOGS_EXPORTER"] ??= "none";
  const attributes = env["OTEL_RESOURCE_ATTRIBUTES"];
  if (!attributes?.includes("service.instance.id=")) {
    env["OTEL_RESOURCE_ATTRIBUTES"] = [attributes, `service.instance.id=${instance}`].filter(Boolean).join(",");
  }
  const sdk = new NodeSDK({ instrumentations: [] });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}
