// The JetStream streams and KV buckets of a fleet, created idempotently by every service that needs them and
// verified after creation (nats-server 2.9 drops unknown fields silently). Replication is 1 locally, 3 in
// production (--nats-replicas).
import { JetStreamApiError, RetentionPolicy, StorageType, jetstreamManager } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { JetStreamManager, Placement } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, DecodeError, FLEET_KEYS, STREAMS, codecs, intentLogQuorum, intentReplicaStream, intentReplicaSubjects } from "#protocol";
import type { IntentLogLayout } from "#protocol";
import { NatsFeatureError, ensureStream } from "./nats.ts";
import type { DesiredStream } from "./nats.ts";

export interface TopologyOptions {
  /** Stream and bucket replicas: 1 for a single server, 3 for a production cluster. */
  readonly replicas: number;
}

const DUPLICATE_WINDOW_MS = 120_000;
/** Records kept per set by the intent log, in STS_INTENT and in each quorum replica. */
const INTENT_RECORDS_PER_SET = 32;

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
      max_msgs_per_subject: INTENT_RECORDS_PER_SET,
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

/**
 * The streams of a quorum intent log (ADR 0084): replica i is STS_INTENT_<i> over `qintent.<i>.>`, one replica of its
 * own, placed on the server tagged `placement[i]`.
 */
export function desiredIntentReplicaStreams(placement: readonly string[]): DesiredStream[] {
  return placement.map((tag, replica) => ({
    name: intentReplicaStream(replica),
    subjects: [intentReplicaSubjects(replica).all],
    max_msgs_per_subject: INTENT_RECORDS_PER_SET,
    storage: StorageType.File,
    num_replicas: 1,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    // Tags only: nats-server omits an empty cluster name, and ensureStream compares what it reads back.
    placement: { tags: [tag] } as Placement,
  }));
}

/** How a layout's placement keeps the log, in words (errors, `stsfleet status`). */
export function describeIntentLogLayout(placement: readonly string[]): string {
  return placement.length === 0 ? `one stream ${STREAMS.intents}` : `a majority of ${placement.length} single-replica streams on the servers tagged ${placement.join(", ")}`;
}

/** The layout the fleet pinned in bucket `members`: undefined when none is, "unreadable" when it does not decode. */
export async function readIntentLogLayout(members: KV): Promise<IntentLogLayout | "unreadable" | undefined> {
  const entry = await members.get(FLEET_KEYS.intentLog);
  if (!entry || entry.operation !== "PUT") return undefined;
  try {
    return codecs.intentLogLayout.decode(entry.value);
  } catch (error) {
    if (error instanceof DecodeError) return "unreadable";
    throw error;
  }
}

/**
 * The fleet's intent log is kept another way than this actor was told to: two actors appending to different logs
 * would not fence each other, so the actor refuses to start.
 */
export class IntentLogLayoutError extends Error {
  override readonly name = "IntentLogLayoutError";
  readonly pinned: IntentLogLayout | undefined;
  readonly wanted: IntentLogLayout;

  constructor(pinned: IntentLogLayout | undefined, wanted: IntentLogLayout) {
    super(
      `the fleet keeps its intent log as ${pinned ? describeIntentLogLayout(pinned.placement) : "an unreadable layout record"} ` +
        `(bucket ${BUCKETS.members}, key ${FLEET_KEYS.intentLog}), this actor was started for ${describeIntentLogLayout(wanted.placement)}. ` +
        "Give every actor the same --intent-log-placement; to change it, stop every actor, delete the key " +
        `(nats kv del ${BUCKETS.members} ${FLEET_KEYS.intentLog}), then start them with the new value`,
    );
    this.pinned = pinned;
    this.wanted = wanted;
  }
}

/** Two replicas of a quorum intent log ended up on one server, which would lose both at once. */
export class IntentLogPlacementError extends Error {
  override readonly name = "IntentLogPlacementError";
  readonly servers: Readonly<Record<string, string>>;

  constructor(servers: Readonly<Record<string, string>>) {
    super(
      `intent log replicas share a server (${Object.entries(servers)
        .map(([stream, server]) => `${stream} on ${server}`)
        .join(", ")}): give each server its own tag (server_tags) and list each tag once in --intent-log-placement`,
    );
    this.servers = servers;
  }
}

export interface ProvisionedIntentLog {
  readonly layout: IntentLogLayout;
  /** Per quorum replica, the server that holds it; undefined on a server that is not clustered, or unavailable. */
  readonly servers: readonly (string | undefined)[];
  /** Replicas that could not be created or read (their server is down): `<stream>: <error>`. */
  readonly unavailable: readonly string[];
}

/**
 * Pins the intent log's layout in bucket `members` (the first actor writes it, every later one must match), then
 * creates the quorum replicas and checks that no two of them share a server. STS_INTENT itself comes with
 * provisionTopology.
 */
export async function provisionIntentLog(topology: Pick<Topology, "jsm" | "members">, placement: readonly string[]): Promise<ProvisionedIntentLog> {
  const layout: IntentLogLayout = { type: "intent-log.layout", placement: [...placement] };
  try {
    await topology.members.create(FLEET_KEYS.intentLog, codecs.intentLogLayout.encode(layout));
  } catch (createError) {
    const pinned = await readIntentLogLayout(topology.members);
    if (pinned === undefined) throw createError;
    if (pinned === "unreadable") throw new IntentLogLayoutError(undefined, layout);
    if (JSON.stringify(pinned.placement) !== JSON.stringify(layout.placement)) throw new IntentLogLayoutError(pinned, layout);
  }
  const servers: (string | undefined)[] = [];
  const unavailable: string[] = [];
  for (const stream of desiredIntentReplicaStreams(placement)) {
    try {
      await ensureStream(topology.jsm, stream);
      servers.push((await topology.jsm.streams.info(stream.name)).cluster?.leader || undefined);
    } catch (error) {
      // A replica whose server is down (no answer) must not keep an actor from starting while a majority is there:
      // appends need only the majority. An answer that refuses (a tag no server has, a dropped field) is a
      // misconfiguration and stops the actor.
      if (error instanceof JetStreamApiError || error instanceof NatsFeatureError) throw error;
      unavailable.push(`${stream.name}: ${error instanceof Error ? error.message : String(error)}`);
      servers.push(undefined);
    }
  }
  if (placement.length > 0 && unavailable.length > placement.length - intentLogQuorum(placement.length)) {
    throw new IntentLogUnavailableError(unavailable);
  }
  const placed = servers.filter((server): server is string => server !== undefined);
  if (new Set(placed).size !== placed.length) {
    throw new IntentLogPlacementError(Object.fromEntries(placement.map((_, i) => [intentReplicaStream(i), servers[i] ?? "?"])));
  }
  return { layout, servers, unavailable };
}

/** Too few replicas of the quorum intent log answered to make a majority. */
export class IntentLogUnavailableError extends Error {
  override readonly name = "IntentLogUnavailableError";
  readonly failures: readonly string[];

  constructor(failures: readonly string[]) {
    super(`no majority of the intent log's replicas is available (${failures.join("; ")})`);
    this.failures = failures;
  }
}
