// Garbage on the fleet's own subjects (docs/RELIABILITY.md): what a careless or hostile client can publish on a stack without
// --secure. Each payload goes, in order, to every stream subject that names one of the given sets (its objects in
// K8S_OBJS, its intent log, its PVC commands, on whichever streams the stack runs), every key of the members,
// shards and leases buckets, the live copies of the set's objects and the request subjects the services serve
// (status, events, pokes, probes). The last payload is what a stream subject or a KV key is left holding. The
// rules the fleet follows with such entries are in docs/adr/0088-garbage-is-absent-and-repaired.md and
// docs/adr/0089-garbage-in-the-intent-log.md; what each input does and the bound, in docs/RELIABILITY.md.
import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import {
  BUCKETS,
  MAX_INTENT_LOG_REPLICAS,
  SubjectError,
  eventSubjects,
  intentReplicaSubjects,
  intentSubjects,
  liveObjectSubjects,
  objectSubjects,
  pokeSubjects,
  probeSubjects,
  pvcCommandSubjects,
  shard,
  statusSubjects,
} from "#protocol";

export interface GarbagePayload {
  readonly label: string;
  readonly data: Uint8Array;
}

/** The bad payloads, in publication order: the last one is what a stream subject or a KV key is left holding. */
export function garbagePayloads(): GarbagePayload[] {
  return [
    // 0xc1 is never used by MessagePack: no decoder accepts the first byte.
    { label: "random bytes", data: new Uint8Array([0xc1, ...randomBytes(47)]) },
    // A fixarray of 5 elements holding one string.
    { label: "truncated array", data: new Uint8Array([0x95, 0xa3, 0x61, 0x62, 0x63]) },
    { label: "JSON {}", data: new TextEncoder().encode("{}") },
    // Decodes fine, and is no message of ours.
    { label: "empty map", data: new Uint8Array([0x80]) },
  ];
}

export interface GarbageTargets {
  /** Subjects of JetStream streams (published with a JetStream ack, so they are stored). */
  readonly stream: readonly string[];
  /** `$KV.<bucket>.<key>` of every key of the fleet's buckets. */
  readonly kv: readonly string[];
  /** Core NATS subjects: live copies and service requests. */
  readonly core: readonly string[];
}

export interface GarbageSet {
  readonly namespace: string;
  readonly name: string;
}

/** The stream subject families that carry a set's address (object subjects carry the owning set's shard). */
const STREAM_FAMILIES: readonly { parse(subject: string): { shard: number; namespace: string } }[] = [
  objectSubjects,
  intentSubjects,
  ...Array.from({ length: MAX_INTENT_LOG_REPLICAS }, (_, replica) => intentReplicaSubjects(replica)),
  pvcCommandSubjects,
];

/** The family of a stream subject of a set in the same shard and namespace as one of `sets`, else undefined. */
function familyOf(subject: string, sets: readonly GarbageSet[]): (typeof STREAM_FAMILIES)[number] | undefined {
  for (const family of STREAM_FAMILIES) {
    let address;
    try {
      address = family.parse(subject);
    } catch (error) {
      if (error instanceof SubjectError) continue;
      throw error;
    }
    return sets.some((set) => set.namespace === address.namespace && shard(set.namespace, set.name) === address.shard) ? family : undefined;
  }
  return undefined;
}

/** Every subject garbage goes to for `sets` and `members`, read from the running stack's streams and buckets. */
export async function garbageTargets(nc: NatsConnection, sets: readonly GarbageSet[], members: readonly string[]): Promise<GarbageTargets> {
  const jsm = await jetstreamManager(nc);
  const stream: string[] = [];
  const objectSubjectsOfSets: string[] = [];
  for await (const name of jsm.streams.names()) {
    if (name.startsWith("KV_")) continue;
    const info = await jsm.streams.info(name, { subjects_filter: ">" });
    for (const subject of Object.keys(info.state.subjects ?? {}).sort()) {
      const family = familyOf(subject, sets);
      if (family === undefined) continue;
      stream.push(subject);
      if (family === objectSubjects) objectSubjectsOfSets.push(subject);
    }
  }
  const kv: string[] = [];
  const kvm = new Kvm(nc);
  for (const bucket of Object.values(BUCKETS)) {
    const store = await kvm.open(bucket);
    const keys: string[] = [];
    for await (const key of await store.keys()) keys.push(key);
    kv.push(...keys.sort().map((key) => `$KV.${bucket}.${key}`));
  }
  const core = [
    ...objectSubjectsOfSets.map((subject) => liveObjectSubjects.fromObjectSubject(subject)),
    ...sets.flatMap((set) => {
      const address = { shard: shard(set.namespace, set.name), namespace: set.namespace, name: set.name };
      return [statusSubjects.build(address), eventSubjects.build(address), pokeSubjects.build(address)];
    }),
    ...members.map((member) => probeSubjects.build(member)),
  ];
  return { stream, kv, core };
}

export interface GarbageInjection {
  readonly targets: GarbageTargets;
  /** Messages published: every payload to every target. */
  readonly published: number;
}

/** Publishes every garbage payload once to every target of `sets` and `members`, in payload order. */
export async function injectGarbage(nc: NatsConnection, sets: readonly GarbageSet[], members: readonly string[]): Promise<GarbageInjection> {
  const targets = await garbageTargets(nc, sets, members);
  const js = jetstream(nc);
  let published = 0;
  for (const { data } of garbagePayloads()) {
    for (const subject of [...targets.stream, ...targets.kv]) {
      await js.publish(subject, data);
      published++;
    }
    for (const subject of targets.core) {
      nc.publish(subject, data);
      published++;
    }
  }
  await nc.flush();
  return { targets, published };
}
