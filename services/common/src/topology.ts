// The JetStream streams and KV buckets of a fleet, created idempotently by every service that needs them and
// verified after creation (nats-server 2.9 drops unknown fields silently). Replication is 1 locally, 3 in
// production (--nats-replicas).
import { RetentionPolicy, StorageType, jetstreamManager } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, STREAMS } from "#protocol";
import { ensureStream } from "./nats.ts";
import type { DesiredStream } from "./nats.ts";

export interface TopologyOptions {
  /** Stream and bucket replicas: 1 for a single server, 3 for a production cluster. */
  readonly replicas: number;
}

const DUPLICATE_WINDOW_MS = 120_000;

export function desiredStreams(options: TopologyOptions): Record<keyof typeof STREAMS, DesiredStream> {
  return {
    objects: {
      name: STREAMS.objects,
      subjects: ["k8s.>"],
      max_msgs_per_subject: 1,
      storage: StorageType.File,
      num_replicas: options.replicas,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    },
    intents: {
      name: STREAMS.intents,
      subjects: ["intent.>"],
      max_msgs_per_subject: 32,
      storage: StorageType.File,
      num_replicas: options.replicas,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    },
    commands: {
      name: STREAMS.commands,
      subjects: ["cmd.>"],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      num_replicas: options.replicas,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    },
  };
}

export interface Topology {
  readonly jsm: JetStreamManager;
  readonly members: KV;
  readonly shards: KV;
  readonly leases: KV;
}

/** Creates (or verifies) every stream and bucket. Safe to call concurrently from several services. */
export async function provisionTopology(connection: NatsConnection, options: TopologyOptions): Promise<Topology> {
  const jsm = await jetstreamManager(connection);
  for (const stream of Object.values(desiredStreams(options))) await ensureStream(jsm, stream);
  const kvm = new Kvm(connection);
  // Ownership reads must come from the stream leader (allow_direct off); no TTL: expiry is silent on 2.9.
  const bucketOptions = { history: 8, replicas: options.replicas, allow_direct: false, storage: StorageType.File };
  const members = await kvm.create(BUCKETS.members, bucketOptions);
  const shards = await kvm.create(BUCKETS.shards, bucketOptions);
  const leases = await kvm.create(BUCKETS.leases, bucketOptions);
  return { jsm, members, shards, leases };
}
