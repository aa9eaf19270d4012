// Every NATS subject, stream, bucket and key the services use, with builders and parsers. The shard is always a
// subject token so consumers filter by shard and nats-server's partition() mapping can compute it too.
// Topology: docs/adr/0002-nats-client-v3-against-server-2-9.md and docs/adr/0071-fleet-ownership-and-fencing.md.

import { isShard, nameToToken, tokenToName } from "./shard.ts";
import type { Shard } from "./shard.ts";

/** Short kind tokens used in object subjects. */
export const OBJECT_KINDS = {
  sts: "StatefulSet",
  pod: "Pod",
  pvc: "PersistentVolumeClaim",
  rev: "ControllerRevision",
} as const;
export type ObjectKindToken = keyof typeof OBJECT_KINDS;
export type ObjectKind = (typeof OBJECT_KINDS)[ObjectKindToken];

const KIND_TO_TOKEN: Readonly<Record<ObjectKind, ObjectKindToken>> = {
  StatefulSet: "sts",
  Pod: "pod",
  PersistentVolumeClaim: "pvc",
  ControllerRevision: "rev",
};

export function kindToken(kind: ObjectKind): ObjectKindToken {
  return KIND_TO_TOKEN[kind];
}

export function isObjectKindToken(token: string): token is ObjectKindToken {
  return Object.hasOwn(OBJECT_KINDS, token);
}

/** JetStream streams and KV buckets. */
export const STREAMS = {
  /** Last value per Kubernetes object, watcher -> actors. */
  objects: "K8S_OBJS",
  /** Per-set intent log, the compare-and-set fence. */
  intents: "STS_INTENT",
  /** Work-queue commands to executors (PVC provisioner). */
  commands: "STS_CMD",
} as const;

/** Most replicas a quorum intent log may have (an odd count from 3; ADR 0084). */
export const MAX_INTENT_LOG_REPLICAS = 7;

/** How many replicas of a quorum intent log make a majority. */
export function intentLogQuorum(replicas: number): number {
  return Math.floor(replicas / 2) + 1;
}

function checkIntentReplica(replica: number, subject: string): void {
  if (!Number.isInteger(replica) || replica < 0 || replica >= MAX_INTENT_LOG_REPLICAS) {
    throw new SubjectError(subject, `intent log replica ${replica} is outside 0..${MAX_INTENT_LOG_REPLICAS - 1}`);
  }
}

/**
 * Stream of replica `replica` of the quorum intent log: a single-replica stream placed on its own NATS server, so
 * that no one Raft group (and its 4-9 s election after a crash) sits in front of every Kubernetes write (ADR 0084).
 */
export function intentReplicaStream(replica: number): string {
  checkIntentReplica(replica, `STS_INTENT_${replica}`);
  return `STS_INTENT_${replica}`;
}

export const BUCKETS = {
  members: "members",
  shards: "shards",
  /** Singleton leases (key `watcher`: the active watcher of an active/standby pair). */
  leases: "leases",
} as const;

/** Fleet-wide settings kept in bucket `members` beside the member records (`m.<member>`). */
export const FLEET_KEYS = {
  /** The intent log's layout (IntentLogLayout), pinned by the first actor. */
  intentLog: "layout.intent-log",
} as const;

/** Queue groups and durable consumer names. */
export const CONSUMERS = {
  pvcProvisioner: "pvc",
  statusWriter: "status",
  eventWriter: "events",
} as const;

export class SubjectError extends Error {
  override readonly name = "SubjectError";
  readonly subject: string;
  readonly problem: string;

  constructor(subject: string, problem: string) {
    super(`invalid subject ${JSON.stringify(subject)}: ${problem}`);
    this.subject = subject;
    this.problem = problem;
  }
}

/** A StatefulSet key plus its shard: what most subjects carry. */
export interface SetAddress {
  readonly shard: Shard;
  readonly namespace: string;
  readonly name: string;
}

/** Namespaces are DNS labels; names are DNS-1123 subdomains (dots become `_` in subjects). */
const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const MEMBER_RE = /^[A-Za-z0-9]([-A-Za-z0-9_]*[A-Za-z0-9])?$/;

function checkShard(shard: number, subject: string): void {
  if (!isShard(shard)) throw new SubjectError(subject, `shard ${shard} is outside 0..255`);
}

function checkNamespace(namespace: string, subject: string): void {
  if (!NAMESPACE_RE.test(namespace) || namespace.length > 63) {
    throw new SubjectError(subject, `namespace ${JSON.stringify(namespace)} is not a DNS label`);
  }
}

function checkName(name: string, subject: string): void {
  if (!NAME_RE.test(name) || name.length > 253) {
    throw new SubjectError(subject, `name ${JSON.stringify(name)} is not a DNS-1123 subdomain`);
  }
}

function checkMember(member: string, subject: string): void {
  if (!MEMBER_RE.test(member) || member.length > 128) {
    throw new SubjectError(subject, `member ${JSON.stringify(member)} must be alphanumeric with - or _`);
  }
}

