// Recorders the harness runs next to the system under test: every change of pods, StatefulSets, revisions and
// claims as the API server's watch reports it (with its resourceVersion), and every change of the `members` and
// `shards` buckets with the server's write time. Both only read; neither goes through the chaos proxy.
import type { KV, KvEntry } from "@nats-io/kv";
import { KvWatchInclude } from "@nats-io/kv";
import { codecs } from "#protocol";
import type { MemberRecord, ShardRecord } from "#protocol";
import type { KubeClient } from "../../services/common/src/kube.ts";
import { factsOf } from "./facts.ts";
import type { FactKind, ObjectEvent, ObjectFacts, OwnershipChange } from "./facts.ts";

const PATHS: Readonly<Record<FactKind, string>> = {
  Pod: "/api/v1/pods",
  StatefulSet: "/apis/apps/v1/statefulsets",
  ControllerRevision: "/apis/apps/v1/controllerrevisions",
  PersistentVolumeClaim: "/api/v1/persistentvolumeclaims",
};

interface ListBody {
  metadata?: { resourceVersion?: string };
  items?: unknown[];
}

interface WatchStatus {
  code?: number;
  metadata?: { resourceVersion?: string };
}

/** Lists then watches one kind across all namespaces; relists (and marks the difference synthetic) after 410. */
class KindRecorder {
  private readonly state = new Map<string, ObjectFacts>();
  private resourceVersion = "";
  private abort: AbortController | undefined;
  private stopped = false;
  relists = 0;
  private readonly kind: FactKind;
  private readonly kube: KubeClient;
  private readonly emit: (event: ObjectEvent) => void;

  constructor(kind: FactKind, kube: KubeClient, emit: (event: ObjectEvent) => void) {
    this.kind = kind;
    this.kube = kube;
    this.emit = emit;
  }

