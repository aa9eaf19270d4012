// The JetStream streams and KV buckets of a fleet, created idempotently by every service that needs them and
// verified after creation (nats-server 2.9 drops unknown fields silently). Replication is 1 locally, 3 in
// production (--nats-replicas).
import { JetStreamApiError, RetentionPolicy, StorageType, jetstreamManager } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { JetStreamManager, Placement } from "@nats-io/jetstream";
import { KvWatchInclude, Kvm } from "@nats-io/kv";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { BUCKETS, DecodeError, FLEET_KEYS, STREAMS, codecs, intentLogQuorum, intentReplicaStream, intentReplicaSubjects } from "#protocol";
import type { IntentLogLayout } from "#protocol";
import type { Logger } from "./logger.ts";
import { NatsFeatureError, ensureStream } from "./nats.ts";
import type { DesiredStream } from "./nats.ts";
import { isWrongLastSequence } from "./errors/nats.ts";

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

/** The layout key as one read shows it. */
type LayoutReading =
  | { readonly kind: "absent" }
  /** A PUT that does not decode: its revision is the one to write over by compare-and-set. */
  | { readonly kind: "unreadable"; readonly revision: number }
  | { readonly kind: "layout"; readonly layout: IntentLogLayout };

async function readLayout(members: KV): Promise<LayoutReading> {
  const entry = await members.get(FLEET_KEYS.intentLog);
  if (!entry || entry.operation !== "PUT") return { kind: "absent" };
  try {
    return { kind: "layout", layout: codecs.intentLogLayout.decode(entry.value) };
  } catch (error) {
    if (error instanceof DecodeError) return { kind: "unreadable", revision: entry.revision };
    throw error;
  }
}

/** The layout the fleet pinned in bucket `members`: undefined when none is, "unreadable" when it does not decode. */
export async function readIntentLogLayout(members: KV): Promise<IntentLogLayout | "unreadable" | undefined> {
  const reading = await readLayout(members);
  return reading.kind === "absent" ? undefined : reading.kind === "unreadable" ? "unreadable" : reading.layout;
}

/**
 * The fleet's intent log is kept another way than this actor was told to, or its layout record stayed unreadable:
 * two actors appending to different logs would not fence each other, so the actor refuses to start.
 */
export class IntentLogLayoutError extends Error {
  override readonly name = "IntentLogLayoutError";
  /** Undefined: the record does not decode and was not repaired within `waitedMs`. */
  readonly pinned: IntentLogLayout | undefined;
  readonly wanted: IntentLogLayout;
  readonly waitedMs: number | undefined;

  constructor(pinned: IntentLogLayout | undefined, wanted: IntentLogLayout, waitedMs?: number) {
    const where = `(bucket ${BUCKETS.members}, key ${FLEET_KEYS.intentLog})`;
    const del = `nats kv del ${BUCKETS.members} ${FLEET_KEYS.intentLog}`;
    super(
      pinned
        ? `the fleet keeps its intent log as ${describeIntentLogLayout(pinned.placement)} ${where}, this actor was started for ` +
            `${describeIntentLogLayout(wanted.placement)}. Give every actor the same --intent-log-placement; to change it, stop every ` +
            `actor, delete the key (${del}), then start them with the new value`
        : `the intent log's layout record ${where} is unreadable and no running actor wrote it back within ${waitedMs ?? 0} ms ` +
            "(actors of an older version do not; a starting actor writes it only when no member renewed meanwhile). Stop every " +
            `actor, delete the key (${del}), then start them with the same --intent-log-placement (this actor was started for ` +
            `${describeIntentLogLayout(wanted.placement)})`,
    );
    this.pinned = pinned;
    this.wanted = wanted;
    this.waitedMs = waitedMs;
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

export interface IntentLogOptions {
  /**
   * How long an actor that finds the layout record unreadable waits for a running actor to write it back. Defaults
   * to 15 s, the lease duration of the default lease profile (LEASE_PROFILES in services/actor/src/runtime/ownership.ts);
   * the actor passes its own profile's.
   */
  readonly unreadableWaitMs?: number;
  /** Defaults to none. */
  readonly logger?: Logger;
}

const DEFAULT_UNREADABLE_WAIT_MS = 15_000;
/** Compare-and-sets over garbage that more garbage overtook, before the actor gives up and an operator decides. */
const MAX_UNREADABLE_OVERWRITES = 3;

/** A create of our layout, or what the key held instead (a delete or a purge is written over by the create). */
async function createOrRead(members: KV, bytes: Uint8Array): Promise<{ readonly kind: "created" } | Exclude<LayoutReading, { kind: "absent" }>> {
  try {
    await members.create(FLEET_KEYS.intentLog, bytes);
    return { kind: "created" };
  } catch (createError) {
    const reading = await readLayout(members);
    if (reading.kind === "absent") throw createError;
    return reading;
  }
}

/**
 * Waits up to `waitMs` for the layout record to become readable (or go away), watching the member keys meanwhile. A
 * live member renews its key at least every quarter of a retry period, far inside a lease duration: a wait without
 * any change of `m.*` means no actor is running, so none is appending to an intent log.
 */
async function waitForLayoutRepair(members: KV, waitMs: number): Promise<{ readonly membersRenewed: boolean }> {
  const memberWatch = await members.watch({ key: "m.*", include: KvWatchInclude.UpdatesOnly });
  const layoutWatch = await members.watch({ key: FLEET_KEYS.intentLog }).catch((error: unknown) => {
    memberWatch.stop();
    throw error;
  });
  let membersRenewed = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      void (async () => {
        for await (const _entry of memberWatch) membersRenewed = true;
      })();
      void (async () => {
        // The first entry is the key's value when the watch opened: a repair between the read and the watch counts.
        for await (const entry of layoutWatch) {
          if (entry.operation !== "PUT" || decodesAsLayout(entry.value)) return resolve();
        }
      })();
    });
  } finally {
    clearTimeout(timer);
    memberWatch.stop();
    layoutWatch.stop();
  }
  return { membersRenewed };
}

