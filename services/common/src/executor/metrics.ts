// Series both executors (pvc-provisioner, status-writer) export besides the common ones.
import { Counter, Gauge, Histogram } from "prom-client";
import type { CounterConfiguration, GaugeConfiguration, HistogramConfiguration, Registry } from "prom-client";
import type { CommonMetrics } from "../metrics.ts";
import { kubeErrorLabels } from "../errors/kube.ts";

export interface ExecutorMetrics {
  /** Commands refused because a newer owner holds their shard (fencing, docs/adr/0071-fleet-ownership-and-fencing.md). */
  readonly staleEpochRejected: Counter<"subject">;
  /** Failed Kubernetes requests by verb, resource, HTTP code and Status reason. */
  readonly kubeErrors: Counter<"verb" | "resource" | "code" | "reason">;
  countKubeError(verb: string, resource: string, error: unknown): void;
}

/**
 * Metrics registered once per registry: two executors may share one process and registry (tests, an all-in-one
 * run), and the second must reuse the first one's series instead of failing on a duplicate name.
 */
export function counter<L extends string>(registry: Registry, config: Omit<CounterConfiguration<L>, "registers">): Counter<L> {
  return (registry.getSingleMetric(config.name) as Counter<L> | undefined) ?? new Counter({ ...config, registers: [registry] });
}

export function gauge<L extends string>(registry: Registry, config: Omit<GaugeConfiguration<L>, "registers">): Gauge<L> {
  return (registry.getSingleMetric(config.name) as Gauge<L> | undefined) ?? new Gauge({ ...config, registers: [registry] });
}

export function histogram<L extends string>(registry: Registry, config: Omit<HistogramConfiguration<L>, "registers">): Histogram<L> {
  return (registry.getSingleMetric(config.name) as Histogram<L> | undefined) ?? new Histogram({ ...config, registers: [registry] });
}

export function createExecutorMetrics(common: CommonMetrics): ExecutorMetrics {
  const kubeErrors = counter(common.registry, {
    name: "stsfleet_kube_errors_total",
    help: "Failed Kubernetes API requests, by verb, resource, HTTP status code and Status reason.",
    labelNames: ["verb", "resource", "code", "reason"],
  });
  return {
    staleEpochRejected: counter(common.registry, {
      name: "stsfleet_stale_epoch_rejected_total",
      help: "Commands rejected because their epoch is older than the shard's current owner's, by subject template.",
      labelNames: ["subject"],
    }),
    kubeErrors,
    countKubeError(verb, resource, error) {
      kubeErrors.inc({ verb, resource, ...kubeErrorLabels(error) });
    },
  };
}
