// Keeps the intent log's layout record (`layout.intent-log` in bucket `members`) readable while this actor runs
// (docs/adr/0088-garbage-is-absent-and-repaired.md). The record is read only by actors that start; without a
// guard, garbage on it (or a delete while actors append) lasted until someone intervened, and every actor start in
// between failed, or could pin another layout under a log in use. The actor watches the key and writes its own
// layout back over garbage or a delete, by compare-and-set on the revision it saw; domain/layout-entry.ts decides.
import type { KV, KvEntry } from "@nats-io/kv";
import { BUCKETS, DecodeError, FLEET_KEYS, assertNever, codecs } from "#protocol";
import type { DecodeFailure, IntentLogLayout } from "#protocol";
import type { Logger } from "../../../common/src/logger.ts";
import { isWrongLastSequence } from "../../../common/src/stream-publish.ts";
import { describeIntentLogLayout } from "../../../common/src/topology.ts";
import { decideLayoutEntry } from "../domain/layout-entry.ts";
import type { LayoutDecision, LayoutEntry } from "../domain/layout-entry.ts";

export interface LayoutGuardOptions {
  readonly members: KV;
  /** The layout this actor appends by: the one provisionIntentLog pinned or found. */
  readonly layout: IntentLogLayout;
  readonly logger: Logger;
  /** A record that does not decode, once per revision: counted by the caller as a dropped message. */
  readonly onUndecodable?: (reason: DecodeFailure) => void;
  /**
   * After a write that failed for another reason than a lost compare-and-set (no answer, a bucket without a leader),
   * the key is read again this much later: the watch shows nothing new while the garbage stays. Defaults to 1 s.
   */
  readonly retryAfterMs?: number;
}

export interface LayoutGuard {
  stop(): void;
}

const DEFAULT_RETRY_AFTER_MS = 1_000;

/** What the key holds, as the decision reads it. */
function layoutEntryOf(entry: KvEntry | null): LayoutEntry {
  if (!entry) return { kind: "absent", revision: undefined };
  if (entry.operation !== "PUT") return { kind: "absent", revision: entry.revision };
  try {
    return { kind: "layout", revision: entry.revision, layout: codecs.intentLogLayout.decode(entry.value) };
  } catch (error) {
    return { kind: "undecodable", revision: entry.revision, reason: error instanceof DecodeError ? error.reason : "invalid" };
  }
}

/** Starts watching the layout key; resolves once the watch is open. */
export async function guardIntentLogLayout(options: LayoutGuardOptions): Promise<LayoutGuard> {
  const guard = new IntentLogLayoutGuard(options);
  await guard.start();
  return guard;
}

class IntentLogLayoutGuard implements LayoutGuard {
  private readonly options: LayoutGuardOptions;
  private readonly key = FLEET_KEYS.intentLog;
  private stopWatch: (() => void) | undefined;
  private stopped = false;
  /** Entries are handled one at a time, in the order they come: a write must not race the next entry's decision. */
  private queue: Promise<void> = Promise.resolve();
  /** The highest revision handled or written: an older one (a read overtaken by the watch) decides nothing. */
  private latestRevision = 0;
  private countedRevision = 0;
  private undecodableLogged = false;
  /** While the key holds another valid layout: logged when it starts, not for every entry. */
  private conflicting = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(options: LayoutGuardOptions) {
    this.options = options;
  }

  async start(): Promise<void> {
    const watch = await this.options.members.watch({ key: this.key });
    this.stopWatch = () => watch.stop();
    void (async () => {
      for await (const entry of watch) this.enqueue(layoutEntryOf(entry));
    })();
    // A watch shows nothing for a key without any entry (its stream purged by hand): read once to know.
    if ((await this.options.members.get(this.key)) === null) this.enqueue({ kind: "absent", revision: undefined });
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.stopWatch?.();
  }

  private enqueue(entry: LayoutEntry): void {
    this.queue = this.queue
      .then(() => this.handle(entry))
      .catch((error: unknown) => this.options.logger.warn({ err: error, key: this.key }, "intent log layout guard failed on an entry"));
  }

  private async handle(entry: LayoutEntry): Promise<void> {
    if (this.stopped) return;
    if (entry.revision !== undefined) {
      if (entry.revision < this.latestRevision) return;
      this.latestRevision = entry.revision;
    }
    if (entry.kind === "undecodable") this.undecodable(entry.revision, entry.reason);
    const decision = decideLayoutEntry(entry, this.options.layout);
    switch (decision.action) {
      case "keep":
        this.conflicting = false;
        return;
      case "conflict":
        // Two logs in use at once: the actors of the other layout do not fence ours. Only an operator can settle it.
        if (!this.conflicting) {
          this.options.logger.error(
            { key: this.key, pinned: decision.pinned.placement, ours: this.options.layout.placement },
            `the fleet's intent log layout record now says ${describeIntentLogLayout(decision.pinned.placement)}, this actor appends to ` +
              `${describeIntentLogLayout(this.options.layout.placement)}: give every actor the same --intent-log-placement`,
          );
        }
        this.conflicting = true;
        return;
      case "rewrite":
        this.conflicting = false;
        await this.rewrite(decision);
        return;
      default:
        return assertNever(decision, "layout decision");
    }
  }

  private undecodable(revision: number, reason: DecodeFailure): void {
    // A read after a failed write may show a revision the watch showed already.
    if (revision <= this.countedRevision) return;
    this.countedRevision = revision;
    this.options.onUndecodable?.(reason);
    const detail = { bucket: BUCKETS.members, key: this.key, revision, reason };
    if (this.undecodableLogged) {
      this.options.logger.debug(detail, "undecodable intent log layout record; writing ours back");
      return;
    }
    this.undecodableLogged = true;
    this.options.logger.warn(detail, "undecodable intent log layout record; writing ours back (further ones are logged at debug)");
  }

  private async rewrite(decision: Extract<LayoutDecision, { action: "rewrite" }>): Promise<void> {
    const bytes = codecs.intentLogLayout.encode(this.options.layout);
    try {
      const revision =
        decision.revision === undefined ? await this.options.members.create(this.key, bytes) : await this.options.members.update(this.key, bytes, decision.revision);
      if (revision > this.latestRevision) this.latestRevision = revision;
      this.options.logger.warn({ key: this.key, over: decision.revision, revision, why: decision.why }, "wrote the intent log's layout back");
    } catch (error) {
      if (this.stopped) return;
      // Someone wrote first (another actor's repair, more garbage): the watch shows it and the next decision follows.
      if (isWrongLastSequence(error)) return;
      this.options.logger.warn({ err: error, key: this.key, retryAfterMs: this.retryAfterMs() }, "could not write the intent log's layout back; reading the key again later");
      this.scheduleReread();
    }
  }

  private retryAfterMs(): number {
    return this.options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  }

  private scheduleReread(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.stopped) return;
      void this.options.members.get(this.key).then(
        (entry) => this.enqueue(layoutEntryOf(entry)),
        (error: unknown) => {
          this.options.logger.debug({ err: error, key: this.key }, "could not read the intent log's layout record; trying again later");
          this.scheduleReread();
        },
      );
    }, this.retryAfterMs());
    this.retryTimer.unref();
  }
}
