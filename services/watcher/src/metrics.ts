// The watcher's own series, registered next to the common ones. Names follow client-go's reflector and
// controller-runtime habits (`_total` counters, `kind` labels) under the `stsfleet_watcher_` prefix.
import { Counter, Gauge, Histogram } from "prom-client";
import type { Registry } from "prom-client";

export type WatchRestartReason = "closed" | "error" | "gone" | "stall" | "relist";
export type RelistReason = "initial" | "gone" | "periodic" | "error";

export interface WatcherMetrics {
  readonly watchRestarts: Counter<"kind" | "reason">;
  readonly relists: Counter<"kind" | "reason">;
  readonly watchGone: Counter<"kind">;
  readonly watchStalls: Counter<"kind">;
  readonly watchEvents: Counter<"kind" | "type">;
  readonly listDuration: Histogram<"kind">;
  readonly listItems: Histogram<"kind">;
  readonly rejectedObjects: Counter<"kind" | "reason">;
  readonly publishedObjects: Counter<"kind">;
  readonly publishedTombstones: Counter<"kind">;
  readonly publishErrors: Counter<"reason">;
  readonly publishConflicts: Counter;
  readonly quietChanges: Counter<"kind">;
  readonly liveSent: Counter;
  readonly liveErrors: Counter;
  readonly liveSkipped: Counter;
  readonly pendingPublishes: Gauge;
  readonly tombstonesPurged: Counter;
  readonly rereads: Counter<"outcome">;
  readonly objects: Gauge<"kind">;
  readonly leader: Gauge;
  readonly leaseTransitions: Counter<"transition">;
  readonly synced: Gauge;
}

/** Registers every series of the watcher on `registry`, in one order: list-watch, publishing, mirror and lease. */
export function createWatcherMetrics(registry: Registry): WatcherMetrics {
  const registers = [registry];
  return { ...listWatchMetrics(registers), ...publishMetrics(registers), ...mirrorMetrics(registers) };
}

type ListWatchMetrics = Pick<
  WatcherMetrics,
  "watchRestarts" | "relists" | "watchGone" | "watchStalls" | "watchEvents" | "listDuration" | "listItems" | "rejectedObjects"
>;

