// Executors' view of shard ownership: the current epoch (KV revision of `s.<shard>`) of every shard, from a
// watch on the `shards` bucket. A command whose epoch is lower than the shard's current epoch comes from an
// owner that has lost the shard and is rejected.
//
// The epoch is the revision of the key's last entry, whatever it holds (docs/adr/0088-garbage-is-absent-and-repaired.md):
// a record that does not decode is no owner, and its revision still fences every owner before it. Nobody acts at
// that revision (an owner acts only at the revision of its own claim), and the next owner claims by compare-and-set
// on it, so its epoch is higher still.
import type { KV } from "@nats-io/kv";
import { DecodeError, codecs, shardKeys } from "#protocol";
import type { DecodeFailure } from "#protocol";
import type { Logger } from "./logger.ts";

export interface ShardEpochView {
  /** Current epoch of the shard, or undefined when no owner has ever claimed it. */
  epochOf(shard: number): number | undefined;
  /** True when a newer owner exists: the command's sender has been fenced. */
  isStale(shard: number, epoch: number): boolean;
  ready(): boolean;
  stop(): void;
}

/** Why a shard record does not decode; undefined for one that does (or a delete, a purge). */
function decodeFailure(bytes: Uint8Array): DecodeFailure | undefined {
  try {
    codecs.shardRecord.decode(bytes);
    return undefined;
  } catch (error) {
    return error instanceof DecodeError ? error.reason : "invalid";
  }
}

/**
 * `onUndecodable` counts every undecodable record (stsfleet_dropped_messages_total); the log gets the first one of
 * the watch at warn and the others at debug, since garbage on every key is 256 of them at once.
 */
export async function watchShardEpochs(
  bucket: KV,
  logger: Logger,
  onUndecodable?: (reason: DecodeFailure) => void,
): Promise<ShardEpochView> {
  const epochs = new Map<number, number>();
  const initialValues = (await bucket.status()).values;
  let ready = initialValues === 0;
  let undecodableLogged = false;
  const iterator = await bucket.watch({ key: "s.*" });
  void (async () => {
    for await (const entry of iterator) {
      let shard: number;
      try {
        shard = shardKeys.parse(entry.key);
      } catch {
        continue;
      }
      const failure = entry.operation === "PUT" ? decodeFailure(entry.value) : undefined;
      if (failure) {
        onUndecodable?.(failure);
        const detail = { key: entry.key, revision: entry.revision, reason: failure };
        if (undecodableLogged) logger.debug(detail, "undecodable shard record: no owner, its revision is the epoch");
        else logger.warn(detail, "undecodable shard record: no owner, its revision is the epoch (further ones are logged at debug)");
        undecodableLogged = true;
      }
      const previous = epochs.get(shard);
      if (previous === undefined || previous < entry.revision) epochs.set(shard, entry.revision);
      if (entry.delta === 0) ready = true;
    }
  })();
  return {
    epochOf: (shard) => epochs.get(shard),
    isStale: (shard, epoch) => {
      const current = epochs.get(shard);
      return current !== undefined && epoch < current;
    },
    ready: () => ready,
    stop: () => iterator.stop(),
  };
}
