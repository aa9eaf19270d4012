// `stsfleet status`: the fleet as NATS sees it. Members (state, incarnation, age of the last renew), the owner of
// each shard, sets per member (from the StatefulSet subjects of K8S_OBJS), and recent handoffs with their
// durations, rebuilt from the KV history of the `shards` bucket (and `members`, for when an owner was declared
// dead). Reads only; works against `stsfleet up`'s state dir or any NATS URL.
import { Command, InvalidArgumentError, Option } from "commander";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { KvEntry } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { BUCKETS, SHARD_COUNT, STREAMS, codecs, memberKeys, objectSubjects, shardKeys } from "#protocol";
import type { IntentLogLayout, MemberRecord, ShardRecord } from "#protocol";
import { describeIntentLogLayout, readIntentLogLayout } from "../../../services/common/src/topology.ts";
import { readStreamIndex } from "../../../services/watcher/src/adapters/stream-index.ts";
import { natsConnectSettings, readStackFile } from "./state.ts";
import type { NatsConnectSettings } from "./state.ts";

// --- what the command reads ----------------------------------------------------------------------------------

/** One KV write as the history shows it (undefined record: a delete, purge or undecodable value). */
export interface HistoryEntry<T> {
  readonly key: string;
  readonly revision: number;
  readonly atMs: number;
  readonly record: T | undefined;
}

export interface StatusInput {
  readonly nats: string;
  readonly nowMs: number;
  /** Every retained write of bucket `members` (history 8 per key). */
  readonly members: readonly HistoryEntry<MemberRecord>[];
  /** Every retained write of bucket `shards`. */
  readonly shards: readonly HistoryEntry<ShardRecord>[];
  /**
   * Writes the buckets keep per key (their `history`). A key with this many retained writes may have lost older
   * ones, so its oldest retained claim is not known to be the first.
   */
  readonly historyPerKey: number;
  /** Live StatefulSets (PUT, not tombstoned) per shard. */
  readonly setsPerShard: ReadonlyMap<number, number>;
  /** The intent log's layout pinned by the first actor (undefined: none yet, or an older fleet). */
  readonly intentLog?: IntentLogLayout | undefined;
}

// --- what it shows -----------------------------------------------------------------------------------------------

export interface MemberStatus {
  readonly name: string;
  readonly state: MemberRecord["state"];
  readonly incarnation: string;
  readonly version: string;
  readonly startedAtMs: number;
  /** Age of the member record's last write (a renew, every retry period while alive). */
  readonly lastRenewAgeMs: number;
  readonly shards: number;
  readonly sets: number;
}

export interface Handoff {
  readonly shard: number;
  /** graceful: released, then claimed; failover: claimed from a dead (or earlier) incarnation; initial: first claim. */
  readonly kind: "graceful" | "failover" | "initial";
  readonly from: string | undefined;
  readonly to: string;
  readonly atMs: number;
  readonly epoch: number;
  /** From the release (graceful) or the owner's death declaration (failover) to the claim, when known. */
  readonly durationMs: number | undefined;
}

/** Handoffs of one kind in the retained history, with the durations that are known. */
export interface HandoffStats {
  readonly count: number;
  /** How many of them have a known duration (the release or the death declaration is still in the history). */
  readonly timed: number;
  readonly p50Ms: number | undefined;
  readonly maxMs: number | undefined;
}

export interface FleetStatus {
  readonly nats: string;
  readonly members: readonly MemberStatus[];
  /** Shard ranges per acting owner (`0-3,7`); `(none)` for shards without one. */
  readonly owners: Readonly<Record<string, string>>;
  readonly ownedShards: number;
  readonly sets: number;
  /** Newest first, at most the number asked for. */
  readonly handoffs: readonly Handoff[];
  /** Over every handoff in the retained history (not only the ones listed). */
  readonly handoffStats: Readonly<Record<Handoff["kind"], HandoffStats>>;
  /** How the intent log is kept: `stream` (STS_INTENT) or a quorum placed on these server tags (ADR 0084). */
  readonly intentLog: { readonly layout: "stream" | "quorum" | "unknown"; readonly placement: readonly string[] };
}