/** What the reflectors count: lists, watches and the objects the API server sent that could not be mirrored. */
function listWatchMetrics(registers: Registry[]): ListWatchMetrics {
  return {
    watchRestarts: new Counter({
      name: "stsfleet_watcher_watch_restarts_total",
      help: "Watches re-established, by kind and reason (closed by the server, error, gone, stall, periodic relist).",
      labelNames: ["kind", "reason"],
      registers,
    }),
    relists: new Counter({
      name: "stsfleet_watcher_relists_total",
      help: "Full lists of a kind, by reason (initial, gone, periodic, error).",
      labelNames: ["kind", "reason"],
      registers,
    }),
    watchGone: new Counter({
      name: "stsfleet_watcher_watch_gone_total",
      help: "Watches or list pages answered with 410 Gone (resourceVersion too old), by kind.",
      labelNames: ["kind"],
      registers,
    }),
    watchStalls: new Counter({
      name: "stsfleet_watcher_watch_stall_restarts_total",
      help: "Watches restarted by the watchdog after no event and no bookmark for --watch-stall-timeout-ms.",
      labelNames: ["kind"],
      registers,
    }),
    watchEvents: new Counter({
      name: "stsfleet_watcher_watch_events_total",
      help: "Watch events received, by kind and type (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR).",
      labelNames: ["kind", "type"],
      registers,
    }),
    listDuration: new Histogram({
      name: "stsfleet_watcher_list_duration_seconds",
      help: "Duration of a full (paginated) list, by kind.",
      labelNames: ["kind"],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    listItems: new Histogram({
      name: "stsfleet_watcher_list_items",
      help: "Items returned by a full list, by kind (client-go's reflector_items_per_list).",
      labelNames: ["kind"],
      buckets: [0, 10, 100, 1_000, 10_000, 100_000],
      registers,
    }),
    rejectedObjects: new Counter({
      name: "stsfleet_watcher_rejected_objects_total",
      help: "Objects from the API server that could not be mirrored, by kind and reason.",
      labelNames: ["kind", "reason"],
      registers,
    }),
  };
}

type PublishMetrics = Pick<
  WatcherMetrics,
  | "publishedObjects"
  | "publishedTombstones"
  | "publishErrors"
  | "publishConflicts"
  | "quietChanges"
  | "liveSent"
  | "liveSkipped"
  | "liveErrors"
  | "pendingPublishes"
  | "tombstonesPurged"
  | "rereads"
>;

/** What reaches K8S_OBJS and the live subjects, what is not published, purges and re-read answers. */
function publishMetrics(registers: Registry[]): PublishMetrics {
  return {
    publishedObjects: new Counter({
      name: "stsfleet_watcher_published_objects_total",
      help: "Objects stored in K8S_OBJS (PUT), by kind.",
      labelNames: ["kind"],
      registers,
    }),
    publishedTombstones: new Counter({
      name: "stsfleet_watcher_published_tombstones_total",
      help: "Tombstones stored in K8S_OBJS (DEL), by kind.",
      labelNames: ["kind"],
      registers,
    }),
    publishErrors: new Counter({
      name: "stsfleet_watcher_publish_errors_total",
      help: "Publishes that failed and will be retried, by reason (timeout, error).",
      labelNames: ["reason"],
      registers,
    }),
    publishConflicts: new Counter({
      name: "stsfleet_watcher_publish_conflicts_total",
      help: "Publishes refused because the subject held a newer message than expected (re-read, then retried).",
      registers,
    }),
    quietChanges: new Counter({
      name: "stsfleet_watcher_quiet_changes_total",
      help: "Object changes mirrored but not published because no owner reads what changed (a pod or claim being bound; ADR 0090), by kind.",
      labelNames: ["kind"],
      registers,
    }),
    liveSent: new Counter({
      name: "stsfleet_watcher_live_messages_total",
      help: "Object messages also sent on their live.<shard>.> core subject: wants the stream did not ack within --live-copy-delay-ms, and retried publishes (ADR 0084, 0085).",
      registers,
    }),
    liveSkipped: new Counter({
      name: "stsfleet_watcher_live_skipped_total",
      help: "Live copies not sent because the stream acked the same want within --live-copy-delay-ms (ADR 0085).",
      registers,
    }),
    liveErrors: new Counter({
      name: "stsfleet_watcher_live_errors_total",
      help: "Live copies the NATS client refused (connection closed or draining); the stream publish still went ahead.",
      registers,
    }),
    pendingPublishes: new Gauge({
      name: "stsfleet_watcher_pending_publishes",
      help: "Subjects whose stream content differs from the cluster and still owe a publish.",
      registers,
    }),
    tombstonesPurged: new Counter({
      name: "stsfleet_watcher_tombstones_purged_total",
      help: "Tombstones purged from K8S_OBJS after --tombstone-ttl-ms, and foreign messages (not written by a watcher) no object replaces (ADR 0088).",
      registers,
    }),
    rereads: new Counter({
      name: "stsfleet_watcher_rereads_total",
      help: "Re-read requests from owners that could not read an object subject's last message (ADR 0088), by outcome (republishing, valid, absent; standby: not answered here; error: the read or purge failed, the owner asks again).",
      labelNames: ["outcome"],
      registers,
    }),
  };
}

/** The mirror's size and sync, and this watcher's part in the lease. */
function mirrorMetrics(registers: Registry[]): Pick<WatcherMetrics, "objects" | "leader" | "leaseTransitions" | "synced"> {
  return {
    objects: new Gauge({
      name: "stsfleet_watcher_objects",
      help: "Objects in the watcher's mirror, by kind.",
      labelNames: ["kind"],
      registers,
    }),
    leader: new Gauge({
      name: "stsfleet_watcher_leader",
      help: "1 while this watcher holds the lease and publishes, 0 on standby (client-go's leader_election_master_status).",
      registers,
    }),
    leaseTransitions: new Counter({
      name: "stsfleet_watcher_lease_transitions_total",
      help: "Lease transitions of this watcher (acquired, lost, released).",
      labelNames: ["transition"],
      registers,
    }),
    synced: new Gauge({
      name: "stsfleet_watcher_synced",
      help: "1 once the first list of every kind has been mirrored.",
      registers,
    }),
  };
}