function setTokens(address: SetAddress, subject: string): string {
  checkShard(address.shard, subject);
  checkNamespace(address.namespace, subject);
  checkName(address.name, subject);
  return `${address.shard}.${address.namespace}.${nameToToken(address.name)}`;
}

function parseShardToken(token: string | undefined, subject: string): Shard {
  if (token === undefined || !/^(0|[1-9][0-9]{0,2})$/.test(token)) {
    throw new SubjectError(subject, "shard token is not a decimal number");
  }
  const shard = Number(token);
  checkShard(shard, subject);
  return shard;
}

function parseSetTokens(tokens: readonly string[], subject: string): SetAddress {
  const [shardToken, namespace, nameToken] = tokens;
  const shard = parseShardToken(shardToken, subject);
  if (namespace === undefined || nameToken === undefined) throw new SubjectError(subject, "too few tokens");
  const name = tokenToName(nameToken);
  checkNamespace(namespace, subject);
  checkName(name, subject);
  return { shard, namespace, name };
}

function splitWithPrefix(subject: string, prefix: readonly string[], rest: number): string[] {
  const tokens = subject.split(".");
  if (tokens.length !== prefix.length + rest) {
    throw new SubjectError(subject, `expected ${prefix.length + rest} tokens, got ${tokens.length}`);
  }
  prefix.forEach((want, i) => {
    if (tokens[i] !== want) throw new SubjectError(subject, `token ${i} must be ${JSON.stringify(want)}`);
  });
  return tokens.slice(prefix.length);
}

// ---------------------------------------------------------------------------------------------------------
// k8s.<shard>.<kind>.<namespace>.<nameToken> : object snapshots (stream K8S_OBJS, one message per subject)

export interface ObjectAddress {
  readonly shard: Shard;
  readonly kind: ObjectKindToken;
  readonly namespace: string;
  readonly name: string;
}

export const objectSubjects = {
  /** Subject template for span names and metrics labels. */
  template: "k8s.{shard}.{kind}.{namespace}.{name}",
  /** Everything in the stream. */
  all: "k8s.>",
  build(address: ObjectAddress): string {
    const kind: string = address.kind;
    const subject = `k8s.${address.shard}.${kind}.<ns>.<name>`;
    if (!isObjectKindToken(kind)) throw new SubjectError(subject, `unknown kind ${kind}`);
    checkShard(address.shard, subject);
    checkNamespace(address.namespace, subject);
    checkName(address.name, subject);
    return `k8s.${address.shard}.${address.kind}.${address.namespace}.${nameToToken(address.name)}`;
  },
  /** Filter for one shard's objects: a single string, as nats-server 2.9 needs (no filter_subjects). */
  shardFilter(shard: Shard): string {
    checkShard(shard, `k8s.${shard}.>`);
    return `k8s.${shard}.>`;
  },
  parse(subject: string): ObjectAddress {
    const [shardToken, kind, namespace, nameToken] = splitWithPrefix(subject, ["k8s"], 4);
    const shard = parseShardToken(shardToken, subject);
    if (kind === undefined || !isObjectKindToken(kind)) throw new SubjectError(subject, "unknown kind token");
    const set = parseSetTokens([String(shard), namespace ?? "", nameToken ?? ""], subject);
    return { shard, kind, namespace: set.namespace, name: set.name };
  },
} as const;

// ---------------------------------------------------------------------------------------------------------
// live.<shard>.<kind>.<namespace>.<nameToken> : the same object messages as core NATS, not stored. The watcher sends
// each change at once, whatever its JetStream publish is doing, so owners keep seeing changes while K8S_OBJS has no
// leader (ADR 0084).

const LIVE_PREFIX = "live.";
const OBJECT_PREFIX = "k8s.";

export const liveObjectSubjects = {
  template: "live.{shard}.{kind}.{namespace}.{name}",
  all: "live.>",
  build(address: ObjectAddress): string {
    return LIVE_PREFIX + objectSubjects.build(address).slice(OBJECT_PREFIX.length);
  },
  /** The live subject of an object subject (`k8s.…` -> `live.…`). */
  fromObjectSubject(subject: string): string {
    if (!subject.startsWith(OBJECT_PREFIX)) throw new SubjectError(subject, `an object subject starts with ${JSON.stringify(OBJECT_PREFIX)}`);
    return LIVE_PREFIX + subject.slice(OBJECT_PREFIX.length);
  },
  /** The object subject of a live subject (`live.…` -> `k8s.…`), the key both copies of a message share. */
  toObjectSubject(subject: string): string {
    if (!subject.startsWith(LIVE_PREFIX)) throw new SubjectError(subject, `token 0 must be "live"`);
    return OBJECT_PREFIX + subject.slice(LIVE_PREFIX.length);
  },
  shardFilter(shard: Shard): string {
    checkShard(shard, `live.${shard}.>`);
    return `live.${shard}.>`;
  },
  parse(subject: string): ObjectAddress {
    return objectSubjects.parse(liveObjectSubjects.toObjectSubject(subject));
  },
} as const;

