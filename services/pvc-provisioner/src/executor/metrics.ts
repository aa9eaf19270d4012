// Series both executors (pvc-provisioner, status-writer) export besides the common ones.
import { Counter } from "prom-client";
import type { CommonMetrics } from "../../../common/src/metrics.ts";
import { kubeErrorLabels } from "./kube-errors.ts";

export interface ExecutorMetrics {
  /** Commands refused because a newer owner holds their shard (fencing, fleet brief §3.3 layer 4). */
  readonly staleEpochRejected: Counter<"subject">;
  /** Failed Kubernetes requests by verb, resource, HTTP code and Status reason. */
  readonly kubeErrors: Counter<"verb" | "resource" | "code" | "reason">;
  countKubeError(verb: string, resource: string, error: unknown): void;
}

export function createExecutorMetrics(common: CommonMetrics): ExecutorMetrics {
  const kubeErrors = new Counter({
    name: "stsfleet_kube_errors_total",
    help: "Failed Kubernetes API requests, by verb, resource, HTTP status code and Status reason.",
    labelNames: ["verb", "resource", "code", "reason"],
    registers: [common.registry],
  });
  return {
    staleEpochRejected: new Counter({
      name: "stsfleet_stale_epoch_rejected_total",
      help: "Commands rejected because their epoch is older than the shard's current owner's, by subject template.",
      labelNames: ["subject"],
      registers: [common.registry],
    }),
    kubeErrors,
    countKubeError(verb, resource, error) {
      kubeErrors.inc({ verb, resource, ...kubeErrorLabels(error) });
    },
  };
}
