// Events as kube-controller-manager's legacy recorder delivers them: a bounded queue (1000 records, new ones
// dropped when full: client-go's broadcaster uses watch.DropIfChannelFull) drained by ONE sender, so Event writes
// never hold up a sync but also never run in parallel. Correlation and the write itself are the status-writer's
// code (ADR 0045), so both architectures put the same Event load on the API server.
import type { EventRecord } from "#protocol";
import type { KubeClient } from "../../../services/common/src/kube.ts";
import type { Logger } from "../../../services/common/src/logger.ts";
import type { ExecutorMetrics } from "../../../services/common/src/executor/metrics.ts";
import { EventCorrelator } from "../../../services/status-writer/src/correlator.ts";
import { EventNanos, recordEvent } from "../../../services/status-writer/src/events.ts";
import type { EventSpec } from "../../../services/actor/src/planner/index.ts";

export const EVENT_QUEUE_LIMIT = 1000;

export class SerialEventSink {
  private readonly queue: EventRecord[] = [];
  private running = false;
  private stopped = false;
  private readonly deps: Parameters<typeof recordEvent>[2];
  dropped = 0;
  sent = 0;

  constructor(kube: KubeClient, metrics: ExecutorMetrics, logger: Logger) {
    this.deps = { kube, correlator: new EventCorrelator(), metrics, logger, nanos: new EventNanos(), nowMs: () => Date.now() };
  }

  record(set: { namespace: string; name: string; uid: string }, event: EventSpec): void {
    if (this.stopped) return;
    if (this.queue.length >= EVENT_QUEUE_LIMIT) {
      this.dropped += 1;
      return;
    }
    this.queue.push({
      type: "event.record",
      shard: 0,
      epoch: 1,
      regarding: { apiVersion: "apps/v1", kind: "StatefulSet", namespace: set.namespace, name: set.name, uid: set.uid || "unknown" },
      eventType: event.type,
      reason: event.reason,
      note: event.message.slice(0, 1024),
      action: event.action.slice(0, 128) || "Reconcile",
      occurredAtMs: Date.now(),
    });
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let next = this.queue.shift(); next !== undefined && !this.stopped; next = this.queue.shift()) {
        await recordEvent(next, { maxTries: 12, retryDelayMs: 10_000 }, this.deps);
        this.sent += 1;
      }
    } finally {
      this.running = false;
    }
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }
}