// ---------------------------------------------------------------------------------------------------------
// svc.reread.<shard>.<kind>.<namespace>.<nameToken> : an owner asks the watcher to verify the object subject of the
// same tokens and publish it again (request-reply; every watcher subscribes, only the active one answers). Sent when
// the subject's last message in K8S_OBJS could not be read (ADR 0088).

const REREAD_PREFIX = "svc.reread.";

export const rereadSubjects = {
  template: "svc.reread.{shard}.{kind}.{namespace}.{name}",
  all: "svc.reread.>",
  build(address: ObjectAddress): string {
    return REREAD_PREFIX + objectSubjects.build(address).slice(OBJECT_PREFIX.length);
  },
  /** The object subject a re-read request is about (`svc.reread.…` -> `k8s.…`). */
  toObjectSubject(subject: string): string {
    if (!subject.startsWith(REREAD_PREFIX)) throw new SubjectError(subject, `a re-read subject starts with ${JSON.stringify(REREAD_PREFIX)}`);
    return OBJECT_PREFIX + subject.slice(REREAD_PREFIX.length);
  },
  parse(subject: string): ObjectAddress {
    return objectSubjects.parse(rereadSubjects.toObjectSubject(subject));
  },
} as const;

// ---------------------------------------------------------------------------------------------------------
// Per-set subjects: intent log, PVC commands, status writes, events, pokes.

function setSubjectFamily(prefix: readonly string[], templateSuffix = "{shard}.{namespace}.{name}") {
  const head = prefix.join(".");
  return {
    template: `${head}.${templateSuffix}`,
    all: `${head}.>`,
    build(address: SetAddress): string {
      return `${head}.${setTokens(address, `${head}.${address.shard}.<ns>.<name>`)}`;
    },
    shardFilter(shard: Shard): string {
      checkShard(shard, `${head}.${shard}.>`);
      return `${head}.${shard}.>`;
    },
    parse(subject: string): SetAddress {
      return parseSetTokens(splitWithPrefix(subject, prefix, 3), subject);
    },
  } as const;
}

/** intent.<shard>.<ns>.<name>: append-only, compare-and-set per subject (STS_INTENT). */
export const intentSubjects = setSubjectFamily(["intent"]);

/**
 * qintent.<replica>.<shard>.<ns>.<name>: the same log kept by a quorum of single-replica streams, one family per
 * replica (stream intentReplicaStream(replica)). Its own first token, so these streams never overlap STS_INTENT's
 * `intent.>` when both exist on one server.
 */
export function intentReplicaSubjects(replica: number) {
  checkIntentReplica(replica, `qintent.${replica}.>`);
  return setSubjectFamily(["qintent", String(replica)]);
}
/** cmd.pvc.<shard>.<ns>.<name>: claim commands to the PVC provisioner (STS_CMD, work queue). */
export const pvcCommandSubjects = setSubjectFamily(["cmd", "pvc"]);
/** svc.status.<shard>.<ns>.<name>: status writes, request-reply to the status-writer queue group. */
export const statusSubjects = setSubjectFamily(["svc", "status"]);
/** svc.event.<shard>.<ns>.<name>: Kubernetes Events to record, to the status-writer queue group. */
export const eventSubjects = setSubjectFamily(["svc", "event"]);
/** sts.poke.<shard>.<ns>.<name>: ask the owning actor for a turn (manual resync, debugging). */
export const pokeSubjects = setSubjectFamily(["sts", "poke"]);

// ---------------------------------------------------------------------------------------------------------
// Fleet membership: probes and KV keys.

export const probeSubjects = {
  template: "fleet.probe.{member}",
  build(member: string): string {
    checkMember(member, `fleet.probe.${member}`);
    return `fleet.probe.${member}`;
  },
  parse(subject: string): string {
    const [member] = splitWithPrefix(subject, ["fleet", "probe"], 1);
    checkMember(member ?? "", subject);
    return member ?? "";
  },
} as const;

/** KV key of a member record in bucket `members`. */
export const memberKeys = {
  build(member: string): string {
    checkMember(member, `m.${member}`);
    return `m.${member}`;
  },
  parse(key: string): string {
    const [member] = splitWithPrefix(key, ["m"], 1);
    checkMember(member ?? "", key);
    return member ?? "";
  },
} as const;

/** KV key of a shard record in bucket `shards`. */
export const shardKeys = {
  build(shard: Shard): string {
    checkShard(shard, `s.${shard}`);
    return `s.${shard}`;
  },
  parse(key: string): Shard {
    const [token] = splitWithPrefix(key, ["s"], 1);
    return parseShardToken(token, key);
  },
} as const;

/** NATS message headers the services set (besides traceparent/tracestate). */
export const HEADERS = {
  msgId: "Nats-Msg-Id",
  shard: "Sts-Shard",
  epoch: "Sts-Epoch",
  resourceVersion: "K8s-RV",
  uid: "K8s-UID",
  op: "Op",
  /** The watcher's publication order of an object message, `<epoch>.<counter>` (publication.ts). */
  publication: "Sts-Pub",
} as const;