  async start(): Promise<void> {
    await this.list(true);
    await this.watch();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  private async list(initial: boolean): Promise<void> {
    const body = await this.kube.request<ListBody>({ method: "GET", path: PATHS[this.kind], verb: "list", resource: this.kind, timeoutMs: 30_000 });
    const listRv = Number(body.metadata?.resourceVersion ?? 0);
    const seen = new Set<string>();
    for (const item of body.items ?? []) {
      const facts = factsOf(this.kind, item);
      const key = `${facts.namespace}/${facts.name}`;
      seen.add(key);
      const before = this.state.get(key);
      if (before && before.uid === facts.uid && before.rv === facts.rv) continue;
      if (before && before.uid !== facts.uid) this.record("DELETED", { ...before, rv: listRv }, true);
      this.record(before?.uid === facts.uid ? "MODIFIED" : "ADDED", facts, true);
    }
    if (!initial) {
      for (const [key, facts] of this.state) if (!seen.has(key)) this.record("DELETED", { ...facts, rv: listRv }, true);
    }
    this.resourceVersion = body.metadata?.resourceVersion ?? "";
  }

  private record(type: ObjectEvent["type"], facts: ObjectFacts, synthetic: boolean): void {
    const key = `${facts.namespace}/${facts.name}`;
    if (type === "DELETED") this.state.delete(key);
    else this.state.set(key, facts);
    this.emit({ type, rv: facts.rv, atMs: Date.now(), synthetic, facts });
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    const watch = this.kube.newWatch();
    let gone = false;
    let established: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (established = resolve));
    const done = (error: unknown) => {
      established();
      if (this.stopped) return;
      void (async () => {
        if (error) await new Promise((r) => setTimeout(r, 200));
        for (;;) {
          try {
            if (gone) {
              this.relists++;
              await this.list(false);
            }
            await this.watch();
            return;
          } catch {
            if (this.stopped) return;
            gone = true;
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      })();
    };
    this.abort = await watch.watch(
      PATHS[this.kind],
      { resourceVersion: this.resourceVersion, allowWatchBookmarks: true },
      (phase: string, object: unknown) => {
        established();
        if (phase === "ERROR") {
          if ((object as WatchStatus).code === 410) gone = true;
          return;
        }
        if (phase === "BOOKMARK") {
          this.resourceVersion = (object as WatchStatus).metadata?.resourceVersion ?? this.resourceVersion;
          return;
        }
        if (phase !== "ADDED" && phase !== "MODIFIED" && phase !== "DELETED") return;
        const facts = factsOf(this.kind, object);
        this.resourceVersion = String(facts.rv);
        this.record(phase, facts, false);
      },
      done,
    );
    // The first byte may take long on a quiet kind; the request itself is what must be established.
    await Promise.race([ready, new Promise((r) => setTimeout(r, 200))]);
  }
}

/** Every change of the four kinds, in arrival order (sort by `rv` for the API's order). */
export class ObjectRecorder {
  readonly events: ObjectEvent[] = [];
  private readonly kinds: KindRecorder[];

  constructor(kube: KubeClient) {
    this.kinds = (Object.keys(PATHS) as FactKind[]).map((kind) => new KindRecorder(kind, kube, (event) => this.events.push(event)));
  }

  async start(): Promise<void> {
    await Promise.all(this.kinds.map((k) => k.start()));
  }

  /** How many times a watch had to relist after 410 Gone (events of those relists are marked synthetic). */
  get relists(): number {
    return this.kinds.reduce((sum, k) => sum + k.relists, 0);
  }

  stop(): void {
    for (const kind of this.kinds) kind.stop();
  }
}

function decodeOr<T>(entry: KvEntry, decode: (bytes: Uint8Array) => T): T | undefined {
  if (entry.operation !== "PUT") return undefined;
  try {
    return decode(entry.value);
  } catch {
    return undefined;
  }
}

/** Every change of buckets `members` and `shards`, from their first revision, with current views. */
export class OwnershipRecorder {
  readonly changes: OwnershipChange[] = [];
  private readonly memberState = new Map<string, { record: MemberRecord; revision: number; atMs: number }>();
  private readonly shardState = new Map<string, { record: ShardRecord; revision: number; atMs: number }>();
  private readonly stops: (() => void)[] = [];
  private stopped = false;

  static async start(buckets: { members: KV; shards: KV }): Promise<OwnershipRecorder> {
    const recorder = new OwnershipRecorder();
    await Promise.all([recorder.follow("members", buckets.members, "m.*"), recorder.follow("shards", buckets.shards, "s.*")]);
    return recorder;
  }

  private async follow(bucket: "members" | "shards", kv: KV, key: string, fromRevision = 0): Promise<void> {
    if (this.stopped) return;
    let last = fromRevision;
    const iterator = await kv.watch({ key, include: KvWatchInclude.AllHistory, ...(fromRevision > 0 ? { resumeFromRevision: fromRevision + 1 } : {}) });
    this.stops.push(() => iterator.stop());
    void (async () => {
      try {
        for await (const entry of iterator) {
          if (entry.revision <= last) continue;
          last = entry.revision;
          this.apply(bucket, entry);
        }
      } catch {
        // the watch broke (NATS restarted): resume below
      }
      for (let attempt = 0; !this.stopped; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** attempt)));
        try {
          await this.follow(bucket, kv, key, last);
          return;
        } catch {
          // NATS not back yet
        }
      }
    })();
  }

  private apply(bucket: "members" | "shards", entry: KvEntry): void {
    const atMs = entry.created.getTime();
    if (bucket === "members") {
      const member = decodeOr(entry, (b) => codecs.memberRecord.decode(b));
      this.changes.push({ bucket, key: entry.key, revision: entry.revision, atMs, member });
      if (member) this.memberState.set(entry.key, { record: member, revision: entry.revision, atMs });
      else this.memberState.delete(entry.key);
    } else {
      const shard = decodeOr(entry, (b) => codecs.shardRecord.decode(b));
      this.changes.push({ bucket, key: entry.key, revision: entry.revision, atMs, shard });
      if (shard) this.shardState.set(entry.key, { record: shard, revision: entry.revision, atMs });
      else this.shardState.delete(entry.key);
    }
  }

  /** Member records by name, as last seen. */
  members(): Map<string, MemberRecord> {
    return new Map([...this.memberState.values()].map((v) => [v.record.name, v.record]));
  }

  /** Shard records by shard number, with the revision (epoch) and write time. */
  shards(): Map<number, { record: ShardRecord; revision: number; atMs: number }> {
    return new Map([...this.shardState.values()].map((v) => [v.record.shard, v]));
  }

  /** The member acting on a shard (owned by a live incarnation), or undefined. */
  ownerOf(shard: number): string | undefined {
    const current = this.shards().get(shard)?.record;
    if (!current || current.state !== "owned") return undefined;
    const member = this.members().get(current.owner);
    return member && member.incarnation === current.incarnation && member.state !== "dead" ? current.owner : undefined;
  }

  stop(): void {
    this.stopped = true;
    for (const stop of this.stops) stop();
  }
}