/** `[0,1,2,3,7,9,10]` -> `0-3,7,9-10`. */
export function compactRanges(values: readonly number[]): string {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** The owners key of shards without an acting owner. */
export const NO_OWNER = "(none)";

function latestByKey<T>(entries: readonly HistoryEntry<T>[]): Map<string, HistoryEntry<T>> {
  const latest = new Map<string, HistoryEntry<T>>();
  for (const entry of entries) {
    const current = latest.get(entry.key);
    if (!current || current.revision < entry.revision) latest.set(entry.key, entry);
  }
  return latest;
}

function shardOfKey(key: string): number | undefined {
  try {
    return shardKeys.parse(key);
  } catch {
    return undefined;
  }
}

/** Each member's newest record that decodes, by member name. */
function currentMembers(input: StatusInput): Map<string, HistoryEntry<MemberRecord>> {
  const members = new Map<string, HistoryEntry<MemberRecord>>();
  for (const [key, entry] of latestByKey(input.members)) {
    try {
      if (entry.record) members.set(memberKeys.parse(key), entry);
    } catch {
      // not a member key
    }
  }
  return members;
}

/** Shards and sets per acting owner (NO_OWNER for shards whose owner is not an alive incarnation). */
function shardsByOwner(input: StatusInput, members: ReadonlyMap<string, HistoryEntry<MemberRecord>>): { shards: Map<string, number[]>; sets: Map<string, number> } {
  const acting = (record: ShardRecord | undefined): string | undefined => {
    if (!record || record.state !== "owned") return undefined;
    const member = members.get(record.owner)?.record;
    return member && member.incarnation === record.incarnation && member.state !== "dead" ? record.owner : undefined;
  };
  const shards = new Map<string, number[]>();
  const sets = new Map<string, number>();
  const current = latestByKey(input.shards);
  for (let shard = 0; shard < SHARD_COUNT; shard++) {
    const owner = acting(current.get(shardKeys.build(shard))?.record) ?? NO_OWNER;
    shards.set(owner, [...(shards.get(owner) ?? []), shard]);
    sets.set(owner, (sets.get(owner) ?? 0) + (input.setsPerShard.get(shard) ?? 0));
  }
  return { shards, sets };
}

function memberStatuses(input: StatusInput, members: ReadonlyMap<string, HistoryEntry<MemberRecord>>, owned: ReturnType<typeof shardsByOwner>): MemberStatus[] {
  return [...members]
    .map(([name, entry]) => {
      const record = entry.record as MemberRecord;
      return {
        name,
        state: record.state,
        incarnation: record.incarnation,
        version: record.version,
        startedAtMs: record.startedAtMs,
        lastRenewAgeMs: Math.max(0, input.nowMs - entry.atMs),
        shards: record.state === "dead" ? 0 : (owned.shards.get(name)?.length ?? 0),
        sets: record.state === "dead" ? 0 : (owned.sets.get(name) ?? 0),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Each claim (owned by a new owner or incarnation) against the write before it on the same shard, newest first. */
function handoffsOf(input: StatusInput): Handoff[] {
  const deaths = new Map<string, number>();
  for (const entry of input.members) {
    if (entry.record?.state === "dead") {
      const id = `${entry.record.name}/${entry.record.incarnation}`;
      deaths.set(id, Math.min(deaths.get(id) ?? Infinity, entry.atMs));
    }
  }
  const perShard = new Map<number, HistoryEntry<ShardRecord>[]>();
  for (const entry of input.shards) {
    const shard = shardOfKey(entry.key);
    if (shard !== undefined) perShard.set(shard, [...(perShard.get(shard) ?? []), entry]);
  }
  const handoffs: Handoff[] = [];
  for (const [shard, history] of perShard) {
    history.sort((a, b) => a.revision - b.revision);
    history.forEach((entry, i) => {
      const record = entry.record;
      if (!record || record.state !== "owned") return;
      const before = history[i - 1]?.record;
      if (before && before.state === "owned" && before.owner === record.owner && before.incarnation === record.incarnation) return;
      const previous = history[i - 1];
      // The oldest retained write of a full history may have had predecessors: its kind is unknown, so skip it.
      if (i === 0 && history.length >= input.historyPerKey) return;
      const kind: Handoff["kind"] = !before ? "initial" : before.state === "released" ? "graceful" : "failover";
      const since = kind === "graceful" ? previous?.atMs : before ? deaths.get(`${before.owner}/${before.incarnation}`) : undefined;
      handoffs.push({
        shard,
        kind,
        from: before?.owner,
        to: record.owner,
        atMs: entry.atMs,
        epoch: entry.revision,
        durationMs: since === undefined ? undefined : Math.max(0, entry.atMs - since),
      });
    });
  }
  return handoffs.sort((a, b) => b.atMs - a.atMs || b.epoch - a.epoch);
}

function handoffStats(handoffs: readonly Handoff[], kind: Handoff["kind"]): HandoffStats {
  const ofKind = handoffs.filter((h) => h.kind === kind);
  const durations = ofKind.flatMap((h) => (h.durationMs === undefined ? [] : [h.durationMs])).sort((a, b) => a - b);
  return {
    count: ofKind.length,
    timed: durations.length,
    p50Ms: durations.length > 0 ? durations[Math.ceil(durations.length / 2) - 1] : undefined,
    maxMs: durations.at(-1),
  };
}

export function summarize(input: StatusInput, options: { handoffs?: number } = {}): FleetStatus {
  const members = currentMembers(input);
  const owned = shardsByOwner(input, members);
  const handoffs = handoffsOf(input);
  const owners: Record<string, string> = {};
  const ownerOrder = ([a]: [string, unknown], [b]: [string, unknown]) => Number(a === NO_OWNER) - Number(b === NO_OWNER) || a.localeCompare(b);
  for (const [owner, shards] of [...owned.shards].sort(ownerOrder)) owners[owner] = compactRanges(shards);
  return {
    nats: input.nats,
    members: memberStatuses(input, members, owned),
    owners,
    ownedShards: SHARD_COUNT - (owned.shards.get(NO_OWNER)?.length ?? 0),
    sets: [...input.setsPerShard.values()].reduce((a, b) => a + b, 0),
    handoffs: handoffs.slice(0, options.handoffs ?? 20),
    handoffStats: { graceful: handoffStats(handoffs, "graceful"), failover: handoffStats(handoffs, "failover"), initial: handoffStats(handoffs, "initial") },
    intentLog: input.intentLog
      ? { layout: input.intentLog.placement.length === 0 ? "stream" : "quorum", placement: input.intentLog.placement }
      : { layout: "unknown", placement: [] },
  };
}

// --- rendering -----------------------------------------------------------------------------------------------------

function age(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)}m`;
  return `${Math.round(ms / 3_600_000)}h`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  return [header, ...rows].map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd());
}

/** Shard ranges wrap at this many characters (rendezvous hashing scatters a member's shards). */
const OWNER_LINE_CHARS = 96;

/** Splits a comma-separated list into lines of at most `width` characters, breaking after commas. */
export function wrap(list: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const item of list.split(",")) {
    const next = current === "" ? item : `${current},${item}`;
    if (next.length > width && current !== "") {
      lines.push(`${current},`);
      current = item;
    } else {
      current = next;
    }
  }
  lines.push(current);
  return lines;
}

export function formatStatus(status: FleetStatus, nowMs: number): string {
  const alive = status.members.filter((m) => m.state !== "dead").length;
  const intentLog =
    status.intentLog.layout === "unknown" ? "not pinned yet" : describeIntentLogLayout(status.intentLog.placement);
  const lines = [`NATS ${status.nats}: ${alive} live members, ${status.ownedShards}/${SHARD_COUNT} shards owned, ${status.sets} StatefulSets`, `intent log: ${intentLog}`, ""];
  lines.push(
    ...table(
      ["MEMBER", "STATE", "INCARNATION", "RENEWED", "SHARDS", "SETS", "VERSION", "STARTED"],
      status.members.map((m) => [
        m.name,
        m.state,
        m.incarnation.slice(0, 8),
        `${age(m.lastRenewAgeMs)} ago`,
        String(m.shards),
        String(m.sets),
        m.version,
        m.startedAtMs > 0 ? `${age(nowMs - m.startedAtMs)} ago` : "-",
      ]),
    ),
  );
  lines.push("", "SHARD OWNERS");
  const ownerWidth = Math.max(0, ...Object.keys(status.owners).map((o) => o.length));
  for (const [owner, ranges] of Object.entries(status.owners)) {
    wrap(ranges, OWNER_LINE_CHARS).forEach((part, i) => lines.push(`  ${(i === 0 ? owner : "").padEnd(ownerWidth)}  ${part}`));
  }
  lines.push("", status.handoffs.length > 0 ? "RECENT HANDOFFS (newest first)" : "RECENT HANDOFFS: none in the retained history");
  const summary = (["graceful", "failover", "initial"] as const)
    .filter((kind) => status.handoffStats[kind].count > 0)
    .map((kind) => {
      const s = status.handoffStats[kind];
      const timing = s.p50Ms !== undefined && s.maxMs !== undefined ? ` (p50 ${Math.round(s.p50Ms)} ms, max ${Math.round(s.maxMs)} ms over ${s.timed})` : "";
      return `${s.count} ${kind}${timing}`;
    });
  if (summary.length > 0) lines.push(`  retained: ${summary.join("; ")}`);
  if (status.handoffs.length > 0) {
    lines.push(
      ...table(
        ["TIME", "SHARD", "KIND", "FROM", "TO", "EPOCH", "DURATION"],
        status.handoffs.map((h) => [
          new Date(h.atMs).toISOString().slice(11, 23),
          String(h.shard),
          h.kind,
          h.from ?? "-",
          h.to,
          String(h.epoch),
          h.durationMs === undefined ? "-" : `${Math.round(h.durationMs)} ms`,
        ]),
      ),
    );
  }
  return lines.join("\n");
}

// --- reading NATS ----------------------------------------------------------------------------------------------------

export class StatusError extends Error {
  override readonly name = "StatusError";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

function historyEntries<T>(entries: readonly KvEntry[], decode: (bytes: Uint8Array) => T): HistoryEntry<T>[] {
  return entries.map((entry) => {
    let record: T | undefined;
    if (entry.operation === "PUT") {
      try {
        record = decode(entry.value);
      } catch {
        record = undefined;
      }
    }
    return { key: entry.key, revision: entry.revision, atMs: entry.created.getTime(), record };
  });
}

async function collect<T>(iterator: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterator) out.push(item);
  return out;
}

/** Reads everything `summarize` needs from the NATS at `url`. */
export async function readStatusInput(
  url: string,
  options: { timeoutMs?: number; access?: Omit<NatsConnectSettings, "servers"> } = {},
): Promise<StatusInput> {
  let nc;
  try {
    nc = await connect({
      ...options.access,
      servers: url.split(",").map((s) => s.trim()),
      name: "stsfleet-status",
      timeout: options.timeoutMs ?? 5_000,
    });
  } catch (error) {
    throw new StatusError(`cannot connect to NATS at ${url}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const kvm = new Kvm(nc);
    const jsm = await jetstreamManager(nc);
    const exists = (stream: string) =>
      jsm.streams.info(stream).then(
        () => true,
        () => false,
      );
    if (!(await exists(`KV_${BUCKETS.members}`)) || !(await exists(`KV_${BUCKETS.shards}`))) {
      throw new StatusError(`no fleet at ${url}: buckets ${BUCKETS.members} and ${BUCKETS.shards} are missing (has an actor started?)`);
    }
    const members = await kvm.open(BUCKETS.members);
    const shards = await kvm.open(BUCKETS.shards);
    const historyPerKey = Math.min((await members.status()).history, (await shards.status()).history);
    const [memberHistory, shardHistory] = await Promise.all([
      members.history({ key: "m.*" }).then(collect),
      shards.history({ key: "s.*" }).then(collect),
    ]);
    const setsPerShard = new Map<number, number>();
    if (await exists(STREAMS.objects)) {
      const index = await readStreamIndex(jetstream(nc), jsm, { stream: STREAMS.objects, filter: "k8s.*.sts.>", batchWaitMs: 1_000 });
      for (const entry of index.entries) {
        if (entry.op !== "PUT") continue;
        const shard = objectSubjects.parse(entry.subject).shard;
        setsPerShard.set(shard, (setsPerShard.get(shard) ?? 0) + 1);
      }
    }
    const pinned = await readIntentLogLayout(members).catch(() => undefined);
    const intentLog = pinned === "unreadable" ? undefined : pinned;
    return {
      nats: url,
      nowMs: Date.now(),
      intentLog,
      members: historyEntries(memberHistory, (b) => codecs.memberRecord.decode(b)),
      shards: historyEntries(shardHistory, (b) => codecs.shardRecord.decode(b)),
      setsPerShard,
      historyPerKey,
    };
  } finally {
    await nc.close();
  }
}

export interface StatusCommandOptions {
  readonly stateDir: string;
  readonly natsUrl?: string;
  readonly output: "table" | "json";
  readonly handoffs: number;
}

export interface StatusOutput {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

const STDIO: StatusOutput = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** Returns the exit code. */
export async function runStatus(options: StatusCommandOptions, io: StatusOutput = STDIO): Promise<number> {
  let url = options.natsUrl;
  let access: Omit<NatsConnectSettings, "servers"> | undefined;
  try {
    if (url === undefined) {
      const stack = readStackFile(options.stateDir);
      if (!stack) {
        io.err(`stsfleet status: no stack.json in ${options.stateDir} (start one with \`stsfleet up\`, or pass --nats-url)`);
        return 1;
      }
      url = stack.nats;
      // A secure stack (`up --secure`): the read-only operator user, its password file and TLS files.
      const { servers: _servers, ...rest } = natsConnectSettings(stack);
      access = rest;
    }
    const input = await readStatusInput(url, access ? { access } : {});
    const status = summarize(input, { handoffs: options.handoffs });
    io.out(options.output === "json" ? JSON.stringify(status, null, 2) : formatStatus(status, input.nowMs));
    return 0;
  } catch (error) {
    io.err(`stsfleet status: ${(error as Error).message}`);
    return 1;
  }
}

export function statusCommand(io: StatusOutput = STDIO): Command {
  return new Command("status")
    .description("show the fleet: members, shard owners, sets per member, recent handoffs")
    .addOption(new Option("--state-dir <dir>", "the state dir of a stack started by `stsfleet up`").env("STSFLEET_STATE_DIR").default(".stsfleet"))
    .addOption(new Option("--nats-url <url>", "read this NATS instead of the one in <state-dir>/stack.json"))
    .addOption(new Option("-o, --output <format>", "table or json").choices(["table", "json"]).default("table"))
    .addOption(
      new Option("--handoffs <n>", "how many recent handoffs to show")
        .argParser((raw: string) => {
          if (!/^\d+$/.test(raw.trim())) throw new InvalidArgumentError("--handoffs must be a non-negative integer");
          return Number(raw);
        })
        .default(20),
    )
    .action(async (options: StatusCommandOptions) => {
      process.exitCode = await runStatus(options, io);
    });
}
