// Metrics every service exports, declared once as typed constants. Our own series use the `stsfleet_` prefix;
// reconcile and workqueue-like series keep controller-runtime's names so existing dashboards carry over.
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface CommonMetrics {
  readonly registry: Registry;
  /** Messages a service could not use: label `reason` is a DecodeFailure or a service-specific reason. */
  readonly droppedMessages: Counter<"subject" | "reason">;
  readonly natsErrors: Counter<"operation">;
  readonly kubeRequests: Counter<"verb" | "resource" | "code">;
  readonly kubeRequestDuration: Histogram<"verb" | "resource">;
}

export function createCommonMetrics(service: string, instance: string): CommonMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service, instance });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    droppedMessages: new Counter({
      name: "stsfleet_dropped_messages_total",
      help: "Messages dropped because they could not be decoded or used, by subject template and reason.",
      labelNames: ["subject", "reason"],
      registers: [registry],
    }),
    natsErrors: new Counter({
      name: "stsfleet_nats_errors_total",
      help: "NATS client errors, by operation.",
      labelNames: ["operation"],
      registers: [registry],
    }),
    kubeRequests: new Counter({
      name: "rest_client_requests_total",
      help: "Kubernetes API requests, by verb, resource and HTTP status code (client-go's name).",
      labelNames: ["verb", "resource", "code"],
      registers: [registry],
    }),
    kubeRequestDuration: new Histogram({
      name: "rest_client_request_duration_seconds",
      help: "Kubernetes API request latency in seconds, by verb and resource (client-go's name).",
      labelNames: ["verb", "resource"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