function decodesAsLayout(bytes: Uint8Array): boolean {
  try {
    codecs.intentLogLayout.decode(bytes);
    return true;
  } catch (error) {
    if (error instanceof DecodeError) return false;
    throw error;
  }
}

/**
 * The first actor writes the layout, every later one must match it. An unreadable record is written back by the
 * running actors (services/actor/src/runtime/layout-guard.ts); a starting one waits for that, and writes its own only
 * when no member renewed during the wait: then no actor runs, the condition under which deleting the key by hand is
 * safe too (docs/adr/0088-garbage-is-absent-and-repaired.md).
 */
async function pinIntentLogLayout(members: KV, layout: IntentLogLayout, options: IntentLogOptions): Promise<void> {
  const bytes = codecs.intentLogLayout.encode(layout);
  let pinned = await createOrRead(members, bytes);
  if (pinned.kind === "unreadable") {
    const waitMs = options.unreadableWaitMs ?? DEFAULT_UNREADABLE_WAIT_MS;
    const where = { bucket: BUCKETS.members, key: FLEET_KEYS.intentLog, revision: pinned.revision };
    options.logger?.warn({ ...where, waitMs }, "the intent log's layout record is unreadable; waiting for a running actor to write it back");
    const { membersRenewed } = await waitForLayoutRepair(members, waitMs);
    pinned = await createOrRead(members, bytes);
    for (let attempt = 0; pinned.kind === "unreadable"; attempt++) {
      if (membersRenewed || attempt === MAX_UNREADABLE_OVERWRITES) throw new IntentLogLayoutError(undefined, layout, waitMs);
      try {
        const revision = await members.update(FLEET_KEYS.intentLog, bytes, pinned.revision);
        options.logger?.warn(
          { ...where, over: pinned.revision, revision, waitMs },
          "the intent log's layout record stayed unreadable and no member renewed: wrote this actor's layout over it",
        );
        return;
      } catch (error) {
        // Another starting actor wrote first, or more garbage came: read again and decide on that.
        if (!isWrongLastSequence(error)) throw error;
        pinned = await createOrRead(members, bytes);
      }
    }
  }
  if (pinned.kind === "layout" && JSON.stringify(pinned.layout.placement) !== JSON.stringify(layout.placement)) {
    throw new IntentLogLayoutError(pinned.layout, layout);
  }
}

/**
 * Pins the intent log's layout in bucket `members` (pinIntentLogLayout), then creates the quorum replicas and checks
 * that no two of them share a server. STS_INTENT itself comes with provisionTopology.
 */
export async function provisionIntentLog(
  topology: Pick<Topology, "jsm" | "members">,
  placement: readonly string[],
  options: IntentLogOptions = {},
): Promise<ProvisionedIntentLog> {
  const layout: IntentLogLayout = { type: "intent-log.layout", placement: [...placement] };
  await pinIntentLogLayout(topology.members, layout, options);
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
